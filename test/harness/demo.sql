-- What `make demo` shows: ids minted and decoded, and their public faces.
\pset footer off
SET timezone = 'UTC';
\echo '--- UUIDv7: minted, strictly increasing across the server, decoded'
SELECT u AS uuid_generate_v7, uuid_v7_to_timestamptz(u) AS decoded_time, uuid_extract_version(u) AS version
FROM (SELECT uuid_generate_v7() AS u FROM generate_series(1, 3)) s;
\echo '--- A backfill id for a past time, and a reproducible one for a key'
SELECT uuid_generate_v7('2024-05-06 07:08:09+00') AS at_a_time,
       uuid_generate_v7_deterministic('2024-05-06 07:08:09+00', 'order-1001'::text) AS deterministic;
\echo '--- A range scan boundary: the smallest UUIDv7 of a millisecond'
SELECT uuid_v7_floor(now() - interval '1 hour') AS one_hour_ago_floor;
\echo '--- Snowflake: 64-bit ids of node 1 (crid.node_id), decoded'
SELECT id AS snowflake_next, p.*
FROM (SELECT snowflake_next() AS id FROM generate_series(1, 3)) s, LATERAL snowflake_parse(id) p;
\echo '--- Decoding ids of other systems: Discord''s documented example'
SELECT * FROM snowflake_parse(175928847299117063, 'discord');
\echo '--- crid: 63-bit ids from blocks reserved in the registry table crid_allocations'
SELECT id AS crid_next, p.* FROM (SELECT crid_next() AS id FROM generate_series(1, 3)) s, LATERAL crid_parse(id) p;
SELECT * FROM crid_allocations ORDER BY ts DESC LIMIT 3;
\echo '--- Public ids: faces that hide time and volume, made with key 1 (its secret stays in the server)'
SELECT crid_public_id_key_create(current_user::regrole, note => 'make demo') AS key_id \gset
SELECT id AS crid_id, crid_mask(id, :key_id) AS face, crid_mask_sqid(id, :key_id, 'ord') AS sqid,
       crid_unmask_sqid(crid_mask_sqid(id, :key_id, 'ord'), :key_id, 'ord') = id AS decodes_back
FROM (SELECT crid_next() AS id FROM generate_series(1, 3)) s;
SELECT u AS uuidv7, crid_mask(u, :key_id) AS uuidv47_face FROM (SELECT uuid_generate_v7() AS u FROM generate_series(1, 2)) s;
