#!/usr/bin/env bash
# One PostgreSQL major's table for the report's "crid beside each major's own
# generators" section: per-id cost and primary-key leaf density of crid's
# uuid_generate_v7() (server-wide order, then order per backend) beside the
# major's own uuidv7() (core's on 18, crid's before) and gen_random_uuid(),
# all measured in this one run. Runs against PG_CONFIG's major: make bench
# runs it on this machine and, through test/harness/pg-root.sh, in the
# Debian root of 18. Prints a markdown block on stdout; BENCH_QUICK=1 uses
# tiny sizes (a smoke test of the script, not figures to read).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/report/00_helpers.sh"
export PGOPTIONS='-c client_min_messages=warning'
QUICK=${BENCH_QUICK:-0}

bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres\nmax_connections = 50'
version=$(bench_psql -Atq -c "SELECT split_part(current_setting('server_version'), ' ', 1)")
# Whose uuidv7() a call reaches: core's lives in pg_catalog.
uuidv7_owner=$(bench_psql -Atq -c "SELECT CASE WHEN 'uuidv7()'::regprocedure::oid < 16384 THEN 'core''s' ELSE 'crid''s' END")

n=$([ "$QUICK" = 1 ] && echo 20000 || echo 500000)
rounds=$([ "$QUICK" = 1 ] && echo 3 || echo 7)
# Per-id cost: crid's generator in both orders. crid.uuidv7_order is a
# reload setting, so each order is measured in its own run of the
# interleaved table, each with the others beside it again.
per_id() { # order -> lines "expression|ns|above the floor"
    bench_set "crid.uuidv7_order = '$1'"
    bench_psql -Atq -F'|' -f "$CRID_ROOT/test/bench/per_row.sql" \
        -c "SELECT expression, ns_per_row, minus_floor_ns
              FROM pg_temp.crid_bench_per_row(ARRAY['uuid_generate_v7()', 'uuidv7()', 'gen_random_uuid()', 'random()'], $n, $rounds)"
}
server=$(per_id server)
backend=$(per_id backend)
bench_set "crid.uuidv7_order = DEFAULT"

# Leaf density: four sessions insert at once through the column DEFAULT.
tx=$([ "$QUICK" = 1 ] && echo 20 || echo 1000) per_tx=100
script=$(mktemp "$BENCH_DIR/versions.XXXXXX.sql")
echo "INSERT INTO dens (payload) SELECT 1 FROM generate_series(1, $per_tx);" >"$script"
chmod 644 "$script"
density() { # expression -> "leaf density|index bytes per row"
    local got
    bench_psql -q -c "DROP TABLE IF EXISTS dens; CREATE TABLE dens (id uuid PRIMARY KEY DEFAULT $1, payload int)"
    bench_pgbench -n -c 4 -j 4 -t "$tx" -f "$script" >/dev/null
    got=$(bench_psql -Atq -F'|' -c "SELECT count(*) FROM dens")
    [ "$got" = $((4 * tx * per_tx)) ] || { echo "bench: $1: $got rows, not $((4 * tx * per_tx))" >&2; return 1; }
    bench_psql -Atq -F'|' -c "SELECT round(s.avg_leaf_density::numeric, 1), round(pg_relation_size('dens_pkey')::numeric / $got, 1)
                                FROM pgstatindex('dens_pkey') s"
}
d_crid=$(density 'uuid_generate_v7()')
d_core=$(density 'uuidv7()')
d_random=$(density 'gen_random_uuid()')
bench_psql -q -c "DROP TABLE dens"

# A table line of an expression measured in run $2 (the per-id output of
# one order), its ratios to uuidv7() and gen_random_uuid() of the same run.
# A figure the run lacks fails the line (awk would read it as 0).
row() { # label run expression density
    awk -F'|' -v l="$1" -v e="$3" -v d="${4%%|*}" -v b="${4##*|}" '
        $2 ~ /^[0-9]+(\.[0-9]+)?$/ { ns[$1] = $2; above[$1] = $3 }
        END { if (!(e in ns) || !(ns["uuidv7()"] > 0) || !(ns["gen_random_uuid()"] > 0)) {
                  printf "versions.sh: %s: no figure for %s, uuidv7() or gen_random_uuid() in the run\n", l, e > "/dev/stderr"
                  exit 1
              }
              printf "%s|%.1f|%.1f|%.2fx|%.2fx|%s|%s\n", l, ns[e], above[e], ns[e] / ns["uuidv7()"],
                     ns[e] / ns["gen_random_uuid()"], (d == "" ? "" : d "%"), b }' <<<"$2"
}
# The table is made whole before anything is printed: a line that fails
# leaves no table behind.
table=$({
    row '`uuid_generate_v7()`, server-wide order' "$server" 'uuid_generate_v7()' "$d_crid"
    row '`uuid_generate_v7()`, order per backend' "$backend" 'uuid_generate_v7()' ""
    row "\`uuidv7()\` ($uuidv7_owner)" "$server" 'uuidv7()' "$d_core"
    row '`gen_random_uuid()`' "$server" 'gen_random_uuid()' "$d_random"
} | md_table "generator|ns per id|ns above the floor|vs uuidv7()|vs gen_random_uuid()|leaf density|index bytes per row")
echo "### PostgreSQL $version"
echo
echo "\`uuidv7()\` is $uuidv7_owner here. Median of $rounds interleaved rounds of \`SELECT count(f()) FROM"
echo "generate_series(1, $n)\` (\`random()\` is the floor); leaf density of the primary key after four"
echo "pgbench sessions inserted $((4 * tx * per_tx)) rows at once through the column DEFAULT."
echo
echo "$table"
