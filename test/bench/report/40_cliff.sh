# Inserts through a column DEFAULT into a table whose primary-key index
# outgrows a small shared_buffers: random keys touch a random leaf per row,
# so once the index is larger than the buffer pool almost every insert reads
# a page; time-ordered keys append at the right edge and stay in memory.
section_cliff() {
    local shared=16MB batches batch
    batches=$([ "$QUICK" = 1 ] && echo 3 || echo 16)
    batch=$([ "$QUICK" = 1 ] && echo 5000 || echo 250000)
    bench_server_switch <<<"crid.node_id = 1
crid.registry_database = postgres
shared_buffers = $shared
max_wal_size = 4GB
checkpoint_timeout = 30min"
    local labels=() types=() exprs=()
    labels+=('gen_random_uuid()') types+=(uuid) exprs+=('gen_random_uuid()')
    labels+=('uuid_generate_v7()') types+=(uuid) exprs+=('uuid_generate_v7()')
    labels+=('snowflake_next()') types+=(bigint) exprs+=('snowflake_next()')
    labels+=('crid_next()') types+=(bigint) exprs+=('crid_next()')
    labels+=('bigserial (nextval)') types+=(bigint) exprs+=("nextval('bench_seq')")
    local rates="$REPORT_DIR/cliff-rate.tsv" reads="$REPORT_DIR/cliff-reads.tsv" i b
    declare -A rate read size
    for i in "${!labels[@]}"; do
        bench_psql -q -c "DROP TABLE IF EXISTS cliff; CREATE TABLE cliff (id ${types[$i]} PRIMARY KEY DEFAULT ${exprs[$i]}, payload int)"
        for b in $(seq 1 "$batches"); do
            local before after t0 t1
            measure "index reads before batch $b of ${labels[$i]}" before -- index_reads
            t0=$(date +%s.%N)
            bench_psql -q -c "INSERT INTO cliff (payload) SELECT 1 FROM generate_series(1, $batch)"
            t1=$(date +%s.%N)
            # A new session: the inserting one flushed its statistics on exit.
            measure "index reads after batch $b of ${labels[$i]}" after -- index_reads
            rate[$i,$b]=$(awk -v n="$batch" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.0f", n / (z - a) }')
            read[$i,$b]=$(awk -v n="$batch" -v a="$before" -v z="$after" 'BEGIN { printf "%.1f", (z - a) * 1000 / n }')
        done
        size[$i]=$(bench_psql -Atq -c "SELECT pg_size_pretty(pg_relation_size('cliff_pkey'))")
    done
    bench_psql -q -c "DROP TABLE IF EXISTS cliff"
    { printf 'million rows'; printf '\t%s' "${labels[@]}"; echo; } | tee "$rates" >"$reads"
    for b in $(seq 1 "$batches"); do
        local rows
        rows=$(awk -v b="$b" -v n="$batch" 'BEGIN { printf "%.2f", b * n / 1e6 }')
        { printf '%s' "$rows"; for i in "${!labels[@]}"; do printf '\t%s' "$(awk -v r="${rate[$i,$b]}" 'BEGIN { printf "%.1f", r / 1000 }')"; done; echo; } >>"$rates"
        { printf '%s' "$rows"; for i in "${!labels[@]}"; do printf '\t%s' "${read[$i,$b]}"; done; echo; } >>"$reads"
    done
    line_chart "$REPORT_DIR/cliff-rate.svg" "Inserts per second as the table grows (shared_buffers = $shared)" \
        "million rows in the table" "thousand rows per second" "$rates"
    line_chart "$REPORT_DIR/cliff-reads.svg" "Index buffer reads per 1000 inserts (shared_buffers = $shared)" \
        "million rows in the table" "index blocks read per 1000 inserts" "$reads"
    local last=$batches table
    table=$(for i in "${!labels[@]}"; do
        awk -v l="${labels[$i]}" -v f="${rate[$i,1]}" -v z="${rate[$i,$last]}" -v r="${read[$i,$last]}" \
            -v rr="${rate[0,$last]}" -v s="${size[$i]}" 'BEGIN {
            printf "`%s`|%.0f|%.0f|%.2fx|%s|%s\n", l, f / 1000, z / 1000, z / rr, r, s }'
    done | md_table "key (column DEFAULT)|first batch (k rows/s)|last batch (k rows/s)|last batch vs random UUID|index reads per 1000 rows, last batch|index size at the end")
    echo "## Inserts as the primary-key index outgrows shared_buffers"
    echo
    echo "\`shared_buffers = $shared\`; $batches batches of $batch single-statement inserts per key through"
    echo "\`id ... PRIMARY KEY DEFAULT f()\`; reads are \`idx_blks_read\` of \`pg_statio_user_indexes\`"
    echo "(index pages that were not in the buffer pool). The pages come from the OS cache here, so the"
    echo "cliff is shallower than on a server whose index does not fit in memory at all."
    echo
    echo "$table"
    echo
    echo "![inserts per second as the table grows](cliff-rate.svg)"
    echo
    echo "![index reads per 1000 inserts](cliff-reads.svg)"
}

# Index blocks of the cliff table's primary key read so far (not found in
# the buffer pool).
index_reads() {
    bench_psql -Atq -c "SELECT idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 'cliff_pkey'"
}
