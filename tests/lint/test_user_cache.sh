#!/usr/bin/env bash
# test_user_cache.sh WORK CTEST BUILD - the tests keep off the user's caches:
#  - user_cache.sh (the fixture every test requires) passes on a folder left
#    alone and fails, naming it, on each kind of write planted in a fake
#    HOME: the folder made, a file added, changed (its size and mtime kept:
#    only the checksum sees it), removed; XDG_CACHE_HOME taken when absolute;
#    the snapshot empties the tests' own folders, and run inside a test
#    (a ctest of the build that a test runs) neither step does anything;
#  - every test of BUILD (ctest --show-only) requires that fixture and has
#    FLOWBENCH_CACHE_DIR set to a folder of its own under the build, and no
#    test's cache variable points at the user's folder.
set -uo pipefail
work=$1 ctest=$2 build=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/home" "$work/listing" || exit 2

# user_cache ARGS...: the script with the fake HOME and no XDG_CACHE_HOME.
user_cache() { env -u XDG_CACHE_HOME HOME="$work/home" "$here/user_cache.sh" "$@"; }
# caught WHAT REGEX: the check fails and its output matches REGEX.
caught() {
  local out
  if out=$(user_cache check "$work/snap" 2>&1); then fail "$1 passed the check: $out"; fi
  grep -Eq -- "$2" <<< "$out" || fail "$1: no /$2/ in: $out"
}
cache=$work/home/.cache/flowbench

user_cache snapshot "$work/snap" > /dev/null || fail "snapshot of an absent folder"
user_cache check "$work/snap" > /dev/null || fail "an absent folder left absent failed the check"
mkdir -p "$cache" && echo '{"entries": []}' > "$cache/stream.json"
caught "the folder made" "the folder appeared, holding: stream.json"

echo '{"entries": [1]}' > "$cache/tuning.json"
user_cache snapshot "$work/snap" > /dev/null || fail "snapshot of a folder"
user_cache check "$work/snap" > /dev/null || fail "a folder left alone failed the check"
touch -r "$cache/tuning.json" "$work/stamp"
echo '{"entries": [2]}' > "$cache/tuning.json" && touch -r "$work/stamp" "$cache/tuning.json"
caught "a file rewritten, its size and mtime kept" "changed: tuning.json \(contents differ\)"
user_cache snapshot "$work/snap" > /dev/null
touch "$cache/noise.json"
caught "a file added" "appeared: noise.json \(file, 0 bytes\)"
user_cache snapshot "$work/snap" > /dev/null
rm "$cache/stream.json"
caught "a file removed" "went: stream.json"

# The snapshot empties the tests' folders; inside a test (a ctest run by a
# test on its own build) neither step touches anything.
mkdir -p "$work/tc/some.test" && touch "$work/tc/some.test/tuning.json"
user_cache snapshot "$work/snap" "$work/tc" > /dev/null && [ ! -e "$work/tc" ] ||
  fail "the snapshot did not empty the tests' cache folders"
mkdir -p "$work/tc/some.test" && cp "$work/snap" "$work/snap.before" && touch "$cache/inner.json"
for step in snapshot check; do
  out=$(FLOWBENCH_CACHE_DIR=$work/tc/outer.test user_cache "$step" "$work/snap" "$work/tc") ||
    fail "$step inside a test failed: $out"
done
cmp -s "$work/snap" "$work/snap.before" && [ -d "$work/tc/some.test" ] ||
  fail "a snapshot inside a test replaced the outer run's or emptied the tests' folders"
caught "a file added while a test's own ctest ran" "appeared: inner.json"

# XDG_CACHE_HOME: its flowbench folder when absolute, ignored when relative.
mkdir -p "$work/xdg" "$work/rel"
env XDG_CACHE_HOME="$work/xdg" HOME="$work/home" "$here/user_cache.sh" snapshot "$work/snap-xdg" |
  grep -qF "folder $work/xdg/flowbench: absent" || fail "an absolute XDG_CACHE_HOME was not taken"
(cd "$work" && env XDG_CACHE_HOME=rel HOME="$work/home" "$here/user_cache.sh" snapshot "$work/snap-rel") |
  grep -qF "folder $cache:" || fail "a relative XDG_CACHE_HOME was not ignored"

# Every test of the build: the fixture, and a cache folder of its own. ctest
# lists a copy of the build's test files: even --show-only rewrites
# Testing/Temporary/LastTest.log, which the running suite is writing.
# (the copy itself is left out: inside the build, find met each file it had
# just copied and copied it again, a folder nested hundreds deep)
inside=./$(realpath --relative-to="$(realpath "$build")" "$(realpath "$work")")
(cd "$build" && find . -path "$inside" -prune -o -name CTestTestfile.cmake -exec cp --parents {} "$work/listing/" \;) ||
  fail "cannot copy the build's CTestTestfile.cmake files"
[ -z "$(find "$work/listing" -path '*/listing/*/listing' -print -quit)" ] || fail "the listing copied itself"
"$ctest" --test-dir "$work/listing" --show-only=json-v1 > "$work/tests.json" 2> "$work/ctest.err" ||
  fail "ctest --show-only: $(cat "$work/ctest.err")"
jq -r --arg home "${XDG_CACHE_HOME:-$HOME/.cache}/flowbench" '
  .tests[] | .name as $n
  | [(.properties // [])[] | {key: .name, value: .value}] | from_entries as $p
  | select($n | test("^user_cache\\.") | not)
  | (($p.ENVIRONMENT // []) | map(select(startswith("FLOWBENCH_CACHE_DIR=")) | ltrimstr("FLOWBENCH_CACHE_DIR="))
     | last // "") as $dir
  | if (($p.FIXTURES_REQUIRED // []) | index("user_cache")) == null then "\($n): does not require user_cache"
    elif ($dir | endswith("/test-caches/\($n)") | not) then "\($n): FLOWBENCH_CACHE_DIR=\($dir), not its own"
    elif any(($p.ENVIRONMENT // [])[]; test("^FLOWBENCH_[A-Z_]*=\($home)")) then "\($n): a cache in \($home)"
    else empty end' "$work/tests.json" > "$work/bad.txt" || fail "jq over ctest's listing"
[ ! -s "$work/bad.txt" ] || fail "$(wc -l < "$work/bad.txt") test(s) not kept off the user's caches:
$(head -20 "$work/bad.txt")"
n=$(jq '.tests | length' "$work/tests.json")
[ "$n" -gt 100 ] || fail "ctest listed $n tests"
echo "user_cache: 6 planted writes caught, XDG_CACHE_HOME taken as the spec says; $n tests each with their own caches"
