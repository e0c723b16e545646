# crid beside each major's own generators: this machine's PostgreSQL, and 18
# (core's uuidv7()) in its Debian root (test/harness/pg-root.sh), each table
# from one run of test/bench/versions.sh on that major.
section_versions() {
    local here there
    # Its own servers: the previous section's one would idle beside them.
    bench_server_stop
    here=$(BENCH_QUICK="$QUICK" "$CRID_ROOT/test/bench/versions.sh")
    there=$("$CRID_ROOT/test/harness/pg-root.sh" 18 run env BENCH_QUICK="$QUICK" test/bench/versions.sh)
    echo "## crid beside each major's own generators"
    echo
    echo "On 18, \`uuidv7()\` is core's (order per backend) and \`uuid_generate_v7()\` crid's (server-wide"
    echo "order unless set to per backend); before 18 both are crid's. Goal: crid's \`uuid_generate_v7()\`"
    echo "at most 0.3x the per-id cost of 18's \`uuidv7()\`."
    echo
    echo "$here"
    echo
    echo "$there"
}
