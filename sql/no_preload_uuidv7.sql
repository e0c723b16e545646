-- UUIDv7 on a server where crid is installed but not preloaded: generation is
-- monotonic per backend and decoding works the same.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
SELECT current_setting('shared_preload_libraries') NOT LIKE '%crid%' AS not_preloaded;
SELECT uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
SELECT uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846');
SELECT uuid_extract_version(uuid_generate_v7()) AS version,
       abs(extract(epoch FROM uuid_v7_to_timestamptz(uuid_generate_v7()) - clock_timestamp())) < 5 AS now_ish;
SELECT count(*) AS ids, count(*) FILTER (WHERE prev >= u) AS out_of_order, count(DISTINCT u) AS distinct_ids
FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuidv7() AS u FROM generate_series(1, 200000) n) g) s;
SELECT uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 'order-1'::text) AS same_as_preloaded;
SELECT uuid_v7_floor('2022-02-22 19:22:22.0005+00');
SELECT uuid_v7_to_timestamptz('f47ac10b-58cc-4372-a567-0e02b2c3d479');
SELECT uuid_generate_v7('infinity');
-- Without preloading the order is per backend, whatever the setting says.
SHOW crid.uuidv7_order;
