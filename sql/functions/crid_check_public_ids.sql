-- The part of crid_check() about keys of public ids: keys that serve a
-- dropped role. Only a role that may read the key table sees them.
CREATE FUNCTION crid_check_public_ids(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
BEGIN
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
END
$$;
