-- crid ids for past times: crid_pack() gives the exact id of its
-- fields; crid_reserve() reserves in the registry rows live blocks come from;
-- docs/migrations.md's migration of a bigserial table to crid ids ordered by
-- created_at, statement by statement, on 200,000 rows spread over a day and
-- over the very seconds live ids were minted in: distinct ids that sort like
-- created_at, decode to each row's second and never equal a live id, and a
-- re-run that changes nothing; and the eviction horizon, which crid_reserve
-- and crid_allocate respect.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';
CREATE SCHEMA crid_past;
SET search_path = crid_past, public;

------------------------------------------------------------------------------
-- crid_pack: the exact id of its fields
------------------------------------------------------------------------------

-- The Go crid library's parser test: second 500 after the epoch, sequence 7.
SELECT crid_pack('2026-01-01 00:08:20.999+00', 7) = (500::bigint << 32) | 7 AS go_library_id;

-- Every id crid_next mints is the id crid_pack gives its second and sequence.
CREATE TABLE live (id bigint PRIMARY KEY);
INSERT INTO live SELECT crid_next() FROM generate_series(1, 20000);
SELECT count(*) AS ids, count(*) FILTER (WHERE crid_pack(p.ts, p.sequence) = l.id) AS packed_back
FROM live l, LATERAL crid_parse(l.id) p;

------------------------------------------------------------------------------
-- crid_reserve: a block of the registry row live blocks come from
------------------------------------------------------------------------------

-- In each second crid_next served from, a reservation starts above every
-- sequence it served there, and the next one right after it.
CREATE TEMP TABLE live_seconds AS
SELECT crid_to_timestamptz(id) AS at, max((crid_parse(id)).sequence) AS top FROM live GROUP BY 1;
CREATE TEMP TABLE reserved AS SELECT at, top, crid_reserve(at, 10) AS first, crid_reserve(at, 5) AS second
FROM live_seconds;
SELECT count(*) > 0 AS live_seconds, bool_and(first > top) AS above_live, bool_and(second = first + 10) AS consecutive
FROM reserved;

------------------------------------------------------------------------------
-- docs/migrations.md: a bigserial table moved to crid ids ordered by created_at
------------------------------------------------------------------------------

CREATE TABLE orders (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL);
-- 190,000 orders spread over a day that ended an hour ago (about 2 a
-- second; not up to now: the seconds around the moment this registry table
-- was made, minutes ago on a slow run, are refused to every reservation,
-- see docs/migrations.md), then 10,000
-- in the seconds crid_next served the ids above in, where a block of the
-- registry started at sequence 0: ids packed from ranks alone would fall on
-- sequences the registry already handed out there (which live ids they hit
-- depends on where the worker's blocks started, so the check is on the
-- registry's rows).
INSERT INTO orders (created_at)
SELECT date_trunc('second', now()) - interval '25 hours' + n * interval '454 ms' FROM generate_series(1, 190000) n;
INSERT INTO orders (created_at)
SELECT crid_to_timestamptz(id) + (id % 1000) * interval '1 ms' FROM live ORDER BY id LIMIT 10000;
SELECT count(*) AS orders, count(DISTINCT date_trunc('second', created_at)) > 80000 AS seconds_over_a_day,
       count(*) FILTER (WHERE row_number - 1 < (SELECT a.next_seq FROM crid_allocations a
                                                 WHERE a.ts = crid_floor(created_at) >> 32))
           > 0 AS ranks_alone_would_collide
FROM (SELECT created_at, row_number() OVER (PARTITION BY crid_floor(created_at) ORDER BY created_at, id)
      FROM orders) o;

-- 1. Expand: new rows get live ids at once.
ALTER TABLE orders ADD COLUMN new_id bigint;
ALTER TABLE orders ALTER COLUMN new_id SET DEFAULT crid_next();

-- 2. Backfill: one reservation per second of history, ids from the rank of
--    each row in its second; crid_backfill copies them in committed batches.
CREATE TABLE IF NOT EXISTS orders_new_id_plan AS
WITH ranked AS (
    SELECT id, created_at, crid_floor(created_at) AS second,
           row_number() OVER (PARTITION BY crid_floor(created_at) ORDER BY created_at, id) - 1 AS rank
    FROM orders WHERE new_id IS NULL),
blocks AS MATERIALIZED (
    SELECT second, crid_reserve(min(created_at), count(*)) AS start FROM ranked GROUP BY second)
SELECT r.id, crid_pack(r.created_at, b.start + r.rank) AS new_id
FROM ranked r JOIN blocks b USING (second);
ALTER TABLE orders_new_id_plan ADD PRIMARY KEY (id);
-- Orders placed while the backfill runs take live ids.
INSERT INTO orders (created_at) SELECT now() FROM generate_series(1, 1000);
CALL crid_backfill('orders', 'new_id', '(SELECT p.new_id FROM orders_new_id_plan p WHERE p.id = orders.id)',
                   50000, '0');

-- 3. Verify: every row filled, no id twice, each old row's id of its
--    created_at's second, and no old id equal to an id minted live (before
--    the backfill, as defaults during it, and after it).
INSERT INTO live SELECT crid_next() FROM generate_series(1, 20000);
INSERT INTO live SELECT new_id FROM orders WHERE id > 200000;
SELECT count(*) AS orders, count(*) FILTER (WHERE new_id IS NULL) AS unfilled,
       count(*) - count(DISTINCT new_id) AS duplicates,
       count(*) FILTER (WHERE id <= 200000 AND crid_to_timestamptz(new_id) <> date_trunc('second', created_at))
           AS wrong_second,
       count(*) FILTER (WHERE id <= 200000 AND new_id IN (SELECT id FROM live)) AS equal_to_live
FROM orders;
-- The old ids sort exactly as (created_at, id) do.
SELECT count(*) AS out_of_order
FROM (SELECT new_id < lag(new_id) OVER (ORDER BY created_at, id) AS before_previous FROM orders WHERE id <= 200000) o
WHERE before_previous;

-- Running step 2 again changes nothing: the plan exists, so nothing is
-- reserved again, and crid_backfill finds no row left.
CREATE TEMP TABLE filled AS SELECT id, new_id FROM orders;
CREATE TEMP TABLE registry_before AS SELECT ts, next_seq FROM crid_allocations;
CREATE TABLE IF NOT EXISTS orders_new_id_plan AS
WITH ranked AS (
    SELECT id, created_at, crid_floor(created_at) AS second,
           row_number() OVER (PARTITION BY crid_floor(created_at) ORDER BY created_at, id) - 1 AS rank
    FROM orders WHERE new_id IS NULL),
blocks AS MATERIALIZED (
    SELECT second, crid_reserve(min(created_at), count(*)) AS start FROM ranked GROUP BY second)
SELECT r.id, crid_pack(r.created_at, b.start + r.rank) AS new_id
FROM ranked r JOIN blocks b USING (second);
CALL crid_backfill('orders', 'new_id', '(SELECT p.new_id FROM orders_new_id_plan p WHERE p.id = orders.id)',
                   50000, '0');
SELECT (SELECT count(*) FROM orders o JOIN filled f USING (id) WHERE o.new_id IS DISTINCT FROM f.new_id) AS changed,
       (SELECT count(*) FROM registry_before b JOIN crid_allocations a USING (ts)
        WHERE a.next_seq <> b.next_seq AND a.ts < (SELECT min((crid_parse(id)).registry_ts) FROM live))
           AS old_seconds_reserved_again;

------------------------------------------------------------------------------
-- The eviction horizon
------------------------------------------------------------------------------

-- A second crid_evict never reached is fine however old: the oldest one
-- kept (the epoch's when nothing was evicted; sql/crid.sql evicts).
SELECT coalesce(max(evicted_before), 0) AS horizon FROM crid_evictions \gset
SELECT crid_reserve('2026-01-01 00:00:00+00'::timestamptz + :horizon * interval '1 s', 1) >= 0
           AS oldest_second_kept;

-- crid_evict records how far it deleted; a later one never lowers it.
SET crid.evict_min_age = 3600;
SELECT crid_evict(now() - interval '12 hours') > 0 AS evicted_rows;
SELECT registry, evicted_before > :horizon AS moved, evicted_before AS horizon FROM crid_evictions \gset
SELECT :'moved' AS horizon_moved;
SELECT :'registry' AS registry;
SELECT crid_evict(now() - interval '20 hours') AS evicted_again,
       (SELECT evicted_before FROM crid_evictions WHERE registry = :'registry') = :horizon AS horizon_kept;

-- Seconds before the horizon are refused, by crid_reserve and crid_allocate;
-- the horizon's own second (its row was kept) and later ones are not.
SELECT regress.sqlstate_of(format('SELECT crid_reserve(%L, 1)',
                                  '2026-01-01 00:00:00+00'::timestamptz + (:horizon - 1) * interval '1 s'))
           AS reserve_last_evicted,
       regress.sqlstate_of(format('SELECT crid_reserve(%L, 1)',
                                  '2026-01-01 00:00:00+00'::timestamptz + :horizon * interval '1 s' + interval '999 ms'))
           AS reserve_horizon,
       regress.sqlstate_of(format('SELECT crid_allocate(%s, 1)', :horizon - 1)) AS allocate_last_evicted,
       regress.sqlstate_of(format('SELECT crid_allocate(%s, 1)', :horizon)) AS allocate_horizon;
SELECT regress.error_of($$SELECT crid_reserve('2026-01-01 00:00:00.5+00', 1)$$)
       LIKE '55000: crid_reserve: second 2026-01-01 00:00:00.000+00 (registry ts 0) was evicted: crid_evict deleted '
            'the registry rows of every second before 2026-%' AS names_the_seconds;

-- A backfill of evicted history stops at its plan, reserving nothing.
CREATE TEMP TABLE registry_before_evicted AS SELECT ts, next_seq FROM crid_allocations;
CREATE TABLE old_orders (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL, new_id bigint);
INSERT INTO old_orders (created_at)
SELECT now() - interval '30 minutes' - n * interval '1 hour' FROM generate_series(1, 24) n;
SELECT regress.sqlstate_of($$
    CREATE TABLE old_orders_plan AS
    WITH ranked AS (
        SELECT id, created_at, crid_floor(created_at) AS second,
               row_number() OVER (PARTITION BY crid_floor(created_at) ORDER BY created_at, id) - 1 AS rank
        FROM old_orders WHERE new_id IS NULL),
    blocks AS MATERIALIZED (
        SELECT second, crid_reserve(min(created_at), count(*)) AS start FROM ranked GROUP BY second)
    SELECT r.id, crid_pack(r.created_at, b.start + r.rank) AS new_id
    FROM ranked r JOIN blocks b USING (second)$$) AS plan_of_evicted_history,
       to_regclass('old_orders_plan') IS NULL AS no_plan,
       (SELECT count(*) FROM crid_allocations a FULL JOIN registry_before_evicted b USING (ts)
        WHERE a.next_seq IS DISTINCT FROM b.next_seq
          AND coalesce(a.ts, b.ts) < (SELECT min((crid_parse(id)).registry_ts) FROM live)) AS reserved;

-- A second with too few sequences left: ERROR naming it and the limit.
SELECT regress.error_of(format('SELECT crid_reserve(%L, 4294967296)', now() - interval '2 hours'))
       ~ '^22003: crid_reserve: second .* has [0-9]+ of its 4294967296 sequences left, fewer than n = 4294967296$'
           AS full_second;

RESET crid.evict_min_age;
RESET search_path;
DROP SCHEMA crid_past CASCADE;

-- In another database of this server, crid_reserve would reserve in a table
-- crid_next never takes blocks from: refused.
CREATE DATABASE crid_not_the_registry;
\c crid_not_the_registry
SET client_min_messages = warning;
CREATE EXTENSION crid;
\set VERBOSITY default
SELECT crid_reserve('2026-06-01', 1);
SELECT crid_pack('2026-06-01', 1) > 0 AS packing_works;
\c contrib_regression
DROP DATABASE crid_not_the_registry;
