#!/usr/bin/env bash
# user_cache.sh snapshot|check FILE [TEST_CACHES] - the user's flowbench
# cache folder ($XDG_CACHE_HOME/flowbench when XDG_CACHE_HOME is absolute,
# else $HOME/.cache/flowbench) is what the test suite must leave alone: a
# stream triad a test measured under the suite's load once stood in it, and
# the user's next `./run.sh default` divided every SpMV figure by it for an
# hour.
#
#   snapshot FILE  writes the folder's name and, for each entry, its name,
#                  type, size, mtime and SHA-256 (or "absent") to FILE, and
#                  empties TEST_CACHES (the tests' own cache folders), so
#                  each test starts from a fresh user's caches
#   check FILE     takes the same listing again and fails naming each entry
#                  that appeared, went or changed since the snapshot
#
# ctest runs the two as the setup and cleanup of the fixture user_cache,
# which every test requires (tests/CMakeLists.txt). Run inside a test (one
# that runs ctest on its own build, as e2e.device_phases does: its
# FLOWBENCH_CACHE_DIR is inside TEST_CACHES), both do nothing, so that the
# outer run's snapshot and the other tests' folders are left be. The check
# cannot tell a test from another program of the same user (a
# `./run.sh default` beside the tests writes there too): its message says
# both.
set -uo pipefail

usage() { echo "usage: user_cache.sh snapshot|check FILE [TEST_CACHES]" >&2; exit 2; }
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
mode=$1 file=$2 test_caches=${3:-}

if [ -n "$test_caches" ] && [[ "${FLOWBENCH_CACHE_DIR:-}" == "$test_caches"/* ]]; then
  echo "inside the test whose caches are $FLOWBENCH_CACHE_DIR: the outer run's $mode holds"
  exit 0
fi

user_cache_folder() {
  if [ -n "${XDG_CACHE_HOME:-}" ] && [ "${XDG_CACHE_HOME:0:1}" = / ]; then # relative ones are ignored (XDG spec)
    echo "$XDG_CACHE_HOME/flowbench"
  else
    echo "${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache/flowbench"
  fi
}

# listing DIR: "absent", or a line per entry, the folder itself as ".":
# NAME TYPE SIZE MTIME SHA256 (tab-separated; "-" for what is not a file).
# The folder's own mtime changes when an entry is made and removed again.
listing() {
  local dir=$1 name type size mtime sum
  if [ ! -e "$dir" ]; then echo absent; return; fi
  (cd "$dir" && find . -printf '%p\t%y\t%s\t%TY-%Tm-%Td %TT\n') | LC_ALL=C sort |
    while IFS=$'\t' read -r name type size mtime; do
      sum=-
      [ "$type" = f ] && { sum=$(sha256sum < "$dir/$name") && sum=${sum%% *} || sum=unreadable; }
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$type" "$size" "$mtime" "$sum"
    done
}

# describe OLD NEW: one line per entry that differs between two listings.
describe() {
  awk -F'\t' '
    function what(f) { return f[2] == "d" ? "folder" : f[2] == "f" ? "file" : "entry of type " f[2] }
    function show(n) { return n == "." ? "the folder itself" : substr(n, 3) }
    NR == FNR { old[$1] = $0; next }
    { new[$1] = $0 }
    END {
      for (n in new) {
        split(new[n], b, "\t")
        if (!(n in old)) { print "  appeared: " show(n) " (" what(b) ", " b[3] " bytes)"; continue }
        split(old[n], a, "\t")
        if (old[n] == new[n]) continue
        why = ""
        if (a[3] != b[3]) why = why ", size " a[3] " -> " b[3]
        if (a[4] != b[4]) why = why ", modified " a[4] " -> " b[4]
        if (a[5] != b[5]) why = why ", contents differ"
        print "  changed: " show(n) " (" substr(why, 3) ")"
      }
      for (n in old) if (!(n in new)) print "  went: " show(n)
    }' "$1" "$2" | LC_ALL=C sort -k2
}

snapshot() {
  local dir state
  dir=$(user_cache_folder) || exit 2
  mkdir -p "$(dirname "$file")" || exit 2
  { printf 'folder\t%s\n' "$dir"; listing "$dir"; } > "$file.tmp" && mv "$file.tmp" "$file" || exit 2
  [ -z "$test_caches" ] || rm -rf "$test_caches" || exit 2
  state=absent n=$(($(wc -l < "$file") - 2))
  grep -qx absent "$file" || state="present, $n entr$([ "$n" = 1 ] && echo y || echo ies)"
  echo "the user's cache folder $dir: $state (snapshot in $file)"
}

check() {
  local dir
  [ -s "$file" ] || { echo "FAIL: no snapshot $file (the fixture's setup, user_cache.snapshot, did not run)"; exit 1; }
  dir=$(head -1 "$file" | cut -f2)
  before=$(mktemp) after=$(mktemp)
  trap 'rm -f "$before" "$after"' EXIT
  tail -n +2 "$file" > "$before"
  listing "$dir" > "$after"
  if cmp -s "$before" "$after"; then
    echo "ok: the user's cache folder $dir is as it was before the tests"
    return 0
  fi
  echo "FAIL: the user's cache folder $dir changed while the tests ran:"
  if grep -qx absent "$before"; then
    echo "  the folder appeared, holding: $(grep -v '^\.'$'\t' "$after" | cut -f1 | sed 's|^\./||' | tr '\n' ' ')"
  elif grep -qx absent "$after"; then
    echo "  the folder went"
  else
    describe "$before" "$after"
  fi
  echo "A test that writes a cache must keep to its own folder (ctest gives each test FLOWBENCH_CACHE_DIR," \
    "tests/CMakeLists.txt); or another program of this user wrote there meanwhile (a ./run.sh default," \
    "another checkout's tests): this check cannot tell which."
  return 1
}

case "$mode" in
  snapshot) snapshot ;;
  check) check ;;
  *) usage ;;
esac
