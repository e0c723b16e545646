#!/usr/bin/env bash
# crid benchmark for a fleet on one registry: crid_next() on a
# server whose block reserver talks to a remote registry over loopback TCP
# (crid.registry) beside the same on a server with a local registry
# (crid.registry_database), measured in the same run: per-row cost, and
# registry traffic and latency per million ids.
# Goal: the remote per-row cost within 1.1x of the local one once blocks
# flow. Prints tables; asserts nothing. registry ms/M and us/commit time
# the worker's reservation transactions (one commit takes several blocks
# when the reserve runs low); round trips count every registry transaction.
# shellcheck disable=SC2154 # the counters are set by measure (lib.sh)
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_BUILT:-0}" != 1 ]; then
    ensure_packages
    build_and_install
fi
N=${N:-1000000}
ROUNDS=${ROUNDS:-5}
BENCH_DIR=$(scratch_dir bench-fleet)
LOCAL_PORT=$(free_port 55442)
REMOTE_PORT=$(free_port $((LOCAL_PORT + 1)))
mkdir -p "$BENCH_DIR/local" "$BENCH_DIR/remote"
[ "$(id -u)" = 0 ] && chown -R postgres: "$BENCH_DIR"
trap 'stop_server "$BENCH_DIR/remote/data"; stop_server "$BENCH_DIR/local/data"' EXIT

# The local server is also the registry of the remote one.
printf '%s\n' "shared_preload_libraries = 'crid'" "fsync = off" "crid.registry_database = 'postgres'" |
    start_server "$BENCH_DIR/local/data" "$LOCAL_PORT"
printf '%s\n' "shared_preload_libraries = 'crid'" "fsync = off" \
    "crid.registry = 'host=127.0.0.1 port=$LOCAL_PORT dbname=postgres user=postgres'" |
    start_server "$BENCH_DIR/remote/data" "$REMOTE_PORT"
on() { local dir=$1 port=$2; shift 2; as_pg "$(pg_bindir)/psql" -X -h "$BENCH_DIR/$dir" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
for s in "local $LOCAL_PORT" "remote $REMOTE_PORT"; do
    on $s -q -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS crid"
done

per_row_ns() {
    on "$@" -Atq -c "CREATE FUNCTION pg_temp.per_row_ns(n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
        DECLARE t0 timestamptz; c bigint;
        BEGIN t0 := clock_timestamp(); SELECT count(crid_next()) INTO c FROM generate_series(1, n);
              RETURN extract(epoch FROM clock_timestamp() - t0) * 1e9 / n; END \$\$" \
        -c "SELECT round(pg_temp.per_row_ns($N)::numeric, 1)"
}
counters() {
    on "$@" -Atq -c "SELECT string_agg(value::text, ' ' ORDER BY metric) FROM crid_stats() WHERE family = 'crid'
                     AND metric IN ('blocks_reserved', 'ids_served', 'registry_commits', 'registry_round_trips', 'registry_us_total', 'sync_waits')"
}

# Warm-up: each worker grows its reserve to the rate it sees.
for s in "local $LOCAL_PORT" "remote $REMOTE_PORT"; do
    on $s -q -c "SELECT count(crid_next()) FROM generate_series(1, 3000000)" >/dev/null
done
measure "the local server's crid counters before the rounds" lb0 ls0 lc0 lr0 lu0 lw0 -- counters local "$LOCAL_PORT"
measure "the remote server's crid counters before the rounds" rb0 rs0 rc0 rr0 ru0 rw0 -- counters remote "$REMOTE_PORT"
local_ns=() remote_ns=()
for _ in $(seq 1 "$ROUNDS"); do # interleaved, so load changes hit both alike
    local_ns+=("$(per_row_ns local "$LOCAL_PORT")")
    remote_ns+=("$(per_row_ns remote "$REMOTE_PORT")")
done
measure "the local server's crid counters after the rounds" lb1 ls1 lc1 lr1 lu1 lw1 -- counters local "$LOCAL_PORT"
measure "the remote server's crid counters after the rounds" rb1 rs1 rc1 rr1 ru1 rw1 -- counters remote "$REMOTE_PORT"
lm=$(median "${local_ns[@]}")
rm_=$(median "${remote_ns[@]}")
block_size=$(on local "$LOCAL_PORT" -Atq -c 'SHOW crid.block_size')
# A server that served no id over the rounds has no traffic per id to show.
[ $((ls1 - ls0)) -gt 0 ] && [ $((rs1 - rs0)) -gt 0 ] ||
    { echo "fleet.sh: ids_served did not move over the rounds (local $ls0 -> $ls1, remote $rs0 -> $rs1)" >&2; exit 1; }

echo "crid_next() per-row cost, local vs remote registry (median of $ROUNDS interleaved rounds of $N rows;"
echo "block size $block_size; traffic counted over the rounds)"
printf '%-26s %10s %7s %12s %14s %14s %10s %6s\n' "registry" "ns/row" "ratio" "blocks/M ids" "round trips/M" "registry ms/M" "us/commit" "waits"
# A server that committed no reservation over the rounds has no time per
# commit to show: "-", not a zero.
row() {
    local name=$1 ns=$2 b=$3 s=$4 c=$5 r=$6 u=$7 w=$8
    awk -v name="$name" -v ns="$ns" -v base="$lm" -v b="$b" -v s="$s" -v c="$c" -v r="$r" -v u="$u" -v w="$w" 'BEGIN {
        m = 1e6 / s
        trip = (c > 0) ? sprintf("%.0f", u / c) : "-"
        printf "%-26s %10.1f %7.2f %12.1f %14.1f %14.1f %10s %6d\n", name, ns, ns / base, b * m, r * m, u * m / 1000, trip, w
    }'
}
row "local (SPI)" "$lm" $((lb1 - lb0)) $((ls1 - ls0)) $((lc1 - lc0)) $((lr1 - lr0)) $((lu1 - lu0)) $((lw1 - lw0))
row "remote (libpq, loopback)" "$rm_" $((rb1 - rb0)) $((rs1 - rs0)) $((rc1 - rc0)) $((rr1 - rr0)) $((ru1 - ru0)) $((rw1 - rw0))
