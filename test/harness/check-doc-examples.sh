#!/usr/bin/env bash
# Checks of make test that the examples of the README and docs/ print what
# they say: one "ok"/"not ok" line per example that shows its result (the
# forms are in doc-examples.pl), each run on a throwaway server with crid
# preloaded and the settings its block states, in UTC. A value of the clock
# or of chance ("-- e.g. ...") is checked for its shape; an example that
# cannot run as written is skipped with its reason ("# SKIP"). Fails when
# fewer than a floor of examples are checked exactly, so examples that lost
# their markup cannot pass unnoticed. Needs crid installed (make install).
#   check-doc-examples.sh [PAGE...]      README.md and docs/*.md by default
source "$(dirname "$0")/common.sh"
cd "$CRID_ROOT"

# Fewer examples checked exactly than this means the reader lost some (a
# form it no longer recognises, markup gone); raise it as examples are added.
floor=28

work=$(scratch_dir doc-examples)
data=
cleanup() { [ -z "$data" ] || stop_server "$data"; rm -rf "$work"; }
trap cleanup EXIT

pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(README.md docs/*.md)
mkdir "$work/blocks"
perl test/harness/doc-examples.pl extract "$work/blocks" "${pages[@]}" >"$work/skipped.log"
# The plan: a line for every example, run or skipped, and the floor's.
checks=$(perl -MJSON::PP -0777 -ne '$n += grep { $_->{check} } @{ decode_json($_)->{steps} }; END { print $n + 0 }' \
    "$work"/blocks/*/block.json)
plan $((checks + $(grep -c '# SKIP' "$work/skipped.log" || true) + 1))
cat "$work/skipped.log"

# One data directory made once, without crid preloaded (so it holds no
# high-water mark of a layout), with crid installed in every database an
# example runs in, so each block's registry is there when its server starts.
# Servers keep their sockets in $work.
bin=$(pg_bindir)
psql() { as_pg "$bin/psql" -X -q -h "$work" -p "$port" -U postgres "$@"; }
port=$(free_port 45400)
as_pg "$bin/initdb" -D "$work/template" -A trust -U postgres >/dev/null
data="$work/template"
start_server "$data" "$port" </dev/null
for db in $(perl -MJSON::PP -0777 -ne 'print decode_json($_)->{database}, "\n"' "$work"/blocks/*/block.json | sort -u); do
    [ "$db" = postgres ] || psql -c "CREATE DATABASE \"$db\""
    psql -d "$db" -c 'CREATE EXTENSION crid'
done
stop_server "$data"

# Each block on a server of its own: a fresh registry, high-water mark and
# layout. Generous timeouts: a loaded machine waits, it does not fail.
touch "$work/checked.log"
for block in "$work"/blocks/*/; do
    data="$work/server"
    as_pg rm -rf "$data"
    as_pg cp -a "$work/template" "$data"
    port=$(free_port 45400)
    {
        echo "shared_preload_libraries = 'crid'"
        echo "timezone = 'UTC'"
        echo "fsync = off"
        echo "crid.allocation_timeout = '10min'"
        perl -MJSON::PP -0777 -ne 'print "$_\n" for @{ decode_json($_)->{settings} }' "$block/block.json"
    } | start_server "$data" "$port"
    PSQL="$bin/psql" perl test/harness/doc-examples.pl run "$block" "$work" "$port" | tee -a "$work/checked.log"
    stop_server "$data"
    data=
done

exact=$(grep -c '^\(not \)\?ok - exact: ' "$work/checked.log" || true)
shape=$(grep -c '^\(not \)\?ok - shape: ' "$work/checked.log" || true)
skipped=$(grep -c '# SKIP' "$work/skipped.log" || true)
check "$exact examples checked exactly (at least $floor), $shape for their shape, $skipped skipped" \
    test "$exact" -ge "$floor"
grep -q '^not ok - ' "$work/checked.log" && checks_failed=1
checks_done
