#!/usr/bin/env bash
# Runs TAP tests by hand, as `make installcheck` does, from a scratch copy
# the postgres user can write: test/harness/run-tap.sh test/tap/t/005_upgrade.pl ...
# (crid must be built and installed; make test does both.)
source "$(dirname "$0")/common.sh"
WORK=$(scratch_dir tap)
cp -r "$CRID_ROOT/test" "$CRID_ROOT/sql" "$CRID_ROOT/Makefile" "$CRID_ROOT/crid.control" "$WORK/"
[ "$(id -u)" = 0 ] && chown -R postgres: "$WORK"
log "TAP outputs in $WORK/tmp_check"
as_pg make -C "$WORK" --no-print-directory installcheck PG_CONFIG="$PG_CONFIG" REGRESS= ISOLATION= \
    PROVE_FLAGS=-v PROVE_TESTS="$*"
