-- The part of crid_check() about replication: publications, subscriptions
-- and pglogical replication sets that carry crid's own tables, and the
-- trigger that keeps replicated rows out of them. Any role may run it: what
-- it may not read (pglogical's tables) is a row 'not_checked' saying so.
CREATE FUNCTION crid_check_replication(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    own regclass[] := @extschema@.crid_own_tables();
    r record;
    st record;
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
        SELECT e.extnamespace::regnamespace::text AS schema, e.extnamespace AS schema_oid
        FROM pg_catalog.pg_extension e WHERE e.extname = 'pglogical'
    LOOP
        -- Its tables are for the roles pglogical grants them to.
        IF NOT (pg_catalog.has_schema_privilege(r.schema_oid, 'USAGE')
                AND pg_catalog.has_table_privilege(pg_catalog.format('%s.replication_set_table', r.schema), 'SELECT')
                AND pg_catalog.has_table_privilege(pg_catalog.format('%s.replication_set', r.schema), 'SELECT')) THEN
            problem := 'not_checked';
            object := 'pglogical';
            detail := pg_catalog.format('role %I may not read pglogical''s replication sets, so whether they '
                                        'replicate crid''s own tables was not checked', current_user);
            fix := '-- run crid_check() as a role that may read pglogical''s tables (the owner of the database)';
            RETURN NEXT;
            CONTINUE;
        END IF;
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
END
$$;
