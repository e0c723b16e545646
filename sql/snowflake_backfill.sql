-- Snowflake ids for past times: snowflake_pack() gives the exact id
-- of its fields; crid.backfill_node is refused by live minting; and
-- docs/migrations.md's migration of a bigserial table to snowflake ids ordered by
-- created_at, statement by statement, on 200,000 rows spread over a day:
-- distinct ids that sort like created_at, decode to each row's millisecond,
-- never equal an id minted live meanwhile on other nodes at the same
-- milliseconds, and come out the same when the backfill is run again or is
-- interrupted and resumed. This server runs with crid.backfill_node = 1000.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';
CREATE SCHEMA sf_backfill;
SET search_path = sf_backfill, public;

------------------------------------------------------------------------------
-- snowflake_pack: the exact id of its fields
------------------------------------------------------------------------------

-- Published ids, rebuilt from their time and fields: Discord's developer
-- documentation (2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment
-- 7) and Twitter's tweet 1050118621198921728.
SELECT snowflake_pack('2016-04-30 11:18:25.796+00', 1 << 5, 7, 'discord') AS discord_175928847299117063,
       snowflake_pack(p.ts, p.node, p.sequence, 'twitter') AS twitter_1050118621198921728
FROM snowflake_parse(1050118621198921728, 'twitter') p;
-- Instagram's "Sharding & IDs at Instagram": 1387263000 ms after its epoch,
-- shard 1341, sequence 5001 % 1024.
SELECT snowflake_pack(snowflake_to_timestamptz(0, 'instagram') + interval '1387263000 ms', 1341, 5001 % 1024,
                      'instagram') = (1387263000::bigint << 23) | (1341 << 10) | (5001 % 1024) AS instagram;

-- Every id the generator mints is the id snowflake_pack gives its fields.
CREATE TEMP TABLE minted AS SELECT snowflake_next(1 + n % 5) AS id FROM generate_series(1, 20000) n;
SELECT count(*) AS ids,
       count(*) FILTER (WHERE snowflake_pack(p.ts, p.node, p.sequence) = m.id) AS packed_back,
       count(*) FILTER (WHERE snowflake_pack(p.ts, p.node, p.sequence, p.gene) = m.id) AS with_gene,
       count(*) FILTER (WHERE snowflake_pack(p.ts, p.node, p.sequence, snowflake_layout()) = m.id) AS with_layout
FROM minted m, LATERAL snowflake_parse(m.id) p;

-- The time is floored to its unit: every microsecond of a millisecond packs
-- alike, sequence 0 on node 0 is the floor, the last node and sequence the
-- id just below the next millisecond's floor. Sonyflake counts 10 ms.
SELECT count(DISTINCT snowflake_pack('2026-05-01 10:00:00.123+00'::timestamptz + us * interval '1 microsecond', 7, 9))
           AS ids_of_1000_microseconds,
       snowflake_pack('2026-05-01 10:00:00.123999+00', 0, 0) = snowflake_floor('2026-05-01 10:00:00.123+00') AS is_the_floor,
       snowflake_pack('2026-05-01 10:00:00.123+00', 1023, 4095) + 1 = snowflake_floor('2026-05-01 10:00:00.124+00')
           AS last_of_its_millisecond
FROM generate_series(0, 999) us;
SELECT snowflake_pack('2026-05-01 10:00:00.129+00', 5, 3, 'sonyflake') = snowflake_pack('2026-05-01 10:00:00.120+00', 5, 3, 'sonyflake')
           AS same_10_ms,
       snowflake_pack('2026-05-01 10:00:00.130+00', 5, 3, 'sonyflake') > snowflake_pack('2026-05-01 10:00:00.129+00', 5, 3, 'sonyflake')
           AS next_10_ms,
       * FROM snowflake_parse(snowflake_pack('2026-05-01 10:00:00.125+00', 65535, 255, 'sonyflake'), 'sonyflake');
-- The ends of the default layout, and a gene.
SELECT snowflake_pack('2026-01-01 00:00:00+00', 0, 0) AS first_id,
       snowflake_pack('2095-09-07 15:47:35.551+00', 1023, 4095) AS last_id,
       snowflake_pack('2026-05-01+00', 3, 4, 5, 'epoch=2020-01-01,node=8,sequence=12,gene=3') & 7 AS gene;
-- With a layout the function is IMMUTABLE (an index or generated column may
-- use it); with the server's, STABLE.
SELECT p.oid::regprocedure, p.provolatile, p.proisstrict
FROM pg_proc p WHERE p.proname = 'snowflake_pack' ORDER BY p.pronargs, p.oid::regprocedure::text;

-- Every bad argument: its SQLSTATE and a message naming the value and limit.
SELECT what, regress.error_of(call) AS error
FROM (VALUES
    ('NULL time', 'SELECT snowflake_pack(NULL, 1, 1)'),
    ('NULL node', 'SELECT snowflake_pack(now(), NULL, 1)'),
    ('NULL sequence', 'SELECT snowflake_pack(now(), 1, NULL)'),
    ('NULL gene', 'SELECT snowflake_pack(now(), 1, 1, NULL::integer)'),
    ('NULL layout', 'SELECT snowflake_pack(now(), 1, 1, NULL::text)'),
    ('NULL layout with a gene', 'SELECT snowflake_pack(now(), 1, 1, 0, NULL)'),
    ('infinite time', $$SELECT snowflake_pack('infinity', 1, 1)$$),
    ('time before the epoch', $$SELECT snowflake_pack('2025-12-31 23:59:59.999+00', 1, 1)$$),
    ('time past the layout', $$SELECT snowflake_pack('2095-09-07 15:47:35.552+00', 1, 1)$$),
    ('time before a preset''s epoch', $$SELECT snowflake_pack('2010-01-01+00', 1, 1, 'twitter')$$),
    ('node too large', 'SELECT snowflake_pack(now(), 1024, 1)'),
    ('negative node', 'SELECT snowflake_pack(now(), -1, 1)'),
    ('sequence too large', 'SELECT snowflake_pack(now(), 1, 4096)'),
    ('negative sequence', 'SELECT snowflake_pack(now(), 1, -2147483648)'),
    ('sequence of a preset', $$SELECT snowflake_pack(now(), 1, 1024, 'instagram')$$),
    ('gene without gene bits', 'SELECT snowflake_pack(now(), 1, 1, 1)'),
    ('gene too large', $$SELECT snowflake_pack(now(), 1, 1, 8, 'epoch=2020-01-01,node=8,sequence=12,gene=3')$$),
    ('negative gene', $$SELECT snowflake_pack(now(), 1, 1, -1, 'epoch=2020-01-01,node=8,sequence=12,gene=3')$$),
    ('unknown layout', $$SELECT snowflake_pack(now(), 1, 1, 'mars')$$),
    ('bad layout', $$SELECT snowflake_pack(now(), 1, 1, 0, 'epoch=2020-01-01,node=17,sequence=12')$$)
) AS c(what, call)
ORDER BY what;

-- A row number or a count is bigint: snowflake_pack takes it as the sequence
-- (and node) without a cast, with the same ids and the same range checks;
-- integer arguments and NULL or quoted literals still resolve as before.
SELECT n, snowflake_pack('2026-05-01 10:00:00.123+00', 7, n - 1) AS id,
       snowflake_pack('2026-05-01 10:00:00.123+00', 7, (n - 1)::integer) AS same_as_integer,
       snowflake_pack('2026-05-01 10:00:00.123+00', 7, n - 1, 'twitter') = snowflake_pack('2026-05-01 10:00:00.123+00', 7, (n - 1)::integer, 'twitter') AS layout,
       snowflake_pack('2026-05-01+00', 3, n - 1, 5, 'epoch=2020-01-01,node=8,sequence=12,gene=3')
         = snowflake_pack('2026-05-01+00', 3, (n - 1)::integer, 5, 'epoch=2020-01-01,node=8,sequence=12,gene=3') AS gene_layout,
       snowflake_pack('2026-05-01 10:00:00.123+00', 7, n - 1, 0) = snowflake_pack('2026-05-01 10:00:00.123+00', 7, (n - 1)::integer, 0) AS gene
FROM (SELECT row_number() OVER () AS n FROM generate_series(1, 3)) r;
SELECT snowflake_pack('2026-05-01 10:00:00.123+00', 7, count(*)) = snowflake_pack('2026-05-01 10:00:00.123+00', 7, 3) AS count_as_sequence
FROM generate_series(1, 3);
SELECT what, regress.error_of(call) AS error
FROM (VALUES
    ('bigint NULL sequence', 'SELECT snowflake_pack(now(), 1, NULL::bigint)'),
    ('bigint NULL node', 'SELECT snowflake_pack(now(), NULL::bigint, 1::bigint)'),
    ('bigint sequence too large', 'SELECT snowflake_pack(now(), 1, 4096::bigint)'),
    ('bigint sequence beyond integer', 'SELECT snowflake_pack(now(), 1, 5000000000)'),
    ('bigint negative sequence', 'SELECT snowflake_pack(now(), 1, -9223372036854775808)'),
    ('bigint node beyond integer', 'SELECT snowflake_pack(now(), 9999999999, 1)'),
    ('bigint sequence of a preset', $$SELECT snowflake_pack(now(), 1, 1024::bigint, 'instagram')$$),
    ('bigint sequence with a gene', $$SELECT snowflake_pack(now(), 1, 4096::bigint, 0, 'twitter')$$),
    ('integer literal sequence', 'SELECT snowflake_pack(now(), 1, 1) IS NOT NULL'),
    ('quoted literal sequence', $$SELECT snowflake_pack('2026-05-01+00', 1, '1') = snowflake_pack('2026-05-01+00', 1, 1)$$)
) AS c(what, call)
ORDER BY what;

------------------------------------------------------------------------------
-- The node kept for backfills: live minting refuses it
------------------------------------------------------------------------------

SHOW crid.backfill_node;
SELECT what, regress.error_of(call) AS error
FROM (VALUES
    ('snowflake_next(node)', 'SELECT snowflake_next(1000)'),
    ('snowflake_next(node, gene)', 'SELECT snowflake_next(1000, 0)'),
    ('change it in a session', 'SET crid.backfill_node = 5')
) AS c(what, call)
ORDER BY what;
SET crid.node_id = 1000;
SELECT regress.error_of('SELECT snowflake_next()') AS "snowflake_next() with crid.node_id = crid.backfill_node";
RESET crid.node_id;
-- Its neighbours mint as always.
SELECT (snowflake_parse(snowflake_next(999))).node AS node_999, (snowflake_parse(snowflake_next(1001))).node AS node_1001;

------------------------------------------------------------------------------
-- snowflake_backfill_plan: what it refuses
------------------------------------------------------------------------------

-- A millisecond holds 4,096 rows (the sequences of the backfill node); one
-- more is an ERROR naming the first such millisecond, and nothing is planned.
CREATE TABLE burst (id bigint PRIMARY KEY, created_at timestamptz, new_id bigint, note text);
INSERT INTO burst SELECT g, '2026-06-01 10:00:00.5001+00', NULL FROM generate_series(1, 4096) g;
INSERT INTO burst SELECT 10000 + g, '2026-06-01 10:00:00.7+00', NULL FROM generate_series(1, 4000) g;
SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan') AS expression;
SELECT count(*) AS planned, count(DISTINCT new_id) AS distinct_ids, max((snowflake_parse(new_id)).sequence) AS last_sequence
FROM burst_plan;
DROP TABLE burst_plan;
INSERT INTO burst VALUES (5000, '2026-06-01 10:00:00.500999+00', NULL), (20000, '2026-06-01 10:00:00.7+00', NULL),
                         (30000, '2026-06-01 11:00:00+00', NULL);
INSERT INTO burst SELECT 40000 + g, '2026-06-01 11:00:00+00', NULL FROM generate_series(1, 4096) g;
SELECT regress.error_of($$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan')$$) AS too_many;
-- Rows already filled are not planned: now each millisecond fits.
UPDATE burst SET new_id = 0 WHERE id IN (5000, 30000);
SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan') IS NOT NULL AS planned;
DROP TABLE burst_plan;
-- Sonyflake: 256 sequences in 10 ms.
SELECT regress.error_of($$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan', 5, 'sonyflake')$$)
    AS too_many_for_sonyflake;
-- Every other bad argument: its SQLSTATE and message.
INSERT INTO burst VALUES (7000000, NULL, NULL);
CREATE VIEW burst_view AS SELECT * FROM burst;
CREATE TABLE keyless (created_at timestamptz, new_id bigint);
CREATE TABLE other (id bigint PRIMARY KEY, created_at timestamptz);
CREATE TABLE local_times (id int PRIMARY KEY, created_at timestamp, new_id bigint);
SELECT what, regress.error_of(call) AS error
FROM (VALUES
    ('a NULL time', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan')$$),
    ('a view', $$SELECT snowflake_backfill_plan('burst_view', 'new_id', 'created_at', 'burst_plan')$$),
    ('no primary key', $$SELECT snowflake_backfill_plan('keyless', 'new_id', 'created_at', 'burst_plan')$$),
    ('no such column', $$SELECT snowflake_backfill_plan('burst', 'nope', 'created_at', 'burst_plan')$$),
    ('no such time column', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'nope', 'burst_plan')$$),
    ('a text column', $$SELECT snowflake_backfill_plan('burst', 'note', 'created_at', 'burst_plan')$$),
    ('the primary key', $$SELECT snowflake_backfill_plan('other', 'id', 'created_at', 'burst_plan')$$),
    ('a timestamp without zone', $$SELECT snowflake_backfill_plan('local_times', 'new_id', 'created_at', 'burst_plan')$$),
    ('a time column that is no time', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'note', 'burst_plan')$$),
    ('a plan name of three parts', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'a.b.c')$$),
    ('a table that is not a plan', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'other')$$),
    ('a node beyond the layout', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan', 1024, 'crid')$$),
    ('a bad layout', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan', 1, 'mars')$$),
    ('a NULL argument', $$SELECT snowflake_backfill_plan('burst', 'new_id', NULL, 'burst_plan')$$),
    ('a NULL node', $$SELECT snowflake_backfill_plan('burst', 'new_id', 'created_at', 'burst_plan', NULL, 'crid')$$)
) AS c(what, call)
ORDER BY what;
SELECT count(*) AS plans_left_behind FROM pg_class WHERE relname = 'burst_plan';
DROP VIEW burst_view;
DROP TABLE burst, keyless, other, local_times;

------------------------------------------------------------------------------
-- docs/migrations.md: a bigserial table moved to snowflake ids ordered by created_at
------------------------------------------------------------------------------

-- Before: bigserial keys. 180,000 orders spread over the day before now,
-- inserted out of time order (so id order is not time order); then other
-- nodes (1, 2, 3) mint 200,000 ids live while 20,000 more orders are created
-- at those very milliseconds (up to 1,000 a node and millisecond, so a
-- millisecond never holds more than the backfill node's 4,096 sequences).
CREATE TABLE orders (
    id bigserial PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE order_items (
    id bigserial PRIMARY KEY,
    order_id bigint NOT NULL REFERENCES orders (id),
    sku text NOT NULL
);
SELECT setseed(0.13);
INSERT INTO orders (created_at)
SELECT now() - interval '1 day' + random() * interval '1 day' FROM generate_series(1, 180000);
CREATE TABLE live AS SELECT snowflake_next(1 + n % 3) AS id FROM generate_series(1, 200000) n;
INSERT INTO orders (created_at)
SELECT snowflake_to_timestamptz(l.id) + (random() * 999)::integer * interval '1 microsecond'
FROM live l, LATERAL snowflake_parse(l.id) p WHERE p.sequence < 1000 ORDER BY random() LIMIT 20000;
INSERT INTO order_items (order_id, sku) SELECT 1 + (g * 7919) % 200000, 'sku-' || g FROM generate_series(1, 20000) g;
SELECT count(*) AS orders, max(created_at) - min(created_at) < interval '1 day 1 minute' AS within_a_day,
       count(*) FILTER (WHERE created_at >= (SELECT snowflake_to_timestamptz(min(id)) FROM live)) AS at_live_times
FROM orders;

-- postgresql.conf of this server: crid.backfill_node = 1000; new ids on crid.node_id.
SET crid.node_id = 2;

-- 1. Expand: new rows get live ids at once; a trigger copies the new key
-- into new items.
ALTER TABLE orders ADD COLUMN new_id bigint;
ALTER TABLE orders ALTER COLUMN new_id SET DEFAULT snowflake_next();
ALTER TABLE order_items ADD COLUMN new_order_id bigint;
CREATE FUNCTION order_items_new_order_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.new_order_id := (SELECT o.new_id FROM orders o WHERE o.id = NEW.order_id);
    RETURN NEW;
END $$;
CREATE TRIGGER order_items_new_order_id BEFORE INSERT OR UPDATE OF order_id ON order_items
    FOR EACH ROW EXECUTE FUNCTION order_items_new_order_id();

-- The application keeps writing with the old keys only.
INSERT INTO orders (created_at) SELECT now() FROM generate_series(1, 3);
INSERT INTO order_items (order_id, sku) VALUES (1, 'during-expand'), ((SELECT max(id) FROM orders), 'new-order');

-- 2. Backfill: the plan ranks the rows of each millisecond by (created_at,
-- id) once, and crid_backfill copies its ids in committed batches; then the
-- references.
CALL crid_backfill('orders', 'new_id',
                   snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan'));
CALL crid_backfill('order_items', 'new_order_id',
                   '(SELECT o.new_id FROM orders o WHERE o.id = order_items.order_id)');

-- 3. Verify: all zero.
SELECT count(*) FILTER (WHERE new_id IS NULL) AS without_id, count(*) - count(DISTINCT new_id) AS duplicates,
       count(*) FILTER (WHERE (snowflake_parse(new_id)).node = current_setting('crid.backfill_node')::integer
                          AND snowflake_to_timestamptz(new_id) <> date_trunc('milliseconds', created_at))
           AS not_at_created_at
FROM orders;
SELECT count(*) AS items_disagreeing FROM order_items i JOIN orders o ON o.id = i.order_id
WHERE i.new_order_id IS DISTINCT FROM o.new_id;

-- What the test adds to step 3. The 200,000 old orders have ids of node
-- 1000 that decode to their created_at's millisecond and sort exactly like
-- (created_at, id); the rows written meanwhile have live ids of node 2.
CREATE TABLE backfilled AS
SELECT o.id, o.created_at, o.new_id, p.node, p.sequence
FROM orders o, LATERAL snowflake_parse(o.new_id) p WHERE p.node = 1000;
SELECT count(*) AS backfilled, count(DISTINCT new_id) AS distinct_ids,
       count(*) FILTER (WHERE snowflake_to_timestamptz(new_id) = date_trunc('milliseconds', created_at)) AS at_their_ms,
       (SELECT count(*) FROM orders o WHERE (snowflake_parse(o.new_id)).node = 2) AS live_meanwhile
FROM backfilled;
SELECT count(*) FILTER (WHERE prev >= new_id) AS out_of_created_at_order
FROM (SELECT new_id, lag(new_id) OVER (ORDER BY created_at, id) AS prev FROM backfilled) s;
-- No backfilled id equals an id minted live on nodes 1 to 3 at the same
-- milliseconds, though many share a live id's millisecond and sequence:
-- packed on a live node instead of the reserved one, they would collide.
SELECT (SELECT count(*) FROM backfilled b JOIN live l ON l.id = b.new_id) AS equal_to_a_live_id,
       (SELECT count(*) FROM backfilled b JOIN live l
          ON b.new_id = snowflake_pack(snowflake_to_timestamptz(l.id), 1000, (snowflake_parse(l.id)).sequence)) > 0
           AS share_ms_and_sequence_with_live_ids;

-- Run again from scratch: the same rows get the same ids.
UPDATE orders SET new_id = NULL WHERE id IN (SELECT id FROM backfilled);
DROP TABLE orders_new_id_plan;
CALL crid_backfill('orders', 'new_id',
                   snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan'));
SELECT count(*) AS rows, count(*) FILTER (WHERE o.new_id = b.new_id) AS same_id
FROM backfilled b JOIN orders o USING (id);

-- Interrupted and resumed, with orders deleted in between: the plan made
-- before is used again, so every order left keeps the id of the first run,
-- although ranks computed again would now differ (why the plan is kept).
UPDATE orders SET new_id = NULL WHERE id IN (SELECT id FROM backfilled);
DROP TABLE orders_new_id_plan;
CREATE TABLE fail_at (id bigint);
INSERT INTO fail_at SELECT id FROM backfilled ORDER BY id OFFSET 120000 LIMIT 1;
\set VERBOSITY terse
CALL crid_backfill('orders', 'new_id',
    format('CASE WHEN id = (SELECT id FROM fail_at) THEN (1 / (id - id))::bigint ELSE %s END',
           snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan')));
\set VERBOSITY default
SELECT count(*) FILTER (WHERE new_id IS NULL) AS left_to_fill, state
FROM orders, crid_backfill_progress WHERE relation = 'orders'::regclass GROUP BY state;
-- Delete the first order of up to 300 milliseconds that hold two or more,
-- among those not filled yet and without items.
CREATE TABLE deleted AS
SELECT id FROM (SELECT b.id, o.new_id, row_number() OVER w AS r,
                       count(*) OVER (PARTITION BY date_trunc('milliseconds', b.created_at)) AS n
                FROM backfilled b JOIN orders o USING (id)
                WINDOW w AS (PARTITION BY date_trunc('milliseconds', b.created_at) ORDER BY b.created_at, b.id)) s
WHERE r = 1 AND n > 1 AND new_id IS NULL AND NOT EXISTS (SELECT FROM order_items i WHERE i.order_id = s.id)
ORDER BY id LIMIT 300;
DELETE FROM orders WHERE id IN (SELECT id FROM deleted);
SELECT (SELECT count(*) > 0 FROM deleted) AS deleted_some, count(*) > 0 AS ranks_now_different
FROM (SELECT b.sequence, row_number() OVER (PARTITION BY date_trunc('milliseconds', b.created_at)
                                            ORDER BY b.created_at, b.id) - 1 AS rank
      FROM backfilled b JOIN orders o USING (id)) s
WHERE rank <> sequence;
DELETE FROM fail_at;
CALL crid_backfill('orders', 'new_id',
                   snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan'));
SELECT count(*) + (SELECT count(*) FROM deleted) AS rows_and_deleted,
       count(*) FILTER (WHERE o.new_id = b.new_id) = count(*) AS all_same_id,
       (SELECT count(*) FROM orders WHERE new_id IS NULL) AS without_id
FROM backfilled b JOIN orders o USING (id);
-- A plan of another backfill (here: on another node) by that name is
-- refused, and one of this backfill is used as it is, whatever the
-- search_path.
SELECT regress.error_of($$SELECT snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan',
                                                 999, snowflake_layout())$$) AS other_plan;
SELECT snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan') AS expression;
SET search_path = public;
SELECT snowflake_backfill_plan('sf_backfill.orders', 'new_id', 'created_at', 'orders_new_id_plan') AS expression;
SET search_path = sf_backfill, public;

-- 4. Swap, as for UUIDv7 keys.
CREATE UNIQUE INDEX CONCURRENTLY orders_new_id_key ON orders (new_id);
CREATE INDEX CONCURRENTLY order_items_new_order_id_idx ON order_items (new_order_id);
ALTER TABLE orders ADD CONSTRAINT orders_new_id_not_null CHECK (new_id IS NOT NULL) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_new_id_not_null;
ALTER TABLE order_items ADD CONSTRAINT order_items_new_order_id_not_null CHECK (new_order_id IS NOT NULL) NOT VALID;
ALTER TABLE order_items VALIDATE CONSTRAINT order_items_new_order_id_not_null;
BEGIN;
ALTER TABLE orders ALTER COLUMN new_id SET NOT NULL;
ALTER TABLE order_items ALTER COLUMN new_order_id SET NOT NULL;
ALTER TABLE orders DROP CONSTRAINT orders_new_id_not_null;
ALTER TABLE order_items DROP CONSTRAINT order_items_new_order_id_not_null;
DROP TRIGGER order_items_new_order_id ON order_items;
ALTER TABLE order_items DROP CONSTRAINT order_items_order_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_pkey;
ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY USING INDEX orders_new_id_key;
ALTER TABLE order_items ADD CONSTRAINT order_items_order_id_fkey
    FOREIGN KEY (new_order_id) REFERENCES orders (new_id) NOT VALID;
ALTER TABLE orders RENAME COLUMN id TO legacy_id;
ALTER TABLE orders RENAME COLUMN new_id TO id;
ALTER TABLE order_items RENAME COLUMN order_id TO legacy_order_id;
ALTER TABLE order_items ALTER COLUMN legacy_order_id DROP NOT NULL;
ALTER TABLE order_items RENAME COLUMN new_order_id TO order_id;
COMMIT;
ALTER TABLE order_items VALIDATE CONSTRAINT order_items_order_id_fkey;

-- The application now writes snowflake keys.
INSERT INTO orders (created_at) VALUES (now()) RETURNING (snowflake_parse(id)).node;

-- 5. Contract: the plan, the old keys and their sequence go.
DROP TABLE orders_new_id_plan;
DROP FUNCTION order_items_new_order_id();
ALTER TABLE order_items DROP COLUMN legacy_order_id;
ALTER TABLE orders DROP COLUMN legacy_id;

SELECT (SELECT count(*) FROM orders) + (SELECT count(*) FROM deleted) AS orders_and_deleted,
       (SELECT count(*) FROM order_items) AS items,
       (SELECT count(*) FROM order_items i LEFT JOIN orders o ON o.id = i.order_id WHERE o.id IS NULL) AS orphans,
       (SELECT count(*) FROM pg_class WHERE relname = 'orders_id_seq' AND relnamespace = 'sf_backfill'::regnamespace)
           AS old_sequences;
-- History answers time queries through the new primary key: an hour of it
-- by the decoded time, through the index, counts what created_at counts.
-- The constraint tells the planner hook no key is negative, so the plan is
-- the plain id range.
ALTER TABLE orders ADD CONSTRAINT orders_id_not_negative CHECK (id >= 0);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT count(*) FROM orders
WHERE snowflake_to_timestamptz(id) >= '2026-05-01 10:00' AND snowflake_to_timestamptz(id) < '2026-05-01 11:00';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FILTER (WHERE snowflake_to_timestamptz(id) >= h AND snowflake_to_timestamptz(id) < h + interval '1 hour')
       = count(*) FILTER (WHERE created_at >= h AND created_at < h + interval '1 hour') AS same_hour,
       count(*) FILTER (WHERE created_at >= h AND created_at < h + interval '1 hour') > 0 AS not_empty
FROM orders, (SELECT date_trunc('hour', now() - interval '12 hours') AS h) x;

RESET crid.node_id;
DROP SCHEMA sf_backfill CASCADE;
RESET search_path;
