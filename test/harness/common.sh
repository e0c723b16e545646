# Shared shell helpers for make demo, make test and the benchmarks: find
# PostgreSQL 15, install what is missing, run commands as the postgres user.
# Sourced, not executed.

set -euo pipefail

CRID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# PG picks another major's Debian layout (test/harness/pg-root.sh sets both).
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/${PG:-15}/bin/pg_config}

# Debian packages the build and every suite need.
CRID_PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-contrib libboost-dev g++ make
               libipc-run-perl libfaketime perl clang-format
               # packaging: the Debian package build and the PGXN bundle
               postgresql-server-dev-all debhelper dpkg-dev fakeroot git unzip
               # hardening: libFuzzer and the sanitizers of clang
               clang-14 libclang-rt-14-dev)
# Shard genes' scale-out test (test/tap/t/006_gene_scale_out.pl) runs PL/Proxy.
CRID_PACKAGES+=(postgresql-15-plproxy)
# A fleet on one registry: the worker links libpq; TAP 036 runs the registry
# highly available under pg_auto_failover.
CRID_PACKAGES+=(libpq-dev postgresql-15-auto-failover pg-auto-failover-cli)
# TAP 037 runs the registry behind pgbouncer.
CRID_PACKAGES+=(pgbouncer)
# Multi-writer replication on 15 (TAP 040-042): pglogical, since PostgreSQL's
# own subscriptions have origin = none only from 16 on.
CRID_PACKAGES+=(postgresql-15-pglogical)
# crid's partition lifecycle scheduled by pg_cron (TAP 046).
CRID_PACKAGES+=(postgresql-15-cron)
# Converted sequences under real ORMs (TAP 055): SQLAlchemy 1.4, Django 3.2
# and ActiveRecord 6.1 from Debian (Sequelize comes from npm).
CRID_PACKAGES+=(python3-sqlalchemy python3-psycopg2 python3-django ruby-activerecord ruby-pg)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Runs a command as the postgres OS user (PostgreSQL refuses to run as root).
as_pg() {
    if [ "$(id -un)" = postgres ]; then "$@"; else as_root runuser -u postgres -- "$@"; fi
}

# Installs the Debian packages that are missing (test/harness/host-apt.sh);
# does nothing in a root of test/harness/pg-root.sh (built with what the
# PostgreSQL suites need, and without a network to install more).
ensure_packages() {
    [ ! -f /.crid-root/stamp ] || return 0
    "$CRID_ROOT/test/harness/host-apt.sh" "${CRID_PACKAGES[@]}"
}

pg_bindir() { "$PG_CONFIG" --bindir; }
# The major of PG_CONFIG's PostgreSQL (15, 17, ...).
pg_major() { "$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'; }
# The newest major older than PG_CONFIG's installed beside it, server and
# headers (Debian's layout), to pg_upgrade from; nothing when there is none.
older_major() {
    local this old= v d
    this=$(pg_major)
    for d in /usr/lib/postgresql/*/bin/pg_ctl; do
        v=${d#/usr/lib/postgresql/}
        v=${v%%/*}
        [[ $v =~ ^[0-9]+$ ]] && [ "$v" -lt "$this" ] && [ -x "/usr/lib/postgresql/$v/bin/pg_config" ] &&
            [ -f "$("/usr/lib/postgresql/$v/bin/pg_config" --includedir-server)/postgres.h" ] &&
            { [ -z "$old" ] || [ "$v" -gt "$old" ]; } && old=$v
    done
    echo "$old"
}
pgxs_dir() { dirname "$("$PG_CONFIG" --pgxs)"; }

# Builds and installs the extension into the PostgreSQL 15 installation.
build_and_install() {
    log "building and installing crid"
    make -C "$CRID_ROOT" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >/dev/null
    as_root make -C "$CRID_ROOT" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
}

# A fresh folder the postgres user can write, for data directories and test
# outputs; the checkout itself may sit where that user cannot go.
scratch_dir() {
    local d
    d=$(mktemp -d "${TMPDIR:-/tmp}/crid-$1.XXXXXX")
    chmod 755 "$d"
    [ "$(id -u)" = 0 ] && chown postgres: "$d"
    echo "$d"
}

# The first TCP port from $1 upwards on which nothing listens.
free_port() {
    local p=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
    echo "$p"
}

# Starts a throwaway server: $1 data folder (created if missing), $2 port,
# then lines of extra settings on stdin. Sockets live in the folder's parent.
start_server() {
    local data=$1 port=$2
    if [ ! -f "$data/PG_VERSION" ]; then
        as_pg "$(pg_bindir)/initdb" -D "$data" -A trust -U postgres >/dev/null
    fi
    {
        echo "port = $port"
        echo "listen_addresses = 'localhost'"
        echo "unix_socket_directories = '$(dirname "$data")'"
        cat
    } | as_pg tee "$data/crid-local.conf" >/dev/null
    grep -q "include_if_exists = 'crid-local.conf'" "$data/postgresql.conf" ||
        echo "include_if_exists = 'crid-local.conf'" | as_pg tee -a "$data/postgresql.conf" >/dev/null
    as_pg "$(pg_bindir)/pg_ctl" -D "$data" -l "$(dirname "$data")/server.log" -w start >/dev/null
}

# Stops the server of data folder $1 if it runs.
stop_server() {
    [ -f "$1/postmaster.pid" ] && as_pg "$(pg_bindir)/pg_ctl" -D "$1" -m fast stop >/dev/null || true
}

# For scripts of checks that print one "ok - ..." or "not ok - ..." line
# each: `check "what" command...` runs the command; `checks_done` exits
# non-zero when any check failed. A script whose number of checks is known
# only when it runs prints it first with `plan N` ("1..N", as a TAP plan),
# so that make test counts the checks a run that stopped early never made.
checks_failed=0
plan() { echo "1..$1"; }
check() {
    local what=$1
    shift
    if "$@"; then echo "ok - $what"; else echo "not ok - $what"; checks_failed=1; fi
}
checks_done() { exit "$checks_failed"; }
