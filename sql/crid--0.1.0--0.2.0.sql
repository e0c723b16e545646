-- crid 0.1.0 -> 0.2.0. New and changed SQL objects of 0.2.0 go here; the
-- Makefile appends this file to crid--0.1.0.sql to build crid--0.2.0.sql, so
-- a fresh install and an upgrade run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.2.0'" to load this file. \quit

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
