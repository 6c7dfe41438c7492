CREATE TABLE "notification_escalations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"turn_digest" text NOT NULL,
	"channel" text NOT NULL,
	"step" integer NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"item" jsonb NOT NULL,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_escalations_status_check" CHECK ("notification_escalations"."status" in ('scheduled', 'fired', 'stopped'))
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"user_id" text PRIMARY KEY NOT NULL,
	"muted_channels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"quiet_hours" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_escalations" ADD CONSTRAINT "notification_escalations_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_escalations_once_idx" ON "notification_escalations" USING btree ("run_id","turn_digest","channel","step");--> statement-breakpoint
CREATE INDEX "notification_escalations_due_idx" ON "notification_escalations" USING btree ("status","due_at");--> statement-breakpoint
-- An escalation step is told like a wait's start (docs/notifications.md#escalation): the trigger
-- of 0013 notes `approval_escalated` too.
DROP TRIGGER IF EXISTS run_events_note_notifications ON "run_events";
--> statement-breakpoint
CREATE TRIGGER run_events_note_notifications AFTER INSERT ON "run_events"
  FOR EACH ROW
  WHEN (NEW.type IN ('awaiting_approval', 'approval_expiring', 'approval_decided', 'approval_expired',
                     'approval_escalated')
        OR (NEW.type = 'run_claimed' AND NEW.payload->>'purpose' = 'cancel'))
  EXECUTE FUNCTION note_notification_event();
