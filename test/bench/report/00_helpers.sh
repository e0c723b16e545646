# Helpers of the report sections (sourced by report.sh): servers per
# section, markdown tables and charts.

# Stops the section's server, if any, and starts a fresh one with crid
# preloaded; extra settings on stdin (a later line overrides an earlier one,
# so "fsync = on" undoes lib.sh's fsync = off).
bench_server_switch() {
    bench_server_stop
    bench_server_start >/dev/null
    bench_psql -q -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pgstattuple;
                      CREATE SEQUENCE IF NOT EXISTS bench_seq;"
}

# Ids per second of a pgbench script run by $3 clients for $4 seconds, each
# transaction minting $2 ids. A failed run fails the caller.
pgbench_ids_per_second() {
    local sql=$1 per_tx=$2 clients=$3 secs=$4 script out tps
    script=$(mktemp "$BENCH_DIR/script.XXXXXX.sql")
    echo "$sql" >"$script"
    chmod 644 "$script"
    out=$(bench_pgbench -n -c "$clients" -j "$clients" -T "$secs" -f "$script")
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
    [ -n "$tps" ] || { printf '%s\n' "$out" >&2; echo "bench: pgbench printed no tps for $sql" >&2; return 1; }
    awk -v t="$tps" -v n="$per_tx" 'BEGIN { printf "%.0f", t * n }'
}

# Stops the section's server, if any, and removes its folder: a section that
# runs scripts with servers of their own stops it first, so that it does not
# idle beside the one being measured.
bench_server_stop() {
    if [ -n "${BENCH_DIR:-}" ]; then
        stop_server "$BENCH_DIR/data"
        as_root rm -rf "$BENCH_DIR"
        trap - EXIT
        BENCH_DIR=
    fi
}

# True when the benchmark server has a function of that signature (sections
# about features a build may lack are skipped, not failed). A query that
# fails exits: called from `if` or `&&`, where errexit does not hold, it
# would otherwise read as "no such function" and drop the rows silently.
have_function() {
    local found
    found=$(bench_psql -Atq -c "SELECT to_regprocedure('$1') IS NOT NULL") ||
        { echo "bench: cannot tell whether the server has $1" >&2; exit 1; }
    [ "$found" = t ]
}

# A markdown table from lines "a|b|c" on stdin; $1 is the header "a|b|c".
md_table() {
    local header=$1
    echo "| ${header//|/ | } |"
    echo "|$(echo "$header" | awk -F'|' '{ for (i = 1; i <= NF; i++) printf (i == 1 ? "---|" : "---:|") }')"
    awk -F'|' '{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }'
}

# Draws a line chart: $1 svg path, $2 title, $3 x label, $4 y label, $5 a
# tab-separated data file whose first row names the columns (x first, then
# one column per line drawn). $6: "logx" for a logarithmic x axis.
line_chart() {
    local svg=$1 title=$2 xlabel=$3 ylabel=$4 data=$5 opt=${6:-}
    local columns
    columns=$(head -1 "$data" | awk -F'\t' '{ print NF }')
    gnuplot <<GNUPLOT
set terminal svg size 860,460 dynamic font "sans,12" background "white"
set output "$svg"
set datafile separator "\t"
set title "$title"
set xlabel "$xlabel"
set ylabel "$ylabel"
set key outside right top
set grid
$([ "$opt" = logx ] && echo "set logscale x 2")
set yrange [0:*]
plot for [c=2:$columns] "$data" using 1:c with linespoints linewidth 2 pointsize 0.7 title columnheader(c)
GNUPLOT
}
