-- crid ids on a server where crid is not preloaded: the registry and the
-- decoders work, crid_next() is refused with SQLSTATE 55000 and a hint.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
\set VERBOSITY default
SELECT crid_allocate(1, 100), crid_allocate(1, 100);
SELECT * FROM crid_parse((28828458::bigint << 32) | 7);
SELECT crid_next();
DO $$
BEGIN
    PERFORM crid_next();
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'crid_next without preloading -> %', SQLSTATE;
END $$;
