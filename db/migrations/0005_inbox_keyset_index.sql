DROP INDEX "runs_status_waiting_since_idx";--> statement-breakpoint
CREATE INDEX "runs_status_waiting_since_id_idx" ON "runs" USING btree ("status","waiting_since","id");