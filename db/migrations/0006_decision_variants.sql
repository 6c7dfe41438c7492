ALTER TABLE "approvals" ADD COLUMN "decision_id" uuid;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "kind" text DEFAULT 'decision' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "scope" text DEFAULT 'gate' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "batch_index" integer;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "call_id" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "tool_name" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "arguments" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "arguments_digest" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "edited_arguments" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "edited_digest" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "granted_by" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "allowed_tools" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "approval_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "approval_warn_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "runs_approval_expires_at_idx" ON "runs" USING btree ("approval_expires_at");--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_kind_check" CHECK ("approvals"."kind" in ('decision', 'expiry', 'automatic'));--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_scope_check" CHECK ("approvals"."scope" in ('gate', 'turn'));