-- crid's own tables never travel with logical replication, and crid_check()
-- names each misconfiguration with the command that fixes it. Here, the
-- ones the catalog shows: crid's tables in a publication (each form a
-- publication takes), the trigger that skips replicated rows, and what that
-- trigger does; the states of the running server (a layout change, a damaged
-- mark, a registry out of reach, a node another server holds, subscriptions,
-- pglogical) are TAP's (test/tap/t/041_crid_check.pl), since they need
-- restarts and other servers. A database of its own, so that the tables
-- publications list are only this file's.
CREATE DATABASE crid_check_regress;
\c crid_check_regress
SET client_min_messages = warning;
CREATE EXTENSION crid;
RESET client_min_messages;
-- Only the problems of the catalog of this database: the server's state
-- (its block reserver's registry, say) is not this file's subject.
CREATE VIEW catalog_problems AS
SELECT problem, object, fix FROM crid_check()
WHERE problem IN ('publication', 'subscription', 'replication_set', 'local_only_trigger');

SELECT crid_own_tables();
SELECT * FROM catalog_problems;

CREATE TABLE orders (id bigint PRIMARY KEY, note text);
CREATE SCHEMA app;
CREATE TABLE app.items (id uuid PRIMARY KEY);
CREATE TABLE parted (id bigint PRIMARY KEY) PARTITION BY RANGE (id);
CREATE TABLE parted_low PARTITION OF parted FOR VALUES FROM (0) TO (100);

-- FOR ALL TABLES, as users set it up: a WARNING at once, naming the tables
-- and the command, and the same as a row of crid_check().
CREATE PUBLICATION everything FOR ALL TABLES WITH (publish = 'insert, update');
SELECT * FROM catalog_problems;
SELECT detail FROM crid_check() WHERE object = 'everything';
SELECT fix FROM crid_check() WHERE object = 'everything' \gexec
SELECT * FROM catalog_problems;
-- The publication publishes what it did, but crid's tables, with its options
-- (a partitioned table by its root: its new partitions are published too).
SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = 'everything' ORDER BY 1, 2;
SELECT puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot, pubowner::regrole
FROM pg_publication WHERE pubname = 'everything';
CREATE TABLE parted_high PARTITION OF parted FOR VALUES FROM (100) TO (200);
SELECT tablename FROM pg_publication_tables WHERE pubname = 'everything' AND tablename LIKE 'parted%' ORDER BY 1;

-- crid's tables by name, and added later.
CREATE PUBLICATION named FOR TABLE orders, crid_allocations, crid_node_leases;
SELECT fix FROM crid_check() WHERE object = 'named' \gexec
SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = 'named' ORDER BY 1, 2;
ALTER PUBLICATION named ADD TABLE crid_evictions;
SELECT fix FROM crid_check() WHERE object = 'named' \gexec
SELECT * FROM catalog_problems;

-- The schema crid is in, published whole, beside another schema.
CREATE PUBLICATION schemas FOR TABLES IN SCHEMA public, app;
SELECT * FROM catalog_problems;
SELECT fix FROM crid_check() WHERE object = 'schemas' \gexec
SELECT * FROM catalog_problems;
SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = 'schemas' ORDER BY 1, 2;
-- A publication without crid's tables says nothing.
CREATE PUBLICATION fine FOR TABLE orders;
ALTER PUBLICATION fine ADD TABLE app.items;
SELECT * FROM catalog_problems;

-- The trigger that skips replicated rows: a row replayed under a replication
-- origin (what every apply worker does) is not applied to crid's tables,
-- nor an update or a delete; this server's own writes go in, and so do rows
-- loaded by hand with session_replication_role = replica.
SELECT pg_replication_origin_create('crid_check_peer') IS NOT NULL AS origin_made;
INSERT INTO crid_evictions VALUES ('local.one', 5);
SELECT pg_replication_origin_session_setup('crid_check_peer');
INSERT INTO crid_evictions VALUES ('peer.one', 7);
UPDATE crid_evictions SET evicted_before = 9 WHERE registry = 'local.one';
DELETE FROM crid_evictions WHERE registry = 'local.one';
INSERT INTO crid_allocations VALUES (1, 100);
INSERT INTO orders VALUES (1, 'a replicated row of a user table goes in');
SELECT pg_replication_origin_session_reset();
SELECT * FROM crid_evictions ORDER BY 1;
SELECT count(*) AS replicated_allocations FROM crid_allocations;
SELECT * FROM orders;
SET session_replication_role = replica;
INSERT INTO crid_evictions VALUES ('history.one', 3);
RESET session_replication_role;
SELECT * FROM crid_evictions ORDER BY 1;
SELECT pg_replication_origin_drop('crid_check_peer');

-- The trigger disabled, enabled only in origin mode (apply workers run as
-- replica and skip it), or dropped: each is a row, and its fix restores it.
ALTER TABLE crid_node_leases DISABLE TRIGGER crid_local_only;
ALTER TABLE crid_evictions ENABLE TRIGGER crid_local_only;
DROP TRIGGER crid_local_only ON crid_backfill_state;
SELECT * FROM catalog_problems;
SELECT fix FROM crid_check() WHERE problem = 'local_only_trigger' \gexec
SELECT * FROM catalog_problems;
SELECT tgrelid::regclass, tgenabled FROM pg_trigger WHERE tgname = 'crid_local_only' ORDER BY tgrelid::regclass::text;

-- A check that cannot run never fails the user's own DDL: the event
-- trigger warns instead (its text is PostgreSQL's, so not shown here). Here
-- the role making the publication may not run crid_check().
REVOKE EXECUTE ON FUNCTION crid_check() FROM PUBLIC;
CREATE ROLE crid_check_publisher;
DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO crid_check_publisher', current_database()); END $$;
CREATE TABLE published (id int PRIMARY KEY);
ALTER TABLE published OWNER TO crid_check_publisher;
SET ROLE crid_check_publisher;
SET client_min_messages = error;
CREATE PUBLICATION crid_check_user_pub FOR TABLE published;
RESET client_min_messages;
RESET ROLE;
SELECT pubname, pubowner::regrole FROM pg_publication WHERE pubname = 'crid_check_user_pub';
DROP PUBLICATION crid_check_user_pub;
DROP TABLE published;
DO $$ BEGIN EXECUTE format('REVOKE CREATE ON DATABASE %I FROM crid_check_publisher', current_database()); END $$;
DROP ROLE crid_check_publisher;
GRANT EXECUTE ON FUNCTION crid_check() TO PUBLIC;

\c contrib_regression
DROP DATABASE crid_check_regress;
