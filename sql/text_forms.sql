-- Text forms of ids: branded base62 bigints, base62 / ULID / TypeID text of
-- UUIDs. The specifications' own vectors, order and round trips, and every
-- kind of bad text with its SQLSTATE and message.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;

-- Branded ids: prefix_ and 11 base62 digits (0-9A-Za-z), fixed width.
SELECT id_encode(0, 'ord') AS zero, id_encode(12345, 'ord') AS small,
       id_encode(9223372036854775807, 'ord') AS largest, id_encode(62) AS no_prefix,
       id_encode(1, 'sk_live') AS underscore_prefix;
SELECT id_decode('ord_000000003D7', 'ord') AS small, id_decode('AzL8n0Y58m7') AS largest;

-- Text order (byte order, COLLATE "C") is id order, and every id round-trips.
SELECT count(*) AS ids,
       count(*) FILTER (WHERE id_decode(t, 'ord') <> id) AS not_round_trip,
       count(*) FILTER (WHERE length(t) <> 15) AS other_width,
       bool_and(rank_by_text = rank_by_id) AS text_order_is_id_order
FROM (SELECT id, t, rank() OVER (ORDER BY t COLLATE "C") AS rank_by_text, rank() OVER (ORDER BY id) AS rank_by_id
      FROM (SELECT id, id_encode(id, 'ord') AS t
            FROM (SELECT (random() * 2 ^ (g % 63))::bigint AS id FROM generate_series(1, 20000) g) r) e) s;

-- UUIDs as 22 base62 digits: the largest UUID, RFC 9562's v7 example, order.
SELECT uuid_to_base62('ffffffff-ffff-ffff-ffff-ffffffffffff') AS largest,
       uuid_to_base62('00000000-0000-0000-0000-000000000000') AS nil,
       uuid_to_base62('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS rfc9562_a6;
SELECT base62_to_uuid('7n42DGM5Tflk9n8mt7Fhc7') AS largest, base62_to_uuid('02p5oQZoHTv0zeY5yG21K3') AS rfc9562_a6;
SELECT count(*) FILTER (WHERE base62_to_uuid(uuid_to_base62(u)) <> u) AS not_round_trip,
       bool_and(rank_by_text = rank_by_uuid) AS text_order_is_uuid_order
FROM (SELECT u, rank() OVER (ORDER BY uuid_to_base62(u) COLLATE "C") AS rank_by_text,
             rank() OVER (ORDER BY u) AS rank_by_uuid
      FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 20000)) g) s;

-- ULID (github.com/ulid/spec): its examples. 1469918176385 ms is "01ARYZ6S41",
-- the largest ULID is all ones, and ...VRZ + 1 = ...VS0.
SELECT left(uuid_to_ulid(uuid_timestamptz_to_v7(to_timestamp(1469918176.385), true)), 10) AS spec_time_prefix,
       replace(left(ulid_to_uuid('01ARYZ6S41TSV4RRFFQ69G5FAV')::text, 13), '-', '') = lpad(to_hex(1469918176385), 12, '0')
           AS spec_decode_time;
SELECT ulid_to_uuid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ') AS largest,
       uuid_to_ulid(ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV')) AS spec_example_round_trip,
       ulid_to_uuid('01BX5ZZKBKACTAV9WEVGEMMVRZ') AS vrz, ulid_to_uuid('01BX5ZZKBKACTAV9WEVGEMMVS0') AS vs0;
-- Case-insensitive; I and L read as 1, O as 0 (Crockford); U is refused.
SELECT ulid_to_uuid('01arz3ndektsv4rrffq69g5fav') = ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS lower_case,
       ulid_to_uuid('0IARZ3NDEKTSV4RRFFQ69G5FAV') = ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS i_is_1,
       ulid_to_uuid('0LARZ3NDEKTSV4RRFFQ69G5FAV') = ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS l_is_1,
       ulid_to_uuid('O1ARZ3NDEKTSV4RRFFQ69G5FAV') = ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAV') AS o_is_0;
SELECT uuid_to_ulid('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS rfc9562_a6;

-- TypeID (github.com/jetify-com/typeid, spec 0.3.0): every vector of valid.yml,
-- both ways.
SELECT name, typeid_to_uuid(t) = u::uuid AS decodes, uuid_to_typeid(p, u::uuid) = t AS encodes,
       typeid_to_uuid(t, p) = u::uuid AS decodes_with_prefix
FROM (VALUES ('nil', '00000000000000000000000000', '', '00000000-0000-0000-0000-000000000000'),
             ('one', '00000000000000000000000001', '', '00000000-0000-0000-0000-000000000001'),
             ('ten', '0000000000000000000000000a', '', '00000000-0000-0000-0000-00000000000a'),
             ('sixteen', '0000000000000000000000000g', '', '00000000-0000-0000-0000-000000000010'),
             ('thirty-two', '00000000000000000000000010', '', '00000000-0000-0000-0000-000000000020'),
             ('max-valid', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
             ('valid-alphabet', 'prefix_0123456789abcdefghjkmnpqrs', 'prefix', '0110c853-1d09-52d8-d73e-1194e95b5f19'),
             ('valid-uuidv7', 'prefix_01h455vb4pex5vsknk084sn02q', 'prefix', '01890a5d-ac96-774b-bcce-b302099a8057'),
             ('prefix-underscore', 'pre_fix_00000000000000000000000000', 'pre_fix', '00000000-0000-0000-0000-000000000000'))
     AS v(name, t, p, u);
-- Every string of invalid.yml is ERROR 22P02.
SELECT name, regress.sqlstate_of(format('SELECT typeid_to_uuid(%L)', t)) AS sqlstate
FROM (VALUES ('prefix-uppercase', 'PREFIX_00000000000000000000000000'),
             ('prefix-numeric', '12345_00000000000000000000000000'),
             ('prefix-period', 'pre.fix_00000000000000000000000000'),
             ('prefix-non-ascii', 'préfix_00000000000000000000000000'),
             ('prefix-spaces', '  prefix_00000000000000000000000000'),
             ('prefix-64-chars', 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000'),
             ('separator-empty-prefix', '_00000000000000000000000000'),
             ('separator-empty', '_'),
             ('suffix-short', 'prefix_1234567890123456789012345'),
             ('suffix-long', 'prefix_123456789012345678901234567'),
             ('suffix-spaces', 'prefix_1234567890123456789012345 '),
             ('suffix-uppercase', 'prefix_0123456789ABCDEFGHJKMNPQRS'),
             ('suffix-hyphens', 'prefix_123456789-123456789-123456'),
             ('suffix-wrong-alphabet', 'prefix_ooooooiiiiiiuuuuuuulllllll'),
             ('suffix-ambiguous-crockford', 'prefix_i23456789ol23456789oi23456'),
             ('suffix-hyphens-crockford', 'prefix_123456789-0123456789-0123456'),
             ('suffix-overflow', 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz'),
             ('prefix-underscore-start', '_prefix_00000000000000000000000000'),
             ('prefix-underscore-end', 'prefix__00000000000000000000000000'),
             ('empty', ''),
             ('prefix-empty', 'prefix_')) AS v(name, t);
-- The TypeID suffix is the ULID in lower case.
SELECT uuid_to_typeid('', u) = lower(uuid_to_ulid(u)) AS same_bits
FROM (VALUES ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid)) v(u);

-- Bad input, each named: wrong length, alphabet, overflow, prefix.
\set VERBOSITY terse
SELECT id_decode('ord_000000003D', 'ord');
SELECT id_decode('ord_000000003D!', 'ord');
SELECT id_decode('cus_000000003D7', 'ord');
SELECT id_decode('000000003D7', 'ord');
SELECT id_decode('ord_AzL8n0Y58m8', 'ord');
SELECT id_decode('zzzzzzzzzzz');
SELECT id_decode('ord_000000003D7', 'Ord');
SELECT id_encode(-1, 'ord');
SELECT id_encode(1, 'ord_');
SELECT id_encode(1, '2fa');
SELECT base62_to_uuid('7n42DGM5Tflk9n8mt7Fhc');
SELECT base62_to_uuid('7n42DGM5Tflk9n8mt7Fhc8');
SELECT base62_to_uuid('7n42DGM5Tflk9n8mt7Fh-7');
SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FA');
SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAU');
SELECT ulid_to_uuid('80000000000000000000000000');
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'post');
SELECT typeid_to_uuid('01h455vb4pex5vsknk084sn02q', 'post');
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q', 'Post');
SELECT uuid_to_typeid('User', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT uuid_to_typeid('user_', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT typeid_to_uuid(E'user_01h455vb4pex5vsknk084sn02\x01');
-- Characters are counted and shown as typed, not as UTF-8 bytes: eleven
-- characters with a fullwidth digit are eleven, the digit named at its place.
SELECT id_decode('ord_00000000３D7', 'ord');
SELECT id_decode('ord_000000003D7é', 'ord');
SELECT id_encode(1, 'é');
SELECT id_encode(1, 'café');
SELECT base62_to_uuid('7n42DGM5Tflk9n8mt7Fhcé');
SELECT ulid_to_uuid('01ARZ3NDEKTSV4RRFFQ69G5FAÜ');
SELECT typeid_to_uuid('üser_01h455vb4pex5vsknk084sn02q');
SELECT uuid_to_typeid('ü', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT id_decode(E'ord_\u202E000000003D', 'ord');
\set VERBOSITY default
SELECT regress.sqlstate_of($$SELECT id_decode('ord_00000000001', 'ord_')$$) AS bad_prefix_argument,
       regress.sqlstate_of($$SELECT id_decode('x', 'ord')$$) AS bad_text,
       regress.sqlstate_of($$SELECT id_encode(-5)$$) AS negative_id,
       regress.sqlstate_of($$SELECT ulid_to_uuid('U0000000000000000000000000')$$) AS ulid_u,
       regress.sqlstate_of($$SELECT base62_to_uuid('')$$) AS base62_empty;

-- STRICT: NULL in, NULL out; and the functions are IMMUTABLE STRICT PARALLEL SAFE.
SELECT id_encode(NULL, 'ord') IS NULL AS null_id, id_decode(NULL) IS NULL AS null_text,
       uuid_to_ulid(NULL) IS NULL AS null_uuid, typeid_to_uuid(NULL, 'user') IS NULL AS null_typeid;
SELECT proname, provolatile, proisstrict, proparallel
FROM pg_proc
WHERE proname IN ('id_encode', 'id_decode', 'uuid_to_base62', 'base62_to_uuid', 'uuid_to_ulid', 'ulid_to_uuid',
                  'uuid_to_typeid', 'typeid_to_uuid')
ORDER BY proname, pronargs;
