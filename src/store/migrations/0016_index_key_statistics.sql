-- Key statistics (store/indexes.ts adds them when it builds an index): PostgreSQL takes no statistics from a
-- partial index, and every API index is partial, so the planner guessed 0.5% for every key condition. One
-- expression statistics object per indexed path (shared by every collection; named nx_st_<md5 of the path's
-- parts as compact JSON>, as store/indexes.ts names it), at most 100, for the indexes built before; then
-- ANALYZE fills them (index builds run it too; the embedded store has no autovacuum).
DO $$
DECLARE
  p text[];
  added boolean := false;
BEGIN
  FOR p IN
    SELECT DISTINCT string_to_array(k.value->>0, '.')
      FROM {{schema}}.nosql_indexes AS i, jsonb_array_elements(i.keys) AS k
     WHERE NOT i."unique"
     LIMIT 100
  LOOP
    EXECUTE format('CREATE STATISTICS IF NOT EXISTS {{schema}}.%I ON ({{schema}}.pb_pk(doc, ARRAY[%s]::text[])) FROM {{schema}}.nosql_documents',
                   'nx_st_' || md5(array_to_json(p)::text),
                   (SELECT string_agg(quote_literal(x), ', ') FROM unnest(p) AS x));
    added := true;
  END LOOP;
  IF added THEN
    EXECUTE 'ANALYZE {{schema}}.nosql_documents';
  END IF;
END
$$;
