-- CALL crid_backfill(): committed primary-key-ordered batches that fill a
-- column where it is NULL; an interrupted run resumes and ends exactly where
-- an uninterrupted one does; filled rows are never written again; every bad
-- argument is an ERROR before any row changes. (Per-batch NOTICEs carry rates
-- and are checked in TAP test 007_backfill; here they are silenced.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
SET timezone = 'UTC';

-- Two identical tables, one filled in one go, the other interrupted twice.
CREATE TABLE bf_whole (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
INSERT INTO bf_whole SELECT g * 10, '2026-01-01'::timestamptz + g * interval '1 minute' FROM generate_series(1, 1000) g;
CREATE TABLE bf_parts (LIKE bf_whole INCLUDING ALL);
INSERT INTO bf_parts SELECT * FROM bf_whole;
ALTER TABLE bf_whole ADD COLUMN new_id uuid;
ALTER TABLE bf_parts ADD COLUMN new_id uuid;
-- A row filled before the backfill keeps its value.
UPDATE bf_whole SET new_id = '00000000-0000-7000-8000-000000000001' WHERE id = 500;
UPDATE bf_parts SET new_id = '00000000-0000-7000-8000-000000000001' WHERE id = 500;

CALL crid_backfill('bf_whole', 'new_id', 'uuid_generate_v7_deterministic(created_at, id)', 64, '0');
SELECT count(*) AS rows, count(new_id) AS filled,
       count(*) FILTER (WHERE new_id = uuid_generate_v7_deterministic(created_at, id)) AS by_the_expression,
       count(*) FILTER (WHERE new_id = '00000000-0000-7000-8000-000000000001') AS kept
FROM bf_whole;
SELECT relation, column_name, state, rows_done, rows_left, percent_done, batches, batch_size, resume_after,
       finished_at >= started_at AS finished
FROM crid_backfill_progress WHERE relation = 'bf_whole'::regclass;

-- An interruption mid-way: the expression fails at id 3000 (in the 5th batch
-- of 64); the four batches before it stay committed.
CREATE TABLE bf_fail_at (id bigint);
INSERT INTO bf_fail_at VALUES (3000);
\set VERBOSITY terse
CALL crid_backfill('bf_parts', 'new_id',
    'CASE WHEN id = (SELECT id FROM bf_fail_at) THEN (1 / (id - id))::text::uuid ELSE uuid_generate_v7_deterministic(created_at, id) END',
    64, '0');
\set VERBOSITY default
SELECT count(new_id) AS filled, max(id) FILTER (WHERE new_id IS NOT NULL AND id <> 500) AS last_filled FROM bf_parts;
SELECT state, rows_done, rows_left, batches, resume_after FROM crid_backfill_progress
WHERE relation = 'bf_parts'::regclass;
-- Rows inserted meanwhile, behind the resume point and ahead of it.
INSERT INTO bf_whole VALUES (5, '2025-12-31', NULL), (20005, '2026-02-01', NULL);
INSERT INTO bf_parts VALUES (5, '2025-12-31', NULL), (20005, '2026-02-01', NULL);
-- A second interruption, further on.
UPDATE bf_fail_at SET id = 7000;
\set VERBOSITY terse
CALL crid_backfill('bf_parts', 'new_id',
    'CASE WHEN id = (SELECT id FROM bf_fail_at) THEN (1 / (id - id))::text::uuid ELSE uuid_generate_v7_deterministic(created_at, id) END',
    64, '0');
\set VERBOSITY default
SELECT state, rows_done, rows_left, resume_after FROM crid_backfill_progress WHERE relation = 'bf_parts'::regclass;
-- Resumed to the end (and bf_whole's new rows filled too): both tables are equal.
DELETE FROM bf_fail_at;
CALL crid_backfill('bf_parts', 'new_id',
    'CASE WHEN id = (SELECT id FROM bf_fail_at) THEN (1 / (id - id))::text::uuid ELSE uuid_generate_v7_deterministic(created_at, id) END',
    64, '0');
CALL crid_backfill('bf_whole', 'new_id', 'uuid_generate_v7_deterministic(created_at, id)', 64, '0');
SELECT count(*) AS rows, count(*) FILTER (WHERE w.new_id IS NOT DISTINCT FROM p.new_id) AS equal,
       count(*) FILTER (WHERE p.new_id IS NULL) AS still_null
FROM bf_whole w FULL JOIN bf_parts p USING (id);
SELECT state, rows_done, rows_left, resume_after FROM crid_backfill_progress WHERE relation = 'bf_parts'::regclass;
-- Run again, nothing is left: nothing changes.
CREATE TEMP TABLE before AS SELECT * FROM bf_parts;
CALL crid_backfill('bf_parts', 'new_id', 'gen_random_uuid()', 64, '0');
SELECT count(*) AS changed FROM bf_parts p JOIN before b USING (id) WHERE p.new_id IS DISTINCT FROM b.new_id;

-- Composite and text keys, quoted names, a schema.
CREATE SCHEMA "Bf Schema";
CREATE TABLE "Bf Schema"."Order Lines" ("Order No" text, line int, created_at timestamptz,
                                       PRIMARY KEY ("Order No", line));
INSERT INTO "Bf Schema"."Order Lines"
SELECT 'o' || (g % 7), g, '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(1, 300) g;
ALTER TABLE "Bf Schema"."Order Lines" ADD COLUMN "New Id" uuid;
CALL crid_backfill('"Bf Schema"."Order Lines"', 'New Id',
                   'uuid_generate_v7_deterministic(created_at, "Order No" || ''/'' || line)', 17);
SELECT count("New Id") AS filled,
       count(*) FILTER (WHERE "New Id" = uuid_generate_v7_deterministic(created_at, "Order No" || '/' || line)) AS right
FROM "Bf Schema"."Order Lines";
SELECT relation, column_name, state, rows_done, batches FROM crid_backfill_progress
WHERE relation = '"Bf Schema"."Order Lines"'::regclass;

-- Every bad argument: an ERROR, and no row changed.
CREATE TABLE bf_no_pk (id bigint, created_at timestamptz, new_id uuid);
INSERT INTO bf_no_pk VALUES (1, '2026-01-01', NULL);
CREATE TABLE bf_bad (id bigint PRIMARY KEY, created_at timestamptz, new_id uuid,
                     doubled bigint GENERATED ALWAYS AS (id * 2) STORED);
INSERT INTO bf_bad VALUES (1, '2026-01-01', NULL), (2, '2026-01-02', NULL);
CREATE VIEW bf_view AS SELECT * FROM bf_bad;
SELECT regress.error_of(format('CALL crid_backfill(%s)', args)) AS error, args FROM unnest(ARRAY[
    $$'bf_nosuch', 'new_id', 'gen_random_uuid()'$$,
    $$'bf_bad', 'no_such_column', 'gen_random_uuid()'$$,
    $$'bf_view', 'new_id', 'gen_random_uuid()'$$,
    $$'bf_no_pk', 'new_id', 'gen_random_uuid()'$$,
    $$'bf_bad', 'id', 'gen_random_uuid()'$$,
    $$'bf_bad', 'doubled', '1'$$,
    $$'bf_bad', 'new_id', 'id + 1'$$,
    $$'bf_bad', 'new_id', '''not a uuid'''$$,
    $$'bf_bad', 'new_id', 'uuid_generate_v7(created_at'$$,
    $$'bf_bad', 'new_id', 'no_such_column'$$,
    $$'bf_bad', 'new_id', 'gen_random_uuid()) WHERE (id = 1'$$,
    $$'bf_bad', 'new_id', 'gen_random_uuid()); DROP TABLE bf_whole; SELECT (1'$$,
    $$'bf_bad', 'new_id', 'max(id)::text::uuid'$$,
    $$'bf_bad', 'new_id', 'generate_series(1, 2)::text::uuid'$$,
    $$'bf_bad', 'new_id', ''$$,
    $$'bf_bad', 'new_id', 'gen_random_uuid()', 0$$,
    $$'bf_bad', 'new_id', 'gen_random_uuid()', 10, '-1 s'$$,
    $$'bf_bad', 'new_id', NULL$$,
    -- valid, but inside the subtransaction of error_of's exception block
    $$'bf_bad', 'new_id', 'gen_random_uuid()'$$]) args;
\set VERBOSITY terse
BEGIN;
CALL crid_backfill('bf_bad', 'new_id', 'gen_random_uuid()');
ROLLBACK;
CREATE ROLE bf_reader;
GRANT SELECT ON bf_bad TO bf_reader;
SET ROLE bf_reader;
CALL crid_backfill('bf_bad', 'new_id', 'gen_random_uuid()');
RESET ROLE;
SELECT count(new_id) AS filled FROM bf_bad;
-- An expression that gives NULL for a row: the batch with that row rolls
-- back (the batch before it stays), naming the row.
CALL crid_backfill('bf_bad', 'new_id', 'CASE WHEN id = 2 THEN NULL ELSE gen_random_uuid() END', 1);
SELECT id, new_id IS NOT NULL AS filled FROM bf_bad ORDER BY id;
UPDATE bf_bad SET new_id = NULL;
\set VERBOSITY default
-- Nothing changed, and nothing an expression tried to slip in ran; a trailing
-- comment cannot swallow the rest of the UPDATE either.
SELECT count(new_id) AS filled FROM bf_bad;
SELECT count(*) AS bf_whole_still_there FROM bf_whole;
CALL crid_backfill('bf_bad', 'new_id', 'gen_random_uuid() -- the end');
SELECT count(new_id) AS filled FROM bf_bad;
DROP OWNED BY bf_reader;
DROP ROLE bf_reader;

-- Rows the UPDATE does not write would be picked again forever: the batch
-- that meets them stops the run, counting and naming them and saying why.
-- A BEFORE UPDATE trigger that returns NULL for some rows:
CREATE TABLE bf_skipped (id int PRIMARY KEY, v int);
INSERT INTO bf_skipped SELECT g, NULL FROM generate_series(1, 100) g;
CREATE FUNCTION bf_skip_tens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RETURN CASE WHEN NEW.id % 10 = 0 AND NEW.id > 40 THEN NULL ELSE NEW END;
END $$;
CREATE TRIGGER bf_skip BEFORE UPDATE ON bf_skipped FOR EACH ROW EXECUTE FUNCTION bf_skip_tens();
\set SHOW_CONTEXT never
CALL crid_backfill('bf_skipped', 'v', 'id * 2', 20, '0');
-- The batches before it stay; that batch rolled back.
SELECT count(v) AS filled, max(id) FILTER (WHERE v IS NOT NULL) AS last_filled FROM bf_skipped;
SELECT state, rows_done, batches, resume_after FROM crid_backfill_progress WHERE relation = 'bf_skipped'::regclass;
-- Let the trigger pass them, and the run ends.
DROP TRIGGER bf_skip ON bf_skipped;
CALL crid_backfill('bf_skipped', 'v', 'id * 2', 20, '0');
SELECT count(v) AS filled, count(*) FILTER (WHERE v = id * 2) AS right FROM bf_skipped;
-- Row-level security that lets a role read rows but not update them:
UPDATE bf_skipped SET v = NULL;
CREATE ROLE bf_limited;
GRANT SELECT, UPDATE ON bf_skipped TO bf_limited;
ALTER TABLE bf_skipped ENABLE ROW LEVEL SECURITY;
CREATE POLICY bf_read ON bf_skipped FOR SELECT USING (true);
CREATE POLICY bf_write ON bf_skipped FOR UPDATE USING (id % 7 <> 0);
SET ROLE bf_limited;
CALL crid_backfill('bf_skipped', 'v', 'id * 2', 30, '0');
RESET ROLE;
\set SHOW_CONTEXT errors
SELECT count(v) AS filled FROM bf_skipped;
DROP TABLE bf_skipped;
DROP FUNCTION bf_skip_tens();
DROP OWNED BY bf_limited;
DROP ROLE bf_limited;

-- Its own names never meet the user's: a table named as its batch was, a
-- column named as the batch's key columns were, read by the expression, and
-- a table of the expression named as its other part was.
CREATE TABLE crid_backfill_batch (id int PRIMARY KEY, crid_backfill_key_1 int, v int);
INSERT INTO crid_backfill_batch SELECT g, 100 + g, NULL FROM generate_series(1, 20) g;
CREATE TABLE crid_backfill_filled (x int);
INSERT INTO crid_backfill_filled VALUES (5);
CALL crid_backfill('crid_backfill_batch', 'v', 'crid_backfill_key_1 + (SELECT x FROM crid_backfill_filled)', 7, '0');
SELECT count(*) AS rows, count(*) FILTER (WHERE v = 100 + id + 5) AS right FROM crid_backfill_batch;
DROP TABLE crid_backfill_batch, crid_backfill_filled;

-- Progress rows follow the tables' privileges: a role that may not read a
-- table does not see its backfill.
CREATE ROLE bf_outsider;
SET ROLE bf_outsider;
SELECT count(*) AS visible FROM crid_backfill_progress;
RESET ROLE;
DROP ROLE bf_outsider;

DROP TABLE bf_whole, bf_parts, bf_no_pk, bf_bad CASCADE;
DROP SCHEMA "Bf Schema" CASCADE;
