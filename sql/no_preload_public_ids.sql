-- Public ids on a server where crid is not preloaded: the face functions
-- and their keys work the same, and crid's planner hook, which comes with
-- the library once a backend loaded it, has a plan that folded a face
-- planned again for another role.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
DROP ROLE IF EXISTS np_api, np_other;
RESET client_min_messages;
SELECT current_setting('shared_preload_libraries') AS preloaded;
CREATE ROLE np_api;
CREATE ROLE np_other;
SELECT crid_public_id_key_create('np_api', 501) AS key_id;
-- What a statement did: 'ok', or its SQLSTATE and message.
CREATE FUNCTION np_error_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

SET ROLE np_api;
SELECT crid_unmask(crid_mask(12345::bigint, 501), 501) AS snowflake_back,
       crid_unmask_sqid(crid_mask_sqid(12345, 501, 'ord'), 501, 'ord') AS sqid_back,
       crid_unmask(crid_mask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 501), 501) AS uuid_back;
PREPARE np_face AS SELECT crid_mask(1::bigint, 501) IS NOT NULL AS folded_as_api;
EXECUTE np_face;
RESET ROLE;
SET ROLE np_other;
SELECT np_error_of('SELECT crid_mask(1::bigint, 501)') AS other_role;
SELECT np_error_of('EXECUTE np_face') AS other_role_runs_the_plan;
RESET ROLE;
DEALLOCATE np_face;
DROP FUNCTION np_error_of(text);
