#!/usr/bin/env bash
# Packaging checks of `make test`, one "ok"/"not ok" line each: `make dist`
# builds the PGXN zip, and dpkg-buildpackage builds the Debian package the
# way PostgreSQL's apt repository does; both are unpacked into clean folders
# and their contents checked. Works on a copy of the checkout's files.
source "$(dirname "$0")/common.sh"
cd "$CRID_ROOT"

has() { [ -e "$1" ] || { echo "    missing: $1"; return 1; }; }

version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" crid.control)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/crid-packages.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# --- PGXN bundle ---------------------------------------------------------
# The committed tree (HEAD), as `make dist` archives a release tag.
zip="$scratch/crid-$version.zip"
check "make dist builds crid-$version.zip" \
    bash -c "make -s --no-print-directory dist DIST_REF=HEAD PG_CONFIG='$PG_CONFIG' >/dev/null && mv crid-$version.zip '$zip'"
mkdir -p "$scratch/pgxn"
(cd "$scratch/pgxn" && unzip -q "$zip") || true
dist="$scratch/pgxn/crid-$version"
check "the bundle unpacks into crid-$version/ with META.json, Makefile, control and SQL" \
    bash -c "cd '$dist' && $(declare -f has); has META.json && has Makefile && has crid.control && has sql/crid--0.1.0.sql && has sql/crid--0.1.0--0.2.0.sql"
check "the bundle's META.json passes the PGXN meta spec check" \
    bash -c "cd '$dist' && perl '$CRID_ROOT/test/harness/check-meta.pl' META.json"
check "the bundle leaves out CI files and build products" \
    bash -c "cd '$dist' && [ ! -e .ci ] && [ -z \"\$(find . -name '*.o' -o -name '*.so')\" ]"

# --- Debian package --------------------------------------------------------
# Every file of the checkout git knows (tracked or new, not ignored).
src="$scratch/deb/crid-$version"
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src"
deb="$scratch/deb/postgresql-15-crid_${version}_amd64.deb"
check "dpkg-buildpackage builds postgresql-15-crid_${version}_amd64.deb" \
    bash -c "cd '$src' && dpkg-buildpackage -us -uc -b >'$scratch/deb/build.log' 2>&1 && [ -f '$deb' ] || { tail -n 30 '$scratch/deb/build.log'; false; }"
root="$scratch/installed"
mkdir -p "$root"
check "the package installs into a clean directory" dpkg -x "$deb" "$root"
check "it holds crid.so, the control file, every install and upgrade script, the registry server script and crid_copy_marks" \
    bash -c "cd '$root' && $(declare -f has); has usr/lib/postgresql/15/lib/crid.so && has usr/share/postgresql/15/extension/crid.control \
        && has usr/lib/postgresql/15/bin/crid_copy_marks \
        && has usr/share/postgresql/15/extension/crid--0.1.0.sql && has usr/share/postgresql/15/extension/crid--$version.sql \
        && has usr/share/postgresql/15/extension/crid--0.1.0--0.2.0.sql && has usr/share/postgresql/15/extension/crid--0.2.0--0.3.0.sql && has usr/share/postgresql/15/extension/crid--0.3.0--0.4.0.sql \
        && has usr/share/postgresql/15/extension/crid_registry_server.sql"
# The README links into docs/, so every page goes with it (dh_compress
# gzips the larger ones, as Debian does with documentation).
doc=usr/share/doc/postgresql-15-crid
check "it holds the README and every page of docs/" \
    bash -c "cd '$root' && $(declare -f has); ok=0; for f in README.md $(cd "$CRID_ROOT" && echo docs/*.md); do \
        [ -e $doc/\$f ] || has $doc/\$f.gz || ok=1; done; exit \$ok"
check "it ships no test-only code (crid_test, crid_debug_throw)" \
    bash -c "cd '$root' && [ -z \"\$(find . -name 'crid_test*')\" ] && ! grep -q crid_debug_throw usr/lib/postgresql/15/lib/crid.so"
check "its version is $version and it depends on postgresql-15" \
    bash -c "dpkg-deb -f '$deb' Version | grep -qx '$version' && dpkg-deb -f '$deb' Depends | grep -q 'postgresql-15'"

checks_done
