#!/usr/bin/env bash
# crid benchmark: per-row cost of crid_next() beside nextval() and the
# empty-loop floor, ids per second from one and two sessions, and how often
# the registry was visited per million ids (crid_allocate calls, commits) and
# how often a backend had to wait for a block.
# Goals: crid_next() <= 0.5x nextval(); no synchronous registry
# wait in steady state. Prints tables; asserts nothing.
# shellcheck disable=SC2154 # the counters are set by measure (lib.sh)
source "$(dirname "$0")/lib.sh"
bench_server_start <<<"crid.registry_database = 'postgres'"
bench_psql -q -c "CREATE SEQUENCE IF NOT EXISTS bench_seq"

counters() {
    bench_psql -Atq -c "SELECT string_agg(value::text, ' ' ORDER BY metric) FROM crid_stats()
                        WHERE family = 'crid' AND metric IN ('blocks_reserved', 'ids_served', 'registry_commits', 'sync_waits')"
}

# Warm-up: the worker grows its reserve to the rate it sees.
bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, 3000000)" >/dev/null
measure "the crid counters before the rounds" blocks0 served0 commits0 waits0 -- counters

echo "crid per-row cost (median of ${ROUNDS:-7} interleaved rounds of ${N:-1000000} rows; vs_first = ratio to crid_next())"
per_row_table 'crid_next()' "nextval('bench_seq')" 'random()'
echo
echo "crid ids per second (median of ${REPEAT:-3})"
printf '%-44s %14s %14s %8s\n' "expression" "1 session" "2 sessions" "ratio"
scaling_row 'crid_next()' 'crid_next()'
scaling_row "nextval('bench_seq')" "nextval('bench_seq')"

measure "the crid counters after the rounds" blocks1 served1 commits1 waits1 -- counters
block_size=$(bench_psql -Atq -c 'SHOW crid.block_size')
[ $((served1 - served0)) -gt 0 ] || { echo "crid.sh: ids_served did not move over the rounds" >&2; exit 1; }
echo
echo "Registry traffic after warm-up (block size $block_size)"
awk -v b=$((blocks1 - blocks0)) -v s=$((served1 - served0)) -v c=$((commits1 - commits0)) -v w=$((waits1 - waits0)) 'BEGIN {
    printf "%-44s %14d\n", "ids served", s
    printf "%-44s %14.1f\n", "crid_allocate calls per million ids", b * 1e6 / s
    printf "%-44s %14.1f\n", "registry commits per million ids", c * 1e6 / s
    printf "%-44s %14d\n", "crid_next calls that waited for a block", w
}'
