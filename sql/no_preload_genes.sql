-- Shard genes on a server where crid is not preloaded: genes, id_gene,
-- id_with_gene, hash partitioning by gene and uuid_generate_v7(gene, bits)
-- (ordered per backend) work; crid_next(gene, bits) and the trigger's crid
-- family are refused with SQLSTATE 55000, after their arguments are checked.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SELECT gene_of('hello', 8) AS hello, gene_of(42, 4) AS g42, id_gene(id_with_gene(1000, 5, 4), 4) AS five;
CREATE TEMP TABLE v7 AS SELECT n, uuid_generate_v7(n % 16, 4) AS id FROM generate_series(1, 2000) n;
SELECT count(*) FILTER (WHERE id_gene(id, 4) <> n % 16) AS wrong_gene,
       count(*) FILTER (WHERE prev >= id) AS out_of_order
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM v7) s;
CREATE TABLE events (id bigint PRIMARY KEY) PARTITION BY HASH (id crid_gene_int8_ops);
CREATE TABLE events_p0 PARTITION OF events FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE events_p1 PARTITION OF events FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO events SELECT generate_series(1, 100);
SELECT tableoid::regclass AS partition, count(*), bool_and(id % 2 = right(tableoid::regclass::text, 1)::int) AS by_gene
FROM events GROUP BY 1 ORDER BY 1;
\set VERBOSITY default
SELECT crid_next(1, 4);
SELECT crid_next(1, 40);
CREATE TABLE t (id bigint PRIMARY KEY, user_id bigint);
CREATE TRIGGER fill BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'crid', 'user_id', '4');
INSERT INTO t (user_id) VALUES (1);
DROP TABLE t, events;
