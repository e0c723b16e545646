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
    OPERATOR 1 pg_catalog.= (bigint, bigint),
    FUNCTION 1 @extschema@.crid_gene_hash(bigint),
    FUNCTION 2 @extschema@.crid_gene_hash_extended(bigint, bigint);
ALTER OPERATOR FAMILY crid_gene_int8_ops USING hash ADD
    OPERATOR 1 pg_catalog.= (bigint, integer),
    OPERATOR 1 pg_catalog.= (bigint, smallint),
    OPERATOR 1 pg_catalog.= (integer, bigint),
    OPERATOR 1 pg_catalog.= (smallint, bigint),
    OPERATOR 1 pg_catalog.= (integer, integer),
    OPERATOR 1 pg_catalog.= (integer, smallint),
    OPERATOR 1 pg_catalog.= (smallint, integer),
    OPERATOR 1 pg_catalog.= (smallint, smallint),
    FUNCTION 1 @extschema@.crid_gene_hash(integer),
    FUNCTION 2 @extschema@.crid_gene_hash_extended(integer, bigint),
    FUNCTION 1 @extschema@.crid_gene_hash(smallint),
    FUNCTION 2 @extschema@.crid_gene_hash_extended(smallint, bigint);
COMMENT ON OPERATOR CLASS crid_gene_int8_ops USING hash IS
    'PARTITION BY HASH (id crid_gene_int8_ops) with MODULUS 2^k: gene g in REMAINDER g mod 2^k';

CREATE OPERATOR CLASS crid_gene_uuid_ops FOR TYPE uuid USING hash AS
    OPERATOR 1 pg_catalog.= (uuid, uuid),
    FUNCTION 1 @extschema@.crid_gene_hash(uuid),
    FUNCTION 2 @extschema@.crid_gene_hash_extended(uuid, bigint);
COMMENT ON OPERATOR CLASS crid_gene_uuid_ops USING hash IS
    'PARTITION BY HASH (id crid_gene_uuid_ops) with MODULUS 2^k: gene g (the uuid''s low bits) in REMAINDER g mod 2^k';

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

-- What the planner hook leaves beside the id range of a
-- uuid_v7_to_timestamptz predicate: inside the range the time comparison is
-- exact for version 7 ids, so only the version is left to check, with the
-- decoder's own ERROR for any other UUID. Its support function tells the
-- planner that it keeps every row. COST 2, what the decoder and its
-- comparison cost: the planner orders filters by cost, so the check runs
-- where the predicate it stands for would have, not before a cheaper filter
-- that spares it the rows of other versions.
CREATE FUNCTION crid_uuid_v7_check_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_check_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_uuid_v7_check(id uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_check'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2 SUPPORT crid_uuid_v7_check_support;
COMMENT ON FUNCTION crid_uuid_v7_check(uuid) IS
    'true for a UUID version 7; any other is the ERROR uuid_v7_to_timestamptz raises (the planner hook''s filter)';

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

------------------------------------------------------------------------------
-- Backfills for key migrations: CALL crid_backfill(...) (issue 9)
------------------------------------------------------------------------------

-- One row per column being (or last) filled: the resume point and the
-- progress another session reads through crid_backfill_progress. Rows are
-- readable by whoever may read the table, writable by whoever may update
-- the column.
CREATE TABLE crid_backfill_state (
    relid oid NOT NULL,
    attnum smallint NOT NULL,
    column_name name NOT NULL,
    expression text NOT NULL,
    batch_size integer NOT NULL,
    started_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    finished_at timestamptz,
    rows_done bigint NOT NULL,   -- rows this run filled
    rows_total bigint NOT NULL,  -- rows that were NULL when this run started
    batches bigint NOT NULL,
    rows_per_second numeric,
    last_key text[],             -- primary key of the last row of the last committed batch
    pid integer NOT NULL,
    PRIMARY KEY (relid, attnum)
);
COMMENT ON TABLE crid_backfill_state IS
    'crid_backfill runs: resume point and progress (read it through crid_backfill_progress)';
ALTER TABLE crid_backfill_state ENABLE ROW LEVEL SECURITY;
CREATE POLICY crid_backfill_state_read ON crid_backfill_state FOR SELECT
    USING (pg_catalog.has_table_privilege(relid, 'SELECT'::pg_catalog.text));
CREATE POLICY crid_backfill_state_write ON crid_backfill_state FOR ALL
    USING (pg_catalog.has_column_privilege(relid, attnum, 'UPDATE'::pg_catalog.text))
    WITH CHECK (pg_catalog.has_column_privilege(relid, attnum, 'UPDATE'::pg_catalog.text));
GRANT SELECT, INSERT, UPDATE, DELETE ON crid_backfill_state TO PUBLIC;

-- The advisory lock a run holds while it works on a column: two runs on one
-- column refuse each other, and the progress view tells a running backfill
-- from an interrupted one. Key: 'cr' << 48 | attnum << 32 | relid.
CREATE FUNCTION crid_backfill_lock_key(relid oid, attnum smallint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (25458::pg_catalog.int8 OPERATOR(pg_catalog.<<) 48) OPERATOR(pg_catalog.|)
           (attnum::pg_catalog.int8 OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) relid::pg_catalog.int8; -- 25458 = 0x6372, 'cr'

CREATE FUNCTION crid_backfill_check_expression(rel regclass, column_name name, expression text) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_backfill_check_expression'
    LANGUAGE C STABLE STRICT;

-- Fills column_name with expression where it is NULL, batch_size rows at a
-- time in primary-key order, committing each batch and sleeping pause
-- between them. Interrupted, it resumes from its last committed batch; a
-- filled row is never written again. Everything is checked before the first
-- row changes.
CREATE PROCEDURE crid_backfill(rel regclass, column_name name, expression text,
                               batch_size integer DEFAULT 5000, pause interval DEFAULT '50 ms')
    LANGUAGE plpgsql
AS $$
DECLARE
    col record;
    keys text[];       -- primary key columns, quoted
    key_types text[];  -- their types
    target text;       -- the table as UPDATE names it
    lock_key bigint;
    resume text[];
    cursor_key text[];
    after text;
    batch_sql text[] := '{}';  -- the batch from the start, and after a cursor
    picked bigint;
    more boolean;
    filled bigint;
    last_picked text[];
    null_key text[];
    total bigint;
    done bigint := 0;
    batch_no bigint := 0;
    run_start timestamptz := clock_timestamp();
    rate numeric;
    left_rows bigint;
    eta bigint;        -- seconds left at the current rate
    label text;
BEGIN
    IF rel IS NULL OR column_name IS NULL OR expression IS NULL OR batch_size IS NULL OR pause IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    IF batch_size < 1 THEN
        RAISE EXCEPTION 'crid_backfill: batch_size % is below 1', batch_size USING ERRCODE = '22023';
    END IF;
    IF pause < interval '0' THEN
        RAISE EXCEPTION 'crid_backfill: pause % is negative', pause USING ERRCODE = '22023';
    END IF;
    IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = rel) NOT IN ('r', 'p') THEN
        RAISE EXCEPTION 'crid_backfill: % is not a table', rel USING ERRCODE = '42809';
    END IF;
    SELECT a.attnum, a.attgenerated, a.attidentity INTO col
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = crid_backfill.column_name AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of relation % does not exist', column_name, rel
            USING ERRCODE = '42703';
    END IF;
    IF col.attgenerated <> '' THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of % is a generated column', column_name, rel
            USING ERRCODE = '42809';
    END IF;
    SELECT array_agg(pg_catalog.quote_ident(a.attname) ORDER BY k.ord),
           array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY k.ord)
    INTO keys, key_types
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = rel AND i.indisprimary;
    IF keys IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: % has no primary key', rel USING ERRCODE = '55000',
            HINT = 'Batches walk the table in primary-key order; add a primary key (or backfill with UPDATE).';
    END IF;
    IF pg_catalog.quote_ident(column_name) = ANY (keys) THEN
        RAISE EXCEPTION 'crid_backfill: column "%" is part of the primary key of %, which is never NULL',
            column_name, rel USING ERRCODE = '22023';
    END IF;
    IF NOT pg_catalog.has_column_privilege(rel, col.attnum, 'UPDATE') THEN
        RAISE EXCEPTION 'crid_backfill: permission denied to update column "%" of %', column_name, rel
            USING ERRCODE = '42501';
    END IF;
    PERFORM @extschema@.crid_backfill_check_expression(rel, column_name, expression);

    target := pg_catalog.quote_ident((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel));
    label := format('%s.%I', rel, column_name);
    lock_key := @extschema@.crid_backfill_lock_key(rel, col.attnum);
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        RAISE EXCEPTION 'crid_backfill: another crid_backfill is filling %', label USING ERRCODE = '55006';
    END IF;

    -- One batch: pick the next batch_size NULL rows (after the cursor: $1,
    -- the last key of the previous batch), fill those still NULL, report how
    -- many were picked and filled, the last key picked and the key of a row
    -- the expression left NULL. The expression sits between parentheses on
    -- lines of its own (it was checked to be one expression).
    FOREACH after IN ARRAY ARRAY['', format('AND (%s) > (%s)', array_to_string(keys, ', '),
                                            (SELECT string_agg(format('($1)[%s]::%s', n, key_types[n]), ', ')
                                             FROM generate_series(1, cardinality(keys)) n))] LOOP
        batch_sql := batch_sql || format(
            'WITH crid_backfill_batch AS (SELECT %1$s FROM %2$s WHERE %3$I IS NULL %4$s ORDER BY %5$s LIMIT %6$s), '
            'crid_backfill_filled AS (UPDATE %2$s SET %3$I = (' || E'\n' || '%7$s' || E'\n' || ') '
            'FROM crid_backfill_batch WHERE (%8$s) = (%9$s) AND %10$s.%3$I IS NULL '
            'RETURNING %10$s.%3$I IS NULL AS gave_null, ARRAY[%11$s]::text[] AS key) '
            'SELECT (SELECT count(*) FROM crid_backfill_batch), '
            '(SELECT count(*) FROM crid_backfill_filled), '
            '(SELECT ARRAY[%12$s]::text[] FROM crid_backfill_batch ORDER BY %13$s LIMIT 1), '
            '(SELECT key FROM crid_backfill_filled WHERE gave_null LIMIT 1)',
            (SELECT string_agg(format('%s AS crid_backfill_key_%s', k, n), ', ') FROM unnest(keys) WITH ORDINALITY u(k, n)),
            rel, column_name, after, array_to_string(keys, ', '), batch_size, expression,
            (SELECT string_agg(format('%s.%s', target, k), ', ') FROM unnest(keys) k),
            (SELECT string_agg(format('crid_backfill_batch.crid_backfill_key_%s', n), ', ')
             FROM generate_series(1, cardinality(keys)) n),
            target,
            (SELECT string_agg(format('%s.%s::text', target, k), ', ') FROM unnest(keys) k),
            (SELECT string_agg(format('crid_backfill_key_%s::text', n), ', ')
             FROM generate_series(1, cardinality(keys)) n),
            (SELECT string_agg(format('crid_backfill_key_%s DESC', n), ', ')
             FROM generate_series(1, cardinality(keys)) n));
    END LOOP;

    SELECT s.last_key INTO resume FROM @extschema@.crid_backfill_state s
    WHERE s.relid = rel AND s.attnum = col.attnum AND s.finished_at IS NULL;
    cursor_key := resume;
    EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NULL', rel, column_name) INTO total;
    INSERT INTO @extschema@.crid_backfill_state AS s
        VALUES (rel, col.attnum, column_name, expression, batch_size, run_start, clock_timestamp(), NULL, 0, total, 0,
                NULL, cursor_key, pg_catalog.pg_backend_pid())
    ON CONFLICT (relid, attnum) DO UPDATE
        SET column_name = EXCLUDED.column_name, expression = EXCLUDED.expression, batch_size = EXCLUDED.batch_size,
            started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at, finished_at = NULL, rows_done = 0,
            rows_total = EXCLUDED.rows_total, batches = 0, rows_per_second = NULL, last_key = EXCLUDED.last_key,
            pid = EXCLUDED.pid;
    IF resume IS NOT NULL THEN
        RAISE NOTICE 'crid_backfill %: resuming after primary key (%), % rows to fill', label,
            array_to_string(resume, ', '), total;
    END IF;
    COMMIT;
    -- Committing released the lock: take it again in each transaction.
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        RAISE EXCEPTION 'crid_backfill: another crid_backfill took over %', label USING ERRCODE = '55006';
    END IF;

    LOOP
        EXECUTE batch_sql[CASE WHEN cursor_key IS NULL THEN 1 ELSE 2 END]
            INTO picked, filled, last_picked, null_key
            USING cursor_key;
        IF null_key IS NOT NULL THEN
            RAISE EXCEPTION 'crid_backfill %: the expression gave NULL for the row with primary key (%)', label,
                array_to_string(null_key, ', ') USING ERRCODE = '22004',
                HINT = 'Such a row would stay NULL and be picked again forever; fix it or the expression, then CALL again.';
        END IF;
        IF picked = 0 THEN
            -- The end of a pass. Rows inserted behind the cursor meanwhile
            -- are found by one more pass from the start.
            EXIT WHEN cursor_key IS NULL;
            EXECUTE format('SELECT EXISTS (SELECT FROM %s WHERE %I IS NULL)', rel, column_name) INTO STRICT more;
            EXIT WHEN NOT more;
            cursor_key := NULL;
            CONTINUE;
        END IF;
        cursor_key := last_picked;
        done := done + filled;
        batch_no := batch_no + 1;
        rate := round(done / greatest(extract(epoch FROM clock_timestamp() - run_start), 0.001));
        left_rows := greatest(total - done, 0);
        UPDATE @extschema@.crid_backfill_state s
            SET rows_done = done, batches = batch_no, last_key = cursor_key, rows_per_second = rate,
                updated_at = clock_timestamp()
            WHERE s.relid = rel AND s.attnum = col.attnum;
        COMMIT;
        IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
            RAISE EXCEPTION 'crid_backfill: another crid_backfill took over %', label USING ERRCODE = '55006';
        END IF;
        eta := CASE WHEN rate > 0 THEN round(left_rows / rate)::bigint END;
        RAISE NOTICE 'crid_backfill %: batch %, % rows done, % left, % rows/s, about % left', label, batch_no, done,
            left_rows, rate, coalesce(format('%s:%s:%s', eta / 3600, lpad((eta / 60 % 60)::text, 2, '0'),
                                             lpad((eta % 60)::text, 2, '0')), 'unknown time');
        IF pause > interval '0' THEN
            PERFORM pg_catalog.pg_sleep(extract(epoch FROM pause)::double precision);
        END IF;
    END LOOP;

    UPDATE @extschema@.crid_backfill_state s
        SET finished_at = clock_timestamp(), updated_at = clock_timestamp(), rows_done = done, batches = batch_no,
            last_key = NULL
        WHERE s.relid = rel AND s.attnum = col.attnum;
    RAISE NOTICE 'crid_backfill %: done, % rows filled in % batches', label, done, batch_no;
END
$$;
COMMENT ON PROCEDURE crid_backfill(regclass, name, text, integer, interval) IS
    'fill a column with an expression where it is NULL, in committed primary-key-ordered batches; resumable';

-- Progress of crid_backfill runs, for any session: running, interrupted or done.
CREATE VIEW crid_backfill_progress WITH (security_invoker = true) AS
SELECT s.relid::pg_catalog.regclass AS relation, s.column_name,
       CASE WHEN s.finished_at IS NOT NULL THEN 'done'::pg_catalog.text
            WHEN EXISTS (SELECT FROM pg_catalog.pg_locks l
                         WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory'::pg_catalog.text AND l.granted
                           AND l.objsubid OPERATOR(pg_catalog.=) 1
                           AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d
                                             WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
                           AND l.classid OPERATOR(pg_catalog.=)
                               (@extschema@.crid_backfill_lock_key(s.relid, s.attnum) OPERATOR(pg_catalog.>>) 32)::pg_catalog.int4::pg_catalog.oid
                           AND l.objid OPERATOR(pg_catalog.=) s.relid) THEN 'running'::pg_catalog.text
            ELSE 'interrupted'::pg_catalog.text END AS state,
       s.rows_done, greatest(s.rows_total OPERATOR(pg_catalog.-) s.rows_done, 0) AS rows_left,
       pg_catalog.round(100.0 OPERATOR(pg_catalog.*) s.rows_done OPERATOR(pg_catalog./) nullif(s.rows_total, 0), 1) AS percent_done,
       s.rows_per_second,
       CASE WHEN s.finished_at IS NULL AND s.rows_per_second OPERATOR(pg_catalog.>) 0
            THEN pg_catalog.justify_interval(pg_catalog.make_interval(secs => pg_catalog.round(
                     greatest(s.rows_total OPERATOR(pg_catalog.-) s.rows_done, 0)
                     OPERATOR(pg_catalog./) s.rows_per_second))) END AS time_left,
       s.batches, s.batch_size, s.expression, s.last_key AS resume_after, s.started_at, s.updated_at, s.finished_at,
       s.pid
FROM @extschema@.crid_backfill_state s
WHERE EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) s.relid);
GRANT SELECT ON crid_backfill_progress TO PUBLIC;
COMMENT ON VIEW crid_backfill_progress IS
    'crid_backfill runs: state (running, interrupted, done), rows done and left, rate and time left';

-- Hardening (issue 12): no generator turns a NULL argument into a NULL id.
------------------------------------------------------------------------------

-- 0.1.0 declared these STRICT, so a NULL node or gene silently gave a NULL
-- id; now they raise 22004 like every other generator.
ALTER FUNCTION @extschema@.snowflake_next(integer) CALLED ON NULL INPUT;
ALTER FUNCTION @extschema@.snowflake_next(integer, integer) CALLED ON NULL INPUT;

------------------------------------------------------------------------------
-- Availability (issue 15): history on disk stops only the minting that
-- depends on it; these superuser functions resolve it on a running server.
------------------------------------------------------------------------------

-- After the crid.snowflake_* settings changed: moves the high-water mark so
-- every new snowflake id is greater than every id minted under the old
-- layout, when the new layout makes that possible (force: accept anyway).
CREATE FUNCTION crid_accept_layout(force boolean DEFAULT false) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_accept_layout'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
REVOKE EXECUTE ON FUNCTION crid_accept_layout(boolean) FROM PUBLIC;
COMMENT ON FUNCTION crid_accept_layout(boolean) IS
    'accept a changed snowflake layout; returns the time from which new snowflake ids are minted (superuser)';

-- Replaces the high-water mark and the registry mark with `at` (e.g. after
-- crid_high_water was damaged); refuses a time before the clock minus
-- crid.clock_borrow_ms, or before an intact mark, unless forced.
CREATE FUNCTION crid_reset_high_water(at timestamptz, force boolean DEFAULT false) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_reset_high_water'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
REVOKE EXECUTE ON FUNCTION crid_reset_high_water(timestamptz, boolean) FROM PUBLIC;
COMMENT ON FUNCTION crid_reset_high_water(timestamptz, boolean) IS
    'set the high-water marks of snowflake, UUIDv7 and crid to at, repairing a damaged file (superuser)';

------------------------------------------------------------------------------
-- A registry table the extension does not own (issue 14): crid.registry_table
-- names it (e.g. the crid_allocations Go services created), and the registry
-- functions work on it.
------------------------------------------------------------------------------

-- The registry table of this database: crid.registry_table, checked for the
-- registry's shape, or the extension's own crid_allocations.
CREATE FUNCTION crid_registry_table() RETURNS regclass
    AS 'MODULE_PATHNAME', 'crid_registry_table'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION crid_registry_table() IS
    'the registry table crid_allocate and crid_evict use in this database (crid.registry_table, or crid_allocations)';

CREATE OR REPLACE FUNCTION crid_allocate(ts bigint, block_size bigint) RETURNS bigint
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
    PERFORM @extschema@.crid_check_not_evicted('crid_allocate', crid_allocate.ts,  -- issue 13
                                               @extschema@.crid_evicted_before(@extschema@.crid_registry_table()));
    EXECUTE format('INSERT INTO %s AS a (ts, next_seq) VALUES ($1, $2) '
                   'ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq RETURNING a.next_seq',
                   @extschema@.crid_registry_table())
        INTO block_end USING crid_allocate.ts, crid_allocate.block_size;
    PERFORM @extschema@.crid_check_block_end(crid_allocate.ts, block_end);
    RETURN block_end - crid_allocate.block_size;
END
$$;

CREATE OR REPLACE FUNCTION crid_evict(before timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    horizon bigint := @extschema@.crid_evict_horizon(before);
    deleted bigint;
BEGIN
    PERFORM @extschema@.crid_record_eviction(@extschema@.crid_registry_table(), horizon); -- issue 13
    EXECUTE format('DELETE FROM %s WHERE ts < $1', @extschema@.crid_registry_table()) USING horizon;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

------------------------------------------------------------------------------
-- A fleet of servers on one registry (issue 8): crid.registry names a remote
-- registry server the block reserver reaches over libpq.
------------------------------------------------------------------------------

-- What the block reserver last saw of its registry: where it is (never a
-- password), its state and last error, the connection to a remote registry,
-- the latency of its last round trip, and the expiry of its snowflake node
-- leases and what keeps it from a node (below).
CREATE FUNCTION crid_registry_status(
    OUT registry text, OUT remote boolean, OUT state text, OUT detail text, OUT connected boolean,
    OUT connects bigint, OUT round_trips bigint, OUT last_round_trip_us bigint,
    OUT lease_until timestamptz, OUT lease_problem text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'crid_registry_status'
    LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION crid_registry_status() IS
    'the crid block reserver''s registry: where it is, its state and last error, connection, latency and node leases';

-- Snowflake node leases (issue 8): one row per node a server of the fleet
-- holds, leased (crid.node_id = 'lease') or registered (a static
-- crid.node_id or crid.snowflake_nodes), kept by its worker on the registry
-- server. high_water_ms bounds every id its holder may have minted: the next
-- holder starts above it. Dumped by pg_dump; only its owner (and the roles
-- the README lists) may write it.
CREATE TABLE crid_node_leases (
    node integer PRIMARY KEY CHECK (node OPERATOR(pg_catalog.>=) 0 AND node OPERATOR(pg_catalog.<=) 65535),
    holder text NOT NULL,
    token text NOT NULL,
    kind text NOT NULL CHECK (kind OPERATOR(pg_catalog.=) ANY (ARRAY['lease'::pg_catalog.text, 'static'::pg_catalog.text])),
    lease_until timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    high_water_ms bigint NOT NULL
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.crid_node_leases'::pg_catalog.regclass, ''::pg_catalog.text);
REVOKE ALL ON crid_node_leases FROM PUBLIC;
COMMENT ON TABLE crid_node_leases IS
    'snowflake nodes held by the servers of a fleet: holder, lease expiry, and the bound of the holder''s ids';

------------------------------------------------------------------------------
-- Ids for past times: snowflake (issue 13)
------------------------------------------------------------------------------

-- The exact id of these fields at `at`'s time unit: what a generator would
-- have minted then. It mints nothing (no preloading needed). Not STRICT: a
-- NULL argument is ERROR 22004, never a NULL id stored by a backfill.
CREATE FUNCTION snowflake_pack(at timestamptz, node integer, sequence integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node integer, sequence integer, gene integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_gene'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node integer, sequence integer, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_layout'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node integer, sequence integer, gene integer, layout text)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_gene_layout'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_pack(timestamptz, integer, integer) IS
    'the snowflake id of this server''s layout with these fields at at''s millisecond (for backfills)';
COMMENT ON FUNCTION snowflake_pack(timestamptz, integer, integer, integer) IS
    'the snowflake id of this server''s layout with these fields and gene at at''s millisecond (for backfills)';
COMMENT ON FUNCTION snowflake_pack(timestamptz, integer, integer, text) IS
    'the snowflake id of the layout with these fields at at''s time unit (for backfills)';
COMMENT ON FUNCTION snowflake_pack(timestamptz, integer, integer, integer, text) IS
    'the snowflake id of the layout with these fields and gene at at''s time unit (for backfills)';

-- The plan of a snowflake backfill: a table of the rows of `rel` whose
-- `column_name` is NULL, by primary key, with the id each gets on `node`:
-- its time_column's unit, and as sequence its rank in that unit by
-- (time_column, primary key). Returns the expression that reads a row's id
-- from the plan, for crid_backfill:
--   CALL crid_backfill('orders', 'new_id',
--                      snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan'));
-- The ranks are fixed once, in one snapshot, and kept: ranks computed again
-- after rows were deleted would give a row the sequence of a row already
-- filled. So an existing plan of the same backfill is used again (that is how
-- a CALL resumes), and a table of that name that is not one is refused.
CREATE FUNCTION snowflake_backfill_plan(rel regclass, column_name name, time_column name, plan_table text,
                                        node integer, layout text) RETURNS text
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    fn constant text := 'snowflake_backfill_plan';
    relkind "char";
    keys text[];       -- primary key columns, quoted
    column_type regtype;
    time_type regtype;
    parts text[];
    plan_schema name;
    plan_name name;
    plan text;         -- the plan table, qualified and quoted
    marker text;       -- the plan table's comment: which backfill it plans
    found_marker text;
    canonical text;    -- the layout as snowflake_layout() spells it
    capacity bigint;   -- sequences of one node in one time unit
    unit_ms bigint;
    burst record;
    rows_planned bigint;
BEGIN
    IF rel IS NULL OR column_name IS NULL OR time_column IS NULL OR plan_table IS NULL OR node IS NULL
       OR layout IS NULL THEN
        RAISE EXCEPTION '%: no argument may be NULL', fn USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind INTO relkind FROM pg_catalog.pg_class c WHERE c.oid = rel;
    IF relkind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '%: % is not a table', fn, rel USING ERRCODE = '42809';
    END IF;
    SELECT array_agg(pg_catalog.quote_ident(a.attname) ORDER BY k.ord) INTO keys
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = rel AND i.indisprimary;
    IF keys IS NULL THEN
        RAISE EXCEPTION '%: % has no primary key', fn, rel USING ERRCODE = '55000',
            HINT = 'The plan keys each row by its primary key, and ranks rows of one time by it.';
    END IF;
    SELECT a.atttypid INTO column_type FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = snowflake_backfill_plan.column_name AND a.attnum > 0 AND NOT a.attisdropped;
    IF column_type IS NULL THEN
        RAISE EXCEPTION '%: column "%" of relation % does not exist', fn, column_name, rel USING ERRCODE = '42703';
    END IF;
    IF column_type <> 'bigint'::regtype THEN
        RAISE EXCEPTION '%: column "%" of % is %, not bigint', fn, column_name, rel, column_type
            USING ERRCODE = '42804';
    END IF;
    IF pg_catalog.quote_ident(column_name) = ANY (keys) THEN
        RAISE EXCEPTION '%: column "%" is part of the primary key of %', fn, column_name, rel
            USING ERRCODE = '22023';
    END IF;
    SELECT a.atttypid INTO time_type FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = time_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF time_type IS NULL THEN
        RAISE EXCEPTION '%: column "%" of relation % does not exist', fn, time_column, rel USING ERRCODE = '42703';
    END IF;
    IF time_type <> 'timestamptz'::regtype THEN
        -- timestamp and date convert through the session's TimeZone: another
        -- session would plan other ids.
        RAISE EXCEPTION '%: column "%" of % is %, not timestamp with time zone', fn, time_column, rel, time_type
            USING ERRCODE = '42804',
                  HINT = 'Plan from an expression that says the zone, e.g. a column added as created_at AT TIME ZONE ''UTC''.';
    END IF;
    -- The node and the layout, checked once rather than at the first row.
    PERFORM @extschema@.snowflake_pack(@extschema@.snowflake_to_timestamptz(0, layout), node, 0, layout);

    parts := pg_catalog.parse_ident(plan_table);
    IF cardinality(parts) > 2 THEN
        RAISE EXCEPTION '%: plan table "%" is not a table name', fn, plan_table USING ERRCODE = '42602';
    END IF;
    plan_name := parts[cardinality(parts)];
    plan_schema := CASE WHEN cardinality(parts) = 2 THEN parts[1]
                        ELSE (SELECT n.nspname FROM pg_catalog.pg_class c
                              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel) END;
    plan := format('%I.%I', plan_schema, plan_name);
    -- The table always qualified: the text of rel depends on the search_path.
    marker := format('crid snowflake_backfill_plan of %s.%I from %I: node %s, layout %s',
                     (SELECT format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_class c
                      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel),
                     column_name, time_column, node, @extschema@.snowflake_layout(layout));

    SELECT pg_catalog.obj_description(c.oid, 'pg_class') INTO found_marker
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = plan_schema AND c.relname = plan_name;
    IF FOUND THEN
        IF found_marker IS DISTINCT FROM marker THEN
            RAISE EXCEPTION '%: % exists and is not the plan of this backfill', fn, plan USING ERRCODE = '42P07',
                DETAIL = format('Its comment is %L; the plan would say %L.', found_marker, marker),
                HINT = 'Name another plan table, or drop this one if it is no longer needed.';
        END IF;
        RAISE NOTICE '%: using the existing plan %', fn, plan;
    ELSE
        BEGIN
            EXECUTE format(
                'CREATE TABLE %1$s AS '
                'SELECT %2$s, @extschema@.snowflake_pack(%3$I, %4$s, (row_number() OVER w - 1)::integer, %5$L) AS %6$I '
                'FROM %7$s WHERE %6$I IS NULL '
                'WINDOW w AS (PARTITION BY @extschema@.snowflake_floor(%3$I, %5$L) ORDER BY %3$I, %2$s)',
                plan, array_to_string(keys, ', '), time_column, node, layout, column_name, rel);
            GET DIAGNOSTICS rows_planned = ROW_COUNT;
        EXCEPTION
            WHEN numeric_value_out_of_range THEN
                -- A rank past the sequence field: a unit holds more rows
                -- than one node has sequences. Name the first such unit.
                canonical := @extschema@.snowflake_layout(layout);
                capacity := 2::bigint ^ substring(canonical FROM ',sequence=([0-9]+)')::integer;
                unit_ms := substring(canonical FROM ',unit=([0-9]+)ms')::bigint;
                EXECUTE format('SELECT u, n, count(*) OVER () AS overfull FROM '
                               '(SELECT @extschema@.snowflake_floor(%1$I, %2$L) u, count(*) n FROM %3$s '
                               'WHERE %4$I IS NULL GROUP BY 1 HAVING count(*) > $1) s ORDER BY u LIMIT 1',
                               time_column, layout, rel, column_name) INTO burst USING capacity;
                IF burst.u IS NULL THEN
                    RAISE; -- not a full unit after all
                END IF;
                RAISE EXCEPTION '%: % rows of % fall in the % %, more than the % sequences one snowflake node has in it',
                    fn, burst.n, rel, CASE WHEN unit_ms = 1 THEN 'millisecond' ELSE unit_ms || ' ms unit starting at' END,
                    to_char(@extschema@.snowflake_to_timestamptz(burst.u, layout) AT TIME ZONE 'UTC',
                            'YYYY-MM-DD HH24:MI:SS.MS+00'), capacity
                    USING ERRCODE = '22003',
                    DETAIL = format('%s time units hold more than %s rows to plan; this is the first.',
                                    burst.overfull, capacity),
                    HINT = 'Ids of one node and time differ only in their sequence. Rows stamped with one time in '
                           'bulk (an import that set the time to now()) need times that tell them apart.';
            WHEN null_value_not_allowed THEN
                EXECUTE format('SELECT ARRAY[%1$s]::text[] FROM %2$s WHERE %3$I IS NULL AND %4$I IS NULL LIMIT 1',
                               (SELECT string_agg(format('%s::text', k), ', ') FROM unnest(keys) k),
                               rel, column_name, time_column) INTO parts;
                IF parts IS NULL THEN
                    RAISE;
                END IF;
                RAISE EXCEPTION '%: % is NULL in the row of % with primary key (%)', fn, time_column, rel,
                    array_to_string(parts, ', ') USING ERRCODE = '22004',
                    HINT = 'A row without a time has no place in time order; give it one, or fill it apart.';
        END;
        EXECUTE format('ALTER TABLE %s ADD PRIMARY KEY (%s), ALTER COLUMN %I SET NOT NULL', plan,
                       array_to_string(keys, ', '), column_name);
        EXECUTE format('COMMENT ON TABLE %s IS %L', plan, marker);
        RAISE NOTICE '%: % rows of % planned in %', fn, rows_planned, rel, plan;
    END IF;
    RETURN format('(SELECT p.%I FROM %s p WHERE (%s) = (%s))', column_name, plan,
                  (SELECT string_agg('p.' || k, ', ') FROM unnest(keys) k),
                  (SELECT string_agg(format('%I.%s', (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel), k),
                                     ', ') FROM unnest(keys) k));
END
$$;
COMMENT ON FUNCTION snowflake_backfill_plan(regclass, name, name, text, integer, text) IS
    'plan the snowflake ids of a backfill on a node of a layout; returns the expression for crid_backfill';

-- The same on this server's layout and crid.backfill_node, the node that
-- snowflake_next() refuses: the planned ids never equal a live id.
CREATE FUNCTION snowflake_backfill_plan(rel regclass, column_name name, time_column name, plan_table text)
    RETURNS text
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    layout text := @extschema@.snowflake_layout(); -- also loads crid, which defines the setting
    node integer := pg_catalog.current_setting('crid.backfill_node')::integer;
BEGIN
    IF rel IS NULL OR column_name IS NULL OR time_column IS NULL OR plan_table IS NULL THEN
        RAISE EXCEPTION 'snowflake_backfill_plan: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    IF node < 0 THEN
        RAISE EXCEPTION 'snowflake_backfill_plan: crid.backfill_node is not set' USING ERRCODE = '55000',
            HINT = 'Set crid.backfill_node in postgresql.conf (and restart) to a node no server mints on, or '
                   'name a node and a layout: snowflake_backfill_plan(rel, column, time_column, plan_table, node, layout).';
    END IF;
    RETURN @extschema@.snowflake_backfill_plan(rel, column_name, time_column, plan_table, node, layout);
END
$$;
COMMENT ON FUNCTION snowflake_backfill_plan(regclass, name, name, text) IS
    'plan the snowflake ids of a backfill on crid.backfill_node; returns the expression for crid_backfill';

------------------------------------------------------------------------------
-- Ids for past times: crid (issue 13)
------------------------------------------------------------------------------

-- How far crid_evict deleted each registry table: every second below
-- evicted_before. Such a second cannot be reserved in again (its row would
-- restart at sequence 0 and repeat ids handed out before), so crid_reserve
-- and crid_allocate refuse it. Keyed by the registry table, schema-qualified
-- (crid_registry_table()::text), since crid.registry_table may name another.
CREATE TABLE crid_evictions (
    registry text PRIMARY KEY,
    evicted_before bigint NOT NULL
);
COMMENT ON TABLE crid_evictions IS
    'crid_evict horizons: registry table -> every registry ts below evicted_before was deleted';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.crid_evictions'::pg_catalog.regclass, ''::pg_catalog.text);
REVOKE ALL ON crid_evictions FROM PUBLIC;

CREATE FUNCTION crid_check_not_evicted(fn text, ts bigint, evicted_before bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_check_not_evicted'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- The eviction horizon of a registry table (0: never evicted), its row
-- locked FOR SHARE until the caller's transaction ends, so a crid_evict
-- (which updates the row before it deletes) waits for reservations made
-- under the old horizon, and a reservation waiting for a crid_evict sees the
-- new one. The row is created when missing, so there is always one to lock.
CREATE FUNCTION crid_evicted_before(registry regclass) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    name text := registry::text; -- qualified: no schema of it is on the search_path
    horizon bigint;
BEGIN
    IF registry IS NULL THEN
        RAISE EXCEPTION 'crid_evicted_before: registry must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT e.evicted_before INTO horizon FROM @extschema@.crid_evictions e WHERE e.registry = name FOR SHARE;
    IF NOT FOUND THEN
        INSERT INTO @extschema@.crid_evictions (registry, evicted_before) VALUES (name, 0) ON CONFLICT DO NOTHING;
        SELECT e.evicted_before INTO horizon FROM @extschema@.crid_evictions e WHERE e.registry = name FOR SHARE;
    END IF;
    RETURN horizon;
END
$$;
REVOKE EXECUTE ON FUNCTION crid_evicted_before(regclass) FROM PUBLIC;

-- crid_evict's record of its horizon: never lowered.
CREATE FUNCTION crid_record_eviction(registry regclass, evicted_before bigint) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    IF crid_record_eviction.registry IS NULL OR crid_record_eviction.evicted_before IS NULL THEN
        RAISE EXCEPTION 'crid_record_eviction: registry and evicted_before must not be NULL' USING ERRCODE = '22004';
    END IF;
    INSERT INTO @extschema@.crid_evictions AS e (registry, evicted_before)
    VALUES (crid_record_eviction.registry::text, crid_record_eviction.evicted_before)
    ON CONFLICT (registry) DO UPDATE SET evicted_before = greatest(e.evicted_before, EXCLUDED.evicted_before);
END
$$;
REVOKE EXECUTE ON FUNCTION crid_record_eviction(regclass, bigint) FROM PUBLIC;

-- The id of `sequence` in at's second. It mints nothing: the sequence must
-- come from a block reserved for that second (crid_reserve). Not STRICT: a
-- NULL argument is ERROR 22004, never a NULL id stored by a backfill.
CREATE FUNCTION crid_pack(at timestamptz, sequence bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_pack'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION crid_pack(timestamptz, bigint) IS
    'the crid id of sequence in at''s second (the sequence from a block crid_reserve reserved)';

CREATE FUNCTION crid_reserve_ts(at timestamptz, n bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_reserve_ts'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION crid_check_reserved_end(ts bigint, n bigint, next_seq bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_check_reserved_end'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Reserves a block of n sequences of at's second in the registry, with the
-- upsert every node uses (crid_allocate, the block reserver, the Go
-- library), and returns its start: the ids crid_pack(at, start) ..
-- crid_pack(at, start + n - 1) are the caller's. The reservation is part of
-- the caller's transaction: it commits with the ids it gave (a rolled-back
-- backfill leaves neither), and the second's registry row stays locked until
-- then, so reserve long past seconds rather than the current one.
CREATE FUNCTION crid_reserve(at timestamptz, n bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ts bigint := @extschema@.crid_reserve_ts(at, n);
    registry regclass := @extschema@.crid_registry_table();
    block_end bigint;
BEGIN
    PERFORM @extschema@.crid_check_not_evicted('crid_reserve', ts, @extschema@.crid_evicted_before(registry));
    EXECUTE format('INSERT INTO %s AS a (ts, next_seq) VALUES ($1, $2) '
                   'ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq RETURNING a.next_seq',
                   registry)
        INTO block_end USING ts, n;
    PERFORM @extschema@.crid_check_reserved_end(ts, n, block_end);
    RETURN block_end - n;
END
$$;
REVOKE EXECUTE ON FUNCTION crid_reserve(timestamptz, bigint) FROM PUBLIC;
COMMENT ON FUNCTION crid_reserve(timestamptz, bigint) IS
    'reserve a block of n sequences of at''s second in the registry (refused for an evicted second) and return its start';
