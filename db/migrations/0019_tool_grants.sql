CREATE TABLE "tool_grants" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tool_name" text NOT NULL,
	"scope" text NOT NULL,
	"run_id" uuid,
	"agent" text,
	"starter_id" text,
	"condition" text,
	"tool_fingerprint" text,
	"expires_at" timestamp with time zone,
	"max_uses" integer,
	"uses" integer DEFAULT 0 NOT NULL,
	"created_in_run_id" uuid NOT NULL,
	"created_by_id" text,
	"created_by_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by_id" text,
	"revoked_by_name" text,
	CONSTRAINT "tool_grants_scope_check" CHECK ("tool_grants"."scope" in ('run', 'agent', 'user', 'everyone')),
	CONSTRAINT "tool_grants_uses_check" CHECK ("tool_grants"."uses" >= 0 and ("tool_grants"."max_uses" is null or "tool_grants"."uses" <= "tool_grants"."max_uses"))
);
--> statement-breakpoint
CREATE INDEX "tool_grants_live_idx" ON "tool_grants" USING btree ("tool_name") WHERE "tool_grants"."revoked_at" is null;