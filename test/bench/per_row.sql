-- crid_bench_per_row(exprs, n, rounds): the median cost per row of
-- SELECT count(<expr>) FROM generate_series(1, n) for each expression, all
-- measured in one run and interleaved round by round, so a noisy neighbour
-- slows every candidate alike. The first expression is the baseline of the
-- "vs" column. A table printer, not a test: nothing here asserts a time.
CREATE OR REPLACE FUNCTION pg_temp.crid_bench_per_row(exprs text[], n int, rounds int)
RETURNS TABLE (expression text, ns_per_row numeric, vs_first numeric, minus_floor_ns numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    r int;
    e text;
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS crid_bench_samples (expr text, ns numeric);
    TRUNCATE crid_bench_samples;
    FOREACH e IN ARRAY exprs LOOP  -- warm-up: caches, first-call setup
        EXECUTE format('SELECT count(%s) FROM generate_series(1, %s)', e, n / 10);
    END LOOP;
    FOR r IN 1 .. rounds LOOP
        FOREACH e IN ARRAY exprs LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(%s) FROM generate_series(1, %s)', e, n);
            INSERT INTO crid_bench_samples
                VALUES (e, extract(epoch FROM clock_timestamp() - t0) * 1e9 / n);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH med AS (
        SELECT s.expr, percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ns)::numeric AS ns
        FROM crid_bench_samples s GROUP BY s.expr),
    floor_cost AS (SELECT ns FROM med WHERE expr = 'random()')
    SELECT m.expr, round(m.ns, 1),
           round(m.ns / (SELECT ns FROM med WHERE expr = exprs[1]), 2),
           round(m.ns - coalesce((SELECT ns FROM floor_cost), 0), 1)
    FROM med m JOIN unnest(exprs) WITH ORDINALITY u(x, i) ON u.x = m.expr
    ORDER BY u.i;
END $$;
