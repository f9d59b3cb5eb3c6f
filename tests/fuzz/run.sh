#!/usr/bin/env bash
# run.sh [SECONDS] [BUILD_DIR] - builds the reader fuzz targets with clang
# (libFuzzer + AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer)
# and runs each for SECONDS (default 20) on the seed corpus: every file under
# matrices/ (the shipped matrices and meshes, and matrices/bad/).
#
# Exits non-zero when a target finds anything: a crash, a sanitizer report,
# a leak, one input running longer than 10 s, or more than 2 GB of memory.
# The input that did it is left in BUILD_DIR as TARGET-crash-*, -leak-*,
# -timeout-* or -oom-*; reproduce with BUILD_DIR/fuzz_TARGET FILE.
#
# Environment: CC_FUZZ (default clang), CHOLMOD_INCLUDE (default
# /usr/include/suitesparse), FUZZ_TARGETS (default "mtx mtx_cholmod gmsh su2
# results"), FUZZ_MODE (all, the default: build then run; build: only build,
# what the CMake build does so that ctest runs what it built; run: only run
# the targets built before). The results reader's seeds are
# tests/data/results.
set -euo pipefail

secs=${1:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-${TMPDIR:-/tmp}/flowbench-fuzz}
cc=${CC_FUZZ:-clang}
targets=${FUZZ_TARGETS:-"mtx mtx_cholmod gmsh su2 results"}
mode=${FUZZ_MODE:-all}
case "$mode" in all | build | run) ;; *) echo "run.sh: FUZZ_MODE '$mode' is not all, build or run" >&2; exit 2 ;; esac
mkdir -p "$out/obj"

if ! command -v "$cc" >/dev/null; then
  echo "run.sh: $cc not found (Debian: clang); the fuzz targets need libFuzzer" >&2
  exit 2
fi

flags=(-g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unknown-pragmas
       -fno-sanitize-recover=undefined
       -I"$root/harness" -I"$root/harness/core" -I"$root/tests/fuzz"
       -isystem "${CHOLMOD_INCLUDE:-/usr/include/suitesparse}")
libs=(-lcholmod -lsuitesparseconfig -ljansson -lz -lm)

# The readers and what they call, instrumented once; each target links them.
build() {
  local src obj objs=() t
  for src in "$root"/harness/matrix/*.c "$root"/harness/core/{status,hash,files,interrupt,json_index,stats,comm,clock}.c \
             "$root/harness/results/records/reader.c"; do
    obj="$out/obj/$(basename "${src%.c}").o"
    "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj"
    objs+=("$obj")
  done
  for t in $targets; do
    "$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined "$root/tests/fuzz/fuzz_$t.c" "${objs[@]}" "${libs[@]}" \
      -o "$out/fuzz_$t"
  done
}
[ "$mode" = run ] || build
[ "$mode" = build ] && exit 0

status=0
for t in $targets; do
  [ -x "$out/fuzz_$t" ] || { echo "run.sh: $out/fuzz_$t was not built (FUZZ_MODE=build first)" >&2; exit 2; }
  dict="$root/tests/fuzz/${t%_cholmod}.dict"
  seeds="$root/matrices"
  [ "$t" = results ] && seeds="$root/tests/data/results"
  mkdir -p "$out/corpus-$t"
  log="$out/fuzz_$t.log"
  if "$out/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -dict="$dict" -artifact_prefix="$out/$t-" "$out/corpus-$t" "$seeds" >"$log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1)
    echo "fuzz_$t: no finding ($runs)"
  else
    status=1
    echo "fuzz_$t: FINDING - see $log and $out/$t-*" >&2
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  fi
done
exit $status
