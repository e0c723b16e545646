-- Converted sequences (docs/sequences.md): every path a client asks a
-- sequence for a value hands out an id of the family chosen, above every
-- value the sequence gave before, or fails naming the sequence; and every
-- bad input of crid_sequence_convert and crid_sequence_revert.
SET crid.node_id = 7;
-- An id of `family` minted on this server within the last hour (snowflake:
-- on node 7), above `floor`.
CREATE FUNCTION regress.is_family(id bigint, family text, floor bigint) RETURNS boolean
LANGUAGE sql AS $$
    SELECT id > floor AND CASE family
        WHEN 'snowflake' THEN (snowflake_parse(id)).node = 7
                              AND snowflake_to_timestamptz(id) BETWEEN now() - interval '1 hour' AND clock_timestamp()
        WHEN 'crid' THEN abs(extract(epoch FROM crid_to_timestamptz(id) - clock_timestamp())) < 3600
    END
$$;

-- A bigserial column: the DEFAULT, multi-row INSERT, RETURNING, COPY FROM.
CREATE TABLE seq_serial (id bigserial PRIMARY KEY, note text);
INSERT INTO seq_serial (note) VALUES ('plain 1'), ('plain 2');
SELECT crid_sequence_convert('seq_serial_id_seq');
SELECT seq, family, plain_last FROM crid_sequences;
-- The DEFAULT now names crid's function (COPY evaluates it too).
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'seq_serial'::regclass;
INSERT INTO seq_serial (note) VALUES ('one'), ('two'), ('three')
    RETURNING regress.is_family(id, 'snowflake', 2) AS snowflake, note;
COPY seq_serial (note) FROM stdin;
copied 1
copied 2
\.
INSERT INTO seq_serial (id, note) VALUES (DEFAULT, 'default');
SELECT note, regress.is_family(id, 'snowflake', 2) AS snowflake FROM seq_serial ORDER BY id;
-- currval and lastval: the last value handed out in this session.
INSERT INTO seq_serial (note) VALUES ('last') RETURNING id AS last_id \gset
SELECT currval('seq_serial_id_seq') = :last_id AS currval, lastval() = :last_id AS lastval;
-- nextval() from SQL, directly.
SELECT regress.is_family(nextval('seq_serial_id_seq'), 'snowflake', 2) AS nextval,
       currval('seq_serial_id_seq') > :last_id AS currval_moved,
       lastval() = currval('seq_serial_id_seq') AS lastval_follows;
SELECT count(DISTINCT v) = 1000 AS distinct_1000, bool_and(regress.is_family(v, 'snowflake', 2)) AS all_snowflake
  FROM (SELECT nextval('seq_serial_id_seq') AS v FROM generate_series(1, 1000)) s;
SELECT (SELECT max(v) FROM (SELECT nextval('seq_serial_id_seq') AS v FROM generate_series(1, 10)) s) < nextval('seq_serial_id_seq') AS increasing;
-- PL/pgSQL: a function's statements are planned through the hook.
CREATE FUNCTION seq_take() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
    v := nextval('seq_serial_id_seq');
    INSERT INTO seq_serial (note) VALUES ('plpgsql');
    RETURN v;
END $$;
SELECT regress.is_family(seq_take(), 'snowflake', 2) AS plpgsql, regress.is_family(seq_take(), 'snowflake', 2) AS again;
-- SQL functions, run on their own or of the kind PostgreSQL would inline
-- into the calling statement (crid keeps those a call while planning, so
-- their statement is planned through the hook).
CREATE FUNCTION seq_take_sql() RETURNS SETOF bigint LANGUAGE sql AS $$ SELECT nextval('seq_serial_id_seq') $$;
SELECT regress.is_family(seq_take_sql(), 'snowflake', 2) AS sql_function;
CREATE FUNCTION seq_take_inlined() RETURNS bigint LANGUAGE sql AS $$ SELECT nextval('seq_serial_id_seq') $$;
SELECT regress.is_family(seq_take_inlined(), 'snowflake', 2) AS inlinable,
       regress.is_family(v, 'snowflake', 2) AS in_from FROM seq_take_inlined() v;
SELECT count(DISTINCT seq_take_inlined()) AS per_row FROM generate_series(1, 5);
CREATE FUNCTION seq_current_inlined() RETURNS bigint LANGUAGE sql AS $$ SELECT currval('seq_serial_id_seq') $$;
SELECT seq_current_inlined() = currval('seq_serial_id_seq') AS inlinable_currval;
-- Prepared statements, custom and generic plans.
PREPARE take_one AS SELECT nextval('seq_serial_id_seq');
PREPARE insert_one(text) AS INSERT INTO seq_serial (note) VALUES ($1) RETURNING id;
SET plan_cache_mode = force_generic_plan;
SELECT regress.is_family(nextval('seq_serial_id_seq'), 'snowflake', 2);
CREATE TEMP TABLE taken (v bigint);
DO $$ DECLARE v bigint; BEGIN FOR i IN 1..7 LOOP
    EXECUTE 'EXECUTE take_one' INTO v;
    INSERT INTO taken VALUES (v);
    EXECUTE format('EXECUTE insert_one(%L)', 'prepared ' || i) INTO v;
    INSERT INTO taken VALUES (v);
END LOOP; END $$;
RESET plan_cache_mode;
SELECT count(*) AS taken, count(DISTINCT v) AS distinct_values, bool_and(regress.is_family(v, 'snowflake', 2)) AS snowflake
  FROM taken;
-- A name known only when the statement runs: crid's function serves it,
-- converted or not.
SELECT regress.is_family(nextval(('seq_serial' || '_id_seq')::regclass), 'snowflake', 2) AS runtime_name,
       currval(('seq_serial' || '_id_seq')::regclass) = lastval() AS runtime_currval;
PREPARE by_parameter(regclass) AS
    SELECT regress.is_family(nextval($1), 'snowflake', 2) AS parameter, currval($1) = lastval() AS currval;
EXECUTE by_parameter('seq_serial_id_seq');
CREATE SEQUENCE seq_plain;
SELECT nextval(('seq_' || 'plain')::regclass) AS plain_runtime, currval(('seq_' || 'plain')::regclass) AS plain_currval;
-- A plan made before conversion is made again after it.
CREATE TABLE seq_later (id bigserial PRIMARY KEY);
PREPARE later AS SELECT nextval('seq_later_id_seq');
EXECUTE later;
SELECT crid_sequence_convert('seq_later', 'crid');
SELECT regress.is_family(v, 'crid', 1) AS crid FROM (SELECT nextval('seq_later_id_seq') AS v) s;
CREATE TEMP TABLE later_taken (v bigint);
DO $$ DECLARE v bigint; BEGIN FOR i IN 1..3 LOOP
    EXECUTE 'EXECUTE later' INTO v;
    INSERT INTO later_taken VALUES (v);
END LOOP; END $$;
SELECT bool_and(regress.is_family(v, 'crid', 1)) AS prepared_crid FROM later_taken;

-- IDENTITY columns: ALWAYS and BY DEFAULT, OVERRIDING, multi-row VALUES,
-- INSERT ... SELECT, UPDATE ... SET DEFAULT.
CREATE TABLE seq_always (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
CREATE TABLE seq_by_default (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, note text);
INSERT INTO seq_always (note) VALUES ('plain');
INSERT INTO seq_by_default (note) VALUES ('plain');
PREPARE always_insert AS INSERT INTO seq_always (note) VALUES ('prepared') RETURNING id < 10 AS plain;
EXECUTE always_insert;
SELECT crid_sequence_convert('seq_always');
SELECT crid_sequence_convert('seq_by_default', 'crid');
INSERT INTO seq_always (note) VALUES ('a'), ('b') RETURNING regress.is_family(id, 'snowflake', 2) AS snowflake;
INSERT INTO seq_always (note) SELECT 'select ' || i FROM generate_series(1, 3) i
    RETURNING regress.is_family(id, 'snowflake', 2) AS snowflake;
INSERT INTO seq_always OVERRIDING SYSTEM VALUE VALUES (-5, 'mine') RETURNING id;
INSERT INTO seq_always OVERRIDING USER VALUE VALUES (-6, 'not mine')
    RETURNING regress.is_family(id, 'snowflake', 2) AS snowflake;
EXECUTE always_insert;
SELECT regress.is_family(id, 'snowflake', 2) AS replanned FROM seq_always WHERE note = 'prepared' ORDER BY id DESC LIMIT 1;
INSERT INTO seq_by_default (note) VALUES ('a') RETURNING regress.is_family(id, 'crid', 1) AS crid;
INSERT INTO seq_by_default (id, note) VALUES (DEFAULT, 'b'), (-7, 'given')
    RETURNING id = -7 OR regress.is_family(id, 'crid', 1) AS crid_or_given;
UPDATE seq_by_default SET id = DEFAULT WHERE note = 'plain' RETURNING regress.is_family(id, 'crid', 1) AS crid;
SELECT regress.is_family(currval(pg_get_serial_sequence('seq_by_default', 'id')::regclass), 'crid', 1);
-- COPY FROM into an IDENTITY column is one path the hook cannot see.
SELECT regress.sqlstate_of($$COPY seq_always (note) FROM PROGRAM 'echo x'$$) AS copy_identity;
CREATE FUNCTION seq_copy_identity() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    COPY seq_by_default (note) FROM PROGRAM 'echo x';
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || CASE WHEN SQLERRM LIKE '%seq_by_default_id_seq%' THEN ', names the sequence' ELSE '' END;
END $$;
SELECT seq_copy_identity();

-- INCREMENT BY n: an ORM takes the n keys ending at the value nextval()
-- returns (Hibernate's pooled optimizer) or starting at it (pooled-lo);
-- crid reserves the 2n - 1 ids around each value, so no other value's keys
-- and no other id minted on the node fall among them.
CREATE TABLE seq_pooled (id bigserial PRIMARY KEY);
ALTER SEQUENCE seq_pooled_id_seq INCREMENT BY 50;
SELECT nextval('seq_pooled_id_seq') AS plain_value;
SELECT crid_sequence_convert('seq_pooled');
CREATE TABLE seq_pooled_crid (id bigint GENERATED BY DEFAULT AS IDENTITY (INCREMENT BY 50) PRIMARY KEY);
SELECT crid_sequence_convert('seq_pooled_crid', 'crid');
CREATE TEMP TABLE pooled AS
    SELECT nextval('seq_pooled_id_seq') AS v, snowflake_next() AS single_snowflake,
           nextval('seq_pooled_crid_id_seq') AS c, crid_next() AS single_crid
      FROM generate_series(1, 500);
SELECT bool_and(regress.is_family(v - 49, 'snowflake', 51) AND regress.is_family(v + 49, 'snowflake', 51)
                AND snowflake_to_timestamptz(v - 49) = snowflake_to_timestamptz(v + 49)) AS snowflake_keys,
       bool_and(regress.is_family(c - 49, 'crid', 51) AND regress.is_family(c + 49, 'crid', 51)
                AND crid_to_timestamptz(c - 49) = crid_to_timestamptz(c + 49)) AS crid_keys
  FROM pooled;
-- Keys of two values never meet: sorted values lie 2n - 1 apart or more.
SELECT min(v_gap) >= 99 AS snowflake_apart, min(c_gap) >= 99 AS crid_apart
  FROM (SELECT v - lag(v) OVER (ORDER BY v) AS v_gap, c - lag(c) OVER (ORDER BY c) AS c_gap FROM pooled) s;
SELECT (SELECT count(*) FROM pooled p JOIN pooled q ON q.single_snowflake BETWEEN p.v - 49 AND p.v + 49) AS snowflake_inside,
       (SELECT count(*) FROM pooled p JOIN pooled q ON q.single_crid BETWEEN p.c - 49 AND p.c + 49) AS crid_inside;
-- The value of an IDENTITY insert and of currval() is the value nextval() gives.
INSERT INTO seq_pooled_crid DEFAULT VALUES RETURNING id = currval('seq_pooled_crid_id_seq') AS currval;
-- An increment whose 2n - 1 ids no unit or block holds is refused, at
-- conversion and when one is set later.
CREATE TABLE seq_wide (id bigserial);
ALTER SEQUENCE seq_wide_id_seq INCREMENT BY 2049;
SELECT regress.sqlstate_of($$SELECT crid_sequence_convert('seq_wide')$$) AS snowflake_unit;
SELECT regress.sqlstate_of($$SELECT crid_sequence_convert('seq_wide', 'crid')$$) AS crid_block_holds_it;
SELECT crid_sequence_revert('seq_wide') > 0 AS reverted;
ALTER SEQUENCE seq_wide_id_seq INCREMENT BY 5001;
SELECT regress.sqlstate_of($$SELECT crid_sequence_convert('seq_wide', 'crid')$$) AS crid_block;
ALTER SEQUENCE seq_pooled_id_seq INCREMENT BY 4000;
SELECT regress.sqlstate_of($$SELECT nextval('seq_pooled_id_seq')$$) AS set_later;
ALTER SEQUENCE seq_pooled_id_seq INCREMENT BY 50;

-- Privileges: nextval() wants USAGE or UPDATE on the sequence, as
-- PostgreSQL's does; an IDENTITY column wants INSERT on its table.
CREATE ROLE seq_user;
GRANT USAGE ON SCHEMA regress TO seq_user;
GRANT INSERT, SELECT ON seq_serial, seq_always TO seq_user;
SET ROLE seq_user;
SELECT regress.sqlstate_of($$SELECT nextval('seq_serial_id_seq')$$) AS nextval_without_usage;
SELECT regress.sqlstate_of($$INSERT INTO seq_serial (note) VALUES ('x')$$) AS default_without_usage;
INSERT INTO seq_always (note) VALUES ('by seq_user') RETURNING regress.is_family(id, 'snowflake', 2) AS identity;
RESET ROLE;
GRANT USAGE ON SEQUENCE seq_serial_id_seq TO seq_user;
SET ROLE seq_user;
SELECT regress.is_family(nextval('seq_serial_id_seq'), 'snowflake', 2) AS nextval_with_usage;
SELECT regress.sqlstate_of($$SELECT crid_sequence_revert('seq_serial_id_seq')$$) AS revert_not_owner;
SELECT regress.sqlstate_of($$DELETE FROM crid_sequences$$) AS delete_rows, (SELECT count(*) FROM crid_sequences) AS rows_left;
RESET ROLE;
SET crid.node_id = 7;

-- Bad input.
CREATE TABLE seq_int (id serial PRIMARY KEY);
CREATE TABLE seq_int_identity (id integer GENERATED ALWAYS AS IDENTITY);
CREATE TABLE seq_two (a bigserial, b bigserial);
CREATE TABLE seq_none (id bigint);
CREATE TABLE seq_nothing (id bigint);
CREATE SEQUENCE seq_orphan;
CREATE SEQUENCE seq_cycle CYCLE OWNED BY seq_none.id;
CREATE SEQUENCE seq_down INCREMENT BY -1 OWNED BY seq_none.id;
CREATE TEMP TABLE seq_temp (id bigserial);
CREATE VIEW seq_view AS SELECT 1;
SELECT q, regress.error_of(q) FROM (VALUES
    ($$SELECT crid_sequence_convert(NULL)$$),
    ($$SELECT crid_sequence_convert('seq_orphan', NULL)$$),
    ($$SELECT crid_sequence_convert('seq_orphan', 'uuidv7')$$),
    ($$SELECT crid_sequence_convert('seq_orphan')$$),
    ($$SELECT crid_sequence_convert('seq_view')$$),
    ($$SELECT crid_sequence_convert('seq_none')$$),
    ($$SELECT crid_sequence_convert('seq_two')$$),
    ($$SELECT crid_sequence_convert('seq_nothing')$$),
    ($$SELECT crid_sequence_convert('seq_int')$$),
    ($$SELECT crid_sequence_convert('seq_int_identity')$$),
    ($$SELECT crid_sequence_convert('seq_cycle')$$),
    ($$SELECT crid_sequence_convert('seq_down')$$),
    ($$SELECT crid_sequence_convert('seq_serial_id_seq')$$),
    ($$SELECT crid_sequence_convert('seq_serial')$$),
    ($$SELECT crid_sequence_convert('seq_temp')$$),
    ($$SELECT crid_sequence_revert(NULL)$$),
    ($$SELECT crid_sequence_revert('seq_orphan')$$),
    ($$SELECT crid_sequence_identity('seq_orphan')$$),
    ($$SELECT crid_sequence_currval('seq_orphan')$$)
) t(q);
-- The hints carry the statement that fixes the input.
DO $$ BEGIN PERFORM crid_sequence_convert('seq_int');
EXCEPTION WHEN OTHERS THEN
    DECLARE h text; BEGIN GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT; RAISE NOTICE 'hint: %', h; END;
END $$;
DO $$ BEGIN PERFORM crid_sequence_convert('seq_orphan');
EXCEPTION WHEN OTHERS THEN
    DECLARE h text; BEGIN GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT; RAISE NOTICE 'hint: %', h; END;
END $$;
-- A sequence above the ids crid mints now is refused.
CREATE TABLE seq_high (id bigserial);
SELECT setval('seq_high_id_seq', 9000000000000000000);
SELECT regress.sqlstate_of($$SELECT crid_sequence_convert('seq_high')$$) AS above_ids;
-- A refused conversion changes nothing.
SELECT count(*) AS converted FROM crid_sequences;
SELECT seqmax, seqcycle FROM pg_sequence WHERE seqrelid = 'seq_int_id_seq'::regclass;

-- Revert: a plain sequence again, starting above every value handed out.
SELECT max(id) AS max_id FROM seq_serial \gset
SELECT crid_sequence_revert('seq_serial_id_seq') > :max_id AS above;
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'seq_serial'::regclass;
INSERT INTO seq_serial (note) VALUES ('plain again') RETURNING id > :max_id AS above,
    nextval('seq_serial_id_seq') = id + 1 AS plain_next;
SELECT seqmax = 9223372036854775807 AS no_maxvalue FROM pg_sequence WHERE seqrelid = 'seq_serial_id_seq'::regclass;
SELECT crid_sequence_revert('seq_by_default') IS NOT NULL AS reverted_table_name;
SELECT seq FROM crid_sequences ORDER BY seq::text;
-- Dropping a converted sequence (its table) drops its row: a row naming a
-- gone OID would name another relation once one takes the OID.
CREATE TABLE seq_dropped (id bigserial);
SELECT crid_sequence_convert('seq_dropped');
GRANT CREATE ON SCHEMA regress TO seq_user;
SET ROLE seq_user;
CREATE TABLE regress.seq_theirs (id bigint GENERATED ALWAYS AS IDENTITY);
SELECT crid_sequence_convert('regress.seq_theirs') IS NOT NULL AS converted_by_its_owner;
RESET ROLE;
SELECT count(*) AS rows_before FROM crid_sequences;
DROP TABLE seq_dropped;
SET ROLE seq_user;
DROP TABLE regress.seq_theirs;
RESET ROLE;
SELECT count(*) AS rows_after FROM crid_sequences;
SELECT count(*) AS dangling FROM crid_sequences s WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = s.seq);
-- crid_check() names a converted sequence whose guard was lifted, and a
-- column no longer bigint, each with its fix.
SELECT problem, object FROM crid_check() WHERE problem LIKE 'sequence%';
ALTER SEQUENCE seq_always_id_seq NO MAXVALUE;
ALTER TABLE seq_later ALTER COLUMN id TYPE numeric;
SELECT problem, object, fix FROM crid_check() WHERE problem LIKE 'sequence%' ORDER BY problem;
\o /dev/null
SELECT fix FROM crid_check() WHERE problem LIKE 'sequence%' ORDER BY problem \gexec
\o
SELECT problem, object FROM crid_check() WHERE problem LIKE 'sequence%';
INSERT INTO seq_always (note) VALUES ('guarded again') RETURNING regress.is_family(id, 'snowflake', 2) AS snowflake;
SELECT regress.sqlstate_of($$COPY seq_always (note) FROM PROGRAM 'echo x'$$) AS copy_identity;
-- Converted again after a revert.
SELECT crid_sequence_convert('seq_serial', 'crid');
INSERT INTO seq_serial (note) VALUES ('crid now') RETURNING regress.is_family(id, 'crid', 1) AS crid;
