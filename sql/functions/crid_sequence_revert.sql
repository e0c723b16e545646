-- Turns a converted sequence (or the one a table's column owns) back into a plain one whose next value is
-- above every value it handed out on this server (a fresh id of its family,
-- plus one), and the column DEFAULT conversion set back to nextval().
-- Returns that next value. Runs with the caller's rights, as
-- crid_sequence_convert does.
CREATE FUNCTION @extschema@.crid_sequence_revert(sequence regclass) RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    seq regclass := sequence;
    named regclass := sequence;
    family text;
    next_value bigint;
    owner_table regclass;
    owner_column name;
    column_default text;
BEGIN
    IF seq IS NULL THEN
        RAISE EXCEPTION 'crid_sequence_revert: the sequence must not be NULL' USING ERRCODE = '22004';
    END IF;
    -- A table: the converted sequence a column of it owns.
    SELECT s.seq, s.family INTO seq, family FROM @extschema@.crid_sequences s
     WHERE s.seq OPERATOR(pg_catalog.=) seq
        OR s.seq OPERATOR(pg_catalog.=) ANY (
           SELECT d.objid FROM pg_catalog.pg_depend d
            WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
              AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
              AND d.refobjid OPERATOR(pg_catalog.=) seq AND d.refobjsubid OPERATOR(pg_catalog.>) 0
              AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::"char"[]))
     ORDER BY s.seq OPERATOR(pg_catalog.=) seq DESC LIMIT 1;
    IF family IS NULL THEN
        RAISE EXCEPTION 'crid_sequence_revert: % is not a converted sequence, nor owns one', named
              USING ERRCODE = '55000', HINT = 'crid_sequence_convert() converts a sequence.';
    END IF;
    next_value := CASE family WHEN 'crid' THEN @extschema@.crid_next() ELSE @extschema@.snowflake_next() END
                  OPERATOR(pg_catalog.+) 1;
    PERFORM @extschema@.crid_sequences_forget(seq);
    EXECUTE pg_catalog.format('ALTER SEQUENCE %s AS bigint NO MAXVALUE RESTART WITH %s', seq, next_value);
    SELECT d.refobjid::regclass, a.attname INTO owner_table, owner_column
      FROM pg_catalog.pg_depend d
      JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) d.refobjid
                                    AND a.attnum OPERATOR(pg_catalog.=) d.refobjsubid
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
       AND d.objid OPERATOR(pg_catalog.=) seq
       AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
       AND d.refobjsubid OPERATOR(pg_catalog.>) 0
       AND d.deptype OPERATOR(pg_catalog.=) 'a';
    IF owner_table IS NOT NULL THEN
        SELECT pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) INTO column_default FROM pg_catalog.pg_attrdef ad
         WHERE ad.adrelid OPERATOR(pg_catalog.=) owner_table
           AND ad.adnum OPERATOR(pg_catalog.=) (SELECT a.attnum FROM pg_catalog.pg_attribute a
                                                 WHERE a.attrelid OPERATOR(pg_catalog.=) owner_table
                                                   AND a.attname OPERATOR(pg_catalog.=) owner_column);
        IF column_default OPERATOR(pg_catalog.=)
           pg_catalog.format('%s.crid_sequence_nextval(%L::regclass)', '@extschema@', seq) THEN
            EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT nextval(%L::regclass)',
                                      owner_table, owner_column, seq);
        END IF;
    END IF;
    RETURN next_value;
END
$$;
