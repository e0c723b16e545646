-- crid_check()'s rows about the keys of this database's tables, in
-- crid_check()'s columns:
--
--   key_above_now     a column whose DEFAULT mints with crid (snowflake_next,
--                     crid_next, uuid_generate_v7, uuidv7) holds ids above
--                     the ones that DEFAULT mints now: ids restored from a
--                     server of another layout, or ids of another scheme
--                     (pgEdge, Instagram, Sonyflake) continued on the wrong
--                     layout. New ids sort below them, and decode to other
--                     times than they were made at.
--   partition_layout  a partition of such a key (or of a table whose
--                     partitions crid made) that was not made under the
--                     layout the partition functions read it by now
--                     (crid_partition_misfits); they refuse the table.
--
-- The largest id is read from the last entry of a plain B-tree index on the
-- column by crid_key_largest, which plans no query: the index's built-in
-- order runs no other role's code. A table the caller may not read, one with row security that applies
-- to the caller (its policies are its owner's code), one without such an
-- index (it would be read whole) and one locked for longer than the
-- lock_timeout are skipped with a NOTICE that names it.
CREATE FUNCTION crid_check_keys(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER
    SET search_path = pg_catalog, pg_temp
    SET lock_timeout = '2s'
AS $$
DECLARE
    r record;
    m record;
    top text;           -- the largest id, as text
    now_bound text;     -- the first id of a minute from now
    decoded text;
    server text;        -- the layout the DEFAULT mints under
    recorded text;      -- a layout a partition of the table records
    settings text;
    ok_rls boolean;
    me record;
BEGIN
    SELECT a.rolsuper, a.rolbypassrls, a.oid INTO me FROM pg_catalog.pg_roles a
     WHERE a.rolname OPERATOR(pg_catalog.=) current_user;
    FOR r IN
        SELECT c.oid::regclass AS rel, c.relkind, c.relowner, c.relrowsecurity, c.relforcerowsecurity,
               a.attnum, a.attname, a.atttypid,
               (SELECT CASE WHEN pg_catalog.bool_or(pr.proname OPERATOR(pg_catalog.=) 'snowflake_next') THEN 'snowflake'
                            WHEN pg_catalog.bool_or(pr.proname OPERATOR(pg_catalog.=) 'crid_next') THEN 'crid'
                            WHEN pg_catalog.bool_or(pr.proname OPERATOR(pg_catalog.=) ANY (ARRAY['uuid_generate_v7', 'uuidv7']::name[]))
                                 THEN 'uuidv7' END
                  FROM pg_catalog.pg_attrdef ad
                  JOIN pg_catalog.pg_depend dep
                    ON dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_attrdef'::pg_catalog.regclass
                   AND dep.objid OPERATOR(pg_catalog.=) ad.oid
                   AND dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
                  JOIN pg_catalog.pg_proc pr ON pr.oid OPERATOR(pg_catalog.=) dep.refobjid
                   AND pr.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
                 WHERE ad.adrelid OPERATOR(pg_catalog.=) c.oid AND ad.adnum OPERATOR(pg_catalog.=) a.attnum) AS family,
               (SELECT ix.indexrelid::regclass FROM pg_catalog.pg_index ix
                  JOIN pg_catalog.pg_class ic ON ic.oid OPERATOR(pg_catalog.=) ix.indexrelid
                  JOIN pg_catalog.pg_am am ON am.oid OPERATOR(pg_catalog.=) ic.relam
                  JOIN pg_catalog.pg_opclass oc ON oc.oid OPERATOR(pg_catalog.=) ix.indclass[0]
                 WHERE ix.indrelid OPERATOR(pg_catalog.=) c.oid AND ix.indkey[0] OPERATOR(pg_catalog.=) a.attnum
                   AND ix.indisvalid AND ix.indexprs IS NULL AND ix.indpred IS NULL
                   AND am.amname OPERATOR(pg_catalog.=) 'btree' AND oc.opcdefault
                 LIMIT 1) AS idx
          FROM pg_catalog.pg_class c
          JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
         WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p']::"char"[]) AND NOT c.relispartition
           AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
           AND a.atttypid OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.int8'::pg_catalog.regtype,
                                                            'pg_catalog.uuid'::pg_catalog.regtype]::oid[])
           AND c.relnamespace OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog'::pg_catalog.regnamespace,
                                                                 'information_schema'::pg_catalog.regnamespace]::oid[])
         ORDER BY c.oid::regclass::text, a.attnum
    LOOP
        -- A key of a crid family: its DEFAULT mints with crid, or the
        -- table's partitions were made by crid's functions.
        recorded := NULL;
        IF r.relkind OPERATOR(pg_catalog.=) 'p' THEN
            SELECT pg_catalog.substring(pg_catalog.obj_description(i.inhrelid, 'pg_class'), '^crid: ([^\n]*)')
              INTO recorded
              FROM pg_catalog.pg_inherits i
             WHERE i.inhparent OPERATOR(pg_catalog.=) r.rel
               AND pg_catalog.obj_description(i.inhrelid, 'pg_class') OPERATOR(pg_catalog.~) '^crid: '
             ORDER BY i.inhrelid DESC LIMIT 1;
            IF pg_catalog.pg_get_partkeydef(r.rel) OPERATOR(pg_catalog.<>)
                   pg_catalog.format('RANGE (%s)', pg_catalog.quote_ident(r.attname)) THEN
                recorded := NULL;   -- the partitions are of another column's
            END IF;
        END IF;
        CONTINUE WHEN r.family IS NULL AND recorded IS NULL;

        -- Its partitions against the layout they are read by now: the
        -- DEFAULT's, or the one the newest partition records.
        IF r.relkind OPERATOR(pg_catalog.=) 'p' THEN
            BEGIN
                FOR m IN
                    SELECT * FROM @extschema@.crid_partition_misfits(
                        r.rel,
                        coalesce(r.family, pg_catalog.split_part(recorded, ' ', 1)),
                        CASE WHEN r.family IS NULL AND recorded OPERATOR(pg_catalog.~) '^snowflake '
                             THEN pg_catalog.substr(recorded, 11) END)
                LOOP
                    problem := 'partition_layout';
                    object := m.partition_name::text;
                    detail := pg_catalog.format('%s; crid''s partition functions refuse %s until the layouts agree',
                                                m.detail, r.rel);
                    fix := CASE WHEN m.made_under OPERATOR(pg_catalog.~) '^snowflake '
                                THEN @extschema@.crid_check_layout_settings(pg_catalog.substr(m.made_under, 11))
                                     OPERATOR(pg_catalog.||)
                                     pg_catalog.format(' -- the layout %s was made under; or give layout => %L to the '
                                                       'partition functions of %s',
                                                       m.partition_name, pg_catalog.substr(m.made_under, 11), r.rel)
                                ELSE pg_catalog.format('-- set this server''s layout to the one %s was made under '
                                                       '(snowflake_layout() on the server that made it), or give '
                                                       'layout => ''...'' to the partition functions of %s',
                                                       m.partition_name, r.rel) END;
                    RETURN NEXT;
                END LOOP;
            EXCEPTION WHEN OTHERS THEN
                NULL;  -- a table the partition functions cannot read (crid_partition_key says why)
            END;
        END IF;
        CONTINUE WHEN r.family IS NULL;

        -- Its largest id against what its DEFAULT mints now.
        IF NOT pg_catalog.has_column_privilege(r.rel, r.attnum, 'SELECT') THEN
            RAISE NOTICE 'crid_check: %.% skipped: % may not read it', r.rel, pg_catalog.quote_ident(r.attname), current_user;
            CONTINUE;
        END IF;
        ok_rls := NOT r.relrowsecurity OR me.rolsuper OR me.rolbypassrls
                  OR (r.relowner OPERATOR(pg_catalog.=) me.oid AND NOT r.relforcerowsecurity);
        IF NOT ok_rls THEN
            RAISE NOTICE 'crid_check: %.% skipped: its row security policies would run as %', r.rel,
                         pg_catalog.quote_ident(r.attname), current_user;
            CONTINUE;
        END IF;
        IF r.idx IS NULL THEN
            RAISE NOTICE 'crid_check: %.% skipped: no B-tree index on it to read its largest id from', r.rel,
                         pg_catalog.quote_ident(r.attname);
            CONTINUE;
        END IF;
        -- Read without planning a query on the table: a plan would fold its
        -- indexes' predicates and expressions, its owner's code, as the caller.
        BEGIN
            top := @extschema@.crid_key_largest(r.rel, r.attnum::pg_catalog.int2);
        EXCEPTION WHEN lock_not_available THEN
            RAISE NOTICE 'crid_check: %.% skipped: locked by another session', r.rel, pg_catalog.quote_ident(r.attname);
            CONTINUE;
        WHEN insufficient_privilege OR object_not_in_prerequisite_state OR datatype_mismatch THEN
            RAISE NOTICE 'crid_check: %.% skipped: %', r.rel, pg_catalog.quote_ident(r.attname), SQLERRM;
            CONTINUE;
        END;
        CONTINUE WHEN top IS NULL;
        decoded := NULL;
        BEGIN
            CASE r.family
            WHEN 'snowflake' THEN
                server := 'snowflake layout ' OPERATOR(pg_catalog.||) @extschema@.snowflake_layout();
                now_bound := @extschema@.snowflake_floor(pg_catalog.now() OPERATOR(pg_catalog.+) interval '1 minute')::text;
                CONTINUE WHEN top::bigint OPERATOR(pg_catalog.<) now_bound::bigint;
                decoded := @extschema@.snowflake_to_timestamptz(top::bigint)::text;
            WHEN 'crid' THEN
                server := @extschema@.crid_partition_layout_name('crid');
                now_bound := @extschema@.crid_time_bound(pg_catalog.now() OPERATOR(pg_catalog.+) interval '1 minute', '>=')::text;
                CONTINUE WHEN top::bigint OPERATOR(pg_catalog.<) now_bound::bigint;
                decoded := @extschema@.crid_to_timestamptz(top::bigint)::text;
            ELSE
                server := 'UUIDv7';
                -- UUIDs of other versions (a table moved from version 4)
                -- sort anywhere, by design of such a move: only a version
                -- 7 id ahead of the clock is reported.
                CONTINUE WHEN pg_catalog.substr(top, 15, 1) OPERATOR(pg_catalog.<>) '7';
                now_bound := @extschema@.uuid_v7_time_bound(pg_catalog.now() OPERATOR(pg_catalog.+) interval '1 minute', '>=')::text;
                CONTINUE WHEN top::uuid OPERATOR(pg_catalog.<) now_bound::uuid;
                decoded := @extschema@.uuid_v7_to_timestamptz(top::uuid)::text;
            END CASE;
        EXCEPTION WHEN OTHERS THEN
            decoded := NULL;   -- beyond the layout: reported below
        END;
        problem := 'key_above_now';
        object := pg_catalog.format('%s.%s', r.rel, pg_catalog.quote_ident(r.attname));
        detail := pg_catalog.format('%s.%s holds ids up to %s (%s under this server''s %s), above the ids its DEFAULT '
                                    'mints now (from %s): new ids sort below them. Ids restored from a server of '
                                    'another layout, or of another scheme continued on this layout, do this.',
                                    r.rel, pg_catalog.quote_ident(r.attname), top,
                                    coalesce('decoding to ' OPERATOR(pg_catalog.||) decoded, 'beyond its range'),
                                    server, coalesce(now_bound, '?'));
        settings := NULL;
        IF r.family OPERATOR(pg_catalog.=) 'snowflake' AND recorded OPERATOR(pg_catalog.~) '^snowflake '
           AND pg_catalog.substr(recorded, 11) OPERATOR(pg_catalog.<>) @extschema@.snowflake_layout() THEN
            settings := @extschema@.crid_check_layout_settings(pg_catalog.substr(recorded, 11));
        END IF;
        fix := coalesce(settings OPERATOR(pg_catalog.||) ' -- the layout its partitions were made under',
                        CASE r.family
                        WHEN 'uuidv7' THEN '-- ids minted ahead of this server''s clock (another server''s, or '
                                           'uuidv7(shift)): check the clocks; new ids sort after them once the clock '
                                           'passes their time'
                        ELSE '-- set this server''s layout to the one these ids were made with (snowflake_layout() '
                             'on the server that made them, or the scheme''s preset: docs/coming-from.md), then '
                             'restart' END);
        RETURN NEXT;
    END LOOP;
END
$$;

-- The commands that give this server a snowflake layout (its settings), or
-- a comment when the settings cannot spell it (a unit other than 1 ms, the
-- sign bit, Sonyflake's order): then only layout => ... reads such ids.
CREATE FUNCTION crid_check_layout_settings(layout text) RETURNS text
    LANGUAGE plpgsql STABLE STRICT SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    canonical text := @extschema@.snowflake_layout(layout);
    f jsonb;
    epoch text;
BEGIN
    SELECT pg_catalog.jsonb_object_agg(pg_catalog.split_part(kv, '=', 1), pg_catalog.split_part(kv, '=', 2)) INTO f
      FROM pg_catalog.regexp_split_to_table(pg_catalog.regexp_replace(canonical, ',order=.*$', ''), ',') kv;
    IF f OPERATOR(pg_catalog.->>) 'unit' OPERATOR(pg_catalog.<>) '1ms'
       OR f OPERATOR(pg_catalog.->>) 'sign' OPERATOR(pg_catalog.<>) 'false'
       OR canonical OPERATOR(pg_catalog.!~) ',order=time,node,sequence$' THEN
        RETURN pg_catalog.format('-- a server mints only 1 ms layouts in time,node,sequence order without the sign bit: '
                                 'read these ids with layout => %L', canonical);
    END IF;
    epoch := f OPERATOR(pg_catalog.->>) 'epoch';
    IF epoch OPERATOR(pg_catalog.~) '^\d{4}-\d{2}-\d{2}$' THEN
        epoch := epoch OPERATOR(pg_catalog.||) ' 00:00:00+00';
    END IF;
    RETURN pg_catalog.format('ALTER SYSTEM SET crid.snowflake_epoch = %L; ALTER SYSTEM SET crid.snowflake_node_bits = %s; '
                             'ALTER SYSTEM SET crid.snowflake_sequence_bits = %s; ALTER SYSTEM SET crid.snowflake_gene_bits = %s; '
                             '-- then restart',
                             epoch, f OPERATOR(pg_catalog.->>) 'node', f OPERATOR(pg_catalog.->>) 'sequence',
                             f OPERATOR(pg_catalog.->>) 'gene');
END
$$;
