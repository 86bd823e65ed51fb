-- Game administration: snapshots and the Live pointer, admin screens (screens, snippets, queries), the audit log.

-- A snapshot freezes one game's configuration ('game': the configuration document and the meta collections) or
-- its Manage section ('screens': screens, snippets and queries). Never collaborators.
CREATE TABLE IF NOT EXISTS admin_snapshots (
  id            text PRIMARY KEY,
  api_key       text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('game', 'screens')),
  seq           bigserial NOT NULL,
  created_at    timestamptz NOT NULL,
  created_by    text NOT NULL,
  description   text NOT NULL DEFAULT '',
  -- json, not jsonb: key order is kept exactly (a sort specification's order is its meaning).
  config        json NOT NULL,
  -- Meta collection documents, as rows of nosql_documents without their game and stage.
  meta          json NOT NULL DEFAULT '[]',
  -- What restoring needs but the API never shows: credential secret hashes, sealed push credentials.
  secrets       json,
  published     boolean NOT NULL DEFAULT false,
  published_at  timestamptz
);
CREATE INDEX IF NOT EXISTS admin_snapshots_list ON admin_snapshots (api_key, kind, created_at DESC, seq DESC);

-- What the Live stage runs: one row per game and kind, changed in one statement when publishing, so a Live
-- reader sees the old snapshot or the new one. No row, or a null snapshot_id: Live runs nothing.
CREATE TABLE IF NOT EXISTS live_snapshots (
  api_key       text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('game', 'screens')),
  snapshot_id   text REFERENCES admin_snapshots (id),
  published_at  timestamptz NOT NULL,
  -- Grows on every publish and unpublish, never resets: the Live stage's configuration version.
  publish_seq   bigint NOT NULL DEFAULT 1,
  PRIMARY KEY (api_key, kind)
);

-- Admin screens, snippets and queries of the Manage section, by short code.
CREATE TABLE IF NOT EXISTS manage_items (
  api_key     text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('screen', 'snippet', 'query')),
  short_code  text NOT NULL,
  doc         json NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (api_key, kind, short_code)
);

-- Every write through the auth, config and admin routes. No foreign key to games: the log outlives a game, and
-- reverting a snapshot never touches it.
CREATE TABLE IF NOT EXISTS audit_log (
  id          bigserial PRIMARY KEY,
  api_key     text,
  at          timestamptz NOT NULL,
  actor       text NOT NULL,
  credential  text,
  action      text NOT NULL,
  method      text,
  path        text,
  status      integer,
  target      text,
  request_id  text,
  before      jsonb,
  after       jsonb
);
CREATE INDEX IF NOT EXISTS audit_log_game ON audit_log (api_key, at DESC, id DESC);
CREATE INDEX IF NOT EXISTS audit_log_actor ON audit_log (api_key, actor, at DESC);
