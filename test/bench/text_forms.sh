#!/usr/bin/env bash
# Text forms benchmark: per-row cost of encoding a UUID as base62, ULID and
# TypeID beside uuid::text (uuid_out), and of decoding them beside
# text::uuid (uuid_in); the same for branded bigints beside bigint::text and
# text::bigint. Inputs are a million rows of a table. "*" is count(*) of
# that table, the floor; minus_floor_ns is what the expression itself costs.
# Goal: each codec within 2x of uuid::text / text::uuid.
# Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"
bench_server_start </dev/null

n=${N:-1000000}
bench_psql -q -c "DROP TABLE IF EXISTS bench_text; CREATE TABLE bench_text AS
    SELECT u, u::text AS t, uuid_to_base62(u) AS b62, uuid_to_ulid(u) AS ulid, uuid_to_typeid('user', u) AS tid,
           i, i::text AS it, id_encode(i, 'ord') AS brand
    FROM (SELECT uuid_generate_v7() AS u, (random() * 9e18)::bigint AS i FROM generate_series(1, $n)) g;" \
    -c "VACUUM ANALYZE bench_text"
table() {
    local title=$1
    shift
    local list
    list=$(printf "'%s'," "${@//\'/\'\'}")
    echo "$title"
    # The floor is count(*) of the same table.
    bench_psql -q -f "$(dirname "${BASH_SOURCE[0]}")/per_row.sql" \
        -c "SELECT * FROM pg_temp.crid_bench_source_per_row(ARRAY[${list%,}], 'bench_text', ${ROUNDS:-7}, '*')"
}
table "UUID to text (median of ${ROUNDS:-7} interleaved rounds over $n rows; vs_first = ratio to u::text)" \
    'u::text' 'uuid_to_base62(u)' 'uuid_to_ulid(u)' "uuid_to_typeid('user', u)"
table "Text to UUID (vs_first = ratio to t::uuid)" \
    't::uuid' 'base62_to_uuid(b62)' 'ulid_to_uuid(ulid)' 'typeid_to_uuid(tid)' "typeid_to_uuid(tid, 'user')"
table "Branded bigints (vs_first = ratio to i::text)" \
    'i::text' "id_encode(i, 'ord')" 'it::bigint' "id_decode(brand, 'ord')"
