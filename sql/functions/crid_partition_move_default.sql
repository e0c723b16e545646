-- Moves the rows of a table's default partition that have a time interval
-- of `step` into partitions of their own: for each interval that rows of the
-- default partition decode into, crid_partition_create makes its partition
-- and moves its rows there (foreign keys that reference the table: ERROR
-- 0A000). Ids the decoder refuses (negative ones, UUIDs of another version)
-- and ids beyond the layout stay where they are. Same lock as
-- crid_partition_create: safe from two sessions, and a second run finds
-- nothing to move. One row per interval moved.
--
-- Only the parent's owner may run it (ERROR 42501 for anyone else, a
-- superuser too), checked before anything of the table is read: reading the
-- default partition plans a query on it, and the planner evaluates its
-- indexes' predicates and expressions, code of the owner's, which must not
-- run with a caller's greater rights.
CREATE OR REPLACE FUNCTION crid_partition_move_default(parent regclass, step interval, gene_bits integer DEFAULT 0,
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
BEGIN
    IF parent IS NULL OR step IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_move_default: parent, step and gene_bits must not be NULL' USING ERRCODE = '22004';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    IF (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) parent)
       OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'crid_partition_move_default: only the owner of % may move its rows', parent
            USING ERRCODE = '42501',
                  DETAIL = 'Reading the default partition runs code of the table''s owner (its indexes'' predicates '
                           'and expressions, which the planner evaluates), and moving rows runs its triggers and '
                           'defaults: they must run with its owner''s rights.',
                  HINT = 'Run it as the owner (SET ROLE, or a pg_cron job scheduled as that role).';
    END IF;
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    PERFORM @extschema@.crid_partition_layout_guard(parent, 'crid_partition_move_default', k.key_family, k.key_layout);
    SELECT nullif(p.partdefid, 0)::regclass INTO default_part
      FROM pg_partitioned_table p WHERE p.partrelid = parent;
    IF default_part IS NULL THEN
        RETURN;
    END IF;
    IF (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) default_part)
       OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION 'crid_partition_move_default: the default partition % of % belongs to another role',
                        default_part, parent
            USING ERRCODE = '42501',
                  DETAIL = 'Reading it runs code of its owner''s, which must not run with another role''s rights.';
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
    FOREACH start_at IN ARRAY starts LOOP
        RETURN QUERY SELECT * FROM @extschema@.crid_partition_create(parent, step, start_at AT TIME ZONE 'UTC',
                                                                     start_at AT TIME ZONE 'UTC', gene_bits,
                                                                     k.key_family, k.key_layout);
    END LOOP;
END
$$;
