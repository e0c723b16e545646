# Primary-key index size and B-tree leaf density after four sessions insert
# at once. Random keys split leaves in the middle (Yao: ~69% full); keys that
# arrive in order split the rightmost leaf at the 90% fill factor; a UUIDv7
# whose bits below the millisecond are random is in order only per ms.
section_density() {
    bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres\nmax_connections = 50'
    local tx per_tx=100 labels=() types=() exprs=() i
    tx=$([ "$QUICK" = 1 ] && echo 20 || echo 2500)
    labels+=('gen_random_uuid()') types+=(uuid) exprs+=('gen_random_uuid()')
    labels+=('uuid_generate_v7(clock_timestamp()): random below the ms') types+=(uuid) exprs+=('uuid_generate_v7(clock_timestamp())')
    labels+=('uuid_generate_v7()') types+=(uuid) exprs+=('uuid_generate_v7()')
    labels+=('snowflake_next()') types+=(bigint) exprs+=('snowflake_next()')
    labels+=('crid_next()') types+=(bigint) exprs+=('crid_next()')
    labels+=('bigserial (nextval)') types+=(bigint) exprs+=("nextval('bench_seq')")
    local rows=() script
    script=$(mktemp "$BENCH_DIR/density.XXXXXX.sql")
    echo "INSERT INTO dens (payload) SELECT 1 FROM generate_series(1, $per_tx);" >"$script"
    chmod 644 "$script"
    for i in "${!labels[@]}"; do
        bench_psql -q -c "DROP TABLE IF EXISTS dens; CREATE TABLE dens (id ${types[$i]} PRIMARY KEY DEFAULT ${exprs[$i]}, payload int)"
        bench_pgbench -n -c 4 -j 4 -t "$tx" -f "$script" >/dev/null
        rows+=("$(bench_psql -Atq -F'|' -c "SELECT (SELECT count(*) FROM dens), round(s.avg_leaf_density::numeric, 1),
                    s.leaf_pages, pg_relation_size('dens_pkey')
                  FROM pgstatindex('dens_pkey') s")")
        # Every transaction of every session inserted its rows, or the figures are of another table.
        [ "${rows[$i]%%|*}" = $((4 * tx * per_tx)) ] ||
            { echo "bench: ${labels[$i]}: ${rows[$i]%%|*} rows, not $((4 * tx * per_tx))" >&2; return 1; }
    done
    bench_psql -q -c "DROP TABLE IF EXISTS dens"
    local table
    table=$(for i in "${!labels[@]}"; do
        IFS='|' read -r n density leaves bytes <<<"${rows[$i]}"
        IFS='|' read -r _ _ _ random_bytes <<<"${rows[0]}"
        awk -v l="${labels[$i]}" -v n="$n" -v d="$density" -v p="$leaves" -v b="$bytes" -v rb="$random_bytes" 'BEGIN {
            printf "`%s`|%d|%.1f%%|%d|%.1f|%.1f|%.2fx\n", l, n, d, p, b / 1048576, b / n, b / rb }'
    done | md_table "key (column DEFAULT)|rows|leaf density|leaf pages|index MB|index bytes per row|size vs random UUID")
    echo "## Index size and leaf density after concurrent inserts"
    echo
    echo "Four pgbench sessions at once, each running $tx transactions of \`INSERT ... SELECT\` of $per_tx rows"
    echo "through the column DEFAULT; then \`pgstatindex()\` (pgstattuple) of the primary key."
    echo
    echo "$table"
}
