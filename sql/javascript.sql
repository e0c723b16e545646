-- Ids JavaScript reads exactly: the snowflake preset javascript (epoch
-- 2026-01-01, units of 1 s, time 30 | node 7 | sequence 16, bits=53), whose
-- every id is at most 2^53 - 1 = 9007199254740991 (Number.MAX_SAFE_INTEGER)
-- until 2060-01-10 13:37:03 UTC. Its boundaries (first and last id of the
-- first and last second, every node, every gene of a variant with genes),
-- decoders, ids for past times, queries by time and partitions by time; the
-- server that mints on it is test/tap/t/060_javascript_ids.pl.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';
CREATE SCHEMA js_ids;
SET search_path = js_ids, public;

SELECT snowflake_layout('javascript');
SELECT snowflake_layout('epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=53') = snowflake_layout('javascript')
    AS spelled_alike;
-- 2^30 seconds: at least 34 years of 365.25 days.
SELECT snowflake_to_timestamptz(9007199254740991, 'javascript') AS last_second,
       snowflake_to_timestamptz(9007199254740991, 'javascript') - snowflake_to_timestamptz(0, 'javascript')
           >= interval '34 years' AS lasts_34_years,
       (1 << 30)::bigint >= 34 * 36525 * 864 AS seconds_of_34_julian_years;

-- The four corners: first and last id of the first and the last second.
SELECT 'first unit' AS unit, snowflake_pack('2026-01-01 00:00:00+00', 0, 0, 'javascript') AS first_id,
       snowflake_pack('2026-01-01 00:00:00.999+00', 127, 65535, 'javascript') AS last_id
UNION ALL
SELECT 'last unit', snowflake_pack('2060-01-10 13:37:03+00', 0, 0, 'javascript'),
       snowflake_pack('2060-01-10 13:37:03.999+00', 127, 65535, 'javascript');
SELECT * FROM snowflake_parse(0, 'javascript');
SELECT * FROM snowflake_parse(8388607, 'javascript');
SELECT * FROM snowflake_parse(9007199254732800, 'javascript');
SELECT * FROM snowflake_parse(9007199254740991, 'javascript');
SELECT snowflake_floor('2060-01-10 13:37:03.999+00', 'javascript') AS floor_of_last_second,
       snowflake_floor('2026-01-01 00:00:01+00', 'javascript') AS floor_of_second_second;

-- Every node at both ends, and every sequence's extremes: within 2^53 - 1,
-- decoded back to its fields (the start and the last millisecond of a
-- second are one unit, so each id comes twice: 512 distinct ids).
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, max(id) <= 9007199254740991 AS all_safe,
       bool_and(p.node = n AND p.sequence = s AND p.ts = t) AS decode_back
FROM (VALUES (timestamptz '2026-01-01 00:00:00+00'), ('2026-01-01 00:00:00.999+00'),
             ('2060-01-10 13:37:03+00'), ('2060-01-10 13:37:03.999+00')) AS at(a),
     generate_series(0, 127) AS n, (VALUES (0), (65535)) AS seq(s),
     LATERAL (SELECT snowflake_pack(a, n, s, 'javascript') AS id,
                     date_trunc('second', a) AS t) AS x,
     LATERAL snowflake_parse(id, 'javascript') AS p;

-- A variant with a shard gene: 16 nodes x 8 genes, still 53 bits.
SELECT snowflake_layout('epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53');
SELECT count(*) AS ids, max(id) AS largest, bool_and(id_gene(id, 3) = g) AS gene_in_low_bits,
       bool_and(p.gene = g AND p.node = n) AS decode_back
FROM generate_series(0, 15) AS n, generate_series(0, 7) AS g,
     LATERAL (SELECT snowflake_pack('2060-01-10 13:37:03.999+00', n, 65535, g,
                                    'epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53') AS id) AS x,
     LATERAL snowflake_parse(id, 'epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53') AS p;

-- Outside the layout: a time after its last second, a field too wide, an
-- id above 2^53 - 1 (of another layout).
\set VERBOSITY terse
SELECT snowflake_pack('2060-01-10 13:37:04+00', 0, 0, 'javascript');
SELECT snowflake_pack('2030-01-01+00', 128, 0, 'javascript');
SELECT snowflake_pack('2030-01-01+00', 0, 65536, 'javascript');
SELECT snowflake_to_timestamptz(9007199254740992, 'javascript');
SELECT * FROM snowflake_parse(9007199254740992, 'javascript');
SELECT snowflake_layout('epoch=2026-01-01,unit=1ms,node=7,sequence=16,bits=53');
SELECT snowflake_layout('epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=32');
SELECT snowflake_layout('epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=53,sign=true');
\set VERBOSITY default

-- Queries by time: snowflake_in is an index range of the layout's ids, and
-- false (never an ERROR) for ids outside the layout.
CREATE TABLE events (id bigint PRIMARY KEY, note text);
INSERT INTO events
SELECT snowflake_pack('2026-03-01+00'::timestamptz + i * interval '1 minute', i % 128, i / 128, 'javascript'), 'e' || i
FROM generate_series(0, 2999) AS i;
INSERT INTO events VALUES (9007199254740992, 'of another layout'), (9223372036854775807, 'largest bigint');
ANALYZE events;
SELECT count(*) FROM events WHERE snowflake_in(id, '[2026-03-01 10:00, 2026-03-01 11:00)', 'javascript');
SELECT count(*) FROM events WHERE id >= 0 AND id <= 9007199254740991
    AND snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00'
    AND snowflake_to_timestamptz(id, 'javascript') < '2026-03-01 11:00+00';
SELECT count(*) FROM events WHERE snowflake_in(id, '[2060-01-10 13:37:03, infinity)', 'javascript');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM events WHERE snowflake_in(id, '[2026-03-01 10:00, 2026-03-01 11:00)', 'javascript');
RESET enable_seqscan;
-- The planner hook: a decoded-time predicate is the id range only where a
-- CHECK constraint keeps every id within the layout (the decoder raises for
-- the others, which the range would pass over); elsewhere it is left as
-- written, and raises for such an id as the decoder does.
CREATE TABLE checked (id bigint PRIMARY KEY CHECK (id BETWEEN 0 AND 9007199254740991), note text);
INSERT INTO checked SELECT * FROM events WHERE id <= 9007199254740991;
ANALYZE checked;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT * FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00'
                        AND snowflake_to_timestamptz(id, 'javascript') < '2026-03-01 11:00+00';
-- (Seq scans allowed again: the plan is one, and PostgreSQL 18 marks a
-- disabled kind left as the only way with a line of its own.)
RESET enable_seqscan;
EXPLAIN (COSTS OFF)
SELECT * FROM events WHERE snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00';
SELECT count(*) FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00'
                               AND snowflake_to_timestamptz(id, 'javascript') < '2026-03-01 11:00+00';
SELECT count(*) FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') = '2026-03-01 10:00:00+00';
SELECT count(*) FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') > '2060-01-10 13:37:02+00';
SET crid.time_predicates = off;  -- the same answers without the hook
SELECT count(*) FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00'
                               AND snowflake_to_timestamptz(id, 'javascript') < '2026-03-01 11:00+00';
SELECT count(*) FROM checked WHERE snowflake_to_timestamptz(id, 'javascript') = '2026-03-01 10:00:00+00';
RESET crid.time_predicates;
\set VERBOSITY terse
SELECT count(*) FROM events WHERE snowflake_to_timestamptz(id, 'javascript') >= '2026-03-01 10:00+00';
\set VERBOSITY default

-- Partitions by time on the layout: a day each, ids in the day they name.
CREATE TABLE readings (id bigint NOT NULL, v int) PARTITION BY RANGE (id);
SELECT action, partition_name FROM crid_partition_create('readings', interval '1 day', '2026-03-01+00',
                                                         '2026-03-03+00', layout => 'javascript')
ORDER BY partition_name;
INSERT INTO readings
SELECT snowflake_pack('2026-03-01+00'::timestamptz + i * interval '1 hour', 5, i, 'javascript'), i
FROM generate_series(0, 47) AS i;
SELECT tableoid::regclass AS partition, count(*), min(snowflake_to_timestamptz(id, 'javascript')) AS first_at,
       max(snowflake_to_timestamptz(id, 'javascript')) AS last_at
FROM readings GROUP BY 1 ORDER BY 1;

-- Faces that stay safe: crid_mask(id, key, 53) is a keyed permutation of
-- 0 .. 2^53 - 1, so the face of a JavaScript-safe id is one too; its Sqids
-- text is one number (npm's sqids reads it exactly: TAP 062).
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_js_api;
RESET client_min_messages;
CREATE ROLE regress_js_api;
INSERT INTO crid_public_id_keys (key_id, secret, usable_by, note)
VALUES (53, '\x000102030405060708090a0b0c0d0e0f', 'regress_js_api', 'faces of 53 bits');
-- Pinned faces (a change of the construction changes every face handed out).
SELECT crid_mask(0, 53, 53) AS face_of_0, crid_mask(1, 53, 53) AS face_of_1,
       crid_mask(9007199254740991, 53, 53) AS face_of_max,
       crid_mask_sqid(9007199254740991, 53, 53) AS sqid_of_max,
       crid_mask_sqid(9007199254740991, 53, 53, 'js') AS prefixed;
-- The corners of the javascript layout at every node, and 100,000 ids:
-- faces distinct, at most 2^53 - 1, back to their ids, and their text too.
CREATE TABLE faced AS
SELECT DISTINCT snowflake_pack(a, n, s, 'javascript') AS id
FROM (VALUES (timestamptz '2026-01-01 00:00:00+00'), ('2060-01-10 13:37:03+00')) AS at(a),
     generate_series(0, 127) AS n, (VALUES (0), (65535)) AS seq(s)
UNION
SELECT snowflake_pack('2026-01-01+00'::timestamptz + i * interval '2 hours 17 seconds', i % 128, i % 65536,
                      'javascript')
FROM generate_series(1, 100000) AS i;
SELECT count(*) AS ids, count(DISTINCT f) AS distinct_faces, max(f) <= 9007199254740991 AS faces_safe,
       min(f) >= 0 AS not_negative, bool_and(crid_unmask(f, 53, 53) = id) AS unmask_back,
       bool_and(crid_unmask_sqid(crid_mask_sqid(id, 53, 53, 'ord'), 53, 53, 'ord') = id) AS sqid_back,
       count(*) FILTER (WHERE f = crid_mask(id, 53)) AS same_as_63_bit_face
FROM (SELECT id, crid_mask(id, 53, 53) AS f FROM faced) x;
-- bits => 63 is the two-argument face, text and all.
SELECT bool_and(crid_mask(id, 53, 63) = crid_mask(id, 53)
                AND crid_unmask(crid_mask(id, 53), 53, 63) = id
                AND crid_mask_sqid(id, 53, 63, 'x') = crid_mask_sqid(id, 53, 'x')
                AND crid_unmask_sqid(crid_mask_sqid(id, 53, 'x'), 53, 63, 'x') = id) AS bits_63_is_the_old_face
FROM faced;
-- Outside 53 bits, or another width.
SELECT regress.sqlstate_of($$SELECT crid_mask(9007199254740992, 53, 53)$$) AS id_above_2_53,
       regress.sqlstate_of($$SELECT crid_unmask(9007199254740992, 53, 53)$$) AS face_above_2_53,
       regress.sqlstate_of($$SELECT crid_mask(-1, 53, 53)$$) AS negative,
       regress.sqlstate_of($$SELECT crid_mask(1, 53, 54)$$) AS bits_54,
       regress.sqlstate_of($$SELECT crid_mask(1, 53, NULL)$$) AS bits_null,
       regress.sqlstate_of($$SELECT crid_unmask_sqid(crid_mask_sqid(1, 53, 'z'), 53, 53, 'z')$$) AS text_of_63_read_as_53,
       crid_mask(NULL, 53, 53) IS NULL AS null_id_null_face;
\set VERBOSITY terse
SELECT crid_mask(9007199254740992, 53, 53);
SELECT crid_mask(1, 53, 54);
\set VERBOSITY default
UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = 53;
DROP ROLE regress_js_api;

SET client_min_messages = warning;
RESET search_path;
DROP SCHEMA js_ids CASCADE;
