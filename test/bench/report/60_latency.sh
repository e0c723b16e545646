# Latency of single-row INSERTs with each generator as the column DEFAULT,
# with fsync on (so a generator that waits on an fsync shows in the tail)
# and synchronous_commit off (so the commit's own flush does not hide it).
section_latency() {
    bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres\nfsync = on\nsynchronous_commit = off\nmax_connections = 50'
    local secs labels=() types=() exprs=() i
    secs=$([ "$QUICK" = 1 ] && echo 2 || echo 20)
    labels+=('bigserial (nextval)') types+=(bigint) exprs+=("nextval('bench_seq')")
    labels+=('gen_random_uuid()') types+=(uuid) exprs+=('gen_random_uuid()')
    labels+=('uuid_generate_v7()') types+=(uuid) exprs+=('uuid_generate_v7()')
    labels+=('snowflake_next()') types+=(bigint) exprs+=('snowflake_next()')
    labels+=('crid_next()') types+=(bigint) exprs+=('crid_next()')
    local stats=() writes=() logdir script
    logdir=$(mktemp -d "$BENCH_DIR/latency.XXXXXX")
    chmod 777 "$logdir"
    for i in "${!labels[@]}"; do
        bench_psql -q -c "DROP TABLE IF EXISTS lat; CREATE TABLE lat (id ${types[$i]} PRIMARY KEY DEFAULT ${exprs[$i]}, payload int)"
        script="$logdir/insert.sql"
        echo "INSERT INTO lat (payload) VALUES (1);" >"$script"
        chmod 644 "$script"
        rm -f "$logdir"/lat_*
        local backends0 keeper0 backends1 keeper1
        measure "the mark's writes before ${labels[$i]}" backends0 keeper0 -- mark_writes
        (cd "$logdir" && bench_pgbench -n -M prepared -c 4 -j 2 -T "$secs" -f "$script" --log --log-prefix=lat_$i >/dev/null)
        [ -n "$(find "$logdir" -name "lat_$i*" -size +0)" ] ||
            { echo "bench: ${labels[$i]}: pgbench logged no transaction" >&2; return 1; }
        measure "the mark's writes after ${labels[$i]}" backends1 keeper1 -- mark_writes
        writes+=("$((backends1 - backends0))|$((keeper1 - keeper0))")
        # Column 3 of pgbench's transaction log: the transaction's latency in us.
        stats+=("$(cat "$logdir"/lat_"$i"* | awk '{ print $3 }' | sort -n | awk '
            { v[NR] = $1 }
            END {
                p = "0.5 0.99 0.999 0.9999"; split(p, q, " ")
                out = NR
                for (k = 1; k <= 4; k++) { idx = int(q[k] * NR); if (idx < 1) idx = 1; out = out "|" v[idx] }
                print out "|" v[NR]
            }')")
    done
    bench_psql -q -c "DROP TABLE IF EXISTS lat"
    local table
    table=$(for i in "${!labels[@]}"; do
        IFS='|' read -r n p50 p99 p999 p9999 max <<<"${stats[$i]}"
        IFS='|' read -r _ b50 b99 b999 b9999 bmax <<<"${stats[0]}"
        IFS='|' read -r by_backends by_keeper <<<"${writes[$i]}"
        awk -v l="${labels[$i]}" -v n="$n" -v a="$p50" -v b="$p99" -v c="$p999" -v d="$p9999" -v e="$max" \
            -v A="$b50" -v B="$b99" -v C="$b999" -v D="$b9999" -v E="$bmax" -v w="$by_backends" -v k="$by_keeper" 'BEGIN {
            printf "`%s`|%d|%d (%.2fx)|%d (%.2fx)|%d (%.2fx)|%d (%.2fx)|%d (%.2fx)|%d / %d\n", l, n,
                a, a / A, b, b / B, c, c / C, d, d / D, e, e / E, w, k }'
    done | md_table "key (column DEFAULT)|inserts|p50 us|p99 us|p99.9 us|p99.99 us|max us|mark writes: by backends / by the keeper")
    echo "## Single-row INSERT latency"
    echo
    echo "pgbench, 4 clients on $(nproc) cores for ${secs}s per key, \`INSERT INTO lat (payload) VALUES (1)\` with the"
    echo "key as the column DEFAULT; \`fsync = on\`, \`synchronous_commit = off\`. Latencies from pgbench's"
    echo "per-transaction log, in microseconds; in brackets the ratio to bigserial at the same percentile."
    echo "The last column counts the fsynced writes of the high-water mark (snowflake and UUIDv7) during"
    echo "the run: by a minting backend, which waits for it, and by the background keeper, which no id waits for."
    echo
    echo "$table"
}

# The high-water mark's writes so far: "by backends" and "by the keeper".
mark_writes() {
    bench_psql -Atq -c "SELECT string_agg(value::text, ' ' ORDER BY metric DESC) FROM crid_stats()
                        WHERE family = 'snowflake' AND metric IN ('high_water_writes', 'high_water_keeper_writes')"
}
