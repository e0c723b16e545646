#!/usr/bin/env bash
# `make bench`: every benchmark, one after another. Each prints its tables.
cd "$(dirname "$0")"
for b in uuidv7.sh $(ls *.sh | grep -v -e '^run.sh$' -e '^lib.sh$' -e '^uuidv7.sh$'); do
    bash "$b"
    echo
done
