#!/usr/bin/env bash
# Builds and installs uuid47, the PostgreSQL extension of the UUIDv47
# reference implementation (github.com/stateless-me/uuidv47, pgext/uuid47),
# so that a benchmark can time crid's UUIDv47 faces beside it on one server.
#
# CRID_UUIDV47_SRC names a checkout of stateless-me/uuidv47 (or a tree
# extracted from one). Without it the script exits 3 and nothing is built: the
# benchmark then goes without the reference. The checkout is only read: its
# uuidv47.h and pgext/uuid47 are copied to a scratch folder and built there
# with PGXS, against $PG_CONFIG, or the pg_config on PATH when that is unset,
# and installed into that PostgreSQL under the install lock the other builds
# of this machine take (/tmp/crid-install.lock).
#
# No patch is applied. On PostgreSQL 15 (gcc 12) it builds with 12 warnings
# (declarations after statements, case fall-through in the header's SipHash,
# unused variables, a static function declared and never defined), none an
# error. Its Makefile's own CFLAGS (-O3 and a list of warnings) and
# PG_CPPFLAGS are set after PGXS's makefile is included, where PGXS has
# already fixed both with "override", so they have no effect: the module is
# built with PostgreSQL's flags (-O2), as crid is; uuid47_pg.c reaches the
# header by the relative "../../uuidv47.h", which is why the copy keeps the
# checkout's layout.
#
# What uuid47 offers, once CREATE EXTENSION uuid47 has run: a type uuid47
# holding the UUIDv7, and with the key set, for instance
#   SET uuid47.key = 'efcdab89674523011032547698badcfe';
# (32 hex digits, or two times 16 split by ':', of the 16 key bytes: k0 then
# k1, each little-endian, so this is the reference README's key
# k0 = 0x0123456789abcdef, k1 = 0xfedcba9876543210; see
# test/core/vectors/uuidv47/README.md):
#   face:  uuid47_to_uuid(id uuid47) -> uuid, also the cast uuid47::uuid
#          (uuid47's text output is the face as well);
#   back:  uuid_to_uuid47(face uuid) -> uuid47, also the cast uuid::uuid47
#          (a version-7 uuid passes unchanged, a version-4 one is decoded);
#          uuid47_as_v7(uuid47) -> uuid gives the UUIDv7 as a uuid;
#   with the key as an argument instead of the setting:
#          uuid47_to_uuid_with_key(uuid47, bytea) and
#          uuid_to_uuid47_with_key(uuid, bytea), the same 16 bytes.
# Per row, over a table of pre-made ids
#   CREATE TABLE u47_ids AS SELECT id, uuid47_to_uuid(id) AS face
#     FROM (SELECT uuid47_generate() AS id FROM generate_series(1, N)) s;
# encode is SELECT count(uuid47_to_uuid(id)) FROM u47_ids, decode
# SELECT count(uuid_to_uuid47(face)) FROM u47_ids, and the scan alone
# SELECT count(id) FROM u47_ids. The setting is parsed again on every call
# (uuid47 has no assign hook that keeps the parsed key), which the *_with_key
# forms avoid.
src=${CRID_UUIDV47_SRC:-}
if [ -z "$src" ]; then
    echo "CRID_UUIDV47_SRC not set: the reference uuid47 extension is not measured" >&2
    exit 3
fi
# PG_CONFIG as the caller set it, else the one on PATH; common.sh keeps it
# (its own default, Debian's PostgreSQL 15, only when there is neither).
if [ -z "${PG_CONFIG:-}" ]; then
    PG_CONFIG=$(command -v pg_config || true)
fi
source "$(dirname "$0")/common.sh"

if [ ! -f "$src/uuidv47.h" ] || [ ! -f "$src/pgext/uuid47/Makefile" ]; then
    echo "build-uuid47-reference: CRID_UUIDV47_SRC=$src is not a checkout of stateless-me/uuidv47 (no uuidv47.h and pgext/uuid47/Makefile)" >&2
    exit 2
fi
src=$(cd "$src" && pwd -P)

[ -x "$PG_CONFIG" ] || { echo "build-uuid47-reference: no pg_config at $PG_CONFIG" >&2; exit 2; }

commit=
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
    commit=" at $(git -C "$src" rev-parse HEAD)"
    git -C "$src" diff --quiet HEAD -- uuidv47.h pgext/uuid47 || commit+=" (with local changes)"
fi

build=$(mktemp -d -t crid-uuid47-reference.XXXXXX)
trap 'rm -rf "$build"' EXIT
mkdir -p "$build/pgext"
cp "$src/uuidv47.h" "$build/"
cp -R "$src/pgext/uuid47" "$build/pgext/"

log "building uuid47 from $src$commit against $("$PG_CONFIG" --version)"
make -C "$build/pgext/uuid47" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
if ! make -C "$build/pgext/uuid47" PG_CONFIG="$PG_CONFIG" >"$build/build.log" 2>&1; then
    cat "$build/build.log" >&2
    echo "build-uuid47-reference: the reference uuid47 extension does not build against $PG_CONFIG" >&2
    exit 1
fi
warnings=$(grep -c 'warning:' "$build/build.log" || true)
[ "$warnings" = 0 ] || log "uuid47 built with $warnings compiler warning(s), none an error"

as_root flock /tmp/crid-install.lock make -C "$build/pgext/uuid47" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
log "installed uuid47 into $("$PG_CONFIG" --pkglibdir) and $("$PG_CONFIG" --sharedir)/extension"
