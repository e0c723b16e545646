-- uuid_v7_in, snowflake_in and crid_in on a server where crid is not
-- preloaded: their planner support functions alone put the id range into
-- index conditions (and partition pruning, generic plans, row estimates).
-- Every range form is compared with a sequential scan of the decoders.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
SELECT current_setting('shared_preload_libraries') AS preloaded;

CREATE TEMP TABLE instants AS
SELECT at FROM generate_series('2026-03-01 11:59:58+00'::timestamptz, '2026-03-01 12:00:02+00', '250 ms') at
UNION SELECT '2026-03-01 12:00:00+00'::timestamptz + d * interval '1 ms' FROM unnest(ARRAY[-11, -10, -1, 1, 9, 10]) d;
CREATE TABLE in_uuid (id uuid PRIMARY KEY, note text);
INSERT INTO in_uuid
SELECT DISTINCT u, 'v7' FROM instants, LATERAL (VALUES
    (uuid_timestamptz_to_v7(at, true)),
    (overlay(uuid_timestamptz_to_v7(at, true)::text PLACING '7fff-bfff-ffffffffffff' FROM 15)::uuid),
    (uuid_generate_v7_deterministic(at, at::text))) v(u);
-- Other versions whose leading bits fall among those version 7 ids: not in any range.
INSERT INTO in_uuid VALUES
    (overlay(uuid_timestamptz_to_v7('2026-03-01 12:00:00+00', true)::text PLACING '4abc-8000-000000000001' FROM 15)::uuid, 'v4'),
    (overlay(uuid_timestamptz_to_v7('2026-03-01 12:00:01+00', true)::text PLACING '1abc-8000-000000000001' FROM 15)::uuid, 'v1');
CREATE TABLE in_snowflake (id bigint PRIMARY KEY, note text);
INSERT INTO in_snowflake
SELECT DISTINCT i, '' FROM instants, LATERAL (VALUES
    (snowflake_floor(at)), (snowflake_floor(at + interval '1 ms') - 1), (snowflake_floor(at) + 5 * 4096 + 7)) v(i);
INSERT INTO in_snowflake VALUES (-1, 'negative: not an id');
CREATE TABLE in_sonyflake (id bigint PRIMARY KEY, note text);
INSERT INTO in_sonyflake
SELECT DISTINCT i, '' FROM instants, LATERAL (VALUES
    (snowflake_floor(at, 'sonyflake')), (snowflake_floor(at + interval '10 ms', 'sonyflake') - 1)) v(i);
CREATE TABLE in_crid (id bigint PRIMARY KEY, note text);
INSERT INTO in_crid
SELECT DISTINCT i, '' FROM instants, LATERAL (VALUES
    (crid_floor(at)), (crid_floor(at + interval '1 s') - 1), (crid_floor(at) + 12345)) v(i);
ANALYZE in_uuid, in_snowflake, in_sonyflake, in_crid;

-- The call through the index (sequential scans off; by index and by bitmap
-- scans) against the decoder evaluated row by row in a sequential scan.
CREATE FUNCTION pg_temp.in_query(call text, reference text, tbl text,
                                 OUT rows bigint, OUT same_as_seqscan boolean, OUT uses_index boolean)
LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT count(*), coalesce(string_agg(id::text, '','' ORDER BY id), '''') FROM %s WHERE ', tbl);
    by_index text;
    by_bitmap text;
    seqscan text;
    line text;
BEGIN
    uses_index := false;
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
    EXECUTE q || call INTO rows, by_index;
    FOR line IN EXECUTE format('EXPLAIN (costs off) SELECT id FROM %s WHERE %s', tbl, call) LOOP
        uses_index := uses_index OR line LIKE '%Index Cond%';
    END LOOP;
    PERFORM set_config('enable_bitmapscan', 'on', true), set_config('enable_indexscan', 'off', true),
            set_config('enable_indexonlyscan', 'off', true);
    EXECUTE q || call INTO rows, by_bitmap;
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'off', true);
    EXECUTE q || reference INTO rows, seqscan;
    PERFORM set_config('enable_indexscan', 'on', true), set_config('enable_indexonlyscan', 'on', true),
            set_config('enable_bitmapscan', 'on', true);
    same_as_seqscan := by_index = seqscan AND by_bitmap = seqscan;
END $$;

CREATE TEMP TABLE ranges AS
SELECT format('%L::tstzrange', r) AS r FROM unnest(ARRAY[
    '[2026-03-01 12:00:00, 2026-03-01 12:00:01)', '(2026-03-01 12:00:00, 2026-03-01 12:00:01]',
    '[2026-03-01 12:00:00, 2026-03-01 12:00:01]', '(2026-03-01 12:00:00, 2026-03-01 12:00:01)',
    '[2026-03-01 11:59:59.999999, 2026-03-01 12:00:00.000001)', '(2026-03-01 11:59:59.999, 2026-03-01 12:00:00.001)',
    '[2026-03-01 12:00:00.0005, 2026-03-01 12:00:00.0105]', '[2026-03-01 12:00:00.01, 2026-03-01 12:00:00.01]',
    '(, 2026-03-01 12:00:00)', '[2026-03-01 12:00:00,)', '(,)', 'empty',
    '[-infinity, 2026-03-01 11:59:59]', '[2026-03-01 12:00:01, infinity]', '[-infinity, infinity]',
    '[1960-01-01, 1969-12-31]', '[9000-01-01, 9999-01-01)']::text[]) r;
CREATE TEMP TABLE calls (family text, tbl text, call text, reference text);
INSERT INTO calls
SELECT 'uuid_v7_in', 'in_uuid', format('uuid_v7_in(id, %s)', r),
       format('CASE WHEN uuid_extract_version(id) = 7 THEN uuid_v7_to_timestamptz(id) <@ %s ELSE false END', r)
FROM ranges
UNION ALL
SELECT 'snowflake_in', 'in_snowflake', format('snowflake_in(id, %s)', r),
       format('CASE WHEN id >= 0 THEN snowflake_to_timestamptz(id) <@ %s ELSE false END', r)
FROM ranges
UNION ALL
SELECT 'snowflake_in sonyflake', 'in_sonyflake', format('snowflake_in(id, %s, ''sonyflake'')', r),
       format('snowflake_to_timestamptz(id, ''sonyflake'') <@ %s', r)
FROM ranges
UNION ALL
SELECT 'crid_in', 'in_crid', format('crid_in(id, %s)', r), format('crid_to_timestamptz(id) <@ %s', r)
FROM ranges;
CREATE TEMP TABLE results AS SELECT c.*, q.* FROM calls c, LATERAL pg_temp.in_query(call, reference, tbl) q;
SELECT family, count(*) AS ranges, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, sum(rows) AS rows
FROM results GROUP BY family ORDER BY family;
SELECT call, same_as_seqscan, uses_index FROM results WHERE NOT (same_as_seqscan AND uses_index) ORDER BY call;

-- Without the hook, a decoder predicate cannot use the index (asked with
-- sequential scans allowed: PostgreSQL 18 marks a disabled node it uses) ...
EXPLAIN (costs off) SELECT * FROM in_snowflake WHERE snowflake_to_timestamptz(id) >= '2026-03-01 12:00:00';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
-- ... but the *_in calls do. snowflake_in and crid_in become the id range
-- itself (exact); uuid_v7_in becomes the range and crid_uuid_v7_in_exact,
-- its own call without planner support, to refuse other versions.
EXPLAIN (costs off) SELECT * FROM in_snowflake WHERE snowflake_in(id, '[2026-03-01 12:00:00, 2026-03-01 12:00:01)');
EXPLAIN (costs off) SELECT * FROM in_sonyflake WHERE snowflake_in(id, '[2026-03-01 12:00:00, 2026-03-01 12:00:01)', 'sonyflake');
EXPLAIN (costs off) SELECT * FROM in_crid WHERE crid_in(id, tstzrange(now() - interval '1 hour', now()));
EXPLAIN (costs off) SELECT * FROM in_uuid WHERE uuid_v7_in(id, '[2026-03-01 12:00:00, 2026-03-01 12:00:01)');
-- Generic plans keep the parameter.
SET plan_cache_mode = force_generic_plan;
PREPARE by_range(tstzrange) AS SELECT id FROM in_uuid WHERE uuid_v7_in(id, $1);
EXPLAIN (costs off) EXECUTE by_range('[2026-03-01 12:00:00, 2026-03-01 12:00:01)');
EXECUTE by_range('[2026-03-01 12:00:00.999, 2026-03-01 12:00:01.001)');
PREPARE sf_range(tstzrange) AS SELECT count(*) FROM in_snowflake WHERE snowflake_in(id, $1);
EXPLAIN (costs off) EXECUTE sf_range('[2026-03-01 12:00:00, 2026-03-01 12:00:01)');
EXECUTE sf_range('[2026-03-01 12:00:00, 2026-03-01 12:00:01)');
RESET plan_cache_mode;

-- Partitions by id range are pruned (snowflake_in and crid_in are id ranges by then).
CREATE TABLE in_parts (id bigint PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE in_parts_a PARTITION OF in_parts FOR VALUES FROM (MINVALUE) TO (snowflake_floor('2026-03-01 12:00:00', 'sonyflake'));
CREATE TABLE in_parts_b PARTITION OF in_parts FOR VALUES FROM (snowflake_floor('2026-03-01 12:00:00', 'sonyflake')) TO (MAXVALUE);
INSERT INTO in_parts SELECT id FROM in_sonyflake;
ANALYZE in_parts;
EXPLAIN (costs off) SELECT * FROM in_parts WHERE snowflake_in(id, '[2026-03-01 12:00:00.5, 2026-03-01 12:00:01)', 'sonyflake');
SELECT count(*) FROM in_parts WHERE snowflake_in(id, '[2026-03-01 12:00:00.5, 2026-03-01 12:00:01)', 'sonyflake');
DROP TABLE in_parts;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- Row estimates come from the id column's statistics (the planner expects
-- about as many rows as there are).
CREATE TABLE in_many (id bigint PRIMARY KEY);
INSERT INTO in_many SELECT snowflake_floor('2026-03-01'::timestamptz + g * interval '1 second') FROM generate_series(0, 86399) g;
ANALYZE in_many;
CREATE FUNCTION pg_temp.estimate(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (format json) ' || query INTO plan;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
SELECT actual, estimate BETWEEN actual / 2 AND actual * 2 AS estimate_within_2x
FROM (SELECT (SELECT count(*) FROM in_many WHERE snowflake_in(id, r)) AS actual,
             pg_temp.estimate(format('SELECT * FROM in_many WHERE snowflake_in(id, %L)', r)) AS estimate
      FROM (VALUES ('[2026-03-01 10:00, 2026-03-01 11:00)'::tstzrange), ('[2026-03-01 10:00, 2026-03-01 20:00)')) v(r)) s;
CREATE TABLE in_many_uuid (id uuid PRIMARY KEY);
INSERT INTO in_many_uuid SELECT uuid_generate_v7_deterministic('2026-03-01'::timestamptz + g * interval '1 second', g)
FROM generate_series(0, 86399) g;
ANALYZE in_many_uuid;
SELECT actual, estimate BETWEEN actual / 2 AND actual * 2 AS estimate_within_2x
FROM (SELECT (SELECT count(*) FROM in_many_uuid WHERE uuid_v7_in(id, r)) AS actual,
             pg_temp.estimate(format('SELECT * FROM in_many_uuid WHERE uuid_v7_in(id, %L)', r)) AS estimate
      FROM (VALUES ('[2026-03-01 10:00, 2026-03-01 11:00)'::tstzrange), ('[2026-03-01 10:00, 2026-03-01 20:00)')) v(r)) s;
DROP TABLE in_many, in_many_uuid;

-- The boundaries themselves: first and last id of a range; for a range no
-- id's time can lie in, first > last (so no id is between them).
SELECT uuid_v7_range_first('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS first,
       uuid_v7_range_last('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS last;
SELECT uuid_v7_range_first('empty') AS first, uuid_v7_range_last('empty') AS last;
SELECT snowflake_range_first('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS first,
       snowflake_range_last('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS last,
       snowflake_range_first('(,)') AS unbounded_first, snowflake_range_last('(,)') AS unbounded_last;
SELECT snowflake_range_first('[1990-01-01, 2000-01-01)') AS before_epoch_first,
       snowflake_range_last('[1990-01-01, 2000-01-01)') AS before_epoch_last;
SELECT crid_range_first('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS first,
       crid_range_last('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') AS last,
       crid_range_last('[2026-03-01 12:00:00, 2026-03-01 12:00:01)') + 1 = crid_floor('2026-03-01 12:00:01') AS adjacent;
SELECT uuid_v7_time_bound('2026-03-01 12:00:00', '>=') AS ge, uuid_v7_time_bound('2026-03-01 12:00:00', '>') AS gt,
       uuid_v7_time_bound('2026-03-01 12:00:00', '<=') AS le, uuid_v7_time_bound('2026-03-01 12:00:00', '<') AS lt;
SELECT snowflake_time_bound('infinity', '>') IS NULL AS nothing_after_infinity,
       crid_time_bound('2000-01-01', '<') IS NULL AS nothing_before_the_epoch,
       snowflake_time_bound('2026-03-01 12:00:00', '>=', 'twitter') = snowflake_floor('2026-03-01 12:00:00', 'twitter') AS floor;

-- Bad input and NULLs.
\set VERBOSITY terse
SELECT snowflake_range_first('(,)', 'discord');
SELECT snowflake_range_first('(,)', 'no such layout');
SELECT snowflake_in(1, '(,)', NULL::text) IS NULL AS strict_null;
SELECT uuid_v7_time_bound('2026-03-01', '=');
SELECT crid_time_bound('2026-03-01', 'between');
\set VERBOSITY default
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
SELECT pg_temp.sqlstate_of($q$SELECT snowflake_range_first('(,)', 'discord')$q$) AS sign_bit_layout,
       pg_temp.sqlstate_of($q$SELECT snowflake_in(1, '(,)', 'no such layout')$q$) AS unknown_layout,
       pg_temp.sqlstate_of($q$SELECT uuid_v7_time_bound('2026-03-01', '=')$q$) AS unknown_comparison;
SELECT uuid_v7_in(NULL, '(,)') IS NULL AS null_id, crid_in(1, NULL) IS NULL AS null_range,
       snowflake_in(-5, '(,)') AS negative_is_no_id, crid_in(-5, '(,)') AS negative_is_no_crid,
       snowflake_in(-1, '(,)', 'discord') AS discord_uses_the_sign_bit;
