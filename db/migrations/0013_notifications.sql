CREATE TABLE "decision_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"run_id" uuid NOT NULL,
	"turn_digest" text NOT NULL,
	"choice" text NOT NULL,
	"channel" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decision_links_choice_check" CHECK ("decision_links"."choice" in ('approve', 'deny', 'open'))
);
--> statement-breakpoint
CREATE TABLE "notification_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"channel" text NOT NULL,
	"recipient" text NOT NULL,
	"message_ids" jsonb NOT NULL,
	"attempt" integer NOT NULL,
	"is_delivered" boolean NOT NULL,
	"detail" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" integer NOT NULL,
	"run_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"recipient" text NOT NULL,
	"item" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_messages_status_check" CHECK ("notification_messages"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "decision_links" ADD CONSTRAINT "decision_links_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_messages" ADD CONSTRAINT "notification_messages_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "decision_links_run_id_idx" ON "decision_links" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "notification_deliveries_channel_idx" ON "notification_deliveries" USING btree ("channel","id");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_messages_once_idx" ON "notification_messages" USING btree ("event_id","channel","recipient");--> statement-breakpoint
CREATE INDEX "notification_messages_due_idx" ON "notification_messages" USING btree ("status","next_attempt_at");--> statement-breakpoint
-- The events people are told about are noted in the transaction that appends them
-- (docs/notifications.md#how-delivery-works): a wait started, soon expires, was decided, expired,
-- or was cancelled (a cancel's claim). Nothing else, so an ungated run notes nothing.
CREATE OR REPLACE FUNCTION note_notification_event() RETURNS trigger AS $$
BEGIN
  INSERT INTO notification_events (run_id, seq, type) VALUES (NEW.run_id, NEW.seq, NEW.type);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER run_events_note_notifications AFTER INSERT ON "run_events"
  FOR EACH ROW
  WHEN (NEW.type IN ('awaiting_approval', 'approval_expiring', 'approval_decided', 'approval_expired')
        OR (NEW.type = 'run_claimed' AND NEW.payload->>'purpose' = 'cancel'))
  EXECUTE FUNCTION note_notification_event();
