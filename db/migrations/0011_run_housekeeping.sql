CREATE TABLE "run_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"run_id" uuid NOT NULL,
	"run_name" text NOT NULL,
	"actor_id" text,
	"actor_name" text,
	CONSTRAINT "run_changes_kind_check" CHECK ("run_changes"."kind" in ('archived', 'unarchived', 'deleted'))
);
--> statement-breakpoint
ALTER TABLE "approvals" DROP CONSTRAINT "approvals_run_id_runs_id_fk";
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "run_changes_run_id_idx" ON "run_changes" USING btree ("run_id","id");--> statement-breakpoint
-- The record of archives and deletions is append-only, as the approvals audit is (0001).
CREATE TRIGGER run_changes_append_only BEFORE UPDATE OR DELETE ON "run_changes"
  FOR EACH ROW EXECUTE FUNCTION refuse_history_change();
--> statement-breakpoint
-- A run's event log is still never rewritten; it goes only with its run, when
-- deleting that run named it for this transaction (db/repositories/run-housekeeping.ts,
-- docs/housekeeping.md). The approvals audit keeps its trigger: it stays.
CREATE OR REPLACE FUNCTION refuse_event_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('playground.deleting_run', true) = OLD.run_id::text THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
DROP TRIGGER run_events_append_only ON "run_events";
--> statement-breakpoint
CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON "run_events"
  FOR EACH ROW EXECUTE FUNCTION refuse_event_change();
