-- The part of crid_check() about this server: its generators, marks,
-- settings, the registry and its block reserver, the registry table's
-- guard. Any role may run it: the checks that read where the registry is
-- (for pg_monitor only) are left out for other roles, with a row
-- 'not_checked' that says so.
CREATE FUNCTION crid_check_server(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    stats jsonb;
    st record;
    clock record;
    skew_needed bigint;
    remote boolean;
    node_setting text;
    registry_table regclass;
    repair text;
BEGIN
    -- Everything below is the state of this server's generators and block
    -- reserver, which exist only where crid is preloaded.
    SELECT jsonb_object_agg(s.family || '.' || s.metric, s.value) INTO stats
    FROM @extschema@.crid_stats() s WHERE s.node IS NULL OR s.node < 0;
    IF stats IS NULL THEN
        -- Not preloaded: column DEFAULTs that mint snowflake or crid ids fail.
        SELECT string_agg(format('%s.%I', a.adrelid::regclass, att.attname), ', '
                          ORDER BY a.adrelid::regclass::text, att.attname) INTO detail
        FROM pg_catalog.pg_attrdef a
        JOIN pg_catalog.pg_attribute att ON att.attrelid = a.adrelid AND att.attnum = a.adnum
        JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = a.oid
             AND d.refclassid = 'pg_catalog.pg_proc'::regclass
        JOIN pg_catalog.pg_proc f ON f.oid = d.refobjid AND f.proname IN ('snowflake_next', 'crid_next')
             AND f.pronamespace = (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'crid');
        IF detail IS NOT NULL THEN
            problem := 'not_preloaded';
            object := 'shared_preload_libraries';
            detail := format('crid is not in shared_preload_libraries, so snowflake_next() and crid_next() refuse, '
                             'and the column DEFAULTs that call them fail: %s', detail);
            fix := format('ALTER SYSTEM SET shared_preload_libraries = %L; -- then restart the server',
                          concat_ws(', ', nullif(pg_catalog.current_setting('shared_preload_libraries'), ''), 'crid'));
            RETURN NEXT;
        END IF;
        RETURN;
    END IF;

    IF (stats ->> 'snowflake.layout_changed')::bigint = 1 THEN
        problem := 'layout_changed';
        object := 'crid.snowflake_*';
        detail := 'the snowflake layout settings changed since ids were minted, and snowflake_next() refuses until '
                  'the change is accepted (or the old settings are back and the server restarted)';
        fix := 'SELECT crid_accept_layout()';
        RETURN NEXT;
    END IF;
    -- A damaged mark is replaced with a time no earlier than this server's
    -- newest id: the mark ran up to half crid.clock_borrow_ms ahead of the
    -- ids, so that much past now covers them unless the clock went back.
    repair := format('SELECT crid_reset_high_water(now() + interval %L)',
                     (SELECT g.setting::bigint / 2 FROM pg_catalog.pg_settings g
                      WHERE g.name = 'crid.clock_borrow_ms') || ' ms');
    IF (stats ->> 'snowflake.high_water_damaged')::bigint = 1 OR (stats ->> 'uuidv7.high_water_damaged')::bigint = 1 THEN
        problem := 'high_water_damaged';
        object := 'crid_high_water';
        detail := 'the high-water mark file crid_high_water is damaged or unreadable, and snowflake_next() and '
                  'server-ordered UUIDv7 refuse until it is replaced with a time no earlier than this server''s '
                  'newest id (later than the fix''s if the clock went back), or the file restored and the server '
                  'restarted; the fix replaces crid_registry_mark too';
        fix := repair;
        RETURN NEXT;
    END IF;
    IF (stats ->> 'crid.registry_mark_damaged')::bigint = 1 THEN
        problem := 'registry_mark_damaged';
        object := 'crid_registry_mark';
        detail := 'the registry mark file crid_registry_mark is damaged or unreadable, and crid_next() refuses until '
                  'it is replaced with a time no earlier than this server''s newest id (later than the fix''s if the '
                  'clock went back), or the file restored and the server restarted; the fix replaces crid_high_water '
                  'too';
        fix := repair;
        RETURN NEXT;
    END IF;

    node_setting := (SELECT g.reset_val FROM pg_catalog.pg_settings g WHERE g.name = 'crid.node_id');
    remote := false;
    -- Where the registry is, and what the block reserver last saw there, is
    -- for pg_monitor (crid_registry_status(), crid_registry_clock()): the
    -- checks that need it are left out for other roles, with a row that
    -- says so.
    IF NOT (pg_catalog.has_function_privilege('@extschema@.crid_registry_status()'::pg_catalog.regprocedure, 'EXECUTE')
            AND pg_catalog.has_function_privilege('@extschema@.crid_registry_clock()'::pg_catalog.regprocedure,
                                                  'EXECUTE')) THEN
        problem := 'not_checked';
        object := 'crid_registry_status';
        detail := pg_catalog.format('role %I is not a member of pg_monitor, so the registry, the clock against the '
                                    'registry''s and the snowflake node leases were not checked', current_user);
        fix := pg_catalog.format('GRANT pg_monitor TO %I; -- or run crid_check() as a member of pg_monitor',
                                 current_user);
        RETURN NEXT;
        problem := NULL; object := NULL; detail := NULL; fix := NULL;
    ELSE
    SELECT s.* INTO st FROM @extschema@.crid_registry_status() s;
    remote := coalesce(st.remote, false);

    -- A static node another live server of the fleet holds (a leasing
    -- server takes whatever node is free).
    IF (stats ->> 'snowflake.lease_refused')::bigint = 1 AND node_setting IS DISTINCT FROM 'lease' THEN
        problem := 'node_held_elsewhere';
        object := CASE WHEN node_setting ~ '^[0-9]+$' THEN 'crid.node_id' ELSE 'crid.snowflake_nodes' END;
        detail := format('this server does not mint on a node it is set to: %s',
                         coalesce(st.lease_problem, 'another live server holds it'));
        fix := CASE WHEN node_setting ~ '^[0-9]+$'
                    THEN 'ALTER SYSTEM SET crid.node_id = ''lease''; SELECT pg_reload_conf();'
                    ELSE 'ALTER SYSTEM SET crid.snowflake_nodes = ''...''; SELECT pg_reload_conf(); '
                         '-- nodes no other server holds' END;
        RETURN NEXT;
    END IF;

    -- The registry, as the block reserver last saw it (a damaged registry
    -- mark, above, keeps it failing too).
    IF st.state IN ('unreachable', 'failing', 'no_extension', 'no_database', 'bad_table', 'outdated')
       AND NOT (st.state = 'failing' AND (stats ->> 'crid.registry_mark_damaged')::bigint = 1) THEN
        problem := 'registry';
        object := st.registry;
        detail := format('crid''s block reserver cannot use %s (%s)%s: crid_next() serves what it holds and then '
                         'refuses%s', st.registry, st.state, coalesce(': ' || st.detail, ''),
                         CASE WHEN remote THEN ', and snowflake node leases lapse' ELSE '' END);
        fix := CASE st.state
               WHEN 'no_database' THEN format('CREATE DATABASE %I',
                                              pg_catalog.current_setting('crid.registry_database'))
               WHEN 'no_extension' THEN CASE WHEN remote
                   THEN 'CREATE EXTENSION crid; -- on the registry server, in the database crid.registry names'
                   ELSE format('CREATE EXTENSION crid; -- in database %I',
                               pg_catalog.current_setting('crid.registry_database')) END
               WHEN 'outdated' THEN 'ALTER EXTENSION crid UPDATE; -- on the registry server'
               WHEN 'bad_table' THEN 'ALTER SYSTEM SET crid.registry_table = ''''; -- or name a registry table '
                                     '(ts bigint PRIMARY KEY, next_seq bigint NOT NULL); then restart the server'
               ELSE CASE WHEN remote
                   THEN 'ALTER SYSTEM SET crid.registry = ''...''; -- if crid.registry does not name the registry '
                        'server; then restart. Otherwise start the registry server, or let its host be reached'
                   ELSE 'ALTER SYSTEM SET crid.registry_database = ''...''; -- then restart the server' END
               END;
        RETURN NEXT;
    END IF;

    -- This server's clock against the registry's, as the block reserver
    -- measured it at its last reservation: more than half the skew the fleet
    -- allows, even allowing for the measurement's own uncertainty. A member
    -- ahead reserves crid blocks by the registry's clock, but mints snowflake
    -- and UUIDv7 ids by its own, and the next holder of a node it leaves
    -- starts above them.
    SELECT c.* INTO clock FROM @extschema@.crid_registry_clock() c;
    IF clock.offset_ms IS NOT NULL AND abs(clock.offset_ms) - clock.uncertainty_ms > clock.max_skew_ms / 2.0 THEN
        problem := 'clock_skew';
        object := 'clock';
        detail := format('this server''s clock is %s ms %s the clock of %s (measured to within %s ms at a block '
                         'reservation %s s ago), %s the %s ms of skew the fleet allows (max_skew_ms of %s there): %s',
                         abs(clock.offset_ms), CASE WHEN clock.offset_ms < 0 THEN 'ahead of' ELSE 'behind' END,
                         st.registry, clock.uncertainty_ms,
                         round(extract(epoch FROM pg_catalog.clock_timestamp() - clock.measured_at)),
                         CASE WHEN abs(clock.offset_ms) - clock.uncertainty_ms > clock.max_skew_ms
                              THEN 'more than' ELSE 'over half of' END,
                         clock.max_skew_ms, coalesce(clock.state_table, 'crid_registry_state'),
                         CASE WHEN clock.offset_ms < 0
                              THEN 'snowflake and UUIDv7 ids minted here run that far ahead of the fleet''s, and '
                                   'the next server to hold a snowflake node this one leaves must mint above them'
                              ELSE 'ids minted here name times that far in the past of the fleet''s' END);
        -- Enough skew that this offset is at most half of it.
        skew_needed := ceil((abs(clock.offset_ms) + clock.uncertainty_ms) * 2 / 1000.0) * 1000;
        fix := CASE WHEN skew_needed <= 60000 AND clock.state_table IS NOT NULL
                    THEN format('UPDATE %s SET max_skew_ms = %s WHERE registry = %L; -- on the registry server, '
                                'at the price of a longer pause after the registry changes; or better, ',
                                clock.state_table, skew_needed, clock.registry_table)
                    ELSE '-- ' END
               || 'sync the clocks of this server and of the registry''s hosts with NTP (chronyc makestep)';
        RETURN NEXT;
    END IF;

    END IF; -- the checks for pg_monitor

    -- DEFAULT snowflake_next() with no node to mint on.
    IF node_setting = '-1' THEN
        SELECT string_agg(format('%s.%I', a.adrelid::regclass, att.attname), ', '
                          ORDER BY a.adrelid::regclass::text, att.attname) INTO detail
        FROM pg_catalog.pg_attrdef a
        JOIN pg_catalog.pg_attribute att ON att.attrelid = a.adrelid AND att.attnum = a.adnum
        JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = a.oid
             AND d.refclassid = 'pg_catalog.pg_proc'::regclass
        WHERE d.refobjid = '@extschema@.snowflake_next()'::regprocedure;
        IF detail IS NOT NULL THEN
            problem := 'node_unset';
            object := 'crid.node_id';
            detail := format('crid.node_id is not set, so snowflake_next() refuses, and the column DEFAULTs that '
                             'call it fail: %s', detail);
            fix := CASE WHEN remote
                        THEN 'ALTER SYSTEM SET crid.node_id = ''lease''; SELECT pg_reload_conf();'
                        ELSE 'ALTER SYSTEM SET crid.node_id = 0; SELECT pg_reload_conf(); '
                             '-- a node no other server mints on' END;
            RETURN NEXT;
        END IF;
    END IF;

    -- A registry table of this database (crid.registry_table) without the
    -- trigger that checks every reservation, the plain upsert of Go
    -- services included.
    BEGIN
        registry_table := @extschema@.crid_registry_table();
    EXCEPTION WHEN OTHERS THEN
        registry_table := NULL; -- not a registry here; the reserver's state says what is wrong
    END;
    IF registry_table IS NOT NULL AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_trigger t
        WHERE t.tgrelid = registry_table AND t.tgenabled <> 'D'
          AND t.tgfoid = '@extschema@.crid_registry_guard()'::regprocedure) THEN
        problem := 'registry_unguarded';
        object := registry_table::text;
        detail := format('the registry table %s has no enabled crid_registry_guard trigger: a registry that went '
                         'backwards can make clients that write it directly (Go services'' plain upsert) reissue ids',
                         registry_table);
        SELECT format('ALTER TABLE %s ENABLE TRIGGER %I', registry_table, t.tgname) INTO fix
        FROM pg_catalog.pg_trigger t
        WHERE t.tgrelid = registry_table AND t.tgfoid = '@extschema@.crid_registry_guard()'::regprocedure
        ORDER BY t.tgname LIMIT 1;
        fix := coalesce(fix, format('CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON %s FOR EACH ROW '
                                    'EXECUTE FUNCTION %s.crid_registry_guard()', registry_table,
                                    (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                                     WHERE e.extname = 'crid')));
        RETURN NEXT;
    END IF;

    -- The registry database's owner can stop minting on this whole server:
    -- it may rename crid's schema there (crid then refuses it, never follows
    -- the name: docs/security.md), drop that schema or the database. Named
    -- when the registry is a database of this server and its owner is no
    -- superuser.
    -- For the roles that see where the registry is (pg_monitor's, above).
    IF pg_catalog.has_function_privilege('@extschema@.crid_registry_status()'::pg_catalog.regprocedure, 'EXECUTE')
       AND NOT remote AND pg_catalog.current_setting('crid.registry_database', true) IS NOT NULL THEN
        SELECT d.datname, a.rolname INTO r
        FROM pg_catalog.pg_database d JOIN pg_catalog.pg_roles a ON a.oid OPERATOR(pg_catalog.=) d.datdba
        WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_setting('crid.registry_database', true)
          AND NOT a.rolsuper;
        IF FOUND THEN
            problem := 'registry_owner';
            object := r.datname::text;
            detail := pg_catalog.format('the registry database %I is owned by role %I, which is no superuser: '
                                        'renaming or dropping crid''s schema there stops crid_next() and leases on '
                                        'this whole server (crid refuses a renamed schema rather than follow its '
                                        'name)', r.datname, r.rolname);
            fix := pg_catalog.format('ALTER DATABASE %I OWNER TO %I; -- or another role trusted with minting '
                                     'for every database of this server; the schema crid is in there too',
                                     r.datname, (SELECT b.rolname FROM pg_catalog.pg_roles b
                                                 WHERE b.oid OPERATOR(pg_catalog.=) 10));
            RETURN NEXT;
        END IF;
    END IF;
END
$$;
