-- Every kind of C++ exception thrown inside crid becomes an ERROR with a
-- sensible SQLSTATE, and the backend survives to answer the next query.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
CREATE FUNCTION pg_temp.crid_debug_throw(kind text) RETURNS bigint
    AS 'crid_test', 'crid_debug_throw' LANGUAGE C STRICT;
\set VERBOSITY default
SELECT pg_temp.crid_debug_throw('none');
SELECT pg_temp.crid_debug_throw('runtime');
SELECT pg_temp.crid_debug_throw('bad_alloc');
SELECT pg_temp.crid_debug_throw('core');
SELECT pg_temp.crid_debug_throw('int');
-- The standard library's own words for an out-of-range vector::at() differ
-- between its versions: only crid's prefix of the message is shown.
DO $$
BEGIN
    PERFORM pg_temp.crid_debug_throw('vector');
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'vector -> % "%...", the library''s message after it: %', SQLSTATE,
        left(SQLERRM, length('internal error in crid: ')), length(SQLERRM) > length('internal error in crid: ');
END $$;
-- The SQLSTATEs, caught in PL/pgSQL.
DO $$
DECLARE kind text;
BEGIN
    FOREACH kind IN ARRAY ARRAY['runtime', 'bad_alloc', 'core', 'int', 'vector'] LOOP
        BEGIN
            PERFORM pg_temp.crid_debug_throw(kind);
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE '% -> %', kind, SQLSTATE;
        END;
    END LOOP;
END $$;
-- Still alive, in the same backend.
SELECT uuid_extract_version(uuid_generate_v7()) AS still_working;
