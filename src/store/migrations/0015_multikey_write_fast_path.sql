-- The multikey record's trigger (migration 0014) at a lower cost per write. Most writes record nothing: their
-- documents hold no array, or hold arrays only in fields the record already has. The old trigger found that out
-- the slow way on every statement: the "$o" field-order lists of stored objects made its jsonpath test true for
-- almost every document, so it listed each document's fields (jsonb_each) and ran the recursive pb_has_array on
-- each embedded object, inside an INSERT ... ON CONFLICT that the executor sets up even when it inserts nothing.
--
-- Now one read decides first, per written row, with the C jsonpath only: the document without its top-level
-- "$o" holds an array, and the document without "$o" and without the collection's recorded fields still holds
-- one. Only when some row passes both does the exact statement of 0014 run (same order of fields, same
-- ON CONFLICT wait for racing writers). A nested "$o" list can only make the test true (then the exact
-- statement decides), never false, so no field that holds an array is missed.
CREATE OR REPLACE FUNCTION {{schema}}.pb_note_multikey() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pb_new_rows AS n
     WHERE jsonb_path_exists(n.doc - '$o'::text, 'strict $.** ? (@.type() == "array")')
       AND jsonb_path_exists(
             n.doc - ('$o'::text || ARRAY(SELECT m.field FROM {{schema}}.nosql_multikey AS m
                                          WHERE m.game_id = n.game_id AND m.stage = n.stage
                                            AND m.collection = n.collection)),
             'strict $.** ? (@.type() == "array")')) THEN
    RETURN NULL;
  END IF;
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

