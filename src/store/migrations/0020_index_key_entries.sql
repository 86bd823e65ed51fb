-- Index entries for counts (issue 23; docs/design/index-storage.md, design A, the part counts need).
--
-- PostgreSQL never answers a count from an expression index alone: its check_index_only treats an index
-- expression's column (doc) as not returnable, so a count over `pb_pk(doc, path)` visits each match's heap page
-- (Q3 of the bench: 3,564 pages for 5,000 matches). Beside each API index, the first key's entries are kept in a
-- narrow table of their own, one row per document: (index, key, document id), the key in the order-preserving
-- encoding of pb_pk. A count of an equality, $in or range on that path is then an Index Only Scan of the
-- entries' primary key, as a typed column's count is.
--
-- nosql_key_indexes: one row per API index (by its PostgreSQL name), with the path its entries key on; `ready`
-- once its entries are complete (store/key-entries.ts fills them after the expression index is built). Reads
-- use an index's entries only while its row is ready in the read's own snapshot.
--
-- Triggers on nosql_documents keep the entries in the transaction that writes the documents, so every write path
-- (API, Cloud Code, runtime, snapshots, an older server process during an upgrade) keeps them. Their query of
-- nosql_key_indexes takes its own snapshot (every writer of documents runs at READ COMMITTED), so a writer
-- whose trigger runs after an index is registered maintains its entries; a writer whose trigger ran before has
-- committed by the time the fill reads the documents (the index build waits for it first).
--
-- No foreign key from the entries to their index: checking one costs a lookup per entry written. Entries are
-- removed with their index (store/key-entries.ts, one statement).
CREATE TABLE IF NOT EXISTS nosql_key_indexes (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pg_name     text NOT NULL UNIQUE,
  game_id     text NOT NULL,
  stage       text NOT NULL,
  collection  text NOT NULL,
  path        text[] NOT NULL,
  ready       boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS nosql_key_indexes_scope ON nosql_key_indexes (game_id, stage, collection);

-- Index-only scans need the visibility map: the table is vacuumed after every 10,000 inserted entries and after
-- 1% of it changed, instead of PostgreSQL's defaults (20% of the table), which on one shared table of millions
-- of entries would leave a long tail of entries a count must check in the heap.
CREATE TABLE IF NOT EXISTS nosql_key_entries (
  index_id  bigint NOT NULL,
  key       bytea NOT NULL,
  doc_id    text NOT NULL,
  PRIMARY KEY (index_id, key, doc_id)
) WITH (autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 10000,
        autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000);

-- One index per entry, the primary key (index, key, document): the triggers find an entry by it, and counts read
-- it. A second index, (index, key), which PostgreSQL deduplicates like a typed column's, made counts read about a
-- seventh of the pages (24 against 179 for 20,000 entries) but cost every insert a second btree entry per index
-- (an insert of one document with three indexed paths: about 2,410-2,460 requests a second without entries,
-- 1,790 with both indexes); the one index is the lighter trade for writes.
--
-- The insert trigger writes with a plain INSERT: a document's entries exist only while the document does, so an
-- inserted document has none yet, and a conflict would be a broken invariant, reported rather than hidden.
--
-- The triggers' statements are planned once per session and their plans kept (PL/pgSQL), whatever the tables
-- grow to afterwards; the embedded store keeps one session for its lifetime and runs no autovacuum ANALYZE. A
-- plan of the delete or update trigger made while the entries table was small could scan it whole (a Seq Scan,
-- or a hash join over it) at every write once it holds millions of entries. With scans and hash and merge joins
-- off in those two functions, each statement is nested loops over index look-ups: O(log n) per written entry
-- whatever the table's size at planning time. The insert trigger reads only nosql_key_indexes (one row per API
-- index) and writes through the primary key; it goes without the settings, which cost a few tens of µs a call.
CREATE OR REPLACE FUNCTION {{schema}}.pb_key_entries_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO {{schema}}.nosql_key_entries (index_id, key, doc_id)
  SELECT k.id, {{schema}}.pb_pk(n.doc, k.path), n.id
    FROM pb_new_rows AS n
    JOIN {{schema}}.nosql_key_indexes AS k
      ON k.game_id = n.game_id AND k.stage = n.stage AND k.collection = n.collection;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_key_entries_delete() RETURNS trigger
LANGUAGE plpgsql SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  DELETE FROM {{schema}}.nosql_key_entries AS e
   USING pb_old_rows AS o
    JOIN {{schema}}.nosql_key_indexes AS k
      ON k.game_id = o.game_id AND k.stage = o.stage AND k.collection = o.collection
   WHERE e.index_id = k.id AND e.key = {{schema}}.pb_pk(o.doc, k.path) AND e.doc_id = o.id;
  RETURN NULL;
END
$$;

-- An update changes an entry only where the value at the index's path changed (compared as stored JSON first, a
-- C comparison; the keys are computed only for the rows where it differs). A row whose primary key changed (no
-- writer does that today) counts as one deleted and one inserted.
CREATE OR REPLACE FUNCTION {{schema}}.pb_key_entries_update() RETURNS trigger
LANGUAGE plpgsql SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM {{schema}}.nosql_key_indexes AS k
                  WHERE (k.game_id, k.stage, k.collection) IN (SELECT game_id, stage, collection FROM pb_new_rows
                                                               UNION SELECT game_id, stage, collection FROM pb_old_rows)) THEN
    RETURN NULL;
  END IF;
  WITH pairs AS (
    SELECT k.id AS i, k.path, o.doc AS od, n.doc AS nd, o.id AS d
      FROM pb_old_rows AS o
      JOIN pb_new_rows AS n USING (game_id, stage, collection, id)
      JOIN {{schema}}.nosql_key_indexes AS k
        ON k.game_id = o.game_id AND k.stage = o.stage AND k.collection = o.collection
     WHERE (o.doc #> k.path) IS DISTINCT FROM (n.doc #> k.path)
  ),
  before_keys AS (
    SELECT i, {{schema}}.pb_pk(od, path) AS key, d FROM pairs
    UNION ALL
    SELECT k.id, {{schema}}.pb_pk(o.doc, k.path), o.id
      FROM pb_old_rows AS o
      JOIN {{schema}}.nosql_key_indexes AS k
        ON k.game_id = o.game_id AND k.stage = o.stage AND k.collection = o.collection
     WHERE NOT EXISTS (SELECT 1 FROM pb_new_rows AS n WHERE (n.game_id, n.stage, n.collection, n.id) = (o.game_id, o.stage, o.collection, o.id))
  ),
  after_keys AS (
    SELECT i, {{schema}}.pb_pk(nd, path) AS key, d FROM pairs
    UNION ALL
    SELECT k.id, {{schema}}.pb_pk(n.doc, k.path), n.id
      FROM pb_new_rows AS n
      JOIN {{schema}}.nosql_key_indexes AS k
        ON k.game_id = n.game_id AND k.stage = n.stage AND k.collection = n.collection
     WHERE NOT EXISTS (SELECT 1 FROM pb_old_rows AS o WHERE (n.game_id, n.stage, n.collection, n.id) = (o.game_id, o.stage, o.collection, o.id))
  ),
  gone AS (
    DELETE FROM {{schema}}.nosql_key_entries AS e
     USING (SELECT * FROM before_keys EXCEPT SELECT * FROM after_keys) AS g
     WHERE e.index_id = g.i AND e.key = g.key AND e.doc_id = g.d
  )
  INSERT INTO {{schema}}.nosql_key_entries (index_id, key, doc_id)
  SELECT * FROM (SELECT * FROM after_keys EXCEPT SELECT * FROM before_keys) AS added
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS nosql_documents_key_insert ON nosql_documents;
CREATE TRIGGER nosql_documents_key_insert AFTER INSERT ON nosql_documents
  REFERENCING NEW TABLE AS pb_new_rows FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_key_entries_insert();
DROP TRIGGER IF EXISTS nosql_documents_key_update ON nosql_documents;
CREATE TRIGGER nosql_documents_key_update AFTER UPDATE ON nosql_documents
  REFERENCING OLD TABLE AS pb_old_rows NEW TABLE AS pb_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_key_entries_update();
DROP TRIGGER IF EXISTS nosql_documents_key_delete ON nosql_documents;
CREATE TRIGGER nosql_documents_key_delete AFTER DELETE ON nosql_documents
  REFERENCING OLD TABLE AS pb_old_rows FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_key_entries_delete();

-- A count's check, in its own snapshot, that the entries it read are complete (a STABLE function: one call per
-- statement, as pb_multikey_free).
CREATE OR REPLACE FUNCTION {{schema}}.pb_key_index_ready(kid bigint) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM {{schema}}.nosql_key_indexes AS k WHERE k.id = kid AND k.ready);
END
$$;

-- The API indexes built before: their entries, filled while writers wait (the lock is released at commit, when
-- every later writer's trigger sees the new rows).
LOCK TABLE nosql_documents IN SHARE MODE;
INSERT INTO nosql_key_indexes (pg_name, game_id, stage, collection, path, ready)
SELECT i.pg_name, i.game_id, i.stage, i.collection, string_to_array(i.keys->0->>0, '.'), true
  FROM nosql_indexes AS i
ON CONFLICT (pg_name) DO NOTHING;
INSERT INTO nosql_key_entries (index_id, key, doc_id)
SELECT k.id, {{schema}}.pb_pk(d.doc, k.path), d.id
  FROM nosql_key_indexes AS k
  JOIN nosql_documents AS d ON d.game_id = k.game_id AND d.stage = k.stage AND d.collection = k.collection
ON CONFLICT DO NOTHING;
