-- bigid: a key that JSON carries as a string. Stored as bigint (8 bytes,
-- passed by value), with bigint's operators, indexes and functions through
-- the implicit binary casts; to_json, to_jsonb, row_to_json,
-- json_build_object and json_agg write it in quotes, where a bigint key
-- above 2^53 - 1 is a bare number JavaScript rounds. The planner hook,
-- genes and partitions by time take it; the decoders read it, and its JSON
-- text read back. npm's pg and JSON.parse read it in TAP 062.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';
CREATE SCHEMA json_keys;
SET search_path = json_keys, public;

-- The type as stored: bigint's length, alignment, passing and I/O.
SELECT t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
       t.typlen = i.typlen AND t.typbyval = i.typbyval AND t.typalign = i.typalign AS like_bigint
FROM pg_type t, pg_type i WHERE t.oid = 'bigid'::regtype AND i.oid = 'bigint'::regtype;
SELECT castsource::regtype, casttarget::regtype, castmethod, castcontext
FROM pg_cast WHERE 'bigid'::regtype IN (castsource, casttarget) ORDER BY 1::text, 2::text;

-- A bigint key and a bigid key of the same ids.
CREATE TABLE as_bigint (id bigint PRIMARY KEY, note text);
CREATE TABLE as_bigid (id bigid PRIMARY KEY, note text);
INSERT INTO as_bigint VALUES (520646333413986304, 'the issue''s id'), (9007199254740993, '2^53 + 1'),
                             (9223372036854775807, 'largest'), (0, 'zero'), (9007199254740991, '2^53 - 1');
INSERT INTO as_bigid SELECT id, note FROM as_bigint;
SELECT pg_column_size(id) AS bytes, id FROM as_bigid ORDER BY id;

-- JSON: bare numbers from bigint, strings from bigid, through every path.
SELECT to_json(id) AS bigint_json, to_json(id::bigid) AS bigid_json FROM as_bigint WHERE id = 520646333413986304;
SELECT to_jsonb(b) AS jsonb_row, row_to_json(b) AS json_row FROM as_bigid b WHERE id = 520646333413986304;
SELECT json_build_object('id', id, 'note', note) AS built, jsonb_build_object('id', id) AS builtb
FROM as_bigid WHERE id = 9007199254740993;
SELECT json_agg(id ORDER BY id) AS ids, jsonb_agg(id ORDER BY id) AS idsb FROM as_bigid;
SELECT json_agg(b ORDER BY id) FILTER (WHERE id < 1000) AS rows FROM as_bigid b;
SELECT json_object_agg(id, note ORDER BY id) FILTER (WHERE id = 0) AS keyed FROM as_bigid;
-- Every id of the table through row_to_json and json_agg, read back exactly.
SELECT count(*) AS ids,
       bool_and((row_to_json(b) ->> 'id')::bigid = id) AS row_to_json_back,
       bool_and(json_typeof(row_to_json(b) -> 'id') = 'string') AS strings
FROM as_bigid b;
SELECT bool_and(e::text::bigid IS NOT NULL) AS agg_strings_read_back, count(*) AS n
FROM (SELECT json_array_elements_text(json_agg(id)) AS e FROM as_bigid) x;

-- Comparisons, joins and casts as bigint's, on the primary key's index.
SELECT count(*) AS joined FROM as_bigid d JOIN as_bigint i ON d.id = i.id;
SELECT id FROM as_bigid WHERE id = 9007199254740993;
SELECT id FROM as_bigid WHERE id = '9007199254740993';
SELECT id FROM as_bigid WHERE id > 9007199254740991::bigint ORDER BY id;
SELECT id::bigint + 1 AS plus_one, id::numeric AS as_numeric, id::text AS as_text,
       '520646333413986304'::bigid = 520646333413986304::bigint AS from_text,
       520646333413986304::numeric::bigid AS from_numeric
FROM as_bigid WHERE id = 520646333413986304;
SELECT '9223372036854775808'::bigid;
INSERT INTO as_bigid VALUES (7, 'an integer literal'), (8::smallint, 'a smallint');
SELECT id, note FROM as_bigid WHERE id IN (7, 8) ORDER BY id;
DELETE FROM as_bigid WHERE id IN (7, 8);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM as_bigid WHERE id = 9007199254740993;
EXPLAIN (COSTS OFF) SELECT * FROM as_bigid WHERE id = $$9007199254740993$$;
RESET enable_seqscan;
CREATE INDEX as_bigid_hash ON as_bigid USING hash (id);
SELECT c.relname, o.opcname, o.opcintype::regtype
FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_opclass o ON o.oid = x.indclass[0]
WHERE x.indrelid = 'as_bigid'::regclass ORDER BY 1;

-- Minting into it: DEFAULTs of crid's generators, and the decoders on it and
-- on its JSON text.
CREATE TABLE orders (id bigid PRIMARY KEY DEFAULT snowflake_next(5) CHECK (id >= 0), total numeric);
INSERT INTO orders (total) SELECT g FROM generate_series(1, 1000) g;
SELECT count(*), count(DISTINCT id), bool_and(snowflake_to_timestamptz(id) <= now()),
       bool_and(p.node = 5), bool_and(json_typeof(to_json(id)) = 'string')
FROM orders, snowflake_parse(id) p;
SELECT bool_and(snowflake_to_timestamptz((json_build_object('id', id) ->> 'id')::bigid)
                = snowflake_to_timestamptz(id)) AS json_text_decodes
FROM orders;
-- The planner hook: a predicate on the decoded time is the key's range.
ANALYZE orders;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE snowflake_to_timestamptz(id) >= '2026-06-01 00:00+00';
RESET enable_seqscan;
SELECT count(*) FROM orders WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour';

-- Genes on it.
SELECT id_gene(9007199254740993::bigid, 4) AS gene, id_with_gene(9007199254740993::bigid, 3, 4)::bigid AS with_gene,
       gene_of(9007199254740993::bigid, 4) AS gene_of;

-- Partitions by time on a bigid key.
CREATE TABLE readings (id bigid NOT NULL DEFAULT snowflake_next(5), v int) PARTITION BY RANGE (id);
SELECT action, partition_name FROM crid_partition_create('readings', interval '1 day', '2026-03-01+00', '2026-03-02+00')
ORDER BY partition_name;
INSERT INTO readings SELECT snowflake_pack('2026-03-01+00'::timestamptz + i * interval '1 hour', 5, i), i
FROM generate_series(0, 47) i;
SELECT tableoid::regclass AS partition, count(*), min(snowflake_to_timestamptz(id)) AS first_at
FROM readings GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM readings WHERE snowflake_to_timestamptz(id) >= '2026-03-02 00:00+00';

-- crid_check() names bigint keys fed by crid's generators whose ids pass
-- 2^53 - 1 within a year (this server's 63-bit layouts do within days of
-- their epochs) or already did; a bigid key, and a key the application
-- fills, it does not name; a table with row-level security it does not read.
CREATE TABLE api_events (id bigint PRIMARY KEY DEFAULT snowflake_next(5), v int);
CREATE TABLE api_blocks (id bigint NOT NULL UNIQUE DEFAULT crid_next(), v int);
CREATE TABLE api_plain (id bigint PRIMARY KEY, v int);
CREATE TABLE api_secret (id bigint PRIMARY KEY DEFAULT snowflake_next(5), v int);
ALTER TABLE api_secret ENABLE ROW LEVEL SECURITY;
CREATE TABLE api_not_key (id bigint DEFAULT snowflake_next(5), v int);
SELECT problem, object, detail ~ 'within a year' AS within_a_year, detail ~ 'not read' AS not_read, fix
FROM crid_check() WHERE problem LIKE 'json_key%' AND object LIKE 'json_keys.%' ORDER BY object;
-- The fix it gives: the column becomes bigid, the key stays; it is no longer named.
CREATE TEMP TABLE files_before AS
SELECT relname, relfilenode FROM pg_class WHERE oid IN ('api_events'::regclass, 'api_events_pkey'::regclass);
ALTER TABLE api_events ALTER COLUMN id TYPE public.bigid;
SELECT b.relname, c.relfilenode = b.relfilenode AS not_rewritten
FROM files_before b JOIN pg_class c ON c.relname = b.relname AND c.relnamespace = 'json_keys'::regnamespace
ORDER BY 1;
SELECT count(*) AS still_named FROM crid_check() WHERE object = 'json_keys.api_events.id';
SELECT pg_get_indexdef('api_events_pkey'::regclass) AS key_index;

SET client_min_messages = warning;
RESET search_path;
DROP SCHEMA json_keys CASCADE;
