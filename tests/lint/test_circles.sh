#!/usr/bin/env bash
# test_circles.sh SRC OBJDIR WORK - the files of one module call each other
# in no circle but the known ones (circles-known.txt), and the checker
# finds a circle it is shown: two planted files that call each other.
set -euo pipefail
src=$1 objdir=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

# "MODULE: f1 f2 ..." (sorted) of each circle check_circles.sh prints
members() {
  { grep -- ' -> ' || true; } | while IFS= read -r line; do
    printf '%s: %s\n' "${line%%:*}" "$(grep -o '[A-Za-z0-9_]*\.c' <<<"${line#*:}" | sort -u | tr '\n' ' ' | sed 's/ $//')"
  done | sort
}

out=$("$here/check_circles.sh" "$objdir" 2>&1) || true
found=$(members <<<"$out")
known=$({ grep -v '^#' "$here/circles-known.txt" || true; } | sed '/^$/d' | sort)
new=$(comm -23 <(echo "$found") <(echo "$known") | sed '/^$/d')
gone=$(comm -13 <(echo "$found") <(echo "$known") | sed '/^$/d')
[ -z "$new" ] || fail "a new circle of calls (open it, see docs/architecture.md): $new
$out"
[ -z "$gone" ] || fail "a known circle is gone: delete its line in tests/lint/circles-known.txt: $gone"

rm -rf "$work" && mkdir -p "$work/harness/toy"
printf 'int toy_b(int);\nint toy_a(int x) { return x ? toy_b(x - 1) : 0; }\n' > "$work/a.c"
printf 'int toy_a(int);\nint toy_b(int x) { return toy_a(x); }\n' > "$work/b.c"
printf 'int toy_a(int);\nint toy_c(int x) { return toy_a(x); }\n' > "$work/c.c"
for f in a b c; do cc -c "$work/$f.c" -o "$work/harness/toy/$f.c.o"; done
if planted=$("$here/check_circles.sh" "$work" 2>&1); then fail "two files calling each other passed: $planted"; fi
grep -q '^harness/toy: a.c -> b.c (toy_b); b.c -> a.c (toy_a);$' <<<"$planted" || fail "the planted circle: $planted"
grep -q 'c.c' <<<"$planted" && fail "c.c only calls in, it is in no circle: $planted"
echo "circles: none but the $(sed '/^$/d' <<<"$known" | wc -l) known; a planted one caught"
