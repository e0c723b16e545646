#!/usr/bin/env bash
# make test PG=<major>: the suites that depend on PostgreSQL, against that
# major in its Debian root (test/harness/pg-root.sh), in two runs, each in a
# throwaway layer of the root:
#   package   check-package-install.sh: the Debian package built and used
#             alone, in a layer where crid was never built or installed
#   suites    run-all.sh --pg-only: build and install, make installcheck
#             (pg_regress, isolation, TAP), pg_regress without preloading,
#             and pg_upgrade from the older major the root holds
# Prints each run's line and ends with one "N passed, M failed, K skipped"
# line (non-zero exit on any failure). A run whose root cannot be built, or
# that ends without its counts, counts as one failure. Logs of each run are
# kept in $CRID_RESULTS (a fresh folder in $TMPDIR by default).
set -euo pipefail
HARNESS=$(cd "$(dirname "$0")" && pwd)
source "$HARNESS/results.sh"

major=${1:-${PG:-}}
[ -n "$major" ] || { echo "usage: run-root.sh <major>" >&2; exit 2; }
results=${CRID_RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/crid-pg$major.XXXXXX")}
mkdir -p "$results"
log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

passed=0 failed=0 skipped=0 lines=()

t0=$(date +%s)
if ! "$HARNESS/pg-root.sh" "$major" build >"$results/root-build.log" 2>&1; then
    # Both runs still get their line, failed, saying why.
    tail -n 20 "$results/root-build.log"
    why="not run: the root of PostgreSQL $major could not be built ($results/root-build.log)"
    add "pg$major package" 0 1 0 $(($(date +%s) - t0)) "$why"
    add "pg$major suites" 0 1 0 0 "$why"
else
    # The package, in a layer of its own.
    log "PostgreSQL $major: the Debian package, alone"
    t=$(date +%s) status=0
    "$HARNESS/pg-root.sh" "$major" run test/harness/check-package-install.sh 2>&1 | tee "$results/package.log" || status=$?
    read -r p f < <(package_counts "$results/package.log" "$status")
    add "pg$major package" "$p" "$f" 0 $(($(date +%s) - t))

    # Every PostgreSQL suite.
    log "PostgreSQL $major: the PostgreSQL suites"
    t=$(date +%s) status=0
    "$HARNESS/pg-root.sh" "$major" run test/harness/run-all.sh --pg-only 2>&1 | tee "$results/suites.log" || status=$?
    add_closing "pg$major suites" "$results/suites.log" "$status" $(($(date +%s) - t))
fi

echo
printf '%s\n' "${lines[@]}"
echo "logs in $results"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
