-- The B-tree operators of each key column of a table's primary key, in key
-- order, as its index orders them: strategy < (lt), = (eq) and > (gt) of the
-- index's operator class, found by OID and written OPERATOR(schema.name).
-- SQL that crid composes to compare keys (crid_backfill's batches, the
-- expression of a snowflake backfill plan) runs with its caller's
-- search_path, where a schema others may create in could offer another
-- operator of the same name that matches a key's type more closely (one for
-- a domain, say): these names reach only the operators of the key's index.
CREATE FUNCTION crid_key_operators(rel regclass, OUT ord integer, OUT key_column name, OUT lt text, OUT eq text,
                                   OUT gt text)
    RETURNS SETOF record
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
SELECT k.ord::integer, a.attname,
       pg_catalog.max(CASE WHEN m.amopstrategy OPERATOR(pg_catalog.=) 1 THEN op.name END),
       pg_catalog.max(CASE WHEN m.amopstrategy OPERATOR(pg_catalog.=) 3 THEN op.name END),
       pg_catalog.max(CASE WHEN m.amopstrategy OPERATOR(pg_catalog.=) 5 THEN op.name END)
  FROM pg_catalog.pg_index i
 CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(i.indkey::pg_catalog.int2[]),
                               pg_catalog.unnest(i.indclass::pg_catalog.oid[])) WITH ORDINALITY k(attnum, opclass, ord)
  JOIN pg_catalog.pg_attribute a
    ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid AND a.attnum OPERATOR(pg_catalog.=) k.attnum
  JOIN pg_catalog.pg_opclass c ON c.oid OPERATOR(pg_catalog.=) k.opclass
  JOIN pg_catalog.pg_amop m
    ON m.amopfamily OPERATOR(pg_catalog.=) c.opcfamily AND m.amopmethod OPERATOR(pg_catalog.=) c.opcmethod
   AND m.amoplefttype OPERATOR(pg_catalog.=) c.opcintype AND m.amoprighttype OPERATOR(pg_catalog.=) c.opcintype
   AND m.amopstrategy OPERATOR(pg_catalog.=) ANY (ARRAY[1, 3, 5]::pg_catalog.int2[])
 CROSS JOIN LATERAL (SELECT pg_catalog.format('OPERATOR(%I.%s)', n.nspname, o.oprname) AS name
                       FROM pg_catalog.pg_operator o
                       JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) o.oprnamespace
                      WHERE o.oid OPERATOR(pg_catalog.=) m.amopopr) op
 WHERE i.indrelid OPERATOR(pg_catalog.=) rel AND i.indisprimary
   AND k.ord OPERATOR(pg_catalog.<=) i.indnkeyatts
 GROUP BY k.ord, a.attname
 ORDER BY k.ord
$$;
COMMENT ON FUNCTION crid_key_operators(regclass) IS
    'the <, = and > operators of each primary key column, from its index''s operator class, schema-qualified';
