-- Game configuration (src/config): one document per game, server credentials, sealed push credentials, and
-- server-wide secrets. Every write locks the game's row (SELECT ... FOR UPDATE) and raises
-- games.config_version in the same transaction; runtime servers poll that version.

-- Events (with their attributes), running totals, leaderboards and indexed types of one game, in the shape
-- GET /config?full=true answers, without apiKey and credentials. Validated as a whole before every write.
CREATE TABLE IF NOT EXISTS game_configs (
  api_key     text PRIMARY KEY REFERENCES games (api_key) ON DELETE CASCADE,
  doc         jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Server credentials of the runtime API: the secret is shown once; only its SHA-256 is kept.
CREATE TABLE IF NOT EXISTS config_credentials (
  api_key      text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  name         text NOT NULL,
  secret_hash  text NOT NULL,
  position     integer NOT NULL,
  PRIMARY KEY (api_key, name)
);

-- APNs / FCM credentials, sealed (AES-256-GCM, bound to the game's apiKey); never returned.
CREATE TABLE IF NOT EXISTS config_push_credentials (
  api_key  text PRIMARY KEY REFERENCES games (api_key) ON DELETE CASCADE,
  sealed   text NOT NULL
);

-- Secrets the server generates for itself when no setting provides one (the embedded store works out of
-- the box); e.g. 'master-key' stands in for PLAYBASE_SECRET_KEY.
CREATE TABLE IF NOT EXISTS server_secrets (
  name   text PRIMARY KEY,
  value  text NOT NULL
);
