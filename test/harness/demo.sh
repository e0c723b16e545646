#!/usr/bin/env bash
# `make demo` / `make demo-stop`: a throwaway PostgreSQL 15 with crid
# preloaded, its data in .demo/ of the checkout (or /tmp/crid-demo when the
# postgres user cannot reach the checkout), on a free local port.
source "$(dirname "$0")/common.sh"

fallback_dir=${TMPDIR:-/tmp}/crid-demo

# The demo folder: in the checkout when the postgres user can write there.
demo_dir() {
    local d="$CRID_ROOT/.demo"
    mkdir -p "$d"
    [ "$(id -u)" = 0 ] && chown postgres: "$d"
    if as_pg test -w "$d" 2>/dev/null; then echo "$d"; else rmdir "$d" 2>/dev/null || true; echo "$fallback_dir"; fi
}

psql_demo() { as_pg "$(pg_bindir)/psql" -X -h "$DIR" -p "$PORT" -d postgres "$@"; }

start() {
    ensure_packages
    build_and_install
    DIR=$(demo_dir)
    as_pg mkdir -p "$DIR"
    stop_server "$DIR/data"
    as_pg rm -rf "$DIR/data" # throwaway: every demo starts from a new cluster
    PORT=$(free_port 54329)
    log "starting PostgreSQL on port $PORT, data in $DIR/data"
    printf "shared_preload_libraries = 'crid'\ncrid.node_id = 1\n" | start_server "$DIR/data" "$PORT"
    psql_demo -q -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS crid;"
    psql_demo -q -v ON_ERROR_STOP=1 -f "$CRID_ROOT/test/harness/demo.sql" # a broken demo fails make demo
    cat <<MSG

crid demo server is running (data in $DIR/data, log in $DIR/server.log).
Connect:  psql -h localhost -p $PORT -U postgres postgres
Stop:     make demo-stop
MSG
}

stop() {
    local stopped=0
    for d in "$CRID_ROOT/.demo" "$fallback_dir"; do
        if [ -f "$d/data/postmaster.pid" ]; then
            stop_server "$d/data"
            stopped=1
            log "stopped the demo server in $d"
        fi
    done
    [ "$stopped" = 1 ] || log "no demo server is running"
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
