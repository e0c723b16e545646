-- Moves the rows of a table's default partition that have a time interval
-- of `step` into partitions of their own: for each interval that rows of the
-- default partition decode into, it takes those rows out, makes the
-- interval's partition (crid_partition_create, which PostgreSQL refuses
-- while the default partition holds rows of its range), and inserts them
-- again through the parent. Ids the decoder refuses (negative ones, UUIDs of
-- another version) and ids beyond the layout stay where they are.
--
-- The rows are deleted and inserted: row triggers of DELETE and INSERT fire
-- for them. A table that foreign keys reference is refused (ERROR 0A000)
-- when there are rows to move, since a referencing row would see its row
-- gone between the two statements (or be deleted with it, ON DELETE
-- CASCADE). Same lock as crid_partition_create: safe from two sessions,
-- and a second run finds nothing to move. One row per interval moved.
CREATE FUNCTION crid_partition_move_default(parent regclass, step interval, gene_bits integer DEFAULT 0,
                                            family text DEFAULT NULL, layout text DEFAULT NULL,
                                            OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
    unit text;
    default_part regclass;
    decoded text;          -- the decoded time of the key, as SQL
    decodable text;        -- which keys the decoder takes, as SQL
    starts timestamp[];
    start_at timestamp;
    lo text;
    hi text;
    cols text;
    moved bigint;
    made text;
BEGIN
    IF parent IS NULL OR step IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_move_default: parent, step and gene_bits must not be NULL' USING ERRCODE = '22004';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    SELECT nullif(p.partdefid, 0)::regclass INTO default_part
      FROM pg_partitioned_table p WHERE p.partrelid = parent;
    IF default_part IS NULL THEN
        RETURN;
    END IF;

    CASE k.key_family
    WHEN 'uuidv7' THEN
        decoded := format('@extschema@.uuid_v7_to_timestamptz(%I)', k.key_column);
        decodable := format('substr(%1$I::text, 15, 1) = ''7'' AND substr(%1$I::text, 20, 1) IN (''8'', ''9'', ''a'', ''b'')',
                            k.key_column);
    WHEN 'snowflake' THEN
        decoded := format('@extschema@.snowflake_to_timestamptz(%I, %L)', k.key_column, k.key_layout);
        decodable := format('%I >= 0', k.key_column);
    ELSE
        decoded := format('@extschema@.crid_to_timestamptz(%I)', k.key_column);
        decodable := format('%I >= 0', k.key_column);
    END CASE;
    EXECUTE format('SELECT array_agg(DISTINCT date_trunc(%L, %s AT TIME ZONE ''UTC'')) FROM ONLY %s WHERE %s',
                   unit, decoded, default_part, decodable)
       INTO starts;
    IF starts IS NULL THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT FROM pg_constraint c
                WHERE c.contype = 'f'
                  AND c.confrelid IN (SELECT parent UNION ALL SELECT relid FROM pg_partition_tree(parent))) THEN
        RAISE EXCEPTION 'crid_partition_move_default: foreign keys reference %, whose default partition % holds rows to move',
                        parent, default_part
            USING ERRCODE = '0A000',
                  HINT = 'Make the partitions of those rows ahead of time (crid_partition_create), or move them yourself.';
    END IF;

    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_attribute a
     WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
    IF to_regclass('pg_temp.crid_partition_moving') IS NOT NULL THEN
        DROP TABLE pg_temp.crid_partition_moving;
    END IF;
    EXECUTE format('CREATE TEMP TABLE crid_partition_moving ON COMMIT DROP AS SELECT %s FROM ONLY %s WITH NO DATA',
                   cols, default_part);
    FOREACH start_at IN ARRAY starts LOOP
        lo := @extschema@.crid_partition_first_id(start_at AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        hi := @extschema@.crid_partition_first_id((start_at + step) AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        CONTINUE WHEN lo IS NULL;
        EXECUTE format('WITH m AS (DELETE FROM ONLY %s WHERE %I >= %L %s RETURNING %s) '
                       'INSERT INTO pg_temp.crid_partition_moving SELECT * FROM m',
                       default_part, k.key_column, lo,
                       CASE WHEN hi IS NOT NULL THEN format('AND %I < %L', k.key_column, hi) ELSE '' END, cols);
        GET DIAGNOSTICS moved = ROW_COUNT;
        CONTINUE WHEN moved = 0;
        SELECT c.partition_name INTO made
          FROM @extschema@.crid_partition_create(parent, step, start_at AT TIME ZONE 'UTC', start_at AT TIME ZONE 'UTC',
                                                 gene_bits, k.key_family, k.key_layout) c;
        action := 'moved';
        partition_name := made;
        row_count := moved;
        RETURN NEXT;
    END LOOP;
    EXECUTE format('INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM pg_temp.crid_partition_moving',
                   parent, cols, cols);
    DROP TABLE pg_temp.crid_partition_moving;
END
$$;
