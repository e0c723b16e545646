#!/usr/bin/env bash
# crid benchmark for multi-writer replication: two servers insert into the
# same tables at once (rows in committed batches of 1,000, ids from the
# column DEFAULT) with replication between them on (PostgreSQL's own
# subscriptions with origin = none on 16 and later, pglogical on 15) beside
# off (the same tables in a schema nobody publishes), measured in the same
# run, per family: insert rows/s per server, the ratio on/off, and how long
# until both servers had every row. bigserial cannot replicate both ways
# (each server numbers from 1), so it is measured on one server writing
# alone, beside each family on one server alone. Medians of ROUNDS
# interleaved rounds of N rows per server. Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_BUILT:-0}" != 1 ]; then
    ensure_packages
    build_and_install
fi
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
BATCH=1000
# Seconds a round waits for both servers to have every row of the other
# before it fails.
REPLICATION_WAIT=${REPLICATION_WAIT:-120}
[ "$N" -ge "$BATCH" ] || N=$BATCH
MAJOR=$(pg_major)
KIND=native
[ "$MAJOR" -ge 16 ] || KIND=pglogical

BENCH_DIR=$(scratch_dir bench-multi-writer)
A_PORT=$(free_port 55462)
B_PORT=$(free_port $((A_PORT + 1)))
mkdir -p "$BENCH_DIR/a" "$BENCH_DIR/b"
[ "$(id -u)" = 0 ] && chown -R postgres: "$BENCH_DIR"
trap 'stop_server "$BENCH_DIR/b/data"; stop_server "$BENCH_DIR/a/data"' EXIT

# Server a is also the crid registry of server b; snowflake nodes 1 and 2.
conf() {
    local libraries=crid
    [ "$KIND" = native ] || libraries=crid,pglogical
    printf '%s\n' "shared_preload_libraries = '$libraries'" "fsync = off" "wal_level = logical" \
        "max_worker_processes = 16" "max_replication_slots = 8" "max_wal_senders = 8"
    # Releases that check output plugins by name must allow pglogical's.
    if [ "$KIND" = pglogical ] && "$(pg_bindir)/postgres" --describe-config | grep '^output_plugin_libraries' >/dev/null; then
        echo "output_plugin_libraries = 'pgoutput, test_decoding, pglogical_output'"
    fi
}
{ conf; echo "crid.node_id = 1"; } | start_server "$BENCH_DIR/a/data" "$A_PORT"
# Short leases: a static node minted on for the first time waits a TTL and
# a fifth (no lease row shows that nobody else minted on it).
{ conf; echo "crid.node_id = 2"; echo "crid.node_lease_ttl = '5s'"
  echo "crid.registry = 'host=127.0.0.1 port=$A_PORT dbname=postgres user=postgres'"; } |
    start_server "$BENCH_DIR/b/data" "$B_PORT"
on() { local s=$1; shift; as_pg "$(pg_bindir)/psql" -X -h "$BENCH_DIR/$s" -p "$(port_of "$s")" -d postgres -v ON_ERROR_STOP=1 "$@"; }
port_of() { if [ "$1" = a ]; then echo "$A_PORT"; else echo "$B_PORT"; fi; }
dsn() { echo "host=127.0.0.1 port=$(port_of "$1") dbname=postgres user=postgres"; }

FAMILIES=(snowflake uuidv7 crid)
id_type() {
    case $1 in
    snowflake) echo 'bigint DEFAULT snowflake_next()' ;;
    uuidv7) echo 'uuid DEFAULT uuid_generate_v7()' ;;
    crid) echo 'bigint DEFAULT crid_next()' ;;
    bigserial) echo 'bigserial' ;;
    esac
}
for s in a b; do
    sql="SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS crid; CREATE SCHEMA mesh; CREATE SCHEMA solo;"
    for f in "${FAMILIES[@]}" bigserial; do
        for schema in mesh solo; do
            [ "$f/$schema" != bigserial/mesh ] || continue
            sql+=" CREATE TABLE $schema.orders_$f (id $(id_type "$f") PRIMARY KEY, qty integer NOT NULL, note text);"
        done
    done
    on "$s" -q -c "$sql"
done
# Replication of schema mesh, each way.
for s in a b; do
    if [ "$KIND" = native ]; then
        on "$s" -q -c "CREATE PUBLICATION mesh FOR TABLES IN SCHEMA mesh"
    else
        on "$s" -q -c "CREATE EXTENSION pglogical" \
            -c "SELECT pglogical.create_node(node_name := '$s', dsn := '$(dsn "$s")')" \
            -c "SELECT pglogical.create_replication_set('mesh')" \
            -c "SELECT pglogical.replication_set_add_all_tables('mesh', ARRAY['mesh'])" >/dev/null
    fi
done
for s in a b; do
    other=b
    [ "$s" = a ] || other=a
    if [ "$KIND" = native ]; then
        on "$s" -q -c "CREATE SUBSCRIPTION mesh_from_$other CONNECTION '$(dsn "$other")' PUBLICATION mesh
                       WITH (origin = none, copy_data = false)"
    else
        on "$s" -q -c "SELECT pglogical.create_subscription(subscription_name := 'mesh_from_$other',
                           provider_dsn := '$(dsn "$other")', replication_sets := ARRAY['mesh'],
                           synchronize_structure := false, synchronize_data := false, forward_origins := '{}')" >/dev/null
    fi
done
streaming() {
    if [ "$KIND" = native ]; then
        on "$1" -Atq -c "SELECT count(*) = 1 FROM pg_stat_subscription WHERE subname LIKE 'mesh_from_%' AND pid IS NOT NULL"
    else
        on "$1" -Atq -c "SELECT bool_and(status = 'replicating') FROM pglogical.show_subscription_status()"
    fi
}
for s in a b; do
    for _ in $(seq 1 120); do [ "$(streaming "$s")" = t ] && break; sleep 1; done
    [ "$(streaming "$s")" = t ] || { echo "multi_writer.sh: the subscription of server $s does not stream" >&2; exit 1; }
done

for _ in $(seq 1 60); do on b -Atq -c 'SELECT snowflake_next() > 0' >/dev/null 2>&1 && break; sleep 1; done
on b -Atq -c 'SELECT snowflake_next() > 0' >/dev/null

# Inserts N rows into schema.orders_family on each server given, at once;
# prints each server's rows/s, then for the replicated schema the seconds
# until every server of the mesh has all the rows. A server that does not
# have them after REPLICATION_WAIT seconds fails the round: a wait that gave
# up is no time to report.
insert_round() {
    local schema=$1 family=$2 s t0 status=0
    shift 2
    local servers=("$@") before=() pids=() pid
    for s in "${servers[@]}"; do before+=("$(on "$s" -Atq -c "SELECT count(*) FROM $schema.orders_$family")"); done
    t0=$(date +%s.%N)
    for s in "${servers[@]}"; do
        (
            t_start=$(date +%s.%N)
            on "$s" -q -c "DO \$\$ BEGIN FOR i IN 1 .. $((N / BATCH)) LOOP
                INSERT INTO $schema.orders_$family (qty, note) SELECT g, 'order ' || g FROM generate_series(1, $BATCH) g;
                COMMIT; END LOOP; END \$\$"
            echo "$t_start $(date +%s.%N)" >"$BENCH_DIR/times.$s"
        ) &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
    [ "$status" = 0 ] || { echo "multi_writer.sh: inserts into $schema.orders_$family failed" >&2; return 1; }
    for s in "${servers[@]}"; do
        awk -v n="$((N / BATCH * BATCH))" '{ printf "%.0f ", n / ($2 - $1) }' "$BENCH_DIR/times.$s"
        rm "$BENCH_DIR/times.$s"
    done
    if [ "$schema" = mesh ]; then
        local want i have t1
        for i in "${!servers[@]}"; do
            want=$((before[i] + ${#servers[@]} * (N / BATCH * BATCH)))
            for _ in $(seq 1 "$((REPLICATION_WAIT * 5))"); do
                have=$(on "${servers[$i]}" -Atq -c "SELECT count(*) FROM $schema.orders_$family")
                [ "$have" -ge "$want" ] && break
                sleep 0.2
            done
            [ "$have" -ge "$want" ] || {
                echo "multi_writer.sh: server ${servers[$i]} has $have of $want rows of $schema.orders_$family after ${REPLICATION_WAIT}s" >&2
                return 1
            }
        done
        t1=$(date +%s.%N)
        awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f", t1 - t0 }'
    fi
    echo
}

declare -A off_rate on_rate converge alone_rate
for f in "${FAMILIES[@]}"; do
    offs=() ons=() conv=() alone=()
    for _ in $(seq 1 "$ROUNDS"); do # interleaved, so load changes hit all alike
        measure "$f: two servers inserting, replication off" ra rb -- insert_round solo "$f" a b
        offs+=("$ra" "$rb")
        measure "$f: two servers inserting, replication on" ra rb c -- insert_round mesh "$f" a b
        ons+=("$ra" "$rb")
        conv+=("$c")
        measure "$f: one server inserting alone" ra -- insert_round solo "$f" a
        alone+=("$ra")
    done
    off_rate[$f]=$(median "${offs[@]}")
    on_rate[$f]=$(median "${ons[@]}")
    converge[$f]=$(median "${conv[@]}")
    alone_rate[$f]=$(median "${alone[@]}")
done
serial=()
for _ in $(seq 1 "$ROUNDS"); do
    measure "bigserial: one server inserting alone" ra -- insert_round solo bigserial a
    serial+=("$ra")
done
serial_rate=$(median "${serial[@]}")

echo "Insert throughput per server: two servers writing at once with replication ($KIND) on beside off,"
echo "and one server writing alone beside bigserial alone (PostgreSQL $MAJOR; medians of $ROUNDS interleaved"
echo "rounds of $N rows per server in batches of $BATCH; fsync off)"
printf '%-10s %12s %12s %7s %12s %12s %10s\n' "family" "off rows/s" "on rows/s" "on/off" "on: all rows" "alone rows/s" "/bigserial"
for f in "${FAMILIES[@]}"; do
    awk -v f="$f" -v off="${off_rate[$f]}" -v on="${on_rate[$f]}" -v c="${converge[$f]}" -v a="${alone_rate[$f]}" \
        -v s="$serial_rate" 'BEGIN { printf "%-10s %12.0f %12.0f %7.2f %11.1fs %12.0f %10.2f\n", f, off, on, on / off, c, a, a / s }'
done
awk -v s="$serial_rate" 'BEGIN { printf "%-10s %12s %12s %7s %12s %12.0f %10.2f\n", "bigserial", "-", "-", "-", "-", s, 1 }'
echo "(on: all rows = seconds from the start of a round until both servers had all 2 x $N rows; bigserial cannot"
echo " replicate both ways: each server numbers from 1)"
