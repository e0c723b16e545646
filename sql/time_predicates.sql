-- Decoded-time predicates with crid preloaded: the planner hook turns
-- `decoder(id) op x` into id ranges the primary-key index answers, and must
-- never change an answer. Every query below runs as planned with the hook
-- (sequential scans disabled, so any usable index condition is used) and as
-- a plain sequential scan without the hook; the rows, or the ERROR, must be
-- the same. Data sit on every boundary: first and last id of a unit
-- (sequence 0 and the maximum sequence, node and gene), units just inside
-- and outside each bound; and, in tables of their own, ids the decoders
-- refuse (negative ones, UUIDs of other versions and variants).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
-- A disabled scan costs 10^10, which would JIT-compile nearly every plan here.
SET jit = off;

-- The answer of a query wrapped as (count, rows as text): its row count and
-- rows, or -1 and its ERROR (SQLSTATE and message).
CREATE FUNCTION regress.answer_of(wrapped text, OUT rows bigint, OUT answer text) LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE wrapped INTO rows, answer;
EXCEPTION WHEN OTHERS THEN
    rows := -1;
    answer := 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;
-- `query` (one column) as (count, its rows as text in order).
CREATE FUNCTION regress.wrapped(query text) RETURNS text LANGUAGE sql IMMUTABLE
RETURN format('SELECT count(*), coalesce(string_agg(x::text, %L ORDER BY x::text), %L) FROM (%s) q(x)', ',', '', query);
-- Runs `query` with the hook, once by index scans and once by bitmap scans
-- (sequential scans off, so any usable index condition is used), then as a
-- sequential scan without the hook: its row count (-1 for an ERROR), whether
-- all three answered alike (the same rows, or the same ERROR), whether a plan
-- uses an index condition (or proves there is no row at all, when a bound is
-- NULL), and the ERROR when there was one.
CREATE FUNCTION regress.time_query(query text, OUT rows bigint, OUT same_as_seqscan boolean, OUT uses_index boolean,
                                   OUT error text)
LANGUAGE plpgsql AS $$
DECLARE
    by_index text;
    by_bitmap text;
    seqscan text;
    line text;
BEGIN
    uses_index := false;
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
    SELECT a.answer INTO by_index FROM regress.answer_of(regress.wrapped(query)) a;
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || query LOOP
        uses_index := uses_index OR line LIKE '%Index Cond%' OR line LIKE '%One-Time Filter: false%';
    END LOOP;
    PERFORM set_config('enable_bitmapscan', 'on', true), set_config('enable_indexscan', 'off', true),
            set_config('enable_indexonlyscan', 'off', true);
    SELECT a.answer INTO by_bitmap FROM regress.answer_of(regress.wrapped(query)) a;
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || query LOOP
        uses_index := uses_index OR line LIKE '%Index Cond%';
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'off', true),
            set_config('crid.time_predicates', 'off', true);
    SELECT a.rows, a.answer INTO rows, seqscan FROM regress.answer_of(regress.wrapped(query)) a;
    PERFORM set_config('enable_indexscan', 'on', true), set_config('enable_indexonlyscan', 'on', true),
            set_config('enable_bitmapscan', 'on', true), set_config('crid.time_predicates', 'on', true);
    same_as_seqscan := by_index = seqscan AND by_bitmap = seqscan;
    error := CASE WHEN rows < 0 THEN seqscan END;
END $$;

-- Instants every 250 ms around T0 = 2026-03-01 12:00:00, and just around T0.
CREATE TEMP TABLE instants AS
SELECT at FROM generate_series('2026-03-01 11:59:58+00'::timestamptz, '2026-03-01 12:00:02+00', '250 ms') at
UNION SELECT '2026-03-01 12:00:00+00'::timestamptz + d * interval '1 ms' FROM unnest(ARRAY[-11, -10, -9, -1, 1, 9, 10, 11]) d
UNION SELECT '2026-03-01 12:00:00.999+00';

-- UUIDv7: the first and last UUID of each millisecond and a hashed one. A
-- UUID column is range-scanned by time only where a CHECK constraint says
-- what it holds; this one holds version 7 only.
CREATE TABLE tp_uuid (id uuid PRIMARY KEY CHECK (crid_uuid_v7_check(id)));
INSERT INTO tp_uuid
SELECT DISTINCT u FROM instants, LATERAL (VALUES
    (uuid_timestamptz_to_v7(at, true)),
    (overlay(uuid_timestamptz_to_v7(at, true)::text PLACING '7fff-bfff-ffffffffffff' FROM 15)::uuid),
    (uuid_generate_v7_deterministic(at, at::text))) v(u);
-- No RFC version but 7 (uuid_extract_version gives NULL for other
-- variants): the same ids, and one of variant 110 whose leading bits lie
-- among them.
CREATE TABLE tp_uuid_version7 (id uuid PRIMARY KEY CHECK (uuid_extract_version(id) = 7));
INSERT INTO tp_uuid_version7 SELECT id FROM tp_uuid
UNION ALL VALUES (overlay(uuid_timestamptz_to_v7('2026-03-01 12:00:00.5', true)::text PLACING '7000-c000' FROM 15)::uuid);
-- Anything: the same ids and a version 1 (RFC 9562 A.1, 2022-02-22), which
-- uuid_extract_timestamp reads and uuid_v7_to_timestamptz refuses. (One id
-- the decoder refuses per table, so its ERROR names the same id whatever
-- the scan order.)
CREATE TABLE tp_uuid_any (id uuid PRIMARY KEY);
INSERT INTO tp_uuid_any SELECT id FROM tp_uuid UNION ALL VALUES ('C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid);
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
-- The same ids where a CHECK constraint rules out negative ones.
CREATE TABLE tp_snowflake_checked (id bigint PRIMARY KEY CHECK (id >= 0));
INSERT INTO tp_snowflake_checked SELECT id FROM tp_snowflake;
CREATE TABLE tp_crid_checked (id bigint PRIMARY KEY CHECK (id > 0));
INSERT INTO tp_crid_checked SELECT id FROM tp_crid;
-- And with one negative id each, which the decoders refuse.
CREATE TABLE tp_snowflake_negative (id bigint PRIMARY KEY);
INSERT INTO tp_snowflake_negative SELECT id FROM tp_snowflake UNION ALL VALUES (-1);
CREATE TABLE tp_gene_negative (id bigint PRIMARY KEY);
INSERT INTO tp_gene_negative SELECT id FROM tp_gene UNION ALL VALUES (-9223372036854775808);
CREATE TABLE tp_crid_negative (id bigint PRIMARY KEY);
INSERT INTO tp_crid_negative SELECT id FROM tp_crid UNION ALL VALUES (-1);
ANALYZE tp_uuid, tp_uuid_version7, tp_uuid_any, tp_snowflake, tp_sonyflake, tp_gene, tp_crid, tp_snowflake_checked,
        tp_crid_checked, tp_snowflake_negative, tp_gene_negative, tp_crid_negative;

-- Each decoder on each table, and whether the hook rewrites its predicates
-- (then they use the index). uuid_extract_timestamp, a name core has from
-- PostgreSQL 17 on (and reads version 7 with from 18 on), has its cases in
-- versions.sql.
CREATE TEMP TABLE families (family text, tbl text, decoder text, rewritten boolean);
INSERT INTO families VALUES
    ('uuid_v7_to_timestamptz', 'tp_uuid', 'uuid_v7_to_timestamptz(id)', true),
    ('uuid_v7_to_timestamptz, version 7 or other variants', 'tp_uuid_version7', 'uuid_v7_to_timestamptz(id)', false),
    ('uuid_v7_to_timestamptz, any uuid', 'tp_uuid_any', 'uuid_v7_to_timestamptz(id)', false),
    ('snowflake', 'tp_snowflake', 'snowflake_to_timestamptz(id)', true),
    ('snowflake sonyflake', 'tp_sonyflake', 'snowflake_to_timestamptz(id, ''sonyflake'')', true),
    ('snowflake gene', 'tp_gene', 'snowflake_to_timestamptz(id, ''epoch=2026-01-01,node=4,sequence=8,gene=3'')', true),
    ('crid', 'tp_crid', 'crid_to_timestamptz(id)', true),
    ('snowflake, CHECK (id >= 0)', 'tp_snowflake_checked', 'snowflake_to_timestamptz(id)', true),
    ('crid, CHECK (id > 0)', 'tp_crid_checked', 'crid_to_timestamptz(id)', true),
    ('snowflake, a negative id', 'tp_snowflake_negative', 'snowflake_to_timestamptz(id)', true),
    ('snowflake gene, a negative id', 'tp_gene_negative', 'snowflake_to_timestamptz(id, ''epoch=2026-01-01,node=4,sequence=8,gene=3'')', true),
    ('crid, a negative id', 'tp_crid_negative', 'crid_to_timestamptz(id)', true);

-- Bounds on and just off unit starts, inside units, and infinite; every
-- comparison both ways round; dates and timestamps, also beyond the range of
-- timestamptz (a date in the year 300000 is later than every timestamptz).
CREATE TEMP TABLE bounds AS
SELECT format('%L::timestamptz', b) AS b FROM unnest(ARRAY[
    '2026-03-01 12:00:00', '2026-03-01 12:00:00.000001', '2026-03-01 11:59:59.999999',
    '2026-03-01 12:00:00.0005', '2026-03-01 12:00:00.001', '2026-03-01 11:59:59.999',
    '2026-03-01 12:00:00.005', '2026-03-01 12:00:00.01', '2026-03-01 11:59:59.99',
    '2026-03-01 12:00:00.999999', '2026-03-01 12:00:01', '2026-03-01 11:59:58.5',
    '-infinity', 'infinity', '1969-01-01', '9999-01-01']::text[]) b
UNION ALL VALUES ($$'2026-03-01'::date$$), ($$'300000-01-01'::date$$), ($$'4713-01-01 BC'::date$$), ($$'infinity'::date$$),
    ($$'2026-03-01 12:00:00.5'::timestamp$$), ($$'294276-12-31 23:59:59'::timestamp$$), ($$'-infinity'::timestamp$$);
CREATE TEMP TABLE cases AS
SELECT family, format('SELECT id FROM %s WHERE %s %s %s', tbl, decoder, op, b) AS q
FROM families, bounds, unnest(ARRAY['<', '<=', '=', '>=', '>']) op
UNION ALL
SELECT family, format('SELECT id FROM %s WHERE %s %s %s', tbl, b, op, decoder)
FROM families, bounds, unnest(ARRAY['<', '>=', '>']) op
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

CREATE TEMP TABLE results AS SELECT c.family, q, f.rewritten, r.* FROM cases c JOIN families f USING (family), LATERAL regress.time_query(q) r;
SELECT family, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, count(*) FILTER (WHERE error IS NOT NULL) AS errors,
       sum(greatest(rows, 0)) AS rows
FROM results GROUP BY family ORDER BY family;
-- Any query whose answer differs, or that is rewritten where it should not
-- be or is not where it should, is listed here.
SELECT q, same_as_seqscan, uses_index FROM results WHERE NOT same_as_seqscan OR uses_index <> rewritten ORDER BY q;
-- The ERRORs: every query on a table with an id its decoder refuses gives
-- the decoder's ERROR, with and without the hook.
SELECT family, error, count(*) FROM results WHERE error IS NOT NULL GROUP BY family, error ORDER BY family, error;

-- Time zones: a timestamp or date converts to timestamptz in the session's
-- time zone, and one near either end of the range may not convert at all:
-- in Los Angeles, 294276-12-31 20:00 is past the last timestamptz, in Tokyo
-- the first day of 4714 BC is before the first. The comparison answers
-- them; so does the rewrite.
CREATE TEMP TABLE zoned_bounds (zone text, b text);
INSERT INTO zoned_bounds VALUES
    ('America/Los_Angeles', $$'294276-12-31 20:00:00'::timestamp$$), ('America/Los_Angeles', $$'294276-12-31'::date$$),
    ('America/Los_Angeles', $$'2026-03-01 04:00:00.5'::timestamp$$), ('America/Los_Angeles', $$'2026-03-01'::date$$),
    ('Asia/Tokyo', $$'4714-11-24 00:00:00 BC'::timestamp$$), ('Asia/Tokyo', $$'4714-11-24 BC'::date$$),
    ('Asia/Tokyo', $$'2026-03-01 21:00:00.5'::timestamp$$);
CREATE FUNCTION regress.zoned_query(zone text, query text, OUT rows bigint, OUT same_as_seqscan boolean,
                                    OUT uses_index boolean) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('timezone', zone, true);
    SELECT r.rows, r.same_as_seqscan, r.uses_index INTO rows, same_as_seqscan, uses_index FROM regress.time_query(query) r;
    PERFORM set_config('timezone', 'UTC', true);
END $$;
CREATE TEMP TABLE zoned_results AS
SELECT family, zone, q, f.rewritten, r.*
FROM families f, zoned_bounds z, unnest(ARRAY['<', '<=', '=', '>=', '>']) op,
     LATERAL format('SELECT id FROM %s WHERE %s %s %s', f.tbl, f.decoder, op, z.b) q,
     LATERAL regress.zoned_query(z.zone, q) r;
SELECT zone, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, sum(greatest(rows, 0)) AS rows
FROM zoned_results GROUP BY zone ORDER BY zone;
SELECT zone, q FROM zoned_results WHERE NOT same_as_seqscan OR uses_index <> rewritten ORDER BY zone, q;

-- Parameters: the same predicates as prepared statements with $1 of each
-- type, run as a generic plan (the bounds stay expressions of $1, computed
-- when the plan runs) and as a custom plan (the planner knows $1) with the
-- hook, by index, and as a sequential scan without it; values include ones
-- beyond timestamptz's range and NULL, and a time zone in which a timestamp
-- near the end does not convert.
CREATE FUNCTION regress.prepared_query(query text, type text, arg text, zone text,
                                       OUT rows bigint, OUT same_as_seqscan boolean, OUT uses_index boolean)
LANGUAGE plpgsql AS $$
DECLARE
    answers text[] := '{}';
    line text;
    hook boolean;
    mode text;
BEGIN
    uses_index := false;
    PERFORM set_config('timezone', zone, true);
    FOREACH hook IN ARRAY ARRAY[true, false] LOOP
        -- With the hook by index; without it, a sequential scan.
        PERFORM set_config('crid.time_predicates', hook::text, true), set_config('enable_seqscan', (NOT hook)::text, true),
                set_config('enable_indexscan', hook::text, true), set_config('enable_bitmapscan', hook::text, true);
        EXECUTE format('PREPARE regress_p(%s) AS %s', type, regress.wrapped(query));
        FOREACH mode IN ARRAY ARRAY['force_generic_plan', 'force_custom_plan'] LOOP
            PERFORM set_config('plan_cache_mode', mode, true);
            SELECT a.rows, answers || a.answer INTO rows, answers
              FROM regress.answer_of(format('EXECUTE regress_p(%s::%s)', arg, type)) a;
            IF hook AND mode = 'force_generic_plan' THEN -- planned for bitmap scans, which take any index condition
                PERFORM set_config('enable_indexscan', 'off', true);
                EXECUTE format('PREPARE regress_e(%s) AS %s', type, query);
                FOR line IN EXECUTE format('EXPLAIN (costs off) EXECUTE regress_e(%s::%s)', arg, type) LOOP
                    uses_index := uses_index OR line LIKE '%Index Cond%';
                END LOOP;
                DEALLOCATE regress_e;
                PERFORM set_config('enable_indexscan', 'on', true);
            END IF;
        END LOOP;
        DEALLOCATE regress_p;
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_indexscan', 'on', true),
            set_config('enable_bitmapscan', 'on', true), set_config('crid.time_predicates', 'on', true),
            set_config('plan_cache_mode', 'auto', true), set_config('timezone', 'UTC', true);
    -- generic and custom with the hook as without it
    same_as_seqscan := answers[1] = answers[3] AND answers[2] = answers[4];
END $$;
CREATE TEMP TABLE parameters (type text, arg text, zone text);
INSERT INTO parameters VALUES
    ('timestamptz', $$'2026-03-01 12:00:00.0005'$$, 'UTC'),
    ('timestamptz', $$'infinity'$$, 'UTC'), ('timestamptz', $$'-infinity'$$, 'UTC'), ('timestamptz', 'NULL', 'UTC'),
    ('date', $$'2026-03-01'$$, 'UTC'), ('date', $$'300000-01-01'$$, 'UTC'), ('date', $$'4713-01-01 BC'$$, 'UTC'),
    ('date', 'NULL', 'UTC'),
    ('timestamp', $$'2026-03-01 12:00:00.5'$$, 'UTC'), ('timestamp', $$'294276-12-31 20:00:00'$$, 'America/Los_Angeles'),
    ('timestamp', $$'2026-03-01 04:00:00.5'$$, 'America/Los_Angeles'), ('timestamp', 'NULL', 'UTC');
CREATE TEMP TABLE prepared_results AS
SELECT family, p.type, p.arg, q, f.rewritten, r.*
FROM families f, parameters p, unnest(ARRAY['<', '<=', '=', '>=', '>']) op,
     LATERAL format('SELECT id FROM %s WHERE %s %s $1', f.tbl, f.decoder, op) q,
     LATERAL regress.prepared_query(q, p.type, p.arg, p.zone) r;
SELECT type, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, count(*) FILTER (WHERE rows < 0) AS errors,
       sum(greatest(rows, 0)) AS rows
FROM prepared_results GROUP BY type ORDER BY type;
SELECT q, type, arg FROM prepared_results WHERE NOT same_as_seqscan OR uses_index <> rewritten ORDER BY q, type, arg;

-- Join columns: each row of another table bounds the times, the index is
-- probed per row; values beyond timestamptz's range and NULL among them.
CREATE TEMP TABLE far (d date, ts timestamp, tz timestamptz);
INSERT INTO far VALUES ('2026-03-01', '2026-03-01 12:00:00.5', '2026-03-01 12:00:00.5'),
    ('300000-01-01', '294276-12-31 20:00:00', 'infinity'), ('4713-01-01 BC', '-infinity', '-infinity'), (NULL, NULL, NULL);
ANALYZE far;
CREATE TEMP TABLE join_results AS
SELECT family, zone, q, f.rewritten, r.*
FROM families f, unnest(ARRAY['d', 'ts', 'tz']) col, unnest(ARRAY['<', '=', '>=']) op,
     unnest(ARRAY['UTC', 'America/Los_Angeles']) zone,
     LATERAL format('SELECT t.id FROM far w JOIN %s t ON %s %s w.%s', f.tbl, replace(f.decoder, '(id', '(t.id'), op, col) q,
     LATERAL regress.zoned_query(zone, q) r;
SELECT zone, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index) AS use_the_index, sum(greatest(rows, 0)) AS rows
FROM join_results GROUP BY zone ORDER BY zone;
SELECT zone, q FROM join_results WHERE NOT same_as_seqscan OR uses_index <> rewritten ORDER BY zone, q;

-- What the planner sees (index scans forced: the tables are small).
-- Snowflake and crid: the predicate becomes the id range (their ids map to
-- their time exactly), with an arm for negative ids, which only the decoder's
-- ERROR can come from, raised by the check beside the range...
SET enable_seqscan = off;
SET enable_indexonlyscan = off;
-- A plan without the line PostgreSQL 18 adds under a node that a disabled
-- scan kind left as the only way ("Disabled: true").
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || q LOOP
        CONTINUE WHEN line ~ '^\s*Disabled: true$';
        RETURN NEXT line;
    END LOOP;
END $$;
EXPLAIN (costs off) SELECT * FROM tp_snowflake
WHERE snowflake_to_timestamptz(id) BETWEEN '2026-03-01 12:00:00' AND '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_sonyflake WHERE snowflake_to_timestamptz(id, 'sonyflake') > '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_crid WHERE '2026-03-01 12:00:01' > crid_to_timestamptz(id);
-- ... and the plain range where a CHECK constraint rules negative ids out.
SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT * FROM tp_snowflake_checked
WHERE snowflake_to_timestamptz(id) BETWEEN '2026-03-01 12:00:00' AND '2026-03-01 12:00:01';
EXPLAIN (costs off) SELECT * FROM tp_crid_checked WHERE '2026-03-01 12:00:01' <= crid_to_timestamptz(id);
-- UUIDs where a CHECK constraint says the column holds version 7 only: the
-- plain range. Where it allows other variants, uuid_v7_to_timestamptz is
-- left as written (its ERROR for them must stay); uuid_extract_timestamp's
-- plans are in versions.sql.
EXPLAIN (costs off) SELECT * FROM tp_uuid
WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01';
SELECT * FROM pg_temp.plan($$SELECT * FROM tp_uuid_version7 WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00.0005'$$)
    AS "QUERY PLAN";
-- The constraint is what lets the hook rewrite: a UUID of another version
-- never gets into tp_uuid.
INSERT INTO tp_uuid VALUES (overlay(uuid_timestamptz_to_v7('2026-03-01 12:00:00.5', true)::text PLACING '4' FROM 15)::uuid);
-- Expressions and other columns stay expressions, evaluated when the plan
-- runs; a date or timestamp gets the bound of its own type.
EXPLAIN (costs off) SELECT * FROM tp_snowflake_checked WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour';
EXPLAIN (costs off) SELECT * FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= current_date;
EXPLAIN (costs off) SELECT * FROM tp_crid_checked WHERE crid_to_timestamptz(id) < '2026-03-01 12:00:00.5'::timestamp;
-- Each arm of an OR is rewritten on its own: a BitmapOr of two ranges.
SET enable_bitmapscan = on;
EXPLAIN (costs off) SELECT * FROM tp_crid_checked
WHERE crid_to_timestamptz(id) < '2026-03-01 11:59:59' OR crid_to_timestamptz(id) > '2026-03-01 12:00:01';
SET enable_bitmapscan = off;
-- Through a view, the constraint of the table beneath it counts.
CREATE VIEW tp_uuid_view AS SELECT id FROM tp_uuid;
EXPLAIN (costs off) SELECT * FROM tp_uuid_view WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:01';

-- A date beyond timestamptz's range compares as later than every time, and
-- so does its bound.
SELECT count(*) = (SELECT count(*) FROM tp_uuid) AS every_row
  FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) < '300000-01-01'::date;
SELECT count(*) AS no_row FROM tp_snowflake WHERE snowflake_to_timestamptz(id) >= '300000-01-01'::date;
SELECT snowflake_time_bound('300000-01-01'::date, '<') AS last_id, snowflake_time_bound('300000-01-01'::date, '>=') AS none,
       crid_time_bound('-infinity'::date, '>') AS first_crid;
-- Negative ids: with and without the hook, the decoder's ERROR.
SELECT count(*) FROM tp_snowflake_negative WHERE snowflake_to_timestamptz(id) >= '2026-03-01 12:00:00';
SELECT count(*) FROM tp_crid_negative WHERE crid_to_timestamptz(id) < '2026-03-01 12:00:00';
SET crid.time_predicates = off;
SELECT count(*) FROM tp_snowflake_negative WHERE snowflake_to_timestamptz(id) >= '2026-03-01 12:00:00';
SELECT count(*) FROM tp_crid_negative WHERE crid_to_timestamptz(id) < '2026-03-01 12:00:00';
RESET crid.time_predicates;
-- The checks keep every row they do not refuse, so the planner expects the
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
       AS estimate_is_the_id_range,
       regress.plan_rows($$SELECT * FROM tp_crid WHERE crid_to_timestamptz(id) < '2026-03-01 12:00:00'$$)
     = regress.plan_rows($$SELECT * FROM tp_crid WHERE id <= coalesce(crid_time_bound('2026-03-01 12:00:00', '<'), -1)$$)
       AS with_the_check;

-- A join: each row's window probes the index (the sequential scan of
-- windows is disabled: pg_temp.plan).
CREATE TEMP TABLE windows (a timestamptz, z timestamptz);
INSERT INTO windows VALUES ('2026-03-01 11:59:59.5', '2026-03-01 12:00:00'), ('2026-03-01 12:00:00.001', '2026-03-01 12:00:00.011');
SELECT * FROM pg_temp.plan($$SELECT t.id FROM windows w JOIN tp_snowflake_checked t
    ON snowflake_to_timestamptz(t.id) >= w.a AND snowflake_to_timestamptz(t.id) < w.z$$) AS "QUERY PLAN";
SELECT * FROM regress.time_query($$SELECT t.id FROM windows w JOIN tp_snowflake t
    ON snowflake_to_timestamptz(t.id) >= w.a AND snowflake_to_timestamptz(t.id) < w.z$$);
SELECT * FROM regress.time_query($$SELECT t.id FROM windows w JOIN tp_uuid t
    ON uuid_v7_to_timestamptz(t.id) >= w.a AND uuid_v7_to_timestamptz(t.id) < w.z$$);

-- Generic plans: parameters stay parameters, the index is still used.
PREPARE by_time(timestamptz, timestamptz) AS
    SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= $1 AND uuid_v7_to_timestamptz(id) < $2;
PREPARE by_snowflake_time(timestamptz) AS SELECT count(*) FROM tp_snowflake_checked WHERE snowflake_to_timestamptz(id) > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (costs off) EXECUTE by_time('2026-03-01 12:00:00', '2026-03-01 12:00:01');
EXECUTE by_time('2026-03-01 12:00:00', '2026-03-01 12:00:01');
EXECUTE by_time('2026-03-01 11:59:59.999', '2026-03-01 12:00:00.001');
EXPLAIN (costs off) EXECUTE by_snowflake_time('2026-03-01 12:00:01');
EXECUTE by_snowflake_time('2026-03-01 12:00:01');
-- A cached plan keeps the rewrite it was planned with: turning the hook off
-- (or on) plans it again.
SET crid.time_predicates = off;
SELECT * FROM pg_temp.plan($$EXECUTE by_snowflake_time('2026-03-01 12:00:01')$$) AS "QUERY PLAN";
EXECUTE by_snowflake_time('2026-03-01 12:00:01');
RESET crid.time_predicates;
EXPLAIN (costs off) EXECUTE by_snowflake_time('2026-03-01 12:00:01');
-- And a generic plan with a date parameter beyond timestamptz's range
-- answers as the comparison does.
PREPARE by_date(date) AS SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id) < $1;
EXPLAIN (costs off) EXECUTE by_date('300000-01-01');
EXECUTE by_date('300000-01-01');
RESET plan_cache_mode;
SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:01';
SELECT count(*) FROM tp_uuid WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 11:59:59.999' AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00:00.001';
SELECT count(*) FROM tp_snowflake WHERE snowflake_to_timestamptz(id) > '2026-03-01 12:00:01';

-- Partitions by id range: those outside the time range are pruned, at plan
-- time for constants of IMMUTABLE decoders, when the plan starts otherwise
-- (a partition that may hold negative ids is kept unless a constraint rules
-- them out).
CREATE TABLE tp_parts (id uuid PRIMARY KEY CHECK (crid_uuid_v7_check(id))) PARTITION BY RANGE (id);
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
CREATE TABLE tp_sf_parts (id bigint PRIMARY KEY CHECK (id >= 0)) PARTITION BY RANGE (id);
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
-- in the select list, decoders of expressions, sign-bit, non-constant and
-- too wide layouts, NULL comparands, UUID columns no constraint describes,
-- other operators.
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
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id, 'epoch=2020-01-01,unit=1s,node=0,sequence=13') > '2026-03-01 12:00:00'$$),
    ($$SELECT * FROM tp_snowflake WHERE snowflake_to_timestamptz(id) < NULL::timestamptz$$),
    ($$SELECT * FROM tp_uuid_any WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:00:00'$$),
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

-- A version 1 UUID keeps its time in other bits: where no constraint rules
-- it out, the hook leaves uuid_extract_timestamp alone, and the row is found
-- with the hook as without it.
SELECT count(*) AS with_hook FROM tp_uuid_any WHERE uuid_extract_timestamp(id) < '2023-01-01';
SET crid.time_predicates = off;
SELECT count(*) AS without_hook FROM tp_uuid_any WHERE uuid_extract_timestamp(id) < '2023-01-01';
RESET crid.time_predicates;

DROP VIEW tp_uuid_view;
DROP TABLE tp_parts, tp_sf_parts;
