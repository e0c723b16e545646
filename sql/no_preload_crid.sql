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
-- Ids for past times: packing needs no preloading, and a
-- reservation is made in this database's registry.
SELECT crid_pack('2026-11-30 15:54:18+00', 7) = (28828458::bigint << 32) | 7 AS packed,
       crid_reserve('2026-01-01 00:00:01+00', 100) AS first, crid_reserve('2026-01-01 00:00:01+00', 1) AS next,
       crid_allocate(1, 1) AS allocated_after;
