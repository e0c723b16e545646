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
