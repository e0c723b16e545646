# Per-id cost of every crid generator beside what users would otherwise
# pick, all measured in one run, interleaved round by round.
section_per_id() {
    bench_server_switch <<<$'crid.node_id = 1\ncrid.registry_database = postgres'
    create_instagram_generator
    # The worker grows its reserve to the rate it sees before crid is timed.
    bench_psql -q -c "SELECT count(crid_next()) FROM generate_series(1, $([ "$QUICK" = 1 ] && echo 20000 || echo 3000000))" >/dev/null
    local exprs=('uuid_generate_v7()' 'uuidv7()' 'snowflake_next()' 'crid_next()')
    have_function 'uuid_generate_v7(integer,integer)' && exprs+=('uuid_generate_v7(5, 4)')
    have_function 'crid_next(integer,integer)' && exprs+=('crid_next(5, 4)')
    exprs+=('gen_random_uuid()' 'uuid_generate_v1()' 'uuid_generate_v4()' "nextval('bench_seq')"
            'bench_instagram_id()' 'random()')
    local n rounds list rows
    n=$([ "$QUICK" = 1 ] && echo 20000 || echo 500000)
    rounds=$([ "$QUICK" = 1 ] && echo 3 || echo 7)
    list=$(printf "'%s'," "${exprs[@]//\'/\'\'}")
    rows=$(bench_psql -Atq -F'|' -f "$CRID_ROOT/test/bench/per_row.sql" \
        -c "SELECT expression, ns_per_row, minus_floor_ns FROM pg_temp.crid_bench_per_row(ARRAY[${list%,}], $n, $rounds)")
    local table
    # A row without its figures, or a run without the two baselines, fails:
    # awk would read a missing figure as 0 and print ratios of 0 or inf.
    table=$(echo "$rows" | awk -F'|' '
        $2 !~ /^[0-9]+(\.[0-9]+)?$/ || $3 !~ /^-?[0-9]+(\.[0-9]+)?$/ { print "bench: per-id cost: no figures in \"" $0 "\"" > "/dev/stderr"; bad = 1; exit 1 }
        { e[NR] = $1; ns[NR] = $2; above[NR] = $3; if ($1 == "nextval('"'"'bench_seq'"'"')") seq = $2; if ($1 == "gen_random_uuid()") rnd = $2 }
        END { if (bad) exit 1
              if (seq <= 0 || rnd <= 0) { print "bench: per-id cost: no figure for nextval() or gen_random_uuid()" > "/dev/stderr"; exit 1 }
              for (i = 1; i <= NR; i++) {
                  name = e[i]
                  if (name == "random()") name = "random() (floor: the loop itself)"
                  if (name == "bench_instagram_id()") name = "Instagram-style PL/pgSQL snowflake"
                  printf "`%s`|%.1f|%.1f|%.2fx|%.2fx\n", name, ns[i], above[i], ns[i] / seq, ns[i] / rnd } }' |
        md_table "generator|ns per id|ns above the floor|vs nextval()|vs gen_random_uuid()")
    echo "## Per-id cost"
    echo
    echo "Median of $rounds interleaved rounds of \`SELECT count(f()) FROM generate_series(1, $n)\`: a noisy"
    echo "neighbour slows every candidate alike. \`random()\` is the floor (the loop without a generator);"
    echo "\`nextval('bench_seq')\` is a plain sequence, \`uuid_generate_v1/v4\` come from uuid-ossp."
    echo
    echo "$table"
}
