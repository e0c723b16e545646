-- crid 0.1.0 -> 0.2.0. New and changed SQL objects of 0.2.0 go here; the
-- Makefile appends this file to crid--0.1.0.sql to build crid--0.2.0.sql, so
-- a fresh install and an upgrade run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.2.0'" to load this file. \quit

------------------------------------------------------------------------------
-- Queries by time: id ranges for decoded-time conditions (issue 9)
------------------------------------------------------------------------------

-- The first and last id whose decoded time can lie in a range: a range scan
-- of `id` between them finds exactly the ids of that time (UUIDv7: the
-- version 7 ones). For a range no id's time can lie in, first > last.
CREATE FUNCTION uuid_v7_range_first(r tstzrange) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_range_first'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_v7_range_last(r tstzrange) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_range_last'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v7_range_first(tstzrange) IS
    'the smallest UUID version 7 whose millisecond lies in r (range-scan bound)';
COMMENT ON FUNCTION uuid_v7_range_last(tstzrange) IS
    'the largest UUID version 7 whose millisecond lies in r (range-scan bound)';
CREATE FUNCTION snowflake_range_first(r tstzrange) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_range_first'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_range_first(r tstzrange, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_range_first'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_range_last(r tstzrange) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_range_last'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_range_last(r tstzrange, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_range_last'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_range_first(tstzrange, text) IS
    'the smallest snowflake id of the layout whose time unit begins in r (range-scan bound)';
COMMENT ON FUNCTION snowflake_range_last(tstzrange, text) IS
    'the largest snowflake id of the layout whose time unit begins in r (range-scan bound)';
CREATE FUNCTION crid_range_first(r tstzrange) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_crid_range_first'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_range_last(r tstzrange) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_crid_range_last'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION crid_range_first(tstzrange) IS
    'the smallest crid id whose second begins in r (range-scan bound)';
COMMENT ON FUNCTION crid_range_last(tstzrange) IS
    'the largest crid id whose second begins in r (range-scan bound)';

-- The id bound of `decoder(id) op at` (op: <, <=, >=, >): for >= and > the
-- smallest id that can satisfy it (id >= bound), for <= and < the largest
-- (id <= bound); NULL when no id can. The planner hook writes these.
CREATE FUNCTION uuid_v7_time_bound(at timestamptz, op text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_time_bound'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at timestamptz, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at timestamptz, op text, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_time_bound(at timestamptz, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_crid_time_bound'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v7_time_bound(timestamptz, text) IS
    'id bound of uuid_v7_to_timestamptz(id) op at: id >= it for >= and >, id <= it for <= and <';
COMMENT ON FUNCTION snowflake_time_bound(timestamptz, text, text) IS
    'id bound of snowflake_to_timestamptz(id, layout) op at: id >= it for >= and >, id <= it for <= and <';
COMMENT ON FUNCTION crid_time_bound(timestamptz, text) IS
    'id bound of crid_to_timestamptz(id) op at: id >= it for >= and >, id <= it for <= and <';

-- Is the id's time in the range: true only for ids of the family (a UUID of
-- another version, a negative bigint: false). Their support functions give
-- the planner the id range, so a B-tree on id answers them, preloaded or not.
CREATE FUNCTION crid_uuid_v7_in_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_in_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_snowflake_in_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'crid_snowflake_in_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_crid_in_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'crid_crid_in_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_v7_in(id uuid, r tstzrange) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_in'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT crid_uuid_v7_in_support;
CREATE FUNCTION snowflake_in(id bigint, r tstzrange) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_snowflake_in'
    LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT crid_snowflake_in_support;
CREATE FUNCTION snowflake_in(id bigint, r tstzrange, layout text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_snowflake_in'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT crid_snowflake_in_support;
CREATE FUNCTION crid_in(id bigint, r tstzrange) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_crid_in'
    LANGUAGE C STABLE STRICT PARALLEL SAFE SUPPORT crid_crid_in_support;
COMMENT ON FUNCTION uuid_v7_in(uuid, tstzrange) IS
    'true when id is a UUID version 7 whose millisecond lies in r; uses an index on id';
COMMENT ON FUNCTION snowflake_in(bigint, tstzrange, text) IS
    'true when id is a snowflake id of the layout whose time unit begins in r; uses an index on id';
COMMENT ON FUNCTION crid_in(bigint, tstzrange) IS
    'true when id is a crid id whose second begins in r; uses an index on id';

------------------------------------------------------------------------------
-- Text forms of ids: branded base62, ULID, TypeID (issue 9)
------------------------------------------------------------------------------

CREATE FUNCTION id_encode(id bigint, prefix text DEFAULT '') RETURNS text
    AS 'MODULE_PATHNAME', 'crid_id_encode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_encode(bigint, text) IS
    'prefix_ and 11 base62 digits (0-9A-Za-z) of a non-negative bigint; text order (COLLATE "C") = id order';
CREATE FUNCTION id_decode(id text, prefix text DEFAULT '') RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_id_decode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_decode(text, text) IS
    'the bigint of an id_encode() text that carries this prefix';
CREATE FUNCTION uuid_to_base62(id uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'crid_uuid_to_base62'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_to_base62(uuid) IS
    '22 base62 digits (0-9A-Za-z) of a UUID; text order (COLLATE "C") = uuid order';
CREATE FUNCTION base62_to_uuid(id text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_base62_to_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_to_ulid(id uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'crid_uuid_to_ulid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_to_ulid(uuid) IS
    'the ULID text of a UUID: 26 Crockford base32 symbols, uppercase';
CREATE FUNCTION ulid_to_uuid(id text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_ulid_to_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_uuid(text) IS
    'the UUID of a ULID (case-insensitive; I and L read as 1, O as 0)';
CREATE FUNCTION uuid_to_typeid(prefix text, id uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'crid_uuid_to_typeid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_to_typeid(text, uuid) IS
    'the TypeID (spec 0.3.0) of a UUID: prefix_ and 26 lowercase base32 symbols';
CREATE FUNCTION typeid_to_uuid(id text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_typeid_to_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION typeid_to_uuid(id text, prefix text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_typeid_to_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION typeid_to_uuid(text, text) IS
    'the UUID of a TypeID that must carry this prefix';
