-- Shard genes with crid preloaded: gene_of against MurmurHash3 vectors
-- computed outside this code, id_gene / id_with_gene round trips, generators
-- that take a gene, hash partitioning that routes and prunes by gene, the LIST
-- alternative, and every kind of bad input.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
-- The worker may still be connecting to this new database.
SET crid.allocation_timeout = '60s';

-- The relations a query reads (after plan-time and executor-startup pruning):
-- their number, and their names when there are few.
CREATE FUNCTION regress.scanned(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan text;
    names text[];
BEGIN
    EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO plan;
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO names
    FROM regexp_matches(plan, '"Relation Name": "([^"]+)"', 'g') m;
    RETURN cardinality(names) || CASE WHEN cardinality(names) <= 3 THEN ': ' || array_to_string(names, ', ') ELSE '' END;
END $$;

-- gene_of(text): MurmurHash3 x86_32, seed 0, of the UTF-8 bytes. The hashes
-- are those of an implementation written separately from the published
-- algorithm (docs/genes.md); 31 bits shows the hash itself.
SELECT key, octet_length(key) AS bytes, gene_of(key, 31) AS hash31, gene_of(key, 4) AS g4, gene_of(key, 8) AS g8
FROM (VALUES (''), ('a'), ('ab'), ('abc'), ('abcd'), ('hello'), ('user-42'), ('Grüße'), ('東京'), ('🦀'),
             ('🦀 crab'), ('The quick brown fox jumps over the lazy dog')) v(key);
-- Guava's murmur3_32_fixed().hashString("hello", UTF_8).asInt() is 613153351.
SELECT gene_of('hello', 31) = 613153351 AS hello_is_guavas;
-- uuid keys hash their 16 bytes; bigint keys are their low bits (two's complement).
SELECT gene_of('00000000-0000-0000-0000-000000000000'::uuid, 16) AS zero_uuid,
       gene_of('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 16) AS rfc_uuid;
SELECT gene_of(42, 4) AS g42, gene_of(-1, 4) AS minus_one, gene_of(-16, 4) AS minus_sixteen,
       gene_of(9223372036854775807, 31) AS max_bigint;
-- Non-minting functions are STRICT.
SELECT gene_of(NULL::text, 4) IS NULL AS null_key, gene_of('x', NULL) IS NULL AS null_bits,
       id_gene(NULL::bigint, 4) IS NULL AS null_id, id_with_gene(1::bigint, NULL, 4) IS NULL AS null_gene;
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'crid')
  AND (p.proname IN ('gene_of', 'id_gene', 'id_with_gene', 'crid_fill_id_with_gene') OR p.proname LIKE 'crid_gene_hash%'
       OR (p.proname IN ('uuid_generate_v7', 'crid_next') AND p.pronargs = 2))
ORDER BY 1, 2;

-- id_gene / id_with_gene round trips.
SELECT count(*) AS ids, count(*) FILTER (WHERE id_gene(id_with_gene(id, g, 4), 4) <> g) AS bad_gene,
       count(*) FILTER (WHERE id_with_gene(id, g, 4) >> 4 <> id >> 4) AS bad_rest
FROM (SELECT (random() * 9.2e18)::bigint * (CASE WHEN n % 3 = 0 THEN -1 ELSE 1 END) AS id, n % 16 AS g
      FROM generate_series(1, 10000) n) s;
SELECT id_with_gene(1000, 5, 4) AS bigint_1000_gene_5, id_with_gene(-1, 0, 8) AS minus_one_gene_0;
SELECT id_with_gene('01a22d07-ec69-7e81-a928-2c71e9d92a7d'::uuid, 5, 4) AS uuid_gene_5,
       id_gene('01a22d07-ec69-7e81-a928-2c71e9d92a7d'::uuid, 8) AS uuid_low_byte;
SELECT count(*) FILTER (WHERE id_gene(id_with_gene(u, g, 10), 10) <> g) AS bad_uuid_gene,
       count(*) FILTER (WHERE uuid_v7_to_timestamptz(id_with_gene(u, g, 10)) <> uuid_v7_to_timestamptz(u)) AS bad_time
FROM (SELECT uuid_generate_v7() AS u, n % 1024 AS g FROM generate_series(1, 5000) n) s;

-- uuid_generate_v7(gene, bits): the gene in the low bits, in the server-wide
-- order shared with uuid_generate_v7(), version 7 of the RFC variant.
CREATE TEMP TABLE v7 AS
SELECT n, CASE WHEN n % 2 = 0 THEN uuid_generate_v7(n % 1024, 10) ELSE uuid_generate_v7() END AS id
FROM generate_series(1, 50000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE n % 2 = 0 AND id_gene(id, 10) <> n % 1024) AS wrong_gene,
       count(*) FILTER (WHERE prev >= id) AS out_of_order,
       bool_and(uuid_extract_version(id) = 7) AS all_v7,
       bool_and(abs(extract(epoch FROM uuid_v7_to_timestamptz(id) - now())) < 60) AS now_ish
FROM (SELECT n, id, lag(id) OVER (ORDER BY n) AS prev FROM v7) s;

-- crid_next(gene, bits): ids whose low bits are the gene, from the same blocks
-- as crid_next(), never equal to one of them.
CREATE TEMP TABLE cr AS
SELECT n, CASE WHEN n % 3 = 0 THEN crid_next() ELSE crid_next(n % 16, 4) END AS id
FROM generate_series(1, 60000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE n % 3 <> 0 AND id_gene(id, 4) <> n % 16) AS wrong_gene
FROM cr;
-- Every id lies in a block the registry handed out (an id of a second
-- without a registry row counts against it).
SELECT count(*) AS ids, bool_and(a.ts IS NOT NULL AND p.sequence < a.next_seq) AS inside_reserved_blocks
FROM cr CROSS JOIN LATERAL crid_parse(id) p LEFT JOIN crid_allocations a ON a.ts = p.registry_ts;
SELECT id_gene(crid_next(13, 13), 13) AS thirteen_bits;

-- Hash partitioning by gene: MODULUS 16 puts gene g in REMAINDER g.
CREATE TABLE events (id bigint PRIMARY KEY, payload int) PARTITION BY HASH (id crid_gene_int8_ops);
DO $$ BEGIN
    FOR g IN 0..15 LOOP
        EXECUTE format('CREATE TABLE events_p%s PARTITION OF events FOR VALUES WITH (MODULUS 16, REMAINDER %1$s)', g);
    END LOOP;
END $$;
-- 100,000 rows: crid ids with genes, plain ids of every sign and size.
INSERT INTO events SELECT crid_next(n % 16, 4), n FROM generate_series(1, 40000) n;
INSERT INTO events SELECT n * 7919 - 300000, n FROM generate_series(1, 30000) n;
INSERT INTO events SELECT (n::bigint << 40) + n, n FROM generate_series(1, 30000) n;
SELECT count(*) AS rows, count(*) FILTER (WHERE tableoid::regclass::text <> 'events_p' || id_gene(id, 4)) AS misrouted
FROM events;
SELECT count(DISTINCT tableoid) AS partitions_used FROM events;
-- The primary key holds across partitions (the same id always has the same gene).
SELECT regress.sqlstate_of('INSERT INTO events SELECT id, 0 FROM events LIMIT 1') AS duplicate_id;
-- Plan-time pruning for a constant of every integer type, either side of =.
SELECT q, regress.scanned(q) AS scans FROM (VALUES
    ('SELECT * FROM events WHERE id = 42'),
    ('SELECT * FROM events WHERE id = 42::bigint'),
    ('SELECT * FROM events WHERE id = 42::smallint'),
    ('SELECT * FROM events WHERE 42 = id'),
    ('SELECT * FROM events WHERE id = -3'),
    ('SELECT * FROM events WHERE id IN (1, 2, 17)'),
    ('SELECT * FROM events WHERE id = ANY (ARRAY[16, 32]::int[])'),
    ('SELECT * FROM events WHERE id > 42')) v(q);
SELECT (SELECT payload FROM events WHERE id = n * 7919 - 300000) = n AS found_by_int_constant
FROM (VALUES (1), (12345)) v(n);
-- Run-time pruning: a generic plan prunes at executor start, whatever the
-- parameter's integer type.
SET plan_cache_mode = force_generic_plan;
PREPARE by_bigint(bigint) AS SELECT * FROM events WHERE id = $1;
PREPARE by_int(integer) AS SELECT * FROM events WHERE id = $1;
PREPARE by_smallint(smallint) AS SELECT * FROM events WHERE id = $1;
PREPARE by_two(bigint, integer) AS SELECT * FROM events WHERE id IN ($1, $2);
SELECT q, regress.scanned(q) AS scans FROM (VALUES
    ('EXECUTE by_bigint(42)'), ('EXECUTE by_int(43)'), ('EXECUTE by_smallint(-3)'), ('EXECUTE by_two(1, 18)')) v(q);
EXPLAIN (COSTS OFF) EXECUTE by_int(43);
EXECUTE by_int(-292081);
RESET plan_cache_mode;

-- The uuid operator class: the gene in the uuid's low bits picks the partition.
CREATE TABLE docs (id uuid PRIMARY KEY) PARTITION BY HASH (id crid_gene_uuid_ops);
DO $$ BEGIN
    FOR g IN 0..7 LOOP
        EXECUTE format('CREATE TABLE docs_p%s PARTITION OF docs FOR VALUES WITH (MODULUS 8, REMAINDER %1$s)', g);
    END LOOP;
END $$;
INSERT INTO docs SELECT uuid_generate_v7(n % 8, 3) FROM generate_series(1, 2000) n;
INSERT INTO docs SELECT gen_random_uuid() FROM generate_series(1, 2000);
SELECT count(*) AS rows, count(*) FILTER (WHERE tableoid::regclass::text <> 'docs_p' || id_gene(id, 3)) AS misrouted
FROM docs;
SELECT regress.scanned('SELECT * FROM docs WHERE id = ''01a22d07-ec69-7e81-a928-2c71e9d92a7d''') AS uuid_lookup;
-- Both operator classes are complete and consistent.
SELECT opcname, amvalidate(oid) FROM pg_opclass WHERE opcname LIKE 'crid_gene%' ORDER BY 1;

-- The LIST alternative: partitions by the gene expression. No primary key
-- (PostgreSQL refuses one on an expression key), and only conditions on the
-- expression prune, at plan time and at run time.
CREATE TABLE events_l (id bigint NOT NULL, payload int) PARTITION BY LIST (id_gene(id, 4));
DO $$ BEGIN
    FOR g IN 0..15 LOOP
        EXECUTE format('CREATE TABLE events_l%s PARTITION OF events_l FOR VALUES IN (%1$s)', g);
    END LOOP;
END $$;
SELECT regress.sqlstate_of('ALTER TABLE events_l ADD PRIMARY KEY (id)') AS primary_key;
INSERT INTO events_l SELECT id, payload FROM events;
SELECT count(*) FILTER (WHERE tableoid::regclass::text <> 'events_l' || id_gene(id, 4)) AS misrouted FROM events_l;
SELECT q, regress.scanned(q) AS scans FROM (VALUES
    ('SELECT * FROM events_l WHERE id = 42'),
    ('SELECT * FROM events_l WHERE id = 42 AND id_gene(id, 4) = id_gene(42, 4)'),
    ('SELECT * FROM events_l WHERE id_gene(id, 4) IN (1, 2)')) v(q);
SET plan_cache_mode = force_generic_plan;
PREPARE list_by_id(bigint) AS SELECT * FROM events_l WHERE id = $1 AND id_gene(id, 4) = id_gene($1, 4);
SELECT regress.scanned('EXECUTE list_by_id(42)') AS generic_list_lookup;
RESET plan_cache_mode;

-- Bad input ------------------------------------------------------------------
\set VERBOSITY default
SELECT gene_of('x', 0);
SELECT id_with_gene(7, 16, 4);
SELECT uuid_generate_v7(1, 11);
SELECT crid_next(1, 14);
SELECT crid_next(NULL, 4);
\set VERBOSITY terse
SELECT query, regress.sqlstate_of(query) AS sqlstate FROM (VALUES
    ('SELECT gene_of(''x'', 0)'),
    ('SELECT gene_of(''x'', 32)'),
    ('SELECT gene_of(''x'', -1)'),
    ('SELECT gene_of(1::bigint, 0)'),
    ('SELECT gene_of(gen_random_uuid(), 40)'),
    ('SELECT id_gene(1::bigint, 0)'),
    ('SELECT id_gene(1::bigint, 32)'),
    ('SELECT id_gene(gen_random_uuid(), 0)'),
    ('SELECT id_with_gene(1::bigint, 16, 4)'),
    ('SELECT id_with_gene(1::bigint, -1, 4)'),
    ('SELECT id_with_gene(1::bigint, 0, 0)'),
    ('SELECT id_with_gene(gen_random_uuid(), 2, 1)'),
    ('SELECT id_with_gene(gen_random_uuid(), 0, 32)'),
    ('SELECT uuid_generate_v7(0, 0)'),
    ('SELECT uuid_generate_v7(0, 11)'),
    ('SELECT uuid_generate_v7(16, 4)'),
    ('SELECT uuid_generate_v7(-1, 4)'),
    ('SELECT uuid_generate_v7(NULL, 4)'),
    ('SELECT uuid_generate_v7(1, NULL)'),
    ('SELECT crid_next(0, 0)'),
    ('SELECT crid_next(0, 17)'),
    ('SELECT crid_next(0, 14)'),
    ('SELECT crid_next(16, 4)'),
    ('SELECT crid_next(-1, 4)'),
    ('SELECT crid_next(NULL, 4)'),
    ('SELECT crid_next(1, NULL)')) v(query);
\set VERBOSITY default
