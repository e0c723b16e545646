#!/usr/bin/env bash
# Bulk load through a column DEFAULT, the user's view of per-id cost:
# INSERT ... SELECT of BULK_N rows (default 10,000,000) from generate_series
# into a fresh table whose primary key comes from the DEFAULT, by one
# session, then by two sessions at once (each half of the rows, into the
# same table). Rows per second per key, median of BULK_ROUNDS rounds that
# take the keys in turn (the order rotates each round), and each beside
# bigserial's rows per second in the same rounds.
# Goals: crid_next() and snowflake_next() at least as fast as bigserial
# (1.00x or more), uuid_generate_v7() within 1.1x of its time (0.91x or
# more: its key is twice as wide). Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"
export PGOPTIONS='-c client_min_messages=warning'
QUICK=${BENCH_QUICK:-0}
n=${BULK_N:-$([ "$QUICK" = 1 ] && echo 20000 || echo 10000000)}
rounds=${BULK_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
# No checkpoint in the middle of a load: each round writes a few GB of WAL.
bench_server_start <<<$'crid.node_id = 1\ncrid.registry_database = postgres\nmax_wal_size = 32GB\ncheckpoint_timeout = 1h'

# Warm-up: the registry takes reservations a moment after CREATE EXTENSION,
# and the worker grows its reserve to the rate it sees.
bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, 3000000)" >/dev/null

keys=(bigserial crid_next snowflake_next uuid_generate_v7)
column() { # key -> the column definition
    case $1 in
    bigserial) echo "id bigserial PRIMARY KEY" ;;
    uuid_generate_v7) echo "id uuid PRIMARY KEY DEFAULT uuid_generate_v7()" ;;
    *) echo "id bigint PRIMARY KEY DEFAULT $1()" ;;
    esac
}

# Rows per second of loading n rows into a fresh table by $2 sessions.
load() { # key sessions -> rows/s
    local key=$1 sessions=$2 per=$((n / $2)) secs got
    bench_psql -q -c "DROP TABLE IF EXISTS bulk" -c "CREATE TABLE bulk ($(column "$key"), payload integer)" -c "CHECKPOINT"
    secs=$(sessions_seconds "$sessions" "INSERT INTO bulk (payload) SELECT g FROM generate_series(1, $per) g")
    got=$(bench_psql -Atq -c "SELECT count(DISTINCT id) FROM bulk")
    [ "$got" = $((per * sessions)) ] || { echo "bench: $key: $got distinct keys, not $((per * sessions))" >&2; return 1; }
    awk -v r=$((per * sessions)) -v t="$secs" 'BEGIN { printf "%.0f\n", r / t }'
}

declare -A rates
for sessions in 1 2; do
    for r in $(seq 1 "$rounds"); do
        for i in "${!keys[@]}"; do
            key=${keys[$(((i + r) % ${#keys[@]}))]}
            rates[$sessions,$key]+="$(load "$key" "$sessions") "
        done
    done
done
bench_psql -q -c "DROP TABLE bulk"

goal() {
    case $1 in
    bigserial) echo "" ;;
    uuid_generate_v7) echo "0.91x or more" ;;
    *) echo "1.00x or more" ;;
    esac
}
echo "Bulk load of $n rows through the primary key's DEFAULT (rows per second, median of $rounds rounds;"
echo "x bigserial = rows per second over bigserial's in the same rounds)"
printf '%-20s %12s %12s %12s %12s  %s\n' "key" "1 session" "x bigserial" "2 sessions" "x bigserial" "goal"
base_one=$(median ${rates[1,bigserial]})
base_two=$(median ${rates[2,bigserial]})
for key in "${keys[@]}"; do
    one=$(median ${rates[1,$key]})
    two=$(median ${rates[2,$key]})
    awk -v k="$key" -v a="$one" -v b="$two" -v x="$base_one" -v y="$base_two" -v g="$(goal "$key")" 'BEGIN {
        printf "%-20s %12.0f %11.2fx %12.0f %11.2fx  %s\n", k, a, a / x, b, b / y, g }'
done
