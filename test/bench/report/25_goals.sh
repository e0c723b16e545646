# The per-id goals in one place: each generator as a ratio to the empty
# loop `count(x)` (and snowflake_next() to nextval()), interleaved round by
# round on one server, and two sessions on one snowflake node as a share of
# the layout's cap. Ratios, never asserted; the load average is printed
# beside them, as the machine may be shared.
section_goals() {
    local n rounds secs runs
    n=$([ "$QUICK" = 1 ] && echo 20000 || echo 1000000)
    rounds=$([ "$QUICK" = 1 ] && echo 3 || echo 7)
    secs=$([ "$QUICK" = 1 ] && echo 1 || echo 8)
    runs=$([ "$QUICK" = 1 ] && echo 1 || echo 3)
    local load_before
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)

    bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres'
    bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, $([ "$QUICK" = 1 ] && echo 20000 || echo 3000000))" >/dev/null
    local server backend
    server=$(goals_per_row "x" "crid_next()" "crid_next(5, 4)" "uuid_generate_v7()" "snowflake_next()" "nextval('bench_seq')")
    bench_set "crid.uuidv7_order = 'backend'"
    backend=$(goals_per_row "x" "uuid_generate_v7()")
    bench_set "crid.uuidv7_order = DEFAULT"
    # Two sessions on one node: the default layout's 12 sequence bits cap a
    # node at 4,096 ids per ms.
    local seq_bits cap twos=() r two
    seq_bits=$(bench_psql -Atq -c "SHOW crid.snowflake_sequence_bits")
    cap=$((1000 << seq_bits))
    for r in $(seq 1 "$runs"); do
        twos+=("$(pgbench_ids_per_second "SELECT count(snowflake_next(1)) FROM generate_series(1, 20000);" 20000 2 "$secs")")
    done
    two=$(median "${twos[@]}")

    # The same snowflake_next() where the cap cannot bind: 20 sequence bits
    # (1,048,576 ids per ms), so the figure is its CPU cost alone.
    bench_server_switch <<<$'crid.node_id = 1\ncrid.snowflake_node_bits = 4\ncrid.snowflake_sequence_bits = 20'
    local wide
    wide=$(goals_per_row "x" "snowflake_next()" "nextval('bench_seq')")

    echo "## Per-id goals"
    echo
    echo "Each ratio is to the empty loop \`SELECT count(x) FROM generate_series(1, $n) x\` (or to"
    echo "\`nextval()\`) measured in the same interleaved run, median of $rounds rounds. Load average"
    echo "(1, 5, 15 min) $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after."
    echo
    {
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
    } | md_table "goal|measured|ratio|target"
    echo
    echo "With the default layout one node mints at most 4,096 ids per millisecond, so"
    echo "\`count(snowflake_next())\` in one session cannot cost less than 244 ns per id whatever the"
    echo "code does; the 20-sequence-bit rows measure the same function where that cap does not bind."
    echo "[docs/performance.md](../docs/performance.md) has the breakdown per generator."
}

# "expression|ns" lines of one interleaved run over generate_series(1, n) x.
goals_per_row() {
    local list
    list=$(printf "'%s'," "${@//\'/\'\'}")
    bench_psql -Atq -F'|' -f "$CRID_ROOT/test/bench/per_row.sql" \
        -c "SELECT expression, ns_per_row FROM pg_temp.crid_bench_source_per_row(ARRAY[${list%,}], 'generate_series(1, $n) x', $rounds, 'x')"
}

# One goal's row: $1 label, $2 the run's lines, $3 the expression, $4 the
# one it is divided by, $5 the target.
ratio_row() {
    awk -F'|' -v label="$1" -v e="$3" -v base="$4" -v target="$5" '
        { ns[$1] = $2 }
        END { printf "%s|%.1f ns vs %.1f ns|%.2fx|%s\n", label, ns[e], ns[base], ns[e] / ns[base], target }' <<<"$2"
}
