#!/usr/bin/env bash
# Partitions by time (docs/partitions.md): per family (snowflake ids of the
# server's layout, UUIDv7, crid ids), N rows over 30 days (ten million by
# default) in one table and in a set of 30 daily partitions made by
# crid_partition_create, measured in one run:
# - a one-hour window by decoded time (the planner hook's id range), median
#   of ROUNDS interleaved runs (9), the set against the one table;
# - INSERT_N rows (N / 50) inserted through the key's DEFAULT into each
#   (the set's partitions of today made by crid_partition_maintain first),
#   median of REPEAT alternating runs (3) after one untimed run into each.
# Ratios are one table's time / the set's: above 1, the set is faster. The
# rows' times are spread evenly over [2026-03-01, 2026-03-31), in floating
# seconds: an interval divided by N rounds to microseconds, and N of them
# could reach past the last partition.
# A measurement that fails fails the script before any table is printed.
source "$(dirname "$0")/lib.sh"
bench_server_start <<<$'shared_buffers = \'512MB\'\ncrid.node_id = 1\ncrid.registry_database = \'postgres\''

n=${N:-10000000}
rounds=${ROUNDS:-9}
insert_n=${INSERT_N:-$((n / 50))}
repeat=${REPEAT:-3}

# load family key_type default check id_of_t_g
load() {
    local fam=$1 type=$2 default=$3 check=$4 id=$5 one="part_${1}_one" set="part_${1}_set"
    log "$fam: $n rows into $one and into $set (30 daily partitions)"
    bench_psql -q -c "SET client_min_messages = warning" \
        -c "DROP TABLE IF EXISTS $one, $set" \
        -c "CREATE TABLE $one (id $type PRIMARY KEY DEFAULT $default CHECK ($check), payload integer)" \
        -c "CREATE TABLE $set (id $type PRIMARY KEY DEFAULT $default CHECK ($check), payload integer) PARTITION BY RANGE (id)" \
        -c "SELECT count(*) FROM crid_partition_create('$set', '1 day', '2026-03-01', '2026-03-30')" \
        -c "INSERT INTO $one SELECT $id, g
            FROM generate_series(1, $n) g,
                 LATERAL (SELECT to_timestamp(extract(epoch FROM timestamptz '2026-03-01+00') + (g - 1) * (2592000.0 / $n))) x(t)" \
        -c "INSERT INTO $set SELECT * FROM $one" \
        -c "VACUUM ANALYZE $one" -c "VACUUM ANALYZE $set" >/dev/null
    local parts
    parts=$(bench_psql -Atq -c "SELECT count(*) FROM crid_partition_bounds('$set') b
                                 WHERE EXISTS (SELECT FROM pg_class c WHERE c.oid = b.partition_name AND c.reltuples > 0)")
    [ "$parts" = 30 ] || { echo "bench: $set has rows in $parts partitions, not 30" >&2; exit 1; }
}

# window family decoder: prints "one_ms set_ms rows_one rows_set"
window() {
    local fam=$1 decoder=$2 a="'2026-03-16 12:00:00+00'" z="'2026-03-16 13:00:00+00'"
    bench_psql -Atq -F ' ' -f "$(dirname "${BASH_SOURCE[0]}")/time_index.sql" -c "
        SELECT string_agg(median_ms::text, ' ' ORDER BY query) || ' ' || string_agg(result::text, ' ' ORDER BY query)
          FROM pg_temp.crid_bench_queries(
            ARRAY['1 one', '2 set'],
            ARRAY[\$q\$SELECT count(payload) FROM part_${fam}_one WHERE $decoder >= $a AND $decoder < $z\$q\$,
                  \$q\$SELECT count(payload) FROM part_${fam}_set WHERE $decoder >= $a AND $decoder < $z\$q\$],
            ARRAY['max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0'], $rounds)"
}

# inserts family: prints "one_ms set_ms", medians of alternating runs
# after one untimed run into each (a fresh server's first ids of a family
# wait for what its generator sets up: crid's first blocks, for one).
inserts() {
    local fam=$1 one=() set=() r t
    bench_psql -q -c "SELECT count(*) FROM crid_partition_maintain('part_${fam}_set', '1 day', '1 day')" >/dev/null
    for t in one set; do
        bench_psql -q -c "INSERT INTO part_${fam}_$t (payload) SELECT g FROM generate_series(1, $insert_n) g"
    done
    for r in $(seq 1 "$repeat"); do
        for t in one set; do
            local ms
            measure "$fam: $insert_n inserts into part_${fam}_$t" ms -- bench_psql -Atq -c "
                CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
                INSERT INTO part_${fam}_$t (payload) SELECT g FROM generate_series(1, $insert_n) g;
                SELECT round(extract(epoch FROM clock_timestamp() - t) * 1000, 1) FROM t0;"
            if [ "$t" = one ]; then one+=("$ms"); else set+=("$ms"); fi
        done
    done
    local rows
    rows=$(bench_psql -Atq -c "SELECT (SELECT count(*) FROM ONLY part_${fam}_set) + (SELECT count(*) FROM crid_partition_bounds('part_${fam}_set') WHERE is_default)")
    [ "$rows" = 0 ] || { echo "bench: rows went to the parent or a default partition of part_${fam}_set" >&2; exit 1; }
    echo "$(median "${one[@]}") $(median "${set[@]}")"
}

declare -A w_one w_set ins_one ins_set
families=(snowflake uuidv7 crid)
load snowflake bigint 'snowflake_next()' 'id >= 0' 'snowflake_floor(t) + g % 4096'
load uuidv7 uuid 'uuid_generate_v7()' 'crid_uuid_v7_check(id)' 'uuid_generate_v7_deterministic(t, g)'
load crid bigint 'crid_next()' 'id >= 0' 'crid_pack(t, g)'
declare -A decoder=([snowflake]='snowflake_to_timestamptz(id)' [uuidv7]='uuid_v7_to_timestamptz(id)' [crid]='crid_to_timestamptz(id)')

for fam in "${families[@]}"; do
    measure "$fam: a one-hour window" a b ra rb -- window "$fam" "${decoder[$fam]}"
    [ "$ra" = "$rb" ] && [ "$ra" -gt 0 ] || { echo "bench: $fam: the window counted $ra rows in one table and $rb in the set" >&2; exit 1; }
    w_one[$fam]=$a w_set[$fam]=$b
    measure "$fam: inserts through the DEFAULT" a b -- inserts "$fam"
    ins_one[$fam]=$a ins_set[$fam]=$b
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
echo "One-hour window by decoded time (2026-03-16 12:00 to 13:00) of $n rows over 30 days: median ms of $rounds interleaved runs, no parallel workers"
printf '%-10s %14s %14s %10s\n' family 'one table' '30 partitions' 'one/set'
for fam in "${families[@]}"; do
    printf '%-10s %14s %14s %10s\n' "$fam" "${w_one[$fam]}" "${w_set[$fam]}" "$(ratio "${w_one[$fam]}" "${w_set[$fam]}")"
done
echo
echo "$insert_n inserts through the key's DEFAULT, one statement: median ms of $repeat alternating runs"
printf '%-10s %14s %14s %10s\n' family 'one table' '30 partitions' 'one/set'
for fam in "${families[@]}"; do
    printf '%-10s %14s %14s %10s\n' "$fam" "${ins_one[$fam]}" "${ins_set[$fam]}" "$(ratio "${ins_one[$fam]}" "${ins_set[$fam]}")"
done
