#!/usr/bin/env bash
# Builds and runs the src/core unit tests: plain C++20, no PostgreSQL needed.
source "$(dirname "$0")/common.sh"

out="$CRID_ROOT/test/core/build"
mkdir -p "$out"
g++ -std=c++20 -O2 -g -Wall -Wextra -Werror -DCRID_CORE_UNIT -pthread \
    "$CRID_ROOT"/src/core/*.cpp "$CRID_ROOT"/test/core/*.cpp -o "$out/core-tests"
"$out/core-tests" "$@"
