-- The key-value data service (src/nosql/data-service.ts): items of declared types, with a version and a TTL.
-- Like nosql_documents, it lives in the cluster's data database and references nothing in the control tables.

-- data is the item's JSON object as sent (plain JSON, no extended-JSON tags; field names never start with $).
-- version counts the writes since the item was created (1 after the first PUT); expires_at NULL = no TTL.
-- An item whose expires_at has passed is gone for every read; the background purge deletes its row later.
CREATE TABLE IF NOT EXISTS data_items (
  game_id     text NOT NULL,
  stage       text NOT NULL CHECK (stage IN ('live', 'preview')),
  type        text COLLATE "C" NOT NULL,
  item_id     text COLLATE "C" NOT NULL,
  data        jsonb NOT NULL,
  version     bigint NOT NULL,
  expires_at  timestamptz,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (game_id, stage, type, item_id)
);

-- The purge deletes by expires_at across every game; rows without a TTL are never looked at.
CREATE INDEX IF NOT EXISTS data_items_expires_at ON data_items (expires_at) WHERE expires_at IS NOT NULL;
