#!/usr/bin/env bash
# test_size.sh SRC DIR - docs/architecture.md's product line counts are the
# tree's (scripts/size-table.sh); on a planted tree, a stale total and a
# stale row are each named, a "(the rest)" row counts its folder less the
# rows below it, and --write puts the tree's figures in, prose untouched.
set -euo pipefail
src=$1 dir=$2
fail() { echo "FAIL: $*"; exit 1; }
"$src/scripts/size-table.sh" "$src" || fail "docs/architecture.md's Size figures are not the tree's"

rm -rf "$dir" && mkdir -p "$dir/harness/core" "$dir/kernels/spmv" "$dir/docs"
cd "$dir" && git init -q . && git config user.email t@t && git config user.name t
printf 'a\nb\nc\n' > harness/core/a.c; printf 'x\n' > harness/core/notes.txt # not product code
printf '1\n2\n' > kernels/spmv/k.cl; printf '1\n2\n3\n4\n' > kernels/common.h
cat > docs/architecture.md <<'DOC'
# A

## Size

1,000 lines, counted with

| module | lines | what |
|---|---:|---|
| `harness/core/` | 3 | the core |
| `kernels/spmv/` | 7 | spmv |
| `kernels/` (the rest) | 99 | the rest |

## Next
DOC
git add -A && git commit -qm planted
set +e; out=$("$src/scripts/size-table.sh" "$dir" 2>&1); rc=$?; set -e
[ $rc = 1 ] || fail "stale figures: exit $rc: $out"
grep -q 'the product total says 1,000, the tree has 9' <<<"$out" || fail "the total not named: $out"
grep -q '`kernels/spmv/` says 7, the tree has 2' <<<"$out" || fail "the spmv row not named: $out"
grep -q '`kernels/` says 99, the tree has 4' <<<"$out" || fail "the rest row not named: $out"
! grep -q 'harness/core' <<<"$out" || fail "a right row named: $out"
"$src/scripts/size-table.sh" --write "$dir" || fail "--write failed"
"$src/scripts/size-table.sh" "$dir" || fail "--write left stale figures"
grep -q '^9 lines, counted with$' docs/architecture.md && grep -q '^| `kernels/` (the rest) | 4 | the rest |$' docs/architecture.md ||
  fail "--write: $(cat docs/architecture.md)"
echo ok
