-- The worked example of docs/genes.md: orders partitioned 16 ways by
-- the gene of their id, each order minted with its user's gene, so a lookup
-- by order id and a lookup by user both read one partition, the same one.
-- Then the ways to write rows whose id carries another column's gene, and
-- the trigger crid_fill_id_with_gene for tables not partitioned by the id.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET crid.allocation_timeout = '60s';

CREATE TABLE orders (
    id      bigint PRIMARY KEY,
    user_id bigint NOT NULL,
    total   numeric(10, 2) NOT NULL
) PARTITION BY HASH (id crid_gene_int8_ops);
DO $$ BEGIN
    FOR g IN 0..15 LOOP
        EXECUTE format('CREATE TABLE orders_p%s PARTITION OF orders FOR VALUES WITH (MODULUS 16, REMAINDER %1$s)', g);
    END LOOP;
END $$;
-- The same fact as each partition's bound, in a form constraint exclusion
-- reads: a lookup by user then finds the partition too.
DO $$ BEGIN
    FOR g IN 0..15 LOOP
        EXECUTE format('ALTER TABLE orders_p%s ADD CHECK (id_gene(id, 4) = %1$s)', g);
    END LOOP;
END $$;
CREATE INDEX ON orders (user_id);

-- Writing: the INSERT mints the id with its user's gene.
INSERT INTO orders (id, user_id, total) VALUES (crid_next(gene_of(42, 4), 4), 42, 9.99);
INSERT INTO orders (id, user_id, total)
SELECT crid_next(gene_of(n % 100 + 1, 4), 4), n % 100 + 1, n FROM generate_series(1, 3000) n;
SELECT count(*) AS orders, count(*) FILTER (WHERE id_gene(id, 4) <> gene_of(user_id, 4)) AS not_with_user,
       count(*) FILTER (WHERE tableoid::regclass::text <> 'orders_p' || gene_of(user_id, 4)) AS misplaced,
       max(partitions) AS partitions_per_user
FROM orders, LATERAL (SELECT count(DISTINCT o.tableoid) AS partitions FROM orders o WHERE o.user_id = orders.user_id) p;

-- A lookup by order id and a lookup by user read the same partition.
SELECT id AS order_of_42 FROM orders WHERE user_id = 42 ORDER BY id LIMIT 1 \gset
SELECT regress.scanned('SELECT * FROM orders WHERE id = ' || :order_of_42) AS by_order_id,
       regress.scanned('SELECT * FROM orders WHERE user_id = 42 AND id_gene(id, 4) = gene_of(42, 4)') AS by_user,
       regress.scanned('SELECT * FROM orders WHERE user_id = 42') AS by_user_without_gene;
SELECT user_id, total FROM orders WHERE id = :order_of_42;

-- A BEFORE ROW trigger cannot give the id its gene on this table: PostgreSQL
-- routes the row (with a NULL id, to REMAINDER 0) before the trigger runs and
-- refuses to move it afterwards (0A000).
CREATE TRIGGER fill BEFORE INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'crid', 'user_id', '4');
SELECT regress.sqlstate_of('INSERT INTO orders (user_id, total) VALUES (7, 1)') AS before_trigger_on_partitioned;
DROP TRIGGER fill ON orders;

-- What works for writers that send no id: a view whose INSTEAD OF trigger
-- mints the id with the gene, then inserts into the table.
CREATE VIEW orders_in AS SELECT * FROM orders;
CREATE FUNCTION orders_in_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.id := coalesce(NEW.id, crid_next(gene_of(NEW.user_id, 4), 4));
    INSERT INTO orders SELECT NEW.*;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_in_insert INSTEAD OF INSERT ON orders_in
    FOR EACH ROW EXECUTE FUNCTION orders_in_insert();
INSERT INTO orders_in (user_id, total) VALUES (7, 1.50), (8, 2.50)
    RETURNING user_id, id_gene(id, 4) = gene_of(user_id, 4) AS gene_of_user;
SELECT user_id, tableoid::regclass AS partition FROM orders WHERE user_id IN (7, 8) AND total < 3 ORDER BY user_id;

-- crid_fill_id_with_gene on a table partitioned by the user (not the id):
-- the trigger runs on the partition the user picked and fills the id.
CREATE TABLE carts (
    id      bigint NOT NULL,
    user_id bigint NOT NULL,
    PRIMARY KEY (user_id, id)
) PARTITION BY HASH (user_id crid_gene_int8_ops);
DO $$ BEGIN
    FOR g IN 0..3 LOOP
        EXECUTE format('CREATE TABLE carts_p%s PARTITION OF carts FOR VALUES WITH (MODULUS 4, REMAINDER %1$s)', g);
    END LOOP;
END $$;
CREATE TRIGGER fill BEFORE INSERT ON carts
    FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'crid', 'user_id', '4');
INSERT INTO carts (user_id) SELECT n FROM generate_series(1, 500) n;
INSERT INTO carts (id, user_id) VALUES (12345, 1);
SELECT count(*) AS carts, count(*) FILTER (WHERE id <> 12345 AND id_gene(id, 4) <> gene_of(user_id, 4)) AS wrong_gene,
       count(*) FILTER (WHERE id = 12345) AS given_id_kept,
       count(*) FILTER (WHERE tableoid::regclass::text <> 'carts_p' || gene_of(user_id, 2)) AS misplaced
FROM carts;

-- Text and uuid keys, uuid ids.
CREATE TABLE sessions (id uuid PRIMARY KEY, login text NOT NULL);
CREATE TRIGGER fill BEFORE INSERT OR UPDATE ON sessions
    FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'uuidv7', 'login', '6');
INSERT INTO sessions (login) VALUES ('alice'), ('Grüße'), ('🦀');
SELECT login, id_gene(id, 6) = gene_of(login, 6) AS gene_of_login, uuid_extract_version(id) AS version
FROM sessions ORDER BY login;

-- Bad trigger arguments and rows, each with its SQLSTATE.
CREATE TABLE tr (id bigint, uid uuid, user_id bigint, login text, amount numeric);
CREATE FUNCTION regress.fill_error(args text, row_values text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TRIGGER fill %s ON tr FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene(%s)',
                   CASE WHEN args LIKE 'AFTER%' THEN 'AFTER INSERT' ELSE 'BEFORE INSERT' END,
                   regexp_replace(args, '^AFTER ', ''));
    EXECUTE 'INSERT INTO tr ' || row_values;
    RAISE EXCEPTION 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLERRM = 'no error' THEN 'no error' ELSE SQLSTATE END;
END $$;
\set VERBOSITY terse
SELECT args, row_values, regress.fill_error(args, row_values) AS sqlstate FROM (VALUES
    ($$'id', 'crid', 'user_id', '4'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'user_id', '4'$$, '(user_id) VALUES (NULL)'),
    ($$'id', 'crid', 'login', '4'$$, $$(login) VALUES ('x')$$),
    ($$'id', 'crid', 'amount', '4'$$, '(amount) VALUES (1.5)'),
    ($$'id', 'crid', 'user_id'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'user_id', '4', '5'$$, '(user_id) VALUES (1)'),
    ($$'id', 'ulid', 'user_id', '4'$$, '(user_id) VALUES (1)'),
    ($$'nope', 'crid', 'user_id', '4'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'nope', '4'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'user_id', 'four'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'user_id', '0'$$, '(user_id) VALUES (1)'),
    ($$'id', 'crid', 'user_id', '17'$$, '(user_id) VALUES (1)'),
    ($$'id', 'uuidv7', 'user_id', '4'$$, '(user_id) VALUES (1)'),
    ($$'uid', 'uuidv7', 'user_id', '11'$$, '(user_id) VALUES (1)'),
    ($$'uid', 'uuidv7', 'user_id', '10'$$, '(user_id) VALUES (1)'),
    ($$'uid', 'crid', 'user_id', '4'$$, '(user_id) VALUES (1)'),
    ($$'id', 'snowflake', 'user_id'$$, '(user_id) VALUES (1)'),
    ($$AFTER 'id', 'crid', 'user_id', '4'$$, '(user_id) VALUES (1)')) v(args, row_values);
\set VERBOSITY default
-- The messages name what is wrong.
CREATE TRIGGER fill BEFORE INSERT ON tr FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'crid', 'user_id', '4');
INSERT INTO tr (user_id) VALUES (NULL);
DROP TRIGGER fill ON tr;
CREATE TRIGGER fill BEFORE INSERT ON tr FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'ulid', 'user_id');
INSERT INTO tr (user_id) VALUES (1);
DROP TRIGGER fill ON tr;
