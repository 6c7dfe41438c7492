CREATE TABLE "agent_releases" (
	"token" text PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"step_index" integer NOT NULL,
	"batch_index" integer NOT NULL,
	"attempt" integer NOT NULL,
	"call_id" text NOT NULL,
	"name" text NOT NULL,
	"arguments" text NOT NULL,
	"state" text NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL,
	"report" jsonb,
	"report_digest" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "agent_releases_state_check" CHECK ("agent_releases"."state" in ('released', 'reported', 'lapsed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "agent_turns" (
	"run_id" uuid NOT NULL,
	"turn" integer NOT NULL,
	"digest" text NOT NULL,
	"text" text,
	"calls" jsonb NOT NULL,
	"usage" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_turns_run_id_turn_pk" PRIMARY KEY("run_id","turn")
);
--> statement-breakpoint
ALTER TABLE "agent_releases" ADD CONSTRAINT "agent_releases_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_turns" ADD CONSTRAINT "agent_turns_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_releases_attempt_idx" ON "agent_releases" USING btree ("run_id","step_index","batch_index","attempt");