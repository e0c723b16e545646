#!/usr/bin/env bash
# The core unit tests again, built with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer (every test), and under ThreadSanitizer (every
# test that shares the lock-free block ring or the snowflake and UUIDv7
# words between threads). Any report fails the run. Prints
# "ok - ..." / "not ok - ..." lines.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/clang-build.sh"

out="$CRID_ROOT/test/core/build"
mkdir -p "$out" # make sanitizers in a fresh clone, before any other build
common=(-std=c++20 -g -O1 -fno-omit-frame-pointer -DCRID_CORE_UNIT -pthread -Wall -Wextra -Werror)
# Reports abort the test binary instead of printing and going on.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

failed=0
report() { # report "what" status log
    if [ "$2" = 0 ]; then echo "ok - $1"; else echo "not ok - $1"; tail -n 40 "$3"; failed=1; fi
}

# AddressSanitizer + UndefinedBehaviorSanitizer: the core is built once for
# these tests and for the fuzz targets (run-fuzz.sh), hence fuzzer-no-link.
asan=(-fsanitize=address,undefined -fno-sanitize-recover=all)
status=0
{
    compile_objects "$out/asan-core" "${common[@]}" "${asan[@]}" -fsanitize=fuzzer-no-link -- "$CRID_ROOT"/src/core/*.cpp &&
        touch "$out/asan-core" &&
        compile_objects "$out/asan-tests" "${common[@]}" "${asan[@]}" -- "$CRID_ROOT"/test/core/*.cpp &&
        "$CLANGXX" "${asan[@]}" -fsanitize=fuzzer-no-link -pthread "$out"/asan-core/*.o "$out"/asan-tests/*.o \
            -o "$out/core-tests-asan" &&
        "$out/core-tests-asan"
} >"$out/asan.log" 2>&1 || status=$?
grep -E '^core: ' "$out/asan.log" || true
report "core unit tests under AddressSanitizer and UndefinedBehaviorSanitizer" "$status" "$out/asan.log"

# ThreadSanitizer: every test of the files built here whose name says it
# runs threads ("threads" in it), each named exactly. The binary runs the
# tests whose names contain an argument, so each one is checked to have
# passed under its own name, and no other to have run.
tsan_tests=(crid_blocks_test snowflake_generator_test uuidv7_test uuidv7_clock_test)
mapfile -t threaded < <(for t in "${tsan_tests[@]}"; do
    sed -n 's/^TEST(\([a-z0-9_]*threads[a-z0-9_]*\)).*/\1/p' "$CRID_ROOT/test/core/$t.cpp"
done)
tsan_sources=("$CRID_ROOT"/test/core/main.cpp)
for t in "${tsan_tests[@]}"; do tsan_sources+=("$CRID_ROOT/test/core/$t.cpp"); done
status=0
{
    compile_objects "$out/tsan" "${common[@]}" -fsanitize=thread -- "$CRID_ROOT"/src/core/*.cpp "${tsan_sources[@]}" &&
        "$CLANGXX" -fsanitize=thread -pthread "$out"/tsan/*.o -o "$out/core-tests-tsan" &&
        "$out/core-tests-tsan" "${threaded[@]}"
} >"$out/tsan.log" 2>&1 || status=$?
[ ${#threaded[@]} -gt 0 ] || { echo "no threaded test found" >>"$out/tsan.log"; status=1; }
for name in "${threaded[@]}"; do
    grep -qx "ok      $name" "$out/tsan.log" || { echo "did not pass under ThreadSanitizer: $name" >>"$out/tsan.log"; status=1; }
done
ran=$(grep -cE '^(ok|FAILED) ' "$out/tsan.log" || true)
[ "$ran" = "${#threaded[@]}" ] || { echo "$ran tests ran for ${#threaded[@]} named" >>"$out/tsan.log"; status=1; }
grep -E '^core: ' "$out/tsan.log" | head -1 || true
report "lock-free block ring and shared words under ThreadSanitizer (${#threaded[@]} threaded tests)" "$status" "$out/tsan.log"
exit "$failed"
