#!/usr/bin/env bash
# make test-all: every suite on this machine's PostgreSQL (make test), then
# the PostgreSQL suites and the Debian package of 17 and 18 in their roots
# (make test PG=17, PG=18), and the package of 15 in its root (this
# machine's make test builds it but does not install it). The roots are
# built first, in the background, while this machine's suites run. Prints
# each part's line and ends with one "N passed, M failed, K skipped" line,
# the sum (non-zero exit on any failure); a part whose root could not be
# built, or that ended without its counts, counts as one failure, on a line
# of its own that says so.
set -euo pipefail
HARNESS=$(cd "$(dirname "$0")" && pwd)
source "$HARNESS/results.sh"
log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

results=$(mktemp -d "${TMPDIR:-/tmp}/crid-test-all.XXXXXX")
majors=(17 18)
t_all=$(date +%s)

# The roots, built (or found fresh) while this machine's suites run.
declare -A builder
for v in 15 "${majors[@]}"; do
    "$HARNESS/pg-root.sh" "$v" build >"$results/root-$v.log" 2>&1 &
    builder[$v]=$!
done

passed=0 failed=0 skipped=0 lines=()

log "make test: this machine's PostgreSQL, every suite"
t=$(date +%s) status=0
"$HARNESS/run-all.sh" 2>&1 | tee "$results/host.log" || status=$?
add_closing "this machine (15)" "$results/host.log" "$status" $(($(date +%s) - t))

# A root is ready when its build ended well and printed the root's path.
# Each part a root is not ready for still gets its line, failed, saying why:
# no part may go missing from the summary.
declare -A root_problem
for v in 15 "${majors[@]}"; do
    status=0
    wait "${builder[$v]}" || status=$?
    if [ "$status" != 0 ]; then
        root_problem[$v]="the root of PostgreSQL $v could not be built (exit $status, $results/root-$v.log)"
    elif ! grep -qx "$("$HARNESS/pg-root.sh" "$v" path)" "$results/root-$v.log"; then
        root_problem[$v]="the build of the root of PostgreSQL $v did not name that root ($results/root-$v.log)"
    fi
    if [ -n "${root_problem[$v]:-}" ]; then
        log "${root_problem[$v]}"
        tail -n 20 "$results/root-$v.log"
    fi
done

# 15's package: this machine ran 15's suites.
if [ -n "${root_problem[15]:-}" ]; then
    add "pg15 package" 0 1 0 0 "not run: ${root_problem[15]}"
else
    log "PostgreSQL 15: the Debian package, alone"
    t=$(date +%s) status=0
    "$HARNESS/pg-root.sh" 15 run test/harness/check-package-install.sh 2>&1 | tee "$results/package-15.log" || status=$?
    read -r p f < <(package_counts "$results/package-15.log" "$status")
    add "pg15 package" "$p" "$f" 0 $(($(date +%s) - t))
fi

for v in "${majors[@]}"; do
    if [ -n "${root_problem[$v]:-}" ]; then
        add "pg$v" 0 1 0 0 "not run: ${root_problem[$v]}"
        continue
    fi
    t=$(date +%s) status=0
    CRID_RESULTS="$results/pg$v" "$HARNESS/run-root.sh" "$v" 2>&1 | tee "$results/pg$v.log" || status=$?
    add_closing "pg$v" "$results/pg$v.log" "$status" $(($(date +%s) - t))
done

# Every part's "failed: " digest (run-all.sh), named by its part, above the
# summary: a CI record keeps only the end of this long run.
if [ "$failed" != 0 ]; then
    echo
    echo "what failed:"
    for part in "$results"/host.log "$results"/pg*.log "$results"/package-15.log; do
        [ -f "$part" ] || continue
        name=$(basename "$part" .log)
        grep -E '^(failed: |not ok - )' "$part" | sed "s/^/$name: /" | head -n 40 || true
    done
fi
echo
printf '%s\n' "${lines[@]}"
echo "logs in $results; $(($(date +%s) - t_all))s in all"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
