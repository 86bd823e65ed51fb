-- Runtime clusters (docs/topology.md): the Preview meta collections a revert or a copy restored into a game whose
-- documents live on a runtime cluster's own database. The control database cannot write them there; it keeps the
-- restored content here, one row per game, and the cluster's applier replaces the game's Preview meta collections
-- with it when the row's seq grows (so a row sent again, by a full synchronisation, is not applied twice).
CREATE TABLE IF NOT EXISTS {{schema}}.preview_meta_restores (
  api_key  text PRIMARY KEY REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  seq      bigint NOT NULL,
  -- As admin_snapshots.meta: collections, whole document rows (without game and stage), indexes.
  meta     json NOT NULL,
  at       timestamptz NOT NULL
);

CREATE TRIGGER pb_control_changed AFTER INSERT OR UPDATE OR DELETE ON {{schema}}.preview_meta_restores
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_control_changed('game', 'api_key');
