-- crid ids with crid preloaded: the registry primitive and its arithmetic,
-- generation from the background worker's blocks, decoders, eviction, and
-- every kind of bad input.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';
-- The worker may still be connecting to this new database.
SET crid.allocation_timeout = '60s';
\set VERBOSITY default

-- The registry primitive: 100, 100, 50 on one second give 0, 100, 200.
SELECT crid_allocate(5, 100) AS first, crid_allocate(5, 100) AS second, crid_allocate(5, 50) AS third;
SELECT * FROM crid_allocations WHERE ts = 5;
-- Another second starts from 0.
SELECT crid_allocate(6, 10);
-- An outside node speaking the protocol in plain SQL sees the same rows.
INSERT INTO crid_allocations AS a (ts, next_seq) VALUES (5, 1000)
    ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq RETURNING next_seq - 1000 AS start;
SELECT crid_allocate(5, 1);
-- The last block of a second may end exactly at 2^32.
SELECT crid_allocate(7, 4294967296);
DELETE FROM crid_allocations WHERE ts IN (5, 6, 7);

-- Generation: ids from the worker's blocks, decoding to now, all distinct.
SELECT abs(extract(epoch FROM crid_to_timestamptz(crid_next()) - clock_timestamp())) < 60 AS now_ish;
CREATE TEMP TABLE got AS SELECT crid_next() AS id FROM generate_series(1, 100000);
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, min(id) > 0 AS positive FROM got;
-- Every id lies in a block the registry handed out (an id of a second
-- without a registry row counts against it).
SELECT count(*) AS ids, bool_and(a.ts IS NOT NULL AND p.sequence < a.next_seq) AS inside_reserved_blocks
FROM got CROSS JOIN LATERAL crid_parse(id) p LEFT JOIN crid_allocations a ON a.ts = p.registry_ts;
-- Ids used by a transaction that rolls back are not handed out again: none
-- of the 1000 is among the next 20000 (kept in a psql variable, as the
-- rollback takes their table with it).
BEGIN;
CREATE TEMP TABLE rolled_back AS SELECT crid_next() AS id FROM generate_series(1, 1000);
SELECT count(DISTINCT id) AS rolled_back, string_agg(id::text, ',') AS rolled_back_ids FROM rolled_back \gset
ROLLBACK;
SELECT :rolled_back AS rolled_back, count(*) AS reissued
FROM (SELECT crid_next() AS id FROM generate_series(1, 20000)) s
WHERE id = ANY (string_to_array(:'rolled_back_ids', ',')::bigint[]);

-- Decoders and the range boundary.
SELECT * FROM crid_parse((28828458::bigint << 32) | 12345);
SELECT crid_to_timestamptz((28828458::bigint << 32) | 12345);
SELECT crid_floor('2026-11-30 15:54:18.999+00') = 28828458::bigint << 32 AS floor_of_second;
SELECT crid_floor('2026-01-01 00:00:00+00') AS epoch_floor;
SELECT crid_floor(now() - interval '1 minute') < crid_next() AS floor_before_now;

-- Statistics.
SELECT metric, value > 0 AS positive FROM crid_stats()
WHERE family = 'crid' AND metric IN ('ids_served', 'blocks_reserved', 'ids_reserved', 'registry_commits')
ORDER BY metric;

-- Eviction keeps a day (crid.evict_min_age) of rows: a clock stepped back into
-- an evicted second would restart its sequences from 0.
INSERT INTO crid_allocations VALUES (10, 50), (11, 50);
SELECT crid_evict('2026-01-01 00:00:11+00') AS evicted;
SELECT ts FROM crid_allocations WHERE ts IN (10, 11) ORDER BY ts;
-- and no block is reserved in an evicted second again: its row would start
-- at sequence 0 and repeat ids handed out before the eviction.
SELECT crid_allocate(10, 1);
DELETE FROM crid_allocations WHERE ts IN (10, 11);

-- Who may use the registry: nobody but the owner, unless granted.
CREATE ROLE crid_app;
SET ROLE crid_app;
SELECT crid_next() > 0 AS app_can_mint;
SELECT crid_allocate(99, 1);
INSERT INTO crid_allocations VALUES (99, 1);
UPDATE crid_allocations SET next_seq = 0;
SELECT crid_evict('2026-01-01');
RESET ROLE;
DROP ROLE crid_app;

-- Bad input --------------------------------------------------------------------
SELECT crid_allocate(-1, 10);
SELECT crid_allocate(0, 0);
SELECT crid_allocate(0, -5);
SELECT crid_allocate(0, 4294967297);
SELECT crid_allocate(2147483648, 10);
SELECT crid_allocate(NULL, 10);
SELECT crid_allocate(12, 4294967296);
SELECT crid_allocate(12, 1);
SELECT next_seq FROM crid_allocations WHERE ts = 12;
DELETE FROM crid_allocations WHERE ts = 12;
SELECT crid_parse(-1);
SELECT crid_to_timestamptz(-42);
SELECT crid_floor('2025-12-31 23:59:59+00');
SELECT crid_floor('2094-01-01+00');
SELECT crid_floor('infinity');
SELECT crid_floor(NULL);
SELECT crid_evict(NULL);
SELECT crid_evict('infinity');

SELECT query, regress.sqlstate_of(query) AS sqlstate FROM (VALUES
    ('SELECT crid_allocate(-1, 10)'),
    ('SELECT crid_allocate(0, 0)'),
    ('SELECT crid_allocate(0, 4294967297)'),
    ('SELECT crid_allocate(NULL, 1)'),
    ('SELECT crid_parse(-1)'),
    ($q$SELECT crid_floor('2025-01-01')$q$),
    ($q$SELECT crid_floor(NULL)$q$),
    ($q$SELECT crid_evict(now())$q$),
    ($q$SELECT crid_evict(now() - interval '2 hours')$q$),
    ($q$SELECT crid_evict(now() - interval '2 days')$q$)
) v(query);
