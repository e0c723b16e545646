-- Every misconfiguration crid can see from this server and database, one row
-- each: problem (a fixed word, for scripts), object (what it is about),
-- detail (what is wrong and what it breaks) and fix (the command that fixes
-- it; a comment after it says what else to do, such as a restart). No rows:
-- nothing crid can see is wrong.
CREATE OR REPLACE FUNCTION crid_check(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    own regclass[] := @extschema@.crid_own_tables();
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
    -- crid's tables in a publication: a subscriber would apply this
    -- server's registry rows and leases over its own.
    FOR r IN
        SELECT p.oid, p.pubname::text AS pubname, p.puballtables,
               string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid::regclass::text) AS carried
        FROM pg_catalog.pg_publication p
        JOIN pg_catalog.pg_publication_tables t ON t.pubname = p.pubname
        JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
        JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
        WHERE c.oid = ANY (own)
        GROUP BY p.oid, p.pubname, p.puballtables
        ORDER BY p.pubname
    LOOP
        problem := 'publication';
        object := r.pubname;
        detail := format('publication %I%s publishes crid''s own tables (%s): their rows describe this server, and a '
                         'subscriber that applies them collides with its own (insert_exists stops its subscription) '
                         'or overwrites them; crid 0.3.0 and later skips them on the subscriber',
                         r.pubname, CASE WHEN r.puballtables THEN ' (FOR ALL TABLES)' ELSE '' END, r.carried);
        fix := @extschema@.crid_publication_fix(r.oid);
        RETURN NEXT;
    END LOOP;

    -- A subscription of this database that receives them: the publisher's
    -- publication is to be fixed, then the subscription refreshed.
    FOR r IN
        SELECT s.subname::text AS subname,
               string_agg(sr.srrelid::regclass::text, ', ' ORDER BY sr.srrelid::regclass::text) AS carried
        FROM pg_catalog.pg_subscription s
        JOIN pg_catalog.pg_subscription_rel sr ON sr.srsubid = s.oid
        WHERE s.subdbid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
          AND sr.srrelid = ANY (own)
        GROUP BY s.subname
        ORDER BY s.subname
    LOOP
        problem := 'subscription';
        object := r.subname;
        detail := format('subscription %I receives crid''s own tables (%s) from its publisher, whose rows crid skips '
                         'here; first take them out of the publication on the publisher (its crid_check() names the '
                         'command), then refresh the subscription', r.subname, r.carried);
        fix := format('ALTER SUBSCRIPTION %I REFRESH PUBLICATION WITH (copy_data = false)', r.subname);
        RETURN NEXT;
    END LOOP;

    -- pglogical (PostgreSQL 15's multi-writer replication): its replication
    -- sets name tables one by one, replication_set_add_all_tables included.
    FOR r IN
        SELECT e.extnamespace::regnamespace::text AS schema FROM pg_catalog.pg_extension e WHERE e.extname = 'pglogical'
    LOOP
        FOR st IN EXECUTE format(
            'SELECT s.set_name::text AS set_name, string_agg(t.set_reloid::regclass::text, '', '' '
            '       ORDER BY t.set_reloid::regclass::text) AS carried, '
            '       string_agg(format(''SELECT %%s.replication_set_remove_table(%%L, %%L);'', $2, s.set_name, '
            '                         t.set_reloid::regclass::text), '' '' ORDER BY t.set_reloid::regclass::text) AS fix '
            'FROM %1$s.replication_set_table t JOIN %1$s.replication_set s ON s.set_id = t.set_id '
            'WHERE t.set_reloid::oid = ANY ($1::oid[]) GROUP BY s.set_name ORDER BY s.set_name', r.schema)
            USING own, r.schema
        LOOP
            problem := 'replication_set';
            object := st.set_name;
            detail := format('pglogical replication set %I replicates crid''s own tables (%s): their rows describe '
                             'this server; subscribers with crid 0.3.0 and later skip them, others collide or '
                             'overwrite their own', st.set_name, st.carried);
            fix := st.fix;
            RETURN NEXT;
        END LOOP;
    END LOOP;

    -- The trigger that skips replicated rows, on each of crid's tables.
    FOR r IN
        SELECT o.rel, t.tgenabled
        FROM unnest(own) o(rel)
        LEFT JOIN pg_catalog.pg_trigger t ON t.tgrelid = o.rel AND t.tgname = 'crid_local_only'
        WHERE t.tgenabled IS DISTINCT FROM 'A'
        ORDER BY o.rel::text
    LOOP
        problem := 'local_only_trigger';
        object := r.rel::text;
        detail := format('the trigger crid_local_only of %s is %s: rows that logical replication brings from another '
                         'server would be applied to it', r.rel,
                         CASE r.tgenabled WHEN 'D' THEN 'disabled' WHEN NULL THEN 'missing'
                                          ELSE 'not ENABLE ALWAYS (apply workers do not fire it)' END);
        fix := CASE WHEN r.tgenabled IS NULL
                    THEN format('CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW '
                                'EXECUTE FUNCTION %s.crid_local_only(); ', r.rel,
                                (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                                 WHERE e.extname = 'crid'))
                    ELSE '' END
               || format('ALTER TABLE %s ENABLE ALWAYS TRIGGER crid_local_only', r.rel);
        RETURN NEXT;
    END LOOP;

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

    SELECT s.* INTO st FROM @extschema@.crid_registry_status() s;
    remote := coalesce(st.remote, false);
    node_setting := (SELECT g.reset_val FROM pg_catalog.pg_settings g WHERE g.name = 'crid.node_id');

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

    -- A key of public ids for a role that was dropped (DROP ROLE does not
    -- see keys): only superusers may use it, and a dump names its role by a
    -- number, which a restore hands to whatever role has that number there.
    -- Only a caller who may read the keys sees this.
    IF pg_catalog.has_table_privilege('@extschema@.crid_public_id_keys'::regclass, 'SELECT') THEN
        FOR r IN
            SELECT k.key_id, k.usable_by::oid AS role_oid
            FROM @extschema@.crid_public_id_keys k
            WHERE k.retired_at IS NULL
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles a WHERE a.oid = k.usable_by::oid)
            ORDER BY k.key_id
        LOOP
            problem := 'key_role_dropped';
            object := format('key %s', r.key_id);
            detail := format('key %s of public ids serves role %s, which no longer exists: only superusers may use '
                             'the key, and a restore of a dump gives it to whichever role has that number there',
                             r.key_id, r.role_oid);
            fix := format('UPDATE %s.crid_public_id_keys SET usable_by = ... WHERE key_id = %s; -- the role that '
                          'serves its faces now; or SET retired_at = now() to retire it',
                          (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                           WHERE e.extname = 'crid'), r.key_id);
            RETURN NEXT;
        END LOOP;
    END IF;
    RETURN QUERY SELECT * FROM @extschema@.crid_check_keys();
END
$$;
