#!/usr/bin/env bash
# The libFuzzer targets of src/core (test/fuzz/fuzz_*.cpp, one per parser or
# decoder), built with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer. Each starts from its seed corpus
# (test/fuzz/corpus/<target>/) and mutates from there; a crash, a sanitizer
# report, an exception other than crid::core::Error or a broken promise
# fails it, and the input that did is kept beside the log.
#
#   run-fuzz.sh runs N      each target for N inputs (make test: a fixed number)
#   run-fuzz.sh seconds N   each target for N seconds (make fuzz)
#
# New inputs the fuzzer finds go to a scratch folder, never into the
# repository; copy an interesting one into the seed corpus by hand.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/clang-build.sh"

mode=${1:-runs}
amount=${2:-20000}
case "$mode" in
runs) limit=(-runs="$amount") ;;
seconds) limit=(-max_total_time="$amount") ;;
*) echo "usage: $0 runs N | seconds N" >&2; exit 2 ;;
esac

out="$CRID_ROOT/test/core/build"
mkdir -p "$out"
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -DCRID_CORE_UNIT -Wall -Wextra -Werror
       -fsanitize=address,undefined -fno-sanitize-recover=all)
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The core objects are those of run-sanitizers.sh when it ran first.
if ! ls "$out"/asan-core/*.o >/dev/null 2>&1 || [ -n "$(find "$CRID_ROOT/src/core" -newer "$out/asan-core" -name '*.?pp')" ]; then
    compile_objects "$out/asan-core" "${flags[@]}" -fsanitize=fuzzer-no-link -- "$CRID_ROOT"/src/core/*.cpp
    touch "$out/asan-core"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/crid-fuzz.XXXXXX")
failed=0
for src in "$CRID_ROOT"/test/fuzz/fuzz_*.cpp; do
    target=$(basename "$src" .cpp)
    name=${target#fuzz_}
    seeds="$CRID_ROOT/test/fuzz/corpus/$name"
    mkdir -p "$scratch/$name"
    status=0
    {
        "$CLANGXX" "${flags[@]}" -fsanitize=fuzzer "$src" "$out"/asan-core/*.o -o "$out/$target" &&
            "$out/$target" "${limit[@]}" -artifact_prefix="$scratch/$name-" -print_final_stats=1 \
                "$scratch/$name" "$seeds"
    } >"$scratch/$name.log" 2>&1 || status=$?
    if [ "$status" = 0 ] && [ -d "$seeds" ]; then
        echo "ok - fuzz $name ($(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$scratch/$name.log" | grep -oE '[0-9]+$') inputs)"
    else
        echo "not ok - fuzz $name (log and failing input in $scratch)"
        tail -n 40 "$scratch/$name.log"
        failed=1
    fi
done
[ "$failed" = 0 ] && rm -rf "$scratch"
exit "$failed"
