-- Every change that can take away a credential or a permission notifies `playbase_auth` (payload: the schema), so
-- that each server process drops its cache of access-token and game-access checks (src/auth/auth-cache.ts).
-- Statement-level triggers: whatever writes the tables (routes, CLI, an operator's SQL) is seen.
CREATE OR REPLACE FUNCTION {{schema}}.pb_auth_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('playbase_auth', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$$;

-- Accounts: every change, since "no such account" is remembered as disabled and a new account must clear it.
CREATE TRIGGER pb_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {{schema}}.accounts
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_auth_changed();
-- A new token takes nothing away (an unknown token is a refusal, never remembered): updates and deletions only.
CREATE TRIGGER pb_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON {{schema}}.access_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_auth_changed();
-- Games: ownership and the recycle bin matter; the configuration version bumped by every config write does not.
CREATE TRIGGER pb_auth_changed AFTER UPDATE OF owner, deleted_at OR DELETE OR TRUNCATE ON {{schema}}.games
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_auth_changed();
-- A group created under a name collaborators already list grants its permissions: every change counts.
CREATE TRIGGER pb_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {{schema}}.collaborators
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_auth_changed();
CREATE TRIGGER pb_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {{schema}}.game_groups
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_auth_changed();
