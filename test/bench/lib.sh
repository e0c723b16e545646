# Shared by the benchmark scripts: a throwaway server with crid preloaded,
# per-row cost tables and parallel-session throughput. Sourced.
source "$(dirname "${BASH_SOURCE[0]}")/../harness/common.sh"
# A command that fails inside $(...) fails the script too (bash would go on
# with an empty figure): a benchmark that fails must not print a table.
shopt -s inherit_errexit

# The settings, read from the environment, that shrink what the scripts of
# test/bench measure: sizes, rounds, repeats, seconds. A make bench run with
# any of them set (or BENCH_QUICK, or only some sections) measures something
# else than the report states, so it publishes nothing. check-harness.sh
# holds this list to the settings the scripts read.
BENCH_SIZE_SETTINGS=(N ROUNDS REPEAT SESSION_N BULK_N BULK_ROUNDS INSERT_N INSERT_REPEAT
                     LOOKUP_ROWS SECONDS_EACH LOOKUPS TRAFFIC_N FLEET_MEMBERS FLEET_PARTS)
# Settings the scripts read that change no figure: make bench's own, and
# how long a wait may last before it fails.
BENCH_OTHER_SETTINGS=(BENCH_BUILT BENCH_DIR REPLICATION_WAIT CRID_UUIDV47_SRC)

# Prints the settings of this run that make it other than the full,
# published one ("BENCH_QUICK=1 N=20000"), nothing for a full run.
bench_shrunk_by() {
    local name set=()
    [ "${BENCH_QUICK:-0}" = 0 ] || set+=("BENCH_QUICK=$BENCH_QUICK")
    [ -z "${BENCH_SECTIONS:-}" ] || set+=("BENCH_SECTIONS='$BENCH_SECTIONS'")
    for name in "${BENCH_SIZE_SETTINGS[@]}"; do
        [ -z "${!name:-}" ] || set+=("$name=${!name}")
    done
    echo "${set[*]}"
}

# Publishes the report of a full make bench run that finished, from its
# scratch folder $1: the README's and docs' blocks rewritten from it first
# (bench-docs.sh makes every file before it replaces any, and fails on a
# report that lacks a block), then the report, its charts and their data
# moved into bench/.
bench_publish() {
    local dir=$1
    "$CRID_ROOT/test/harness/bench-docs.sh" update "$dir/report.md"
    mv "$dir"/report.md "$dir"/*.svg "$dir"/*.tsv "$CRID_ROOT/bench/"
}

# Starts the benchmark server (extra settings on stdin) and sets BENCH_DIR/PORT.
bench_server_start() {
    if [ "${BENCH_BUILT:-0}" != 1 ]; then # make bench builds once for all its servers
        ensure_packages
        build_and_install
    fi
    BENCH_DIR=$(scratch_dir bench)
    BENCH_PORT=$(free_port 55432)
    { echo "shared_preload_libraries = 'crid'"; echo "fsync = off"; cat; } |
        start_server "$BENCH_DIR/data" "$BENCH_PORT"
    trap 'stop_server "$BENCH_DIR/data"' EXIT
    bench_psql -q -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS crid; CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\";"
}

bench_psql() { as_pg "$(pg_bindir)/psql" -X -h "$BENCH_DIR" -p "$BENCH_PORT" -d postgres -v ON_ERROR_STOP=1 "$@"; }

# Sets a reloadable setting on the benchmark server ("name = value"; value
# DEFAULT resets it) and waits until new sessions run with it: the
# postmaster reloads after pg_reload_conf() returns, and a new session's
# pg_conf_load_time() is the postmaster's last reload.
bench_set() {
    local name=${1%% =*} value=${1#*= } before i
    before=$(bench_psql -Atq -c "SELECT pg_conf_load_time()")
    if [ "$value" = DEFAULT ]; then
        bench_psql -q -c "ALTER SYSTEM RESET $name" -c "SELECT pg_reload_conf()" >/dev/null
    else
        bench_psql -q -c "ALTER SYSTEM SET $name = $value" -c "SELECT pg_reload_conf()" >/dev/null
    fi
    for i in $(seq 1 100); do
        [ "$(bench_psql -Atq -c "SELECT pg_conf_load_time() > '$before'")" = t ] && return 0
        sleep 0.1
    done
    echo "bench: the server did not reload after setting $1" >&2
    return 1
}

# pgbench against the benchmark server: bench_pgbench [NAME=VALUE...] ARGS...
# (environment for pgbench first, such as PGOPTIONS=...), printing its
# output. A pgbench that fails or reports a failed transaction or an aborted
# client fails here, showing why, rather than yielding figures.
bench_pgbench() {
    local env=() out status=0
    while [[ ${1:-} =~ ^[A-Z_]+= ]]; do
        env+=("$1")
        shift
    done
    out=$(as_pg env "${env[@]}" "$(pg_bindir)/pgbench" -h "$BENCH_DIR" -p "$BENCH_PORT" "$@" postgres 2>&1) || status=$?
    if [ "$status" != 0 ] || grep -qE 'number of failed transactions: [1-9]|aborted' <<<"$out"; then
        printf '%s\n' "$out" >&2
        echo "bench: pgbench $* failed (exit status $status)" >&2
        return 1
    fi
    printf '%s\n' "$out"
}

# Prints the per-row table for the expressions given as arguments; the
# first is the baseline of the ratio column. N and ROUNDS from the env.
per_row_table() {
    local list
    list=$(printf "'%s'," "${@//\'/\'\'}")
    bench_psql -q -f "$(dirname "${BASH_SOURCE[0]}")/per_row.sql" \
        -c "SELECT * FROM pg_temp.crid_bench_per_row(ARRAY[${list%,}], ${N:-1000000}, ${ROUNDS:-7})"
}

# Seconds that $1 sessions take running statement $2 at once, timed from
# outside; ":session" in it becomes 1, 2, ... A session that fails fails
# the caller.
sessions_seconds() {
    local sessions=$1 sql=$2 start end pids=() i p
    start=$(date +%s.%N)
    for i in $(seq 1 "$sessions"); do
        bench_psql -q -c "${sql//:session/$i}" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { echo "bench: a session of $sql failed" >&2; return 1; }; done
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}

# Ids per second of `SELECT count(<expr>) FROM (SELECT generate_series(1, n))`
# run by $1 sessions at once; ":session" in the expression becomes 1, 2, ...
# The set-returning function in the select list streams its rows, where one
# in FROM would first materialise all n of them and leave the generator idle
# meanwhile.
sessions_rate() {
    local sessions=$1 expr=$2 n=${SESSION_N:-2000000} secs
    secs=$(sessions_seconds "$sessions" "SELECT count($expr) FROM (SELECT generate_series(1, $n)) AS rows")
    awk -v s="$sessions" -v n="$n" -v t="$secs" 'BEGIN { printf "%.0f\n", s * n / t }'
}

# True when $1 is a figure: an integer or a decimal, not empty, not "inf".
is_number() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

# Runs the measurement `cmd...` and sets the variables named before "--" to
# the numbers it printed on one line, one each, in order:
#   measure "what it measures" var... -- cmd [arg...]
# A command that fails, or that prints anything else than one number per
# variable (nothing, a NULL counter, a missing metric, "inf"), fails here
# naming what it measured. `read -r a b <<<"$(cmd)"` would go on with the
# command's failure lost and empty figures that arithmetic reads as zeros.
# Call it as a statement of its own: after `||`, `&&` or `if`, bash ignores
# errexit inside it, and a step of cmd that fails would go unnoticed.
measure() {
    local _what=$1 _names=() _out _status _fields _i
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        _names+=("$1")
        shift
    done
    shift
    # errexit stays on in the command: under `x=$(cmd) || ...` a function
    # would go on past a failed step and print a figure anyway.
    set +e
    _out=$(set -e; "$@")
    _status=$?
    set -e
    if [ "$_status" != 0 ]; then
        echo "bench: $_what failed (exit status $_status)" >&2
        return 1
    fi
    read -r -a _fields <<<"$_out"
    if [[ $_out == *$'\n'* ]] || [ "${#_fields[@]}" != "${#_names[@]}" ]; then
        echo "bench: $_what gave \"$_out\" where one line of ${#_names[@]} number(s) was due (${_names[*]})" >&2
        return 1
    fi
    for _i in "${!_names[@]}"; do
        is_number "${_fields[$_i]}" || { echo "bench: $_what gave \"$_out\": \"${_fields[$_i]}\" is not a figure" >&2; return 1; }
        printf -v "${_names[$_i]}" '%s' "${_fields[$_i]}"
    done
}

# Median of the numbers given as arguments. No argument, or one that is not
# a number, fails: a median of nothing would print an empty figure.
median() {
    local v
    [ $# -gt 0 ] || { echo "bench: a median of no figures" >&2; return 1; }
    for v in "$@"; do
        is_number "$v" || { echo "bench: a median of \"$*\": \"$v\" is not a figure" >&2; return 1; }
    done
    printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# Prints one table row "label | 1 session | 2 sessions | ratio" from medians
# of ${REPEAT:-3} alternating runs of 1 and 2 sessions.
scaling_row() {
    local label=$1 expr=$2 ones=() twos=() r one two
    for r in $(seq 1 "${REPEAT:-3}"); do
        ones+=("$(sessions_rate 1 "$expr")")
        twos+=("$(sessions_rate 2 "$expr")")
    done
    one=$(median "${ones[@]}")
    two=$(median "${twos[@]}")
    printf '%-44s %14s %14s %8s\n' "$label" "$one" "$two" "$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2fx", b / a }')"
}

# The Instagram-style generator of "Sharding & IDs at Instagram", in
# PL/pgSQL, the way users write it without an extension.
create_instagram_generator() {
    bench_psql -q <<'SQL'
CREATE SEQUENCE IF NOT EXISTS bench_instagram_seq;
CREATE OR REPLACE FUNCTION bench_instagram_id(shard integer DEFAULT 5) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    epoch_ms constant bigint := 1314220021721;
    seq bigint := nextval('bench_instagram_seq') % 1024;
    now_ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
BEGIN
    RETURN ((now_ms - epoch_ms) << 23) | (shard << 10) | seq;
END $$;
SQL
}
