-- Snowflake with crid preloaded and the default layout: minting, decoding of
-- this server's ids and of every preset against published examples, layouts
-- spelled out, boundaries, statistics, and every kind of bad input.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';

SELECT snowflake_layout();
SHOW crid.node_id;

-- Minting on explicit nodes: decodes to now, the node, sequences in order.
SELECT p.node, p.gene, abs(extract(epoch FROM p.ts - clock_timestamp())) < 5 AS now_ish
FROM (SELECT snowflake_next(7) AS id) s, LATERAL snowflake_parse(id) p;
SELECT snowflake_to_timestamptz(snowflake_next(1023)) <= clock_timestamp() AS decodes_to_the_past;

-- 300,000 ids of one node, one session: strictly increasing, all distinct,
-- and each millisecond holds at most 4096 of them.
CREATE TEMP TABLE sf AS SELECT n, snowflake_next(3) AS id FROM generate_series(1, 300000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE prev >= id) AS out_of_order,
       bool_and((snowflake_parse(id)).node = 3) AS all_node_3
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM sf) s;
SELECT max(per_ms) <= 4096 AS sequence_within_layout
FROM (SELECT id >> 22, count(*) AS per_ms FROM sf GROUP BY 1) s;

-- snowflake_next() takes the node from crid.node_id (superuser-settable).
SET crid.node_id = 42;
SELECT (snowflake_parse(snowflake_next())).node AS node_from_setting;
RESET crid.node_id;

-- Range boundaries: the floor of a millisecond sorts before its ids.
SELECT snowflake_floor('2026-01-01 00:00:00+00') AS epoch_floor,
       snowflake_floor('2026-01-01 00:00:00.001+00') AS one_ms_later;
SELECT snowflake_floor(now() - interval '1 second') < snowflake_next(5)
   AND snowflake_next(5) < snowflake_floor(now() + interval '1 hour') AS floor_brackets_now;
SELECT snowflake_to_timestamptz(snowflake_floor('2026-03-04 05:06:07.089+00'));

-- Published examples of every preset.
-- Discord's developer documentation: 175928847299117063 is 2016-04-30
-- 11:18:25.796 UTC, worker 1, process 0, increment 7 (node = worker << 5 | process).
SELECT * FROM snowflake_parse(175928847299117063, 'discord');
-- Instagram's "Sharding & IDs at Instagram": 1387263000 ms after the epoch,
-- shard 1341, sequence 5001 % 1024.
SELECT * FROM snowflake_parse((1387263000::bigint << 23) | (1341 << 10) | (5001 % 1024), 'instagram');
-- Twitter's developer documentation ("Tweet object"): id 1050118621198921728
-- was created "Wed Oct 10 20:19:24 +0000 2018".
SELECT * FROM snowflake_parse(1050118621198921728, 'twitter');
SELECT date_trunc('second', snowflake_to_timestamptz(1050118621198921728, 'TWITTER')) AS created_at;
-- Sonyflake: 39 bits of 10 ms since 2014-09-01, an 8-bit sequence above the
-- 16-bit machine id.
SELECT * FROM snowflake_parse((123456789::bigint << 24) | (5 << 16) | 4242, 'sonyflake');
-- Sonyflake v2 with its default Settings: the same fields from 2025-01-01,
-- so the same id reads 3,775 days (10 years) later than v1's.
SELECT * FROM snowflake_parse((123456789::bigint << 24) | (5 << 16) | 4242, 'sonyflake2');
SELECT snowflake_to_timestamptz(1::bigint << 24, 'sonyflake2') - snowflake_to_timestamptz(1::bigint << 24, 'sonyflake') AS v2_after_v1;
-- pgEdge's snowflake (snowflake.c): ms since 2023-01-01 << 22 | node << 12 | counter.
SELECT * FROM snowflake_parse(((1700000000123 - 1672531200000) << 22) | (3 << 12) | 7, 'pgedge');
SELECT snowflake_layout('pgedge'), snowflake_layout('sonyflake2');
SELECT snowflake_floor('2016-04-30 11:18:25.796+00', 'discord') = 175928847299117063 & ~((1::bigint << 22) - 1) AS discord_floor;

-- Layouts spelled out, and their canonical form.
SELECT snowflake_layout('twitter'), snowflake_layout('discord');
SELECT snowflake_layout('instagram'), snowflake_layout('sonyflake');
SELECT snowflake_layout('epoch=2020-01-01, node=8, sequence=14, gene=2');
SELECT * FROM snowflake_parse(123456789012345, 'epoch=2020-01-01,unit=1ms,time=39,node=8,sequence=14,gene=2');
SELECT snowflake_to_timestamptz(123456789012345, 'epoch=1577836800000,unit=10ms,node=8,sequence=14');

-- Statistics of node 3: its counters, the 300,000 ids minted on it above,
-- and no refusal (one would have failed that statement). Whether the
-- clock stepped or a millisecond's sequences ran out meanwhile depends on
-- the machine, so those counters are only shown to exist.
SELECT node, metric,
       CASE WHEN metric IN ('ids', 'clock_refusals') THEN value::text ELSE 'any' END AS value
FROM crid_stats() WHERE family = 'snowflake' AND node = 3 ORDER BY metric;

-- Bad input --------------------------------------------------------------------
\set VERBOSITY default
SELECT snowflake_next(-1);
SELECT snowflake_next(1024);
SELECT snowflake_next(1, 0) > 0 AS gene_zero_is_no_gene;
SELECT snowflake_next(1, 1);
SELECT snowflake_next();
-- A NULL node or gene is an error, never a silent NULL id.
SELECT snowflake_next(NULL);
SELECT snowflake_next(1, NULL);
SELECT snowflake_next(NULL, 0);
SELECT snowflake_parse(-5);
SELECT snowflake_to_timestamptz(1, 'twitterx');
SELECT snowflake_to_timestamptz(1, '');
SELECT snowflake_to_timestamptz(1, NULL) IS NULL AS strict_decoder;
SELECT snowflake_to_timestamptz(1, 'epoch=2020-01-01,node=10,sequence=12,colour=blue');
SELECT snowflake_to_timestamptz(1, 'epoch=2020-01-01,node=10,sequence=12,node=3');
SELECT snowflake_to_timestamptz(1, 'epoch=2020-13-01,node=10,sequence=12');
SELECT snowflake_to_timestamptz(1, 'epoch=2020-01-01,node=20,sequence=12');
SELECT snowflake_to_timestamptz(1, 'epoch=2020-01-01,time=30,node=10,sequence=12');
SELECT snowflake_to_timestamptz(1, 'epoch=2020-01-01,time=41,node=10,sequence=10');
SELECT snowflake_to_timestamptz(1, 'node=10,sequence=12');
SELECT snowflake_floor('2025-12-31 23:59:59.999+00');
SELECT snowflake_floor('2010-01-01', 'twitter');
SELECT snowflake_floor('infinity');
SELECT snowflake_floor(NULL);
SELECT snowflake_floor('2026-01-01', NULL);
SELECT snowflake_floor('3000-01-01', 'sonyflake');
SELECT snowflake_layout(NULL);
SELECT snowflake_to_timestamptz(9223372036854775807, 'epoch=2020-01-01,node=0,sequence=1');
-- An ordinary role: can mint, cannot choose the node setting.
CREATE ROLE crid_ordinary;
SET ROLE crid_ordinary;
SELECT snowflake_next(9) > 0 AS ordinary_role_mints;
SET crid.node_id = 5;
RESET ROLE;
DROP ROLE crid_ordinary;
-- Layout settings are fixed at server start.
SET crid.snowflake_node_bits = 8;
SET crid.clock_borrow_ms = 10;

SELECT query, regress.sqlstate_of(query) AS sqlstate FROM (VALUES
    ('SELECT snowflake_next(-1)'),
    ('SELECT snowflake_next(1, 1)'),
    ('SELECT snowflake_next()'),
    ('SELECT snowflake_parse(-5)'),
    ($q$SELECT snowflake_parse(1, 'nope')$q$),
    ($q$SELECT snowflake_floor('2025-12-31')$q$),
    ($q$SELECT snowflake_floor('infinity')$q$),
    ($q$SELECT snowflake_floor(NULL)$q$)
) v(query);

-- crid_stats() counts ids per process slot as well as on the node's word
-- (one cache line per process, no shared write per id): the count stays
-- exact over backends that exited (\c ends this one and starts another),
-- and over a backend that mints for more nodes (six) than its slot keeps
-- counters for (four), whose others count on the node's word.
CREATE TABLE sf_counted_before AS
SELECT n AS node, coalesce((SELECT value FROM crid_stats() s WHERE s.family = 'snowflake' AND s.metric = 'ids' AND s.node = n), 0) AS ids
FROM generate_series(700, 705) n;
SELECT count(snowflake_next(700)) FROM generate_series(1, 30000);
\c
SELECT count(snowflake_next(700)) FROM generate_series(1, 20000);
SELECT count(snowflake_next(700 + g % 6)) FROM generate_series(1, 6000) g;
\c
SELECT count(snowflake_next(703)) FROM generate_series(1, 1000);
\c
SELECT b.node, coalesce(s.value, 0) - b.ids AS ids_counted
FROM sf_counted_before b
LEFT JOIN crid_stats() s ON s.family = 'snowflake' AND s.metric = 'ids' AND s.node = b.node
ORDER BY b.node;
DROP TABLE sf_counted_before;
