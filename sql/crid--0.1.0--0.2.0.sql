-- crid 0.1.0 -> 0.2.0. New and changed SQL objects of 0.2.0 go here; the
-- Makefile appends this file to crid--0.1.0.sql to build crid--0.2.0.sql, so
-- a fresh install and an upgrade run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.2.0'" to load this file. \quit

------------------------------------------------------------------------------
-- Shard genes (issue 7): the low bits of an id name its shard
------------------------------------------------------------------------------

CREATE FUNCTION gene_of(key bigint, bits integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_of_bigint'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gene_of(bigint, integer) IS
    'the shard gene of a bigint key: its low bits (two''s complement for negative keys)';
CREATE FUNCTION gene_of(key text, bits integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_of_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gene_of(text, integer) IS
    'the shard gene of a text key: MurmurHash3 x86_32 (seed 0) of its UTF-8 bytes, masked to bits';
CREATE FUNCTION gene_of(key uuid, bits integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_of_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gene_of(uuid, integer) IS
    'the shard gene of a uuid key: MurmurHash3 x86_32 (seed 0) of its 16 bytes, masked to bits';

CREATE FUNCTION id_gene(id bigint, bits integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_id_gene_bigint'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gene(bigint, integer) IS 'the shard gene an id carries in its low bits';
CREATE FUNCTION id_gene(id uuid, bits integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_id_gene_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gene(uuid, integer) IS 'the shard gene a uuid carries in its low bits';

CREATE FUNCTION id_with_gene(id bigint, gene integer, bits integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_id_with_gene_bigint'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_with_gene(bigint, integer, integer) IS
    'the id with its low bits replaced by a gene; on ids minted without gene bits this can create duplicates';
CREATE FUNCTION id_with_gene(id uuid, gene integer, bits integer) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_id_with_gene_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_with_gene(uuid, integer, integer) IS
    'the uuid with its low bits replaced by a gene (in place of random bits)';

-- Generators that take a gene. Not STRICT: a NULL gene or bits is ERROR 22004.
CREATE FUNCTION uuid_generate_v7(gene integer, bits integer) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_generate_v7_gene'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_generate_v7(integer, integer) IS
    'UUID version 7 in the server-wide order with a shard gene in the low bits (1 to 10 of them)';
CREATE FUNCTION crid_next(gene integer, bits integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_next_gene'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION crid_next(integer, integer) IS
    'next crid id whose low bits are the gene; the ids skipped to reach it are never served';

-- Fills a NULL id with an id carrying the gene of another column, for tables
-- that are not partitioned by the id (rows are routed before BEFORE triggers).
CREATE FUNCTION crid_fill_id_with_gene() RETURNS trigger
    AS 'MODULE_PATHNAME', 'crid_fill_id_with_gene'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION crid_fill_id_with_gene() IS
    'BEFORE INSERT OR UPDATE row trigger: crid_fill_id_with_gene(id_column, family, key_column [, bits])';

-- Hash operator classes whose extended hash makes PostgreSQL's hash
-- partitioning compute the id itself: PARTITION BY HASH (id crid_gene_int8_ops)
-- with MODULUS 2^k stores gene g in REMAINDER g mod 2^k. Smaller integer types
-- hash as the bigint of the same value and their operators are in the family,
-- so WHERE id = 42 (an integer constant) prunes like WHERE id = 42::bigint.
CREATE FUNCTION crid_gene_hash(bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash_extended(bigint, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int8_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash(integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash_extended(integer, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int4_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash(smallint) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash_extended(smallint, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_gene_hash_int2_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash(uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'crid_gene_hash_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_gene_hash_extended(uuid, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_gene_hash_uuid_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION crid_gene_hash_extended(bigint, bigint) IS
    'hash support of crid_gene_int8_ops: the id minus the constant PostgreSQL''s hash_combine64 adds';

CREATE OPERATOR FAMILY crid_gene_int8_ops USING hash;
CREATE OPERATOR CLASS crid_gene_int8_ops FOR TYPE bigint USING hash FAMILY crid_gene_int8_ops AS
    OPERATOR 1 = (bigint, bigint),
    FUNCTION 1 crid_gene_hash(bigint),
    FUNCTION 2 crid_gene_hash_extended(bigint, bigint);
ALTER OPERATOR FAMILY crid_gene_int8_ops USING hash ADD
    OPERATOR 1 = (bigint, integer),
    OPERATOR 1 = (bigint, smallint),
    OPERATOR 1 = (integer, bigint),
    OPERATOR 1 = (smallint, bigint),
    OPERATOR 1 = (integer, integer),
    OPERATOR 1 = (integer, smallint),
    OPERATOR 1 = (smallint, integer),
    OPERATOR 1 = (smallint, smallint),
    FUNCTION 1 crid_gene_hash(integer),
    FUNCTION 2 crid_gene_hash_extended(integer, bigint),
    FUNCTION 1 crid_gene_hash(smallint),
    FUNCTION 2 crid_gene_hash_extended(smallint, bigint);
COMMENT ON OPERATOR CLASS crid_gene_int8_ops USING hash IS
    'PARTITION BY HASH (id crid_gene_int8_ops) with MODULUS 2^k: gene g in REMAINDER g mod 2^k';

CREATE OPERATOR CLASS crid_gene_uuid_ops FOR TYPE uuid USING hash AS
    OPERATOR 1 = (uuid, uuid),
    FUNCTION 1 crid_gene_hash(uuid),
    FUNCTION 2 crid_gene_hash_extended(uuid, bigint);
COMMENT ON OPERATOR CLASS crid_gene_uuid_ops USING hash IS
    'PARTITION BY HASH (id crid_gene_uuid_ops) with MODULUS 2^k: gene g (the uuid''s low bits) in REMAINDER g mod 2^k';
