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

-- Ids for past times: snowflake_pack mints nothing, so it works
-- here; a backfill plan on this server's layout needs crid.backfill_node,
-- which is not set here, and one on a named node and layout works.
SELECT snowflake_pack('2026-05-06 07:08:09.01+00', 7, 9) = snowflake_floor('2026-05-06 07:08:09.01+00') + (7 << 12) + 9
    AS packs;
SHOW crid.backfill_node;
CREATE TABLE past (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, new_id bigint);
INSERT INTO past SELECT g, '2026-05-06'::timestamptz + g * interval '0.5 ms' FROM generate_series(1, 100) g;
SELECT snowflake_backfill_plan('past', 'new_id', 'created_at', 'past_plan');
SELECT snowflake_backfill_plan('past', 'new_id', 'created_at', 'past_plan', 1023, 'crid');
SELECT count(*) AS planned, count(DISTINCT new_id) AS distinct_ids, max((snowflake_parse(new_id)).sequence) AS max_sequence
FROM past_plan;
DROP TABLE past, past_plan;
