-- Says so at once when a publication or subscription is made or changed to
-- carry crid's own tables: a WARNING per problem, the fix as its HINT. An
-- event trigger runs as whoever runs the DDL, a superuser often: so it
-- checks first that the schema its body names is still crid's
-- (schema_guard.inc); if not, the check says so as a WARNING and calls
-- nothing there.
CREATE OR REPLACE FUNCTION crid_replication_warning() RETURNS event_trigger
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    -- @schema_guard
    FOR c IN
        SELECT k.* FROM @extschema@.crid_check() k
        WHERE (k.problem = 'publication' AND k.object IN (
                   SELECT p.pubname::text FROM pg_catalog.pg_event_trigger_ddl_commands() d
                   JOIN pg_catalog.pg_publication p ON p.oid = d.objid
                   WHERE d.classid = 'pg_catalog.pg_publication'::regclass))
           OR (k.problem = 'subscription' AND k.object IN (
                   SELECT s.subname::text FROM pg_catalog.pg_event_trigger_ddl_commands() d
                   JOIN pg_catalog.pg_subscription s ON s.oid = d.objid
                   WHERE d.classid = 'pg_catalog.pg_subscription'::regclass))
    LOOP
        RAISE WARNING 'crid: %', c.detail USING HINT = 'Run: ' || c.fix;
    END LOOP;
-- A check that cannot run (a role that may not read what it reads, crid
-- not preloaded) must not fail the user's own DDL: it says so instead.
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'crid: could not check the replication of crid''s own tables: %', SQLERRM
        USING HINT = 'Run SELECT * FROM crid_check() as a superuser.';
END
$$;
