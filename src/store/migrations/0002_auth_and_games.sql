-- Access tokens (only their SHA-256 is stored), JWT signing keys, games, their groups and collaborators.
CREATE TABLE IF NOT EXISTS access_tokens (
  token_hash  bytea PRIMARY KEY,
  username    text NOT NULL REFERENCES accounts (username) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS access_tokens_username ON access_tokens (username);
CREATE INDEX IF NOT EXISTS access_tokens_expires_at ON access_tokens (expires_at);

-- Ed25519 keys; the newest active one signs, every key not yet past retire_after verifies.
CREATE TABLE IF NOT EXISTS signing_keys (
  kid           text PRIMARY KEY,
  private_jwk   jsonb NOT NULL,
  public_jwk    jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  retired_at    timestamptz,
  retire_after  timestamptz
);

CREATE TABLE IF NOT EXISTS games (
  api_key         text PRIMARY KEY,
  name            text NOT NULL,
  cluster         text NOT NULL DEFAULT 'local',
  owner           text NOT NULL REFERENCES accounts (username),
  created_at      timestamptz NOT NULL DEFAULT now(),
  deleted_at      timestamptz,
  config_version  bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_owner ON games (owner);

CREATE TABLE IF NOT EXISTS game_groups (
  api_key      text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  name         text NOT NULL,
  permissions  jsonb NOT NULL,
  PRIMARY KEY (api_key, name)
);

CREATE TABLE IF NOT EXISTS collaborators (
  api_key      text NOT NULL REFERENCES games (api_key) ON DELETE CASCADE,
  email        text NOT NULL REFERENCES accounts (username) ON DELETE CASCADE,
  group_names  text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (api_key, email)
);
CREATE INDEX IF NOT EXISTS collaborators_email ON collaborators (email);
