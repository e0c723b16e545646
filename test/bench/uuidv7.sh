#!/usr/bin/env bash
# UUIDv7 benchmark: per-row cost of uuid_generate_v7() beside
# gen_random_uuid(), uuid-ossp's uuid_generate_v4() and the empty-loop floor
# (count(random())), then ids per second from one and two sessions.
# Goals: >= 10x faster than gen_random_uuid(), within 1.5x of the
# floor, two sessions >= 1.7x one. Prints tables; asserts nothing.
source "$(dirname "$0")/lib.sh"
bench_server_start </dev/null

echo "UUIDv7 per-row cost (median of ${ROUNDS:-7} interleaved rounds of ${N:-1000000} rows; vs_first = ratio to uuid_generate_v7())"
per_row_table 'uuid_generate_v7()' 'gen_random_uuid()' 'uuid_generate_v4()' 'random()' 'uuidv7()'

echo
echo "UUIDv7 ids per second (median of ${REPEAT:-3})"
printf '%-44s %14s %14s %8s\n' "expression" "1 session" "2 sessions" "ratio"
scaling_row 'uuid_generate_v7(), server-wide order' 'uuid_generate_v7()'
bench_set "crid.uuidv7_order = 'backend'"
scaling_row 'uuid_generate_v7(), crid.uuidv7_order=backend' 'uuid_generate_v7()'
bench_set "crid.uuidv7_order = DEFAULT"
scaling_row 'gen_random_uuid()' 'gen_random_uuid()'
