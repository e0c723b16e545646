#!/usr/bin/env bash
# Installs one exact version of an npm package into a cache folder that
# outlives the run, and prints the package's own folder. Scripts that compute
# test vectors with another project's JavaScript (test/core/vectors/*) use it,
# so the reference code is the published package and not a copy of it in
# this repository.
#
#   test/harness/npm-package.sh NAME VERSION
#
# The package goes to ${CRID_NPM_CACHE:-/var/cache/crid/npm}/NAME-VERSION
# (npm install --no-save --prefix there) unless it is already there, and the
# script prints .../NAME-VERSION/node_modules/NAME. npm is tried up to three
# times, each attempt bounded by timeout, because the registry is a network.
set -euo pipefail

usage() {
    echo "usage: $0 NAME VERSION   (e.g. $0 sqids 0.3.0)" >&2
    exit 2
}
[ $# -eq 2 ] || usage
name=$1
version=$2
# An exact version only: a range would make the cache folder's name a lie.
[[ $name =~ ^(@[a-z0-9._~-]+/)?[a-z0-9._~-]+$ ]] || { echo "npm-package: \"$name\" is not an npm package name" >&2; exit 2; }
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
    { echo "npm-package: \"$version\" is not an exact version (x.y.z)" >&2; exit 2; }

for tool in node npm timeout; do
    command -v "$tool" >/dev/null ||
        { echo "npm-package: $tool is not installed; install Node.js (node and npm) to compute these vectors" >&2; exit 1; }
done

cache=${CRID_NPM_CACHE:-/var/cache/crid/npm}
prefix="$cache/${name//\//+}-$version"
dir="$prefix/node_modules/$name"

# The installed version, "" when none is (or its package manifest is unreadable).
installed_version() {
    [ -f "$dir/package.json" ] || return 0
    node -e 'process.stdout.write(String(require(process.argv[1]).version))' "$dir/package.json" 2>/dev/null || true
}

if [ "$(installed_version)" != "$version" ]; then
    mkdir -p "$prefix" || { echo "npm-package: cannot create $prefix (set CRID_NPM_CACHE to a writable folder)" >&2; exit 1; }
    log="$prefix/npm-install.log"
    ok=false
    for attempt in 1 2 3; do
        if timeout 300 npm install --no-save --no-audit --no-fund --prefix "$prefix" "$name@$version" >"$log" 2>&1; then
            ok=true
            break
        fi
        echo "npm-package: npm install $name@$version failed (attempt $attempt of 3), see $log" >&2
        [ $attempt -eq 3 ] || sleep $((attempt * 5))
    done
    if ! $ok; then
        tail -n 20 "$log" >&2
        echo "npm-package: could not install $name@$version into $prefix" >&2
        exit 1
    fi
    got=$(installed_version)
    if [ "$got" != "$version" ]; then
        echo "npm-package: npm installed ${got:-nothing} at $dir, not $name@$version" >&2
        exit 1
    fi
fi
echo "$dir"
