-- Makes the partitions of a table partitioned by RANGE on its id for every
-- interval of `step` (1 hour, 1 day, 1 week or 1 month, in UTC) from the one
-- holding `first` to the one holding `last`. Each partition's bounds are the
-- first ids of its interval and of the next (crid_partition_first_id), and
-- it is named after its parent and its interval's start: orders_p20261204
-- (orders_p2026120413 by the hour, orders_p202612 by the month).
--
-- With gene_bits > 0 each time partition is itself partitioned by HASH on
-- the id with crid's gene operator class, into 2^gene_bits partitions
-- (orders_p20261204_g0 ...): a lookup by id prunes both levels.
--
-- Rows of an interval that wait in the default partition (PostgreSQL makes
-- no partition while the default partition holds rows of its range) are
-- moved into its partition: deleted from the default partition into a
-- temporary table, and inserted through the parent once the partition is
-- made, so row triggers of DELETE and INSERT fire for them. A table that
-- foreign keys reference is refused then (ERROR 0A000): a referencing row
-- would see its row gone between the two statements, or be deleted with it
-- (ON DELETE CASCADE).
--
-- Idempotent and safe from two sessions at once: it takes SHARE UPDATE
-- EXCLUSIVE on the parent (which conflicts with itself, not with reads and
-- writes of rows), then makes only the partitions whose bounds no partition
-- has yet. Before it looks into the default partition for a partition it
-- makes, it takes SHARE ROW EXCLUSIVE on the parent, which waits for the
-- writers of rows and holds new ones off until the transaction ends (making
-- the partition takes ACCESS EXCLUSIVE then anyway): a row written between
-- the look and the CREATE would make PostgreSQL refuse the partition.
--
-- Only the parent's owner may run it (ERROR 42501 for anyone else, a
-- superuser too): moving rows runs the table's triggers, defaults and index
-- expressions, code of the owner's, which must not run with a caller's
-- greater rights, and every partition made is then the owner's. A name
-- another table holds (a partition detached earlier) gets a suffix: _1, _2. An interval that overlaps a partition with other bounds is
-- PostgreSQL's ERROR 42P17; one no id can fall in (before the epoch) is
-- skipped. Returns one row per partition made: 'created', or 'moved' with
-- the number of rows moved into it.
CREATE OR REPLACE FUNCTION crid_partition_create(parent regclass, step interval, first timestamptz, last timestamptz,
                                      gene_bits integer DEFAULT 0, family text DEFAULT NULL,
                                      layout text DEFAULT NULL,
                                      OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;              -- crid_partition_key
    unit text;             -- date_trunc's name of the step
    stamp text;            -- to_char format of an interval's start in a name
    start_at timestamp;    -- an interval's start, UTC
    stop_at timestamp;
    last_at timestamp;
    lo text;
    hi text;
    nsp name;
    base text;             -- the parent's name, cut so that every name made fits
    part text;
    intervals integer := 0;
    modulus integer;
    empty boolean;
    default_part regclass;
    in_range text;         -- the interval's ids, as SQL
    waiting boolean;       -- the default partition holds rows of the interval
    cols text;             -- the columns a moved row is inserted with
    moved bigint;
    inserted bigint;
    write_locked boolean := false;
    taken integer;
    recorded text;         -- the comment of a partition made: its layout
BEGIN
    IF parent IS NULL OR step IS NULL OR first IS NULL OR last IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_create: parent, step, first, last and gene_bits must not be NULL'
            USING ERRCODE = '22004';
    END IF;
    IF NOT isfinite(first) OR NOT isfinite(last) THEN
        RAISE EXCEPTION 'crid_partition_create: first and last must be finite times' USING ERRCODE = '22008';
    END IF;
    IF last < first THEN
        RAISE EXCEPTION 'crid_partition_create: last (%) is before first (%)', last, first USING ERRCODE = '22023';
    END IF;
    IF gene_bits NOT BETWEEN 0 AND 16 THEN
        RAISE EXCEPTION 'crid_partition_create: gene_bits % is out of range 0 .. 16', gene_bits USING ERRCODE = '22003';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    IF (SELECT c.relowner FROM pg_class c WHERE c.oid = parent) <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'crid_partition_create: only the owner of % may make its partitions', parent
            USING ERRCODE = '42501',
                  DETAIL = 'Moving rows runs the table''s triggers and defaults, which must run with its owner''s rights, '
                           'and the partitions made are the owner''s.',
                  HINT = 'Run it as the owner (SET ROLE, or a pg_cron job scheduled as that role).';
    END IF;
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    PERFORM @extschema@.crid_partition_layout_guard(parent, 'crid_partition_create', k.key_family, k.key_layout);
    recorded := 'crid: ' || @extschema@.crid_partition_layout_name(k.key_family, k.key_layout);

    stamp := CASE unit WHEN 'hour' THEN 'YYYYMMDDHH24' WHEN 'month' THEN 'YYYYMM' ELSE 'YYYYMMDD' END;
    modulus := (1 << gene_bits);
    -- NAMEDATALEN - 1 bytes hold a name: the parent's is cut, a character at
    -- a time, so that the suffixes fit (a stamp, a gene, a _N against a
    -- name taken) and no name made is cut by PostgreSQL instead.
    SELECT n.nspname, c.relname INTO nsp, base
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
    WHILE octet_length(base) > 63 - octet_length('_p' || stamp) - 4
                               - CASE WHEN gene_bits > 0 THEN octet_length('_g' || modulus) ELSE 0 END LOOP
        base := left(base, -1);
    END LOOP;

    SELECT nullif(p.partdefid, 0)::regclass INTO default_part
      FROM pg_partitioned_table p WHERE p.partrelid = parent;
    -- Rows are read and moved from the default partition: it must be the
    -- caller's too, or its code (index predicates and expressions, which
    -- the planner evaluates, triggers) would run with the caller's rights.
    IF (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) default_part)
       OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'crid_partition_create: the default partition % of % belongs to another role',
                        default_part, parent
            USING ERRCODE = '42501',
                  DETAIL = 'Reading it runs code of its owner''s, which must not run with another role''s rights.';
    END IF;

    last_at := last AT TIME ZONE 'UTC';
    start_at := date_trunc(unit, first AT TIME ZONE 'UTC');
    WHILE start_at <= last_at LOOP
        intervals := intervals + 1;
        IF intervals > 10000 THEN
            RAISE EXCEPTION 'crid_partition_create: more than 10000 intervals of % from % to %', step, first, last
                USING ERRCODE = '54000', HINT = 'Make them in several calls, or choose a longer step.';
        END IF;
        start_at := start_at + step;
    END LOOP;
    start_at := date_trunc(unit, first AT TIME ZONE 'UTC');
    WHILE start_at <= last_at LOOP
        stop_at := start_at + step;
        lo := @extschema@.crid_partition_first_id(start_at AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        hi := @extschema@.crid_partition_first_id(stop_at AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        -- An interval before the family's first id has no ids: lo = hi.
        IF hi IS NOT NULL AND lo IS NOT NULL THEN
            IF k.key_family = 'uuidv7' THEN
                empty := lo::uuid >= hi::uuid;
            ELSE
                empty := lo::bigint >= hi::bigint;
            END IF;
        ELSE
            empty := lo IS NULL;
        END IF;
        IF NOT empty
           AND NOT EXISTS (SELECT FROM @extschema@.crid_partition_bounds(parent) b
                            WHERE b.from_id = lo AND b.to_id IS NOT DISTINCT FROM hi) THEN
            part := base || '_p' || to_char(start_at, stamp);
            taken := 0;
            WHILE to_regclass(format('%I.%I', nsp, part)) IS NOT NULL
                  OR (gene_bits > 0 AND to_regclass(format('%I.%I', nsp, part || '_g0')) IS NOT NULL) LOOP
                taken := taken + 1;
                part := base || '_p' || to_char(start_at, stamp) || '_' || taken;
            END LOOP;
            in_range := format('%I >= %L', k.key_column, lo)
                        || CASE WHEN hi IS NOT NULL THEN format(' AND %I < %L', k.key_column, hi) ELSE '' END;
            waiting := false;
            IF default_part IS NOT NULL AND NOT write_locked THEN
                EXECUTE format('LOCK TABLE ONLY %s IN SHARE ROW EXCLUSIVE MODE', parent);
                write_locked := true;
            END IF;
            IF default_part IS NOT NULL THEN
                EXECUTE format('SELECT EXISTS (SELECT FROM ONLY %s WHERE %s)', default_part, in_range) INTO waiting;
            END IF;
            IF waiting THEN
                IF EXISTS (SELECT FROM pg_constraint c
                            WHERE c.contype = 'f'
                              AND c.confrelid IN (SELECT relid FROM pg_partition_tree(parent))) THEN
                    RAISE EXCEPTION 'crid_partition_create: foreign keys reference %, whose default partition % holds rows of %',
                                    parent, default_part, part
                        USING ERRCODE = '0A000',
                              HINT = 'Make the partitions of such rows before they are written, or move them yourself.';
                END IF;
                SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
                  FROM pg_attribute a
                 WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
                IF to_regclass('pg_temp.crid_partition_moving') IS NOT NULL THEN
                    DROP TABLE pg_temp.crid_partition_moving;
                END IF;
                EXECUTE format('CREATE TEMP TABLE crid_partition_moving ON COMMIT DROP AS SELECT %s FROM ONLY %s WITH NO DATA',
                               cols, default_part);
                EXECUTE format('WITH m AS (DELETE FROM ONLY %s WHERE %s RETURNING %s) '
                               'INSERT INTO pg_temp.crid_partition_moving SELECT * FROM m',
                               default_part, in_range, cols);
                GET DIAGNOSTICS moved = ROW_COUNT;
            END IF;
            IF gene_bits = 0 THEN
                EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%s)',
                               nsp, part, parent, lo, coalesce(quote_literal(hi), 'MAXVALUE'));
            ELSE
                EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%s) PARTITION BY HASH (%I %s)',
                               nsp, part, parent, lo, coalesce(quote_literal(hi), 'MAXVALUE'), k.key_column,
                               CASE WHEN k.key_family = 'uuidv7' THEN '@extschema@.crid_gene_uuid_ops'
                                    ELSE '@extschema@.crid_gene_int8_ops' END);
                FOR g IN 0 .. modulus - 1 LOOP
                    EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
                                   nsp, part || '_g' || g, nsp, part, modulus, g);
                END LOOP;
            END IF;
            -- The layout the partition was made under, for the functions
            -- that read it later (crid_partition_misfits).
            EXECUTE format('COMMENT ON TABLE %I.%I IS %L', nsp, part, recorded);
            action := 'created';
            row_count := NULL;
            IF waiting THEN
                EXECUTE format('INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM pg_temp.crid_partition_moving',
                               parent, cols, cols);
                GET DIAGNOSTICS inserted = ROW_COUNT;
                IF inserted <> moved THEN
                    RAISE EXCEPTION 'crid_partition_create: % rows of % left the default partition of %, but % arrived',
                                    moved, part, parent, inserted
                        USING ERRCODE = '55000',
                              DETAIL = 'A trigger on the table skipped rows inserted into it; nothing was moved.',
                              HINT = 'Let the trigger pass rows of past times, or move these rows yourself.';
                END IF;
                DROP TABLE pg_temp.crid_partition_moving;
                action := 'moved';
                row_count := moved;
            END IF;
            partition_name := format('%I.%I', nsp, part);
            RETURN NEXT;
        END IF;
        start_at := stop_at;
    END LOOP;
END
$$;
