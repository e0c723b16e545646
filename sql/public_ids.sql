-- Public ids: faces of UUIDv7 (UUIDv47), snowflake and crid ids (a keyed
-- permutation of 0 .. 2^63 - 1) and their Sqids text, with keys kept in
-- crid_public_id_keys. Reference vectors, round trips, queries by face,
-- rotation, and who may use and read a key.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
DROP ROLE IF EXISTS regress_api, regress_other, regress_key_admin, regress_writer;
RESET client_min_messages;
CREATE ROLE regress_api;
CREATE ROLE regress_other;
CREATE ROLE regress_key_admin;
GRANT USAGE ON SCHEMA regress TO regress_api, regress_other, regress_key_admin;

-- A key administrator: the table's owner grants what it takes. No role
-- below is a superuser.
GRANT SELECT, INSERT, UPDATE, DELETE ON crid_public_id_keys TO regress_key_admin;

-- The key of the UUIDv47 README's quick start, k0 = 0x0123456789abcdef and
-- k1 = 0xfedcba9876543210, as 16 bytes (each half little-endian). Tests
-- type keys; docs/public-ids.md says how to bring one in without typing it.
SET ROLE regress_key_admin;
INSERT INTO crid_public_id_keys (key_id, secret, usable_by, note)
VALUES (1, '\xefcdab89674523011032547698badcfe', 'regress_api', 'the UUIDv47 README key');
SELECT crid_public_id_key_create('regress_api', 2) AS random_key;
SELECT key_id, octet_length(secret) AS secret_bytes, usable_by FROM crid_public_id_keys WHERE key_id IN (1, 2) ORDER BY key_id;
RESET ROLE;

SET ROLE regress_api;
-- UUIDv47: the README's example and two of the reference's vectors
-- (test/core/vectors/uuidv47 has all 208, checked by the core tests).
SELECT crid_mask('00000000-0000-7000-8000-000000000000'::uuid, 1) AS readme,
       crid_mask('ffffffff-ffff-7fff-bfff-ffffffffffff'::uuid, 1) AS largest,
       crid_mask('8c14114f-53d7-7e5e-ac00-f0d6f6e38a0d'::uuid, 1) AS random;
SELECT crid_unmask('22d97126-9609-4000-8000-000000000000'::uuid, 1) AS readme;
-- A face says version 4, keeps the random bits, and hides the time.
SELECT uuid_extract_version(f) AS version, substr(f::text, 16) = substr(u::text, 16) AS same_random_bits,
       crid_unmask(f, 1) = u AS round_trip
  FROM (SELECT u, crid_mask(u, 1) AS f FROM (VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid)) v(u)) s;

-- 63-bit faces: pinned (a change of the construction would change every
-- face handed out), in range, and a bijection on what they touch.
SELECT crid_mask(0::bigint, 1) AS zero, crid_mask(1::bigint, 1) AS one,
       crid_mask(9223372036854775807, 1) AS largest, crid_unmask(crid_mask(9223372036854775807, 1), 1) AS back;

-- Round trips: 300,000 ids of each family under two keys (TAP 047 makes a
-- million of each under many keys). Consecutive ids give faces in no order.
CREATE TEMP TABLE ids AS
SELECT g, uuid_generate_v7() AS u, snowflake_next(5) AS s, crid_next() AS c FROM generate_series(1, 300000) g;
SELECT k AS key_id,
       count(*) FILTER (WHERE crid_unmask(crid_mask(u, k), k) <> u) AS uuid_not_back,
       count(*) FILTER (WHERE crid_unmask(crid_mask(s, k), k) <> s) AS snowflake_not_back,
       count(*) FILTER (WHERE crid_unmask(crid_mask(c, k), k) <> c) AS crid_not_back,
       count(DISTINCT crid_mask(s, k)) = count(*) AS snowflake_faces_distinct,
       count(*) FILTER (WHERE crid_mask(c, k) < 0) AS negative_faces
  FROM ids, (VALUES (1), (2)) keys(k)
 GROUP BY k ORDER BY k;
-- Neighbours: about half of the faces of consecutive ids go down.
SELECT abs(avg((f < lag_f)::int) - 0.5) < 0.01 AS faces_unordered
  FROM (SELECT crid_mask(c, 1) AS f, lag(crid_mask(c, 1)) OVER (ORDER BY c) AS lag_f FROM ids) s
 WHERE lag_f IS NOT NULL;
-- Another key gives other faces; a face decoded with the wrong key gives
-- another id, silently (nothing in a face names its key).
SELECT count(*) FILTER (WHERE crid_mask(s, 1) = crid_mask(s, 2)) AS same_face_both_keys,
       count(*) FILTER (WHERE crid_unmask(crid_mask(s, 1), 2) = s) AS wrong_key_gives_the_id
  FROM ids;
RESET ROLE;

-- Bad input: each a clear ERROR with its SQLSTATE (bad_input.sql has the
-- whole matrix), never the key.
SET ROLE regress_api;
SELECT regress.error_of($$SELECT crid_mask(-1::bigint, 1)$$) AS negative_id;
SELECT regress.error_of($$SELECT crid_unmask(-5::bigint, 1)$$) AS negative_face;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, NULL)$$) AS null_key;
SELECT crid_mask(NULL::bigint, 1) IS NULL AS null_id_null_face, crid_unmask(NULL::uuid, 1) IS NULL AS null_face_null_id;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 99)$$) AS unknown_key;
SELECT regress.error_of($$SELECT crid_mask('f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid, 1)$$) AS v4_has_no_face;
SELECT regress.error_of($$SELECT crid_unmask('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid, 1)$$) AS v7_is_no_face;
SELECT regress.error_of($$SELECT crid_unmask('22d97126-9609-4000-0000-000000000000'::uuid, 1)$$) AS wrong_variant;
-- The key table is not the API role's to read, whatever it may compute.
SELECT regress.error_of($$SELECT secret FROM crid_public_id_keys$$) AS read_keys;
RESET ROLE;

-- Who may use a key: the members of its usable_by role, nobody else.
SET ROLE regress_other;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 1)$$) AS not_a_member;
SELECT regress.error_of($$SELECT crid_public_id_key_create('regress_other')$$) AS may_not_make_keys;
RESET ROLE;
GRANT regress_api TO regress_other;
SET ROLE regress_other;
SELECT crid_mask(1::bigint, 1) = crid_mask(1::bigint, 1) AS member_now;
RESET ROLE;
REVOKE regress_api FROM regress_other;
SET ROLE regress_other;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 1)$$) AS revoked_again;
RESET ROLE;

-- A key's secret never changes (rotation is a new key id), and errors about
-- key rows name the key id only, never the secret.
SET ROLE regress_key_admin;
SELECT regress.error_of($$UPDATE crid_public_id_keys SET secret = '\x00000000000000000000000000000000' WHERE key_id = 1$$) AS secret_change;
SELECT regress.error_of($$UPDATE crid_public_id_keys SET key_id = 7 WHERE key_id = 1$$) AS id_change;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, secret, usable_by) VALUES (3, '\x0102', 'regress_api')$$) AS short_secret;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (3, NULL)$$) AS no_role;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (NULL, 'regress_api')$$) AS no_key_id;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (1, 'regress_api')$$) AS taken_key_id;
-- usable_by may change, and takes effect at once, in this backend too.
UPDATE crid_public_id_keys SET usable_by = 'regress_other' WHERE key_id = 2;
RESET ROLE;
SET ROLE regress_api;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 2)$$) AS key_2_moved;
RESET ROLE;
SET ROLE regress_key_admin;
UPDATE crid_public_id_keys SET usable_by = 'regress_api' WHERE key_id = 2;
RESET ROLE;

-- Queries by face: the key's constant face folds at plan time, so the
-- lookup is an index condition on the primary key and the decode runs once.
CREATE TABLE pid_orders (id bigint PRIMARY KEY DEFAULT crid_next(), u uuid UNIQUE DEFAULT uuid_generate_v7(), total int);
INSERT INTO pid_orders (total) SELECT g FROM generate_series(1, 2000) g;
GRANT SELECT ON pid_orders TO regress_api;
ANALYZE pid_orders;
SET ROLE regress_api;
EXPLAIN (COSTS OFF) SELECT total FROM pid_orders WHERE id = crid_unmask(4242::bigint, 1);
EXPLAIN (COSTS OFF) SELECT total FROM pid_orders WHERE u = crid_unmask('22d97126-9609-4000-8000-000000000000'::uuid, 1);
-- With a parameter (an API's prepared statement), the index still serves it.
PREPARE by_face(bigint) AS SELECT total FROM pid_orders WHERE id = crid_unmask($1, 1);
EXPLAIN (COSTS OFF) EXECUTE by_face(4242);
SELECT count(*) AS found_by_face
  FROM pid_orders o WHERE (SELECT total FROM pid_orders WHERE id = crid_unmask(crid_mask(o.id, 1), 1)) = o.total;
DEALLOCATE by_face;
RESET ROLE;

-- The recipe: the table keeps its ordered key, a view shows the face.
CREATE VIEW pid_orders_public AS SELECT crid_mask(id, 1) AS id, total FROM pid_orders;
GRANT SELECT ON pid_orders_public TO regress_api;
SET ROLE regress_api;
SELECT count(*) = 2000 AS all_shown, count(DISTINCT id) = 2000 AS distinct_faces,
       bool_and(id >= 0) AS faces_not_negative FROM pid_orders_public;
RESET ROLE;
-- Faces taken back where the view shows them: a SQL function that decodes
-- first, inlined, so the lookup is the primary key's index.
CREATE FUNCTION pid_orders_public_by_id(face bigint) RETURNS SETOF pid_orders_public
    LANGUAGE sql STABLE
    AS $$ SELECT crid_mask(id, 1), total FROM pid_orders WHERE id = crid_unmask(face, 1) $$;
SET ROLE regress_api;
EXPLAIN (COSTS OFF) SELECT * FROM pid_orders_public_by_id(4242);
SELECT count(*) AS found_through_the_view
  FROM pid_orders_public v WHERE (SELECT total FROM pid_orders_public_by_id(v.id)) = v.total;
RESET ROLE;
-- A generated column (IMMUTABLE given the key) stores the face too.
ALTER TABLE pid_orders ADD COLUMN face bigint GENERATED ALWAYS AS (crid_mask(id, 1)) STORED;
SELECT count(*) FILTER (WHERE crid_unmask(face, 1) <> id) AS generated_not_back FROM pid_orders;

-- Rotation: a new key id for new faces; old faces decode with their key id.
SET ROLE regress_key_admin;
SELECT crid_public_id_key_create('regress_api', 3, 'rotated') AS new_key;
RESET ROLE;
SET ROLE regress_api;
SELECT crid_unmask(crid_mask(12345::bigint, 1), 1) AS old_face_old_key,
       crid_unmask(crid_mask(12345::bigint, 3), 3) AS new_face_new_key;
RESET ROLE;
-- Retiring a key wipes its secret and keeps its row: every face of it is
-- gone, in this backend at once, and its id is never made again. A key is
-- never deleted, the table never truncated (a key id stands for one secret
-- forever: faces stored in generated columns and indexes rely on it).
SET ROLE regress_api;
PREPARE folded AS SELECT crid_mask(12345::bigint, 3) IS NOT NULL AS folded_face;
EXECUTE folded;
RESET ROLE;
SET ROLE regress_key_admin;
UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = 3;
SELECT key_id, secret IS NULL AS secret_wiped, retired_at IS NOT NULL AS retired FROM crid_public_id_keys WHERE key_id = 3;
RESET ROLE;
SET ROLE regress_api;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 3)$$) AS retired_key;
-- A plan that folded a face of the key is made again, and refuses too.
SELECT regress.error_of('EXECUTE folded') AS folded_plan_of_retired_key;
DEALLOCATE folded;
RESET ROLE;
SET ROLE regress_key_admin;
SELECT regress.error_of($$UPDATE crid_public_id_keys SET retired_at = NULL WHERE key_id = 3$$) AS unretire;
SELECT regress.error_of($$DELETE FROM crid_public_id_keys WHERE key_id = 3$$) AS delete_key;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (3, 'regress_api')$$) AS make_id_again;
-- A retired key's row, as a restore of a dump brings it, keeps no secret.
INSERT INTO crid_public_id_keys (key_id, secret, usable_by, retired_at)
VALUES (4, '\x000102030405060708090a0b0c0d0e0f', 'regress_api', now());
SELECT key_id, secret IS NULL AS secret_wiped FROM crid_public_id_keys WHERE key_id = 4;
SELECT crid_public_id_key_create('regress_api') > 4 AS next_id_above_retired;
RESET ROLE;
SELECT regress.error_of('TRUNCATE crid_public_id_keys') AS truncate_keys;

-- Short text: the 63-bit face as Sqids of its high 31 and low 32 bits (npm's
-- sqids reads both back exactly; TAP 047 checks crid's text against it).
SET ROLE regress_api;
SELECT crid_mask_sqid(12345, 1) AS sqid, crid_mask_sqid(12345, 1, 'ord') AS branded,
       crid_mask_sqid(12345, 1, min_length => 24) AS padded,
       crid_mask_sqid(12345, 1, alphabet => '0123456789abcdef') AS hex_alphabet;
SELECT crid_unmask_sqid('ord_' || crid_mask_sqid(12345, 1), 1, 'ord') AS branded_back,
       crid_unmask_sqid(crid_mask_sqid(12345, 1, min_length => 24), 1, min_length => 24) AS padded_back;
SELECT count(*) FILTER (WHERE crid_unmask_sqid(crid_mask_sqid(c, 1, 'ord'), 1, 'ord') <> c) AS not_back,
       count(DISTINCT crid_mask_sqid(c, 1)) = count(*) AS distinct_text,
       max(length(crid_mask_sqid(c, 1))) AS longest
  FROM ids;
-- Options computed per row: each row's own alphabet, never the last row's.
SELECT a, crid_unmask_sqid(crid_mask_sqid(12345, 1, alphabet => a), 1, alphabet => a) AS back,
       crid_mask_sqid(12345, 1, alphabet => a) = crid_mask_sqid(12345, 1, alphabet => a || '') AS same_text
  FROM (SELECT repeat(x, 1) AS a FROM (VALUES ('0123456789abcdef'), ('fedcba9876543210'), ('abcdefghijk')) v(x)) s;
SELECT count(DISTINCT crid_mask_sqid(12345, 1, alphabet => a)) AS distinct_texts
  FROM (SELECT repeat(x, 1) AS a FROM (VALUES ('0123456789abcdef'), ('fedcba9876543210'), ('abcdefghijk')) v(x)) s;
-- A blocklist keeps its words out (here the id's own text, lower-cased).
SELECT crid_mask_sqid(12345, 1, blocklist => ARRAY[lower(crid_mask_sqid(12345, 1))]) <> crid_mask_sqid(12345, 1) AS regenerated;
-- Only the spelling crid_mask_sqid makes decodes: another first character,
-- trailing characters, padding that was not asked for, a foreign character.
SELECT regress.error_of($$SELECT crid_unmask_sqid('x' || crid_mask_sqid(12345, 1), 1)$$) LIKE '22P02:%' AS leading_junk,
       regress.error_of($$SELECT crid_unmask_sqid(crid_mask_sqid(12345, 1) || 'a', 1)$$) LIKE '22P02:%' AS trailing_junk,
       regress.error_of($$SELECT crid_unmask_sqid(crid_mask_sqid(12345, 1, min_length => 24), 1)$$) LIKE '22P02:%' AS unasked_padding;
SELECT regress.error_of($$SELECT crid_unmask_sqid('abc-def', 1)$$) AS foreign_character;
SELECT regress.error_of($$SELECT crid_unmask_sqid('', 1)$$) AS empty;
SELECT regress.error_of($$SELECT crid_unmask_sqid('ord_' || crid_mask_sqid(12345, 1), 1, 'inv')$$) AS other_brand;
SELECT regress.error_of($$SELECT crid_mask_sqid(1, 1, alphabet => 'ab')$$) AS short_alphabet;
SELECT regress.error_of($$SELECT crid_mask_sqid(1, 1, min_length => 256)$$) AS long_min_length;
SELECT regress.error_of($$SELECT crid_mask_sqid(1, 1, 'Ord')$$) AS bad_prefix;
SELECT regress.error_of($$SELECT crid_mask_sqid(1, 1, blocklist => ARRAY['abc', NULL])$$) AS null_word;
SELECT regress.error_of($$SELECT crid_mask_sqid(-1, 1)$$) AS negative_id;
-- Sqids of [2^31, 5], which no face is (a face's high number is below 2^31).
SELECT regress.error_of(format('SELECT crid_unmask_sqid(%L, 1)', 'Ksv6ROk5d')) AS not_a_face;
RESET ROLE;

-- No role gains a key through a plan: a plan that folded a face is made
-- again for another role, or after a REVOKE, as that role.
GRANT regress_api TO regress_other;
SET ROLE regress_other;
PREPARE member_face AS SELECT crid_mask(1::bigint, 1) IS NOT NULL AS folded_as_member;
EXECUTE member_face;
RESET ROLE;
REVOKE regress_api FROM regress_other;
SET ROLE regress_other;
SELECT regress.error_of('EXECUTE member_face') AS folded_before_the_revoke;
DEALLOCATE member_face;
RESET ROLE;
-- A SECURITY DEFINER function compares with a face of its owner's key
-- without handing it out: the caller, calling the inner function itself
-- (its plan cached by the definer's call, same search_path), is refused.
CREATE FUNCTION regress.pid_face_of_one() RETURNS bigint LANGUAGE plpgsql
    AS $$ BEGIN RETURN crid_mask(1::bigint, 1); END $$;
CREATE FUNCTION regress.pid_is_face_of_one(face bigint) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public AS $$ BEGIN RETURN face = regress.pid_face_of_one(); END $$;
ALTER FUNCTION regress.pid_face_of_one() OWNER TO regress_api;
ALTER FUNCTION regress.pid_is_face_of_one(bigint) OWNER TO regress_api;
SET ROLE regress_other;
SET search_path = pg_catalog, public;
SELECT regress.pid_is_face_of_one(5) AS definer_compares;
SELECT regress.error_of('SELECT regress.pid_face_of_one()') AS definer_face_not_handed_on;
SELECT regress.error_of('SELECT regress.pid_is_face_of_one(5), regress.pid_face_of_one()') AS nor_in_one_statement;
RESET search_path;
RESET ROLE;
DROP FUNCTION regress.pid_is_face_of_one(bigint), regress.pid_face_of_one();
-- An IMMUTABLE function folded at plan time may run the plan it cached for
-- its face instead of using the key again: the plan that folded it is made
-- again for another role too.
CREATE FUNCTION regress.pid_inner_face() RETURNS bigint LANGUAGE plpgsql IMMUTABLE
    AS $$ BEGIN RETURN crid_mask(1::bigint, 1); END $$;
SET ROLE regress_api;
SELECT regress.pid_inner_face() IS NOT NULL AS inner_plan_cached;
PREPARE outer_face AS SELECT regress.pid_inner_face() IS NOT NULL AS folded_from_a_cached_plan;
EXECUTE outer_face;
RESET ROLE;
SET ROLE regress_other;
SELECT regress.error_of('EXECUTE outer_face') AS cached_inner_plan;
RESET ROLE;
DEALLOCATE outer_face;
-- A function folded at plan time that catches an ERROR of its own keeps
-- the mark of the face folded before it.
CREATE FUNCTION regress.pid_swallow() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    BEGIN
        PERFORM 1 / 0;
    EXCEPTION WHEN division_by_zero THEN
        NULL;
    END;
    RETURN 0;
END $$;
SET ROLE regress_api;
PREPARE swallowed AS SELECT crid_mask(1::bigint, 1) IS NOT NULL AS folded, regress.pid_swallow() AS caught;
EXECUTE swallowed;
RESET ROLE;
SET ROLE regress_other;
SELECT regress.error_of('EXECUTE swallowed') AS error_caught_while_planning;
RESET ROLE;
DEALLOCATE swallowed;
DROP FUNCTION regress.pid_inner_face(), regress.pid_swallow();

-- A key of pg_database_owner serves whoever owns the database now.
SET ROLE regress_key_admin;
SELECT crid_public_id_key_create('pg_database_owner', 60) AS owners_key;
RESET ROLE;
CREATE TEMP TABLE pid_owner AS SELECT datdba FROM pg_database WHERE datname = current_database();
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I OWNER TO regress_other', current_database()); END $$;
SET ROLE regress_other;
SELECT crid_mask(1::bigint, 60) IS NOT NULL AS database_owner_uses_it;
RESET ROLE;
DO $$ BEGIN
    EXECUTE format('ALTER DATABASE %I OWNER TO %I', current_database(),
                   (SELECT rolname FROM pg_roles WHERE oid = (SELECT datdba FROM pid_owner)));
END $$;
DROP TABLE pid_owner;
SET ROLE regress_other;
SELECT regress.error_of($$SELECT crid_mask(1::bigint, 60)$$) AS owner_no_more;
RESET ROLE;

-- Only key administrators write keys: pg_write_all_data, which writes
-- every table without reading it, may not move keys to itself, retire
-- them or add any.
CREATE ROLE regress_writer IN ROLE pg_write_all_data;
SET ROLE regress_writer;
SELECT regress.error_of($$UPDATE crid_public_id_keys SET usable_by = 'regress_writer'$$) AS writer_moves_keys;
SELECT regress.error_of($$UPDATE crid_public_id_keys SET retired_at = now()$$) AS writer_retires_keys;
SELECT regress.error_of($$INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (70, 'regress_writer')$$) AS writer_adds_a_key;
RESET ROLE;
SELECT count(*) AS writers_keys FROM crid_public_id_keys WHERE usable_by = 'regress_writer'::regrole;

-- A dump's keys restored into a table that holds them already: the rows
-- equal to a key are skipped (an error would quote the row, secret and
-- all, in COPY's context); a key id with another secret is refused.
SET ROLE regress_key_admin;
CREATE TEMP TABLE pid_dump AS SELECT * FROM crid_public_id_keys;
INSERT INTO crid_public_id_keys SELECT * FROM pid_dump;
SELECT (SELECT count(*) FROM crid_public_id_keys) = (SELECT count(*) FROM pid_dump) AS restored_twice_unchanged;
UPDATE pid_dump SET secret = '\x000102030405060708090a0b0c0d0e0f' WHERE key_id = 1;
SELECT regress.sqlstate_of($$INSERT INTO crid_public_id_keys SELECT * FROM pid_dump WHERE key_id = 1$$) AS other_secret_same_id;
DROP TABLE pid_dump;
RESET ROLE;

DROP TABLE pid_orders CASCADE;
DROP TABLE ids;
REVOKE ALL ON crid_public_id_keys FROM regress_key_admin;
REVOKE USAGE ON SCHEMA regress FROM regress_api, regress_other, regress_key_admin;
DROP ROLE regress_api, regress_other, regress_key_admin, regress_writer;
-- Keys whose role is gone serve superusers only; crid_check() names them
-- to their administrators.
SELECT problem, object FROM crid_check() WHERE problem = 'key_role_dropped' ORDER BY object;
