#!/usr/bin/env bash
# pg_upgrade with crid in use, one "ok"/"not ok" line per check: from the
# older major installed beside PG_CONFIG's (in pg-root.sh's roots: 15 in
# 17's, 17 in 18's) to PG_CONFIG's, which run-all.sh --pg-only has built
# and installed crid for.
#
# The old cluster has crid preloaded, its registry (crid_next() through the
# block reserver), snowflake ids on a node leased from the registry, and
# tables whose DEFAULTs mint every family. Its last UUIDv7 and snowflake ids
# are minted ahead of the clock, as after a clock step back (its high-water
# mark is moved five minutes ahead while it is stopped): ids from the clock
# alone would sort before them. After pg_upgrade
# and crid_copy_marks (which carries the mark files pg_upgrade leaves
# behind) the new server's DEFAULTs work, the registry and the leases keep
# their rows, and every new id of every family sorts after every old one.
# A second database made with crid 0.2.0 is updated to 0.3.0 on the new
# major: crid's own uuidv7 and uuid_extract_* go where core has them, but
# those a DEFAULT or CHECK made on the old major calls stay.
source "$(dirname "$0")/common.sh"

NEW=$(pg_major)
OLD=$(older_major)
[ -n "$OLD" ] || { echo "not ok - a major older than $NEW is installed beside it"; exit 1; }
OLD_CONFIG=/usr/lib/postgresql/$OLD/bin/pg_config
OLD_BIN=$("$OLD_CONFIG" --bindir)
NEW_BIN=$(pg_bindir)
W=$(scratch_dir pg-upgrade)
PORT=$(free_port 5490)
cleanup() {
    for d in "$W/old" "$W/new"; do
        [ ! -f "$d/postmaster.pid" ] || as_pg "$(cat "$d/.bindir" 2>/dev/null || echo "$NEW_BIN")/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

# The settings both clusters run with: a registry in database app, a node
# leased from it, crid blocks small enough that new ones are reserved while
# the test mints, and a borrow window that lets ids run minutes ahead.
settings() {
    cat <<EOF
shared_preload_libraries = 'crid${1:+, $1}'
crid.registry_database = 'app'
crid.node_id = 'lease'
crid.snowflake_nodes = '0-3'
crid.node_lease_ttl = '2s'
crid.clock_borrow_ms = 600000
crid.block_size = 100
crid.threshold = 50
port = $PORT
listen_addresses = ''
unix_socket_directories = '$W'
EOF
}
start() { # datadir bindir
    as_pg "$2/pg_ctl" -D "$1" -l "$1.log" -w -t 60 start >/dev/null
}
stop() { as_pg "$2/pg_ctl" -D "$1" -m fast -w stop >/dev/null; }
sql() { # bindir db sql: one value per line, unaligned
    as_pg "$1/psql" -X -q -v ON_ERROR_STOP=1 -h "$W" -p "$PORT" -U postgres -d "$2" -Atc "$3"
}
old_sql() { sql "$OLD_BIN" "$@"; }
new_sql() { sql "$NEW_BIN" "$@"; }
# Mints n rows of `era` into every table (their DEFAULTs).
mint() { # bindir era n
    sql "$1" app "INSERT INTO u (era) SELECT '$2' FROM generate_series(1, $3);
        INSERT INTO u18 (era) SELECT '$2' FROM generate_series(1, $3);
        INSERT INTO v (era) SELECT '$2' FROM generate_series(1, $3);
        INSERT INTO s (era) SELECT '$2' FROM generate_series(1, $3);
        INSERT INTO c (era) SELECT '$2' FROM generate_series(1, $3);" >/dev/null
}
tables="u u18 v s c"
# The server holds a lease of a node: a new holder mints on it once the old
# holder's lease has lapsed (crid.node_lease_ttl and a fifth).
lease_held() { # bindir
    local i
    for i in $(seq 1 150); do
        [ "$(sql "$1" app "SELECT snowflake_next() > 0" 2>/dev/null)" = t ] && return 0
        sleep 0.2
    done
    return 1
}
# Moves the high-water mark of a stopped server's data directory $1 to $2
# seconds from now, in the file's own format (crid_high_water 2: its layout
# line kept, FNV-1a 64 checksum of the lines before it).
forward_mark() {
    as_pg perl -e '
        use strict; use warnings; use integer;
        my ($file, $ahead) = @ARGV;
        open(my $in, "<", $file) or die "$file: $!";
        my ($layout) = grep { /^snowflake_layout / } <$in>;
        close $in;
        die "$file: no layout line\n" unless $layout;
        my $body = "crid_high_water 2\nunix_ms " . ((time() + $ahead) * 1000) . "\n" . $layout;
        my $h = -3750763034362895579;    # 14695981039346656037 as a signed 64-bit number
        for my $c (unpack("C*", $body)) { $h ^= $c; $h *= 1099511628211; }
        open(my $out, ">", "$file.new") or die "$file.new: $!";
        printf $out "%schecksum %016x\n", $body, $h;
        close $out or die "$file.new: $!";
        rename("$file.new", $file) or die "$file: $!";' "$1/crid_high_water" "$2"
}

# --- the old cluster --------------------------------------------------------------
log "pg_upgrade $OLD -> $NEW: crid for $OLD, the old cluster"
old_src="$W/src-$OLD"
check "crid builds and installs for PostgreSQL $OLD" bash -c "
    mkdir -p '$old_src' && cp -a '$CRID_ROOT/.' '$old_src/' &&
    make -C '$old_src' -s clean PG_CONFIG='$OLD_CONFIG' >/dev/null &&
    make -C '$old_src' -s -j'$(nproc)' PG_CONFIG='$OLD_CONFIG' >'$W/build-old.log' 2>&1 &&
    make -C '$old_src' -s install PG_CONFIG='$OLD_CONFIG' >>'$W/build-old.log' 2>&1 || { tail -n 20 '$W/build-old.log'; false; }"
as_pg "$OLD_BIN/initdb" -k -D "$W/old" -A trust -U postgres >/dev/null
echo "$OLD_BIN" >"$W/old/.bindir"
settings | as_pg tee -a "$W/old/postgresql.conf" >/dev/null
start "$W/old" "$OLD_BIN"
old_sql postgres "CREATE DATABASE app"
old_sql postgres "CREATE DATABASE legacy"
old_sql app "
    CREATE EXTENSION crid;
    CREATE TABLE u (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), era text NOT NULL);
    CREATE TABLE u18 (id uuid PRIMARY KEY DEFAULT uuidv7(), era text NOT NULL);
    CREATE TABLE v (id uuid PRIMARY KEY DEFAULT uuid_generate_v7() CHECK (uuid_extract_version(id) = 7), era text NOT NULL);
    CREATE TABLE s (id bigint PRIMARY KEY DEFAULT snowflake_next(), era text NOT NULL);
    CREATE TABLE c (id bigint PRIMARY KEY DEFAULT crid_next(), era text NOT NULL);" >/dev/null
# crid 0.2.0, as an install from before this release: its uuidv7 and
# uuid_extract_* are crid's; a DEFAULT and a CHECK call two of them (as
# written on the old major: there, 17 has uuid_extract_version of its own).
old_sql legacy "
    CREATE EXTENSION crid VERSION '0.2.0';
    CREATE TABLE l (id uuid PRIMARY KEY DEFAULT uuidv7() CHECK (uuid_extract_version(id) = 7));
    INSERT INTO l SELECT FROM generate_series(1, 10);" >/dev/null
check "the old server holds a lease of a node within 30 s" lease_held "$OLD_BIN"
check "the old server mints every family through DEFAULTs, snowflake on the leased node" mint "$OLD_BIN" old 300
stop "$W/old" "$OLD_BIN"
# The clock steps back five minutes while the old server is down.
forward_mark "$W/old" 300
start "$W/old" "$OLD_BIN"
check "restarted, the old server holds a lease of a node again within 30 s" lease_held "$OLD_BIN"
check "restarted, it mints every family through DEFAULTs" mint "$OLD_BIN" ahead 300
check "restarted, it mints UUIDv7 and snowflake ids above its mark, minutes ahead of the clock" \
    test "$(old_sql app "SELECT count(*) = 300 AND min(uuid_v7_to_timestamptz(id)) > now() + interval '4 minutes' FROM u WHERE era = 'ahead'")/$(
            old_sql app "SELECT count(*) = 300 AND min(snowflake_to_timestamptz(id)) > now() + interval '4 minutes' FROM s WHERE era = 'ahead'")" = t/t
# What the registry and the leases hold, kept in tables pg_upgrade carries.
old_sql app "CREATE TABLE registry_before AS SELECT * FROM crid_allocations;
             CREATE TABLE leases_before AS SELECT * FROM crid_node_leases;" >/dev/null
# Every id minted before the upgrade, per table: its rows and a hash over
# all their ids (with the era each was minted in), in id order. A changed,
# lost or added old id changes its table's line.
old_ids() {
    local t
    for t in $tables; do
        sql "$1" app "SELECT '$t ' || count(*) || ' ' || md5(coalesce(string_agg(id::text || ' ' || era, ',' ORDER BY id), ''))
                        FROM $t WHERE era <> 'new'"
    done
}
ids_before=$(old_ids "$OLD_BIN")
stop "$W/old" "$OLD_BIN"
check "the old data directory holds crid_high_water and crid_registry_mark" \
    test -f "$W/old/crid_high_water" -a -f "$W/old/crid_registry_mark"

# --- pg_upgrade -------------------------------------------------------------------
as_pg "$NEW_BIN/initdb" -k -D "$W/new" -A trust -U postgres >/dev/null
echo "$NEW_BIN" >"$W/new/.bindir"
# Debian's 17.12 stamps every column with an attribute option, pg_attver,
# that sid's 18.6 rejects in the dump pg_upgrade restores (see
# test/pg_upgrade/pg_attver_shim.c): where the new server does, a test-only
# module drops the option while pg_upgrade restores.
shim=
as_pg "$NEW_BIN/postgres" --single -D "$W/new" postgres <<<"CREATE TABLE attver_probe (a int); ALTER TABLE attver_probe ALTER COLUMN a SET (pg_attver = 1);" \
    >"$W/attver-probe.log" 2>&1 || true
if grep -q 'unrecognized parameter "pg_attver"' "$W/attver-probe.log"; then
    shim=pg_attver_shim
    log "PostgreSQL $NEW rejects pg_attver: pg_upgrade runs with test/pg_upgrade/$shim loaded"
    make -C "$CRID_ROOT/test/pg_upgrade" -s PG_CONFIG="$PG_CONFIG" >/dev/null
    make -C "$CRID_ROOT/test/pg_upgrade" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
fi
# The probe table goes again (pg_upgrade wants an empty new cluster): a
# failure here stops the script, and its missing checks count as failed.
as_pg "$NEW_BIN/postgres" --single -D "$W/new" postgres <<<"DROP TABLE IF EXISTS attver_probe;" >>"$W/attver-probe.log" 2>&1
settings "$shim" | as_pg tee -a "$W/new/postgresql.conf" >/dev/null
check "pg_upgrade from $OLD to $NEW succeeds" bash -c "
    cd '$W' && runuser -u postgres -- '$NEW_BIN/pg_upgrade' -b '$OLD_BIN' -B '$NEW_BIN' -d '$W/old' -D '$W/new' \
        -p '$PORT' -P '$PORT' -s '$W' >'$W/pg_upgrade.log' 2>&1 ||
    { tail -n 20 '$W/pg_upgrade.log'; find '$W/new' -path '*pg_upgrade_output.d*' -name '*.log' -exec tail -n 15 {} +; false; }"
# The shim is needed only while pg_upgrade restores.
settings | as_pg tee -a "$W/new/postgresql.conf" >/dev/null
check "pg_upgrade leaves crid's mark files behind" test ! -e "$W/new/crid_high_water" -a ! -e "$W/new/crid_registry_mark"

# --- the marks ---------------------------------------------------------------------
# Refused for the reason given, not any failure: exit status 1, the message
# naming the data directory whose postmaster.pid is there, nothing copied.
copy_refused_while_running() {
    local status=0 err
    touch "$W/old/postmaster.pid"
    err=$("$CRID_ROOT/bin/crid_copy_marks" "$W/old" "$W/new" 2>&1 >/dev/null) || status=$?
    rm -f "$W/old/postmaster.pid"
    [ "$status" = 1 ] || { echo "    exit status $status, not 1: $err"; return 1; }
    [[ $err == "crid_copy_marks: $W/old has a postmaster.pid: stop its server first" ]] ||
        { echo "    refused for another reason: $err"; return 1; }
    if [ -e "$W/new/crid_high_water" ] || [ -e "$W/new/crid_registry_mark" ]; then
        echo "    it copied a mark file all the same"
        return 1
    fi
}
check "crid_copy_marks refuses while a server runs on a data directory (exit 1, naming its postmaster.pid)" \
    copy_refused_while_running
check "crid_copy_marks carries both mark files into the new data directory" bash -c "
    runuser -u postgres -- '$NEW_BIN/crid_copy_marks' '$W/old' '$W/new' >'$W/copy-marks.log' 2>&1 &&
    cmp -s '$W/old/crid_high_water' '$W/new/crid_high_water' && cmp -s '$W/old/crid_registry_mark' '$W/new/crid_registry_mark' ||
    { cat '$W/copy-marks.log'; false; }"

# --- the new cluster ---------------------------------------------------------------
start "$W/new" "$NEW_BIN"
check "the ids minted ahead are still ahead of the new server's clock (from the clock alone, new ids would sort before them)" \
    test "$(new_sql app "SELECT (SELECT max(uuid_v7_to_timestamptz(id)) FROM u) > now()
                          AND (SELECT max(snowflake_to_timestamptz(id)) FROM s) > now()")" = t
# What the registry lost since before the upgrade, one line each (nothing
# printed: nothing lost): a registry row gone or gone back, a lease row gone,
# or a node whose lease bound is below an id minted on it before. The bound
# itself may go down: at a planned exit the holder lowers it to what it
# really minted, so the next holder starts there.
registry_losses() {
    new_sql app "SELECT 'no registry rows before' WHERE NOT EXISTS (SELECT FROM registry_before)
                 UNION ALL SELECT 'no lease rows before' WHERE NOT EXISTS (SELECT FROM leases_before)
                 UNION ALL SELECT 'no snowflake ids before' WHERE NOT EXISTS (SELECT FROM s WHERE era <> 'new')
                 UNION ALL SELECT format('registry second %s: next_seq %s before, %s now', b.ts, b.next_seq, a.next_seq)
                   FROM registry_before b LEFT JOIN crid_allocations a USING (ts)
                  WHERE a.ts IS NULL OR a.next_seq < b.next_seq
                 UNION ALL SELECT format('the lease row of node %s is gone', b.node)
                   FROM leases_before b LEFT JOIN crid_node_leases l USING (node) WHERE l.node IS NULL
                 UNION ALL SELECT format('node %s: ids minted up to Unix ms %s, its lease bound now %s', m.node, m.ms, l.high_water_ms)
                   FROM (SELECT p.node, max(floor(extract(epoch FROM p.ts) * 1000))::bigint AS ms
                           FROM s, snowflake_parse(s.id) p WHERE s.era <> 'new' GROUP BY p.node) m
                   LEFT JOIN crid_node_leases l USING (node)
                  WHERE l.node IS NULL OR l.high_water_ms < m.ms"
}
check "the registry keeps its rows (none lost, none gone back), the leases a bound above every id minted" \
    bash -c 'out=$1; [ -z "$out" ] || { printf "%s\n" "$out"; false; }' _ "$(registry_losses 2>&1 || echo 'the query failed')"
check "the new server holds a lease of a node within 30 s" lease_held "$NEW_BIN"
check "every DEFAULT mints on the new server" mint "$NEW_BIN" new 300
# The tables (families) where a new id does not sort after every old one.
out_of_order() {
    local t
    for t in $tables; do
        [ "$(new_sql app "SELECT (SELECT id FROM $t WHERE era = 'new' ORDER BY id LIMIT 1)
                                 > (SELECT id FROM $t WHERE era <> 'new' ORDER BY id DESC LIMIT 1)
                          AND (SELECT count(*) FROM $t WHERE era = 'new') = 300")" = t ] || echo "$t"
    done
}
in_order() {
    local late
    late=$(out_of_order)
    [ -z "$late" ] || { echo "    new ids sort before old ones in: $late"; return 1; }
}
check "every new id of every family sorts after every old one (tables $tables)" in_order
# Each table's old ids, as before the upgrade; prints the tables that differ.
old_ids_kept() {
    local now
    now=$(old_ids "$NEW_BIN")
    [ "$now" = "$ids_before" ] || { diff <(echo "$ids_before") <(echo "$now") | sed -n 's/^> /    now: /p'; return 1; }
}
check "no old id changed: every table has the same old ids (count and a hash of them all)" old_ids_kept
check "snowflake ids after the upgrade come from a leased node of crid.snowflake_nodes" \
    test "$(new_sql app "SELECT bool_and((snowflake_parse(id)).node BETWEEN 0 AND 3) FROM s WHERE era = 'new'")" = t
# Core's names: an unqualified call reaches core's where core has the
# function; the DEFAULT made on the old major still calls what it called.
core_uuidv7=f
[ "$NEW" -lt 18 ] || core_uuidv7=t
check "uuidv7() reaches core's function only where core has one (18 on)" \
    test "$(new_sql app "SELECT coalesce('uuidv7()'::regprocedure::oid = (SELECT oid FROM pg_proc WHERE proname = 'uuidv7'
                         AND pronargs = 0 AND pronamespace = 'pg_catalog'::regnamespace), false)")" = "$core_uuidv7"
check "the DEFAULT of u18, made on $OLD, still calls crid's uuidv7()" \
    test "$(new_sql app "SELECT n.nspname FROM pg_attrdef a JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = a.oid
                         JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND p.oid = d.refobjid JOIN pg_namespace n ON n.oid = p.pronamespace
                         WHERE a.adrelid = 'u18'::regclass")" = public

# --- an install of crid 0.2.0, updated on the new major ----------------------------------
# crid's four functions a name core has from 17 (uuid_extract_*) or 18
# (uuidv7) on: dropped where core has one, unless something made on the old
# major calls it. From 15: l's CHECK calls crid's uuid_extract_version; from
# 17, where core had it, core's; l's DEFAULT calls crid's uuidv7() either way.
case $NEW in
17) kept="uuid_extract_version(uuid) uuidv7() uuidv7(interval)" ;; # sorted
*) kept="uuidv7()" ;;
esac
# crid's functions of these names in database legacy, sorted, one line.
crid_copies() {
    new_sql legacy "SELECT string_agg(p.proname || '(' || format_type_list, ' ' ORDER BY 1)
                      FROM (SELECT p.proname, coalesce(string_agg(format_type(t, NULL), ',' ORDER BY n), '') || ')' AS format_type_list
                              FROM pg_proc p
                              JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                              JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
                              LEFT JOIN LATERAL unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, n) ON true
                             WHERE p.proname IN ('uuidv7', 'uuid_extract_timestamp', 'uuid_extract_version')
                             GROUP BY p.oid, p.proname) p"
}
update_keeps() {
    local out got
    out=$(new_sql legacy "ALTER EXTENSION crid UPDATE" 2>&1) || { echo "$out"; return 1; }
    got=$(crid_copies)
    [ "$got" = "$kept" ] || { echo "crid has: $got; expected: $kept"; echo "$out"; return 1; }
}
check "ALTER EXTENSION crid UPDATE on $NEW keeps crid's $kept only" update_keeps
check "the legacy table's DEFAULT and CHECK work after the update" \
    test "$(new_sql legacy "INSERT INTO l SELECT FROM generate_series(1, 10); SELECT count(*) FROM l")" = 20
stop "$W/new" "$NEW_BIN"
checks_done
