-- crid's partition functions on a server where crid is not preloaded: they
-- need no planner hook and no generator, only the exact bound functions.
-- snowflake_in and the UUIDv7 id range prune the partitions they make.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
SELECT current_setting('shared_preload_libraries') AS preloaded;

CREATE TABLE np_tw (id bigint PRIMARY KEY CHECK (id >= 0)) PARTITION BY RANGE (id);
CREATE TABLE np_tw_default PARTITION OF np_tw DEFAULT;
SELECT * FROM crid_partition_create('np_tw', '1 day', '2026-03-01', '2026-03-02', layout => 'twitter');
INSERT INTO np_tw SELECT snowflake_pack('2026-03-01'::timestamptz + n * interval '12 hours', 0, 0, 'twitter')
  FROM generate_series(0, 5) n;
SELECT * FROM crid_partition_move_default('np_tw', '1 day', layout => 'twitter');
SELECT * FROM crid_partition_move_default('np_tw', '1 day', layout => 'twitter');
SELECT tableoid::regclass, count(*) FROM np_tw GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM np_tw WHERE snowflake_in(id, '[2026-03-02 06:00, 2026-03-02 07:00)', 'twitter');

-- A key whose DEFAULT mints on the server's layout: the family from the
-- DEFAULT, though minting needs preloading.
CREATE TABLE np_sf (id bigint PRIMARY KEY DEFAULT snowflake_next() CHECK (id >= 0)) PARTITION BY RANGE (id);
SELECT key_family, key_layout = snowflake_layout() AS server_layout FROM crid_partition_key('np_sf');
SELECT count(*) AS made FROM crid_partition_create('np_sf', '1 month', '2026-01-01', '2026-03-01');

CREATE TABLE np_uv (id uuid PRIMARY KEY CHECK (crid_uuid_v7_check(id))) PARTITION BY RANGE (id);
SELECT * FROM crid_partition_create('np_uv', '1 week', '2026-03-02', '2026-03-09');
INSERT INTO np_uv SELECT uuid_generate_v7('2026-03-02'::timestamptz + n * interval '1 day') FROM generate_series(0, 13) n;
SELECT * FROM crid_partition_retire('np_uv', '2026-03-09');
SELECT count(*) AS left_rows FROM np_uv;
DROP TABLE np_tw, np_sf, np_uv;
