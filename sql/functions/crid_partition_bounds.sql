-- The partitions of a table and their bounds, read from the catalog: from_id
-- and to_id are the literals of FOR VALUES FROM (...) TO (...), NULL for
-- MINVALUE and MAXVALUE; the default partition has is_default and no bounds.
-- The partition functions compare these with the bounds they would give a
-- partition, so a partition made before (by them or by hand, under any name)
-- is never made again.
CREATE FUNCTION crid_partition_bounds(parent regclass, OUT partition_name regclass, OUT from_id text,
                                      OUT to_id text, OUT is_default boolean)
    RETURNS SETOF record
    LANGUAGE sql STABLE STRICT SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
SELECT c.oid::regclass,
       CASE WHEN b.m[1] <> 'MINVALUE' THEN btrim(b.m[1], '''') END,
       CASE WHEN b.m[2] <> 'MAXVALUE' THEN btrim(b.m[2], '''') END,
       b.expr = 'DEFAULT'
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
 CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS expr) e
 CROSS JOIN LATERAL (SELECT e.expr, regexp_match(e.expr, '^FOR VALUES FROM \((.*)\) TO \((.*)\)$') AS m) b
 WHERE i.inhparent = parent
 ORDER BY b.expr = 'DEFAULT', c.oid::regclass::text
$$;
