-- Runtime requests API (src/runtime): leaderboard boards, entries and rank buckets, device logins, login
-- failures; and the lookups the runtime needs on tables of other modules (players by name, credentials by secret).
-- Running-total records and player documents live in nosql_documents themselves (the nosql API edits them).

-- One ranking board: a leaderboard, or one of its partitions, for one reset period and one ranking definition.
-- A new period or a changed definition makes a new board; the writer that makes it deletes the older ones.
CREATE TABLE IF NOT EXISTS runtime_boards (
  board_id      bigserial PRIMARY KEY,
  game_id       text NOT NULL,
  stage         text NOT NULL CHECK (stage IN ('live', 'preview')),
  leaderboard   text NOT NULL,
  -- '' for the whole leaderboard; 'COUNTRY.GB' for the partition LB.COUNTRY.GB.
  partition     text NOT NULL,
  -- Start of the reset period in epoch ms (0: never reset).
  period_start  bigint NOT NULL,
  -- Hash of the ranking definition (fields, calculations, filters, sort directions, partitions), and the stage's
  -- configuration version it came with: a board only ever replaces boards of older periods or versions.
  spec          text NOT NULL,
  config_seq    bigint NOT NULL,
  -- The partition's attribute values, shown in its entries.
  part_values   jsonb NOT NULL DEFAULT '{}',
  UNIQUE (game_id, stage, leaderboard, partition, period_start, spec)
);

-- One player's entry on a board. ord is the whole ranking order in one byte string (sort values, then the time
-- the values were reached, then the player id), so it is unique and rank = 1 + entries with a smaller ord.
CREATE TABLE IF NOT EXISTS runtime_entries (
  board_id   bigint NOT NULL REFERENCES runtime_boards (board_id) ON DELETE CASCADE,
  player_id  text NOT NULL,
  ord        bytea NOT NULL,
  -- Field values in the leaderboard's field order, stored form; null when the field has no value yet.
  vals       jsonb NOT NULL,
  when_ms    bigint NOT NULL,
  user_name  text,
  -- _id (24 hex digits) of the entry's mirror document in the <shortCode>-leaderboard collection.
  doc_id     text NOT NULL,
  PRIMARY KEY (board_id, player_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS runtime_entries_order ON runtime_entries (board_id, ord);

-- An order statistic over ord: a bucket counts the entries with lower <= ord < upper (upper null: no end).
-- A rank sums the buckets before the entry's own and counts within it (a few hundred rows, not a million).
-- Writers change a count under the bucket's row lock in the same transaction as the entry; buckets split, never
-- merge, so an emptied bucket stays as a zero row.
CREATE TABLE IF NOT EXISTS runtime_rank_buckets (
  board_id  bigint NOT NULL REFERENCES runtime_boards (board_id) ON DELETE CASCADE,
  lower     bytea NOT NULL,
  upper     bytea,
  n         bigint NOT NULL,
  PRIMARY KEY (board_id, lower)
);

-- DeviceAuthenticationRequest: the player of each device, per game and stage.
CREATE TABLE IF NOT EXISTS runtime_devices (
  game_id    text NOT NULL,
  stage      text NOT NULL,
  device_id  text NOT NULL,
  player_id  text NOT NULL,
  PRIMARY KEY (game_id, stage, device_id)
);

-- AuthenticationRequest failures by user name (known or not, so lockout says nothing about which names exist).
CREATE TABLE IF NOT EXISTS runtime_login_failures (
  game_id       text NOT NULL,
  stage         text NOT NULL,
  user_name     text NOT NULL,
  failures      integer NOT NULL,
  locked_until  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (game_id, stage, user_name)
);

-- Players by user name (RegistrationRequest, AuthenticationRequest).
CREATE INDEX IF NOT EXISTS runtime_player_user_name ON nosql_documents (game_id, stage, (doc ->> 'userName'))
  WHERE collection = 'player';

-- A runtime URL names a credential and its secret, not the game: the game is found by the secret's SHA-256.
CREATE INDEX IF NOT EXISTS runtime_credential_by_secret ON config_credentials (name, secret_hash);
CREATE INDEX IF NOT EXISTS runtime_snapshot_credentials ON admin_snapshots
  USING gin ((secrets::jsonb -> 'credentialHashes') jsonb_path_ops);
