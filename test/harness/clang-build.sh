# Building src/core and its tests with clang and sanitizers, for the
# sanitizer and fuzzing suites. Sourced, not executed (after common.sh).

CLANGXX=${CLANGXX:-clang++-14}

# Compiles each source into DIR/<name>.o, in parallel (one job a core),
# with the given flags: compile_objects DIR FLAGS... -- SOURCES...
compile_objects() {
    local dir=$1
    shift
    local flags=()
    while [ "$1" != -- ]; do
        flags+=("$1")
        shift
    done
    shift
    # Every source is compiled again, so nothing in the folder is kept: an
    # object of a source since renamed or removed would be linked as well.
    rm -rf "$dir"
    mkdir -p "$dir"
    local pids=() src failed=0
    for src in "$@"; do
        "$CLANGXX" "${flags[@]}" -c "$src" -o "$dir/$(basename "$src" .cpp).o" &
        pids+=($!)
        if [ ${#pids[@]} -ge "$(nproc)" ]; then
            wait "${pids[0]}" || failed=1
            pids=("${pids[@]:1}")
        fi
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    return "$failed"
}
