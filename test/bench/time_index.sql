-- crid_bench_queries(labels, queries, settings, rounds): the median time of
-- each query, run interleaved round by round (in an order that rotates
-- every round); settings[i] is a
-- "name=value[,name=value]" list applied before queries[i] (and
-- crid.time_predicates and max_parallel_workers_per_gather are back to
-- their session values after it). speedup = the first query's
-- median / this one's. A table printer: asserts nothing.
CREATE OR REPLACE FUNCTION pg_temp.crid_bench_queries(labels text[], queries text[], settings text[], rounds int)
RETURNS TABLE (query text, result bigint, median_ms numeric, speedup numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    r int;
    i int;
    j int;
    s text;
    got bigint;
    default_workers text := current_setting('max_parallel_workers_per_gather');
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS crid_bench_runs (i int, ms numeric, n bigint);
    TRUNCATE crid_bench_runs;
    FOR r IN 0 .. rounds LOOP -- round 0 warms the caches and is not counted
        FOR j IN 0 .. cardinality(queries) - 1 LOOP
            i := (j + r) % cardinality(queries) + 1; -- each round starts elsewhere: no query always follows the seq scan
            FOREACH s IN ARRAY string_to_array(settings[i], ',') LOOP
                PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true);
            END LOOP;
            t0 := clock_timestamp();
            EXECUTE queries[i] INTO got;
            IF r > 0 THEN
                INSERT INTO crid_bench_runs VALUES (i, extract(epoch FROM clock_timestamp() - t0) * 1000, got);
            END IF;
            PERFORM set_config('crid.time_predicates', 'on', true),
                    set_config('max_parallel_workers_per_gather', default_workers, true);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH med AS (SELECT b.i, percentile_cont(0.5) WITHIN GROUP (ORDER BY b.ms)::numeric AS ms, max(b.n) AS n
                 FROM crid_bench_runs b GROUP BY b.i)
    SELECT labels[m.i], m.n, round(m.ms, 2), round((SELECT ms FROM med WHERE med.i = 1) / m.ms, 1)
    FROM med m ORDER BY m.i;
END $$;
