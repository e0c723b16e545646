#!/usr/bin/env bash
# host-apt.sh PACKAGE...: installs those of the Debian packages that this
# machine lacks, with apt-get, as root. Every harness script that installs on
# the host goes through here: make test-all builds the Debian roots (which
# need debootstrap) while make test installs its own packages, and two
# apt-gets at once on a fresh machine make the second fail on apt's lock.
# One lock file serializes ours; apt's own lock timeout waits for anyone
# else's (unattended upgrades, say).
set -euo pipefail

missing() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

[ $# -gt 0 ] || exit 0
[ -n "$(missing "$@")" ] || exit 0
if [ "$(id -u)" != 0 ]; then exec sudo "$0" "$@"; fi

exec 8>/run/lock/crid-host-apt.lock
flock -x 8
# Another caller may have installed them while this one waited.
mapfile -t todo < <(missing "$@")
[ ${#todo[@]} -gt 0 ] || exit 0
printf '\033[1m==> installing %s\033[0m\n' "${todo[*]}" >&2
apt-get -qq -o DPkg::Lock::Timeout=600 update
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${todo[@]}" >/dev/null
