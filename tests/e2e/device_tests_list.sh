#!/usr/bin/env bash
# device_tests_list.sh SOURCE_DIR BUILD_DIR - what scripts/device/bundle.sh
# keeps of a build's tests (scripts/device/device-tests.sh): the programs
# of the cuda and opencl tests, each an executable ELF file inside the
# build, and no fixture script (bundle.sh strips each one it keeps: a
# script in the list once stopped it, and with it every device run).
set -euo pipefail
src=$1 build=$(realpath "$2")
fail() { echo "FAIL: $*"; exit 1; }
list=$("$src/scripts/device/device-tests.sh" "$build") || fail "device-tests.sh $build: exit $?"
n=0
while read -r f; do
  case $f in "$build"/*) ;; *) fail "$f is not inside $build" ;; esac
  [ -x "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || fail "$f is not an executable ELF file"
  n=$((n + 1))
done <<<"$list"
grep -q '/test_spmv$' <<<"$list" || fail "test_spmv (labels cuda and opencl) is not in the list: $list"
echo "ok: $n device test programs, each an ELF file in the build"
