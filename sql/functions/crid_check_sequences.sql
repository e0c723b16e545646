-- crid_check()'s rows about converted sequences (docs/sequences.md): one
-- whose guard was lifted (MAXVALUE above its last plain value, or CYCLE),
-- so that a path crid's planner hook cannot see (COPY into an IDENTITY
-- column) would hand out plain values again; one whose column is no longer
-- bigint. The fix converts it again, which records where it stands.
CREATE FUNCTION @extschema@.crid_check_sequences(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE sql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
SELECT 'sequence_unguarded', s.seq::text,
       pg_catalog.format('converted sequence %s has MAXVALUE %s%s, above its last plain value %s: COPY into its IDENTITY '
                         'column and other paths crid cannot see hand out plain values that other servers hand out too',
                         s.seq, p.seqmax, CASE WHEN p.seqcycle THEN ' and CYCLE' ELSE '' END, s.plain_last),
       pg_catalog.format('SELECT %s.crid_sequence_revert(%L); SELECT %s.crid_sequence_convert(%L, %L);',
                         e.extnamespace::regnamespace, s.seq, e.extnamespace::regnamespace, s.seq, s.family)
  FROM @extschema@.crid_sequences s
  JOIN pg_catalog.pg_sequence p ON p.seqrelid OPERATOR(pg_catalog.=) s.seq
  CROSS JOIN pg_catalog.pg_extension e
 WHERE e.extname OPERATOR(pg_catalog.=) 'crid'
   AND (p.seqmax OPERATOR(pg_catalog.<>) s.plain_last OR p.seqcycle)
UNION ALL
SELECT 'sequence_column_type', s.seq::text,
       pg_catalog.format('converted sequence %s fills %s.%I, which is %s: ids of the %s family need bigint',
                         s.seq, a.attrelid::regclass, a.attname, a.atttypid::regtype, s.family),
       pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint;', a.attrelid::regclass, a.attname)
  FROM @extschema@.crid_sequences s
  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
                             AND d.objid OPERATOR(pg_catalog.=) s.seq
                             AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
                             AND d.refobjsubid OPERATOR(pg_catalog.>) 0
                             AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::"char"[])
  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) d.refobjid
                                AND a.attnum OPERATOR(pg_catalog.=) d.refobjsubid
 WHERE a.atttypid OPERATOR(pg_catalog.<>) 'pg_catalog.int8'::regtype
$$;
