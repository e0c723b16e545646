-- The bad-input matrix: every SQL function of crid with NULL in each of its
-- arguments, the extremes of its types, malformed text, wrong UUID versions
-- and wrong layouts, each with what it must do: raise a SQLSTATE, return
-- 'null' (STRICT decoders and the names kept for PostgreSQL 18 and
-- pg_uuidv7 compatibility), or return a value ('ok').
--
-- One table drives it. The last query lists every function of the extension
-- that has no rows here, or no row passing NULL in one of its arguments: a
-- function cannot be added to the extension without its rows.
SET client_min_messages = warning;
SET timezone = 'UTC';

CREATE TABLE regress.bad_input (
    fn regprocedure NOT NULL, -- the exact overload; each argument is cast to its type
    args text[] NOT NULL,     -- one SQL expression per argument
    expect text NOT NULL      -- a SQLSTATE, 'null' or 'ok'
);

-- The rows are not echoed into the expected output, so adding rows for a new
-- function changes this file only.
\set ECHO none
INSERT INTO regress.bad_input VALUES
-- UUIDv7: generators raise 22004 for NULL and 22008 outside 1970 .. 10889
('uuid_generate_v7()', '{}', 'ok'),
('uuid_generate_v7(timestamptz)', ARRAY['NULL'], '22004'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'infinity'$$], '22008'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'-infinity'$$], '22008'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'1969-12-31 23:59:59.999+00'$$], '22008'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'10889-08-02 05:31:50.656+00'$$], '22008'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'294276-12-31 23:59:59+00'$$], '22008'),
('uuid_generate_v7(timestamptz)', ARRAY[$$'10889-08-02 05:31:50.655+00'$$], 'ok'),
('uuid_generate_v7_deterministic(timestamptz, text)', ARRAY['NULL', $$'k'$$], '22004'),
('uuid_generate_v7_deterministic(timestamptz, text)', ARRAY['now()', 'NULL'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, text)', ARRAY[$$'infinity'$$, $$'k'$$], '22008'),
('uuid_generate_v7_deterministic(timestamptz, text)', ARRAY['now()', $$''$$], 'ok'),
('uuid_generate_v7_deterministic(timestamptz, bigint)', ARRAY['NULL', '1'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, bigint)', ARRAY['now()', 'NULL'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, bigint)', ARRAY[$$'1900-01-01+00'$$, '1'], '22008'),
('uuid_generate_v7_deterministic(timestamptz, bigint)', ARRAY['now()', '-9223372036854775808'], 'ok'),
('uuid_generate_v7_deterministic(timestamptz, uuid)', ARRAY['NULL', 'gen_random_uuid()'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, uuid)', ARRAY['now()', 'NULL'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, bytea)', ARRAY['NULL', $$'\x00'$$], '22004'),
('uuid_generate_v7_deterministic(timestamptz, bytea)', ARRAY['now()', 'NULL'], '22004'),
('uuid_generate_v7_deterministic(timestamptz, bytea)', ARRAY[$$'-infinity'$$, $$'\x00'$$], '22008'),
('uuid_v7_to_timestamptz(uuid)', ARRAY['NULL'], 'null'),
('uuid_v7_to_timestamptz(uuid)', ARRAY[$$'00000000-0000-0000-0000-000000000000'$$], '22023'),
('uuid_v7_to_timestamptz(uuid)', ARRAY[$$'ffffffff-ffff-ffff-ffff-ffffffffffff'$$], '22023'),
('uuid_v7_to_timestamptz(uuid)', ARRAY[$$'f47ac10b-58cc-4372-a567-0e02b2c3d479'$$], '22023'),
('uuid_v7_to_timestamptz(uuid)', ARRAY[$$'017f22e2-79b0-7cc3-18c4-dc0c0c07398f'$$], '22023'),
('uuid_v7_to_timestamptz(uuid)', ARRAY[$$'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'$$], 'ok'),
('uuid_v7_text_to_timestamptz(text)', ARRAY['NULL'], 'null'),
('uuid_v7_text_to_timestamptz(text)', ARRAY[$$''$$], '22P02'),
('uuid_v7_text_to_timestamptz(text)', ARRAY[$$'017f22e2-79b0-7cc3-98c4'$$], '22P02'),
('uuid_v7_text_to_timestamptz(text)', ARRAY[$$'f47ac10b-58cc-4372-a567-0e02b2c3d479'$$], '22023'),
('uuid_v7_text_to_timestamptz(text)', ARRAY[$$'017F22E2-79B0-7CC3-98C4-DC0C0C07398F'$$], 'ok'),
('uuid_v7_floor(timestamptz)', ARRAY['NULL'], '22004'),
('uuid_v7_floor(timestamptz)', ARRAY[$$'infinity'$$], '22008'),
('uuid_v7_floor(timestamptz)', ARRAY[$$'4713-01-01 00:00:00+00 BC'$$], '22008'),
('uuid_timestamptz_to_v7(timestamptz, boolean)', ARRAY['NULL', 'false'], 'null'),
('uuid_timestamptz_to_v7(timestamptz, boolean)', ARRAY['now()', 'NULL'], 'null'),
('uuid_timestamptz_to_v7(timestamptz, boolean)', ARRAY[$$'infinity'$$, 'true'], '22008'),
('uuid_timestamptz_to_v7(timestamptz, boolean)', ARRAY[$$'1960-01-01+00'$$, 'false'], '22008'),
('uuidv7()', '{}', 'ok'),
('uuidv7(interval)', ARRAY['NULL'], 'null'),
('uuidv7(interval)', ARRAY[$$'-100 years'$$], '22008'),
('uuidv7(interval)', ARRAY[$$'178000000 years'$$], '22008'),
('uuidv7(interval)', ARRAY[$$'1 day'$$], 'ok'),
('uuid_extract_timestamp(uuid)', ARRAY['NULL'], 'null'),
('uuid_extract_timestamp(uuid)', ARRAY[$$'f47ac10b-58cc-4372-a567-0e02b2c3d479'$$], 'null'),
('uuid_extract_timestamp(uuid)', ARRAY[$$'ffffffff-ffff-7fff-bfff-ffffffffffff'$$], 'ok'),
('uuid_extract_version(uuid)', ARRAY['NULL'], 'null'),
('uuid_extract_version(uuid)', ARRAY[$$'00000000-0000-0000-0000-000000000000'$$], 'null'),
-- Snowflake: generators raise 22004 for NULL, 22003 outside the layout
('snowflake_next()', '{}', '55000'), -- crid.node_id is not set here
('snowflake_next(integer)', ARRAY['NULL'], '22004'),
('snowflake_next(integer)', ARRAY['-1'], '22003'),
('snowflake_next(integer)', ARRAY['1024'], '22003'),
('snowflake_next(integer)', ARRAY['2147483647'], '22003'),
('snowflake_next(integer)', ARRAY['-2147483648'], '22003'),
('snowflake_next(integer)', ARRAY['1023'], 'ok'),
('snowflake_next(integer, integer)', ARRAY['NULL', '0'], '22004'),
('snowflake_next(integer, integer)', ARRAY['1', 'NULL'], '22004'),
('snowflake_next(integer, integer)', ARRAY['NULL', 'NULL'], '22004'),
('snowflake_next(integer, integer)', ARRAY['1', '1'], '55000'), -- no gene bits here
('snowflake_next(integer, integer)', ARRAY['1', '-1'], '55000'),
('snowflake_next(integer, integer)', ARRAY['-1', '0'], '22003'),
('snowflake_to_timestamptz(bigint)', ARRAY['NULL'], 'null'),
('snowflake_to_timestamptz(bigint)', ARRAY['-1'], '22003'),
('snowflake_to_timestamptz(bigint)', ARRAY['9223372036854775807'], 'ok'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['NULL', $$'twitter'$$], 'null'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', 'NULL'], 'null'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$'twitterx'$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$''$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$'epoch=2020-01-01,node=10'$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$'epoch=2020-02-30,node=10,sequence=12'$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$'epoch=2020-01-01,node=17,sequence=12'$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$'epoch=2020-01-01,node=10,sequence=12,node=10'$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['1', $$repeat('x', 100000)$$], '22023'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['-1', $$'twitter'$$], '22003'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['-1', $$'discord'$$], 'ok'),
('snowflake_to_timestamptz(bigint, text)', ARRAY['-9223372036854775808', $$'instagram'$$], 'ok'),
('snowflake_parse(bigint)', ARRAY['NULL'], 'null'),
('snowflake_parse(bigint)', ARRAY['-5'], '22003'),
('snowflake_parse(bigint, text)', ARRAY['NULL', $$'discord'$$], 'null'),
('snowflake_parse(bigint, text)', ARRAY['1', 'NULL'], 'null'),
('snowflake_parse(bigint, text)', ARRAY['1', $$'order=time,node'$$], '22023'),
('snowflake_parse(bigint, text)', ARRAY['-1', $$'sonyflake'$$], '22003'),
('snowflake_floor(timestamptz)', ARRAY['NULL'], '22004'),
('snowflake_floor(timestamptz)', ARRAY[$$'infinity'$$], '22008'),
('snowflake_floor(timestamptz)', ARRAY[$$'2025-12-31 23:59:59.999+00'$$], '22008'),
('snowflake_floor(timestamptz)', ARRAY[$$'2026-01-01 00:00:00+00'$$], 'ok'),
('snowflake_floor(timestamptz, text)', ARRAY['NULL', $$'twitter'$$], '22004'),
('snowflake_floor(timestamptz, text)', ARRAY['now()', 'NULL'], '22004'),
('snowflake_floor(timestamptz, text)', ARRAY[$$'-infinity'$$, $$'twitter'$$], '22008'),
('snowflake_floor(timestamptz, text)', ARRAY['now()', $$'nope'$$], '22023'),
('snowflake_floor(timestamptz, text)', ARRAY[$$'2100-01-01+00'$$, $$'crid'$$], '22008'),
('snowflake_layout()', '{}', 'ok'),
('snowflake_layout(text)', ARRAY['NULL'], '22004'),
('snowflake_layout(text)', ARRAY[$$'sign=maybe'$$], '22023'),
('snowflake_layout(text)', ARRAY[$$'TWITTER'$$], 'ok'),
-- Statistics
('crid_stats()', '{}', 'ok'),
-- crid
('crid_next()', '{}', 'ok'),
('crid_allocate(bigint, bigint)', ARRAY['NULL', '100'], '22004'),
('crid_allocate(bigint, bigint)', ARRAY['0', 'NULL'], '22004'),
('crid_allocate(bigint, bigint)', ARRAY['-1', '100'], '22003'),
('crid_allocate(bigint, bigint)', ARRAY['2147483648', '100'], '22003'),
('crid_allocate(bigint, bigint)', ARRAY['0', '0'], '22023'),
('crid_allocate(bigint, bigint)', ARRAY['0', '4294967297'], '22023'),
('crid_allocate(bigint, bigint)', ARRAY['-9223372036854775808', '-9223372036854775808'], '22023'),
('crid_check_allocation(bigint, bigint)', ARRAY['NULL', '1'], 'null'),
('crid_check_allocation(bigint, bigint)', ARRAY['1', 'NULL'], 'null'),
('crid_check_allocation(bigint, bigint)', ARRAY['9223372036854775807', '1'], '22003'),
('crid_check_block_end(bigint, bigint)', ARRAY['NULL', '1'], 'null'),
('crid_check_block_end(bigint, bigint)', ARRAY['1', 'NULL'], 'null'),
('crid_check_block_end(bigint, bigint)', ARRAY['1', '4294967297'], '22003'),
('crid_to_timestamptz(bigint)', ARRAY['NULL'], 'null'),
('crid_to_timestamptz(bigint)', ARRAY['-1'], '22003'),
('crid_to_timestamptz(bigint)', ARRAY['9223372036854775807'], 'ok'),
('crid_parse(bigint)', ARRAY['NULL'], 'null'),
('crid_parse(bigint)', ARRAY['-9223372036854775808'], '22003'),
('crid_floor(timestamptz)', ARRAY['NULL'], '22004'),
('crid_floor(timestamptz)', ARRAY[$$'infinity'$$], '22008'),
('crid_floor(timestamptz)', ARRAY[$$'2025-12-31 23:59:59+00'$$], '22008'),
('crid_floor(timestamptz)', ARRAY[$$'2094-01-20 03:14:08+00'$$], '22008'),
('crid_evict(timestamptz)', ARRAY['NULL'], '22004'),
('crid_evict(timestamptz)', ARRAY[$$'infinity'$$], '22008'),
('crid_evict(timestamptz)', ARRAY['now()'], '22023'),
('crid_evict_horizon(timestamptz)', ARRAY['NULL'], '22004'),
('crid_evict_horizon(timestamptz)', ARRAY['now()'], '22023'),
-- Availability: the superuser repair functions (run as one here)
('crid_accept_layout(boolean)', ARRAY['NULL'], '22004'),
('crid_accept_layout(boolean)', ARRAY['false'], 'null'), -- the layout did not change
('crid_reset_high_water(timestamptz, boolean)', ARRAY['NULL', 'false'], '22004'),
('crid_reset_high_water(timestamptz, boolean)', ARRAY['now()', 'NULL'], '22004'),
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$'infinity'$$, 'false'], '22008'),
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$'2000-01-01+00'$$, 'false'], '22023'),
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$'20000-01-01+00'$$, 'true'], '22008'),
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$now() + interval '1000 years'$$, 'false'], '22023'), -- past the layouts
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$'2094-06-01+00'$$, 'false'], '22023'), -- past the crid layout
('crid_reset_high_water(timestamptz, boolean)', ARRAY[$$now() + interval '1 hour'$$, 'false'], '22023'), -- beyond the borrow window
-- Shard genes: hashes and masks are IMMUTABLE STRICT; generators raise 22004
-- for NULL, 22023 for bits outside their field, 22003 for a gene that does
-- not fit
('gene_of(bigint, integer)', ARRAY['NULL', '4'], 'null'),
('gene_of(bigint, integer)', ARRAY['1', 'NULL'], 'null'),
('gene_of(bigint, integer)', ARRAY['-1', '4'], 'ok'),
('gene_of(bigint, integer)', ARRAY['1', '0'], '22023'),
('gene_of(bigint, integer)', ARRAY['1', '-1'], '22023'),
('gene_of(bigint, integer)', ARRAY['1', '64'], '22023'),
('gene_of(bigint, integer)', ARRAY['1', '2147483647'], '22023'),
('gene_of(text, integer)', ARRAY['NULL', '4'], 'null'),
('gene_of(text, integer)', ARRAY[$$''$$, 'NULL'], 'null'),
('gene_of(text, integer)', ARRAY[$$''$$, '4'], 'ok'),
('gene_of(text, integer)', ARRAY[$$repeat('x', 100000)$$, '16'], 'ok'),
('gene_of(text, integer)', ARRAY[$$'k'$$, '-2147483648'], '22023'),
('gene_of(uuid, integer)', ARRAY['NULL', '4'], 'null'),
('gene_of(uuid, integer)', ARRAY['gen_random_uuid()', 'NULL'], 'null'),
('gene_of(uuid, integer)', ARRAY['gen_random_uuid()', '33'], '22023'),
('id_gene(bigint, integer)', ARRAY['NULL', '4'], 'null'),
('id_gene(bigint, integer)', ARRAY['1', 'NULL'], 'null'),
('id_gene(bigint, integer)', ARRAY['-9223372036854775808', '4'], 'ok'),
('id_gene(bigint, integer)', ARRAY['1', '0'], '22023'),
('id_gene(bigint, integer)', ARRAY['1', '65'], '22023'),
('id_gene(uuid, integer)', ARRAY['NULL', '4'], 'null'),
('id_gene(uuid, integer)', ARRAY['gen_random_uuid()', 'NULL'], 'null'),
('id_gene(uuid, integer)', ARRAY['gen_random_uuid()', '-1'], '22023'),
('id_with_gene(bigint, integer, integer)', ARRAY['NULL', '1', '4'], 'null'),
('id_with_gene(bigint, integer, integer)', ARRAY['1', 'NULL', '4'], 'null'),
('id_with_gene(bigint, integer, integer)', ARRAY['1', '1', 'NULL'], 'null'),
('id_with_gene(bigint, integer, integer)', ARRAY['1', '16', '4'], '22003'),
('id_with_gene(bigint, integer, integer)', ARRAY['1', '-1', '4'], '22003'),
('id_with_gene(bigint, integer, integer)', ARRAY['1', '1', '0'], '22023'),
('id_with_gene(bigint, integer, integer)', ARRAY['9223372036854775807', '0', '4'], 'ok'),
('id_with_gene(uuid, integer, integer)', ARRAY['NULL', '1', '4'], 'null'),
('id_with_gene(uuid, integer, integer)', ARRAY['gen_random_uuid()', 'NULL', '4'], 'null'),
('id_with_gene(uuid, integer, integer)', ARRAY['gen_random_uuid()', '1', 'NULL'], 'null'),
('id_with_gene(uuid, integer, integer)', ARRAY['gen_random_uuid()', '2147483647', '16'], '22003'),
('id_with_gene(uuid, integer, integer)', ARRAY['gen_random_uuid()', '1', '99'], '22023'),
('uuid_generate_v7(integer, integer)', ARRAY['NULL', '4'], '22004'),
('uuid_generate_v7(integer, integer)', ARRAY['1', 'NULL'], '22004'),
('uuid_generate_v7(integer, integer)', ARRAY['1', '0'], '22023'),
('uuid_generate_v7(integer, integer)', ARRAY['1', '11'], '22023'),
('uuid_generate_v7(integer, integer)', ARRAY['16', '4'], '22003'),
('uuid_generate_v7(integer, integer)', ARRAY['-1', '4'], '22003'),
('uuid_generate_v7(integer, integer)', ARRAY['1023', '10'], 'ok'),
('crid_next(integer, integer)', ARRAY['NULL', '4'], '22004'),
('crid_next(integer, integer)', ARRAY['1', 'NULL'], '22004'),
('crid_next(integer, integer)', ARRAY['1', '0'], '22023'),
('crid_next(integer, integer)', ARRAY['1', '17'], '22023'),
('crid_next(integer, integer)', ARRAY['16', '4'], '22003'),
('crid_next(integer, integer)', ARRAY['15', '4'], 'ok'),
('crid_fill_id_with_gene()', '{}', '39P01'), -- a trigger function: trigger protocol violated
-- The hash support functions of crid_gene_int8_ops / crid_gene_uuid_ops
('crid_gene_hash(bigint)', ARRAY['NULL'], 'null'),
('crid_gene_hash(bigint)', ARRAY['-9223372036854775808'], 'ok'),
('crid_gene_hash(integer)', ARRAY['NULL'], 'null'),
('crid_gene_hash(integer)', ARRAY['-2147483648'], 'ok'),
('crid_gene_hash(smallint)', ARRAY['NULL'], 'null'),
('crid_gene_hash(smallint)', ARRAY['-32768'], 'ok'),
('crid_gene_hash(uuid)', ARRAY['NULL'], 'null'),
('crid_gene_hash_extended(bigint, bigint)', ARRAY['NULL', '0'], 'null'),
('crid_gene_hash_extended(bigint, bigint)', ARRAY['1', 'NULL'], 'null'),
('crid_gene_hash_extended(bigint, bigint)', ARRAY['9223372036854775807', '-1'], 'ok'),
('crid_gene_hash_extended(integer, bigint)', ARRAY['NULL', '0'], 'null'),
('crid_gene_hash_extended(integer, bigint)', ARRAY['1', 'NULL'], 'null'),
('crid_gene_hash_extended(smallint, bigint)', ARRAY['NULL', '0'], 'null'),
('crid_gene_hash_extended(smallint, bigint)', ARRAY['1', 'NULL'], 'null'),
('crid_gene_hash_extended(uuid, bigint)', ARRAY['NULL', '0'], 'null'),
('crid_gene_hash_extended(uuid, bigint)', ARRAY['gen_random_uuid()', 'NULL'], 'null'),
-- Queries by time: range membership and the bounds the planner writes
('uuid_v7_in(uuid, tstzrange)', ARRAY['NULL', $$'[2026-01-01,2026-02-01)'$$], 'null'),
('uuid_v7_in(uuid, tstzrange)', ARRAY['uuid_generate_v7()', 'NULL'], 'null'),
('uuid_v7_in(uuid, tstzrange)', ARRAY['gen_random_uuid()', $$'[2026-01-01,)'$$], 'ok'), -- false: not a v7
('uuid_v7_in(uuid, tstzrange)', ARRAY['uuid_generate_v7()', $$'(,)'$$], 'ok'),
('uuid_v7_in(uuid, tstzrange)', ARRAY['uuid_generate_v7()', $$'empty'$$], 'ok'),
('crid_uuid_v7_in_exact(uuid, tstzrange)', ARRAY['NULL', $$'[2026-01-01,2026-02-01)'$$], 'null'),
('crid_uuid_v7_in_exact(uuid, tstzrange)', ARRAY['uuid_generate_v7()', 'NULL'], 'null'),
('crid_uuid_v7_in_exact(uuid, tstzrange)', ARRAY['gen_random_uuid()', $$'[2026-01-01,)'$$], 'ok'), -- false: not a v7
('crid_uuid_v7_in_exact(uuid, tstzrange)', ARRAY['uuid_generate_v7()', $$'empty'$$], 'ok'),
('snowflake_in(bigint, tstzrange)', ARRAY['NULL', $$'(,)'$$], 'null'),
('snowflake_in(bigint, tstzrange)', ARRAY['1', 'NULL'], 'null'),
('snowflake_in(bigint, tstzrange)', ARRAY['-1', $$'(,)'$$], 'ok'), -- false, as the id range it simplifies to
('snowflake_in(bigint, tstzrange, text)', ARRAY['NULL', $$'(,)'$$, $$'twitter'$$], 'null'),
('snowflake_in(bigint, tstzrange, text)', ARRAY['1', 'NULL', $$'twitter'$$], 'null'),
('snowflake_in(bigint, tstzrange, text)', ARRAY['1', $$'(,)'$$, 'NULL'], 'null'),
('snowflake_in(bigint, tstzrange, text)', ARRAY['1', $$'(,)'$$, $$'nope'$$], '22023'),
('crid_in(bigint, tstzrange)', ARRAY['NULL', $$'(,)'$$], 'null'),
('crid_in(bigint, tstzrange)', ARRAY['1', 'NULL'], 'null'),
('crid_in(bigint, tstzrange)', ARRAY['-1', $$'(,)'$$], 'ok'), -- false, as the id range it simplifies to
('uuid_v7_range_first(tstzrange)', ARRAY['NULL'], 'null'),
('uuid_v7_range_first(tstzrange)', ARRAY[$$'(,)'$$], 'ok'),
('uuid_v7_range_first(tstzrange)', ARRAY[$$'[294276-01-01,)'$$], 'ok'),
('uuid_v7_range_last(tstzrange)', ARRAY['NULL'], 'null'),
('uuid_v7_range_last(tstzrange)', ARRAY[$$'empty'$$], 'ok'),
('snowflake_range_first(tstzrange)', ARRAY['NULL'], 'null'),
('snowflake_range_first(tstzrange)', ARRAY[$$'[1900-01-01,1901-01-01)'$$], 'ok'),
('snowflake_range_first(tstzrange, text)', ARRAY['NULL', $$'twitter'$$], 'null'),
('snowflake_range_first(tstzrange, text)', ARRAY[$$'(,)'$$, 'NULL'], 'null'),
('snowflake_range_first(tstzrange, text)', ARRAY[$$'(,)'$$, $$'x=1'$$], '22023'),
('snowflake_range_last(tstzrange)', ARRAY['NULL'], 'null'),
('snowflake_range_last(tstzrange, text)', ARRAY['NULL', $$'twitter'$$], 'null'),
('snowflake_range_last(tstzrange, text)', ARRAY[$$'(,)'$$, 'NULL'], 'null'),
('crid_range_first(tstzrange)', ARRAY['NULL'], 'null'),
('crid_range_last(tstzrange)', ARRAY['NULL'], 'null'),
('crid_range_last(tstzrange)', ARRAY[$$'(,)'$$], 'ok'),
('crid_uuid_v7_check(uuid)', ARRAY['NULL'], 'null'),
('crid_uuid_v7_check(uuid)', ARRAY[$$'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'$$], 'ok'),
('crid_uuid_v7_check(uuid)', ARRAY[$$'f81d4fae-7dec-41d0-a765-00a0c91e6bf6'$$], '22023'),
('crid_uuid_v7_check(uuid)', ARRAY[$$'017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'$$], '22023'),
('uuid_v7_time_bound(timestamptz, text)', ARRAY['NULL', $$'>='$$], 'null'),
('uuid_v7_time_bound(timestamptz, text)', ARRAY['now()', 'NULL'], 'null'),
('uuid_v7_time_bound(timestamptz, text)', ARRAY['now()', $$'<>'$$], '22023'),
('uuid_v7_time_bound(timestamptz, text)', ARRAY[$$'infinity'$$, $$'<'$$], 'ok'),
('snowflake_time_bound(timestamptz, text)', ARRAY['NULL', $$'>='$$], 'null'),
('snowflake_time_bound(timestamptz, text)', ARRAY['now()', 'NULL'], 'null'),
('snowflake_time_bound(timestamptz, text)', ARRAY['now()', $$''$$], '22023'),
('snowflake_time_bound(timestamptz, text, text)', ARRAY['NULL', $$'>='$$, $$'twitter'$$], 'null'),
('snowflake_time_bound(timestamptz, text, text)', ARRAY['now()', 'NULL', $$'twitter'$$], 'null'),
('snowflake_time_bound(timestamptz, text, text)', ARRAY['now()', $$'>='$$, 'NULL'], 'null'),
('snowflake_time_bound(timestamptz, text, text)', ARRAY['now()', $$'>='$$, $$'mars'$$], '22023'),
('crid_time_bound(timestamptz, text)', ARRAY['NULL', $$'>='$$], 'null'),
('crid_time_bound(timestamptz, text)', ARRAY['now()', 'NULL'], 'null'),
('crid_time_bound(timestamptz, text)', ARRAY[$$'-infinity'$$, $$'>'$$], 'ok'),
-- ... for a date or timestamp, beyond timestamptz's range too: no ERROR, the
-- bound of a time later (or earlier) than every id's, as the comparison has it
('uuid_v7_time_bound(date, text)', ARRAY['NULL', $$'>='$$], 'null'),
('uuid_v7_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('uuid_v7_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, $$'=<'$$], '22023'),
('uuid_v7_time_bound(date, text)', ARRAY[$$'300000-01-01'$$, $$'<'$$], 'ok'),
('uuid_v7_time_bound(date, text)', ARRAY[$$'300000-01-01'$$, $$'>='$$], 'null'),
('uuid_v7_time_bound(date, text)', ARRAY[$$'4713-01-01 BC'$$, $$'>'$$], 'ok'),
('uuid_v7_time_bound(timestamp, text)', ARRAY['NULL', $$'>='$$], 'null'),
('uuid_v7_time_bound(timestamp, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('uuid_v7_time_bound(timestamp, text)', ARRAY[$$'294276-12-31 23:59:59'$$, $$'<='$$], 'ok'),
('uuid_v7_time_bound(timestamp, text)', ARRAY[$$'-infinity'$$, $$'<'$$], 'null'),
('snowflake_time_bound(date, text)', ARRAY['NULL', $$'>='$$], 'null'),
('snowflake_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('snowflake_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, $$'=='$$], '22023'),
('snowflake_time_bound(date, text)', ARRAY[$$'300000-01-01'$$, $$'<'$$], 'ok'),
('snowflake_time_bound(date, text)', ARRAY[$$'5874897-12-31'$$, $$'>'$$], 'null'),
('snowflake_time_bound(timestamp, text)', ARRAY['NULL', $$'>='$$], 'null'),
('snowflake_time_bound(timestamp, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('snowflake_time_bound(timestamp, text)', ARRAY[$$'294276-12-31 23:59:59'$$, $$'<'$$], 'ok'),
('snowflake_time_bound(timestamp, text)', ARRAY[$$'infinity'$$, $$'>='$$], 'null'),
('snowflake_time_bound(date, text, text)', ARRAY['NULL', $$'>='$$, $$'twitter'$$], 'null'),
('snowflake_time_bound(date, text, text)', ARRAY[$$'2026-03-01'$$, 'NULL', $$'twitter'$$], 'null'),
('snowflake_time_bound(date, text, text)', ARRAY[$$'2026-03-01'$$, $$'>='$$, 'NULL'], 'null'),
('snowflake_time_bound(date, text, text)', ARRAY[$$'2026-03-01'$$, $$'>='$$, $$'mars'$$], '22023'),
('snowflake_time_bound(date, text, text)', ARRAY[$$'2026-03-01'$$, $$'>='$$, $$'discord'$$], '22023'), -- not sorted by time
('snowflake_time_bound(date, text, text)', ARRAY[$$'300000-01-01'$$, $$'<='$$, $$'twitter'$$], 'ok'),
('snowflake_time_bound(timestamp, text, text)', ARRAY['NULL', $$'>='$$, $$'twitter'$$], 'null'),
('snowflake_time_bound(timestamp, text, text)', ARRAY[$$'2026-03-01'$$, 'NULL', $$'twitter'$$], 'null'),
('snowflake_time_bound(timestamp, text, text)', ARRAY[$$'2026-03-01'$$, $$'>='$$, 'NULL'], 'null'),
('snowflake_time_bound(timestamp, text, text)', ARRAY[$$'2026-03-01'$$, $$'>='$$, $$''$$], '22023'),
('snowflake_time_bound(timestamp, text, text)', ARRAY[$$'-infinity'$$, $$'>='$$, $$'sonyflake'$$], 'ok'),
('crid_time_bound(date, text)', ARRAY['NULL', $$'>='$$], 'null'),
('crid_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('crid_time_bound(date, text)', ARRAY[$$'2026-03-01'$$, $$'<>'$$], '22023'),
('crid_time_bound(date, text)', ARRAY[$$'300000-01-01'$$, $$'>'$$], 'null'),
('crid_time_bound(date, text)', ARRAY[$$'-infinity'$$, $$'>'$$], 'ok'),
('crid_time_bound(timestamp, text)', ARRAY['NULL', $$'>='$$], 'null'),
('crid_time_bound(timestamp, text)', ARRAY[$$'2026-03-01'$$, 'NULL'], 'null'),
('crid_time_bound(timestamp, text)', ARRAY[$$'294276-12-31 23:59:59'$$, $$'<'$$], 'ok'),
-- The hook's checks: true, or the decoder's ERROR for an id it refuses
('crid_snowflake_check(bigint)', ARRAY['NULL'], 'null'),
('crid_snowflake_check(bigint)', ARRAY['0'], 'ok'),
('crid_snowflake_check(bigint)', ARRAY['9223372036854775807'], 'ok'),
('crid_snowflake_check(bigint)', ARRAY['-1'], '22003'),
('crid_snowflake_check(bigint)', ARRAY['-9223372036854775808'], '22003'),
('crid_snowflake_check(bigint, text)', ARRAY['NULL', $$'twitter'$$], 'null'),
('crid_snowflake_check(bigint, text)', ARRAY['1', 'NULL'], 'null'),
('crid_snowflake_check(bigint, text)', ARRAY['-1', $$'twitter'$$], '22003'),
('crid_snowflake_check(bigint, text)', ARRAY['-1', $$'discord'$$], 'ok'), -- sign=true: negative ids are ids
('crid_snowflake_check(bigint, text)', ARRAY['1', $$'mars'$$], '22023'),
('crid_snowflake_check(bigint, text)', ARRAY['9223372036854775807', $$'epoch=2020-01-01,unit=1s,node=0,sequence=13'$$], '22008'), -- past timestamptz
('crid_crid_check(bigint)', ARRAY['NULL'], 'null'),
('crid_crid_check(bigint)', ARRAY['0'], 'ok'),
('crid_crid_check(bigint)', ARRAY['9223372036854775807'], 'ok'),
('crid_crid_check(bigint)', ARRAY['-1'], '22003'),
('crid_crid_check(bigint)', ARRAY['-9223372036854775808'], '22003'),
-- Text forms: decoders raise 22P02 for malformed text, 22023 for a bad prefix
('id_encode(bigint, text)', ARRAY['NULL', $$'ord'$$], 'null'),
('id_encode(bigint, text)', ARRAY['1', 'NULL'], 'null'),
('id_encode(bigint, text)', ARRAY['-9223372036854775808', $$'ord'$$], '22003'), -- ids are 0 and up
('id_encode(bigint, text)', ARRAY['9223372036854775807', $$'ord'$$], 'ok'),
('id_encode(bigint, text)', ARRAY['1', $$'Ord'$$], '22023'),
('id_encode(bigint, text)', ARRAY['1', $$'ord x'$$], '22023'),
('id_encode(bigint, text)', ARRAY['1', $$repeat('a', 1000)$$], '22023'),
('id_decode(text, text)', ARRAY['NULL', $$'ord'$$], 'null'),
('id_decode(text, text)', ARRAY[$$'ord_0000000000a'$$, 'NULL'], 'null'),
('id_decode(text, text)', ARRAY[$$''$$, $$'ord'$$], '22P02'),
('id_decode(text, text)', ARRAY[$$'usr_0000000000a'$$, $$'ord'$$], '22P02'),
('id_decode(text, text)', ARRAY[$$'ord_zzzzzzzzzzz'$$, $$'ord'$$], '22P02'),
('id_decode(text, text)', ARRAY[$$'ord_!!!!!!!!!!!'$$, $$'ord'$$], '22P02'),
('id_decode(text, text)', ARRAY[$$'ord_00000000３D7'$$, $$'ord'$$], '22P02'), -- 11 characters, one not a digit
('id_decode(text, text)', ARRAY[$$'ord_000000003D7é'$$, $$'ord'$$], '22P02'),
('id_decode(text, text)', ARRAY[$$'ord_000000003D7'$$, $$'órd'$$], '22023'),
('id_encode(bigint, text)', ARRAY['1', $$'é'$$], '22023'),
('id_encode(bigint, text)', ARRAY['1', $$repeat('é', 40)$$], '22023'), -- 40 characters, 80 bytes
('uuid_to_base62(uuid)', ARRAY['NULL'], 'null'),
('uuid_to_base62(uuid)', ARRAY[$$'ffffffff-ffff-ffff-ffff-ffffffffffff'$$], 'ok'),
('base62_to_uuid(text)', ARRAY['NULL'], 'null'),
('base62_to_uuid(text)', ARRAY[$$''$$], '22P02'),
('base62_to_uuid(text)', ARRAY[$$'zzzzzzzzzzzzzzzzzzzzzz'$$], '22P02'),
('base62_to_uuid(text)', ARRAY[$$repeat('0', 100000)$$], '22P02'),
('base62_to_uuid(text)', ARRAY[$$'7n42DGM5Tflk9n8mt7Fhcé'$$], '22P02'),
('uuid_to_ulid(uuid)', ARRAY['NULL'], 'null'),
('ulid_to_uuid(text)', ARRAY['NULL'], 'null'),
('ulid_to_uuid(text)', ARRAY[$$'8ZZZZZZZZZZZZZZZZZZZZZZZZZ'$$], '22P02'),
('ulid_to_uuid(text)', ARRAY[$$'01ARZ3NDEKTSV4RRFFQ69G5FAU'$$], '22P02'),
('ulid_to_uuid(text)', ARRAY[$$'01ARZ3NDEKTSV4RRFFQ69G5FA'$$], '22P02'),
('ulid_to_uuid(text)', ARRAY[$$'01ARZ3NDEKTSV4RRFFQ69G5FAÜ'$$], '22P02'),
('ulid_to_uuid(text)', ARRAY[$$'7zzzzzzzzzzzzzzzzzzzzzzzzz'$$], 'ok'),
('uuid_to_typeid(text, uuid)', ARRAY['NULL', 'gen_random_uuid()'], 'null'),
('uuid_to_typeid(text, uuid)', ARRAY[$$'user'$$, 'NULL'], 'null'),
('uuid_to_typeid(text, uuid)', ARRAY[$$'User'$$, 'gen_random_uuid()'], '22023'),
('uuid_to_typeid(text, uuid)', ARRAY[$$''$$, 'gen_random_uuid()'], 'ok'),
('uuid_to_typeid(text, uuid)', ARRAY[$$'ü'$$, 'gen_random_uuid()'], '22023'),
('typeid_to_uuid(text)', ARRAY['NULL'], 'null'),
('typeid_to_uuid(text)', ARRAY[$$'user_8zzzzzzzzzzzzzzzzzzzzzzzzz'$$], '22P02'),
('typeid_to_uuid(text)', ARRAY[$$'_00000000000000000000000000'$$], '22P02'),
('typeid_to_uuid(text)', ARRAY[$$'üser_00000000000000000000000000'$$], '22P02'),
('typeid_to_uuid(text, text)', ARRAY['NULL', $$'user'$$], 'null'),
('typeid_to_uuid(text, text)', ARRAY[$$'user_00000000000000000000000000'$$, 'NULL'], 'null'),
('typeid_to_uuid(text, text)', ARRAY[$$'user_00000000000000000000000000'$$, $$'team'$$], '22P02'),
('typeid_to_uuid(text, text)', ARRAY[$$'user_00000000000000000000000000'$$, $$'Team'$$], '22023'),
-- Backfills (bad tables and columns: sql/backfill.sql); NULL is refused
('crid_backfill(regclass, name, text, integer, interval)', ARRAY['NULL', $$'id'$$, $$'1'$$, '10', $$'0'$$], '22004'),
('crid_backfill(regclass, name, text, integer, interval)', ARRAY[$$'pg_class'$$, 'NULL', $$'1'$$, '10', $$'0'$$], '22004'),
('crid_backfill(regclass, name, text, integer, interval)', ARRAY[$$'pg_class'$$, $$'oid'$$, 'NULL', '10', $$'0'$$], '22004'),
('crid_backfill(regclass, name, text, integer, interval)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'1'$$, 'NULL', $$'0'$$], '22004'),
('crid_backfill(regclass, name, text, integer, interval)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'1'$$, '10', 'NULL'], '22004'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY['NULL', $$'oid'$$, $$'1'$$], 'null'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY[$$'pg_class'$$, 'NULL', $$'1'$$], 'null'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, 'NULL'], 'null'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'1; DROP TABLE x'$$], '42601'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY[$$'pg_class'$$, $$'nope'$$, $$'1'$$], '42703'),
('crid_backfill_check_expression(regclass, name, text)', ARRAY[$$'pg_class'$$, $$'ctid'$$, $$'1'$$], '42703'), -- a system column
('crid_backfill_check_expression(regclass, name, text)', ARRAY['4294967295', $$'oid'$$, $$'1'$$], '42P01'),
('crid_backfill_lock_key(oid, smallint)', ARRAY['NULL', '1'], 'null'),
('crid_backfill_lock_key(oid, smallint)', ARRAY['1', 'NULL'], 'null'),
('crid_backfill_lock_key(oid, smallint)', ARRAY['4294967295', '-32768'], 'ok'),
-- The registry table: crid.registry_table is not set here
('crid_registry_table()', '{}', 'ok'),
-- A fleet on one registry: no arguments to get wrong
('crid_registry_status()', '{}', 'ok'),
('crid_registry_clock()', '{}', 'ok'),
-- Ids for past times, crid: NULL is 22004, a count or sequence outside the
-- second 22003, a time outside the layout 22008, an evicted second 55000
-- (sql/crid_backfill.sql). sql/crid.sql evicted all but the last 2 days, so
-- reservations are made 36 hours ago (sql/crid_backfill.sql fills the last day).
('crid_pack(timestamptz, bigint)', ARRAY['NULL', '0'], '22004'),
('crid_pack(timestamptz, bigint)', ARRAY['now()', 'NULL'], '22004'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'infinity'$$, '0'], '22008'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'-infinity'$$, '0'], '22008'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'2025-12-31 23:59:59.999+00'$$, '0'], '22008'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'2094-01-19 03:14:08+00'$$, '0'], '22008'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'294276-12-31 23:59:59+00'$$, '0'], '22008'),
('crid_pack(timestamptz, bigint)', ARRAY['now()', '-1'], '22003'),
('crid_pack(timestamptz, bigint)', ARRAY['now()', '4294967296'], '22003'),
('crid_pack(timestamptz, bigint)', ARRAY['now()', '-9223372036854775808'], '22003'),
('crid_pack(timestamptz, bigint)', ARRAY['now()', '9223372036854775807'], '22003'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'2026-01-01 00:00:00+00'$$, '0'], 'ok'),
('crid_pack(timestamptz, bigint)', ARRAY[$$'2094-01-19 03:14:07.999999+00'$$, '4294967295'], 'ok'),
('crid_reserve(timestamptz, bigint)', ARRAY['NULL', '1'], '22004'),
('crid_reserve(timestamptz, bigint)', ARRAY['now()', 'NULL'], '22004'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$'2026-01-01 00:00:00+00'$$, '1'], '55000'), -- evicted
('crid_reserve(timestamptz, bigint)', ARRAY[$$'infinity'$$, '1'], '22008'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$'-infinity'$$, '1'], '22008'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$'2025-12-31 23:59:59.999+00'$$, '1'], '22008'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$'2094-01-19 03:14:08+00'$$, '1'], '22008'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '0'], '22003'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '-1'], '22003'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '4294967297'], '22003'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '-9223372036854775808'], '22003'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '1'], 'ok'),
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours'$$, '4294967296'], '22003'), -- one is taken
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours' + interval '1 s'$$, '4294967296'], 'ok'), -- a whole second
('crid_reserve(timestamptz, bigint)', ARRAY[$$date_trunc('second', now()) - interval '36 hours' + interval '1 s'$$, '1'], '22003'), -- and it is full
('crid_reserve(timestamptz, bigint)', ARRAY[$$'2094-01-19 03:14:07.999999+00'$$, '1'], '55000'), -- the layout's last second: ahead of the registry's clock
('crid_reserve_ts(timestamptz, bigint)', ARRAY['NULL', '1'], '22004'),
('crid_reserve_ts(timestamptz, bigint)', ARRAY['now()', 'NULL'], '22004'),
('crid_reserve_ts(timestamptz, bigint)', ARRAY['now()', '0'], '22003'),
('crid_reserve_ts(timestamptz, bigint)', ARRAY[$$'infinity'$$, '1'], '22008'),
('crid_reserve_ts(timestamptz, bigint)', ARRAY['now()', '1'], 'ok'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['NULL', '1', '1'], 'null'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['1', 'NULL', '1'], 'null'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['1', '1', 'NULL'], 'null'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['1', '1', '4294967297'], '22003'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['1', '-9223372036854775808', '9223372036854775807'], '22003'),
('crid_check_reserved_end(bigint, bigint, bigint)', ARRAY['1', '1', '4294967296'], 'ok'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY['NULL', '1', '1'], 'null'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY[$$'f'$$, 'NULL', '1'], 'null'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY[$$'f'$$, '1', 'NULL'], 'null'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY[$$'f'$$, '1', '2'], '55000'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY[$$'f'$$, '-9223372036854775808', '9223372036854775807'], '55000'),
('crid_check_not_evicted(text, bigint, bigint)', ARRAY[$$'f'$$, '2', '2'], 'ok'),
('crid_registry_check(regclass)', ARRAY['NULL'], '22004'),
('crid_registry_check(regclass)', ARRAY['crid_registry_table()'], 'ok'),
('crid_registry_check(regclass)', ARRAY[$$'pg_class'$$], '42809'), -- no registry table
('crid_registry_admit(regclass, bigint)', ARRAY['NULL', '0'], '22004'),
('crid_registry_admit(regclass, bigint)', ARRAY['crid_registry_table()', 'NULL'], '22004'),
('crid_registry_admit(regclass, bigint)', ARRAY['crid_registry_table()', '0'], 'ok'), -- long past: open
('crid_registry_admit(regclass, bigint)', ARRAY['crid_registry_table()', '9223372036854775807'], '55000'), -- ahead of the clock
('crid_registry_admit(regclass, bigint)', ARRAY[$$'pg_class'$$, '0'], '42809'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['NULL', '0', '1', 'NULL', 'NULL'], '22004'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', 'NULL', '1', 'NULL', 'NULL'], '22004'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '0', 'NULL', 'NULL', 'NULL'], '22004'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '-1', '1', 'NULL', 'NULL'], '22023'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '0', '0', 'NULL', 'NULL'], '22023'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY[$$'pg_class'$$, '0', '1', 'NULL', 'NULL'], '42809'),
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '9223372036854775807', '1', 'NULL', 'NULL'], 'null'), -- ahead of the clock: refused, nothing reserved
('crid_registry_reserve(regclass, bigint, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '0', '1', 'NULL', '1'], 'null'), -- another epoch: refused
('crid_registry_guard()', '{}', '0A000'), -- a PL/pgSQL trigger function: only called as a trigger
-- Snowflake node leases: a leasing server's take (arguments out of range are
-- refused before any row is read), the lease table's continuity, its trigger
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY['NULL', $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, 'NULL', $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, 'NULL', $$'bad input'$$, '0', '30000', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, 'NULL', '0', '30000', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, 'NULL', '30000', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', 'NULL', '36000', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', 'NULL', '16'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', 'NULL'], '22004'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{901}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{-1}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{65536}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900,901}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '0', '36000', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '-1', '16'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '0'], '22023'),
('crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)', ARRAY[$$'{900}'$$, $$'{900}'$$, $$'bad input'$$, $$'bad input'$$, '0', '30000', '36000', '1001'], '22023'),
('crid_node_lease_since(text)', ARRAY['NULL'], 'ok'), -- the lease table unchanged: since when the registry vouches for it
('crid_node_lease_guard()', '{}', '0A000'), -- a PL/pgSQL trigger function: only called as a trigger
-- Statements on registry tables: registry tables only (42809), as their owner
('crid_registry_identity(regclass)', ARRAY['NULL'], '22004'),
('crid_registry_identity(regclass)', ARRAY['crid_registry_table()'], 'ok'),
('crid_registry_identity(regclass)', ARRAY[$$'pg_class'$$], '42809'),
('crid_registry_identity(regclass)', ARRAY['4294967295'], '42P01'), -- no such relation
('crid_registry_newest(regclass)', ARRAY['NULL'], '22004'),
('crid_registry_newest(regclass)', ARRAY['crid_registry_table()'], 'ok'),
('crid_registry_newest(regclass)', ARRAY[$$'pg_class'$$], '42809'),
('crid_registry_upsert(regclass, bigint, bigint, bigint)', ARRAY['NULL', '1', '1', 'NULL'], '22004'),
('crid_registry_upsert(regclass, bigint, bigint, bigint)', ARRAY['crid_registry_table()', 'NULL', '1', 'NULL'], '22004'),
('crid_registry_upsert(regclass, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '1', 'NULL', 'NULL'], '22004'),
('crid_registry_upsert(regclass, bigint, bigint, bigint)', ARRAY['crid_registry_table()', '12345', '1', 'NULL'], 'ok'), -- a long past second
('crid_registry_upsert(regclass, bigint, bigint, bigint)', ARRAY[$$'pg_class'$$, '1', '1', 'NULL'], '42809'),
('crid_registry_next_seq(regclass, bigint)', ARRAY['NULL', '1'], '22004'),
('crid_registry_next_seq(regclass, bigint)', ARRAY['crid_registry_table()', 'NULL'], '22004'),
('crid_registry_next_seq(regclass, bigint)', ARRAY['crid_registry_table()', '(SELECT max(ts) FROM crid_allocations)'], 'ok'),
('crid_registry_next_seq(regclass, bigint)', ARRAY['crid_registry_table()', '-1'], 'null'), -- no row
('crid_registry_next_seq(regclass, bigint)', ARRAY[$$'pg_class'$$, '1'], '42809'),
('crid_registry_evict(regclass, bigint)', ARRAY['NULL', '0'], '22004'),
('crid_registry_evict(regclass, bigint)', ARRAY['crid_registry_table()', 'NULL'], '22004'),
('crid_registry_evict(regclass, bigint)', ARRAY['crid_registry_table()', '0'], 'ok'),
('crid_registry_evict(regclass, bigint)', ARRAY[$$'pg_class'$$, '0'], '42809'),
-- Multi-writer replication: crid's own tables, and what crid_check() sees
('crid_own_tables()', '{}', 'ok'),
('crid_check()', '{}', 'ok'),
('crid_publication_fix(oid)', ARRAY['NULL'], '22004'),
('crid_publication_fix(oid)', ARRAY['0'], 'null'), -- no such publication
('crid_publication_fix(oid)', ARRAY[$$(SELECT oid FROM pg_class WHERE relname = 'pg_class')$$], 'null'),
('crid_local_only()', '{}', '0A000'), -- a PL/pgSQL trigger function: only called as a trigger
('crid_replication_warning()', '{}', '0A000'), -- an event trigger function: only called as one
('crid_evicted_before(regclass)', ARRAY['NULL'], '22004'),
('crid_evicted_before(regclass)', ARRAY['crid_registry_table()'], 'ok'),
('crid_record_eviction(regclass, bigint)', ARRAY['NULL', '0'], '22004'),
('crid_record_eviction(regclass, bigint)', ARRAY['crid_registry_table()', 'NULL'], '22004'),
('crid_record_eviction(regclass, bigint)', ARRAY['crid_registry_table()', '0'], 'ok'),
-- Ids for past times, snowflake: NULL is 22004, a field beyond its width
-- 22003, a time outside the layout 22008 (sql/snowflake_backfill.sql)
('snowflake_pack(timestamptz, integer, integer)', ARRAY['NULL', '1', '1'], '22004'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', 'NULL', '1'], '22004'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'infinity'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'-infinity'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'2025-12-31 23:59:59.999+00'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'2095-09-07 15:47:35.552+00'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'294276-12-31 23:59:59+00'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '1024', '1'], '22003'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '-2147483648', '1'], '22003'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '1', '4096'], '22003'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '1', '-1'], '22003'),
('snowflake_pack(timestamptz, integer, integer)', ARRAY['now()', '1000', '4095'], 'ok'), -- the backfill node
('snowflake_pack(timestamptz, integer, integer)', ARRAY[$$'2095-09-07 15:47:35.551+00'$$, '1023', '4095'], 'ok'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['NULL', '1', '1', '0'], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', 'NULL', '1', '0'], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', '1', 'NULL', '0'], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', '1', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', '1', '1', '1'], '22003'), -- no gene bits here
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', '1', '1', '-1'], '22003'),
('snowflake_pack(timestamptz, integer, integer, integer)', ARRAY['now()', '1', '1', '0'], 'ok'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['NULL', '1', '1', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', 'NULL', '1', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', 'NULL', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', '1', $$'mars'$$], '22023'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', '1', $$''$$], '22023'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', '1', $$repeat('x', 100000)$$], '22023'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY[$$'2010-11-04 01:42:54.656+00'$$, '1', '1', $$'twitter'$$], '22008'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '8192', '1', $$'instagram'$$], '22003'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '1', '256', $$'sonyflake'$$], '22003'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY['now()', '65535', '255', $$'sonyflake'$$], 'ok'),
('snowflake_pack(timestamptz, integer, integer, text)', ARRAY[$$'2080-07-10 17:30:30.208+00'$$, '1023', '4095', $$'twitter'$$], 'ok'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['NULL', '1', '1', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', 'NULL', '1', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', 'NULL', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', '1', 'NULL', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', '1', '0', 'NULL'], '22004'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', '1', '16', $$'epoch=2020-01-01,node=8,sequence=12,gene=4'$$], '22003'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', '1', '15', $$'epoch=2020-01-01,node=8,sequence=12,gene=4'$$], 'ok'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY['now()', '1', '1', '0', $$'gene=4'$$], '22023'),
('snowflake_pack(timestamptz, integer, integer, integer, text)', ARRAY[$$'infinity'$$, '1', '1', '0', $$'twitter'$$], '22008'),
-- ... and with node and sequence bigint (a row number): the same checks
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['NULL', '1', '1'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', 'NULL', '1'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY[$$'infinity'$$, '1', '1'], '22008'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1024', '1'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '9223372036854775807', '1'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1', '4096'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1', '5000000000'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1', '-9223372036854775808'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint)', ARRAY['now()', '1000', '4095'], 'ok'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['NULL', '1', '1', '0'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', 'NULL', '1', '0'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', '1', 'NULL', '0'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', '1', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', '1', '4294967296', '0'], '22003'),
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', '1', '1', '1'], '22003'), -- no gene bits here
('snowflake_pack(timestamptz, bigint, bigint, integer)', ARRAY['now()', '1', '1', '0'], 'ok'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['NULL', '1', '1', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', 'NULL', '1', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '1', 'NULL', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '1', '1', 'NULL'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '1', '1', $$'mars'$$], '22023'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '1', '256', $$'sonyflake'$$], '22003'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '-1', '1', $$'sonyflake'$$], '22003'),
('snowflake_pack(timestamptz, bigint, bigint, text)', ARRAY['now()', '65535', '255', $$'sonyflake'$$], 'ok'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['NULL', '1', '1', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', 'NULL', '1', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', 'NULL', '0', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', '1', 'NULL', $$'twitter'$$], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', '1', '0', 'NULL'], '22004'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', '9223372036854775807', '0', $$'twitter'$$], '22003'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', '1', '16', $$'epoch=2020-01-01,node=8,sequence=12,gene=4'$$], '22003'),
('snowflake_pack(timestamptz, bigint, bigint, integer, text)', ARRAY['now()', '1', '1', '15', $$'epoch=2020-01-01,node=8,sequence=12,gene=4'$$], 'ok'),
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY['NULL', $$'id'$$, $$'t'$$, $$'p'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY[$$'pg_class'$$, 'NULL', $$'t'$$, $$'p'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, 'NULL', $$'p'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'t'$$, 'NULL'], '22004'),
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY[$$'pg_class'$$, $$'relname'$$, $$'t'$$, $$'p'$$], '42804'), -- not bigint
('snowflake_backfill_plan(regclass, name, name, text)', ARRAY[$$'pg_tables'$$, $$'x'$$, $$'t'$$, $$'p'$$], '42809'), -- a view
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY['NULL', $$'id'$$, $$'t'$$, $$'p'$$, '1', $$'crid'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, 'NULL', $$'t'$$, $$'p'$$, '1', $$'crid'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, 'NULL', $$'p'$$, '1', $$'crid'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'t'$$, 'NULL', '1', $$'crid'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'t'$$, $$'p'$$, 'NULL', $$'crid'$$], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'oid'$$, $$'t'$$, $$'p'$$, '1', 'NULL'], '22004'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'nope'$$, $$'t'$$, $$'p'$$, '1', $$'crid'$$], '42703'),
('snowflake_backfill_plan(regclass, name, name, text, integer, text)', ARRAY[$$'pg_class'$$, $$'relname'$$, $$'t'$$, $$'p'$$, '1', $$'mars'$$], '42804'), -- the table is checked first
-- Partitions by time (tables of every kind: sql/partitions.sql); NULL is
-- refused, and a table crid cannot partition by time before anything else
('crid_partition_step_unit(interval)', ARRAY['NULL'], 'null'),
('crid_partition_step_unit(interval)', ARRAY[$$'1 day'$$], 'ok'),
('crid_partition_step_unit(interval)', ARRAY[$$'1 week'$$], 'ok'),
('crid_partition_step_unit(interval)', ARRAY[$$'2 days'$$], '22023'),
('crid_partition_step_unit(interval)', ARRAY[$$'24 hours'$$], '22023'),
('crid_partition_step_unit(interval)', ARRAY[$$'-1 month'$$], '22023'),
('crid_partition_key(regclass, text, text)', ARRAY['NULL', 'NULL', 'NULL'], '22004'),
('crid_partition_key(regclass, text, text)', ARRAY[$$'pg_class'$$, 'NULL', 'NULL'], '42809'),
('crid_partition_key(regclass, text, text)', ARRAY[$$'pg_class'$$, $$'crid'$$, 'NULL'], '42809'),
('crid_partition_key(regclass, text, text)', ARRAY[$$'pg_class'$$, 'NULL', $$'twitter'$$], '42809'),
('crid_partition_key(regclass, text, text)', ARRAY['4294967295', 'NULL', 'NULL'], '42P01'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY['NULL', $$'crid'$$, 'NULL'], '22004'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, 'NULL', 'NULL'], '22004'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'snowflake'$$, 'NULL'], 'ok'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'snowflake'$$, $$'twitter'$$], 'ok'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'uuidv7'$$, 'NULL'], 'ok'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'crid'$$, $$'twitter'$$], '22023'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'ulid'$$, 'NULL'], '22023'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01 00:00:00.5+00'$$, $$'crid'$$, 'NULL'], '22023'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'infinity'$$, $$'crid'$$, 'NULL'], '22008'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'1900-01-01+00'$$, $$'crid'$$, 'NULL'], 'ok'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'3000-01-01+00'$$, $$'snowflake'$$, $$'twitter'$$], 'null'),
('crid_partition_first_id(timestamptz, text, text)', ARRAY[$$'2026-03-01+00'$$, $$'snowflake'$$, $$'discord'$$], '22023'), -- sign=true: the bound functions refuse it
('crid_partition_bounds(regclass)', ARRAY['NULL'], 'ok'), -- no partitions
('crid_partition_bounds(regclass)', ARRAY[$$'pg_class'$$], 'ok'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY['NULL', $$'1 day'$$, 'now()', 'now()', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, 'NULL', 'now()', 'now()', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'NULL', 'now()', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'now()', 'NULL', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'now()', 'now()', 'NULL', 'NULL', 'NULL'], '22004'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'now()', 'now()', '0', 'NULL', 'NULL'], '42809'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'now()', 'now()', '0', $$'crid'$$, 'NULL'], '42809'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 minute'$$, 'now()', 'now()', '0', 'NULL', 'NULL'], '22023'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'-infinity'$$, 'now()', '0', 'NULL', 'NULL'], '22008'),
('crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'now()', 'now()', '-1', 'NULL', 'NULL'], '22003'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY['NULL', $$'1 day'$$, '0', 'NULL', 'NULL'], '22004'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY[$$'pg_class'$$, 'NULL', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'NULL', 'NULL', 'NULL'], '22004'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, '0', 'NULL', 'NULL'], '42809'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, '0', $$'crid'$$, 'NULL'], '42809'),
('crid_partition_move_default(regclass, interval, integer, text, text)', ARRAY[$$'pg_class'$$, $$'90 minutes'$$, '0', 'NULL', 'NULL'], '22023'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY['NULL', 'now()', 'false', 'NULL', 'NULL'], '22004'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY[$$'pg_class'$$, 'NULL', 'false', 'NULL', 'NULL'], '22004'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY[$$'pg_class'$$, 'now()', 'NULL', 'NULL', 'NULL'], '22004'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY[$$'pg_class'$$, 'now()', 'false', 'NULL', 'NULL'], '42809'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY[$$'pg_class'$$, 'now()', 'true', $$'uuidv7'$$, 'NULL'], '42809'),
('crid_partition_retire(regclass, timestamptz, boolean, text, text)', ARRAY[$$'pg_class'$$, $$'infinity'$$, 'false', 'NULL', 'NULL'], '22008'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY['NULL', $$'1 day'$$, $$'1 day'$$, 'NULL', 'false', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, 'NULL', $$'1 day'$$, 'NULL', 'false', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, 'NULL', 'NULL', 'false', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'1 day'$$, 'NULL', 'false', '0', 'NULL', 'NULL'], '42809'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'1 day'$$, $$'30 days'$$, 'NULL', '0', 'NULL', 'NULL'], '22004'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'1 day'$$, $$'30 days'$$, 'false', 'NULL', 'NULL', 'NULL'], '22004'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'1 day'$$, $$'30 days'$$, 'false', '0', $$'crid'$$, 'NULL'], '42809'),
('crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text)', ARRAY[$$'pg_class'$$, $$'1 day'$$, $$'-1 day'$$, 'NULL', 'false', '0', 'NULL', 'NULL'], '22023');
\set ECHO all

-- What a call of `fn` with `args` did: 'ok', 'null', or its SQLSTATE.
CREATE FUNCTION regress.outcome(fn regprocedure, args text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    call text;
    is_null boolean;
BEGIN
    SELECT format('%s(%s)', p.oid::regproc,
                  coalesce(string_agg(format('(%s)::%s', a.expr, format_type((p.proargtypes::oid[])[a.n - 1], NULL)),
                                      ', ' ORDER BY a.n) FILTER (WHERE a.n IS NOT NULL), ''))
      INTO call
      FROM pg_proc p LEFT JOIN LATERAL unnest(args) WITH ORDINALITY AS a(expr, n) ON true
     WHERE p.oid = fn
     GROUP BY p.oid
    HAVING count(a.n) = p.pronargs;
    IF call IS NULL THEN
        RETURN format('%s arguments for %s', cardinality(args), fn);
    END IF;
    IF (SELECT prokind = 'p' FROM pg_proc WHERE oid = fn) THEN
        EXECUTE 'CALL ' || call; -- a procedure: no value, 'ok' when it returns
        RETURN 'ok';
    END IF;
    EXECUTE format('SELECT bool_and(r IS NULL) FROM (SELECT %s AS r) s', call) INTO is_null;
    RETURN CASE WHEN is_null THEN 'null' ELSE 'ok' END;
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;

-- Every row of a crid function that does not do what it says. (A row of a
-- name core has from PostgreSQL 17 or 18 on, uuidv7 or uuid_extract_*,
-- names core's function there, whose answers versions.sql checks.)
SELECT fn, args, expect, got
  FROM (SELECT b.*, regress.outcome(b.fn, b.args) AS got FROM regress.bad_input b
         WHERE EXISTS (SELECT FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
                        WHERE d.classid = 'pg_proc'::regclass AND d.objid = b.fn AND d.deptype = 'e')) r
 WHERE got IS DISTINCT FROM expect
 ORDER BY fn::text, args::text;

-- Every function of the extension (but support functions, which SQL cannot
-- call) without rows, or without a row passing NULL in one of its arguments.
WITH functions AS (
    SELECT p.oid, p.oid::regprocedure AS fn, p.pronargs
      FROM pg_proc p
      JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
      JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
     WHERE NOT 'internal'::regtype = ANY (p.proargtypes::oid[])
)
SELECT format('%s has no rows in regress.bad_input (sql/bad_input.sql): add them', fn) AS missing
  FROM functions f
 WHERE NOT EXISTS (SELECT FROM regress.bad_input b WHERE b.fn = f.oid)
UNION ALL
SELECT format('%s has no row in regress.bad_input (sql/bad_input.sql) with NULL as argument %s', fn, i)
  FROM functions f, generate_series(1, f.pronargs) i
 WHERE EXISTS (SELECT FROM regress.bad_input b WHERE b.fn = f.oid)
   AND NOT EXISTS (SELECT FROM regress.bad_input b WHERE b.fn = f.oid AND b.args[i] = 'NULL')
 ORDER BY 1;
