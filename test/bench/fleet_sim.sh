#!/usr/bin/env bash
# crid fleet simulator: up to 1,000 simulated members of a fleet (crid
# servers reserving blocks and taking, renewing and releasing a snowflake
# node lease of a 14-node-bit layout with the very statements crid's worker
# sends, and one in ten a Go service running the library's plain upsert;
# test/bench/fleet_sim.cpp) on one registry, 2,000 leasing members on it,
# then an HA pair (a synchronous, then an asynchronous streaming standby).
# FLEET_PARTS picks parts (default "one leases ha"). Two real crid
# servers (leased nodes) mint beside them; their ids, and every block the
# simulation got, are checked for overlap at the end. Per point: operations
# the registry served a second (res = crid reservations, go = Go upserts,
# ren = lease renewals; offered = what the members' rates ask), their p50 and
# p99 latency in ms; and, per run, the members' takes of their nodes at its
# start (crid_node_lease_take: takes a second, probes per take, p50 and
# p99 latency in ms, the registry's CPU (every process of its postmaster,
# from /proc) in ms per 1,000 operations, errors, refused reservations,
# members that ran dry (stalls), and the mean block. A point whose median
# latency is 3 times the best one's before it, that served less than 90% of
# what its members asked, or that had errors or stalls is marked "<- knee".
# Prints tables; asserts nothing but the uniqueness.
# shellcheck disable=SC2154 # the counts are set by measure (lib.sh)
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_BUILT:-0}" != 1 ]; then
    ensure_packages
    build_and_install
fi
QUICK=${BENCH_QUICK:-0}
PARTS=${FLEET_PARTS:-one leases ha}
part() { [[ " $PARTS " == *" $1 "* ]]; }
POOL=${FLEET_MEMBERS:-1000}
SECS=${SECONDS_EACH:-8}
LEASE_POOL=$((POOL * 2))
if [ "$QUICK" = 1 ]; then
    POOL=100 SECS=2 LEASE_POOL=200
fi
BENCH_DIR=$(scratch_dir bench-fleet-sim)
REG_PORT=$(free_port 55462)
STANDBY_PORT=$(free_port $((REG_PORT + 1)))
A_PORT=$(free_port $((STANDBY_PORT + 1)))
B_PORT=$(free_port $((A_PORT + 1)))
mkdir -p "$BENCH_DIR/registry" "$BENCH_DIR/standby" "$BENCH_DIR/a" "$BENCH_DIR/b"
[ "$(id -u)" = 0 ] && chown -R postgres: "$BENCH_DIR"
load_pids=()
cleanup() {
    local p
    for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for d in a b standby registry; do stop_server "$BENCH_DIR/$d/data"; done
}
trap cleanup EXIT

# The simulator, linked with the block sizing of src/core (and what it uses).
core=("$CRID_ROOT"/src/core/{crid_block_sizing,crid_layout,bit_layout,gene,time_units,murmur3}.cpp)
g++ -std=c++20 -O2 -I"$("$PG_CONFIG" --includedir)" "$CRID_ROOT/test/bench/fleet_sim.cpp" "${core[@]}" \
    -L"$("$PG_CONFIG" --libdir)" -lpq -o "$BENCH_DIR/fleet_sim"

# The registry: crid installed, not preloaded (it mints nothing itself);
# room for every member and the 14-node-bit lease run.
registry_conf=("max_connections = $((LEASE_POOL + 60))" "shared_buffers = 128MB" "fsync = off"
    "shared_preload_libraries = 'pg_stat_statements'" "wal_level = replica" "max_wal_senders = 4")
printf '%s\n' "${registry_conf[@]}" | start_server "$BENCH_DIR/registry/data" "$REG_PORT"
on() { local dir=$1 port=$2; shift 2; as_pg "$(pg_bindir)/psql" -X -h "$BENCH_DIR/$dir" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
on registry "$REG_PORT" -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION crid" -c "CREATE EXTENSION pg_stat_statements"
REG_PID=$(as_pg head -1 "$BENCH_DIR/registry/data/postmaster.pid")
REGISTRY="host=127.0.0.1 port=$REG_PORT dbname=postgres user=postgres"

# Two real crid servers on leased nodes, minting crid and snowflake ids
# throughout: a few thousand a second each, kept for the checks.
for s in "a:$A_PORT" "b:$B_PORT"; do
    set -- "${s%%:*}" "${s#*:}"
    printf '%s\n' "shared_preload_libraries = 'crid'" "fsync = off" "crid.registry = '$REGISTRY'" \
        "crid.node_id = 'lease'" "crid.node_lease_ttl = '10s'" | start_server "$BENCH_DIR/$1/data" "$2"
    on "$1" "$2" -q -c "SET client_min_messages = warning" -c "CREATE EXTENSION crid" \
        -c "CREATE TABLE crid_ids (id bigint); CREATE TABLE snowflake_ids (id bigint); CREATE TABLE stop_load ()" \
        -c "CREATE TABLE refusals (family text, error text)"
done
for s in "a:$A_PORT" "b:$B_PORT"; do
    set -- "${s%%:*}" "${s#*:}"
    # Until both mint: a registry table new to crid holds reservations back
    # for a second or two, and a node with no lease row waits a TTL and a fifth.
    for i in $(seq 1 300); do
        on "$1" "$2" -Atq -c "SELECT crid_next(), snowflake_next()" >/dev/null 2>&1 && break
        [ "$i" -lt 300 ] || { echo "fleet_sim.sh: server $1 does not mint" >&2; exit 1; }
        sleep 0.2
    done
    # A statement refused (a lease that may have lapsed while the registry
    # was slow to renew it, no block within crid.allocation_timeout) is
    # counted, and the load goes on.
    on "$1" "$2" -q -c "DO \$\$ BEGIN LOOP
        BEGIN INSERT INTO crid_ids SELECT crid_next() FROM generate_series(1, 2000);
        EXCEPTION WHEN OTHERS THEN INSERT INTO refusals VALUES ('crid', SQLERRM); END;
        BEGIN INSERT INTO snowflake_ids SELECT snowflake_next() FROM generate_series(1, 2000);
        EXCEPTION WHEN OTHERS THEN INSERT INTO refusals VALUES ('snowflake', SQLERRM); END;
        EXIT WHEN EXISTS (SELECT FROM stop_load);
        COMMIT; PERFORM pg_sleep(0.5); END LOOP; END \$\$" >/dev/null &
    load_pids+=($!)
done

point() { # members ids block ttl [rate]
    echo "members=$1 ids=$2 block=$3 ttl=$4 rate=${5:-4} warmup=2 seconds=$SECS"
}
# sim TAG POOL GO_EVERY STANDBY_PID POINT...: runs the simulator, its
# members leasing nodes 0-16383 (14 node bits), its lines into
# $BENCH_DIR/TAG.tsv, its takes into TAG.takes and its blocks into TAG.blocks.
sim() {
    local tag=$1 pool=$2 go=$3 standby=$4 args=() p
    shift 4
    for p in "$@"; do args+=(--point "$p"); done
    "$BENCH_DIR/fleet_sim" --conninfo "$REGISTRY" --pool "$pool" --nodes 0-16383 --go-every "$go" \
        --primary-pid "$REG_PID" --standby-pid "$standby" --blocks "$BENCH_DIR/$tag.blocks" \
        --takes "$BENCH_DIR/$tag.takes" "${args[@]}" \
        >"$BENCH_DIR/$tag.tsv" 2>"$BENCH_DIR/$tag.err" ||
        { cat "$BENCH_DIR/$tag.err" >&2; echo "fleet_sim.sh: the simulation $tag failed" >&2; return 1; }
}
# The first point of every run: one member that asks for nothing, for the
# registry's CPU without the simulation (its background processes and the
# real servers' traffic), which the other points' CPU is net of.
idle() { echo "members=1 ids=0.001 block=10000 ttl=100000 warmup=1 seconds=$SECS"; }
# table TAG TITLE: the simulator's lines as a table.
table() {
    echo "$2"
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        function v(name) { return $col[name] }
        function ms(us) { return us < 0 ? "-" : sprintf("%.1f", us / 1000) }
        NR == 2 {
            idle = v("primary_cpu_s") / v("seconds"); sidle = v("standby_cpu_s") / v("seconds")
            printf "idle: the registry used %.0f ms of CPU a second (the standby %.0f) without the simulation\n", idle * 1000, sidle * 1000
            next
        }
        {
            ops = (v("res_s") + v("go_s") + v("ren_s")) * v("seconds")
            cpu = ops > 0 ? (v("primary_cpu_s") - idle * v("seconds")) * 1e6 / ops : 0
            scpu = ops > 0 ? (v("standby_cpu_s") - sidle * v("seconds")) * 1e6 / ops : 0
            p50 = v("res_p50_us") > 0 ? v("res_p50_us") : v("ren_p50_us")
            if (NR == 3 || p50 < best) best = p50
            # Latency rises: a median 3 times the best so far; or the
            # registry serves less than 90% of what the members ask.
            short = v("offered_res_s") > 0 && v("res_s") + v("go_s") < 0.9 * v("offered_res_s")
            knee = p50 > 3 * best || short || v("errors") > 0 || v("stalls") > 0 ? "  <- knee" : ""
            offered = v("offered_res_s") < 0 ? "auto" : sprintf("%.0f", v("offered_res_s"))
            printf "%7d %8d %6s %6d %8s %8.0f %7.0f %7.0f %6s %6s %6s %6s %6s %6s %7.0f %7.0f %6d %6d %6d %9.0f%s\n",
                v("members"), v("ids_per_s"), v("block"), v("ttl_s"), offered, v("res_s"), v("go_s"), v("ren_s"),
                ms(v("res_p50_us")), ms(v("res_p99_us")), ms(v("go_p50_us")), ms(v("go_p99_us")),
                ms(v("ren_p50_us")), ms(v("ren_p99_us")), cpu, scpu, v("errors"), v("refused"), v("stalls"),
                v("mean_block"), knee
        }' "$BENCH_DIR/$1.tsv" |
        { read -r line; echo "$line"
          printf '%7s %8s %6s %6s %8s %8s %7s %7s %6s %6s %6s %6s %6s %6s %7s %7s %6s %6s %6s %9s\n' members "ids/s/m" block ttl \
              offered res/s go/s ren/s res50 res99 go50 go99 ren50 ren99 "us/op" sb_us errors refus stalls mean_blk
          cat; }
    awk -F'\t' 'NR == 2 { printf "Takes at the start: %d members took %d of nodes 0-%d in %.1f s (%.0f takes/s, at most 64 rounds in flight),\n" \
        "%.2f probes a take (at most %d), latency p50 %.1f ms, p99 %.1f ms; %d rounds found no node,\n" \
        "%d failed; %d members hold a node, %d nodes held twice\n",
        $1, $4, $2 - 1, $3, $5, $9, $10, $11 / 1000, $12 / 1000, $7, $8, $13, $14 }' "$BENCH_DIR/$1.takes"
    echo
}

echo "2 cores shared with other work; registry and members on one machine over loopback, fsync off;"
echo "latency in ms; us/op = the registry's CPU per operation in microseconds, net of its idle use (sb_us: the"
echo "standby's), so ms per 1,000 operations = us/op; $SECS s a point after 2 s warm-up; <- knee: latency or errors rise"
echo

# Members at 20,000 ids a second each in blocks of 10,000 (2 reservations
# a second each), up to a tenth of the pool and beyond; then the ids a second
# of 100 members, in blocks of 10,000 and in blocks sized as the worker sizes
# them; then 1,000 members that hardly reserve, by lease TTL.
M=$((POOL / 10))
if part one; then
sim one "$POOL" 10 0 "$(idle)" \
    "$(point $((M / 10)) 20000 10000 30)" "$(point $((M * 3 / 10)) 20000 10000 30)" \
    "$(point $((M * 6 / 10)) 20000 10000 30)" "$(point "$M" 20000 10000 30)" "$(point $((M * 2)) 20000 10000 30)" \
    "$(point "$M" 5000 10000 30)" "$(point "$M" 50000 10000 30)" "$(point "$M" 50000 auto 30)" \
    "$(point "$M" 200000 10000 30)" "$(point "$M" 200000 auto 30)" \
    "$(point "$POOL" 100 10000 30)" "$(point "$POOL" 100 10000 10)" "$(point "$POOL" 100 10000 3)"
table one "One registry: members, ids a second per member, block size (auto: sized as crid.max_blocks_per_second = 4 sizes it) and lease TTL"
fi

# 2,000 members leasing nodes of a 14-node-bit layout (16,384 nodes) on the
# one registry: each takes its node with crid_node_lease_take, renews it
# every third of the TTL and releases it at the end.
if part leases; then
sim leases "$LEASE_POOL" 0 0 "$(idle)" "$(point "$LEASE_POOL" 1 10000 30)" "$(point "$LEASE_POOL" 1 10000 10)"
table leases "$LEASE_POOL leasing members (nodes 0-16383 of a 14-node-bit layout), one registry: lease TTL"
fi

# The HA pair: a streaming standby, synchronous and then asynchronous.
if part ha; then
as_pg "$(pg_bindir)/pg_basebackup" -h 127.0.0.1 -p "$REG_PORT" -U postgres -D "$BENCH_DIR/standby/data" -X stream \
    -d "application_name=standby1" -R
printf '%s\n' "${registry_conf[@]}" "hot_standby = on" | start_server "$BENCH_DIR/standby/data" "$STANDBY_PORT"
STANDBY_PID=$(as_pg head -1 "$BENCH_DIR/standby/data/postmaster.pid")
for mode in sync async; do
    names="'standby1'"
    [ "$mode" = sync ] || names="''"
    on registry "$REG_PORT" -q -c "ALTER SYSTEM SET synchronous_standby_names = $names" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(on registry "$REG_PORT" -Atq -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'")" = "$mode" ] && break
        sleep 0.2
    done
    [ "$(on registry "$REG_PORT" -Atq -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'")" = "$mode" ] ||
        { echo "fleet_sim.sh: the standby did not become $mode" >&2; exit 1; }
    sim "ha_$mode" "$POOL" 10 "$STANDBY_PID" "$(idle)" \
        "$(point $((M * 3 / 10)) 20000 10000 30)" "$(point "$M" 20000 10000 30)" \
        "$(point "$M" 200000 auto 30)" "$(point "$POOL" 100 10000 10)"
    table "ha_$mode" "HA pair, $mode streaming standby (the members on the primary)"
done

fi

# The checks: stop the real servers' load, then every id and block.
for s in "a:$A_PORT" "b:$B_PORT"; do
    set -- "${s%%:*}" "${s#*:}"
    on "$1" "$2" -q -c "INSERT INTO stop_load DEFAULT VALUES"
done
for p in "${load_pids[@]}"; do wait "$p"; done
load_pids=()
on b "$B_PORT" -q -c "\\copy crid_ids TO '$BENCH_DIR/b_crid.txt'" -c "\\copy snowflake_ids TO '$BENCH_DIR/b_snowflake.txt'"
cat "$BENCH_DIR"/*.blocks >"$BENCH_DIR/blocks.tsv"
[ "$(id -u)" = 0 ] && chown postgres: "$BENCH_DIR"/*.txt "$BENCH_DIR/blocks.tsv"
measure "the uniqueness checks" crid_n crid_dups sf_n sf_dups blocks overlaps in_blocks -- on a "$A_PORT" -Atq -F ' ' \
    -c "CREATE TABLE sim_blocks (who text, ts bigint, first bigint, past bigint)" \
    -c "\\copy sim_blocks FROM '$BENCH_DIR/blocks.tsv'" \
    -c "\\copy crid_ids FROM '$BENCH_DIR/b_crid.txt'" -c "\\copy snowflake_ids FROM '$BENCH_DIR/b_snowflake.txt'" \
    -c "CREATE INDEX ON sim_blocks (ts, first)" \
    -c "SELECT (SELECT count(*) FROM crid_ids), (SELECT count(*) - count(DISTINCT id) FROM crid_ids),
               (SELECT count(*) FROM snowflake_ids), (SELECT count(*) - count(DISTINCT id) FROM snowflake_ids),
               (SELECT count(*) FROM sim_blocks),
               (SELECT count(*) FROM (SELECT first, lag(past) OVER (PARTITION BY ts ORDER BY first) AS prev
                                      FROM sim_blocks) o WHERE first < prev),
               (SELECT count(*) FROM crid_ids i JOIN sim_blocks b ON b.ts = i.id >> 32
                  AND i.id & 4294967295 >= b.first AND i.id & 4294967295 < b.past)"
for s in "a:$A_PORT" "b:$B_PORT"; do
    set -- "${s%%:*}" "${s#*:}"
    echo "Real server $1: $(on "$1" "$2" -Atq -c "SELECT count(*) FILTER (WHERE family = 'crid') || ' crid statements and '
        || count(*) FILTER (WHERE family = 'snowflake') || ' snowflake statements of 2,000 ids refused'
        || coalesce(' (' || string_agg(DISTINCT left(error, 60), '; ') || ')', '') FROM refusals")"
done
echo "Uniqueness: $crid_n crid ids of the two real servers ($crid_dups repeated), $sf_n snowflake ids ($sf_dups repeated);"
echo "$blocks blocks the simulated members got ($overlaps overlapping another), $in_blocks real crid ids inside one of them"
# The simulation ran the statements the real servers ran: one query id each.
measure "the statements' query ids" reserve_ids take_ids renew_ids release_ids -- on registry "$REG_PORT" -Atq -F ' ' -c "
    SELECT count(DISTINCT queryid) FILTER (WHERE query LIKE '%crid_registry_reserve(%'),
           count(DISTINCT queryid) FILTER (WHERE query LIKE 'SELECT t.node, t.raise_to, t.probed, t.live FROM %'),
           count(DISTINCT queryid) FILTER (WHERE query LIKE 'UPDATE %lease_until = %renewed_at = %RETURNING%'),
           count(DISTINCT queryid) FILTER (WHERE query LIKE 'UPDATE %lease_until = pg_catalog.now(), high_water_ms = %')
    FROM pg_stat_statements"
echo "Statements: the reservations of real and simulated crid servers have $reserve_ids query id(s), their node takes"
echo "$take_ids, their lease renewals $renew_ids, their releases $release_ids"
[ $((crid_dups + sf_dups + overlaps + in_blocks)) = 0 ] || { echo "fleet_sim.sh: an id was served twice" >&2; exit 1; }
