#!/usr/bin/env bash
# test_layers.sh SRC WORK - the module order holds in the tree, and the
# checker catches what it is for: an include up the order (between results'
# four modules too), one family folder reaching into another, a file
# outside any module, and an include of a missing file.
set -euo pipefail
src=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

"$here/check_layers.sh" "$src" || fail "the tree breaks the module order (see above)"

rm -rf "$work" && mkdir -p "$work"/harness/{core,bench,tune} "$work"/kernels/{spmv,grid}
printf '#include "../tune/sweep.h"\n' > "$work/harness/bench/up.c"
: > "$work/harness/tune/sweep.h"
printf '#include "spmv/spmv.h"\n#include "../families.h"\n#include "../common_host.h"\n' > "$work/kernels/grid/cross.c"
: > "$work/kernels/spmv/spmv.h"
: > "$work/kernels/families.h"
: > "$work/kernels/common_host.h"
printf '#include "core/missing.h"\n#include "bench/up.c"\n' > "$work/harness/core/lost.c"
mkdir -p "$work"/harness/results/{records,gate}
printf '#include "../gate/compare.h"\n' > "$work/harness/results/records/reader.c"
: > "$work/harness/results/gate/compare.h"
: > "$work/harness/results/loose.c"
if out=$("$here/check_layers.sh" "$work" 2>&1); then fail "a tree with bad includes passed: $out"; fi
for want in "harness/bench/up.c includes harness/tune/sweep.h: bench may not include tune" \
            "kernels/grid/cross.c includes kernels/spmv/spmv.h: family folder kernels/grid may not include kernels/spmv" \
            "kernels/grid/cross.c includes kernels/families.h: family folder kernels/grid may not include the registry" \
            'harness/core/lost.c: #include "core/missing.h" names no file' \
            "harness/core/lost.c includes harness/bench/up.c: core may not include bench" \
            "harness/results/records/reader.c includes harness/results/gate/compare.h: results/records may not include results/gate" \
            "harness/results/loose.c: not in a module"; do
  grep -qF "$want" <<<"$out" || fail "expected '$want' in: $out"
done
grep -q "common_host.h" <<<"$out" && fail "a family's include of kernels/common_host.h was refused: $out"
echo "layers: the tree passes; 7 planted faults caught, the shared common_host.h allowed"
