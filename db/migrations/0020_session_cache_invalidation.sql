-- Every instance keeps verified sessions briefly in memory beside API tokens
-- (lib/server/auth/identity-cache.ts); a session that ends (signed out, revoked,
-- its person's sessions removed) or changes announces itself to every instance at
-- commit, whoever writes: docs/security.md#api-tokens. The person's own changes
-- are announced by 0012's triggers on "user".
CREATE OR REPLACE FUNCTION announce_session_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('tp_auth_changes', 'session:' || OLD.id);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER session_announce_delete AFTER DELETE ON "session"
  FOR EACH ROW EXECUTE FUNCTION announce_session_change();
--> statement-breakpoint
CREATE TRIGGER session_announce_update AFTER UPDATE ON "session"
  FOR EACH ROW WHEN (
    OLD.token IS DISTINCT FROM NEW.token OR OLD.user_id IS DISTINCT FROM NEW.user_id
    OR NEW.expires_at < OLD.expires_at
  ) EXECUTE FUNCTION announce_session_change();
