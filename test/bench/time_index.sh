#!/usr/bin/env bash
# Queries by time: a one-hour window out of ten million rows (ids spread over
# ten days), through the primary-key index beside the sequential scan a
# decoder predicate gets without crid's help. For snowflake and UUIDv7 ids:
# the predicate with the planner hook off (sequential scan), with it on, the
# *_in() function, and hand-written id bounds (the floor any method can
# reach). Each query counts a column, so the rows themselves are read. Run
# twice: without parallel workers (one process per query), and with the
# default two, where the sequential scan gets three processes.
# Goal: the index paths >= 100x faster than the sequential scan.
# Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"
bench_server_start <<<"shared_buffers = '512MB'"

n=${N:-10000000}
rows() { bench_psql -Atq -c "SELECT count(*) FROM $1" 2>/dev/null || echo 0; }
checks() { bench_psql -Atq -c "SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid::regclass::text IN ('bench_sf', 'bench_v7')" 2>/dev/null || echo 0; }
# Ten days of ids from 2026-03-01, one every 86.4 ms for ten million rows.
# The CHECK constraints say what the columns hold, as docs/queries-by-time.md
# advises: no negative snowflake id, version 7 UUIDs only; with them the hook
# writes the plain id range.
if [ "$(rows bench_sf)" != "$n" ] || [ "$(checks)" != 2 ]; then
    log "creating bench_sf and bench_v7 ($n rows each)"
    bench_psql -q -c "DROP TABLE IF EXISTS bench_sf, bench_v7" \
        -c "CREATE TABLE bench_sf (id bigint PRIMARY KEY CHECK (id >= 0), payload integer)" \
        -c "INSERT INTO bench_sf SELECT snowflake_floor(t) + g % 4096, g
            FROM generate_series(1, $n) g, LATERAL (SELECT '2026-03-01'::timestamptz + g * (interval '10 days' / $n)) x(t)" \
        -c "CREATE TABLE bench_v7 (id uuid PRIMARY KEY CHECK (crid_uuid_v7_check(id)), payload integer)" \
        -c "INSERT INTO bench_v7 SELECT uuid_generate_v7_deterministic(t, g), g
            FROM generate_series(1, $n) g, LATERAL (SELECT '2026-03-01'::timestamptz + g * (interval '10 days' / $n)) x(t)" \
        -c "VACUUM ANALYZE bench_sf" -c "VACUUM ANALYZE bench_v7"
fi

# compare title table decoder in_function floor_function workers
compare() {
    local title=$1 tbl=$2 decoder=$3 in=$4 floor=$5 w="max_parallel_workers_per_gather=$6"
    local a="'2026-03-06 12:00:00+00'" z="'2026-03-06 13:00:00+00'"
    echo "$title"
    bench_psql -q -f "$(dirname "${BASH_SOURCE[0]}")/time_index.sql" -c "
        SELECT * FROM pg_temp.crid_bench_queries(
            ARRAY['sequential scan: $decoder >= a AND < b, hook off',
                  'index: the same predicate, hook on',
                  'index: $in(id, tstzrange(a, b))',
                  'index: id >= $floor(a) AND id < $floor(b), by hand'],
            ARRAY[\$q\$SELECT count(payload) FROM $tbl WHERE $decoder >= $a AND $decoder < $z\$q\$,
                  \$q\$SELECT count(payload) FROM $tbl WHERE $decoder >= $a AND $decoder < $z\$q\$,
                  \$q\$SELECT count(payload) FROM $tbl WHERE $in(id, tstzrange($a, $z))\$q\$,
                  \$q\$SELECT count(payload) FROM $tbl WHERE id >= $floor($a) AND id < $floor($z)\$q\$],
            ARRAY['crid.time_predicates=off,$w', '$w', '$w', '$w'], ${ROUNDS:-9})"
}
for workers in 0 2; do
    echo "== max_parallel_workers_per_gather = $workers$([ $workers = 0 ] && echo ': one process per query' || echo ' (the default): the sequential scan runs in 3 processes')"
    compare "Snowflake ids, one hour (a = 2026-03-06 12:00, b = a + 1 hour) of $n rows: median of ${ROUNDS:-9} interleaved runs, speedup over the sequential scan" \
        bench_sf 'snowflake_to_timestamptz(id)' snowflake_in snowflake_floor $workers
    compare "UUIDv7 ids, the same hour of $n rows" bench_v7 'uuid_v7_to_timestamptz(id)' uuid_v7_in uuid_v7_floor $workers
done
echo "Plans (hook on, default settings):"
bench_psql -q -c "EXPLAIN (costs off) SELECT count(payload) FROM bench_sf
                  WHERE snowflake_to_timestamptz(id) >= '2026-03-06 12:00+00' AND snowflake_to_timestamptz(id) < '2026-03-06 13:00+00'" \
    -c "EXPLAIN (costs off) SELECT count(payload) FROM bench_v7
        WHERE uuid_v7_to_timestamptz(id) >= '2026-03-06 12:00+00' AND uuid_v7_to_timestamptz(id) < '2026-03-06 13:00+00'"
