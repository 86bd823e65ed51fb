-- Runtime data (src/nosql): documents of every game, stage and collection in one JSONB table, the collections
-- that are created by API calls (meta.* and script.*), and the indexes made through the API.
-- The nosql role may run on its own database per cluster, so nothing here references the games table.

-- id is the canonical extended JSON of the document's _id (src/query/values.ts idKey), so "5" and 5 differ.
-- doc is the stored form of src/query/stored-form.ts; the query compiler's SQL (migration 0003) reads it.
CREATE TABLE IF NOT EXISTS nosql_documents (
  game_id     text,
  stage       text,
  collection  text,
  id          text,
  doc         jsonb NOT NULL,
  PRIMARY KEY (game_id, stage, collection, id)
);

-- Only meta and runtime collections are created by a call; system, leaderboard and running-total collections
-- exist because of the game and its configuration.
CREATE TABLE IF NOT EXISTS nosql_collections (
  game_id     text NOT NULL,
  stage       text NOT NULL CHECK (stage IN ('live', 'preview')),
  collection  text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('meta', 'runtime')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (game_id, stage, collection)
);

-- keys is a JSON array of [path, 1 | -1] pairs: JSONB objects forget key order, which is an index's meaning.
-- pg_name is the PostgreSQL index on nosql_documents (partial on game, stage and collection).
CREATE TABLE IF NOT EXISTS nosql_indexes (
  game_id     text NOT NULL,
  stage       text NOT NULL CHECK (stage IN ('live', 'preview')),
  collection  text NOT NULL,
  name        text NOT NULL,
  keys        jsonb NOT NULL,
  "unique"    boolean NOT NULL DEFAULT false,
  pg_name     text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (game_id, stage, collection, name)
);
