-- Partitions by time of tables partitioned by RANGE on their id
-- (docs/partitions.md): for each family, a set made with crid's functions,
-- rows inserted through the key's DEFAULT and for past times, maintenance
-- run twice, the default partition emptied, retention, bounds exact at the
-- first and last id of a unit, the plans of queries by time, the gene
-- recipe, and every refusal with its SQLSTATE. Output that depends on the
-- current date is asserted in SQL, never printed.
SET timezone = 'UTC';
SET client_min_messages = warning;

-- The partitions a query's plan scans (relation names of its scan nodes),
-- and whether partitions were removed at executor start.
CREATE FUNCTION regress.part_plan_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        RETURN NEXT line;
    END LOOP;
END $$;
CREATE FUNCTION regress.part_scanned(query text) RETURNS text LANGUAGE sql AS $$
SELECT coalesce(string_agg(DISTINCT m[1], ' ' ORDER BY m[1]), '')
  FROM regress.part_plan_lines(query) l, regexp_matches(l, ' on (\w+)') m
 WHERE l !~ 'Index Scan on|Index Only Scan on' OR l ~ 'Scan using'
$$;
CREATE FUNCTION regress.part_removed_at_start(query text) RETURNS boolean LANGUAGE sql AS $$
SELECT bool_or(l ~ 'Subplans Removed') FROM regress.part_plan_lines(query) l
$$;
-- Which partition holds each id of a table, with its decoded time.
CREATE FUNCTION regress.part_placed(tbl regclass) RETURNS TABLE (part text, ids bigint) LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format('SELECT tableoid::regclass::text, count(*) FROM %s GROUP BY 1 ORDER BY 1', tbl);
END $$;

------------------------------------------------------------------------------
-- Snowflake, the server's layout: daily partitions of March 2026
------------------------------------------------------------------------------
CREATE TABLE sf (id bigint PRIMARY KEY DEFAULT snowflake_next(5) CHECK (id >= 0), v text)
    PARTITION BY RANGE (id);
CREATE TABLE sf_default PARTITION OF sf DEFAULT;
SELECT key_column, key_type, key_family, key_layout = snowflake_layout() AS server_layout
  FROM crid_partition_key('sf');
SELECT * FROM crid_partition_create('sf', '1 day', '2026-03-01 12:00', '2026-03-03');
-- Again: nothing to make.
SELECT * FROM crid_partition_create('sf', '1 day', '2026-03-01', '2026-03-03 23:59:59');
-- Bounds: the first id of each day.
SELECT partition_name, from_id::bigint = snowflake_floor(substr(partition_name::text, 5)::date) AS from_first_id_of_day,
       to_id::bigint = snowflake_floor(substr(partition_name::text, 5)::date + 1) AS to_first_id_of_next_day
  FROM crid_partition_bounds('sf') WHERE NOT is_default;
-- The first and last id of the first and last millisecond of each day, and
-- ids for past times the partitions do not cover yet.
INSERT INTO sf (id, v)
SELECT snowflake_pack(d + o, n, s), 'edge'
  FROM generate_series('2026-03-01'::timestamptz, '2026-03-05', '1 day') d,
       (VALUES (interval '0'), (interval '1 day' - interval '1 ms')) o(o),
       (VALUES (0, 0), (1023, 4095)) ns(n, s);
SELECT * FROM regress.part_placed('sf');
SELECT count(*) AS misplaced FROM sf
 WHERE tableoid::regclass::text <> 'sf_p' || to_char(snowflake_to_timestamptz(id), 'YYYYMMDD')
   AND tableoid <> 'sf_default'::regclass;
-- The default partition emptied into partitions made for its rows.
SELECT * FROM crid_partition_move_default('sf', '1 day');
SELECT * FROM crid_partition_move_default('sf', '1 day');
SELECT * FROM regress.part_placed('sf');
SELECT count(*) AS misplaced FROM sf
 WHERE tableoid::regclass::text <> 'sf_p' || to_char(snowflake_to_timestamptz(id), 'YYYYMMDD');
-- Queries by decoded time scan the partitions of their interval only, at
-- plan time: the server's layout, fixed while it runs, is folded into the
-- bounds.
SELECT regress.part_scanned($$SELECT * FROM sf WHERE snowflake_to_timestamptz(id) >= '2026-03-02 10:00'
                                            AND snowflake_to_timestamptz(id) < '2026-03-02 11:00'$$) AS one_hour,
       regress.part_scanned($$SELECT * FROM sf WHERE snowflake_to_timestamptz(id) BETWEEN '2026-03-02 23:00' AND '2026-03-03 00:00'$$) AS across_midnight,
       regress.part_scanned($$SELECT * FROM sf WHERE snowflake_in(id, '[2026-03-04, 2026-03-05)')$$) AS by_in;
EXPLAIN (COSTS OFF) SELECT * FROM sf WHERE snowflake_to_timestamptz(id) >= '2026-03-02 10:00'
                                       AND snowflake_to_timestamptz(id) < '2026-03-02 11:00';
-- A parameter of a generic plan: removed at executor start.
SET plan_cache_mode = force_generic_plan;
PREPARE sf_since(timestamptz) AS SELECT * FROM sf WHERE snowflake_to_timestamptz(id) >= $1;
EXPLAIN (COSTS OFF) EXECUTE sf_since('2026-03-05 12:00');
DEALLOCATE sf_since;
RESET plan_cache_mode;

-- Maintenance for now: partitions from today to two days ahead, rows
-- through the DEFAULT land in today's, the second run has nothing to do.
-- (One transaction: one now(), also at midnight.)
BEGIN;
SELECT action, count(*) FROM crid_partition_maintain('sf', '1 day', '2 days') GROUP BY action;
SELECT count(*) AS second_run FROM crid_partition_maintain('sf', '1 day', '2 days');
COMMIT;
INSERT INTO sf (v) SELECT 'now' FROM generate_series(1, 10);
SELECT count(*) FILTER (WHERE tableoid::regclass::text = 'sf_p' || to_char(snowflake_to_timestamptz(id), 'YYYYMMDD')) AS in_their_days_partition,
       count(*) AS rows
  FROM sf WHERE v = 'now';
-- now(): removed at executor start, and no partition of March is scanned.
SELECT regress.part_removed_at_start(q) AS removed_at_start, regress.part_scanned(q) !~ 'sf_p202603' AS no_old_partition
  FROM (VALUES ($$SELECT * FROM sf WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour'$$)) v(q);
-- Retention: the days of March before the 4th dropped, then detached.
SELECT * FROM crid_partition_retire('sf', '2026-03-03 12:00');
SELECT * FROM crid_partition_retire('sf', '2026-03-03 12:00');
SELECT * FROM crid_partition_retire('sf', '2026-03-04', detach => true);
SELECT (SELECT relispartition FROM pg_class WHERE oid = 'sf_p20260303'::regclass) AS still_a_partition, count(*) FROM sf_p20260303;
-- A retention through maintain: everything before now() - 30 days goes.
BEGIN;
SELECT action, count(*) FROM crid_partition_maintain('sf', '1 day', '2 days', retention => '30 days') GROUP BY action;
SELECT count(*) AS second_run FROM crid_partition_maintain('sf', '1 day', '2 days', retention => '30 days');
COMMIT;
SELECT count(*) AS march_partitions_left FROM crid_partition_bounds('sf') WHERE partition_name::text LIKE 'sf_p202603%';
SELECT count(*) AS in_default FROM sf_default;

------------------------------------------------------------------------------
-- UUIDv7: hourly partitions
------------------------------------------------------------------------------
CREATE TABLE uv (id uuid PRIMARY KEY DEFAULT uuid_generate_v7() CHECK (crid_uuid_v7_check(id)), v text)
    PARTITION BY RANGE (id);
CREATE TABLE uv_default PARTITION OF uv DEFAULT;
SELECT * FROM crid_partition_create('uv', '1 hour', '2026-03-01 10:30', '2026-03-01 12:00');
SELECT partition_name, from_id::uuid = uuid_v7_floor(to_timestamp(substr(partition_name::text, 5), 'YYYYMMDDHH24')) AS exact
  FROM crid_partition_bounds('uv') WHERE NOT is_default;
INSERT INTO uv (id, v)
SELECT uuid_generate_v7(t), 'past'
  FROM generate_series('2026-03-01 09:59:59.999'::timestamptz, '2026-03-01 13:00', '1 hour') h,
       LATERAL (VALUES (h), (h + interval '1 ms')) t(t);
INSERT INTO uv (id, v) VALUES (uuid_v7_time_bound('2026-03-01 12:00'::timestamptz, '<'), 'last of 11:59:59.999'),
                              (uuid_v7_floor('2026-03-01 12:00'), 'first of 12:00');
SELECT * FROM regress.part_placed('uv');
SELECT * FROM crid_partition_move_default('uv', '1 hour');
SELECT * FROM regress.part_placed('uv');
SELECT v, tableoid::regclass FROM uv WHERE v LIKE '%of%' ORDER BY id;
SELECT regress.part_scanned($$SELECT * FROM uv WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 11:00'
                                            AND uuid_v7_to_timestamptz(id) < '2026-03-01 12:00'$$) AS one_hour,
       regress.part_scanned($$SELECT * FROM uv WHERE uuid_v7_to_timestamptz(id) >= '2026-03-01 12:59:59.999'$$) AS since;
-- uuid_v7_in prunes at plan time (the planner simplifies it into its id
-- range and crid_uuid_v7_in_exact), as the id range written beside it does.
SELECT regress.part_scanned($$SELECT * FROM uv WHERE uuid_v7_in(id, '[2026-03-01 11:00, 2026-03-01 12:00)')$$) AS by_in,
       regress.part_scanned($$SELECT * FROM uv WHERE uuid_v7_in(id, '[2026-03-01 11:00, 2026-03-01 12:00)')
                           AND id BETWEEN uuid_v7_range_first('[2026-03-01 11:00, 2026-03-01 12:00)')
                                      AND uuid_v7_range_last('[2026-03-01 11:00, 2026-03-01 12:00)')$$) AS with_range;
SET plan_cache_mode = force_generic_plan;
PREPARE uv_hour(timestamptz) AS SELECT * FROM uv WHERE uuid_v7_to_timestamptz(id) >= $1 AND uuid_v7_to_timestamptz(id) < $1 + interval '1 hour';
SELECT regress.part_removed_at_start('EXECUTE uv_hour(''2026-03-01 11:00'')') AS removed_at_start,
       regress.part_scanned('EXECUTE uv_hour(''2026-03-01 11:00'')') AS scanned;
DEALLOCATE uv_hour;
RESET plan_cache_mode;
BEGIN;
SELECT action, count(*) FROM crid_partition_maintain('uv', '1 hour', '3 hours', retention => '1 day') GROUP BY action ORDER BY action;
SELECT count(*) AS second_run FROM crid_partition_maintain('uv', '1 hour', '3 hours', retention => '1 day');
COMMIT;
INSERT INTO uv (v) VALUES ('now');
SELECT tableoid::regclass::text = 'uv_p' || to_char(uuid_v7_to_timestamptz(id), 'YYYYMMDDHH24') AS in_its_hours_partition FROM uv WHERE v = 'now';
SELECT count(*) AS in_default FROM uv_default;

------------------------------------------------------------------------------
-- crid ids: weekly partitions; the family from the DEFAULT
------------------------------------------------------------------------------
CREATE TABLE cr (id bigint PRIMARY KEY DEFAULT crid_next() CHECK (id >= 0), v text) PARTITION BY RANGE (id);
CREATE TABLE cr_default PARTITION OF cr DEFAULT;
SELECT key_family, key_layout FROM crid_partition_key('cr');
SELECT * FROM crid_partition_create('cr', '1 week', '2026-03-04', '2026-03-10');
INSERT INTO cr (id, v)
SELECT crid_pack(t, s), 'past'
  FROM (VALUES (timestamptz '2026-03-01 23:59:59'), ('2026-03-02'), ('2026-03-08 23:59:59'), ('2026-03-09'),
               ('2026-03-15 23:59:59'), ('2026-03-16')) t(t),
       (VALUES (0), (4294967295)) s(s);
SELECT * FROM crid_partition_move_default('cr', '1 week');
SELECT * FROM regress.part_placed('cr');
SELECT count(*) AS misplaced FROM cr
 WHERE tableoid::regclass::text <> 'cr_p' || to_char(date_trunc('week', crid_to_timestamptz(id)), 'YYYYMMDD');
SELECT regress.part_scanned($$SELECT * FROM cr WHERE crid_to_timestamptz(id) >= '2026-03-09' AND crid_to_timestamptz(id) < '2026-03-09 01:00'$$) AS one_hour,
       regress.part_scanned($$SELECT * FROM cr WHERE crid_in(id, '[2026-03-08 23:59:59, 2026-03-09]')$$) AS by_in;
BEGIN;
SELECT action, count(*) FROM crid_partition_maintain('cr', '1 week', '1 week') GROUP BY action;
SELECT count(*) AS second_run FROM crid_partition_maintain('cr', '1 week', '1 week');
COMMIT;
-- crid_next() serves ids of the second its block was reserved in, which may
-- be a little in the past: last week's partition too, at a week's turn.
SELECT count(*) >= 0 AS made FROM crid_partition_create('cr', '1 week', now() - interval '1 hour', now());
INSERT INTO cr (v) VALUES ('now');
SELECT tableoid::regclass::text = 'cr_p' || to_char(date_trunc('week', crid_to_timestamptz(id)), 'YYYYMMDD') AS in_its_weeks_partition
  FROM cr WHERE v = 'now';
SELECT * FROM crid_partition_retire('cr', '2026-03-16');

------------------------------------------------------------------------------
-- Presets and a custom layout, monthly; IMMUTABLE decoders prune at plan time
------------------------------------------------------------------------------
CREATE TABLE tw (id bigint PRIMARY KEY CHECK (id >= 0), v text) PARTITION BY RANGE (id);
SELECT * FROM crid_partition_create('tw', '1 month', '2026-01-15', '2026-03-01', layout => 'twitter');
INSERT INTO tw (id, v)
SELECT snowflake_pack(t, n, s, 'twitter'), 'past'
  FROM (VALUES (timestamptz '2026-01-31 23:59:59.999'), ('2026-02-01'), ('2026-02-28 23:59:59.999'), ('2026-03-01')) t(t),
       (VALUES (0, 0), (1023, 4095)) ns(n, s);
SELECT * FROM regress.part_placed('tw');
EXPLAIN (COSTS OFF) SELECT * FROM tw WHERE snowflake_to_timestamptz(id, 'twitter') >= '2026-02-10'
                                       AND snowflake_to_timestamptz(id, 'twitter') < '2026-02-10 01:00';
-- Sonyflake: 10 ms units, sequence above machine.
CREATE TABLE sy (id bigint PRIMARY KEY CHECK (id >= 0)) PARTITION BY RANGE (id);
SELECT * FROM crid_partition_create('sy', '1 day', '2026-03-01', '2026-03-02', layout => 'sonyflake');
INSERT INTO sy SELECT snowflake_pack(t, n, s, 'sonyflake')
  FROM (VALUES (timestamptz '2026-03-01'), ('2026-03-01 23:59:59.99'), ('2026-03-02'), ('2026-03-02 23:59:59.99')) t(t),
       (VALUES (0, 0), (65535, 255)) ns(n, s);
SELECT * FROM regress.part_placed('sy');
-- A custom layout with 10-second units and 4 gene bits: the last id of the
-- day's last unit (largest node, sequence and gene) and the next day's first.
CREATE TABLE cu (id bigint PRIMARY KEY CHECK (id >= 0)) PARTITION BY RANGE (id);
SELECT * FROM crid_partition_create('cu', '1 day', '2026-03-01', '2026-03-02',
                                    layout => 'epoch=2020-01-01,unit=10000,node=4,sequence=8,gene=4');
INSERT INTO cu SELECT snowflake_pack(t, n, s, g, 'epoch=2020-01-01,unit=10000,node=4,sequence=8,gene=4')
  FROM (VALUES (timestamptz '2026-03-01'), ('2026-03-01 23:59:59.999'), ('2026-03-02'), ('2026-03-02 23:59:50')) t(t),
       (VALUES (0, 0, 0), (15, 255, 15)) ns(n, s, g);
SELECT * FROM regress.part_placed('cu');

------------------------------------------------------------------------------
-- Time and gene: daily partitions, each hashed by gene into 4
------------------------------------------------------------------------------
CREATE TABLE tg (id bigint PRIMARY KEY CHECK (id >= 0), v text) PARTITION BY RANGE (id);
SELECT * FROM crid_partition_create('tg', '1 day', '2026-03-01', '2026-03-02', gene_bits => 2,
                                    layout => 'epoch=2026-01-01,node=8,sequence=12,gene=2');
SELECT c.oid::regclass AS partition, pg_get_expr(c.relpartbound, c.oid) ~* 'modulus 4' AS by_gene
  FROM pg_partition_tree('tg') t JOIN pg_class c ON c.oid = t.relid WHERE t.level = 2 AND c.relname LIKE 'tg_p20260301%' ORDER BY 1;
INSERT INTO tg SELECT snowflake_pack('2026-03-01 12:00'::timestamptz + n * interval '1 hour', 1, n, n % 4,
                                     'epoch=2026-01-01,node=8,sequence=12,gene=2'), 'g'
  FROM generate_series(0, 23) n;
SELECT tableoid::regclass, count(*), bool_and(id_gene(id, 2) = substr(tableoid::regclass::text, 15)::int) AS gene_matches
  FROM tg GROUP BY 1 ORDER BY 1;
-- By time: the day's four gene partitions; by id: one.
SELECT regress.part_scanned($$SELECT * FROM tg WHERE snowflake_to_timestamptz(id, 'epoch=2026-01-01,node=8,sequence=12,gene=2') >= '2026-03-02 03:00'$$) AS by_time;
SELECT regress.part_plan_lines(format('SELECT * FROM tg WHERE id = %s',
                                 snowflake_pack('2026-03-01 13:00', 1, 1, 1, 'epoch=2026-01-01,node=8,sequence=12,gene=2'))) AS plan_lines;
SELECT regress.part_scanned(format('SELECT * FROM tg WHERE id = %s', id)) = tableoid::regclass::text AS by_id_one_partition
  FROM tg ORDER BY id LIMIT 3;
SELECT * FROM crid_partition_retire('tg', '2026-03-02', layout => 'epoch=2026-01-01,node=8,sequence=12,gene=2');
SELECT count(*) AS tables_left FROM pg_class WHERE relname LIKE 'tg_p20260301%';

------------------------------------------------------------------------------
-- Two sessions at once: test/isolation/specs/partitions_concurrent.spec.
-- Refusals, each with its SQLSTATE.
------------------------------------------------------------------------------
CREATE TABLE plain (id bigint);
CREATE TABLE by_list (id bigint) PARTITION BY LIST (id);
CREATE TABLE by_two (id bigint, k int) PARTITION BY RANGE (id, k);
CREATE TABLE by_expr (id bigint) PARTITION BY RANGE ((id + 1));
CREATE TABLE by_time (id bigint, at timestamptz) PARTITION BY RANGE (at);
CREATE TABLE by_int (id integer) PARTITION BY RANGE (id);
CREATE TABLE no_default (id bigint) PARTITION BY RANGE (id);
CREATE TABLE dc (id bigint DEFAULT snowflake_next(5) CHECK (id >= 0)) PARTITION BY RANGE (id);
CREATE TABLE cr_fk (id bigint REFERENCES cr);
INSERT INTO cr_default (id) VALUES (crid_pack('2026-04-01', 1));
SELECT q, regress.sqlstate_of(q) AS sqlstate FROM (VALUES
    ($$SELECT crid_partition_create('plain', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('by_list', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('by_two', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('by_expr', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('by_time', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('by_int', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now())$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now(), family => 'crid')$$),
    ($$SELECT crid_partition_create('uv', '1 day', now(), now(), family => 'snowflake')$$),
    ($$SELECT crid_partition_create('sf', '1 day', now(), now(), family => 'uuidv7')$$),
    ($$SELECT crid_partition_create('sf', '1 day', now(), now(), family => 'crid')$$),
    ($$SELECT crid_partition_create('cr', '1 day', now(), now(), layout => 'twitter')$$),
    ($$SELECT crid_partition_create('uv', '1 day', now(), now(), layout => 'twitter')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now(), family => 'ulid')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now(), layout => 'discord')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now(), layout => 'instagram')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', now(), now(), layout => 'epoch=2020-01-01,node=10,sequence=12,sign=true')$$),
    ($$SELECT crid_partition_create('no_default', '1 hour', '2026-03-01', '2026-03-01', layout => 'epoch=2026-01-01,unit=7000,node=5,sequence=8')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', '2026-03-01', '2026-03-01', layout => 'epoch=2026-01-01,unit=7000,node=5,sequence=8')$$),
    ($$SELECT crid_partition_create('no_default', '1 day', '2026-03-01', '2026-03-01', layout => 'epoch=2026-01-01T00:00:00.250Z,unit=1s,node=4,sequence=8')$$),
    ($$SELECT crid_partition_create('dc', '2 days', now(), now())$$),
    ($$SELECT crid_partition_create('dc', '24 hours', now(), now())$$),
    ($$SELECT crid_partition_create('dc', '30 days', now(), now())$$),
    ($$SELECT crid_partition_create('dc', '1 day', now(), now() - interval '1 day')$$),
    ($$SELECT crid_partition_create('dc', '1 day', now(), 'infinity')$$),
    ($$SELECT crid_partition_create('dc', '1 day', now(), now(), gene_bits => 17)$$),
    ($$SELECT crid_partition_create('dc', '1 hour', '2026-01-01', '2028-01-01')$$),
    ($$SELECT crid_partition_create('dc', '1 day', NULL, now())$$),
    ($$SELECT crid_partition_maintain('dc', '1 day', '-1 day')$$),
    ($$SELECT crid_partition_retire('dc', 'infinity')$$),
    ($$SELECT crid_partition_move_default('cr', '1 week')$$),
    ($$SELECT crid_partition_first_id('2026-03-01 00:00:00.5', 'crid')$$),
    ($$SELECT crid_partition_first_id('2026-03-01 00:00:00.0005', 'uuidv7')$$)
) v(q);
-- A week of 7-second units works: 604800 s is 86400 units, and the epoch is a Monday.
CREATE TABLE sev (id bigint) PARTITION BY RANGE (id);
SELECT count(*) AS made FROM crid_partition_create('sev', '1 week', '2026-03-02', '2026-03-09',
                                                   layout => 'epoch=2026-01-05,unit=7000,node=5,sequence=8');
-- The functions run with their caller's rights: a role that does not own
-- the table makes, moves and drops nothing.
CREATE ROLE regress_partitions_nobody;
GRANT USAGE ON SCHEMA regress TO regress_partitions_nobody;
SET ROLE regress_partitions_nobody;
SELECT regress.sqlstate_of($$SELECT crid_partition_create('dc', '1 day', now(), now())$$) AS create_not_owner,
       regress.sqlstate_of($$SELECT crid_partition_retire('cr', now())$$) AS retire_not_owner,
       regress.sqlstate_of($$SELECT crid_partition_maintain('sf', '1 day', '1 day')$$) AS maintain_not_owner;
RESET ROLE;
DROP OWNED BY regress_partitions_nobody;
DROP ROLE regress_partitions_nobody;
-- Names that need quoting: the schema is quoted once, and a long
-- multibyte name is cut a character at a time, so that each partition's
-- name keeps its stamp.
CREATE SCHEMA "Sales Data";
CREATE TABLE "Sales Data"."Orders" (id bigint CHECK (id >= 0)) PARTITION BY RANGE (id);
SELECT action, partition_name FROM crid_partition_create('"Sales Data"."Orders"', '1 day', '2026-03-01', '2026-03-01',
                                                         layout => 'twitter');
CREATE TABLE "ЗаказыЗаказыЗаказыЗаказыЗаказыЗаказы" (id bigint CHECK (id >= 0)) PARTITION BY RANGE (id);
SELECT action, partition_name, octet_length(partition_name) AS bytes
  FROM crid_partition_create('"ЗаказыЗаказыЗаказыЗаказыЗаказыЗаказы"', '1 day', '2026-03-01', '2026-03-02',
                             layout => 'twitter');
-- A partition detached by the retention keeps its name: the partition made
-- again for a late row of its interval gets a suffix.
CREATE TABLE late (id bigint CHECK (id >= 0), v text) PARTITION BY RANGE (id);
CREATE TABLE late_default PARTITION OF late DEFAULT;
SELECT action, partition_name FROM crid_partition_create('late', '1 day', '2026-03-01', '2026-03-01', layout => 'twitter');
SELECT action, partition_name FROM crid_partition_retire('late', '2026-03-02', detach => true, layout => 'twitter');
INSERT INTO late VALUES (snowflake_pack('2026-03-01 12:00+00', 1, 1, 'twitter'), 'late');
SELECT action, partition_name, row_count FROM crid_partition_move_default('late', '1 day', layout => 'twitter');
SELECT tableoid::regclass AS part, v FROM late;
-- A trigger that skips the moved rows: the move fails and nothing is lost.
CREATE TABLE skipping (id bigint CHECK (id >= 0)) PARTITION BY RANGE (id);
CREATE TABLE skipping_default PARTITION OF skipping DEFAULT;
INSERT INTO skipping VALUES (snowflake_pack('2026-03-01 12:00+00', 1, 1, 'twitter'));
CREATE FUNCTION regress.skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER skip BEFORE INSERT ON skipping FOR EACH ROW EXECUTE FUNCTION regress.skip_row();
SELECT regress.sqlstate_of($$SELECT crid_partition_move_default('skipping', '1 day', layout => 'twitter')$$) AS skipped_rows,
       (SELECT count(*) FROM skipping_default) AS still_waiting;
-- crid_partition_maintain: a step that fails (here rows to move in a table
-- that foreign keys reference) is a WARNING and a 'failed' row; the
-- partitions of today and tomorrow are made all the same.
CREATE TABLE refd (id bigint PRIMARY KEY CHECK (id >= 0)) PARTITION BY RANGE (id);
CREATE TABLE refd_default PARTITION OF refd DEFAULT;
CREATE TABLE refd_fk (id bigint REFERENCES refd);
INSERT INTO refd VALUES (snowflake_pack('2026-03-01 12:00+00', 1, 1, 'twitter'));
SELECT action, count(*), min(partition_name) FILTER (WHERE action = 'failed') AS failed_step
  FROM crid_partition_maintain('refd', '1 day', '1 day', layout => 'twitter') GROUP BY action ORDER BY action;
SELECT count(*) AS still_waiting FROM refd_default;
-- Only the owner makes partitions, a superuser being refused too: the
-- owner's triggers and defaults run with the owner's rights, and the
-- partitions made are the owner's.
CREATE ROLE regress_partitions_owner;
CREATE SCHEMA owned_here AUTHORIZATION regress_partitions_owner;
CREATE TABLE owned_here.owned (id bigint CHECK (id >= 0)) PARTITION BY RANGE (id);
ALTER TABLE owned_here.owned OWNER TO regress_partitions_owner;
SELECT regress.sqlstate_of($$SELECT crid_partition_create('owned_here.owned', '1 day', '2026-03-01', '2026-03-01', layout => 'twitter')$$) AS superuser_create,
       regress.sqlstate_of($$SELECT crid_partition_maintain('owned_here.owned', '1 day', '1 day', layout => 'twitter')$$) AS superuser_maintain;
SET ROLE regress_partitions_owner;
SELECT action, partition_name FROM crid_partition_create('owned_here.owned', '1 day', '2026-03-01', '2026-03-01', layout => 'twitter');
RESET ROLE;
SELECT c.relname, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relname = 'owned_p20260301';
DROP SCHEMA owned_here CASCADE;
DROP ROLE regress_partitions_owner;
-- The messages of a few.
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT crid_partition_create('sf', '1 day', now(), now(), layout => 'discord');
SELECT crid_partition_create('dc', '1 hour', '2026-03-01', '2026-03-01', layout => 'epoch=2026-01-01,unit=7000,node=5,sequence=8');
SELECT crid_partition_create('by_list', '1 day', now(), now());
SELECT crid_partition_create('no_default', '1 day', now(), now());
SELECT crid_partition_move_default('cr', '1 week');
\set VERBOSITY terse
\set SHOW_CONTEXT errors
DROP TABLE sev, sf, uv, cr, tw, sy, cu, tg, plain, by_list, by_two, by_expr, by_time, by_int, no_default, dc, cr_fk, sf_p20260303;
DROP TABLE late, late_p20260301, skipping, refd_fk, refd, "ЗаказыЗаказыЗаказыЗаказыЗаказыЗаказы";
DROP FUNCTION regress.skip_row();
DROP SCHEMA "Sales Data" CASCADE;
