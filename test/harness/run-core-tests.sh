#!/usr/bin/env bash
# Builds and runs the src/core unit tests: plain C++20, no PostgreSQL needed.
# Each source is compiled on its own, one job a core.
source "$(dirname "$0")/common.sh"
CLANGXX=g++
source "$(dirname "$0")/clang-build.sh"

out="$CRID_ROOT/test/core/build"
mkdir -p "$out"
flags=(-std=c++20 -O2 -g -Wall -Wextra -Werror -DCRID_CORE_UNIT -pthread)
compile_objects "$out/core" "${flags[@]}" -- "$CRID_ROOT"/src/core/*.cpp "$CRID_ROOT"/test/core/*.cpp
g++ -pthread "$out"/core/*.o -o "$out/core-tests"
"$out/core-tests" "$@"
