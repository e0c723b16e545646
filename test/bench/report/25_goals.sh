# The per-id goals on each major: this machine's PostgreSQL, and 17 and 18
# in their Debian roots (test/harness/pg-root.sh), each table from one run
# of test/bench/goals.sh on that major.
section_goals() {
    local here there17 there18
    bench_server_stop
    here=$(BENCH_QUICK="$QUICK" "$CRID_ROOT/test/bench/goals.sh")
    there17=$("$CRID_ROOT/test/harness/pg-root.sh" 17 run env BENCH_QUICK="$QUICK" test/bench/goals.sh)
    there18=$("$CRID_ROOT/test/harness/pg-root.sh" 18 run env BENCH_QUICK="$QUICK" test/bench/goals.sh)
    echo "## Per-id goals"
    echo
    echo "Each ratio is to the empty loop \`SELECT count(x) FROM generate_series(1, n) x\` (or to"
    echo "\`nextval()\`) measured in the same interleaved run on one server, one table per major: this"
    echo "machine's, then 17 and 18 in their Debian roots, each with its sizes and the load average"
    echo "before and after it."
    echo
    echo "$here"
    echo
    echo "$there17"
    echo
    echo "$there18"
    echo
    echo "With the default layout one node mints at most 4,096 ids per millisecond, so"
    echo "\`count(snowflake_next())\` in one session cannot cost less than 244 ns per id whatever the"
    echo "code does; the 20-sequence-bit rows measure the same function where that cap does not bind."
    echo "[docs/performance.md](../docs/performance.md) has the breakdown per generator."
    echo "The bulk-load goals (10M rows through a column DEFAULT, beside bigserial) are under"
    echo "[Other benchmarks, bulk_load](#bulk_load)."
}
