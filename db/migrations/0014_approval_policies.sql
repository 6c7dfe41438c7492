CREATE TABLE "policies" (
	"version" integer PRIMARY KEY NOT NULL,
	"document" text NOT NULL,
	"mode" text NOT NULL,
	"published_by_id" text NOT NULL,
	"published_by_name" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "policies_mode_check" CHECK ("policies"."mode" in ('live', 'shadow'))
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "policy_version" integer;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "policy_rule" text;