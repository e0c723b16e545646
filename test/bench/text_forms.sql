-- crid_bench_table_per_row(exprs, tbl, rounds): the median cost per row of
-- SELECT count(<expr>) FROM <tbl> for each expression, interleaved round by
-- round. The inputs come from a table, not constants, so nothing is folded
-- at plan time. The first expression is the baseline of "vs_first"; the
-- floor is count(*) of the same table. A table printer: asserts nothing.
CREATE OR REPLACE FUNCTION pg_temp.crid_bench_table_per_row(exprs text[], tbl text, rounds int)
RETURNS TABLE (expression text, ns_per_row numeric, vs_first numeric, minus_floor_ns numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    r int;
    e text;
    n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s', tbl) INTO n;
    CREATE TEMP TABLE IF NOT EXISTS crid_bench_samples (expr text, ns numeric);
    TRUNCATE crid_bench_samples;
    FOREACH e IN ARRAY exprs || '*'::text LOOP -- warm-up, and every expression must run
        EXECUTE format('SELECT count(%s) FROM %s', e, tbl);
    END LOOP;
    FOR r IN 1 .. rounds LOOP
        FOREACH e IN ARRAY exprs || '*'::text LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(%s) FROM %s', e, tbl);
            INSERT INTO crid_bench_samples VALUES (e, extract(epoch FROM clock_timestamp() - t0) * 1e9 / n);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH med AS (
        SELECT s.expr, percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ns)::numeric AS ns
        FROM crid_bench_samples s GROUP BY s.expr)
    SELECT m.expr, round(m.ns, 1), round(m.ns / (SELECT ns FROM med WHERE expr = exprs[1]), 2),
           round(m.ns - (SELECT ns FROM med WHERE expr = '*'), 1)
    FROM med m JOIN unnest(exprs || '*'::text) WITH ORDINALITY u(x, i) ON u.x = m.expr
    ORDER BY u.i;
END $$;
