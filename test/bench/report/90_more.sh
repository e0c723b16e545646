# The other benchmark scripts of test/bench (each family's detailed tables,
# and those of features such as time windows, genes and text codecs), run
# as they are and quoted whole; a script whose feature this build lacks
# says so and is skipped.
section_more() {
    # Their own servers: stop this report's one so they do not share the machine with it.
    if [ -n "${BENCH_DIR:-}" ]; then
        stop_server "$BENCH_DIR/data"
        trap - EXIT
        BENCH_DIR=
    fi
    echo "## Other benchmarks"
    local script
    for script in "$CRID_ROOT"/test/bench/*.sh; do
        case "$(basename "$script")" in lib.sh | report.sh) continue ;; esac
        echo
        echo "### $(basename "$script" .sh)"
        echo
        # The script's opening comment says what it measures.
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
        echo
        echo '```'
        if [ "$QUICK" = 1 ]; then
            N=20000 ROUNDS=3 REPEAT=1 SESSION_N=20000 BENCH_QUICK=1 bash "$script" 2>&1 | grep -v '==>' || true
        else
            bash "$script" 2>&1 | grep -v '==>' || true
        fi
        echo '```'
    done
}
