-- Parallel workers: crid's PARALLEL SAFE functions run in the workers of a
-- parallel plan, each a process of its own that starts with none of the
-- leader's caches. Mints stay unique across the workers of one statement,
-- faces find their key from a worker (under the leader's current role,
-- within the leader's transaction), and decoders and text forms give in
-- workers what they give in the leader. The leader takes no part
-- (parallel_leader_participation = off), so the rows come from workers,
-- and each query checked says it launched some; the same query text then
-- runs without workers, and both answers are compared.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
DROP ROLE IF EXISTS regress_parallel_api, regress_parallel_other;
RESET client_min_messages;
CREATE ROLE regress_parallel_api;
CREATE ROLE regress_parallel_other;
GRANT USAGE ON SCHEMA regress TO regress_parallel_api, regress_parallel_other;

-- How many workers a statement launched, from its EXPLAIN ANALYZE (which
-- runs it).
CREATE FUNCTION regress.workers_launched(statement text) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || statement INTO plan;
    RETURN coalesce((SELECT sum(m[1]::integer) FROM regexp_matches(plan::text, '"Workers Launched": (\d+)', 'g') m), 0);
END $$;

CREATE TABLE par_src AS SELECT g AS n FROM generate_series(1, 100000) g;
ANALYZE par_src;
GRANT SELECT ON par_src TO regress_parallel_api, regress_parallel_other;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;

-- Mints, made by the workers into a new table: each worker mints from the
-- server's shared generators (UUIDv7, snowflake) or reserves crid blocks of
-- its own, and no id comes twice.
SELECT regress.workers_launched($$CREATE TABLE par_ids AS
    SELECT n, uuid_generate_v7() AS u, snowflake_next(1) AS s, crid_next() AS c FROM par_src$$) > 0 AS minted_in_workers;
SELECT count(*) AS ids, count(DISTINCT u) = count(*) AS uuids_unique, count(DISTINCT s) = count(*) AS snowflakes_unique,
       count(DISTINCT c) = count(*) AS crids_unique, bool_and(uuid_extract_version(u) = 7) AS all_v7
  FROM par_ids;
ANALYZE par_ids;

-- Decoders and text forms: the same in workers as in the leader. The
-- answers of every row are summed as hashes by partial aggregates, which
-- the workers compute (an aggregate that cannot be partial would take its
-- arguments in the leader).
\set decoded 'SELECT sum(hashtextextended(concat_ws(\' \', uuid_v7_to_timestamptz(u), snowflake_to_timestamptz(s), crid_to_timestamptz(c), id_encode(s, \'ord\'), uuid_to_typeid(\'user\', u), gene_of(c, 4)), 0)::numeric) AS digest, count(*) AS rows FROM par_ids'
SELECT regress.workers_launched('CREATE TABLE par_decoded AS ' || :'decoded') > 0 AS decoded_in_workers;
SET max_parallel_workers_per_gather = 0;
SELECT regress.workers_launched(:'decoded') AS workers_when_serial;
SELECT w.digest = s.digest AS same_as_serial, w.rows FROM par_decoded w, (:decoded) s;
SET max_parallel_workers_per_gather = 2;

-- Faces: a worker reads the key row itself and checks the statement's
-- role, as the leader does.
INSERT INTO crid_public_id_keys (key_id, secret, usable_by)
VALUES (501, '\xefcdab89674523011032547698badcfe', 'regress_parallel_api');
\set faces 'SELECT count(*) FILTER (WHERE crid_unmask(crid_mask(n::bigint, 501), 501) <> n OR crid_unmask_sqid(crid_mask_sqid(n, 501, \'ord\'), 501, \'ord\') <> n) AS not_back, sum(hashtextextended(concat_ws(\' \', crid_mask(n::bigint, 501), crid_mask_sqid(n, 501), crid_mask(uuid_generate_v7_deterministic(\'2026-01-01 00:00:00+00\', n::bigint), 501)), 0)::numeric) AS digest FROM par_src'
SET ROLE regress_parallel_api;
SELECT regress.workers_launched('CREATE TEMP TABLE par_faces AS ' || :'faces') > 0 AS faces_in_workers;
SET max_parallel_workers_per_gather = 0;
SELECT w.not_back, w.digest = s.digest AS same_as_serial FROM par_faces w, (:faces) s;
SET max_parallel_workers_per_gather = 2;
DROP TABLE par_faces;
RESET ROLE;
-- A role that may not use the key is refused in the workers too, with the
-- SQLSTATE and message the leader gives; the error's context says where
-- it was raised.
CREATE FUNCTION regress.error_and_where(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    context text;
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS context = PG_EXCEPTION_CONTEXT;
    RETURN SQLSTATE || ': ' || SQLERRM
        || CASE WHEN context LIKE '%parallel worker%' THEN ' (in a parallel worker)' ELSE ' (in the leader)' END;
END $$;
SET ROLE regress_parallel_other;
SELECT regress.error_and_where(:'faces') AS other_role;
SET max_parallel_workers_per_gather = 0;
SELECT regress.error_and_where(:'faces') AS other_role_serial;
SET max_parallel_workers_per_gather = 2;
RESET ROLE;
-- A key made earlier in the leader's transaction serves its workers.
BEGIN;
INSERT INTO crid_public_id_keys (key_id, secret, usable_by)
VALUES (502, '\x00112233445566778899aabbccddeeff', 'regress_parallel_api');
SET LOCAL ROLE regress_parallel_api;
SELECT regress.workers_launched('SELECT sum(crid_mask(n::bigint, 502)) FROM par_src') > 0 AS new_key_in_workers;
SELECT count(*) FILTER (WHERE crid_unmask(crid_mask(n::bigint, 502), 502) <> n) AS not_back FROM par_src;
ROLLBACK;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE par_src, par_ids, par_decoded;
DROP FUNCTION regress.workers_launched(text), regress.error_and_where(text);
UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = 501;
REVOKE USAGE ON SCHEMA regress FROM regress_parallel_api, regress_parallel_other;
DROP ROLE regress_parallel_api, regress_parallel_other;
