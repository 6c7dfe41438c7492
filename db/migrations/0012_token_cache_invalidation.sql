-- Every instance keeps verified API tokens briefly in memory (lib/server/auth/token-cache.ts);
-- whatever changes what a token may do announces itself to every instance listening, at commit,
-- whoever makes the change (the app, the CLI, SQL by hand): docs/security.md#api-tokens.
-- A token's own use (last_request, updated_at) announces nothing.
CREATE OR REPLACE FUNCTION announce_auth_change() RETURNS trigger AS $$
DECLARE
  changed record;
BEGIN
  IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
  IF TG_TABLE_NAME = 'apikey' THEN
    PERFORM pg_notify('tp_auth_changes', 'token:' || changed.id);
  ELSE
    PERFORM pg_notify('tp_auth_changes', 'user:' || changed.id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER apikey_announce_delete AFTER DELETE ON "apikey"
  FOR EACH ROW EXECUTE FUNCTION announce_auth_change();
--> statement-breakpoint
CREATE TRIGGER apikey_announce_update AFTER UPDATE ON "apikey"
  FOR EACH ROW WHEN (
    OLD.key IS DISTINCT FROM NEW.key OR OLD.enabled IS DISTINCT FROM NEW.enabled
    OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.metadata IS DISTINCT FROM NEW.metadata
    OR OLD.reference_id IS DISTINCT FROM NEW.reference_id OR OLD.name IS DISTINCT FROM NEW.name
  ) EXECUTE FUNCTION announce_auth_change();
--> statement-breakpoint
CREATE TRIGGER user_announce_delete AFTER DELETE ON "user"
  FOR EACH ROW EXECUTE FUNCTION announce_auth_change();
--> statement-breakpoint
CREATE TRIGGER user_announce_update AFTER UPDATE ON "user"
  FOR EACH ROW WHEN (
    OLD.role IS DISTINCT FROM NEW.role OR OLD.banned IS DISTINCT FROM NEW.banned
    OR OLD.name IS DISTINCT FROM NEW.name OR OLD.email IS DISTINCT FROM NEW.email
  ) EXECUTE FUNCTION announce_auth_change();
