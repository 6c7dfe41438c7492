CREATE TABLE "account_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"subject_id" text NOT NULL,
	"subject_email" text NOT NULL,
	"detail" text,
	CONSTRAINT "account_events_kind_check" CHECK ("account_events"."kind" in ('user_added', 'role_changed', 'user_deactivated', 'user_reactivated', 'user_removed', 'password_reset', 'password_changed'))
);
--> statement-breakpoint
CREATE INDEX "account_events_subject_id_idx" ON "account_events" USING btree ("subject_id");--> statement-breakpoint
-- The accounts audit is append-only, as the approvals audit is (0001).
CREATE TRIGGER account_events_append_only BEFORE UPDATE OR DELETE ON "account_events"
  FOR EACH ROW EXECUTE FUNCTION refuse_history_change();
