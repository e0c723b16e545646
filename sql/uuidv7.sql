-- UUIDv7 with crid preloaded: generation, RFC 9562 vectors, decoders,
-- boundaries, PostgreSQL 18 names and every kind of bad input.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
SET timezone = 'UTC';

-- RFC 9562 appendix A.6 (v7) and A.1 (v1): both 2022-02-22 19:22:22 UTC.
-- (uuid_extract_timestamp of a version 7 differs by major: versions.sql.)
SELECT uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
SELECT uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846');
SELECT uuid_extract_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
       uuid_extract_version('C232AB00-9414-11EC-B3C8-9F6BDECED846'),
       uuid_extract_version('f47ac10b-58cc-4372-a567-0e02b2c3d479');
-- Not the RFC variant: PostgreSQL 18 answers NULL.
SELECT uuid_extract_version('017F22E2-79B0-7CC3-18C4-DC0C0C07398F') IS NULL AS ncs_variant_null,
       uuid_extract_timestamp('f47ac10b-58cc-4372-a567-0e02b2c3d479') IS NULL AS v4_has_no_time;

-- Fresh ids: version 7, RFC variant, the current time.
SELECT uuid_extract_version(u) AS version,
       substr(u::text, 20, 1) IN ('8', '9', 'a', 'b') AS rfc_variant,
       abs(extract(epoch FROM uuid_v7_to_timestamptz(u) - clock_timestamp())) < 5 AS now_ish
FROM (SELECT uuid_generate_v7() AS u) s;
SELECT uuid_extract_version(uuidv7()) AS pg18_name_version;

-- One million ids from one session are strictly increasing and distinct.
SELECT count(*) AS ids, count(*) FILTER (WHERE prev >= u) AS out_of_order, count(DISTINCT u) AS distinct_ids
FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuid_generate_v7() AS u FROM generate_series(1, 1000000) n) g) s;

-- The embedded time does not run ahead of the clock during that burst.
SELECT uuid_v7_to_timestamptz(uuid_generate_v7()) <= clock_timestamp() + interval '50 ms' AS not_ahead;

-- Backfill generation at a given time: decodes to that millisecond.
SELECT uuid_v7_to_timestamptz(uuid_generate_v7('2024-05-06 07:08:09.123456+00'));
SELECT uuid_generate_v7('2024-05-06 07:08:09+00') <> uuid_generate_v7('2024-05-06 07:08:09+00') AS random_tail;

-- Deterministic ids: same inputs, same id; other key, other id; every key type.
SELECT uuid_generate_v7_deterministic('2024-01-01 00:00:00.0009+00', 'order-1'::text)
     = uuid_generate_v7_deterministic('2024-01-01 00:00:00.0009+00', 'order-1'::text) AS same_text,
       uuid_generate_v7_deterministic('2024-01-01+00', 'order-1'::text)
    <> uuid_generate_v7_deterministic('2024-01-01+00', 'order-2'::text) AS other_text,
       uuid_generate_v7_deterministic('2024-01-01+00', 1::bigint)
    <> uuid_generate_v7_deterministic('2024-01-01+00', '1'::text) AS types_apart,
       uuid_generate_v7_deterministic('2024-01-01+00', 42::bigint)
     = uuid_generate_v7_deterministic('2024-01-01+00', 42::bigint) AS same_bigint,
       uuid_generate_v7_deterministic('2024-01-01+00', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid)
     = uuid_generate_v7_deterministic('2024-01-01+00', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid) AS same_uuid,
       uuid_generate_v7_deterministic('2024-01-01+00', '\x0102'::bytea)
    <> uuid_generate_v7_deterministic('2024-01-01+00', '\x0103'::bytea) AS other_bytea;
-- Pinned values: a release that changes these breaks re-runnable backfills.
SELECT uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 'order-1'::text) AS text_key,
       uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 42::bigint) AS bigint_key;
SELECT uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid) AS uuid_key,
       uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', '\x0102'::bytea) AS bytea_key;

-- The same values from the algorithm as docs/uuidv7.md states it, written here
-- in SQL without crid: SipHash-2-4 (Aumasson & Bernstein) in bigint
-- arithmetic mod 2^64, checked against the paper's vectors first.
CREATE FUNCTION pg_temp.add64(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT ((((a >> 32) & 4294967295) + ((b >> 32) & 4294967295) + (((a & 4294967295) + (b & 4294967295)) >> 32))
            & 4294967295) << 32 | (((a & 4294967295) + (b & 4294967295)) & 4294967295) $$;
CREATE FUNCTION pg_temp.rotl64(x bigint, n int) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT (x << n) | ((x >> (64 - n)) & ((1::bigint << n) - 1)) $$;
CREATE FUNCTION pg_temp.siphash24(k0 bigint, k1 bigint, msg bytea) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v0 bigint := k0 # x'736f6d6570736575'::bigint;
    v1 bigint := k1 # x'646f72616e646f6d'::bigint;
    v2 bigint := k0 # x'6c7967656e657261'::bigint;
    v3 bigint := k1 # x'7465646279746573'::bigint;
    n int := length(msg);
    m bigint;
    last boolean;
BEGIN
    -- Little-endian 64-bit words; the last one carries n mod 256 in its top
    -- byte. Two rounds per word (the "2" of 2-4), four more after the last.
    FOR w IN 0 .. n / 8 LOOP
        last := w = n / 8;
        m := CASE WHEN last THEN (n::bigint & 255) << 56 ELSE 0 END;
        FOR j IN 0 .. 7 LOOP
            IF 8 * w + j < n THEN
                m := m | (get_byte(msg, 8 * w + j)::bigint << (8 * j));
            END IF;
        END LOOP;
        v3 := v3 # m;
        FOR r IN 1 .. CASE WHEN last THEN 6 ELSE 2 END LOOP
            IF r = 3 THEN
                v0 := v0 # m;
                v2 := v2 # 255;
            END IF;
            v0 := pg_temp.add64(v0, v1); v1 := pg_temp.rotl64(v1, 13); v1 := v1 # v0; v0 := pg_temp.rotl64(v0, 32);
            v2 := pg_temp.add64(v2, v3); v3 := pg_temp.rotl64(v3, 16); v3 := v3 # v2;
            v0 := pg_temp.add64(v0, v3); v3 := pg_temp.rotl64(v3, 21); v3 := v3 # v0;
            v2 := pg_temp.add64(v2, v1); v1 := pg_temp.rotl64(v1, 17); v1 := v1 # v2; v2 := pg_temp.rotl64(v2, 32);
        END LOOP;
        IF NOT last THEN
            v0 := v0 # m;
        END IF;
    END LOOP;
    RETURN v0 # v1 # v2 # v3;
END $$;
-- The paper's key 00 01 .. 0f and messages 00 01 .. len-1.
SELECT len, lpad(to_hex(pg_temp.siphash24(x'0706050403020100'::bigint, x'0f0e0d0c0b0a0908'::bigint,
                                          (SELECT coalesce(string_agg(set_byte('\x00'::bytea, 0, i), ''::bytea ORDER BY i), ''::bytea)
                                           FROM generate_series(0, len - 1) i))), 16, '0') AS siphash
FROM (VALUES (0), (1), (15)) v(len);
-- The id: 48 bits of Unix ms, version 7, the top 12 bits of hash a, the
-- variant, the low 62 bits of hash b; a and b hash a type tag byte (text 1,
-- bigint 2, uuid 3, bytea 4) followed by the key's bytes (bigint and uuid
-- big-endian, as their binary send form).
CREATE FUNCTION pg_temp.deterministic_v7(at timestamptz, tag int, key bytea) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
    SELECT (lpad(to_hex((floor(extract(epoch FROM at) * 1000)::bigint << 16) | 28672
                        | ((pg_temp.siphash24(x'6372696476377631'::bigint, x'2d64657465726d61'::bigint, m) >> 52) & 4095)), 16, '0')
            || lpad(to_hex(x'8000000000000000'::bigint
                           | (pg_temp.siphash24(x'6372696476377632'::bigint, x'2d696e6973746963'::bigint, m)
                              & x'3fffffffffffffff'::bigint)), 16, '0'))::uuid
    FROM (SELECT set_byte('\x00'::bytea, 0, tag) || key AS m) s $$;
SELECT key_type, computed = by_crid AS same, computed
FROM (VALUES
    ('text', pg_temp.deterministic_v7('2024-01-01 00:00:00+00', 1, 'order-1'::bytea),
     uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 'order-1'::text)),
    ('bigint', pg_temp.deterministic_v7('2024-01-01 00:00:00+00', 2, int8send(42)),
     uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 42::bigint)),
    ('uuid', pg_temp.deterministic_v7('2024-01-01 00:00:00+00', 3, uuid_send('f47ac10b-58cc-4372-a567-0e02b2c3d479')),
     uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid)),
    ('bytea', pg_temp.deterministic_v7('2024-01-01 00:00:00+00', 4, '\x0102'::bytea),
     uuid_generate_v7_deterministic('2024-01-01 00:00:00+00', '\x0102'::bytea)),
    ('bytea, 17 bytes', pg_temp.deterministic_v7('2024-02-03 04:05:06.789+00', 4, '\x000102030405060708090a0b0c0d0e0f10'::bytea),
     uuid_generate_v7_deterministic('2024-02-03 04:05:06.789+00', '\x000102030405060708090a0b0c0d0e0f10'::bytea))
) v(key_type, computed, by_crid);
SELECT uuid_v7_to_timestamptz(uuid_generate_v7_deterministic('2024-02-03 04:05:06.789999+00', 7::bigint));
-- 10,000 keys give 10,000 ids.
SELECT count(DISTINCT uuid_generate_v7_deterministic('2024-01-01+00', k::bigint)) FROM generate_series(1, 10000) k;

-- Range boundaries.
SELECT uuid_v7_floor('2022-02-22 19:22:22.0005+00');
SELECT uuid_v7_floor('2022-02-22 19:22:22+00') <= '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid
   AND '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid < uuid_v7_floor('2022-02-22 19:22:22.001+00') AS in_its_ms;
SELECT uuid_v7_floor('1970-01-01+00'), uuid_v7_floor('10889-08-02 05:31:50.655+00');
SELECT uuid_timestamptz_to_v7('2022-02-22 19:22:22+00', true);
SELECT uuid_v7_to_timestamptz(uuid_timestamptz_to_v7('2022-02-22 19:22:22.5+00'));
SELECT uuid_timestamptz_to_v7(NULL) IS NULL AS compat_strict;

-- PostgreSQL 18's uuidv7(interval).
SELECT abs(extract(epoch FROM uuid_v7_to_timestamptz(uuidv7(interval '-1 day')) - (clock_timestamp() - interval '1 day'))) < 5 AS shifted_back;
SELECT abs(extract(epoch FROM uuid_v7_to_timestamptz(uuidv7(interval '1 month')) - (clock_timestamp() + interval '1 month'))) < 5 AS shifted_forward;
SELECT uuidv7(NULL) IS NULL AS pg18_strict;

-- Bad input --------------------------------------------------------------------
\set VERBOSITY default
SELECT uuid_v7_to_timestamptz('f47ac10b-58cc-4372-a567-0e02b2c3d479');
SELECT uuid_v7_to_timestamptz('C232AB00-9414-11EC-B3C8-9F6BDECED846');
SELECT uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-18C4-DC0C0C07398F');
SELECT uuid_v7_to_timestamptz('00000000-0000-0000-0000-000000000000');
SELECT uuid_v7_to_timestamptz('not-a-uuid');
SELECT uuid_v7_to_timestamptz(NULL) IS NULL AS strict_decoder;
SELECT uuid_generate_v7('1969-12-31 23:59:59.999+00');
SELECT uuid_generate_v7('10889-08-02 05:31:50.656+00');
SELECT uuid_generate_v7('infinity');
SELECT uuid_generate_v7('-infinity');
SELECT uuid_generate_v7(NULL);
SELECT uuid_v7_floor('infinity');
SELECT uuid_v7_floor(NULL);
SELECT uuid_v7_floor('1000-01-01 BC');
SELECT uuid_generate_v7_deterministic(NULL, 'k'::text);
SELECT uuid_generate_v7_deterministic('2024-01-01', NULL::text);
SELECT uuid_generate_v7_deterministic('infinity', 1::bigint);
SELECT uuid_generate_v7_deterministic('1900-01-01', '\x00'::bytea);
SELECT uuid_timestamptz_to_v7('-infinity', true);
SELECT uuid_extract_version(NULL) IS NULL AS strict_version;
SHOW crid.uuidv7_order;
SET crid.uuidv7_order = 'backend';

-- The SQLSTATE of every bad input (messages with the current time inside are
-- only checked by code here).
SELECT query, regress.sqlstate_of(query) AS sqlstate FROM (VALUES
    ($q$SELECT uuid_v7_to_timestamptz('f47ac10b-58cc-4372-a567-0e02b2c3d479')$q$),
    ($q$SELECT uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-18C4-DC0C0C07398F')$q$),
    ($q$SELECT uuid_v7_to_timestamptz('zz')$q$),
    ($q$SELECT uuid_generate_v7('1969-12-31 23:59:59.999+00')$q$),
    ($q$SELECT uuid_generate_v7('infinity')$q$),
    ($q$SELECT uuid_generate_v7(NULL)$q$),
    ($q$SELECT uuid_v7_floor('-infinity')$q$),
    ($q$SELECT uuid_generate_v7_deterministic('2024-01-01', NULL::bytea)$q$),
    ($q$SELECT uuid_generate_v7_deterministic('1960-01-01', 1::bigint)$q$),
    ($q$SELECT uuid_timestamptz_to_v7('10889-08-03', false)$q$),
    ($q$SELECT uuidv7(interval '-100 years')$q$),
    ($q$SELECT uuidv7(interval '10000 years')$q$),
    ($q$SELECT uuidv7(interval '300000 years')$q$)
) v(query);

-- The decoder of the text form, pg_partman's p_time_decoder
-- (docs/pg_partman.md): the uuid's millisecond, IMMUTABLE, and the errors of
-- uuid_in and of the decoder.
SELECT uuid_v7_text_to_timestamptz('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS decoded,
       (SELECT provolatile FROM pg_proc WHERE oid = 'uuid_v7_text_to_timestamptz(text)'::regprocedure) AS volatility;
SELECT regress.sqlstate_of($q$SELECT uuid_v7_text_to_timestamptz('f47ac10b-58cc-4372-a567-0e02b2c3d479')$q$) AS other_version,
       regress.sqlstate_of($q$SELECT uuid_v7_text_to_timestamptz('zz')$q$) AS not_a_uuid;

-- pg_uuidv7 1.6's whole surface. Its published vector (its test
-- 006_uuid_timestamp_to_v7): the timestamp 2023-01-02 04:26:40.637, read as
-- UTC, with a zero tail, is 018570bb-4a7d-7000-8000-000000000000.
SELECT uuid_timestamp_to_v7('2023-01-02 04:26:40.637', true) AS timestamp_zero,
       uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00', true) AS timestamptz_zero,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') AS to_timestamp,
       uuid_timestamp_to_v7(NULL) IS NULL AND uuid_v7_to_timestamp(NULL) IS NULL AS strict;
-- Against pg_uuidv7's formula on 10,000 times (seed 0.41): its zero form is
-- the 48-bit Unix millisecond, then 7000-8000-000000000000; its random form
-- has that millisecond and version 7; its decoders read the millisecond back
-- (in UTC without a zone for the timestamp one), whatever the TimeZone.
SET timezone = 'America/St_Johns';
SELECT setseed(0.41);
CREATE TEMP TABLE v7_times AS
SELECT to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond' AS at, ms,
       (lpad(to_hex(ms), 12, '0') || '7000' || '8000' || '000000000000')::uuid AS formula
FROM (SELECT floor(random() * 253402300799999)::bigint AS ms FROM generate_series(1, 10000)) r;
SELECT count(*) AS inputs,
       count(*) FILTER (WHERE uuid_timestamptz_to_v7(at, true) = formula) AS timestamptz_zero,
       count(*) FILTER (WHERE uuid_timestamp_to_v7(at AT TIME ZONE 'UTC', true) = formula) AS timestamp_zero,
       count(*) FILTER (WHERE left(uuid_timestamptz_to_v7(at)::text, 15) = left(formula::text, 15)
                          AND left(uuid_timestamp_to_v7(at AT TIME ZONE 'UTC')::text, 15) = left(formula::text, 15)) AS random_tail,
       count(*) FILTER (WHERE uuid_v7_to_timestamptz(formula) = at) AS to_timestamptz,
       count(*) FILTER (WHERE uuid_v7_to_timestamp(formula) = at AT TIME ZONE 'UTC') AS to_timestamp
FROM v7_times;
RESET timezone;
-- Volatility: the *_to_v7 stay VOLATILE (zero => false draws a random tail,
-- two calls differ), the decoders are IMMUTABLE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.prosupport <> 0 AS has_support
FROM pg_proc p
WHERE p.oid IN ('uuid_timestamptz_to_v7(timestamptz, boolean)'::regprocedure,
                'uuid_timestamp_to_v7(timestamp, boolean)'::regprocedure,
                'uuid_v7_to_timestamp(uuid)'::regprocedure, 'uuid_v7_to_timestamptz(uuid)'::regprocedure)
ORDER BY 1::text;
-- pg_uuidv7's range query: with zero => true a condition of the primary key's
-- index (the zero-tail UUID of a constant is folded to a constant; of now()
-- - interval, a run-time key); with a random tail, no index condition.
CREATE TABLE regress.v7_range (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), v int);
INSERT INTO regress.v7_range (v) SELECT g FROM generate_series(1, 200) g;
ANALYZE regress.v7_range;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM regress.v7_range WHERE id >= uuid_timestamptz_to_v7('2026-03-01 00:00:00+00', true);
EXPLAIN (COSTS OFF) SELECT * FROM regress.v7_range WHERE id >= uuid_timestamp_to_v7('2026-03-01 00:00:00', true);
EXPLAIN (COSTS OFF) SELECT * FROM regress.v7_range WHERE id >= uuid_timestamptz_to_v7(now() - interval '1 hour', true);
CREATE FUNCTION pg_temp.plan_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; plan text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP plan := plan || line || E'\n'; END LOOP;
    RETURN plan;
END $$;
SELECT pg_temp.plan_of($q$SELECT * FROM regress.v7_range WHERE id >= uuid_timestamptz_to_v7('2026-03-01 00:00:00+00')$q$)
       NOT LIKE '%Index Cond%' AS random_tail_not_an_index_condition;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) = 200 AS all_rows FROM regress.v7_range WHERE id >= uuid_timestamptz_to_v7(now() - interval '1 hour', true);
DROP TABLE regress.v7_range;
-- Differences that stay: a time outside 1970 .. 10889 and a UUID of another
-- version are ERRORs where pg_uuidv7 wraps the millisecond or reads one.
SELECT regress.sqlstate_of($q$SELECT uuid_timestamp_to_v7('1969-12-31 23:59:59', true)$q$) AS before_1970,
       regress.sqlstate_of($q$SELECT uuid_v7_to_timestamp('f47ac10b-58cc-4372-a567-0e02b2c3d479')$q$) AS version_4;
