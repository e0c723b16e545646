# The other benchmark scripts of test/bench (each family's detailed tables,
# and those of features such as time windows, genes and text codecs), run
# as they are and quoted whole. A script that fails fails the section, and
# so make bench, showing its output: a crash must not become a report.
section_more() {
    # Their own servers: stop this report's one so they do not share the machine with it.
    bench_server_stop
    echo "## Other benchmarks"
    local script
    for script in "$CRID_ROOT"/test/bench/*.sh; do
        # versions.sh and goals.sh print a major's block for their own
        # sections, which run them on every major: quoted here too, they
        # would measure this machine's major a second time in the same run.
        case "$(basename "$script")" in lib.sh | report.sh | versions.sh | goals.sh) continue ;; esac
        echo
        echo "### $(basename "$script" .sh)"
        echo
        # The script's opening comment says what it measures.
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
        echo
        echo '```'
        local out status=0
        if [ "$QUICK" = 1 ]; then
            out=$(N=20000 ROUNDS=3 REPEAT=1 SESSION_N=20000 BENCH_QUICK=1 bash "$script" 2>&1) || status=$?
        else
            out=$(bash "$script" 2>&1) || status=$?
        fi
        if [ "$status" != 0 ]; then
            printf '%s\n' "$out" >&2
            echo "make bench: $script failed (exit status $status); its output is above" >&2
            return 1
        fi
        printf '%s\n' "$out" | sed '/==>/d'
        echo '```'
    done
}
