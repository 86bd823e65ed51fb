-- Helper functions of the query compiler (src/query): order-preserving keys of stored values and MongoDB's
-- path traversal. Pure functions of their arguments (IMMUTABLE), so expression indexes can use them.
-- The stored form is described in src/query/stored-form.ts and docs/query-engine.md. Requires a UTF8 database.
--
-- A key is a bytea whose bytewise order is MongoDB's BSON comparison order and whose equality is MongoDB's
-- equality: one type-rank byte, then the value. Ranks: 05 missing, 08 empty array (sort only), 10 null,
-- 20 number, 30 string, 40 object, 50 array, 70 ObjectId, 80 boolean, 90 date. 01 is not a value: pb_pk
-- answers it when the path meets an array, meaning "walk the path with pb_walk". The same encoding is in
-- src/query/key-encoding.ts, which encodes query operands; a test checks both agree.

-- 8 bytes that sort like the double: NaN lowest (MongoDB), then -Infinity ... Infinity; -0 equals 0.
CREATE OR REPLACE FUNCTION {{schema}}.pb_f8key(f float8) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN f = 'NaN'::float8 THEN '\x0000000000000000'::bytea
    WHEN f >= 0 THEN int8send(('x' || encode(float8send(f + 0.0::float8), 'hex'))::bit(64)::int8
                              # (-9223372036854775808)::int8)
    ELSE int8send(~(('x' || encode(float8send(f), 'hex'))::bit(64)::int8))
  END
$$;

-- A number key: the nearest double, then the exact remainder (value minus that double, only ever nonzero for
-- longs beyond 2^53), so int, long and double compare exactly with each other.
CREATE OR REPLACE FUNCTION {{schema}}.pb_numkey(f float8, remainder int) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '\x20'::bytea || {{schema}}.pb_f8key(f) || int2send((remainder + 2048)::int2)
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_longkey(l int8) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT {{schema}}.pb_numkey(l::float8, CASE
    WHEN abs(l::float8) < 9007199254740992::float8 THEN 0
    ELSE (l::numeric - ((l::float8 / 2)::int8)::numeric * 2)::int
  END)
$$;

-- The UTF-8 bytes of a string (the database is UTF8). The I/O cast to bytea is immutable, unlike convert_to;
-- doubling backslashes first turns off bytea escape processing.
CREATE OR REPLACE FUNCTION {{schema}}.pb_utf8(t text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT replace(t, '\', '\\')::bytea
$$;

-- True for a stored document (an object that is not a tagged value such as {"$oid": ...}).
CREATE OR REPLACE FUNCTION {{schema}}.pb_isdoc(v jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_typeof(v) = 'object' AND NOT (v ?| ARRAY['$oid', '$date', '$numberLong', '$numberDouble'])
$$;

-- Field names of a stored document in document order ("$o" holds it when it differs from JSONB's order).
CREATE OR REPLACE FUNCTION {{schema}}.pb_doc_keys(v jsonb) RETURNS TABLE (name text, ord bigint)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT o.name, o.ord FROM jsonb_array_elements_text(v -> '$o') WITH ORDINALITY AS o(name, ord)
  WHERE v ? '$o'
  UNION ALL
  SELECT k.name, k.ord FROM jsonb_object_keys(v) WITH ORDINALITY AS k(name, ord)
  WHERE NOT (v ? '$o')
$$;

-- Recursive parts of pb_enc, in plpgsql so they may be created before pb_enc exists.
CREATE OR REPLACE FUNCTION {{schema}}.pb_enc_doc(v jsonb) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  body bytea;
BEGIN
  -- Per field: the value's rank byte, the name, NUL, the rest of the value's key (MongoDB compares the type,
  -- then the name, then the value of each field in turn).
  SELECT string_agg(substring(e.k FROM 1 FOR 1) || {{schema}}.pb_utf8(e.name) || '\x00'::bytea || substring(e.k FROM 2),
                    ''::bytea ORDER BY e.ord)
    INTO body
    FROM (SELECT d.name, d.ord, {{schema}}.pb_enc(v -> d.name) AS k FROM {{schema}}.pb_doc_keys(v) AS d) AS e;
  RETURN '\x40'::bytea || coalesce(body, ''::bytea) || '\x00'::bytea;
END
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_enc_arr(v jsonb) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  body bytea;
BEGIN
  SELECT string_agg({{schema}}.pb_enc(e.x), ''::bytea ORDER BY e.ord) INTO body
    FROM jsonb_array_elements(v) WITH ORDINALITY AS e(x, ord);
  RETURN '\x50'::bytea || coalesce(body, ''::bytea) || '\x00'::bytea;
END
$$;

-- The key of a stored value; SQL NULL (a missing field) gives the missing key 05.
CREATE OR REPLACE FUNCTION {{schema}}.pb_enc(v jsonb) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'string' THEN '\x30'::bytea || {{schema}}.pb_utf8(v #>> '{}') || '\x00'::bytea
    WHEN 'number' THEN {{schema}}.pb_numkey((v::numeric)::float8, 0)
    WHEN 'null' THEN '\x10'::bytea
    WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '\x8001'::bytea ELSE '\x8000'::bytea END
    WHEN 'array' THEN {{schema}}.pb_enc_arr(v)
    WHEN 'object' THEN CASE
      WHEN v ? '$oid' THEN '\x70'::bytea || decode(v ->> '$oid', 'hex')
      WHEN v ? '$date' THEN '\x90'::bytea || int8send((v -> '$date')::int8 # (-9223372036854775808)::int8)
      WHEN v ? '$numberLong' THEN {{schema}}.pb_longkey((v ->> '$numberLong')::int8)
      WHEN v ? '$numberDouble' THEN {{schema}}.pb_numkey((v ->> '$numberDouble')::float8, 0)
      ELSE {{schema}}.pb_enc_doc(v)
    END
    ELSE '\x05'::bytea
  END
$$;

-- True when the path meets an array (at any depth, the last part included).
CREATE OR REPLACE FUNCTION {{schema}}.pb_arr(doc jsonb, path text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_typeof(doc -> path[1]) = 'array', false)
    OR (cardinality(path) >= 2 AND coalesce(jsonb_typeof(doc #> path[1:2]) = 'array', false))
    OR (cardinality(path) >= 3 AND coalesce(jsonb_typeof(doc #> path[1:3]) = 'array', false))
    OR (cardinality(path) >= 4 AND coalesce(jsonb_typeof(doc #> path[1:4]) = 'array', false))
    OR (cardinality(path) >= 5 AND EXISTS (
      SELECT 1 FROM generate_series(5, cardinality(path)) AS i WHERE jsonb_typeof(doc #> path[1:i]) = 'array'))
$$;

-- The path key used by filters and indexes: the key of the value at a path that meets no array, else 01.
-- Index builds and ANALYZE run expressions with search_path = pg_catalog (PostgreSQL 17+): every call in this
-- file is schema-qualified ({{schema}} is replaced by the migration runner), so no function needs a SET clause,
-- and the SQL functions stay inlinable (a SET clause stops inlining and costs a search_path switch per call).
CREATE OR REPLACE FUNCTION {{schema}}.pb_pk(doc jsonb, path text[]) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN {{schema}}.pb_arr(doc, path) THEN '\x01'::bytea ELSE {{schema}}.pb_enc(doc #> path) END
$$;

-- MongoDB's element iterator (matcher/path.cpp): every value a path reaches, SQL NULL for a missing one.
-- mode 0: leaf arrays give their elements, then themselves (filters); 1: leaf arrays give only themselves
-- ($size, $elemMatch); 2: leaf arrays give only their elements, an empty one gives {"$e": true} (sort keys).
CREATE OR REPLACE FUNCTION {{schema}}.pb_walk_arr(arr jsonb, path text[], mode int, rest int) RETURNS SETOF jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n int := cardinality(path);
  part text;
  is_num boolean;
  e jsonb;
  idx bigint;
BEGIN
  IF rest > n THEN
    IF mode = 1 THEN RETURN NEXT arr; RETURN; END IF;
    IF mode = 2 AND jsonb_array_length(arr) = 0 THEN RETURN NEXT '{"$e": true}'::jsonb; RETURN; END IF;
    RETURN QUERY SELECT x FROM jsonb_array_elements(arr) AS x;
    IF mode = 0 THEN RETURN NEXT arr; END IF;
    RETURN;
  END IF;
  part := path[rest];
  is_num := part ~ '^[0-9]+$';
  FOR e, idx IN SELECT x, o - 1 FROM jsonb_array_elements(arr) WITH ORDINALITY AS t(x, o) LOOP
    IF {{schema}}.pb_isdoc(e) THEN
      RETURN QUERY SELECT * FROM {{schema}}.pb_walk(e, path, mode, rest);
      IF is_num AND part = idx::text THEN
        IF rest = n THEN RETURN NEXT e; ELSE RETURN QUERY SELECT * FROM {{schema}}.pb_walk(e, path, mode, rest + 1); END IF;
      END IF;
    ELSIF is_num AND part = idx::text THEN
      IF rest = n THEN
        RETURN NEXT e;
      ELSIF jsonb_typeof(e) = 'array' THEN
        RETURN QUERY SELECT * FROM {{schema}}.pb_walk_arr(e, path, mode, rest + 1);
      END IF;
    END IF;
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_walk(doc jsonb, path text[], mode int, start int DEFAULT 1) RETURNS SETOF jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n int := cardinality(path);
  i int := start;
  val jsonb := doc;
BEGIN
  LOOP
    val := val -> path[i];
    IF val IS NULL THEN RETURN NEXT NULL; RETURN; END IF;
    IF jsonb_typeof(val) = 'array' THEN EXIT; END IF;
    IF i = n THEN RETURN NEXT val; RETURN; END IF;
    IF NOT {{schema}}.pb_isdoc(val) THEN RETURN NEXT NULL; RETURN; END IF;
    i := i + 1;
  END LOOP;
  RETURN QUERY SELECT * FROM {{schema}}.pb_walk_arr(val, path, mode, i + 1);
END
$$;

-- Sort keys: the smallest (ascending) or largest (descending) key the path reaches; missing sorts as null,
-- an empty array below null.
CREATE OR REPLACE FUNCTION {{schema}}.pb_sortkeys(doc jsonb, path text[]) RETURNS SETOF bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN w IS NULL THEN '\x10'::bytea WHEN w = '{"$e": true}'::jsonb THEN '\x08'::bytea ELSE {{schema}}.pb_enc(w) END
  FROM {{schema}}.pb_walk(doc, path, 2) AS w
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_sk_asc(doc jsonb, path text[]) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN {{schema}}.pb_arr(doc, path) THEN coalesce((SELECT k FROM {{schema}}.pb_sortkeys(doc, path) AS k ORDER BY k ASC LIMIT 1), '\x10'::bytea)
    WHEN doc #> path IS NULL THEN '\x10'::bytea
    ELSE {{schema}}.pb_enc(doc #> path)
  END
$$;

CREATE OR REPLACE FUNCTION {{schema}}.pb_sk_desc(doc jsonb, path text[]) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN {{schema}}.pb_arr(doc, path) THEN coalesce((SELECT k FROM {{schema}}.pb_sortkeys(doc, path) AS k ORDER BY k DESC LIMIT 1), '\x10'::bytea)
    WHEN doc #> path IS NULL THEN '\x10'::bytea
    ELSE {{schema}}.pb_enc(doc #> path)
  END
$$;

-- MongoDB's $type name of a stored value ('missing' for SQL NULL). A JSON number is 'int' when it is an
-- integer in int32 range, else 'double' (how a JavaScript number is written to BSON).
CREATE OR REPLACE FUNCTION {{schema}}.pb_type(v jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'string' THEN 'string'
    WHEN 'number' THEN CASE
      WHEN v::numeric = trunc(v::numeric) AND v::numeric BETWEEN -2147483648 AND 2147483647 THEN 'int'
      ELSE 'double' END
    WHEN 'null' THEN 'null'
    WHEN 'boolean' THEN 'bool'
    WHEN 'array' THEN 'array'
    WHEN 'object' THEN CASE
      WHEN v ? '$oid' THEN 'objectId'
      WHEN v ? '$date' THEN 'date'
      WHEN v ? '$numberLong' THEN 'long'
      WHEN v ? '$numberDouble' THEN 'double'
      ELSE 'object' END
    ELSE 'missing'
  END
$$;

-- The integer part of a stored number as MongoDB's $mod takes it (NULL when not a number, not finite, or not
-- representable as a 64-bit integer).
CREATE OR REPLACE FUNCTION {{schema}}.pb_mod_dividend(v jsonb) RETURNS int8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(v) = 'number' THEN CASE
      WHEN trunc((v::numeric)::float8) >= -9223372036854775808::float8
       AND trunc((v::numeric)::float8) < 9223372036854775808::float8
      THEN trunc((v::numeric)::float8)::int8 END
    WHEN jsonb_typeof(v) = 'object' AND v ? '$numberLong' THEN (v ->> '$numberLong')::int8
  END
$$;

-- An array seen as a document with keys "0", "1", ... (how $elemMatch treats an element that is an array).
CREATE OR REPLACE FUNCTION {{schema}}.pb_asdoc(v jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'array'
    THEN coalesce((SELECT jsonb_object_agg((e.o - 1)::text, e.x) FROM jsonb_array_elements(v) WITH ORDINALITY AS e(x, o)),
                  '{}'::jsonb)
    ELSE v END
$$;

-- The key of a unique index: missing counts as null (MongoDB lets one document lack the field). An array
-- would need one entry per element, which a btree expression cannot hold, so it is refused with SQLSTATE
-- 22023 and a message starting "pb_unique_array" for the caller to answer 400.
CREATE OR REPLACE FUNCTION {{schema}}.pb_uk(doc jsonb, path text[]) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF {{schema}}.pb_arr(doc, path) THEN
    RAISE EXCEPTION 'pb_unique_array: field % holds an array; a unique index cannot cover it', array_to_string(path, '.')
      USING ERRCODE = '22023';
  END IF;
  RETURN CASE WHEN doc #> path IS NULL THEN '\x10'::bytea ELSE {{schema}}.pb_enc(doc #> path) END;
END
$$;
