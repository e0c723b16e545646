#!/usr/bin/env bash
# Shard genes benchmark: what routing rows by gene costs, and what pruning by
# gene saves.
#   1. Rows per second inserted by one and by two sessions into a table of 16
#      hash partitions routed by gene (crid_gene_int8_ops), beside PostgreSQL's
#      built-in hash partitioning of the same bigint column (and the LIST form
#      on id_gene(id, 4)). Same ids, same primary key: only the routing differs.
#      And the per-row cost of the partition hash function alone.
#   2. A lookup by id pruned to one partition, beside the same query reading
#      all 16 partitions' indexes (enable_partition_pruning = off): inside the
#      server (a PL/pgSQL loop) and at a client (pgbench, prepared).
#   3. Registry sequence numbers crid_next(gene, bits) uses up per id.
# Goals: gene routing at most 1.1x the built-in time per row; a
# pruned lookup at least 5x faster than the 16-partition scan. Prints tables;
# asserts nothing.
source "$(dirname "$0")/lib.sh"
bench_server_start <<<"crid.snowflake_gene_bits = 4
max_wal_size = '4GB'
checkpoint_timeout = '30min'"
if [ "${BENCH_QUICK:-0}" = 1 ]; then # make bench's smoke test: tiny sizes, figures not to read
    : "${INSERT_N:=20000}" "${INSERT_REPEAT:=1}" "${LOOKUP_ROWS:=20000}" "${SECONDS_EACH:=1}" "${LOOKUPS:=1000}"
    : "${TRAFFIC_N:=20000}"
fi
INSERT_N=${INSERT_N:-300000}
INSERT_REPEAT=${INSERT_REPEAT:-7}
LOOKUP_ROWS=${LOOKUP_ROWS:-1000000}
SECONDS_EACH=${SECONDS_EACH:-5}

# Three tables of 16 partitions with the same columns: by gene, by PostgreSQL's
# own hash, and by LIST on the gene expression (no primary key possible there:
# a unique index per partition instead, which is as strict since equal ids
# share their gene).
bench_psql -q <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS by_gene, by_builtin, by_list;
CREATE UNLOGGED TABLE by_gene (id bigint PRIMARY KEY, payload int) PARTITION BY HASH (id crid_gene_int8_ops);
CREATE UNLOGGED TABLE by_builtin (id bigint PRIMARY KEY, payload int) PARTITION BY HASH (id);
CREATE UNLOGGED TABLE by_list (id bigint NOT NULL, payload int) PARTITION BY LIST (id_gene(id, 4));
DO $$ BEGIN
    FOR g IN 0..15 LOOP
        EXECUTE format('CREATE UNLOGGED TABLE by_gene_%s PARTITION OF by_gene FOR VALUES WITH (MODULUS 16, REMAINDER %1$s)', g);
        EXECUTE format('CREATE UNLOGGED TABLE by_builtin_%s PARTITION OF by_builtin FOR VALUES WITH (MODULUS 16, REMAINDER %1$s)', g);
        EXECUTE format('CREATE UNLOGGED TABLE by_list_%s PARTITION OF by_list FOR VALUES IN (%1$s)', g);
        EXECUTE format('CREATE UNIQUE INDEX ON by_list_%s (id)', g);
    END LOOP;
END $$;
SQL

# The INSERT of one session into table $1: INSERT_N rows, ids minted on node
# $2 with scattered genes, as users' genes arrive (genes in lockstep would
# make two sessions fight over one partition's index at a time, which real
# traffic does not).
insert_sql() {
    echo "INSERT INTO $1 SELECT snowflake_next($2, hashint8(g * 2 + $2) & 15), g FROM generate_series(1, $INSERT_N) g"
}

# One session: every table in turn, INSERT_REPEAT rounds, timed inside the
# server; prints "table rows_per_second" for each run. The runs come as
# NOTICEs, which make bench's PGOPTIONS (client_min_messages = warning)
# would hide: the session shows them again.
one_session_runs() {
    local list out
    list=$(printf "'%s'," "${tables[@]}")
    out=$(bench_psql -q -c "SET client_min_messages = notice" -c "
DO \$\$
DECLARE
    t0 timestamptz;
    tbl text;
BEGIN
    FOR r IN 1 .. $INSERT_REPEAT LOOP
        FOREACH tbl IN ARRAY ARRAY[${list%,}] LOOP
            EXECUTE format('TRUNCATE %I', tbl);
            COMMIT;
            t0 := clock_timestamp();
            EXECUTE replace(\$q\$$(insert_sql TABLE 1)\$q\$, 'TABLE', tbl);
            COMMIT;
            RAISE NOTICE 'run % %', tbl, round($INSERT_N / extract(epoch FROM clock_timestamp() - t0));
        END LOOP;
    END LOOP;
END \$\$" 2>&1)
    awk '/NOTICE:  run / { print $3, $4 }' <<<"$out"
}

# Two sessions at once into table $1, timed from outside: rows per second.
two_sessions_rate() {
    local table=$1 secs
    bench_psql -q -c "TRUNCATE $table"
    secs=$(sessions_seconds 2 "$(insert_sql "$table" :session)")
    awk -v n="$INSERT_N" -v t="$secs" 'BEGIN { printf "%.0f\n", 2 * n / t }'
}

# Medians of INSERT_REPEAT rounds in which every table takes its turn.
tables=(by_builtin by_gene by_list)
declare -A runs rate
one_session=$(one_session_runs)
while read -r t r; do runs[$t,1]+="$r "; done <<<"$one_session"
for t in "${tables[@]}"; do
    # shellcheck disable=SC2086
    [ "$(set -- ${runs[$t,1]:-}; echo $#)" = "$INSERT_REPEAT" ] ||
        { echo "genes.sh: $INSERT_REPEAT timed runs into $t expected, got: ${runs[$t,1]:-none}" >&2; exit 1; }
done
for r in $(seq 1 "$INSERT_REPEAT"); do
    for t in "${tables[@]}"; do runs[$t,2]+="$(two_sessions_rate "$t") "; done
done
for t in "${tables[@]}"; do
    # shellcheck disable=SC2086
    rate[$t,1]=$(median ${runs[$t,1]})
    # shellcheck disable=SC2086
    rate[$t,2]=$(median ${runs[$t,2]})
done
# What the routing itself costs per row, apart from inserting: the hash
# support function PostgreSQL calls for each row, ours beside the built-in one.
echo "Partition hash function per row (median of ${ROUNDS:-7} interleaved rounds of ${N:-1000000} rows; vs_first = ratio to the built-in)"
per_row_table 'hashint8extended(generate_series::bigint, 8816678312871386365)' \
    'crid_gene_hash_extended(generate_series::bigint, 8816678312871386365)' 'random()'
echo
echo "Insert rows per second into 16 partitions (median of $INSERT_REPEAT rounds of $INSERT_N rows a session);"
echo "time_vs_builtin = time per row / built-in hash partitioning's (goal for by gene: <= 1.10)"
printf '%-46s %12s %12s %16s %16s\n' "routing" "1 session" "2 sessions" "time_vs_builtin 1" "time_vs_builtin 2"
label() {
    case $1 in
    by_builtin) echo "PARTITION BY HASH (id), built-in" ;;
    by_gene) echo "PARTITION BY HASH (id crid_gene_int8_ops)" ;;
    by_list) echo "PARTITION BY LIST (id_gene(id, 4))" ;;
    esac
}
for t in "${tables[@]}"; do
    printf '%-46s %12s %12s %16s %16s\n' "$(label "$t")" "${rate[$t,1]}" "${rate[$t,2]}" \
        "$(awk -v a="${rate[by_builtin,1]}" -v b="${rate[$t,1]}" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="${rate[by_builtin,2]}" -v b="${rate[$t,2]}" 'BEGIN { printf "%.2f", a / b }')"
done

# Lookups: LOOKUP_ROWS rows whose ids pgbench can compute from a number k
# (k << 20 | k % 16: every gene, spread like real ids), so the script looks up
# an existing row without reading another table first.
bench_psql -q -c "TRUNCATE by_gene, by_list" \
    -c "INSERT INTO by_gene SELECT (k::bigint << 20) | (k % 16), k FROM generate_series(1, $LOOKUP_ROWS) k" \
    -c "INSERT INTO by_list SELECT id, payload FROM by_gene" -c "VACUUM ANALYZE by_gene, by_list"
script="$BENCH_DIR/lookup.sql"
cat <<EOF | as_pg tee "$script" >/dev/null
\\set k random(1, $LOOKUP_ROWS)
\\set id (:k * 1048576) + mod(:k, 16)
SELECT payload FROM by_gene WHERE id = :id;
EOF
list_script="$BENCH_DIR/lookup_list.sql"
sed 's/by_gene/by_list/' "$script" | as_pg tee "$list_script" >/dev/null

# Average latency in microseconds of one pgbench run ($1: script, $2: PGOPTIONS):
# what a client sees, round trip included.
lookup_us() {
    local out us
    out=$(bench_pgbench PGOPTIONS="$2" -n -M prepared -c 1 -T "$SECONDS_EACH" -f "$1")
    us=$(awk '/latency average/ { printf "%.1f\n", $4 * 1000 }' <<<"$out")
    [ -n "$us" ] || { printf '%s\n' "$out" >&2; echo "genes.sh: pgbench printed no latency for $1" >&2; return 1; }
    echo "$us"
}

# Microseconds per lookup inside the server ($1: table, $2: PGOPTIONS): a
# PL/pgSQL loop of LOOKUPS lookups through its cached plan, as an
# application's prepared statement runs, without the client round trip.
server_us() {
    local n=${LOOKUPS:-50000}
    as_pg env PGOPTIONS="$2" "$(pg_bindir)/psql" -X -q -h "$BENCH_DIR" -p "$BENCH_PORT" -d postgres -c "
DO \$\$
DECLARE
    t0 timestamptz;
    v int;
    k bigint;
BEGIN
    FOR round IN 1 .. 2 LOOP -- the first round warms the caches and the plan
        t0 := clock_timestamp();
        FOR i IN 1 .. $n LOOP
            k := 1 + (i::bigint * 7919) % $LOOKUP_ROWS;
            SELECT payload INTO v FROM $1 WHERE id = (k << 20) | (k % 16);
        END LOOP;
    END LOOP;
    RAISE NOTICE 'us=%', round((extract(epoch FROM clock_timestamp() - t0) * 1e6 / $n)::numeric, 2);
END \$\$" 2>&1 | sed -n 's/.*us=\([0-9.]*\).*/\1/p' | grep . ||
        { echo "genes.sh: no timing of the lookups in $1 ($2)" >&2; return 1; }
}

# Each query through a generic plan (plan_cache_mode = force_generic_plan, as
# lookups on partitioned tables are best run: pruning happens at executor
# start, without planning each call), and once through a custom plan per call
# (PostgreSQL's default here: its cost estimate of the generic plan counts all
# 16 partitions, so it keeps planning, and pruning, every call).
generic="-c plan_cache_mode=force_generic_plan"
declare -A server client
cases=(pruned unpruned custom list)
for r in $(seq 1 "${REPEAT:-3}"); do
    server[pruned]+="$(server_us by_gene "$generic") "
    server[unpruned]+="$(server_us by_gene "$generic -c enable_partition_pruning=off") "
    server[custom]+="$(server_us by_gene "-c plan_cache_mode=force_custom_plan") "
    server[list]+="$(server_us by_list "$generic") "
    client[pruned]+="$(lookup_us "$script" "$generic") "
    client[unpruned]+="$(lookup_us "$script" "$generic -c enable_partition_pruning=off") "
    client[custom]+="$(lookup_us "$script" "-c plan_cache_mode=force_custom_plan") "
    client[list]+="$(lookup_us "$list_script" "$generic") "
done
# shellcheck disable=SC2086
sp=$(median ${server[pruned]})
# shellcheck disable=SC2086
cp=$(median ${client[pruned]})
echo
echo "Lookup by id, $LOOKUP_ROWS rows in 16 partitions (median of ${REPEAT:-3} runs): inside the server"
echo "(PL/pgSQL loop of ${LOOKUPS:-50000} lookups) and at a client (pgbench, 1 client, prepared, ${SECONDS_EACH} s);"
echo "vs_pruned = time / the pruned lookup's (goal for the 16-partition scan: >= 5)"
printf '%-66s %10s %10s %10s %10s\n' "query" "server_us" "vs_pruned" "client_us" "vs_pruned"
label() {
    case $1 in
    pruned) echo "by gene, WHERE id = \$1, generic plan: pruned to 1 partition" ;;
    unpruned) echo "by gene, same, enable_partition_pruning = off: 16 index scans" ;;
    custom) echo "by gene, same, a custom plan each call: planned and pruned" ;;
    list) echo "LIST (id_gene(id, 4)), WHERE id = \$1, generic plan: 16 scans" ;;
    esac
}
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    s_us=$(median ${server[$c]})
    # shellcheck disable=SC2086
    c_us=$(median ${client[$c]})
    printf '%-66s %10s %10s %10s %10s\n' "$(label "$c")" "$s_us" \
        "$(awk -v a="$s_us" -v b="$sp" 'BEGIN { printf "%.2f", a / b }')" "$c_us" \
        "$(awk -v a="$c_us" -v b="$cp" 'BEGIN { printf "%.2f", a / b }')"
done

# Registry traffic: registry sequence numbers used up (crid_stats' ids_served
# counts them, skipped ones included) per id returned.
served() { bench_psql -Atq -c "SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'ids_served'"; }
bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, 200000)" >/dev/null # warm-up
block_size=$(bench_psql -Atq -c 'SHOW crid.block_size')
traffic=()
for case in "crid_next()|1" "crid_next(hashint8(g) & 15, 4)|8.5" "crid_next(hashint8(g) & 255, 8)|128.5"; do
    expr=${case%|*}
    measure "ids_served before $expr" before -- served
    bench_psql -q -c "SELECT count($expr) FROM generate_series(1, ${TRAFFIC_N:-500000}) g" >/dev/null
    measure "ids_served after $expr" after -- served
    traffic+=("$(printf '%-44s %14s %14s' "$expr" "$(awk -v d=$((after - before)) -v n="${TRAFFIC_N:-500000}" 'BEGIN { printf "%.2f", d / n }')" \
        "${case#*|}")")
done
echo
echo "Registry sequence numbers used per crid id returned (${TRAFFIC_N:-500000} ids each; block size $block_size)"
printf '%-44s %14s %14s\n' "expression" "per id" "expected"
printf '%s\n' "${traffic[@]}"
