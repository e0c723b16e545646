-- Snowflake on a server where crid is not preloaded: decoding works, minting
-- is refused with SQLSTATE 55000 and a hint naming the setting.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
\set VERBOSITY default
SELECT snowflake_layout();
SELECT * FROM snowflake_parse(175928847299117063, 'discord');
SELECT snowflake_to_timestamptz(snowflake_floor('2026-05-06 07:08:09.01+00'));
SELECT snowflake_next(1);
SELECT snowflake_next(1, 1);
SELECT count(*) AS stats_rows FROM crid_stats();
DO $$
BEGIN
    PERFORM snowflake_next(1);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'snowflake_next without preloading -> %', SQLSTATE;
END $$;
