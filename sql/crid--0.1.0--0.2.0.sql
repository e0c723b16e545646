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
    USING (has_table_privilege(relid, 'SELECT'));
CREATE POLICY crid_backfill_state_write ON crid_backfill_state FOR ALL
    USING (has_column_privilege(relid, attnum, 'UPDATE'))
    WITH CHECK (has_column_privilege(relid, attnum, 'UPDATE'));
GRANT SELECT, INSERT, UPDATE, DELETE ON crid_backfill_state TO PUBLIC;

-- The advisory lock a run holds while it works on a column: two runs on one
-- column refuse each other, and the progress view tells a running backfill
-- from an interrupted one. Key: 'cr' << 48 | attnum << 32 | relid.
CREATE FUNCTION crid_backfill_lock_key(relid oid, attnum smallint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (25458::bigint << 48) | (attnum::bigint << 32) | relid::bigint; -- 25458 = 0x6372, 'cr'

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
SELECT s.relid::regclass AS relation, s.column_name,
       CASE WHEN s.finished_at IS NOT NULL THEN 'done'
            WHEN EXISTS (SELECT FROM pg_catalog.pg_locks l
                         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                           AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d
                                             WHERE d.datname = pg_catalog.current_database())
                           AND l.classid = (@extschema@.crid_backfill_lock_key(s.relid, s.attnum) >> 32)::integer::oid
                           AND l.objid = s.relid) THEN 'running'
            ELSE 'interrupted' END AS state,
       s.rows_done, greatest(s.rows_total - s.rows_done, 0) AS rows_left,
       round(100.0 * s.rows_done / nullif(s.rows_total, 0), 1) AS percent_done,
       s.rows_per_second,
       CASE WHEN s.finished_at IS NULL AND s.rows_per_second > 0
            THEN justify_interval(make_interval(secs => round(greatest(s.rows_total - s.rows_done, 0)
                                                               / s.rows_per_second))) END AS time_left,
       s.batches, s.batch_size, s.expression, s.last_key AS resume_after, s.started_at, s.updated_at, s.finished_at,
       s.pid
FROM @extschema@.crid_backfill_state s
WHERE EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = s.relid);
GRANT SELECT ON crid_backfill_progress TO PUBLIC;
COMMENT ON VIEW crid_backfill_progress IS
    'crid_backfill runs: state (running, interrupted, done), rows done and left, rate and time left';

-- Hardening (issue 12): no generator turns a NULL argument into a NULL id.
------------------------------------------------------------------------------

-- 0.1.0 declared these STRICT, so a NULL node or gene silently gave a NULL
-- id; now they raise 22004 like every other generator.
ALTER FUNCTION snowflake_next(integer) CALLED ON NULL INPUT;
ALTER FUNCTION snowflake_next(integer, integer) CALLED ON NULL INPUT;

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
-- and the latency of its last round trip.
CREATE FUNCTION crid_registry_status(
    OUT registry text, OUT remote boolean, OUT state text, OUT detail text, OUT connected boolean,
    OUT connects bigint, OUT round_trips bigint, OUT last_round_trip_us bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'crid_registry_status'
    LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION crid_registry_status() IS
    'the crid block reserver''s registry: where it is, its state and last error, connection and latency';
