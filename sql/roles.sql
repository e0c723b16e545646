-- What a role without privileges can do with crid: mint and decode. What it
-- cannot: change node ids, layouts or registry settings, read or write the
-- registry, call crid_allocate, crid_evict or the repair functions, signal
-- the worker, or change what the worker runs through objects it can create
-- (it may create in public here, as on databases made before PostgreSQL 15).
SET client_min_messages = warning;
CREATE ROLE regress_crid_nobody;
GRANT CREATE ON SCHEMA public TO regress_crid_nobody;
GRANT USAGE ON SCHEMA regress TO regress_crid_nobody;
CREATE TABLE regress.trap_log (what text);
GRANT INSERT, SELECT ON regress.trap_log TO regress_crid_nobody;
CREATE TEMP TABLE before AS
    SELECT metric, value FROM crid_stats() WHERE family = 'crid' AND metric IN ('registry_failures', 'blocks_reserved');
-- An ordinary role cannot see the worker in pg_stat_activity: we tell it.
SELECT pid AS worker_pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver' \gset

SET ROLE regress_crid_nobody;

-- Minting and decoding.
SELECT uuid_generate_v7() IS NOT NULL AS uuidv7, snowflake_next(1) > 0 AS snowflake, crid_next() > 0 AS crid,
       uuid_v7_to_timestamptz(uuid_generate_v7()) IS NOT NULL AS decodes,
       (snowflake_parse(snowflake_next(2))).node AS node, (crid_parse(crid_next())).sequence >= 0 AS crid_decodes;

-- Packing the id of a past second (reserving one is for crid_reserve's grantees).
SELECT crid_pack('2026-06-01', 7) = crid_floor('2026-06-01') + 7 AS crid_pack;

-- Everything that would let it change ids, the registry or the worker.
SELECT what, regress.sqlstate_of(statement) AS sqlstate
FROM (VALUES
    ('set crid.node_id', 'SET crid.node_id = 5'),
    ('set a layout setting', 'SET crid.snowflake_sequence_bits = 14'),
    ('set the snowflake epoch', $$SET crid.snowflake_epoch = '2020-01-01'$$),
    ('set the crid epoch', $$SET crid.epoch = '2020-01-01'$$),
    ('set crid.timestamp_bits', 'SET crid.timestamp_bits = 30'),
    ('set the registry database', $$SET crid.registry_database = 'elsewhere'$$),
    ('set crid.registry_table', $$SET crid.registry_table = 'public.elsewhere'$$),
    ('set crid.registry', $$SET crid.registry = 'host=elsewhere'$$),
    ('read crid.registry', 'SHOW crid.registry'),
    ('set crid.registry_timeout', $$SET crid.registry_timeout = '1h'$$),
    ('set crid.node_lease_ttl', $$SET crid.node_lease_ttl = '1h'$$),
    ('set crid.node_id to lease', $$SET crid.node_id = 'lease'$$),
    ('read the node leases', 'SELECT * FROM crid_node_leases'),
    ('take a node lease', $$INSERT INTO crid_node_leases VALUES (1, 'me', 't', 'lease', now(), now(), 0)$$),
    ('set crid.block_size', 'SET crid.block_size = 1'),
    ('set crid.snowflake_nodes', $$SET crid.snowflake_nodes = '0-1'$$),
    ('set crid.clock_borrow_ms', 'SET crid.clock_borrow_ms = 3600000'),
    ('set crid.evict_min_age', $$SET crid.evict_min_age = '1min'$$),
    ('set crid.backfill_node', 'SET crid.backfill_node = 5'),
    ('ALTER ROLE ... SET crid.backfill_node', 'ALTER ROLE regress_crid_nobody SET crid.backfill_node = 5'),
    ('mint on crid.backfill_node', 'SELECT snowflake_next(1000)'),
    ('ALTER ROLE ... SET', 'ALTER ROLE regress_crid_nobody SET crid.node_id = 5'),
    ('ALTER DATABASE ... SET', $$DO 'BEGIN EXECUTE format(''ALTER DATABASE %I SET default_transaction_read_only = on'', current_database()); END'$$),
    ('reload the configuration', 'SELECT pg_reload_conf()'),
    ('read the registry', 'SELECT * FROM crid_allocations'),
    ('insert into the registry', 'INSERT INTO crid_allocations VALUES (1, 1)'),
    ('update the registry', 'UPDATE crid_allocations SET next_seq = 0'),
    ('delete from the registry', 'DELETE FROM crid_allocations'),
    ('truncate the registry', 'TRUNCATE crid_allocations'),
    ('lock the registry', 'LOCK TABLE crid_allocations'),
    ('alter the registry', 'ALTER TABLE crid_allocations ADD COLUMN x int'),
    ('a trigger on the registry', $$CREATE TRIGGER t BEFORE INSERT ON crid_allocations FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()$$),
    ('crid_allocate', 'SELECT crid_allocate(1, 100)'),
    ('crid_evict', $$SELECT crid_evict(now() - interval '2 days')$$),
    ('crid_reserve', $$SELECT crid_reserve('2026-06-01', 10)$$),
    ('read the evict horizons', 'SELECT * FROM crid_evictions'),
    ('erase the evict horizons', 'DELETE FROM crid_evictions'),
    ('lower an evict horizon', $$SELECT crid_record_eviction('crid_allocations', -1)$$),
    ('lock an evict horizon', $$SELECT crid_evicted_before('crid_allocations')$$),
    ('check a registry', $$SELECT crid_registry_check('crid_allocations')$$),
    ('reserve through the registry function', $$SELECT crid_registry_reserve('crid_allocations', 1, 1)$$),
    ('upsert as the registry''s owner', $$SELECT crid_registry_upsert('crid_allocations', 1, 1, NULL)$$),
    ('read where the registry is', 'SELECT crid_registry_status()'),
    ('crid_accept_layout', 'SELECT crid_accept_layout()'),
    ('crid_reset_high_water', 'SELECT crid_reset_high_water(now())'),
    ('replace crid_next', $$CREATE OR REPLACE FUNCTION crid_next() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'$$),
    ('alter crid_next', 'ALTER FUNCTION crid_next() SECURITY DEFINER'),
    ('drop the extension', 'DROP EXTENSION crid'),
    ('terminate the worker', format('SELECT pg_terminate_backend(%s)', :worker_pid))
) AS m(what, statement)
ORDER BY what;
-- ALTER SYSTEM cannot run inside the function above.
ALTER SYSTEM SET crid.node_id = 5;
ALTER SYSTEM SET crid.backfill_node = 5;

-- Objects it can create that a careless superuser process might pick up:
-- each writes to the trap log when called.
CREATE FUNCTION public.crid_allocate(ts bigint, block_size bigint, x int DEFAULT 0) RETURNS bigint
    LANGUAGE sql AS $$ INSERT INTO regress.trap_log VALUES ('crid_allocate') RETURNING 0::bigint $$;
CREATE FUNCTION public.quote_ident(name) RETURNS text
    LANGUAGE sql AS $$ INSERT INTO regress.trap_log VALUES ('quote_ident') RETURNING $1::text $$;
CREATE FUNCTION public.trap_plus(bigint, bigint) RETURNS bigint
    LANGUAGE sql AS $$ INSERT INTO regress.trap_log VALUES ('+') RETURNING $1 OPERATOR(pg_catalog.+) $2 $$;
CREATE OPERATOR public.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.trap_plus);
-- Enough ids that the worker reserves several blocks meanwhile: more than
-- its ring of reserved blocks (32 of crid.block_size) holds.
SELECT count(DISTINCT crid_next()) AS distinct_ids FROM generate_series(1, 400000);
SELECT count(*) AS traps_sprung FROM regress.trap_log;
RESET ROLE;
SELECT bool_and(CASE metric WHEN 'blocks_reserved' THEN s.value > b.value ELSE s.value = b.value END)
           AS worker_reserved_and_never_failed
  FROM crid_stats() s JOIN before b USING (metric) WHERE s.family = 'crid';

DROP OWNED BY regress_crid_nobody;
DROP ROLE regress_crid_nobody;
DROP TABLE regress.trap_log;
