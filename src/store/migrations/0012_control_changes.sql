-- Change capture for runtime clusters (docs/topology.md). Every row written to a table a cluster replicates is
-- logged as a change of its entity: `game` (key: api key; a game's configuration, credentials, groups,
-- collaborators and Live snapshot are changes of the game), `account` (key: user name) or `key` (key: kid). The
-- feed (src/cluster/feed-routes.ts) answers the current state of each entity changed after a cursor, so a row
-- says only which entity changed. `tx` is the writing transaction: the feed's cursor remembers the transactions
-- in flight when it answered, whose changes (with lower numbers) may become visible later.
CREATE TABLE IF NOT EXISTS {{schema}}.control_changes (
  seq     bigserial PRIMARY KEY,
  entity  text NOT NULL CHECK (entity IN ('game', 'account', 'key')),
  key     text NOT NULL,
  tx      xid8 NOT NULL DEFAULT pg_current_xact_id(),
  at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS control_changes_at ON {{schema}}.control_changes (at);

-- A cluster's position in the control database's feed: one row, written in the transaction that applies an answer.
CREATE TABLE IF NOT EXISTS {{schema}}.replica_cursor (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  cursor      text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
);

-- Arguments: the entity, then the column holding its key. A cluster's applier marks its transaction
-- (playbase.replica): the replica's own writes are not changes (a cluster serves no feed).
CREATE OR REPLACE FUNCTION {{schema}}.pb_control_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  row_key text;
BEGIN
  IF current_setting('playbase.replica', true) = 'on' THEN
    RETURN NULL;
  END IF;
  -- The key column alone (to_jsonb of the row would copy a snapshot's whole configuration to read one field).
  IF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT ($1).%I::text', TG_ARGV[1]) INTO row_key USING OLD;
  ELSE
    EXECUTE format('SELECT ($1).%I::text', TG_ARGV[1]) INTO row_key USING NEW;
  END IF;
  INSERT INTO {{schema}}.control_changes (entity, key) VALUES (TG_ARGV[0], row_key);
  PERFORM pg_notify('playbase_control', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$$;

CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.accounts
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('account', 'username');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.signing_keys
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('key', 'kid');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.games
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.game_configs
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.config_credentials
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.admin_snapshots
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.live_snapshots
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.game_groups
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.collaborators
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');

-- Change numbers start at 2: an empty log reads as "up to 1", so a cursor taken from it (1) is not the 0 that
-- asks for the whole state again.
SELECT setval(pg_get_serial_sequence('{{schema}}.control_changes', 'seq'), 1);
