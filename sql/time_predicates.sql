-- Decoded-time predicates with crid preloaded: the planner hook turns
-- `decoder(id) op x` into id ranges the primary-key index answers. Every
-- query below runs twice, once as planned with the hook (sequential scans
-- disabled, so any usable index condition is used) and once as a plain
-- sequential scan without the hook; the rows must be the same. Data sit on
-- every boundary: first and last id of a unit (sequence 0 and the maximum
-- sequence, node and gene), units just inside and outside each bound.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';

-- Runs `query` (one column) with the hook, once by index scans and once by
-- bitmap scans (sequential scans off, so any usable index condition is used),
-- then as a sequential scan without the hook: row count, same rows in all
-- three, and whether a plan uses an index condition (or proves there is no row
-- at all, when a bound is NULL).
CREATE FUNCTION regress.time_query(query text, OUT rows bigint, OUT same_as_seqscan boolean, OUT uses_index boolean)
LANGUAGE plpgsql AS $$
DECLARE
    wrapped text := format('SELECT count(*), coalesce(string_agg(x::text, '','' ORDER BY x::text), '''') FROM (%s) q(x)', query);
    by_index text;
    by_bitmap text;
    seqscan text;
    line text;
BEGIN
    uses_index := false;
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
    EXECUTE wrapped INTO rows, by_index;
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || query LOOP
        uses_index := uses_index OR line LIKE '%Index Cond%' OR line LIKE '%One-Time Filter: false%';
    END LOOP;
    PERFORM set_config('enable_bitmapscan', 'on', true), set_config('enable_indexscan', 'off', true),
            set_config('enable_indexonlyscan', 'off', true);
    EXECUTE wrapped INTO rows, by_bitmap;
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || query LOOP
        uses_index := uses_index OR line LIKE '%Index Cond%';
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'off', true),
            set_config('crid.time_predicates', 'off', true);
    EXECUTE wrapped INTO rows, seqscan;
    PERFORM set_config('enable_indexscan', 'on', true), set_config('enable_indexonlyscan', 'on', true),
            set_config('enable_bitmapscan', 'on', true), set_config('crid.time_predicates', 'on', true);
    same_as_seqscan := by_index = seqscan AND by_bitmap = seqscan;
END $$;

-- Instants every 250 ms around T0 = 2026-03-01 12:00:00, and just around T0.
CREATE TEMP TABLE instants AS
SELECT at FROM generate_series('2026-03-01 11:59:58+00'::timestamptz, '2026-03-01 12:00:02+00', '250 ms') at
UNION SELECT '2026-03-01 12:00:00+00'::timestamptz + d * interval '1 ms' FROM unnest(ARRAY[-11, -10, -9, -1, 1, 9, 10, 11]) d
UNION SELECT '2026-03-01 12:00:00.999+00';

-- UUIDv7: the first and last UUID of each millisecond and a hashed one.
CREATE TABLE tp_uuid (id uuid PRIMARY KEY);
INSERT INTO tp_uuid
SELECT DISTINCT u FROM instants, LATERAL (VALUES
    (uuid_timestamptz_to_v7(at, true)),
    (overlay(uuid_timestamptz_to_v7(at, true)::text PLACING '7fff-bfff-ffffffffffff' FROM 15)::uuid),
    (uuid_generate_v7_deterministic(at, at::text))) v(u);
-- Snowflake, server layout (41 time | 10 node | 12 sequence): first id of the
-- millisecond, the last (node 1023, sequence 4095), one between.
CREATE TABLE tp_snowflake (id bigint PRIMARY KEY);
INSERT INTO tp_snowflake
SELECT DISTINCT i FROM instants, LATERAL (VALUES
    (snowflake_floor(at)), (snowflake_floor(at + interval '1 ms') - 1), (snowflake_floor(at) + 5 * 4096 + 7)) v(i);
-- Sonyflake: 10 ms units, sequence above machine.
CREATE TABLE tp_sonyflake (id bigint PRIMARY KEY);
INSERT INTO tp_sonyflake
SELECT DISTINCT i FROM instants, LATERAL (VALUES
    (snowflake_floor(at, 'sonyflake')), (snowflake_floor(at + interval '10 ms', 'sonyflake') - 1),
    (snowflake_floor(at, 'sonyflake') + 3 * 65536 + 9)) v(i);
-- A layout with a 3-bit shard gene in the low bits.
CREATE TABLE tp_gene (id bigint PRIMARY KEY);
INSERT INTO tp_gene
SELECT DISTINCT i FROM instants, LATERAL (VALUES
    (snowflake_floor(at, 'epoch=2026-01-01,node=4,sequence=8,gene=3')),
    (snowflake_floor(at + interval '1 ms', 'epoch=2026-01-01,node=4,sequence=8,gene=3') - 1),
    (snowflake_floor(at, 'epoch=2026-01-01,node=4,sequence=8,gene=3') + 5)) v(i);
-- crid: the first and last id of each second (sequence 0 and 2^32 - 1).
CREATE TABLE tp_crid (id bigint PRIMARY KEY);
INSERT INTO tp_crid
SELECT DISTINCT i FROM instants, LATERAL (VALUES
    (crid_floor(at)), (crid_floor(at + interval '1 s') - 1), (crid_floor(at) + 12345)) v(i);
ANALYZE tp_uuid, tp_snowflake, tp_sonyflake, tp_gene, tp_crid;

CREATE TEMP TABLE families (family text, tbl text, decoder text);
INSERT INTO families VALUES
    ('uuid_v7_to_timestamptz', 'tp_uuid', 'uuid_v7_to_timestamptz(id)'),
    ('uuid_extract_timestamp', 'tp_uuid', 'uuid_extract_timestamp(id)'),
    ('snowflake', 'tp_snowflake', 'snowflake_to_timestamptz(id)'),
    ('snowflake sonyflake', 'tp_sonyflake', 'snowflake_to_timestamptz(id, ''sonyflake'')'),
    ('snowflake gene', 'tp_gene', 'snowflake_to_timestamptz(id, ''epoch=2026-01-01,node=4,sequence=8,gene=3'')'),
    ('crid', 'tp_crid', 'crid_to_timestamptz(id)');

-- Bounds on and just off unit starts, inside units, and infinite; every
-- comparison both ways round.
CREATE TEMP TABLE bounds AS
SELECT format('%L::timestamptz', b) AS b FROM unnest(ARRAY[
    '2026-03-01 12:00:00', '2026-03-01 12:00:00.000001', '2026-03-01 11:59:59.999999',
    '2026-03-01 12:00:00.0005', '2026-03-01 12:00:00.001', '2026-03-01 11:59:59.999',
    '2026-03-01 12:00:00.005', '2026-03-01 12:00:00.01', '2026-03-01 11:59:59.99',
    '2026-03-01 12:00:00.999999', '2026-03-01 12:00:01', '2026-03-01 11:59:58.5',
    '-infinity', 'infinity', '1969-01-01', '9999-01-01']::text[]) b;
CREATE TEMP TABLE cases AS
SELECT family, format('SELECT id FROM %s WHERE %s %s %s', tbl, decoder, op, b) AS q
FROM families, bounds, unnest(ARRAY['<', '<=', '=', '>=', '>']) op
UNION ALL
SELECT family, format('SELECT id FROM %s WHERE %s %s %s', tbl, b, op, decoder)
FROM families, bounds, unnest(ARRAY['<', '>=']) op
UNION ALL
SELECT family, format('SELECT id FROM %s WHERE %s %s', tbl, decoder, r)
FROM families, unnest(ARRAY[
    $$BETWEEN '2026-03-01 11:59:59' AND '2026-03-01 12:00:01'$$,
    $$BETWEEN '2026-03-01 12:00:00.0005' AND '2026-03-01 12:00:00.0105'$$,
    $$BETWEEN '2026-03-01 12:00:01' AND '2026-03-01 11:59:59'$$,
    $$BETWEEN '-infinity' AND 'infinity'$$,
    $$BETWEEN SYMMETRIC '2026-03-01 12:00:01' AND '2026-03-01 11:59:59'$$]) r
UNION ALL
SELECT family, format('SELECT id FROM %s WHERE %s %s ''2026-03-01 11:59:59.75'' AND %s %s ''2026-03-01 12:00:00.25''',
                      tbl, decoder, lo, decoder, hi)
FROM families, unnest(ARRAY['>', '>=']) lo, unnest(ARRAY['<', '<=']) hi
UNION ALL -- date and timestamp without time zone compare as the timestamptz they convert to
SELECT family, format('SELECT id FROM %s WHERE %s >= %s AND %s < %s', tbl, decoder, a, decoder, z)
FROM families, (VALUES ($$'2026-03-01'::date$$, $$'2026-03-02'::date$$),
                       ($$'2026-03-01 12:00:00.5'::timestamp$$, $$'2026-03-01 12:00:01.5'::timestamp$$)) v(a, z);

CREATE TEMP TABLE results AS SELECT family, q, r.* FROM cases, LATERAL regress.time_query(q) r;
SELECT family, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, sum(rows) AS rows
FROM results GROUP BY family ORDER BY family;
-- Any query whose rows differ or that does not use the index is listed here.
SELECT q, same_as_seqscan, uses_index FROM results WHERE NOT (same_as_seqscan AND uses_index) ORDER BY q;

-- What the planner sees (index scans forced: the tables are small).
-- Snowflake and crid: the predicate becomes the id range (their ids map to
-- their time exactly). A uuid_v7_to_timestamptz predicate leaves one
-- version check per column beside it; uuid_extract_timestamp keeps its own.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (costs off) SELECT * FROM tp_uuid
WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_uuid WHERE uuid_extract_timestamp(id) = '2026-03-01 12:00:00.0005';
EXPLAIN (costs off) SELECT * FROM tp_snowflake
WHERE snowflake_to_timestamptz(id) BETWEEN '2026-03-01 12:00:00' AND '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_sonyflake WHERE snowflake_to_timestamptz(id, 'sonyflake') > '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_crid WHERE '2026-03-01 12:00:01' <= crid_to_timestamptz(id);
-- Expressions and other columns stay expressions, evaluated when the plan runs.
EXPLAIN (costs off) SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour';
EXPLAIN (costs off) SELECT * FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= current_date;
-- Each arm of an OR is rewritten on its own: a BitmapOr of two ranges.
SET enable_bitmapscan = on;
EXPLAIN (costs off) SELECT * FROM tp_crid
WHERE crid_to_timestamptz(id) < '2026-03-01 11:59:59' OR crid_to_timestamptz(id) > '2026-03-01 12:00:01';
SET enable_bitmapscan = off;

-- A UUID of another version that sorts inside the range still gets
-- uuid_v7_to_timestamptz's error, from the version check the hook leaves.
BEGIN;
INSERT INTO tp_uuid VALUES (overlay(uuid_timestamptz_to_v7('2026-03-01 12:00:00.5', true)::text PLACING '4' FROM 15)::uuid);
SELECT count(*) FROM tp_uuid
WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01';
ROLLBACK;
-- A date beyond timestamptz's range compares as later than every time; the
-- hook leaves such a predicate as written instead of failing to convert it.
SELECT count(*) = (SELECT count(*) FROM tp_uuid) AS every_row
  FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) < '300000-01-01'::date;
SELECT count(*) AS no_row FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= '300000-01-01'::date;
-- The check keeps every row it does not refuse, so the planner expects the
-- rows of the id range, as for the range written by hand.
CREATE FUNCTION regress.plan_rows(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SELECT regress.plan_rows($$SELECT * FROM tp_uuid
        WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01'$$)
     = regress.plan_rows($$SELECT * FROM tp_uuid
        WHERE id >= uuid_v7_time_bound('2026-03-01 12:00:00', '>=') AND id <= uuid_v7_time_bound('2026-03-01 12:00:01', '<')$$)
       AS estimate_is_the_id_range;

-- A join: each row's window probes the index.
CREATE TEMP TABLE windows (a timestamptz, z timestamptz);
INSERT INTO windows VALUES ('2026-03-01 11:59:59.5', '2026-03-01 12:00:00'), ('2026-03-01 12:00:00.001', '2026-03-01 12:00:00.011');
EXPLAIN (costs off) SELECT t.id FROM windows w JOIN tp_snowflake t
    ON snowflake_to_timestamptz(t.id) >= w.a AND snowflake_to_timestamptz(t.id) < w.z;
SELECT * FROM regress.time_query($$SELECT t.id FROM windows w JOIN tp_snowflake t
    ON snowflake_to_timestamptz(t.id) >= w.a AND snowflake_to_timestamptz(t.id) < w.z$$);
SELECT * FROM regress.time_query($$SELECT t.id FROM windows w JOIN tp_uuid t
    ON uuid_v7_to_timestamptz(t.id) >= w.a AND uuid_v7_to_timestamptz(t.id) < w.z$$);

-- Generic plans: parameters stay parameters, the index is still used.
PREPARE by_time(timestamptz, timestamptz) AS
    SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= $1 AND uuid_v7_to_timestamptz(id) < $2;
PREPARE by_snowflake_time(timestamptz) AS SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id) > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (costs off) EXECUTE by_time('2026-03-01 12:00:00', '2026-03-01 12:00:01');
EXECUTE by_time('2026-03-01 12:00:00', '2026-03-01 12:00:01');
EXECUTE by_time('2026-03-01 11:59:59.999', '2026-03-01 12:00:00.001');
EXPLAIN (costs off) EXECUTE by_snowflake_time('2026-03-01 12:00:01');
EXECUTE by_snowflake_time('2026-03-01 12:00:01');
RESET plan_cache_mode;
SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01';
SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 11:59:59.999' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:00.001';
SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id) > '2026-03-01 12:00:01';

-- Partitions by id range: those outside the time range are pruned, at plan
-- time for constants of IMMUTABLE decoders, when the plan starts otherwise.
CREATE TABLE tp_parts (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE tp_parts_before PARTITION OF tp_parts FOR VALUES FROM (MINVALUE) TO (uuid_timestamptz_to_v7('2026-03-01 12:00:00', true));
CREATE TABLE tp_parts_during PARTITION OF tp_parts
    FOR VALUES FROM (uuid_timestamptz_to_v7('2026-03-01 12:00:00', true)) TO (uuid_timestamptz_to_v7('2026-03-01 12:00:01', true));
CREATE TABLE tp_parts_after PARTITION OF tp_parts FOR VALUES FROM (uuid_timestamptz_to_v7('2026-03-01 12:00:01', true)) TO (MAXVALUE);
INSERT INTO tp_parts SELECT id FROM tp_uuid;
ANALYZE tp_parts;
EXPLAIN (costs off) SELECT * FROM tp_parts
WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00.25' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:00.75';
SELECT * FROM regress.time_query($$SELECT id FROM tp_parts
WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00.25' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:00.75'$$);
CREATE TABLE tp_sf_parts (id bigint PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE tp_sf_parts_a PARTITION OF tp_sf_parts FOR VALUES FROM (MINVALUE) TO (snowflake_floor('2026-03-01 12:00:00'));
CREATE TABLE tp_sf_parts_b PARTITION OF tp_sf_parts FOR VALUES FROM (snowflake_floor('2026-03-01 12:00:00')) TO (MAXVALUE);
INSERT INTO tp_sf_parts SELECT id FROM tp_snowflake;
ANALYZE tp_sf_parts;
EXPLAIN (costs off) SELECT * FROM tp_sf_parts WHERE snowflake_to_timestamptz(id) < '2026-03-01 11:59:59';
SET plan_cache_mode = force_generic_plan;
PREPARE sf_parts(timestamptz) AS SELECT count(*) FROM tp_sf_parts WHERE snowflake_to_timestamptz(id) >= $1;
EXPLAIN (costs off) EXECUTE sf_parts('2026-03-01 12:00:01');
EXECUTE sf_parts('2026-03-01 12:00:01');
RESET plan_cache_mode;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= '2026-03-01 12:00:01';

-- Not rewritten, and so unchanged: volatile comparands, predicates under NOT or
-- in the select list, decoders of expressions, sign-bit and non-constant
-- layouts, other operators.
CREATE TEMP TABLE unrelated (q text);
INSERT INTO unrelated VALUES
    ($$SELECT * FROM tp_snowflake WHERE id > 5$$),
    ($$SELECT * FROM tp_uuid u JOIN tp_crid c ON c.id::text < u.id::text WHERE c.id % 2 = 0$$),
    ($$SELECT count(*) FROM tp_uuid GROUP BY substr(id::text, 1, 8) HAVING count(*) > 1$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= clock_timestamp()$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= now() + random() * interval '1 s'$$),
    ($$SELECT * FROM tp_uuid WHERE NOT (uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00')$$),
    ($$SELECT uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' FROM tp_uuid$$),
    ($$SELECT * FROM tp_crid WHERE crid_to_timestamptz(id + 1) > '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id, 'discord') > '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id, 'not a layout') > '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id, lower('TWITTER')) > '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_crid WHERE crid_to_timestamptz(id) <> '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_crid WHERE crid_to_timestamptz(id) IN ('2026-03-01 12:00:00', '2026-03-01 12:00:01')$$),
    ($$SELECT * FROM tp_crid WHERE CASE WHEN crid_to_timestamptz(id) > '2026-03-01 12:00:00' THEN true END$$);
CREATE FUNCTION regress.plan_of(query text, hook boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan text := '';
    line text;
BEGIN
    PERFORM set_config('crid.time_predicates', hook::text, true);
    FOR line IN EXECUTE 'EXPLAIN (costs off, verbose) ' || query LOOP
        plan := plan || line || E'\n';
    END LOOP;
    PERFORM set_config('crid.time_predicates', 'on', true);
    RETURN plan;
END $$;
SELECT count(*) AS queries, count(*) FILTER (WHERE regress.plan_of(q, true) = regress.plan_of(q, false)) AS same_plan
FROM unrelated;
-- A sign-bit layout cannot be range-scanned, but still filters row by row.
SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id, 'discord') > '2026-03-01 12:00:00';

-- A version 1 UUID keeps its time in other bits: the rewrite assumes version 7
-- ids in the column, and such a row is found only with the hook off.
INSERT INTO tp_uuid VALUES ('C232AB00-9414-11EC-B3C8-9F6BDECED846'); -- RFC 9562 A.1, 2022-02-22
SELECT count(*) AS with_hook FROM tp_uuid WHERE uuid_extract_timestamp(id) < '2023-01-01';
SET crid.time_predicates = off;
SELECT count(*) AS without_hook FROM tp_uuid WHERE uuid_extract_timestamp(id) < '2023-01-01';
RESET crid.time_predicates;
DELETE FROM tp_uuid WHERE uuid_extract_version(id) = 1;

DROP TABLE tp_parts, tp_sf_parts;
