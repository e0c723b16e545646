# The machine and software the figures come from.
section_machine() {
    bench_server_switch </dev/null
    local cpu mem version commit
    cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
    mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
    version=$(bench_psql -Atq -c 'SELECT version()')
    commit=$(git -C "$CRID_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
    echo "## Machine"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
    echo "| cores | $(nproc) (${cpu:-unknown CPU}) |"
    echo "| memory | $mem |"
    echo "| PostgreSQL | $version |"
    echo "| crid | $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$CRID_ROOT/crid.control") at $commit |"
    echo "| kernel | $(uname -sr) |"
    echo
    echo "Each section starts its own scratch server with crid preloaded and \`fsync = off\` unless it says"
    echo "otherwise. The machine may be shared: figures move from run to run, ratios much less."
}
