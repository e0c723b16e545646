# Ids per second from 1, 2 and 4 sessions (pgbench), per generator: how each
# scales with cores, and where shared state (a node word, the UUIDv7 tick,
# the crid ticket) or the layout is the limit.
section_sessions() {
    bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres\nmax_connections = 50'
    local per_tx=20000 secs labels=() exprs=() settings=()
    secs=$([ "$QUICK" = 1 ] && echo 1 || echo 8)
    labels+=('uuid_generate_v7(), server-wide order') exprs+=('uuid_generate_v7()') settings+=('')
    labels+=('uuid_generate_v7(), order per backend') exprs+=('uuid_generate_v7()') settings+=("crid.uuidv7_order = 'backend'")
    labels+=('snowflake_next(1): all sessions on one node') exprs+=('snowflake_next(1)') settings+=('')
    labels+=('snowflake_next(n): a node per session') exprs+=('snowflake_next(:client_id + 1)') settings+=('')
    labels+=('crid_next()') exprs+=('crid_next()') settings+=('')
    labels+=('gen_random_uuid()') exprs+=('gen_random_uuid()') settings+=('')
    labels+=("nextval() of one sequence") exprs+=("nextval('bench_seq')") settings+=('')
    bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, 200000)" >/dev/null
    local data="$REPORT_DIR/sessions.tsv" rows=() i c
    printf 'sessions' >"$data"
    for i in "${!labels[@]}"; do printf '\t%s' "${labels[$i]}" >>"$data"; done
    echo >>"$data"
    declare -A rate
    for i in "${!labels[@]}"; do
        [ -n "${settings[$i]}" ] && bench_set "${settings[$i]}"
        for c in 1 2 4; do
            rate[$i,$c]=$(pgbench_ids_per_second "SELECT count(${exprs[$i]}) FROM generate_series(1, $per_tx);" "$per_tx" "$c" "$secs")
        done
        [ -n "${settings[$i]}" ] && bench_set "${settings[$i]%% =*} = DEFAULT"
    done
    for c in 1 2 4; do
        printf '%s' "$c" >>"$data"
        for i in "${!labels[@]}"; do printf '\t%s' "$(awk -v r="${rate[$i,$c]}" 'BEGIN { printf "%.3f", r / 1e6 }')" >>"$data"; done
        echo >>"$data"
    done
    line_chart "$REPORT_DIR/sessions.svg" "Ids per second by sessions" "sessions" "million ids per second" "$data"
    local table
    table=$(for i in "${!labels[@]}"; do
        awk -v l="${labels[$i]}" -v a="${rate[$i,1]}" -v b="${rate[$i,2]}" -v d="${rate[$i,4]}" 'BEGIN {
            printf "%s|%.2f|%.2f|%.2f|%.2fx|%.2fx\n", l, a / 1e6, b / 1e6, d / 1e6, b / a, d / a }'
    done | md_table "generator|1 session (M ids/s)|2 sessions|4 sessions|2 vs 1|4 vs 1")
    echo "## Throughput from 1, 2 and 4 sessions"
    echo
    echo "pgbench, ${secs}s per point, each transaction \`SELECT count(f()) FROM generate_series(1, $per_tx)\`"
    echo "(ids per second = transactions per second x $per_tx). This machine has $(nproc) cores, so 4 sessions"
    echo "share them with each other and with the block reserver."
    echo
    echo "$table"
    echo
    echo "![ids per second by sessions](sessions.svg)"
}
