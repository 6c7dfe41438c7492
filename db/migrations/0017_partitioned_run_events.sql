-- run_events is partitioned by month of created_at (docs/housekeeping.md#a-year-of-events), so a
-- year of events is twelve tables whose indexes stay small, and retention drops whole months
-- instead of deleting rows from an append-only log. The rows move across unchanged, in this
-- migration's transaction: all of them are there afterwards, or none has moved.
--
-- Creates the monthly partitions (UTC) from first_month's to last_month's that are missing, and
-- returns the names of those it made. The app calls it at start-up and on its sweeps to stay
-- months ahead (db/event-partitions.ts); a partition made here takes the parent's key, index and
-- triggers, so the append-only guarantee holds for every month, made now or later.
CREATE OR REPLACE FUNCTION ensure_run_events_partitions(first_month timestamptz, last_month timestamptz)
RETURNS SETOF text AS $$
DECLARE
  month_start timestamptz := date_trunc('month', first_month, 'UTC');
  month_end timestamptz;
  partition_name text;
BEGIN
  -- Instances starting together would race to create the same month.
  PERFORM pg_advisory_xact_lock(7305118003);
  WHILE month_start <= last_month LOOP
    month_end := (month_start AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
    partition_name := 'run_events_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYY_MM');
    IF to_regclass(partition_name) IS NULL THEN
      IF EXISTS (SELECT 1 FROM run_events_default WHERE created_at >= month_start AND created_at < month_end) THEN
        RAISE EXCEPTION 'cannot create % : run_events_default already holds events of that month (no partition was made ahead in time); see docs/housekeeping.md#a-year-of-events', partition_name;
      END IF;
      EXECUTE format('CREATE TABLE %I PARTITION OF run_events FOR VALUES FROM (%L) TO (%L)',
                     partition_name, month_start, month_end);
      RETURN NEXT partition_name;
    END IF;
    month_start := month_end;
  END LOOP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
ALTER TABLE "run_events" RENAME TO "run_events_unpartitioned";
--> statement-breakpoint
ALTER TABLE "run_events_unpartitioned" RENAME CONSTRAINT "run_events_run_id_seq_pk" TO "run_events_unpartitioned_pk";
--> statement-breakpoint
ALTER TABLE "run_events_unpartitioned" RENAME CONSTRAINT "run_events_run_id_runs_id_fk" TO "run_events_unpartitioned_run_id_fk";
--> statement-breakpoint
CREATE TABLE "run_events" (
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_events_run_id_seq_created_at_pk" PRIMARY KEY("run_id","seq","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- Catches an event of a month nobody made a partition for, instead of refusing it: a run never
-- fails for want of maintenance. It stays empty while the app keeps months ahead; retention never drops it.
CREATE TABLE "run_events_default" PARTITION OF "run_events" DEFAULT;
--> statement-breakpoint
SELECT ensure_run_events_partitions(
  least(coalesce((SELECT min(created_at) FROM run_events_unpartitioned), now()), now()),
  now() + interval '3 months');
--> statement-breakpoint
-- Copied before the triggers exist: these events were told about when they happened.
INSERT INTO "run_events" ("run_id", "seq", "type", "version", "payload", "created_at")
  SELECT "run_id", "seq", "type", "version", "payload", "created_at" FROM "run_events_unpartitioned";
--> statement-breakpoint
DROP TABLE "run_events_unpartitioned";
--> statement-breakpoint
-- The refusal names the log, not the partition it hit (people and tests read "run_events is append-only").
CREATE OR REPLACE FUNCTION refuse_event_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('playground.deleting_run', true) = OLD.run_id::text THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'run_events is append-only: % refused', TG_OP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- On the parent, so every partition has them, those made later included.
CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON "run_events"
  FOR EACH ROW EXECUTE FUNCTION refuse_event_change();
--> statement-breakpoint
CREATE TRIGGER run_events_note_notifications AFTER INSERT ON "run_events"
  FOR EACH ROW
  WHEN (NEW.type IN ('awaiting_approval', 'approval_expiring', 'approval_decided', 'approval_expired',
                     'approval_escalated')
        OR (NEW.type = 'run_claimed' AND NEW.payload->>'purpose' = 'cancel'))
  EXECUTE FUNCTION note_notification_event();
