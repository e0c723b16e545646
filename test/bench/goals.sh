#!/usr/bin/env bash
# One PostgreSQL major's table for the report's "Per-id goals" section: each
# generator as a ratio to the empty loop `count(x)` (and snowflake_next() to
# nextval()), interleaved round by round on one server, and two sessions on
# one snowflake node as a share of the layout's cap. Ratios, never asserted;
# the load average is printed beside them, as the machine may be shared.
# Runs against PG_CONFIG's major: make bench runs it on this machine and,
# through test/harness/pg-root.sh, in the Debian roots of 17 and 18. Prints
# a markdown block on stdout; BENCH_QUICK=1 uses tiny sizes (a smoke test
# of the script, not figures to read).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/report/00_helpers.sh"
export PGOPTIONS='-c client_min_messages=warning'
QUICK=${BENCH_QUICK:-0}
# Two servers below, one build.
if [ "${BENCH_BUILT:-0}" != 1 ]; then
    ensure_packages
    build_and_install
    BENCH_BUILT=1
fi

n=$([ "$QUICK" = 1 ] && echo 20000 || echo 1000000)
rounds=$([ "$QUICK" = 1 ] && echo 3 || echo 7)
secs=$([ "$QUICK" = 1 ] && echo 1 || echo 8)
runs=$([ "$QUICK" = 1 ] && echo 1 || echo 3)

# "expression|ns" lines of one interleaved run over generate_series(1, n) x.
goals_per_row() {
    local list
    list=$(printf "'%s'," "${@//\'/\'\'}")
    bench_psql -Atq -F'|' -f "$CRID_ROOT/test/bench/per_row.sql" \
        -c "SELECT expression, ns_per_row FROM pg_temp.crid_bench_source_per_row(ARRAY[${list%,}], 'generate_series(1, $n) x', $rounds, 'x')"
}

# One goal's row: $1 label, $2 the run's lines, $3 the expression, $4 the
# one it is divided by, $5 the target. An expression the run has no figure
# for fails the row (awk would read it as 0 and print a ratio of 0 or inf).
ratio_row() {
    awk -F'|' -v label="$1" -v e="$3" -v base="$4" -v target="$5" '
        $2 ~ /^[0-9]+(\.[0-9]+)?$/ { ns[$1] = $2 }
        END {
            if (!(e in ns) || !(base in ns) || ns[base] == 0) {
                printf "goals.sh: %s: no figure for %s or %s in the run\n", label, e, base > "/dev/stderr"
                exit 1
            }
            printf "%s|%.1f ns vs %.1f ns|%.2fx|%s\n", label, ns[e], ns[base], ns[e] / ns[base], target }' <<<"$2"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres'
version=$(bench_psql -Atq -c "SELECT split_part(current_setting('server_version'), ' ', 1)")
bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, $([ "$QUICK" = 1 ] && echo 20000 || echo 3000000))" >/dev/null
server=$(goals_per_row "x" "crid_next()" "crid_next(5, 4)" "uuid_generate_v7()" "snowflake_next()" "nextval('bench_seq')")
bench_set "crid.uuidv7_order = 'backend'"
backend=$(goals_per_row "x" "uuid_generate_v7()")
bench_set "crid.uuidv7_order = DEFAULT"
# Two sessions on one node: the default layout's 12 sequence bits cap a
# node at 4,096 ids per ms.
seq_bits=$(bench_psql -Atq -c "SHOW crid.snowflake_sequence_bits")
cap=$((1000 << seq_bits))
twos=()
for r in $(seq 1 "$runs"); do
    twos+=("$(pgbench_ids_per_second "SELECT count(snowflake_next(1)) FROM generate_series(1, 20000);" 20000 2 "$secs")")
done
two=$(median "${twos[@]}")

# The same snowflake_next() where the cap cannot bind: 20 sequence bits
# (1,048,576 ids per ms), so the figure is its CPU cost alone.
bench_server_switch <<<$'crid.node_id = 1\ncrid.snowflake_node_bits = 4\ncrid.snowflake_sequence_bits = 20'
wide=$(goals_per_row "x" "snowflake_next()" "nextval('bench_seq')")

# The table is made whole before anything is printed: a row that fails
# leaves no table behind.
table=$({
    ratio_row "uuid_generate_v7(), server-wide order" "$server" "uuid_generate_v7()" x "at most 1.35x"
    ratio_row "uuid_generate_v7(), order per backend" "$backend" "uuid_generate_v7()" x "at most 1.25x"
    ratio_row "snowflake_next(), default layout (capped: 4,096 ids/ms = 244 ns/id)" "$server" "snowflake_next()" x "at most 1.8x"
    ratio_row "snowflake_next() vs nextval(), default layout (capped)" "$server" "snowflake_next()" "nextval('bench_seq')" "at most 0.7x"
    ratio_row "snowflake_next(), 20 sequence bits (uncapped: CPU cost only)" "$wide" "snowflake_next()" x "at most 1.8x"
    ratio_row "snowflake_next() vs nextval(), 20 sequence bits (uncapped)" "$wide" "snowflake_next()" "nextval('bench_seq')" "at most 0.7x"
    ratio_row "crid_next()" "$server" "crid_next()" x "at most 1.05x"
    ratio_row "crid_next(5, 4), with a gene" "$server" "crid_next(5, 4)" x "at most 1.05x"
    awk -v two="$two" -v cap="$cap" -v bits="$seq_bits" 'BEGIN {
        printf "two pgbench sessions on one snowflake node, %d sequence bits|%.2fM ids/s of %.3fM|%.1f%% of the cap|at least 95%%\n",
            bits, two / 1e6, cap / 1e6, 100 * two / cap }'
} | md_table "goal|measured|ratio|target")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "### PostgreSQL $version"
echo
echo "Median of $rounds interleaved rounds over \`generate_series(1, $n) x\`. Load average (1, 5, 15 min)"
echo "$load_before before, $load_after after."
echo
echo "$table"
