-- A grant for a scenario's runs was kept by the scenario's name alone ('scenario:<name>'), which any
-- operator can give a scenario of their own. The app now keeps it by the name and the SHA-256 of the
-- scenario's canonical JSON (docs/policies.md#grants), which SQL cannot compute as the app does, and
-- a grant kept by the name alone covers no run. Every such grant stored so far is one: revoked,
-- saying why, so no list shows it live.
UPDATE "tool_grants"
SET "revoked_at" = now(),
    "revoked_by_name" = 'migration 0023: kept by the scenario''s name alone, which another scenario can take; approve again to give it anew'
WHERE "scope" = 'agent'
  AND "agent" LIKE 'scenario:%'
  AND "revoked_at" IS NULL;
