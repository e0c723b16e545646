-- A registry server without crid's C library: the three helpers that
-- crid_registry_check and crid_registry_reserve call, which the extension
-- implements in C (src/pg/registry/registry_access.cpp), written here in
-- SQL. Without C they cannot switch to a table's owner, so this script
-- gives its SECURITY DEFINER functions to the owner of crid_allocations,
-- and crid_registry_identity accepts only tables that role owns: whatever
-- code a registry table runs when read (its owner's) then runs as its
-- owner, never with more rights.

-- ERROR 42809 unless `registry` is a registry table here: a plain,
-- permanent table with ts bigint and next_seq bigint, owned by the role
-- this runs as (the owner of the registry functions), that is this
-- schema's crid_allocations or has the trigger crid_registry_guard of this
-- schema; else the physical table it is now, as the extension says it.
CREATE FUNCTION crid_registry_identity(registry regclass) RETURNS text
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    why text;
BEGIN
    IF crid_registry_identity.registry IS NULL THEN
        RAISE EXCEPTION 'crid_registry_identity: registry must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT c.oid, c.relkind, c.relpersistence, c.relowner, n.nspname, c.relname,
           EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'ts'
                      AND a.atttypid = 'pg_catalog.int8'::pg_catalog.regtype AND NOT a.attisdropped)
           AND EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'next_seq'
                      AND a.atttypid = 'pg_catalog.int8'::pg_catalog.regtype AND NOT a.attisdropped) AS shaped,
           EXISTS (SELECT FROM pg_catalog.pg_trigger t
                    WHERE t.tgrelid = c.oid AND t.tgenabled <> 'D'
                      AND t.tgfoid = '@extschema@.crid_registry_guard()'::pg_catalog.regprocedure) AS guarded
      INTO r
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = crid_registry_identity.registry;
    why := CASE
        WHEN r.oid IS NULL THEN 'does not exist'
        WHEN r.relkind <> 'r' THEN 'is not a plain table (views, foreign, partitioned tables and other relations are not)'
        WHEN r.relpersistence <> 'p' THEN 'is a temporary or unlogged table, which loses its rows on its own'
        WHEN NOT r.shaped THEN 'lacks the column ts bigint or next_seq bigint'
        WHEN r.relowner <> (SELECT u.oid FROM pg_catalog.pg_roles u WHERE u.rolname = current_user)
            THEN pg_catalog.format('is owned by %I, not by %I, the owner of crid''s registry functions here',
                                   pg_catalog.pg_get_userbyid(r.relowner), current_user)
        WHEN NOT (r.guarded OR crid_registry_identity.registry = '@extschema@.crid_allocations'::pg_catalog.regclass)
            THEN 'is neither this registry''s crid_allocations nor has it an enabled crid_registry_guard trigger'
    END;
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'crid_registry_identity: % is not a registry table', crid_registry_identity.registry
            USING ERRCODE = '42809',
                  DETAIL = pg_catalog.format('It %s.', why),
                  HINT = 'A registry table here is a plain, permanent table with the columns ts bigint and next_seq '
                         'bigint, owned by the owner of crid_allocations: crid_allocations, or a table given the '
                         'trigger crid_registry_guard.';
    END IF;
    RETURN pg_catalog.format('system %s, timeline %s, relation %s file %s',
                             (SELECT s.system_identifier FROM pg_catalog.pg_control_system() s),
                             ('x' || pg_catalog.substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()),
                                                       1, 8))::bit(32)::integer,
                             r.oid, pg_catalog.pg_relation_filenode(r.oid));
END
$$;

-- The newest second a registry table holds (NULL: none); called by
-- crid_registry_check as the owner of the registry functions, which owns
-- the table (crid_registry_identity).
CREATE FUNCTION crid_registry_newest(registry regclass) RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    newest bigint;
BEGIN
    PERFORM @extschema@.crid_registry_identity(crid_registry_newest.registry);
    EXECUTE pg_catalog.format('SELECT max(ts) FROM ONLY %s', crid_registry_newest.registry) INTO newest;
    RETURN newest;
END
$$;

-- The reservation upsert, with its caller's rights (a fleet's role, or
-- crid_allocate as the registry functions' owner).
CREATE FUNCTION crid_registry_upsert(registry regclass, ts bigint, amount bigint, room_limit bigint)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    block_end bigint;
BEGIN
    IF crid_registry_upsert.registry IS NULL OR crid_registry_upsert.ts IS NULL
       OR crid_registry_upsert.amount IS NULL THEN
        RAISE EXCEPTION 'crid_registry_upsert: registry, ts and amount must not be NULL' USING ERRCODE = '22004';
    END IF;
    EXECUTE pg_catalog.format('INSERT INTO %s AS a (ts, next_seq) VALUES ($1, $2) '
                              'ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq '
                              'WHERE $3 IS NULL OR a.next_seq <= $3 RETURNING a.next_seq',
                              crid_registry_upsert.registry)
        INTO block_end
        USING crid_registry_upsert.ts, crid_registry_upsert.amount, crid_registry_upsert.room_limit;
    RETURN block_end;
END
$$;
