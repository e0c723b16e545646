#!/usr/bin/env bash
# The core unit tests again, built with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer (every test), and under ThreadSanitizer (the
# tests that share the lock-free block ring and the snowflake and UUIDv7
# words between threads). Any report fails the run. Prints
# "ok - ..." / "not ok - ..." lines.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/clang-build.sh"

out="$CRID_ROOT/test/core/build"
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

# ThreadSanitizer: the tests whose threads share one word or one ring (a
# filter that matched nothing would pass vacuously, so their count is checked).
threaded=(crid_blocks_threads threads_on_one_word threads_sharing_one_word threads_never_return)
status=0
{
    compile_objects "$out/tsan" "${common[@]}" -fsanitize=thread -- "$CRID_ROOT"/src/core/*.cpp \
        "$CRID_ROOT"/test/core/{main,crid_blocks_test,snowflake_generator_test,uuidv7_test,uuidv7_clock_test}.cpp &&
        "$CLANGXX" -fsanitize=thread -pthread "$out"/tsan/*.o -o "$out/core-tests-tsan" &&
        "$out/core-tests-tsan" "${threaded[@]}"
} >"$out/tsan.log" 2>&1 || status=$?
[ "$(grep -c '^ok ' "$out/tsan.log")" -ge "${#threaded[@]}" ] || status=1
grep -E '^core: ' "$out/tsan.log" | head -1 || true
report "lock-free block ring and shared words under ThreadSanitizer" "$status" "$out/tsan.log"
exit "$failed"
