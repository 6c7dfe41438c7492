ALTER TABLE "tool_grants" ADD COLUMN "agent_owner_id" text;--> statement-breakpoint
ALTER TABLE "tool_grants" ADD COLUMN "agent_owner_name" text;--> statement-breakpoint
-- An outside agent's grant was kept by the name its token sent alone, which anyone's token can
-- send (docs/policies.md#grants). Each is bound to the owner of the token that opened the run it
-- was given in, when that run is still here and is that agent's.
UPDATE "tool_grants" AS "grant"
SET "agent_owner_id" = "run"."scenario" #>> '{model,openedBy,ownerId}',
    "agent_owner_name" = "run"."scenario" #>> '{model,openedBy,ownerName}'
FROM "runs" AS "run"
WHERE "grant"."scope" = 'agent'
  AND "run"."id" = "grant"."created_in_run_id"
  AND "run"."scenario" #>> '{model,kind}' = 'agent'
  AND "grant"."agent" = 'agent:' || ("run"."scenario" #>> '{model,agent,name}')
  AND "run"."scenario" #>> '{model,openedBy,ownerId}' IS NOT NULL;
--> statement-breakpoint
-- The rest (their run was deleted) would cover nothing now: revoked, saying why, so no list shows them live.
UPDATE "tool_grants"
SET "revoked_at" = now(),
    "revoked_by_name" = 'migration 0022: the run it was given in is gone, so whose agent it was is unknown'
WHERE "scope" = 'agent'
  AND "agent" LIKE 'agent:%'
  AND "agent_owner_id" IS NULL
  AND "revoked_at" IS NULL;
