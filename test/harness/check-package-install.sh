#!/usr/bin/env bash
# The Debian package of one PostgreSQL major, built and then used alone, one
# "ok"/"not ok" line per check. Runs in a root of pg-root.sh in which crid
# was never built or installed (run-root.sh gives it a layer of its own):
# dpkg-buildpackage builds postgresql-<major>-crid the way PostgreSQL's apt
# repository does (pg_buildext, debian/pgversions), dpkg installs it, and a
# server with crid preloaded runs CREATE EXTENSION crid and mints and
# decodes every family from what the package installed.
source "$(dirname "$0")/common.sh"

[ -f /.crid-root/stamp ] || { echo "not ok - runs in a root of test/harness/pg-root.sh (it installs a package)"; exit 1; }
MAJOR=$(pg_major)
version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$CRID_ROOT/crid.control")
arch=$(dpkg --print-architecture)
W=$(scratch_dir package)
src="$W/crid-$version"
deb="$W/postgresql-$MAJOR-crid_${version}_$arch.deb"
lib=$("$PG_CONFIG" --pkglibdir)
share=$("$PG_CONFIG" --sharedir)
PORT=$(free_port 5480)
trap 'stop_server "$W/data"' EXIT

check "nothing of crid is installed before the package" test ! -e "$lib/crid.so" -a ! -e "$share/extension/crid.control"
mkdir -p "$src"
cp -a "$CRID_ROOT/." "$src/"
# debian/control names the packages of the majors this build is for:
# regenerated from control.in for this one, as pg_buildext's builds do.
check "debian/pgversions supports PostgreSQL $MAJOR" bash -c "cd '$src' && PG_SUPPORTED_VERSIONS=$MAJOR pg_buildext supported-versions | grep -qx '$MAJOR'"
check "dpkg-buildpackage builds postgresql-$MAJOR-crid_${version}_$arch.deb" bash -c "
    cd '$src' && export PG_SUPPORTED_VERSIONS=$MAJOR && pg_buildext updatecontrol >'$W/build.log' 2>&1 &&
    dpkg-buildpackage -us -uc -b >>'$W/build.log' 2>&1 && [ -f '$deb' ] || { tail -n 30 '$W/build.log'; false; }"
check "its version is $version and it depends on postgresql-$MAJOR" \
    bash -c "dpkg-deb -f '$deb' Version | grep -qx '$version' && dpkg-deb -f '$deb' Depends | grep -q 'postgresql-$MAJOR'"
check "it installs with dpkg" bash -c "dpkg -i '$deb' >'$W/install.log' 2>&1 || { cat '$W/install.log'; false; }"
check "it installed crid.so, the control file, the scripts and crid_copy_marks" bash -c "
    test -f '$lib/crid.so' -a -f '$share/extension/crid.control' -a -f '$share/extension/crid--$version.sql' \
         -a -f '$share/extension/crid--0.2.0--0.3.0.sql' -a -x '$(pg_bindir)/crid_copy_marks'"
start_server "$W/data" "$PORT" <<EOF
shared_preload_libraries = 'crid'
crid.registry_database = 'postgres'
crid.node_id = 1
EOF
smoke() {
    as_pg "$(pg_bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h "$W" -p "$PORT" -U postgres -d postgres -At <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION crid;
CREATE TABLE smoke (u uuid DEFAULT uuid_generate_v7(), s bigint DEFAULT snowflake_next(), c bigint DEFAULT crid_next());
INSERT INTO smoke SELECT FROM generate_series(1, 1000);
SELECT count(DISTINCT u) = 1000 AND count(DISTINCT s) = 1000 AND count(DISTINCT c) = 1000
   AND bool_and(abs(extract(epoch FROM uuid_v7_to_timestamptz(u) - now())) < 60)
   AND bool_and(abs(extract(epoch FROM snowflake_to_timestamptz(s) - now())) < 60)
   AND bool_and(abs(extract(epoch FROM crid_to_timestamptz(c) - now())) < 60)
   AND bool_and(uuid_extract_version(uuidv7()) = 7)
  FROM smoke;
SQL
}
check "CREATE EXTENSION crid, then UUIDv7, snowflake and crid ids minted and decoded" test "$(smoke)" = t
check "the extension is version $version" test "$(as_pg "$(pg_bindir)/psql" -X -h "$W" -p "$PORT" -U postgres -d postgres \
    -Atc "SELECT extversion FROM pg_extension WHERE extname = 'crid'")" = "$version"
stop_server "$W/data"
check "dpkg --purge removes it" bash -c "dpkg --purge postgresql-$MAJOR-crid >/dev/null 2>&1 && test ! -e '$lib/crid.so'"
checks_done
