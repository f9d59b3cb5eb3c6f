#!/usr/bin/env bash
# test_format.sh SRC WORK - the tree follows .clang-format, and the check
# catches a file that does not. Exits 77 (skipped) where clang-format is
# missing or another version than the one the layout is written for.
set -uo pipefail
src=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

"$here/check_format.sh" "$src"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail "sources differ from .clang-format (see above)"

rm -rf "$work" && mkdir -p "$work/harness/core"
cp "$src/.clang-format" "$work/"
printf 'int  f( int x ){return x;}\n' > "$work/harness/core/messy.c"
if out=$("$here/check_format.sh" "$work" 2>&1); then fail "a misformatted file passed: $out"; fi
grep -qF "harness/core/messy.c differs" <<<"$out" || fail "expected the file named in: $out"
echo "format: the tree passes; a planted misformatted file is caught"
