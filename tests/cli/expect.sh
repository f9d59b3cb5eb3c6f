#!/usr/bin/env bash
# expect.sh FLOWBENCH EXIT_CODE REGEX ARGS... - runs flowbench with ARGS and
# passes when the exit code is EXIT_CODE and REGEX (grep -E) matches its
# combined output. Used by the table in cases.txt.
set -u
bin=$1; want=$2; regex=$3; shift 3
out=$("$bin" "$@" 2>&1)
got=$?
if [ "$got" -ne "$want" ]; then
  printf 'FAIL: flowbench %s\n  exit %s, expected %s\n  output:\n%s\n' "$*" "$got" "$want" "$out"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  printf 'FAIL: flowbench %s\n  output does not match /%s/:\n%s\n' "$*" "$regex" "$out"
  exit 1
fi
# Errors are one line: a non-zero exit prints exactly one "flowbench:" line.
if [ "$want" -eq 2 ] && [ "$(printf '%s\n' "$out" | grep -c '^flowbench:')" -ne 1 ]; then
  printf 'FAIL: flowbench %s\n  expected exactly one error line:\n%s\n' "$*" "$out"
  exit 1
fi
echo "ok: flowbench $* -> exit $got"
