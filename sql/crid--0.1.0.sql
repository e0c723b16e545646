-- crid 0.1.0: distributed primary keys minted and decoded inside PostgreSQL.
\echo Use "CREATE EXTENSION crid" to load this file. \quit

------------------------------------------------------------------------------
-- UUIDv7 (RFC 9562)
------------------------------------------------------------------------------

CREATE FUNCTION uuid_generate_v7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION uuid_generate_v7() IS
    'time-ordered UUID version 7, strictly increasing across the server when crid is preloaded (per backend otherwise)';

CREATE FUNCTION uuid_generate_v7(at timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_at'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_generate_v7(timestamptz) IS
    'UUID version 7 for the given time with a random tail (backfills)';

CREATE FUNCTION uuid_generate_v7_deterministic(at timestamptz, key text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_det_text'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION uuid_generate_v7_deterministic(at timestamptz, key bigint) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_det_bigint'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION uuid_generate_v7_deterministic(at timestamptz, key uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_det_uuid'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION uuid_generate_v7_deterministic(at timestamptz, key bytea) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_det_bytea'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_generate_v7_deterministic(timestamptz, text) IS
    'UUID version 7 for the given time whose tail is a keyed hash of key: re-running a backfill gives the same ids';

CREATE FUNCTION uuid_v7_to_timestamptz(id uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_to_timestamptz'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v7_to_timestamptz(uuid) IS
    'the millisecond embedded in a UUID version 7; an error for any other UUID';

CREATE FUNCTION uuid_v7_floor(at timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_floor'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v7_floor(timestamptz) IS
    'the smallest UUID version 7 of the millisecond containing at: a range-scan boundary';

CREATE FUNCTION uuid_timestamptz_to_v7(at timestamptz, zero boolean DEFAULT false) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_timestamptz_to_v7'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_timestamptz_to_v7(timestamptz, boolean) IS
    'pg_uuidv7-compatible: UUID version 7 for at, random tail or (zero) all-zero tail';

-- PostgreSQL 18 names, so code written for 18 runs on 15.
CREATE FUNCTION uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7'
    LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuidv7_shift'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_uuid_extract_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_extract_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'crid_uuid_extract_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

------------------------------------------------------------------------------
-- Snowflake
------------------------------------------------------------------------------

CREATE FUNCTION snowflake_next(node integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_next_node'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_next(integer) IS
    'next 64-bit snowflake id of a node (one lock-free generator per node per server; crid must be preloaded)';
CREATE FUNCTION snowflake_next() RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_next'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_next() IS 'next snowflake id of the node in crid.node_id';
CREATE FUNCTION snowflake_next(node integer, gene integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_next_gene'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_next(integer, integer) IS
    'next snowflake id of a node with a shard gene in the low crid.snowflake_gene_bits';

CREATE FUNCTION snowflake_to_timestamptz(id bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_snowflake_to_timestamptz'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_to_timestamptz(id bigint, layout text) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_snowflake_to_timestamptz'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_to_timestamptz(bigint, text) IS
    'when a snowflake id of that layout (a preset name or a spelled-out layout) was minted';

CREATE FUNCTION snowflake_parse(id bigint, OUT ts timestamptz, OUT node integer, OUT sequence integer, OUT gene integer)
    AS 'MODULE_PATHNAME', 'crid_snowflake_parse'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_parse(id bigint, layout text, OUT ts timestamptz, OUT node integer, OUT sequence integer, OUT gene integer)
    AS 'MODULE_PATHNAME', 'crid_snowflake_parse'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION snowflake_floor(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_floor'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_floor(at timestamptz, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_floor'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_floor(timestamptz, text) IS
    'the smallest snowflake id of the time unit containing at: a range-scan boundary or cursor';

CREATE FUNCTION snowflake_layout() RETURNS text
    AS 'MODULE_PATHNAME', 'crid_snowflake_layout'
    LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION snowflake_layout(layout text) RETURNS text
    AS 'MODULE_PATHNAME', 'crid_snowflake_layout'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_layout(text) IS
    'the canonical spelling of a snowflake layout (this server''s without an argument)';

------------------------------------------------------------------------------
-- Statistics
------------------------------------------------------------------------------

CREATE FUNCTION crid_stats(OUT family text, OUT node integer, OUT metric text, OUT value bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'crid_stats'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION crid_stats() IS
    'counters of this server''s generators: ids minted, clock waits, borrows, refusals, exhaustion waits';

------------------------------------------------------------------------------
-- crid: 63-bit ids from sequence blocks reserved in a shared registry
------------------------------------------------------------------------------

-- The registry: one row per second (since crid.epoch) in which blocks were
-- reserved; next_seq is the exclusive end of the last block handed out. The
-- same table and protocol as the Go crid library's Postgres registry, so Go
-- services and this extension can share it and never mint the same id.
CREATE TABLE crid_allocations (
    ts bigint PRIMARY KEY,
    next_seq bigint NOT NULL
);
COMMENT ON TABLE crid_allocations IS
    'crid registry: ts = seconds since crid.epoch, next_seq = exclusive end of the last block reserved in that second';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.crid_allocations'::pg_catalog.regclass, ''::pg_catalog.text);
REVOKE ALL ON crid_allocations FROM PUBLIC;

-- Argument checks of crid_allocate, in C so they follow crid.timestamp_bits.
CREATE FUNCTION crid_check_allocation(ts bigint, block_size bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_check_allocation'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_check_block_end(ts bigint, next_seq bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_check_block_end'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- The registry primitive: reserves [start, start + block_size) of second ts
-- and returns start (100, 100, 50 on one ts give 0, 100, 200). Runs as the
-- extension owner; EXECUTE is granted explicitly to the roles of outside nodes.
CREATE FUNCTION crid_allocate(ts bigint, block_size bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    block_end bigint;
BEGIN
    IF crid_allocate.ts IS NULL OR crid_allocate.block_size IS NULL THEN
        RAISE EXCEPTION 'crid_allocate: ts and block_size must not be NULL' USING ERRCODE = '22004';
    END IF;
    PERFORM @extschema@.crid_check_allocation(crid_allocate.ts, crid_allocate.block_size);
    INSERT INTO @extschema@.crid_allocations AS a (ts, next_seq)
        VALUES (crid_allocate.ts, crid_allocate.block_size)
        ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq
        RETURNING a.next_seq INTO block_end;
    PERFORM @extschema@.crid_check_block_end(crid_allocate.ts, block_end);
    RETURN block_end - crid_allocate.block_size;
END
$$;
REVOKE EXECUTE ON FUNCTION crid_allocate(bigint, bigint) FROM PUBLIC;
COMMENT ON FUNCTION crid_allocate(bigint, bigint) IS
    'reserve a block of block_size sequences in second ts of the registry and return its start';

CREATE FUNCTION crid_next() RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_next'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION crid_next() IS
    'next 63-bit crid id (ts << sequence_bits | seq) from this server''s reserved block; never returned twice';

CREATE FUNCTION crid_to_timestamptz(id bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_to_timestamptz'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_parse(id bigint, OUT ts timestamptz, OUT sequence bigint, OUT registry_ts bigint)
    AS 'MODULE_PATHNAME', 'crid_parse'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_floor(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_floor'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

-- Deletes registry rows of seconds before `before`; refuses a horizon newer
-- than now - crid.evict_min_age, since a clock stepped back into a deleted
-- second would start its sequences from 0 again.
CREATE FUNCTION crid_evict(before timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    horizon bigint := @extschema@.crid_evict_horizon(before);
    deleted bigint;
BEGIN
    DELETE FROM @extschema@.crid_allocations WHERE ts < horizon;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;
REVOKE EXECUTE ON FUNCTION crid_evict(timestamptz) FROM PUBLIC;
CREATE FUNCTION crid_evict_horizon(before timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_evict_horizon'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
