-- Converts a sequence (or the one sequence a table's serial or IDENTITY
-- column owns) so that every value it hands out on this server is an id of
-- `family` ('snowflake' on crid.node_id, or 'crid') that no other server or
-- session is handed, above every value it gave before (docs/sequences.md).
-- No row is rewritten. The paths crid's planner hook serves call crid's
-- functions; the column DEFAULT is changed to one; the sequence itself is
-- left at MAXVALUE = its last value, so what the hook cannot see fails
-- naming the sequence instead of handing out a plain value. Runs with the
-- caller's rights: ALTER SEQUENCE and ALTER TABLE check that the caller
-- owns both, and crid_sequences' policy that it owns the sequence.
CREATE FUNCTION @extschema@.crid_sequence_convert(sequence regclass, family text DEFAULT 'snowflake')
    RETURNS regclass
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    seq regclass := sequence;
    kind "char";
    persistence "char";
    owned text[];
    sq pg_catalog.pg_sequence;
    owner_table regclass;
    owner_column name;
    column_type regtype;
    identity "char";
    column_default text;
    plain_last bigint;
    called boolean;
    first_id bigint;
    room bigint;
BEGIN
    IF seq IS NULL THEN
        RAISE EXCEPTION 'crid_sequence_convert: the sequence must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF family IS NULL OR NOT family OPERATOR(pg_catalog.=) ANY (ARRAY['snowflake', 'crid']::text[]) THEN
        RAISE EXCEPTION 'crid_sequence_convert: family % is not one a sequence can hand out',
                        pg_catalog.quote_nullable(family)
              USING ERRCODE = '22023', HINT = 'Use ''snowflake'' (ids of crid.node_id) or ''crid''; UUIDv7 ids do not fit a sequence.';
    END IF;
    SELECT c.relkind, c.relpersistence INTO kind, persistence FROM pg_catalog.pg_class c
     WHERE c.oid OPERATOR(pg_catalog.=) seq;
    -- A table: the one sequence a column of it owns.
    IF kind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::"char"[]) THEN
        SELECT pg_catalog.array_agg(d.objid::regclass::text ORDER BY d.refobjsubid) INTO owned
          FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
           AND d.refobjid OPERATOR(pg_catalog.=) seq AND d.refobjsubid OPERATOR(pg_catalog.>) 0
           AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::"char"[])
           AND c.relkind OPERATOR(pg_catalog.=) 'S';
        IF owned IS NULL THEN
            RAISE EXCEPTION 'crid_sequence_convert: no column of table % owns a sequence', seq
                  USING ERRCODE = '55000',
                        HINT = 'Name the sequence, after ALTER SEQUENCE ... OWNED BY ' || seq::text || '.column.';
        END IF;
        IF pg_catalog.cardinality(owned) OPERATOR(pg_catalog.>) 1 THEN
            RAISE EXCEPTION 'crid_sequence_convert: table % owns % sequences', seq, pg_catalog.cardinality(owned)
                  USING ERRCODE = '22023',
                        DETAIL = 'They are ' || pg_catalog.array_to_string(owned, ', ') || '.',
                        HINT = 'Convert each by its name.';
        END IF;
        seq := owned[1]::regclass;
        SELECT c.relkind, c.relpersistence INTO kind, persistence FROM pg_catalog.pg_class c
         WHERE c.oid OPERATOR(pg_catalog.=) seq;
    END IF;
    IF kind IS DISTINCT FROM 'S' THEN
        RAISE EXCEPTION 'crid_sequence_convert: % is not a sequence', seq
              USING ERRCODE = '42809', HINT = 'Name a sequence, or a table one column of which owns a sequence.';
    END IF;
    IF persistence OPERATOR(pg_catalog.=) 't' THEN
        RAISE EXCEPTION 'crid_sequence_convert: % is a temporary sequence', seq
              USING ERRCODE = '0A000',
                    DETAIL = 'A conversion is recorded in crid_sequences, which outlives the session.';
    END IF;
    IF EXISTS (SELECT FROM @extschema@.crid_sequences s WHERE s.seq OPERATOR(pg_catalog.=) seq) THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % is already converted', seq
              USING ERRCODE = '55000', HINT = 'crid_sequence_revert(''' || seq::text || ''') turns it back.';
    END IF;
    SELECT * INTO sq FROM pg_catalog.pg_sequence p WHERE p.seqrelid OPERATOR(pg_catalog.=) seq;
    IF sq.seqcycle THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % cycles', seq
              USING ERRCODE = '22023', DETAIL = 'A sequence that cycles hands its values out again.',
                    HINT = 'ALTER SEQUENCE ' || seq::text || ' NO CYCLE;';
    END IF;
    IF sq.seqincrement OPERATOR(pg_catalog.<) 0 THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % counts down (INCREMENT BY %)', seq, sq.seqincrement
              USING ERRCODE = '22023', DETAIL = 'Converted sequences hand out increasing ids.',
                    HINT = 'ALTER SEQUENCE ' || seq::text || ' INCREMENT BY 1;';
    END IF;
    SELECT d.refobjid::regclass, a.attname, a.atttypid::regtype, a.attidentity
      INTO owner_table, owner_column, column_type, identity
      FROM pg_catalog.pg_depend d
      JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) d.refobjid
                                    AND a.attnum OPERATOR(pg_catalog.=) d.refobjsubid
     WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
       AND d.objid OPERATOR(pg_catalog.=) seq
       AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::regclass
       AND d.refobjsubid OPERATOR(pg_catalog.>) 0
       AND d.deptype OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'i']::"char"[]);
    IF owner_table IS NULL THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % is owned by no column', seq
              USING ERRCODE = '55000',
                    DETAIL = 'crid checks the type of the column the sequence fills before converting it.',
                    HINT = 'ALTER SEQUENCE ' || seq::text || ' OWNED BY table.column;';
    END IF;
    IF column_type IS DISTINCT FROM 'bigint'::regtype THEN
        RAISE EXCEPTION 'crid_sequence_convert: column %.% of sequence % is %, not bigint',
                        owner_table, pg_catalog.quote_ident(owner_column), seq, column_type
              USING ERRCODE = '42804', DETAIL = 'Ids of the snowflake and crid families need 63 bits.',
                    HINT = pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint;', owner_table, owner_column);
    END IF;
    -- INCREMENT BY n: each value reserves the 2n - 1 ids around it (the n
    -- keys an ORM takes ending or starting at it), which must fit one crid
    -- block or one snowflake time unit.
    room := CASE family
        WHEN 'crid' THEN pg_catalog.current_setting('crid.block_size')::bigint
        ELSE 1::bigint OPERATOR(pg_catalog.<<) (pg_catalog.current_setting('crid.snowflake_sequence_bits')::integer
                                                OPERATOR(pg_catalog.+)
                                                pg_catalog.current_setting('crid.snowflake_gene_bits')::integer) END;
    IF 2 OPERATOR(pg_catalog.*) sq.seqincrement OPERATOR(pg_catalog.-) 1 OPERATOR(pg_catalog.>)
       LEAST(room, 2097151::bigint) THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % has INCREMENT BY %, more than % ids can serve',
                        seq, sq.seqincrement, family
              USING ERRCODE = '22023',
                    DETAIL = pg_catalog.format('Each value reserves 2n - 1 consecutive ids; %s holds %s (and at most 2097151).',
                                               CASE family WHEN 'crid' THEN 'a block (crid.block_size)'
                                                           ELSE 'a snowflake time unit' END, room),
                    HINT = 'ALTER SEQUENCE ' || seq::text || ' INCREMENT BY a smaller n, and the ORM''s allocation size with it.';
    END IF;
    -- Locks the sequence until commit (nextval() waits), then reads where
    -- it stands: a value handed out by a session that still holds cached
    -- values is below it.
    EXECUTE pg_catalog.format('ALTER SEQUENCE %s NO CYCLE CACHE 1', seq);
    EXECUTE pg_catalog.format('SELECT last_value, is_called FROM %s', seq) INTO plain_last, called;
    IF NOT called THEN
        PERFORM pg_catalog.setval(seq, plain_last, true);
    END IF;
    first_id := CASE family WHEN 'crid' THEN @extschema@.crid_next() ELSE @extschema@.snowflake_next() END;
    IF first_id OPERATOR(pg_catalog.<=) plain_last THEN
        RAISE EXCEPTION 'crid_sequence_convert: sequence % stands at %, above the % ids crid mints now (%)',
                        seq, plain_last, family, first_id
              USING ERRCODE = '22003', DETAIL = 'A converted sequence hands out ids above every value it gave.';
    END IF;
    -- The row first: altering the sequence then makes every backend read it.
    INSERT INTO @extschema@.crid_sequences (seq, family, plain_last) VALUES (seq, family, plain_last);
    -- MINVALUE below it too: PostgreSQL wants MINVALUE < MAXVALUE.
    EXECUTE pg_catalog.format('ALTER SEQUENCE %s MINVALUE %s MAXVALUE %s', seq,
                              LEAST(sq.seqmin, plain_last OPERATOR(pg_catalog.-) 1), plain_last);
    IF identity OPERATOR(pg_catalog.=) ANY (ARRAY['a', 'd']::"char"[]) THEN
        -- Unchanged, so that plans of INSERTs into the table are made again.
        EXECUTE pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I SET GENERATED %s', owner_table, owner_column,
                                  CASE identity WHEN 'a' THEN 'ALWAYS' ELSE 'BY DEFAULT' END);
    ELSE
        SELECT pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) INTO column_default FROM pg_catalog.pg_attrdef ad
         WHERE ad.adrelid OPERATOR(pg_catalog.=) owner_table
           AND ad.adnum OPERATOR(pg_catalog.=) (SELECT a.attnum FROM pg_catalog.pg_attribute a
                                                 WHERE a.attrelid OPERATOR(pg_catalog.=) owner_table
                                                   AND a.attname OPERATOR(pg_catalog.=) owner_column);
        IF column_default OPERATOR(pg_catalog.=) pg_catalog.format('nextval(%L::regclass)', seq) THEN
            EXECUTE pg_catalog.format(
                'ALTER TABLE %s ALTER COLUMN %I SET DEFAULT @extschema@.crid_sequence_nextval(%L::regclass)',
                owner_table, owner_column, seq);
        END IF;
    END IF;
    RETURN seq;
END
$$;
