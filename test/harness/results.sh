# Counting what a suite's log says ran, for run-all.sh and the harness's own
# checks (check-harness.sh feeds these logs of every format). Sourced.

# "passed failed" of a pg_regress or pg_isolation_regress log, one result a
# test. PostgreSQL 15 prints "test setup ... ok 22 ms" (a test of a
# parallel group without "test"), "... FAILED" or "... failed (ignored)";
# PostgreSQL 16 and later print TAP: "ok 1 - setup 22 ms", "not ok 2 + crid
# 30 ms" ('-' a test run alone, '+' one of a parallel group).
regress_counts() {
    awk '
        /\.\.\. ok( |$)/ { p++; next }
        /\.\.\. (FAILED|failed)( |$)/ { f++; next }
        /^ok +[0-9]+ +[-+] +[^ ]/ { p++; next }
        /^not ok +[0-9]+ +[-+] +[^ ]/ { f++; next }
        END { print p + 0, f + 0 }' "$1"
}

# "passed failed skipped plans" of prove -v output: assertions that passed
# (not counting skipped ones), failed and were skipped, a whole file skipped
# counting as one skip, and the plans printed, one for each file that ran to
# its end (a file skipped whole too). prove -v shows a file skipped whole as
# "t/NAME.pl .. skipped: why" (after a "[hh:mm:ss] " with --timer), not as
# the file's own "1..0 # SKIP why", which TAP read directly has.
tap_counts() {
    awk '
        /^ok [0-9]+[^#]*# *[Ss][Kk][Ii][Pp]/ { s++; next }
        /^ok [0-9]+/ { p++; next }
        /^not ok [0-9]+/ { f++; next }
        /^1\.\.0 *# *[Ss][Kk][Ii][Pp]/ { s++; plans++; next }
        /^(\[[0-9:]+\] )?[^ ]+\.pl \.+ skipped: / { s++; plans++; next }
        /^1\.\.[0-9]+ *$/ { plans++; next }
        END { print p + 0, f + 0, s + 0, plans + 0 }' "$1"
}

# "passed failed" of a script that prints one "ok - ..." or "not ok - ..."
# line a check; "ok - ... # SKIP why" is a check skipped (check_skips).
check_counts() {
    awk '/^ok - .*# SKIP/ { next } /^ok - / { p++ } /^not ok - / { f++ } END { print p + 0, f + 0 }' "$1"
}
check_skips() { grep -c '^ok - .*# SKIP' "$1" || true; }

# The number of checks a script's log says it makes (its plan, "1..N"),
# or nothing when it printed none.
plan_of() {
    sed -nE 's/^1\.\.([0-9]+)$/\1/p' "$1" | head -n 1
}

# The line of the summary for a suite, and the failures it adds: a suite
# whose log shows fewer results than it has tests (one that vanished, a
# runner that died) fails by as many; one that shows none fails. Prints
# "failed line": the failures with the shortfall added, then the line, which
# ends with the suite's time when SECONDS is given.
#   suite_line NAME PASSED FAILED SKIPPED EXPECTED(or "") [NOTE [SECONDS]]
suite_line() {
    local suite=$1 passed=$2 failed=$3 skipped=$4 expected=$5 note=${6:+ ($6)} seconds=${7:+ in ${7}s} ran
    ran=$((passed + failed + skipped))
    if [ -n "$expected" ] && [ "$ran" -lt "$expected" ]; then
        failed=$((failed + expected - ran))
        note="$note ($ran of $expected tests reported)"
    elif [ -n "$expected" ] && [ "$ran" -gt "$expected" ]; then
        failed=$((failed + 1))
        note="$note ($ran results for $expected tests)"
    elif [ "$ran" = 0 ]; then
        failed=1
        note="$note (nothing ran)"
    fi
    printf '%d %-22s %4d passed, %d failed, %d skipped%s%s\n' "$failed" "$suite:" "$passed" "$failed" "$skipped" \
        "$seconds" "$note"
}

# "passed failed skipped" of the last closing line of a log ("N passed, M
# failed" with ", K skipped" or without), or nothing when it has none.
closing_line() {
    sed -nE 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' "$1" | tail -n 1 |
        awk '{ print $1, $2, ($3 == "" ? 0 : $3) }'
}

# A summary of parts (run-root.sh, run-every-version.sh): `add NAME PASSED
# FAILED SKIPPED SECONDS [NOTE]` adds a part to the totals
# passed/failed/skipped and its line to lines[], with NOTE (why it did not
# run, say) after it. Start with: passed=0 failed=0 skipped=0 lines=()
add() { # name passed failed skipped seconds [note]
    passed=$((passed + $2)) failed=$((failed + $3)) skipped=$((skipped + $4))
    lines+=("$(printf '%-22s %4d passed, %d failed, %d skipped (%ss)%s' "$1:" "$2" "$3" "$4" "$5" "${6:+ ($6)}")")
}

# Adds a part from the closing line of its log: a log without one counts as
# one failure, and so does a run that failed without a failed test.
add_closing() { # name log status seconds
    local line p f s
    line=$(closing_line "$2")
    if [ -n "$line" ]; then read -r p f s <<<"$line"; else p=0 f=1 s=0; fi
    [ "$3" = 0 ] || [ "$f" != 0 ] || f=1
    add "$1" "$p" "$f" "$s" "$4"
}

# "passed failed" of a log of check-package-install.sh that exited with
# `status`: a run that failed without a failed check fails once, and the
# checks it never reached count as failed.
package_counts() { # log status
    local p f expected
    read -r p f < <(check_counts "$1")
    expected=$(grep -c '^check "' "$(dirname "${BASH_SOURCE[0]}")/check-package-install.sh")
    [ "$2" = 0 ] || [ "$f" != 0 ] || f=1
    [ $((p + f)) -ge "$expected" ] || f=$((expected - p))
    echo "$p $f"
}

# The lines of logs that name a failure, each after its source, for the
# digest before a summary: a CI record keeps only the end of a long run, and
# a count alone does not say what to look at. TAP's "not ok" lines carry the
# file they came from (prove -v heads each file's lines with its name), and
# so does prove's word on a file that died;
# pg_regress's FAILED lines, core's FAILED cases, the check scripts' "not ok
# - " lines and clang-format's "not formatted" come as they are.
#   failure_lines LOG...
failure_lines() {
    awk '
        FNR == 1 { file = FILENAME; sub(/.*\//, "", file); tap = "" }
        match($0, /t\/[0-9A-Za-z_]+\.pl/) && !/^(not )?ok/ { tap = substr($0, RSTART + 2, RLENGTH - 2) }
        /^not ok [0-9]+/ && !/# *TODO/ { print (tap != "" ? tap : file) ": " $0; next }
        /^Dubious, / { print (tap != "" ? tap : file) ": " $0; next }
        /^not ok - / { print file ": " $0; next }
        /\.\.\. (FAILED|failed)( |$)/ { print file ": " $0; next }
        /^FAILED  / || /^not formatted: / { print file ": " $0 }' "$@" 2>/dev/null
}
