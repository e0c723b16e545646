#!/usr/bin/env bash
# Converted sequences: the per-row cost of nextval() of a converted sequence
# beside snowflake_next() and crid_next() (the ids it hands out), and of
# nextval() of a plain sequence beside both; then the cost of one planned
# statement calling nextval() of a plain sequence on a server without crid,
# with crid preloaded, and with crid preloaded and a sequence of the
# database converted (crid's planner hook looks at every statement).
# Goals: nextval() of a converted sequence <= 1.1x the generator it calls;
# a plain nextval() costs the same with crid loaded. Prints tables; asserts
# nothing.
source "$(dirname "$0")/lib.sh"

prepare() {
    bench_psql -q >/dev/null <<'SQL'
CREATE SEQUENCE IF NOT EXISTS bench_seq;
CREATE TABLE IF NOT EXISTS bench_snowflake (id bigserial PRIMARY KEY);
CREATE TABLE IF NOT EXISTS bench_crid (id bigserial PRIMARY KEY);
CREATE TABLE IF NOT EXISTS bench_pooled (id bigserial PRIMARY KEY);
ALTER SEQUENCE bench_pooled_id_seq INCREMENT BY 50;
SELECT crid_sequence_convert('bench_snowflake') WHERE NOT EXISTS (SELECT FROM crid_sequences);
SELECT crid_sequence_convert('bench_crid', 'crid') WHERE (SELECT count(*) FROM crid_sequences) = 1;
SELECT crid_sequence_convert('bench_pooled') WHERE (SELECT count(*) FROM crid_sequences) = 2;
SQL
}

# Microseconds per statement of `SELECT nextval('bench_seq')`, planned anew
# each time (pgbench -M simple), one session, for ${SECONDS_EACH:-5} s.
statement_us() {
    local script out tps
    script=$(scratch_dir bench-seq-script)/nextval.sql
    echo "SELECT nextval('bench_seq');" >"$script"
    chmod a+r "$script" "$(dirname "$script")"
    out=$(bench_pgbench -n -M simple -c 1 -T "${SECONDS_EACH:-5}" -f "$script")
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
    is_number "$tps" || { echo "bench: pgbench gave no tps" >&2; return 1; }
    awk -v t="$tps" 'BEGIN { printf "%.2f\n", 1e6 / t }'
}

bench_server_start <<<'crid.node_id = 1'
prepare
echo "Per-row cost of converted sequences, default layout (41/10/12: at most 4,096 ids a millisecond per node, which bounds both)"
echo "snowflake family; vs_first = ratio to snowflake_next()"
per_row_table 'snowflake_next()' "nextval('bench_snowflake_id_seq')" "nextval('bench_seq')" 'random()'
echo
echo "crid family; vs_first = ratio to crid_next()"
per_row_table 'crid_next()' "nextval('bench_crid_id_seq')" "nextval('bench_seq')" 'random()'
echo
echo "INCREMENT BY 50, per value of 50 keys, over a twentieth of the rows (each value reserves 99 sequences of a unit: 4,096 a millisecond hold 41 values)"
N=$(( ${N:-1000000} / 20 )) per_row_table 'snowflake_next()' "nextval('bench_pooled_id_seq')" 'random()'
measure "a statement with crid preloaded and sequences converted" converted_us -- statement_us
stop_server "$BENCH_DIR/data"
trap - EXIT

echo
bench_server_start <<<$'crid.node_id = 1\ncrid.snowflake_sequence_bits = 16\ncrid.snowflake_node_bits = 6'
prepare
echo "The same with 16 sequence bits (65,536 ids a millisecond: the layout is not the limit)"
echo "snowflake family; vs_first = ratio to snowflake_next()"
per_row_table 'snowflake_next()' "nextval('bench_snowflake_id_seq')" "nextval('bench_seq')" 'random()'
echo
echo "INCREMENT BY 50, per value of 50 keys, over a twentieth of the rows (65,536 sequences a millisecond hold 661 values)"
N=$(( ${N:-1000000} / 20 )) per_row_table 'snowflake_next()' "nextval('bench_pooled_id_seq')" 'random()'
stop_server "$BENCH_DIR/data"
trap - EXIT

bench_server_start <<<$'crid.node_id = 1'
bench_psql -q -c 'CREATE SEQUENCE bench_seq'
measure "a statement with crid preloaded" preloaded_us -- statement_us
stop_server "$BENCH_DIR/data"
trap - EXIT

bench_server_start <<<$'shared_preload_libraries = \'\''
bench_psql -q -c 'CREATE SEQUENCE bench_seq'
measure "a statement without crid preloaded" plain_us -- statement_us
stop_server "$BENCH_DIR/data"
trap - EXIT

echo
echo "SELECT nextval('bench_seq') of a plain sequence, one statement planned each time (pgbench -M simple, one session)"
printf '%-52s %12s %10s\n' "server" "us/statement" "vs_first"
for row in "crid not preloaded:$plain_us" "crid preloaded:$preloaded_us" "crid preloaded, other sequences converted:$converted_us"; do
    printf '%-52s %12s %10s\n' "${row%%:*}" "${row##*:}" "$(awk -v a="$plain_us" -v b="${row##*:}" 'BEGIN { printf "%.2fx", b / a }')"
done
