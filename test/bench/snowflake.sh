#!/usr/bin/env bash
# Snowflake benchmark: per-row cost of snowflake_next() beside nextval() on a
# sequence, gen_random_uuid(), an Instagram-style PL/pgSQL generator and the
# empty-loop floor; then ids per second from one and two sessions, on one
# node and on two nodes. The default layout caps one node at 4,096 ids per
# ms, so a second table repeats the cost with 16 sequence bits to show what a
# call costs when the layout is not the limit.
# Goals: snowflake_next() <= 0.6x nextval(); two sessions on two
# nodes >= 1.7x one; two on one node >= min(1.7x one, 90% of the layout's
# limit). Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"

run_tables() {
    bench_psql -q -c "CREATE SEQUENCE IF NOT EXISTS bench_seq"
    create_instagram_generator
    per_row_table 'snowflake_next()' "nextval('bench_seq')" 'gen_random_uuid()' 'bench_instagram_id()' 'random()'
}

bench_server_start <<<'crid.node_id = 1'
echo "Snowflake per-row cost, default layout (41/10/12: at most 4,096,000 ids/s per node); vs_first = ratio to snowflake_next()"
run_tables
echo
echo "Snowflake ids per second (median of ${REPEAT:-3}); layout limit 4,096,000 per node"
printf '%-44s %14s %14s %8s\n' "expression" "1 session" "2 sessions" "ratio"
scaling_row 'snowflake_next(1): every session on node 1' 'snowflake_next(1)'
scaling_row 'snowflake_next(n): a node per session' 'snowflake_next(:session)'
scaling_row "nextval('bench_seq')" "nextval('bench_seq')"
stop_server "$BENCH_DIR/data"
trap - EXIT

echo
bench_server_start <<<$'crid.node_id = 1\ncrid.snowflake_sequence_bits = 16\ncrid.snowflake_node_bits = 6'
echo "Snowflake per-row cost with 16 sequence bits (65,536 ids per ms: the layout is not the limit)"
run_tables
