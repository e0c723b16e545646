-- Per-row cost tables of the benchmarks. A table printer, not a test:
-- nothing here asserts a time.
--
-- crid_bench_source_per_row(exprs, source, rounds, floor_expr): the median
-- cost per row of SELECT count(<expr>) FROM <source> for each expression, all
-- measured in one run and interleaved round by round, so a noisy neighbour
-- slows every candidate alike. The first expression is the baseline of the
-- "vs_first" column; floor_expr (added when missing) is the floor that
-- "minus_floor_ns" subtracts. `source` is a set-returning call such as
-- generate_series(1, n), or a table, whose values cannot be folded at plan
-- time.
CREATE OR REPLACE FUNCTION pg_temp.crid_bench_source_per_row(exprs text[], source text, rounds int, floor_expr text)
RETURNS TABLE (expression text, ns_per_row numeric, vs_first numeric, minus_floor_ns numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    r int;
    e text;
    n bigint;
    all_exprs text[] := CASE WHEN floor_expr = ANY (exprs) THEN exprs ELSE exprs || floor_expr END;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s', source) INTO n;
    CREATE TEMP TABLE IF NOT EXISTS crid_bench_samples (expr text, ns numeric);
    TRUNCATE crid_bench_samples;
    FOREACH e IN ARRAY all_exprs LOOP -- warm-up: caches, first-call setup, and every expression must run
        EXECUTE format('SELECT count(%s) FROM %s', e, source);
    END LOOP;
    FOR r IN 1 .. rounds LOOP
        FOREACH e IN ARRAY all_exprs LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(%s) FROM %s', e, source);
            INSERT INTO crid_bench_samples VALUES (e, extract(epoch FROM clock_timestamp() - t0) * 1e9 / n);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH med AS (
        SELECT s.expr, percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ns)::numeric AS ns
        FROM crid_bench_samples s GROUP BY s.expr)
    SELECT m.expr, round(m.ns, 1),
           round(m.ns / (SELECT ns FROM med WHERE expr = exprs[1]), 2),
           round(m.ns - (SELECT ns FROM med WHERE expr = floor_expr), 1)
    FROM med m JOIN unnest(all_exprs) WITH ORDINALITY u(x, i) ON u.x = m.expr
    ORDER BY u.i;
END $$;

-- crid_bench_per_row(exprs, n, rounds): the same over generate_series(1, n),
-- with random() as the floor (the loop without a generator).
CREATE OR REPLACE FUNCTION pg_temp.crid_bench_per_row(exprs text[], n int, rounds int)
RETURNS TABLE (expression text, ns_per_row numeric, vs_first numeric, minus_floor_ns numeric)
LANGUAGE sql AS $$
    SELECT * FROM pg_temp.crid_bench_source_per_row(exprs, format('generate_series(1, %s)', n), rounds, 'random()')
$$;
