#!/usr/bin/env bash
# Checks of make test's own counting, one "ok"/"not ok" line each: the
# results of every log format run-all.sh reads are counted (pg_regress of
# PostgreSQL 15 and the TAP lines of 16 and later, prove -v with skips), a
# suite that reports fewer tests than it has fails, a TAP test whose
# prerequisite is missing fails under make test instead of skipping, and the
# citations check names what is stale.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/results.sh"
source "$(dirname "$0")/../bench/lib.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/crid-harness.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# pg_regress of PostgreSQL 15: "test" lines, a parallel group, a failure.
cat >"$scratch/regress15.log" <<'LOG'
============== running regression test queries        ==============
test setup                        ... ok           22 ms
parallel group (2 tests):  crid snowflake
     crid                         ... ok         2068 ms
     snowflake                    ... FAILED      428 ms
test uuidv7                       ... failed (ignored)      599 ms
test genes                        ... ok          363 ms

======================
 2 of 5 tests failed, 1 of these failures ignored.
======================
LOG
check "pg_regress 15: 3 ok and 2 failed lines counted" test "$(regress_counts "$scratch/regress15.log")" = "3 2"

# pg_regress and pg_isolation_regress of PostgreSQL 16 and later (TAP).
cat >"$scratch/regress16.log" <<'LOG'
# using temp instance on port 61696 with PID 2236
ok 1         - setup                                      22 ms
# parallel group (2 tests):  crid snowflake
ok 2         + crid                                     2068 ms
not ok 3     + snowflake                                 428 ms
ok 4         - uuidv7                                    599 ms
not ok 5     - genes                                     363 ms
# (test process exited with exit code 2)
1..5
# 2 of 5 tests failed.
LOG
check "pg_regress 16+: 3 ok and 2 not ok lines counted" test "$(regress_counts "$scratch/regress16.log")" = "3 2"
check "pg_regress 16+: its plan and comments are no results" \
    test "$(printf '1..8\n# All 8 tests passed.\nok\n' | regress_counts /dev/stdin)" = "0 0"

# prove -v --timer: two files that ended, one with a skipped assertion, two
# skipped whole (prove shows no "1..0 # SKIP" of theirs: the file's line
# says "skipped: why", after dots that pad the names when prove runs files
# at once), and one that died before its plan.
cat >"$scratch/prove.log" <<'LOG'
[10:00:01] test/tap/t/001_a.pl .. 
ok 1 - first
ok 2 # skip no plproxy
not ok 3 - third
1..3
[10:00:02] test/tap/t/002_b.pl .. skipped: libfaketime is not installed
[10:00:02] test/tap/t/045_e.pl .............. skipped: pg_partman 5 is not packaged for PostgreSQL 15
[10:00:03] test/tap/t/003_c.pl .. 
ok 1 - before the crash
ok 2 - after
1..2
[10:00:04] test/tap/t/004_d.pl .. 
ok 1 - the only one
Dubious, test returned 255 (wstat 65280, 0xff00)
LOG
check "prove -v: 4 passed, 1 failed, 3 skipped, 4 plans" test "$(tap_counts "$scratch/prove.log")" = "4 1 3 4"
check "TAP read directly: a file skipped whole is one skip and its plan" \
    test "$(printf '1..0 # SKIP libfaketime is not installed\n' | tap_counts /dev/stdin)" = "0 0 1 1"
# The digest above a summary names what failed, each with its source.
check "what failed: TAP's failure and the file that died, by file; pg_regress's by log" test \
    "$(failure_lines "$scratch/prove.log" "$scratch/regress15.log" | tr '\n' '|')" = \
    "001_a.pl: not ok 3 - third|004_d.pl: Dubious, test returned 255 (wstat 65280, 0xff00)|regress15.log:      snowflake                    ... FAILED      428 ms|regress15.log: test uuidv7                       ... failed (ignored)      599 ms|"

# A suite that reported fewer results than it has tests fails by as many
# (suite_line prints the failures, then the summary line).
line_of() { suite_line "$@" | tr -s ' '; }
check "a suite with 13 of 14 tests reported fails by one" \
    test "$(line_of regress 13 0 0 14)" = "1 regress: 13 passed, 1 failed, 0 skipped (13 of 14 tests reported)"
check "a suite that ran nothing fails" test "$(line_of tap 0 0 0 '')" = "1 tap: 0 passed, 1 failed, 0 skipped (nothing ran)"
check "a suite with every test reported passes" \
    test "$(line_of isolation 6 0 0 6)" = "0 isolation: 6 passed, 0 failed, 0 skipped"

# A check script that prints its plan first (check-release.sh): the plan is
# its expected count, so a run that stopped after 3 of 5 checks fails by 2;
# a log without a plan has no count.
printf '1..5\nok - one\nok - two\nnot ok - three\n' >"$scratch/planned.log"
check "a check script's plan of 5 is its expected count" test "$(plan_of "$scratch/planned.log")" = 5
check "a check script that stopped after 3 of the 5 checks of its plan fails by 2" \
    test "$(line_of release 2 1 0 "$(plan_of "$scratch/planned.log")")" = \
    "3 release: 2 passed, 3 failed, 0 skipped (3 of 5 tests reported)"
printf 'ok - one\nnot ok - two\n' >"$scratch/unplanned.log"
check "a check script's log without a plan gives no count" test -z "$(plan_of "$scratch/unplanned.log")"

# The parts of make test PG=<major> and make test-all: a package run that
# stopped after two of its checks fails by the rest; a part whose log has
# no closing line fails once.
printf 'ok - one\nok - two\n' >"$scratch/package.log"
package_total=$(grep -c '^check "' "$(dirname "$0")/check-package-install.sh")
check "a package run that stopped after 2 checks fails by the rest" \
    test "$(package_counts "$scratch/package.log" 1)" = "2 $((package_total - 2))"
echo "ok 1 - no closing line" >"$scratch/part.log"
passed=0 failed=0 skipped=0 lines=()
add_closing part "$scratch/part.log" 0 1
check "a part without its closing line fails once" test "$passed $failed" = "0 1"
add part 0 1 0 0 "not run: its root could not be built"
check "a part that did not run fails, on a line saying why" \
    test "$failed $(tr -s ' ' <<<"${lines[-1]}")" = "2 part: 0 passed, 1 failed, 0 skipped (0s) (not run: its root could not be built)"

# A TAP test that needs libfaketime, where there is none: skipped when run
# by hand, a failed assertion under make test.
cat >"$scratch/needs_faketime.pl" <<'PERL'
use strict;
use warnings;
use CridTest;
use Test::More;
fake_clock('+0');
pass('ran with a fake clock');
done_testing();
PERL
faketime_test() { # faketime_test CRID_REQUIRE_PREREQUISITES
    mkdir -p "$scratch/tap$1"
    TESTDIR="$scratch/tap$1" CRID_REQUIRE_PREREQUISITES=$1 CRID_LIBFAKETIME=/nonexistent/libfaketime.so.1 \
        perl -I "$(dirname "$("$PG_CONFIG" --pgxs)")/../../src/test/perl" -I "$CRID_ROOT/test/tap/lib" \
        "$scratch/needs_faketime.pl" 2>/dev/null || true
}
check "without libfaketime, by hand: the TAP test skips" \
    test "$(faketime_test '')" = "1..0 # SKIP libfaketime is not installed"
check "without libfaketime, under make test: the TAP test fails" \
    test "$(faketime_test 1 | head -1)" = "not ok 1 - libfaketime is installed (make test requires it for this test)"

# A check script's "ok - ... # SKIP why" lines are skipped checks, not passed.
printf 'ok - one\nok - two # SKIP no server\nnot ok - three\n' >"$scratch/checks.log"
check "a check script's skipped lines count as skipped" \
    test "$(check_counts "$scratch/checks.log") $(check_skips "$scratch/checks.log")" = "1 1 1"

# The doc examples' reader: which statements of a page print a result, and
# how each is compared (the forms doc-examples.pl lists).
cat >"$scratch/page.md" <<'PAGE'
```sql
-- postgresql.conf: shared_preload_libraries = 'crid', crid.node_id = 7
SELECT 1;               -- 1: a value
SELECT 2;               -- a word of prose
SELECT now()::date;     -- 2026-12-03: of the clock, so its shape
SELECT f(3);            -- e.g. 3: one value of many
SELECT f(4);            -- ERROR 55000 here
SELECT * FROM t;
--  a | b
--  1 | 2
EXPLAIN SELECT 5;
--  Result
```
PAGE
mkdir "$scratch/examples"
examples_skipped=$(perl "$(dirname "$0")/doc-examples.pl" extract "$scratch/examples" "$scratch/page.md")
check "doc examples: a value, the clock's, chance's, an error and a table are read as such" \
    test "$(perl -MJSON::PP -0777 -ne 'print join " ", map { $_->{check} ? $_->{check}{mode} : "-" } @{ decode_json($_)->{steps} }' \
        "$scratch/examples/001/block.json")" = "exact - shape shape error table -"
check "doc examples: a plan is skipped, with its reason" grep -q 'page.md:11 EXPLAIN SELECT 5 # SKIP a plan' <<<"$examples_skipped"

# The citations check reads a repository of its own: in one with a stale
# hint, a file that moved and a link to a missing heading it names each
# with its file and line, and fails; once they are fixed it passes.
mkdir -p "$scratch/repo/src/core" "$scratch/repo/docs"
printf '# Guide\n\n## Restoring the registry\n\nSee [the guide](#restoring).\n' >"$scratch/repo/docs/guide.md"
printf '// Renewal: core/lease.cpp has the argument.\nconst char *hint = "see \\"Restoring the "\n                   "registry\\" in the README";\n' \
    >"$scratch/repo/src/core/clock.cpp"
printf '# crid\n' >"$scratch/repo/README.md"
(cd "$scratch/repo" && git init -q . && git add -A)
citations=$("$(dirname "$0")/check-citations.pl" "$scratch/repo" || true)
check "citations: a stale hint is named with its file and line" \
    grep -qF 'src/core/clock.cpp:2: "Restoring the registry" in README: README.md has no such heading' <<<"$citations"
check "citations: a file that is not there is named" grep -qF 'src/core/clock.cpp:1: core/lease.cpp: no such file' <<<"$citations"
check "citations: a link to a missing heading is named" grep -qF 'docs/guide.md:5: #restoring: docs/guide.md has no such heading' <<<"$citations"
check "citations: the two kinds with a dangling citation fail" test "$(grep -c '^not ok - ' <<<"$citations")" = 2
sed -i 's/core\/lease.cpp/core\/clock.cpp/' "$scratch/repo/src/core/clock.cpp"
sed -i 's/in the README/in docs\/guide.md/' "$scratch/repo/src/core/clock.cpp"
sed -i 's/(#restoring)/(#restoring-the-registry)/' "$scratch/repo/docs/guide.md"
check "citations: fixed, every citation leads somewhere" bash -c "'$(dirname "$0")/check-citations.pl' '$scratch/repo' >/dev/null"

# make bench publishes (bench/, and the README's and docs' tables made from
# it) only a full run: one with BENCH_QUICK, BENCH_SECTIONS or any size
# setting of the benchmark scripts is not the run the pages describe.
# shrunk_by NAME=VALUE...: what keeps make bench with only those set from
# publishing.
# shellcheck disable=SC2163 # "$@" are NAME=VALUE words
shrunk_by() { (unset BENCH_QUICK BENCH_SECTIONS "${BENCH_SIZE_SETTINGS[@]}"; [ $# = 0 ] || export "$@"; bench_shrunk_by); }
check "make bench without settings is a full run, published" test -z "$(shrunk_by)"
check "make bench with BENCH_QUICK=0 is a full run, published" test -z "$(shrunk_by BENCH_QUICK=0)"
shrinks=1
for setting in BENCH_QUICK=1 BENCH_SECTIONS=per_id "${BENCH_SIZE_SETTINGS[@]/%/=1}"; do
    [ -n "$(shrunk_by "$setting")" ] || { echo "# make bench with $setting would publish" >&2; shrinks=0; }
done
check "make bench with BENCH_QUICK, BENCH_SECTIONS or any size setting publishes nothing" test "$shrinks" = 1
# Every upper-case setting a benchmark script reads from the environment
# (\${NAME:-default}) is either a size setting (listed, so that it stops
# publishing) or listed as one that changes no figure.
unlisted=$(grep -ohE '\$\{[A-Z][A-Z_0-9]*:[-=]' "$CRID_ROOT"/test/bench/*.sh "$CRID_ROOT"/test/bench/report/*.sh |
    sed -E 's/^\$\{([A-Z_0-9]+):.$/\1/' | sort -u |
    grep -vxF -f <(printf '%s\n' BENCH_QUICK BENCH_SECTIONS "${BENCH_SIZE_SETTINGS[@]}" "${BENCH_OTHER_SETTINGS[@]}") || true)
[ -z "$unlisted" ] || echo "# settings the benchmarks read that lib.sh does not list: $unlisted" >&2
check "every setting the benchmark scripts read is a listed size setting or listed as changing no figure" test -z "$unlisted"

checks_done
