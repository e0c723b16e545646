#!/usr/bin/env bash
# Ids in JSON (docs/javascript.md): the per-id cost of the JavaScript-safe
# layouts beside the defaults, one server each in one run (the same code
# mints both, so the ratio to nextval() should be the same): snowflake_next
# on the default layout and on the preset javascript (ids spread over 128
# nodes, whose 65,536 ids a second each the rows stay under), crid_next with
# crid.timestamp_bits 31 and 40. Then the bigid key beside a bigint one:
# bytes per row of the table and of its primary key, and rows per second of
# INSERT ... SELECT of N ids into each (median of ROUNDS interleaved rounds).
# Prints tables and ratios; asserts nothing.
source "$(dirname "$0")/lib.sh"
export PGOPTIONS='-c client_min_messages=warning'
n=${N:-1000000}
rounds=${ROUNDS:-7}

# ns per row of each expression and of nextval, on the running server: lines
# "expression ns_per_row".
per_row_ns() {
    local list
    list=$(printf "'%s'," "${@//\'/\'\'}")
    bench_psql -Atq -F '|' -f "$(dirname "${BASH_SOURCE[0]}")/per_row.sql" \
        -c "SELECT expression, ns_per_row FROM pg_temp.crid_bench_per_row(ARRAY[${list%,}], $n, $rounds)"
}
exprs=("snowflake_next((generate_series % 128)::int)" 'crid_next()' "nextval('bench_seq')")
layout_costs() { # label -> rows "label|expression|ns|ns/nextval"
    local label=$1 out base
    bench_psql -q -c "CREATE SEQUENCE IF NOT EXISTS bench_seq"
    # Warm-up: the worker grows its crid reserve to the rate it sees.
    bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, 2000000)" >/dev/null
    out=$(per_row_ns "${exprs[@]}")
    base=$(printf '%s\n' "$out" | awk -F'|' '$1 ~ /^nextval/ { print $2 }')
    printf '%s\n' "$out" | awk -F'|' -v l="$label" -v b="$base" '$1 != "random()" { printf "%s|%s|%s|%.2f\n", l, $1, $2, $2 / b }'
}

bench_server_start <<<$'crid.registry_database = postgres'
default_rows=$(layout_costs default)
stop_server "$BENCH_DIR/data"
trap - EXIT
bench_server_start <<<$'crid.registry_database = postgres\ncrid.snowflake_layout = javascript\ncrid.timestamp_bits = 40'
js_rows=$(layout_costs javascript)

echo "Per-id cost, default layouts beside the JavaScript-safe ones (median of $rounds interleaved rounds of $n rows;"
echo "vs_nextval = ratio to nextval() on the same server; js/default = ratio of those ratios)"
printf '%-48s %14s %14s %12s %12s %11s\n' "expression" "default ns" "js-safe ns" "vs_nextval" "(js-safe)" "js/default"
LC_ALL=C join -t'|' -1 1 -2 1 <(printf '%s\n' "$default_rows" | cut -d'|' -f2- | LC_ALL=C sort) \
    <(printf '%s\n' "$js_rows" | cut -d'|' -f2- | LC_ALL=C sort) |
    awk -F'|' '{ printf "%-48s %14.1f %14.1f %12.2f %12.2f %11.2f\n", $1, $2, $4, $3, $5, ($3 > 0 ? $5 / $3 : 0) }'
echo "(snowflake: 41/10/12 in ms vs javascript 30/7/16 in s, bits=53; crid: timestamp bits 31 vs 40)"

# bigid beside bigint: the same ids into two tables, interleaved rounds.
bench_psql -q <<SQL
DROP TABLE IF EXISTS k_bigint, k_bigid, k_src;
CREATE TABLE k_src AS SELECT snowflake_pack(now() - g * interval '1 ms', g % 1024, 0, 'crid') AS id FROM generate_series(1, $n) g;
CREATE TABLE k_bigint (id bigint PRIMARY KEY, v int);
CREATE TABLE k_bigid (id bigid PRIMARY KEY, v int);
SQL
for _ in $(seq 1 "$rounds"); do
    for t in bigint bigid; do
        bench_psql -q -c "TRUNCATE k_$t" -c "CHECKPOINT"
        secs=$(sessions_seconds 1 "INSERT INTO k_$t SELECT id, 1 FROM k_src")
        echo "$t $secs"
    done
done >"$BENCH_DIR/k_rounds"
bench_psql -q -c "VACUUM ANALYZE k_bigint, k_bigid"
echo
echo "bigid beside bigint: $n keys (median of $rounds interleaved rounds of INSERT ... SELECT)"
printf '%-10s %14s %16s %14s %10s\n' "key type" "table B/row" "pkey index B/row" "rows/s" "vs bigint"
sizes=$(bench_psql -Atq -F ' ' -c "SELECT 'bigint', pg_table_size('k_bigint')::numeric / $n, pg_relation_size('k_bigint_pkey')::numeric / $n
                                  UNION ALL SELECT 'bigid', pg_table_size('k_bigid')::numeric / $n, pg_relation_size('k_bigid_pkey')::numeric / $n")
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
med_bigint=$(awk '$1 == "bigint" { print $2 }' "$BENCH_DIR/k_rounds" | median)
med_bigid=$(awk '$1 == "bigid" { print $2 }' "$BENCH_DIR/k_rounds" | median)
printf '%s\n' "$sizes" | awk -v n="$n" -v a="$med_bigint" -v b="$med_bigid" '
    { secs = ($1 == "bigint" ? a : b); rate[$1] = n / secs
      printf "%-10s %14.1f %16.1f %14.0f %10.2f\n", $1, $2, $3, rate[$1], rate[$1] / (n / a) }'
