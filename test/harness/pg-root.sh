#!/usr/bin/env bash
# A minimal Debian root per PostgreSQL major, to build and test crid on a
# version this machine does not run:
#
#   test/harness/pg-root.sh 17 build        build the root if missing or stale, print its path
#   test/harness/pg-root.sh 17 rebuild      build it anew
#   test/harness/pg-root.sh 17 run CMD...   run CMD (as root) in the root, in /crid, a copy of this checkout
#   test/harness/pg-root.sh 17 shell        an interactive shell there
#   test/harness/pg-root.sh 17 path         print where the root is (or would be)
#
# The version may come from PG instead of the first argument. 15 is
# bookworm, 17 trixie, 18 sid. Each root holds that major's server and
# headers, the build tools, the test tools, the Debian packaging tools, and
# an older major to pg_upgrade from (15 in trixie from bookworm, 17 in sid
# from trixie).
#
# Roots are cached outside the checkout, in $CRID_ROOTS_DIR/<suite>-<hash>
# (/var/cache/crid/roots by default), <hash> naming what they are built
# from (the package lists, the suites and the mirror), and built when
# missing; the stamp file in a root holds the whole hash.
#
# A run never changes the cached root: it enters it through an overlay whose
# upper layer is a throwaway folder, in a private mount, PID and network
# namespace (unshare). /proc, /dev (bind), a tmpfs /dev/shm and the copy of
# the checkout are mounted there; when the command ends the kernel ends
# every process left in the namespace (servers a failed test left running
# too) and the mounts go with it. So runs of one version, or of two, may go
# on at once: a private loopback means their servers cannot meet on a port.
# The command sees PG and PG_CONFIG set for the root's major, and its exit
# status is the script's. CRID_ROOT_KEEP=1 keeps the run's folder (its
# upper layer holds the test outputs) and prints where it is;
# CRID_ROOT_NET=host shares this machine's network instead (to try an
# apt-get install in a throwaway layer, say).
set -euo pipefail

CRID_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROOTS_DIR=${CRID_ROOTS_DIR:-/var/cache/crid/roots}
# Bump when the way a root is built changes, so cached roots are rebuilt.
RECIPE=2

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'pg-root.sh: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2; }

if [ "$(id -u)" != 0 ]; then exec sudo --preserve-env=PG,CI,CRID_ROOTS_DIR,CRID_ROOT_KEEP,CRID_ROOT_NET,CRID_DEBIAN_MIRROR,CRID_DEBIAN_SECURITY_MIRROR "$0" "$@"; fi

case ${1:-} in [0-9]*) PG=$1; shift ;; esac
export PG
[ -n "${PG:-}" ] || usage
[ $# -gt 0 ] || usage
action=$1
shift

# --- what each root is made of ------------------------------------------------
# The suite of each major, and an older major with its suite to pg_upgrade from.
# CLANG_FORMAT: the host's clang-format 14 where the root's suites have it
# (trixie takes it from bookworm); sid has none that old, so its root has
# sid's own, which lays code out differently: the format check is the host's.
case $PG in
15) SUITE=bookworm OLD_PG= OLD_SUITE= CLANG_FORMAT=clang-format-14 ;;
17) SUITE=trixie OLD_PG=15 OLD_SUITE=bookworm CLANG_FORMAT=clang-format-14 ;;
18) SUITE=sid OLD_PG=17 OLD_SUITE=trixie CLANG_FORMAT=clang-format ;;
*) die "no Debian root for PostgreSQL $PG (15, 17 and 18 have one)" ;;
esac
# What the build and the PostgreSQL suites need (as in common.sh's
# CRID_PACKAGES, less what only the host runs: sanitizers, fuzzing, format).
# postgresql-contrib is not listed: since PostgreSQL 10 the contrib modules
# are part of postgresql-<v>. procps gives `ps` (TAP 031), iproute2 brings
# up the private loopback, pgbouncer stands before the registry in TAP 037.
PACKAGES=(postgresql-"$PG" postgresql-server-dev-"$PG" libboost-dev g++ make libpq-dev
          perl libipc-run-perl libfaketime procps iproute2 pgbouncer "$CLANG_FORMAT"
          # packaging: pg_buildext builds postgresql-<v>-crid in the root;
          # dpkg-buildpackage refuses to start without build-essential
          build-essential postgresql-server-dev-all debhelper dpkg-dev fakeroot git unzip)
# Multi-writer replication (TAP 040-042) on 15 runs pglogical; 17 and 18
# subscribe with origin = none, which needs no package.
[ "$PG" != 15 ] || PACKAGES+=(postgresql-15-pglogical)
# pg_partman 5 (time encoders and decoders for non-time control columns) for
# TAP 045; bookworm's postgresql-15-partman is 4.7, which has none, so 15's
# root goes without it and the test records a skip there.
[ "$PG" = 15 ] || PACKAGES+=(postgresql-"$PG"-partman)
# Installed when the suite has them (a suite can drop a package at any time):
# PL/Proxy for the shard scale-out test, pg_auto_failover for the highly
# available registry's (TAP 036), pg_cron for the partition lifecycle's
# schedule (TAP 046).
OPTIONAL_PACKAGES=(postgresql-"$PG"-plproxy postgresql-"$PG"-auto-failover pg-auto-failover-cli postgresql-"$PG"-cron)
# From OLD_SUITE: the major to pg_upgrade from, with headers to build crid for it.
OLD_PACKAGES=()
[ -z "$OLD_PG" ] || OLD_PACKAGES=(postgresql-"$OLD_PG" postgresql-server-dev-"$OLD_PG")

# The mirror this machine's apt uses for its own suite (and the security
# one), read from its sources, unless CRID_DEBIAN_MIRROR (and
# CRID_DEBIAN_SECURITY_MIRROR) say otherwise.
host_mirror() { # $1: security or main
    local want=$1
    { cat /etc/apt/sources.list 2>/dev/null; cat /etc/apt/sources.list.d/*.list 2>/dev/null; } |
        awk -v want="$want" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++;
                              uri = $i; suite = $(i + 1);
                              if ((want == "security") == (suite ~ /-security$/) && uri ~ /debian/) { print uri; exit } }'
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v want="$want" 'BEGIN { RS = ""; FS = "\n" }
            { uri = ""; suites = ""; deb = 0
              for (i = 1; i <= NF; i++) {
                  if ($i ~ /^Types:.*deb( |$)/) deb = 1
                  if ($i ~ /^URIs:/) { uri = $i; sub(/^URIs: */, "", uri); sub(/ .*/, "", uri) }
                  if ($i ~ /^Suites:/) suites = $i }
              if (deb && uri ~ /debian/ && (want == "security") == (suites ~ /-security/)) print uri }' "$f"
    done
}
MIRROR=${CRID_DEBIAN_MIRROR:-$(host_mirror main | head -n 1)}
SECURITY_MIRROR=${CRID_DEBIAN_SECURITY_MIRROR:-$(host_mirror security | head -n 1)}
[ -n "$MIRROR" ] || die "no Debian mirror in this machine's apt sources: set CRID_DEBIAN_MIRROR"

# apt's sources in the root: the suite, its updates and security suites when
# it is a release (sid has neither), and OLD_SUITE pinned low so that only
# what is asked for by name comes from it.
root_sources() {
    local s
    for s in "$SUITE" ${OLD_SUITE:+"$OLD_SUITE"}; do
        echo "deb $MIRROR $s main"
        if [ "$s" != sid ]; then
            echo "deb $MIRROR $s-updates main"
            [ -z "$SECURITY_MIRROR" ] || echo "deb $SECURITY_MIRROR $s-security main"
        fi
    done
}

CACHE="$ROOTS_DIR/debs/$SUITE"
STAMP_FILE=.crid-root/stamp
# Everything a root is built from: a change of any of it rebuilds the root.
recipe_hash() {
    {
        echo "recipe $RECIPE suite $SUITE old $OLD_SUITE"
        echo "packages ${PACKAGES[*]}"
        echo "optional ${OPTIONAL_PACKAGES[*]}"
        echo "old ${OLD_PACKAGES[*]}"
        root_sources
    } | sha256sum | cut -d' ' -f1
}
# The folder names the recipe too: checkouts whose recipes differ (branches)
# each keep their own root instead of rebuilding one over the other's.
ROOT="$ROOTS_DIR/$SUITE-$(recipe_hash | cut -c1-12)"

# --- entering a root ------------------------------------------------------------
# Runs inside the new namespaces as their first process (PID 1): mounts what
# the root needs, makes it the namespace's root (pivot_root, not chroot: in
# a chroot the kernel refuses new user namespaces, which TAP 035's cloned
# server needs), runs the command, returns its status. When it returns the
# kernel ends whatever else runs in the namespace.
#   $1 root (lower layer), $2 run folder or "" (enter the root itself),
#   $3 checkout copy to mount at /crid or "", $4 "net" to bring up loopback,
#   $5 folder to mount at /var/cache/apt/archives or "", rest: command.
in_namespace() {
    local root=$1 run=$2 src=$3 net=$4 debs=$5
    shift 5
    local m=$root
    if [ -n "$run" ]; then
        m=$run/merged
        mount -t overlay crid-root -o "lowerdir=$root,upperdir=$run/upper,workdir=$run/work" "$m"
    else
        mount --bind "$m" "$m" # pivot_root wants a mount point
    fi
    mount -t proc proc "$m/proc"
    mount --rbind /dev "$m/dev"
    mount -t tmpfs -o mode=1777,nosuid,nodev shm "$m/dev/shm"
    [ -z "$src" ] || mount --bind "$src" "$m/crid"
    [ -z "$debs" ] || mount --bind "$debs" "$m/var/cache/apt/archives"
    if [ "$net" = net ]; then
        if command -v ip >/dev/null; then ip link set lo up; else chroot "$m" ip link set lo up; fi
    fi
    # The old root goes on top of the new one and is then detached: from here
    # on every path is the root's.
    cd "$m"
    pivot_root . .
    umount -l .
    cd /
    local status=0
    /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" ${CI:+CI="$CI"} DEBIAN_FRONTEND=noninteractive \
        PG="$PG" PG_CONFIG="/usr/lib/postgresql/$PG/bin/pg_config" \
        /bin/bash -c 'cd /crid 2>/dev/null || cd /; exec "$@"' crid-root "$@" || status=$?
    return "$status"
}

# enter ROOT RUN SRC NET DEBS CMD...: in_namespace in fresh mount and PID
# namespaces (and a network one with NET=net). unshare ignores SIGINT and
# SIGTERM, so when this script gets one it kills unshare, and --kill-child
# then ends everything in the namespaces.
enter() {
    local netflag=() pid status=0
    [ "$4" != net ] || netflag=(--net)
    # stdin stays the script's (a job in the background would get /dev/null).
    unshare --mount --pid --fork --kill-child "${netflag[@]}" --propagation private \
        /bin/bash -c "set -euo pipefail; $(declare -f in_namespace); in_namespace \"\$@\"" \
        crid-root "$@" <&0 &
    pid=$!
    # shellcheck disable=SC2064 # the pid is known now
    trap "kill -KILL $pid 2>/dev/null; exit 130" INT TERM HUP
    wait "$pid" || status=$?
    trap - INT TERM HUP
    return "$status"
}

# --- building a root --------------------------------------------------------------
# Builds the root in $ROOT.new and puts it in place only when complete, so
# an interrupted build leaves no half root behind (the next one starts over).
build_root() {
    local new="$ROOT.new" t0 t1 t2 hash
    hash=$(recipe_hash)
    t0=$(date +%s)
    rm -rf "$new"
    mkdir -p "$CACHE"
    log "debootstrap $SUITE into $new"
    debootstrap --variant=minbase --components=main --cache-dir="$CACHE" "$SUITE" "$new" "$MIRROR" \
        >"$ROOTS_DIR/$SUITE.debootstrap.log" 2>&1 ||
        { tail -n 30 "$ROOTS_DIR/$SUITE.debootstrap.log" >&2; die "debootstrap $SUITE failed (log: $ROOTS_DIR/$SUITE.debootstrap.log)"; }
    t1=$(date +%s)

    root_sources >"$new/etc/apt/sources.list"
    if [ -n "$OLD_SUITE" ]; then
        local s
        for s in "$OLD_SUITE" "$OLD_SUITE-updates" "$OLD_SUITE-security"; do
            printf 'Package: *\nPin: release n=%s\nPin-Priority: 100\n\n' "$s"
        done >"$new/etc/apt/preferences.d/crid-old-suite"
    fi
    {
        echo 'APT::Install-Recommends "false";'
        echo 'Acquire::Languages "none";'
        # sid's Release file on a mirror can be past its Valid-Until date.
        [ "$SUITE" != sid ] || echo 'Acquire::Check-Valid-Until "false";'
    } >"$new/etc/apt/apt.conf.d/99crid"
    # No documentation: a test root never reads it, and unpacking is faster.
    printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
        'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' >"$new/etc/dpkg/dpkg.cfg.d/crid-nodoc"
    # Packages start no services in the root (a server there would share this
    # machine's network while the root is being built).
    printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
    chmod 755 "$new/usr/sbin/policy-rc.d"
    cp /etc/resolv.conf "$new/etc/resolv.conf"
    mkdir -p "$new/crid" "$new/.crid-root"

    log "installing packages into the $SUITE root"
    # postgresql-common first, so that no "main" cluster is created: the
    # tests make their own.
    local script
    script=$(cat <<EOF
set -euo pipefail
apt-get -q update
apt-get -y -q install postgresql-common
sed -i 's/^#* *create_main_cluster *=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf
grep -qx 'create_main_cluster = false' /etc/postgresql-common/createcluster.conf
apt-get -y -q install ${PACKAGES[*]}
for p in ${OPTIONAL_PACKAGES[*]}; do
    if apt-cache show "\$p" >/dev/null 2>&1; then apt-get -y -q install "\$p"; else echo "no \$p in $SUITE"; fi
done
${OLD_PACKAGES[*]:+apt-get -y -q install ${OLD_PACKAGES[*]}}
[ "$CLANG_FORMAT" = clang-format ] || ln -sf /usr/bin/$CLANG_FORMAT /usr/local/bin/clang-format
dpkg-query -W -f '\${Package} \${Version}\n' >/.crid-root/packages
# The shared package cache keeps only what the mirror still has.
apt-get -q autoclean
rm -rf /var/lib/apt/lists/*
EOF
)
    enter "$new" "" "" host "$CACHE" /bin/bash -c "$script" >"$ROOTS_DIR/$SUITE.install.log" 2>&1 ||
        { tail -n 40 "$ROOTS_DIR/$SUITE.install.log" >&2; die "installing packages into the $SUITE root failed (log: $ROOTS_DIR/$SUITE.install.log)"; }
    t2=$(date +%s)
    printf 'debootstrap %ss, packages %ss\n' $((t1 - t0)) $((t2 - t1)) >"$new/.crid-root/build-time"
    echo "$hash" >"$new/$STAMP_FILE"

    if [ -e "$ROOT" ]; then
        rm -rf "$ROOT.old"
        mv "$ROOT" "$ROOT.old"
    fi
    mv "$new" "$ROOT"
    rm -rf "$ROOT.old"
    log "the $SUITE root is built in $((t2 - t0))s (debootstrap $((t1 - t0))s, packages $((t2 - t1))s): $ROOT"
}

# This machine's debootstrap (host-apt.sh waits for any other install the
# suites or the other roots' builds run at the same time).
install_debootstrap() {
    command -v debootstrap >/dev/null || "$CRID_ROOT/test/harness/host-apt.sh" debootstrap
}

fresh() { [ -f "$ROOT/$STAMP_FILE" ] && [ "$(cat "$ROOT/$STAMP_FILE")" = "$(recipe_hash)" ]; }

# Takes the root's lock, shared (runs of one root go on side by side), and
# builds the root first, holding the lock exclusively, when it is missing or
# stale: a build waits for the runs in the root to end, a run for a build.
# The lock is on fd 9, which commands in the root do not inherit.
ensure_root() { # $1: force to rebuild
    mkdir -p "$ROOTS_DIR"
    exec 9>"$ROOTS_DIR/$SUITE.lock"
    flock -s 9
    [ "${1:-}" = force ] || ! fresh || return 0
    flock -u 9
    flock -x 9
    if [ "${1:-}" = force ] || ! fresh; then
        install_debootstrap
        build_root
    fi
    flock -s 9
}

# A copy of the checkout: the files git knows (tracked or new, not ignored),
# as they are in the work tree, so no build product of another major comes
# along. Without git, everything but objects and test outputs.
copy_checkout() { # $1: destination
    if git -C "$CRID_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$CRID_ROOT" ls-files -z --cached --others --exclude-standard |
            (cd "$CRID_ROOT" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
            tar -C "$CRID_ROOT" --null -T - -cf - | tar -C "$1" -xf -
    else
        tar -C "$CRID_ROOT" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.d' --exclude='*.bc' \
            --exclude=tmp_check --exclude='tmp_check_*' --exclude=results --exclude=output_iso -cf - . | tar -C "$1" -xf -
    fi
}

run_in_root() { # command...
    local run status=0
    run=$(mktemp -d "${TMPDIR:-/tmp}/crid-root-$PG.XXXXXX")
    # shellcheck disable=SC2064 # the folder is known now
    [ "${CRID_ROOT_KEEP:-}" = 1 ] || trap "rm -rf '$run'" EXIT
    mkdir -p "$run/upper" "$run/work" "$run/merged" "$run/src"
    copy_checkout "$run/src"
    local net=net
    [ "${CRID_ROOT_NET:-}" != host ] || net=host
    enter "$ROOT" "$run" "$run/src" "$net" "" "$@" 9>&- || status=$?
    [ "${CRID_ROOT_KEEP:-}" != 1 ] ||
        log "run folder kept: $run (the root's changes in $run/upper, the checkout copy in $run/src)"
    return "$status"
}

case $action in
path) echo "$ROOT" ;;
build) ensure_root && echo "$ROOT" ;;
rebuild) ensure_root force && echo "$ROOT" ;;
run)
    [ $# -gt 0 ] || usage
    ensure_root
    run_in_root "$@"
    ;;
shell)
    ensure_root
    run_in_root /bin/bash -i
    ;;
*) usage ;;
esac
