-- The multikey record: per collection, the top-level fields whose value has ever held an array anywhere below
-- (MongoDB keeps a "multikey" flag per index for the same purpose). A path whose first field is not recorded
-- meets no array in any document of the collection, so the query compiler (src/query/filter-sql.ts, sort.ts)
-- answers it with the plain key expression pb_pk alone: an index condition without the array arm and without a
-- per-row recheck, and an ORDER BY an index can produce. Reads that rely on a field being absent from the record
-- check that in the same statement (same snapshot) as their documents (src/store/multikey.ts), and the record
-- is written by triggers in the transaction that writes the document, so the two never disagree. Rows are only
-- ever added (a field that no longer holds arrays keeps its row: the record stays a superset, which is exact).
CREATE TABLE IF NOT EXISTS nosql_multikey (
  game_id     text NOT NULL,
  stage       text NOT NULL,
  collection  text NOT NULL,
  field       text NOT NULL,
  PRIMARY KEY (game_id, stage, collection, field)
);

-- True when a stored value holds an array at or below it; the "$o" field-order lists of stored objects are not
-- data and are skipped. The jsonpath test (in C) answers the common case of no array at all.
CREATE OR REPLACE FUNCTION {{schema}}.pb_has_array(v jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF jsonb_typeof(v) = 'array' THEN RETURN true; END IF;
  IF jsonb_typeof(v) <> 'object' THEN RETURN false; END IF;
  IF NOT jsonb_path_exists(v, 'strict $.**?(@.type() == "array")') THEN RETURN false; END IF;
  RETURN EXISTS (SELECT 1 FROM jsonb_each(v) AS e
                 WHERE e.key <> '$o' AND jsonb_typeof(e.value) IN ('array', 'object') AND {{schema}}.pb_has_array(e.value));
END
$$;

-- Records the array-holding top-level fields of the rows a statement wrote (inserted or updated), in field order
-- so that concurrent writers take the record's row locks in one order.
CREATE OR REPLACE FUNCTION {{schema}}.pb_note_multikey() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO {{schema}}.nosql_multikey (game_id, stage, collection, field)
  SELECT DISTINCT n.game_id, n.stage, n.collection, e.key
    FROM pb_new_rows AS n, jsonb_each(n.doc) AS e
   WHERE jsonb_path_exists(n.doc, 'strict $.**?(@.type() == "array")')
     AND e.key <> '$o' AND jsonb_typeof(e.value) IN ('array', 'object') AND {{schema}}.pb_has_array(e.value)
     AND NOT EXISTS (SELECT 1 FROM {{schema}}.nosql_multikey AS m
                      WHERE m.game_id = n.game_id AND m.stage = n.stage AND m.collection = n.collection AND m.field = e.key)
   ORDER BY 1, 2, 3, 4
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS nosql_documents_multikey_insert ON nosql_documents;
CREATE TRIGGER nosql_documents_multikey_insert AFTER INSERT ON nosql_documents
  REFERENCING NEW TABLE AS pb_new_rows FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_note_multikey();
DROP TRIGGER IF EXISTS nosql_documents_multikey_update ON nosql_documents;
CREATE TRIGGER nosql_documents_multikey_update AFTER UPDATE ON nosql_documents
  REFERENCING NEW TABLE AS pb_new_rows FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.pb_note_multikey();

-- Documents written before this migration.
INSERT INTO nosql_multikey (game_id, stage, collection, field)
SELECT DISTINCT d.game_id, d.stage, d.collection, e.key
  FROM nosql_documents AS d, jsonb_each(d.doc) AS e
 WHERE jsonb_path_exists(d.doc, 'strict $.**?(@.type() == "array")')
   AND e.key <> '$o' AND jsonb_typeof(e.value) IN ('array', 'object') AND {{schema}}.pb_has_array(e.value)
ON CONFLICT DO NOTHING;
