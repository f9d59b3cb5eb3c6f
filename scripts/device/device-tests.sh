#!/usr/bin/env bash
# device-tests.sh BUILD - the test programs of the device tests (phase 1
# of scripts/device/phase.sh: the ctest labels cuda and opencl) in BUILD,
# one absolute path a line: what bundle.sh keeps of BUILD's tests. ctest's
# list also names the scripts of the fixtures those tests require
# (tests/lint/user_cache.sh, run from the source tree), which are not
# BUILD's to keep: only programs under BUILD are printed. Exit 1 when
# there is none.
set -euo pipefail
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: device-tests.sh BUILD" >&2; exit 2; }
build=$(realpath "$1")
list=$(ctest --test-dir "$build" -N -V -L '^(cuda|opencl)$' |
  sed -n 's/^[0-9]*: Test command: \([^ ]*\).*/\1/p' | grep -F "$build/" | sort -u || true)
[ -n "$list" ] || { echo "device-tests.sh: ctest lists no cuda or opencl test program in $build" >&2; exit 1; }
printf '%s\n' "$list"
