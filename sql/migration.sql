-- The key migration of docs/migrations.md ("Moving a table to UUIDv7
-- keys"), step by step as written there: bigint keys of orders and of the
-- order_items that reference them become UUIDv7, while the application keeps
-- writing.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';
-- A schema of its own, so the guide's table names do not meet other tests'.
CREATE SCHEMA migration;
SET search_path = migration, public;

-- Before: bigint keys.
CREATE TABLE orders (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE order_items (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id bigint NOT NULL REFERENCES orders (id),
    sku text NOT NULL
);
INSERT INTO orders (created_at) SELECT '2025-01-01'::timestamptz + g * interval '1 hour' FROM generate_series(1, 500) g;
INSERT INTO order_items (order_id, sku) SELECT 1 + g % 500, 'sku-' || g FROM generate_series(1, 2000) g;

-- 1. Expand: the new columns. A default set after ADD COLUMN applies to new
-- rows only (no table rewrite); a trigger copies the new key into new items.
ALTER TABLE orders ADD COLUMN new_id uuid;
ALTER TABLE orders ALTER COLUMN new_id SET DEFAULT uuid_generate_v7();
ALTER TABLE order_items ADD COLUMN new_order_id uuid;
CREATE FUNCTION order_items_new_order_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.new_order_id := (SELECT o.new_id FROM orders o WHERE o.id = NEW.order_id);
    RETURN NEW;
END $$;
CREATE TRIGGER order_items_new_order_id BEFORE INSERT OR UPDATE OF order_id ON order_items
    FOR EACH ROW EXECUTE FUNCTION order_items_new_order_id();

-- The application keeps writing with the old keys only.
INSERT INTO orders (created_at) VALUES (now());
INSERT INTO order_items (order_id, sku) VALUES (1, 'during-expand'), ((SELECT max(id) FROM orders), 'new-order');

-- 2. Backfill: ids for the past from each row's own time and old key, so a
-- re-run gives the same ids; then the references.
CALL crid_backfill('orders', 'new_id', 'uuid_generate_v7_deterministic(created_at, id)');
CALL crid_backfill('order_items', 'new_order_id',
                   '(SELECT o.new_id FROM orders o WHERE o.id = order_items.order_id)');

-- 3. Verify: every row has its new key, no key twice, every reference agrees.
SELECT count(*) FILTER (WHERE new_id IS NULL) AS orders_without_id,
       count(*) - count(DISTINCT new_id) AS duplicate_ids,
       count(*) FILTER (WHERE new_id <> uuid_generate_v7_deterministic(created_at, id)) AS from_the_default
FROM orders;
SELECT count(*) AS items_disagreeing
FROM order_items i JOIN orders o ON o.id = i.order_id
WHERE i.new_order_id IS DISTINCT FROM o.new_id;

-- 4. Swap. Indexes first, without blocking writes; NOT NULL through a
-- validated CHECK, so SET NOT NULL need not scan the table under its lock.
CREATE UNIQUE INDEX CONCURRENTLY orders_new_id_key ON orders (new_id);
CREATE INDEX CONCURRENTLY order_items_new_order_id_idx ON order_items (new_order_id);
ALTER TABLE orders ADD CONSTRAINT orders_new_id_not_null CHECK (new_id IS NOT NULL) NOT VALID;
ALTER TABLE orders VALIDATE CONSTRAINT orders_new_id_not_null;
ALTER TABLE order_items ADD CONSTRAINT order_items_new_order_id_not_null CHECK (new_order_id IS NOT NULL) NOT VALID;
ALTER TABLE order_items VALIDATE CONSTRAINT order_items_new_order_id_not_null;
-- One short transaction swaps keys, references and names.
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

-- The application now writes UUIDv7 keys.
INSERT INTO orders (created_at) VALUES (now()) RETURNING uuid_extract_version(id) AS version;
INSERT INTO order_items (order_id, sku) SELECT id, 'after-swap' FROM orders ORDER BY created_at DESC LIMIT 1;

-- 5. Contract: the old keys go.
DROP FUNCTION order_items_new_order_id();
ALTER TABLE order_items DROP COLUMN legacy_order_id;
ALTER TABLE orders DROP COLUMN legacy_id;

SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM order_items) AS items,
       (SELECT count(*) FROM order_items i LEFT JOIN orders o ON o.id = i.order_id WHERE o.id IS NULL) AS orphans;
-- (NOT NULL constraints left out: PostgreSQL 18 lists them in pg_constraint.)
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid IN ('orders'::regclass, 'order_items'::regclass) AND contype <> 'n' ORDER BY conname;
-- Time queries now use the new primary key, once a constraint says it holds
-- version 7 UUIDs only (the planner hook reads it).
ALTER TABLE orders ADD CONSTRAINT orders_id_v7 CHECK (crid_uuid_v7_check(id));
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (costs off) SELECT * FROM orders WHERE uuid_v7_to_timestamptz(id) >= '2025-01-10' AND uuid_v7_to_timestamptz(id) < '2025-01-11';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS orders_of_2025_01_10
FROM orders WHERE uuid_v7_to_timestamptz(id) >= '2025-01-10' AND uuid_v7_to_timestamptz(id) < '2025-01-11';

DROP SCHEMA migration CASCADE;
RESET search_path;
