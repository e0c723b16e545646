#!/usr/bin/env bash
# Public ids: per-row cost of each face and its inverse (crid_mask,
# crid_unmask, the Sqids text) beside one UUIDv7 mint, uuid_generate_v7()
# (vs_first is the ratio to it), over a table of pre-made ids whose scan
# alone is the floor. With CRID_UUIDV47_SRC naming a checkout of
# stateless-me/uuidv47, the reference's own extension (uuid47, built from
# that source) is measured in the same run: its face and inverse with the
# key set by its setting, and with the key as an argument. Asserts nothing.
source "$(dirname "$0")/lib.sh"
reference=0
if [ -n "${CRID_UUIDV47_SRC:-}" ]; then
    "$CRID_ROOT/test/harness/build-uuid47-reference.sh" >/dev/null
    reference=1
fi
bench_server_start </dev/null
n=${N:-1000000}
# The bench types a key (the UUIDv47 README's); docs/public-ids.md says how
# a server makes or takes one without typing it.
bench_psql -q <<SQL
SET client_min_messages = warning;
DELETE FROM crid_public_id_keys WHERE key_id = 1;
INSERT INTO crid_public_id_keys (key_id, secret, usable_by)
VALUES (1, '\xefcdab89674523011032547698badcfe', current_user::regrole);
DROP TABLE IF EXISTS pid;
CREATE TABLE pid AS
SELECT u, crid_mask(u, 1) AS uf, s, crid_mask(s, 1) AS sf, crid_mask_sqid(s, 1) AS sq
  FROM (SELECT uuid_generate_v7() AS u, snowflake_next(1) AS s FROM generate_series(1, $n)) g;
VACUUM ANALYZE pid;
SQL
exprs=("'uuid_generate_v7()'" "'crid_mask(u, 1)'" "'crid_unmask(uf, 1)'" "'crid_mask(s, 1)'" "'crid_unmask(sf, 1)'"
       "'crid_mask_sqid(s, 1)'" "'crid_unmask_sqid(sq, 1)'")
set_key=""
if [ "$reference" = 1 ]; then
    bench_psql -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS uuid47" \
        -c "ALTER TABLE pid ADD COLUMN u47 uuid47" -c "UPDATE pid SET u47 = u::uuid47" -c "VACUUM ANALYZE pid"
    set_key="SET uuid47.key = 'efcdab89674523011032547698badcfe';"
    # The reference must make the same faces, or the comparison is moot.
    bench_psql -q -At -c "$set_key SELECT count(*) FROM pid WHERE uuid47_to_uuid(u47) <> uf" |
        grep -qx 0 || { echo "public_ids: uuid47's faces differ from crid's" >&2; exit 1; }
    exprs+=("'uuid47_to_uuid(u47)'" "'uuid_to_uuid47(uf)'"
            "'uuid47_to_uuid_with_key(u47, ''\\xefcdab89674523011032547698badcfe''::bytea)'"
            "'uuid_to_uuid47_with_key(uf, ''\\xefcdab89674523011032547698badcfe''::bytea)'")
fi
list=$(IFS=,; echo "${exprs[*]}")
echo "Public ids, cost per row (median of ${ROUNDS:-7} interleaved rounds over $n pre-made ids; vs_first = ratio to one UUIDv7 mint; the floor is the scan, count(u))"
bench_psql -q -c "$set_key" -f "$(dirname "$0")/per_row.sql" \
    -c "SELECT * FROM pg_temp.crid_bench_source_per_row(ARRAY[$list], 'pid', ${ROUNDS:-7}, 'u')"
[ "$reference" = 1 ] || echo "(the reference uuid47 is measured when CRID_UUIDV47_SRC names a checkout of stateless-me/uuidv47)"
