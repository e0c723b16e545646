#!/usr/bin/env bash
# `make test`: installs what is missing, builds and installs crid (and the
# test-only module crid_test), then runs every suite and ends with one line
# "N passed, M failed, K skipped" (non-zero exit on any failure). Suites: core unit
# tests (also under sanitizers), fuzzing, clang-format, release and
# packaging checks, citations, doc examples, `make installcheck` (pg_regress with
# crid preloaded, isolation specs, TAP: restart, crash, clock, upgrades),
# pg_regress without preloading, and the exception boundary.
#
# Every suite is checked against what it should have run (the Makefile's
# REGRESS and ISOLATION lists, the t/*.pl files, the core TEST cases, ...):
# a test that reported nothing counts as failed. A skipped test is counted
# and shown; a prerequisite a test would skip without (libfaketime) is a
# failure here.
#
# Time: the TAP files, which mostly wait (for leases, failovers, replication),
# run several at once, in the background and the slowest first, while the
# other suites run; the hardening suite and the packages, which build and
# take a core where the others wait, run in the background too. Every server
# a suite of this script starts outside TAP listens below the ports TAP
# picks from (49152 and up), so the two never race for one. Each suite's
# line ends with its time.
#
# run-all.sh --pg-only runs only what depends on the PostgreSQL major: the
# build, make installcheck, pg_regress without preloading, and, where an
# older major is installed beside this one (a root of pg-root.sh), the
# pg_upgrade suite from it. make test PG=17 runs it in that major's root
# (run-root.sh); core, hardening, format and release checks do not depend
# on the major and run on this machine only.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/results.sh"

pg_only=0
case ${1:-} in
--pg-only) pg_only=1 ;;
"") ;;
*) echo "usage: run-all.sh [--pg-only]" >&2; exit 2 ;;
esac

started_at=$(date +%s)
ensure_packages
build_and_install
log "building and installing the test module crid_test"
make -C "$CRID_ROOT/test/module" -s PG_CONFIG="$PG_CONFIG" >/dev/null
as_root make -C "$CRID_ROOT/test/module" -s install PG_CONFIG="$PG_CONFIG" >/dev/null

BINDIR=$(pg_bindir)
PGXS_DIR=$(pgxs_dir)
WORK=$(scratch_dir test)
cp -r "$CRID_ROOT/sql" "$CRID_ROOT/expected" "$CRID_ROOT/test" "$CRID_ROOT/docs" "$CRID_ROOT/Makefile" "$CRID_ROOT/crid.control" \
    "$CRID_ROOT/META.json" "$WORK/"
[ "$(id -u)" = 0 ] && chown -R postgres: "$WORK"
log "test outputs in $WORK"

# A list or setting of the Makefile (REGRESS, ISOLATION, ...): one source.
make_var() { make -s -C "$CRID_ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" "print-$1"; }
total_passed=0
total_failed=0
total_skipped=0
summary=()

# When each suite began (begin NAME), for the time on its line.
declare -A began
begin() { began[$1]=$(date +%s); }

# Adds a suite's counts to the total and remembers its line, with the
# shortfall against the tests it has counted as failures (suite_line), and
# its time since `begin NAME` (or SECONDS, given).
#   record NAME PASSED FAILED [SKIPPED [EXPECTED [NOTE [SECONDS]]]]
record() {
    local out failed seconds=${7:-}
    [ -n "$seconds" ] || [ -z "${began[$1]:-}" ] || seconds=$(($(date +%s) - began[$1]))
    out=$(suite_line "$1" "$2" "$3" "${4:-0}" "${5:-}" "${6:-}" "$seconds")
    failed=${out%% *}
    total_passed=$((total_passed + $2))
    total_failed=$((total_failed + failed))
    total_skipped=$((total_skipped + ${4:-0}))
    summary+=("${out#* }")
}

# Counts the results of a pg_regress-style log against the number of tests
# it was given; a runner that failed without a failed test counts as one.
record_regress_log() {
    local suite=$1 log=$2 status=$3 diffs=$4 expected=$5 passed failed
    read -r passed failed < <(regress_counts "$log")
    if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
    if [ "$failed" != 0 ] && [ -f "$diffs" ]; then head -n 300 "$diffs"; fi
    record "$suite" "$passed" "$failed" 0 "$expected"
}

# The number of words of a Makefile list.
count_of() { echo "$1" | wc -w; }

# A pg_regress-style runner against a temporary instance: $1 suite name,
# $2 runner (pg_regress or pg_isolation_regress), $3 config, $4 input folder,
# $5 database, rest: tests.
run_regress_suite() {
    local suite=$1 runner=$2 conf=$3 inputdir=$4 dbname=$5
    shift 5
    local out="$WORK/$suite" status=0
    as_pg mkdir -p "$out"
    log "$runner: $suite"
    begin "$suite"
    # From PostgreSQL 16 on the expected files are read from --expecteddir,
    # by default the current folder, not from --inputdir: run in the latter.
    (cd "$inputdir" && as_pg "$runner" \
        --temp-instance="$out/instance" --temp-config="$WORK/test/harness/$conf" \
        --bindir="$BINDIR" --inputdir="$inputdir" --outputdir="$out" --port="$(free_port 44000)" \
        --dbname="$dbname" "$@") 2>&1 | tee "$out/run.log" || status=$?
    record_regress_log "$suite" "$out/run.log" "$status" "$out/regression.diffs" $#
}

# Scripts that print one "ok - ..." or "not ok - ..." line per check.
# $3: how many checks the script makes, where a fixed number; otherwise the
# script prints its plan first (common.sh's plan). A suite with neither
# fails: without a count, checks it never reached would not be missed.
run_check_script() {
    local suite=$1 script=$2 expected=${3:-} status=0
    log "$suite checks"
    begin "$suite"
    "$script" | tee "$WORK/$suite.log" || status=$?
    record_check_log "$suite" "$status" "$expected"
}
# Counts $WORK/$suite.log of a check script that ended with `status`.
#   record_check_log SUITE STATUS [EXPECTED [SECONDS]]
record_check_log() {
    local suite=$1 status=$2 expected=${3:-} p f note=
    read -r p f < <(check_counts "$WORK/$suite.log")
    [ "$status" != 0 ] && [ "$f" = 0 ] && f=1
    [ -n "$expected" ] || expected=$(plan_of "$WORK/$suite.log")
    if [ -z "$expected" ]; then
        f=$((f + 1))
        note="no count of its checks: none given, no plan printed"
    fi
    record "$suite" "$p" "$f" "$(check_skips "$WORK/$suite.log")" "$expected" "$note" "${4:-}"
}
# A check script in the background (its log is read when it ends):
# start_check_script SUITE SCRIPT, then record_background SUITE [EXPECTED].
declare -A background
start_check_script() {
    local suite=$1 script=$2
    log "$suite checks, in the background (its log follows the other suites)"
    (
        local status=0 start
        start=$(date +%s)
        "$script" >"$WORK/$suite.log" 2>&1 || status=$?
        echo "$status $(($(date +%s) - start))" >"$WORK/$suite.done"
    ) &
    background[$suite]=$!
}
record_background() {
    local suite=$1 status seconds
    wait "${background[$suite]}" || true
    read -r status seconds 2>/dev/null <"$WORK/$suite.done" || { status=1; seconds=; }
    log "$suite checks"
    cat "$WORK/$suite.log"
    record_check_log "$suite" "$status" "${2:-}" "$seconds"
}
# The checks a script makes at its top level, one `check "..."` line each.
checks_in() { grep -c '^check "' "$1"; }

# --- TAP, in the background ---------------------------------------------------
# The PGXS suites exactly as a user's `make installcheck` runs them, with
# CRID_REQUIRE_PREREQUISITES: a TAP test that would skip for a missing
# prerequisite (CridTest.pm) fails instead.
installcheck() {
    as_pg env CRID_REQUIRE_PREREQUISITES=1 make -C "$WORK" --no-print-directory installcheck PG_CONFIG="$PG_CONFIG" "$@"
}
# TAP files by how long they take, the slowest first, so that none starts
# last and keeps the others waiting; the rest in name order, files not
# listed among them.
TAP_SLOWEST=(039_fleet_faults 035_lease_seams 036_registry_ha 040_active_active 020_registry_backwards 032_node_leases
             037_registry_pgbouncer 046_pg_cron
             041_crid_check 031_fleet_registry 033_plain_registry 034_registry_seams 042_all_tables_publication)
# How many TAP files run at once (TAP_JOBS=1: one after the other).
TAP_JOBS=${TAP_JOBS:-4}
tap_order() {
    local name listed=" ${TAP_SLOWEST[*]} "
    for name in "${TAP_SLOWEST[@]}"; do
        [ -f "$CRID_ROOT/test/tap/t/$name.pl" ] && echo "test/tap/t/$name.pl"
    done
    for name in "$CRID_ROOT"/test/tap/t/*.pl; do
        name=$(basename "$name" .pl)
        [[ $listed == *" $name "* ]] || echo "test/tap/t/$name.pl"
    done
}
log "make installcheck: TAP, $TAP_JOBS files at once, in the background (its log follows the other suites)"
begin tap
(
    status=0
    installcheck REGRESS= ISOLATION= PROVE_FLAGS="-v --timer -j$TAP_JOBS" PROVE_TESTS="$(tap_order | tr '\n' ' ')" \
        >"$WORK/tap.log" 2>&1 || status=$?
    echo "$status $(date +%s)" >"$WORK/tap.done"
) &
tap_job=$!

if [ "$pg_only" = 0 ]; then
# --- hardening, in the background -------------------------------------------
# Sanitizers over the core unit tests, then a fixed number of fuzzing inputs
# per target (make fuzz runs longer): two more builds of src/core, which
# take a core while the suites below mostly wait on their servers.
start_check_script hardening "$CRID_ROOT/test/harness/run-hardening.sh"
# The packages (make dist, dpkg-buildpackage: one more build of crid) work
# on copies of the checkout, beside the rest as well.
start_check_script packages "$CRID_ROOT/test/harness/check-packages.sh"

# --- core unit tests -------------------------------------------------------
log "core unit tests"
begin core
status=0
"$CRID_ROOT/test/harness/run-core-tests.sh" | tee "$WORK/core.log" || status=$?
line=$(grep -E '^core: [0-9]+ passed, [0-9]+ failed' "$WORK/core.log" || echo "core: 0 passed, 1 failed")
p=$(echo "$line" | sed -E 's/core: ([0-9]+) passed.*/\1/')
f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
[ "$status" != 0 ] && [ "$f" = 0 ] && f=1
# Every TEST(...) case of test/core runs when the binary is given no filter.
record "core" "$p" "$f" 0 "$(cat "$CRID_ROOT"/test/core/*.cpp | grep -c '^TEST(')"

# --- formatting --------------------------------------------------------------
# One check: every C++ file as .clang-format lays it out (make format fixes it).
log "clang-format"
begin format
unformatted=0
for file in "$CRID_ROOT"/src/core/*.?pp "$CRID_ROOT"/src/pg/*/*.?pp "$CRID_ROOT"/test/core/*.?pp \
    "$CRID_ROOT"/test/module/*.?pp "$CRID_ROOT"/test/fuzz/*.?pp; do
    clang-format --dry-run --Werror "$file" 2>/dev/null || { unformatted=1; echo "not formatted: $file"; }
done
record format $((1 - unformatted)) "$unformatted" 0 1

# --- release ---------------------------------------------------------------------
run_check_script harness "$CRID_ROOT/test/harness/check-harness.sh" "$(checks_in "$CRID_ROOT/test/harness/check-harness.sh")"
run_check_script release "$CRID_ROOT/test/harness/check-release.sh"
# Every page, heading and file a comment, message or page cites exists.
run_check_script citations "$CRID_ROOT/test/harness/check-citations.pl" 4
# The examples of the README and docs/ that print a result print it.
run_check_script doc-examples "$CRID_ROOT/test/harness/check-doc-examples.sh"
fi

# --- make installcheck: pg_regress and isolation -------------------------------
# One suite at a time, so a failure in one still lets the others run; on a
# port below TAP's.
PG_REGRESS="$PGXS_DIR/../test/regress/pg_regress"
log "make installcheck: pg_regress"
begin regress-preloaded
status=0
installcheck ISOLATION= TAP_TESTS= EXTRA_REGRESS_OPTS="--port=$(free_port 44100)" 2>&1 | tee "$WORK/regress.log" ||
    status=$?
record_regress_log regress-preloaded "$WORK/regress.log" "$status" "$WORK/regression.diffs" "$(count_of "$(make_var REGRESS)")"

log "make installcheck: isolation"
begin isolation
status=0
installcheck REGRESS= TAP_TESTS= EXTRA_REGRESS_OPTS="--port=$(free_port 44200)" 2>&1 | tee "$WORK/isolation.log" ||
    status=$?
record_regress_log isolation "$WORK/isolation.log" "$status" "$WORK/output_iso/regression.diffs" "$(count_of "$(make_var ISOLATION)")"

# --- pg_regress outside PGXS -------------------------------------------------------
# A server without crid preloaded, and the exception boundary through the
# test module (not part of installcheck: users do not install crid_test).
not_preloaded_list=$(make_var REGRESS_NOT_PRELOADED) || not_preloaded_list=
read -r -a not_preloaded_tests <<<"$not_preloaded_list"
# A list the Makefile could not give would quietly run nothing.
[ ${#not_preloaded_tests[@]} -gt 0 ] || record regress-not-preloaded 0 1
run_regress_suite regress-not-preloaded "$PG_REGRESS" not-preloaded.conf "$WORK" contrib_regression \
    "${not_preloaded_tests[@]}" exception_boundary

# --- pg_upgrade from the older major -------------------------------------------
# Where one is installed beside this major: in the root of 17 (15) and of 18
# (17). Where it does not run, its line says why: skipped on this machine
# (make test-all runs it in those roots) and in the root of 15 (no older
# major crid supports), failed in a root of a later major without the
# older one it should hold.
if [ "$pg_only" = 0 ]; then
    record pg_upgrade 0 0 1 "" "it runs in the roots of 17 and 18: make test-all"
elif [ -n "$(older_major)" ]; then
    run_check_script pg_upgrade "$CRID_ROOT/test/harness/check-pg-upgrade.sh" \
        "$(checks_in "$CRID_ROOT/test/harness/check-pg-upgrade.sh")"
elif [ "$(pg_major)" -le 15 ]; then
    record pg_upgrade 0 0 1 "" "no major older than $(pg_major) to upgrade from"
else
    record pg_upgrade 0 1 0 "" "no major older than $(pg_major) is installed beside it"
fi

# --- the background suites' results -----------------------------------------
if [ "$pg_only" = 0 ]; then
    record_background packages "$(checks_in "$CRID_ROOT/test/harness/check-packages.sh")"
    record_background hardening \
        $(($(grep -c '^report "' "$CRID_ROOT/test/harness/run-sanitizers.sh") + $(ls "$CRID_ROOT"/test/fuzz/fuzz_*.cpp | wc -l)))
fi

# --- TAP's results ------------------------------------------------------------
log "make installcheck: TAP (waiting for it to end)"
wait "$tap_job" || true
cat "$WORK/tap.log"
read -r status tap_end 2>/dev/null <"$WORK/tap.done" || { status=1; tap_end=$(date +%s); }
read -r p f s plans < <(tap_counts "$WORK/tap.log")
[ "$status" != 0 ] && [ "$f" = 0 ] && f=1
# Every file prints its plan when it ends (done_testing): a file that died
# or never ran printed none.
tap_files=$(ls "$CRID_ROOT"/test/tap/t/*.pl | wc -l)
note="$plans of $tap_files files ran to the end"
[ "$plans" -lt "$tap_files" ] && f=$((f + tap_files - plans))
if [ "$f" != 0 ]; then
    for l in "$WORK"/tmp_check/log/regress_log_*; do
        [ -f "$l" ] && { echo "--- $l"; tail -n 60 "$l"; }
    done
fi
grep -E '^(ok [0-9]+.*# *skip|1\.\.0 *# *SKIP)|\.pl \.+ skipped: ' "$WORK/tap.log" || true
record tap "$p" "$f" "$s" "" "$note" $((tap_end - began[tap]))

# What failed, by name, just above the counts (failure_lines): the end of
# the log is what a CI record keeps.
if [ "$total_failed" != 0 ]; then
    echo
    echo "what failed:"
    mapfile -t logs < <(find "$WORK" -maxdepth 2 -name '*.log' | sort)
    failure_lines "${logs[@]}" | head -n 60 | sed 's/^/failed: /' || true
fi
echo
printf '%s\n' "${summary[@]}"
echo "$(($(date +%s) - started_at))s in all"
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" = 0 ]
