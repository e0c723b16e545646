#!/usr/bin/env bash
# The hardening suite of make test: the core unit tests under the
# sanitizers, then the fuzzing targets for a fixed number of inputs each,
# one after the other (the fuzz targets link the sanitizers' build of
# src/core). Prints their "ok - ..." / "not ok - ..." lines; fails when
# either does.
dir=$(dirname "$0")
status=0
"$dir/run-sanitizers.sh" || status=1
"$dir/run-fuzz.sh" || status=1
exit "$status"
