-- What differs between the PostgreSQL majors crid supports (15, 17, 18),
-- written so that this file's output is the same on each: every query
-- compares what happens with what must happen on the major it runs on.
--
-- Core's names win. crid gives PostgreSQL 15 four functions of later
-- majors: uuid_extract_timestamp(uuid) and uuid_extract_version(uuid), which
-- core has from 17 on, and uuidv7() and uuidv7(interval), from 18 on. Where
-- core has one, crid has none (its upgrade script drops its own), so every
-- call reaches core's, whatever the search_path; crid's own names are the
-- same everywhere. 17's uuid_extract_timestamp reads version 1 UUIDs only
-- (NULL for version 7); crid's and 18's read both.
--
-- Runs after time_predicates, whose tables and regress.time_query it uses.
SET timezone = 'UTC';
CREATE FUNCTION regress.major() RETURNS int LANGUAGE sql STABLE
RETURN current_setting('server_version_num')::int / 10000;
-- Whether uuid_extract_timestamp reads version 7 UUIDs on this major.
CREATE FUNCTION regress.extract_reads_v7() RETURNS boolean LANGUAGE sql STABLE
RETURN regress.major() <> 17;

-- Which function each name reaches, and whether crid has one of its own.
CREATE TEMP TABLE shared_names (call text, args oidvector, core_from int);
INSERT INTO shared_names VALUES
    ('uuid_extract_timestamp(uuid)', '2950', 17), ('uuid_extract_version(uuid)', '2950', 17),
    ('uuidv7()', '', 18), ('uuidv7(interval)', '1186', 18);
CREATE FUNCTION regress.reached(call text) RETURNS text LANGUAGE sql STABLE
RETURN (SELECT CASE WHEN p.pronamespace = 'pg_catalog'::regnamespace THEN 'core' ELSE 'crid' END
          FROM pg_proc p WHERE p.oid = call::regprocedure);
CREATE FUNCTION regress.crid_has(call text, args oidvector) RETURNS boolean LANGUAGE sql STABLE
RETURN EXISTS (SELECT FROM pg_proc p
                 JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                 JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
                WHERE p.proname = split_part(call, '(', 1) AND p.proargtypes = args);
SELECT call, regress.reached(call) = CASE WHEN regress.major() >= core_from THEN 'core' ELSE 'crid' END AS reaches_core_where_core_has_it,
       regress.crid_has(call, args) = (regress.major() < core_from) AS crid_has_one_where_core_has_none
FROM shared_names ORDER BY call;
-- Also with crid's schema searched before pg_catalog.
SET search_path = public, pg_catalog;
SELECT call, regress.reached(call) = CASE WHEN regress.major() >= core_from THEN 'core' ELSE 'crid' END AS reaches_core_where_core_has_it
FROM shared_names ORDER BY call;
RESET search_path;

-- What they answer. RFC 9562 appendix A.6 (v7) and A.1 (v1), both
-- 2022-02-22 19:22:22 UTC; a version 4; a UUID of another variant.
SELECT uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') IS NOT DISTINCT FROM
       CASE WHEN regress.extract_reads_v7() THEN '2022-02-22 19:22:22+00'::timestamptz END AS v7_time_as_expected;
SELECT uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_time,
       uuid_extract_timestamp('f47ac10b-58cc-4372-a567-0e02b2c3d479') IS NULL AS v4_has_no_time,
       uuid_extract_timestamp('017F22E2-79B0-7CC3-18C4-DC0C0C07398F') IS NULL AS other_variant_has_no_time,
       uuid_extract_timestamp(NULL) IS NULL AS strict;
SELECT uuid_extract_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7,
       uuid_extract_version('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1,
       uuid_extract_version('f47ac10b-58cc-4372-a567-0e02b2c3d479') AS v4,
       uuid_extract_version('017F22E2-79B0-7CC3-18C4-DC0C0C07398F') IS NULL AS other_variant_null,
       uuid_extract_version(NULL) IS NULL AS strict;
-- uuidv7(): version 7, the RFC variant, the current time, increasing within
-- a session (crid's orders them across sessions too, core's per session).
SELECT uuid_extract_version(u) AS version, substr(u::text, 20, 1) IN ('8', '9', 'a', 'b') AS rfc_variant,
       abs(extract(epoch FROM uuid_v7_to_timestamptz(u) - clock_timestamp())) < 5 AS now_ish
FROM (SELECT uuidv7() AS u) s;
SELECT count(*) AS ids, count(*) FILTER (WHERE prev >= u) AS out_of_order
FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev FROM (SELECT n, uuidv7() AS u FROM generate_series(1, 10000) n) g) s;
SELECT abs(extract(epoch FROM uuid_v7_to_timestamptz(uuidv7(interval '-1 day')) - (clock_timestamp() - interval '1 day'))) < 5 AS shifted_back,
       abs(extract(epoch FROM uuid_v7_to_timestamptz(uuidv7(interval '1 month')) - (clock_timestamp() + interval '1 month'))) < 5 AS shifted_forward,
       uuidv7(NULL) IS NULL AS strict;

-- The planner hook takes uuid_extract_timestamp for an id range where it
-- reads version 7 (crid's on 15, core's on 18), on the tables whose CHECK
-- constraint allows one (time_predicates.sql); on 17, where it does not,
-- never. Every answer is the same as a sequential scan's without the hook.
CREATE TEMP TABLE shared_cases AS
SELECT t.tbl, format('SELECT id FROM %s WHERE uuid_extract_timestamp(id) %s %s', t.tbl, op, b) AS q,
       regress.extract_reads_v7() AND t.rangeable AS rewritten
FROM (VALUES ('tp_uuid', true), ('tp_uuid_version7', true), ('tp_uuid_any', false)) t(tbl, rangeable),
     unnest(ARRAY['<', '<=', '=', '>=', '>']) op,
     unnest(ARRAY[$$'2026-03-01 12:00:00'::timestamptz$$, $$'2026-03-01 12:00:00.0005'::timestamptz$$,
                  $$'2026-03-01 11:59:59.999'::timestamptz$$, $$'infinity'::timestamptz$$, $$'-infinity'::timestamptz$$,
                  $$'2026-03-01'::date$$, $$'300000-01-01'::date$$, $$'2026-03-01 12:00:00.5'::timestamp$$]) b;
CREATE TEMP TABLE shared_results AS SELECT c.*, r.* FROM shared_cases c, LATERAL regress.time_query(c.q) r;
SELECT tbl, count(*) AS queries, count(*) FILTER (WHERE same_as_seqscan) AS same_as_seqscan,
       count(*) FILTER (WHERE uses_index = rewritten) AS rewritten_as_expected
FROM shared_results GROUP BY tbl ORDER BY tbl;
SELECT q, same_as_seqscan, uses_index FROM shared_results WHERE NOT same_as_seqscan OR uses_index <> rewritten ORDER BY q;
-- The plans: where the CHECK constraint says version 7 only, the range
-- alone; where it allows other variants, the predicate beside the range.
CREATE FUNCTION regress.plan_has(query text, pattern text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (costs off) ' || query LOOP
        IF line LIKE pattern THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;
SELECT regress.plan_has($$SELECT * FROM tp_uuid WHERE uuid_extract_timestamp(id) = '2026-03-01 12:00:00.0005'$$,
                        '%Index Cond: ((id >= %') = regress.extract_reads_v7() AS range,
       NOT regress.plan_has($$SELECT * FROM tp_uuid WHERE uuid_extract_timestamp(id) = '2026-03-01 12:00:00.0005'$$,
                            '%Filter:%uuid_extract_timestamp%') = regress.extract_reads_v7() AS alone;
SELECT regress.plan_has($$SELECT * FROM tp_uuid_version7 WHERE uuid_extract_timestamp(id) >= '2026-03-01 12:00:00.0005'$$,
                        '%Index Cond: (id >= %') = regress.extract_reads_v7() AS range,
       regress.plan_has($$SELECT * FROM tp_uuid_version7 WHERE uuid_extract_timestamp(id) >= '2026-03-01 12:00:00.0005'$$,
                        '%Filter: (uuid_extract_timestamp(id) >= %') AS predicate_beside;

-- Waits: from 17 on each of crid's has its own name in pg_stat_activity
-- (the block reserver's between rounds: CridReserverIdle, or
-- CridReserverPause after a failure); on 15 all of them are "Extension".
-- Polled: the reserver may be at work.
CREATE FUNCTION regress.reserver_wait() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    seen text;
BEGIN
    FOR i IN 1 .. 300 LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT wait_event INTO seen FROM pg_stat_activity
         WHERE backend_type = 'crid block reserver' AND wait_event_type = 'Extension';
        IF seen IS NOT NULL THEN
            RETURN seen;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN 'no wait seen';
END $$;
SELECT CASE WHEN regress.major() >= 17 THEN regress.reserver_wait() IN ('CridReserverIdle', 'CridReserverPause')
            ELSE regress.reserver_wait() = 'Extension' END AS reserver_wait_as_expected;
-- pg_wait_events (17 on) lists every one of them.
CREATE FUNCTION regress.crid_wait_events() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    names text;
BEGIN
    IF regress.major() < 17 THEN
        RETURN 'none before 17';
    END IF;
    EXECUTE $q$SELECT string_agg(name, ' ' ORDER BY name) FROM pg_wait_events WHERE type = 'Extension' AND name LIKE 'Crid%'$q$
       INTO names;
    RETURN names;
END $$;
SELECT regress.crid_wait_events() = CASE WHEN regress.major() >= 17
    THEN 'CridBlock CridHighWaterKeeper CridRegistry CridReserverIdle CridReserverPause CridSnowflakeClock'
    ELSE 'none before 17' END AS wait_events_as_expected;

-- 18's magic block names the module and its version.
CREATE FUNCTION regress.loaded_crid() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v text;
BEGIN
    IF regress.major() < 18 THEN
        RETURN 'not named before 18';
    END IF;
    EXECUTE $q$SELECT version FROM pg_get_loaded_modules() WHERE module_name = 'crid'$q$ INTO v;
    RETURN v;
END $$;
SELECT regress.loaded_crid() = CASE WHEN regress.major() >= 18
    THEN (SELECT extversion FROM pg_extension WHERE extname = 'crid') ELSE 'not named before 18' END AS module_named;

-- RESET of a setting whose check hook hands back memory: from 16 on
-- PostgreSQL frees it from its own context (PostgreSQL 17 failed here when
-- crid allocated it with malloc).
BEGIN;
SET LOCAL crid.node_id = 3;
SET LOCAL crid.node_id = 4;
COMMIT;
SET crid.node_id = 5;
RESET crid.node_id;
SHOW crid.node_id;
