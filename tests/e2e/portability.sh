#!/bin/bash
# portability.sh BIN SRC WORK - the report's performance-portability
# section (results/presentation/portability.h) on the committed H100 run, whose host
# CPU ran OpenMP beside the GPU's CUDA and OpenCL:
#  - CUDA and OpenCL on the H100 are one platform: 2 platforms per problem;
#  - application efficiency = the platform's best time over the kernel's
#    (csr-scalar on the H100, from the records with jq), PP the harmonic
#    mean of the row, 0 for a kernel one platform did not run;
#  - the "flowbench" row: the best own kernel per platform;
#  - the cascade figure: platforms best first, PP so far per kernel;
#  - one platform only (OpenMP and PoCL on one CPU): no section.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
h100=$src/results/reference/h100-2026-11-23/results.jsonl
"$bin" report "$h100" --out "$work/h100.md" 2> /dev/null || fail "report exited $?"
section() { sed -n "/^### spmv $1, $2: /,/^Platforms: /p" "$work/h100.md"; }
row() { section "$1" "$2" | grep -F "| $3 |" | tr -d ' '; }
grep -q '^## Performance portability$' "$work/h100.md" || fail "no portability section"
section 'gen:cube:57' double | head -1 | grep -q ': 2 platforms$' ||
  fail "CUDA and OpenCL on one GPU are not one platform: $(section 'gen:cube:57' double | head -1)"
section 'gen:cube:57' double | grep -q '^Platforms: A: NVIDIA H100 80GB HBM3; B: Intel(R) Xeon(R) Processor.$' ||
  fail "platforms: $(section 'gen:cube:57' double | tail -1)"
# csr-scalar on the H100 (A): the best time of any kernel or peer there over its own
want=$(jq -s 'map(select(.type == "measurement" and .benchmark == "spmv" and .matrix.name == "gen:cube:120"
    and .precision == "double" and .backend != "openmp" and .status == "ok"))
    | (map(.stats.median_s) | min) / (map(select(.kernel == "csr-scalar")) | map(.stats.median_s) | min)' "$h100")
got=$(row 'gen:cube:120' double csr-scalar | cut -d'|' -f4)
awk -v w="$want" -v g="$got" 'BEGIN { exit !((w - g) ^ 2 < 0.005 ^ 2) }' || fail "csr-scalar app on the H100: $got, want $want"
# PP app: the harmonic mean of the row's two application efficiencies
row 'gen:cube:120' double csr-scalar | awk -F'|' '{ pp = 2 / (1 / $4 + 1 / $6); exit !((pp - $8) ^ 2 < 0.01 ^ 2) }' ||
  fail "PP app is not the harmonic mean: $(row 'gen:cube:120' double csr-scalar)"
[ "$(row 'gen:cube:120' double 'peer:cusparse' | cut -d'|' -f5-8)" = "-|-|0.00|0.00" ] ||
  fail "a kernel the CPU did not run does not score 0: $(row 'gen:cube:120' double 'peer:cusparse')"
[ "$(row 'gen:cube:120' double '**flowbench (best own kernel)**' | cut -d'|' -f8)" = "1.00" ] ||
  fail "the best own kernel per platform: $(section 'gen:cube:120' double)"
# the cascade figure: platforms best first by the first kernel, each kernel's
# PP so far ending at the report's PP app, 0 from a platform it did not run on
FLOWBENCH_CACHE_DIR=$work/cache "$bin" plot "$h100" --out "$work/plots" > "$work/plot.out" 2> "$work/plot.err" ||
  fail "plot exited $?: $(cat "$work/plot.err")"
! grep -qi 'warning' "$work/plot.err" || fail "gnuplot warned: $(cat "$work/plot.err")"
csv=$work/plots/cascade-spmv-double-gen-cube-120.csv
[ -s "$csv" ] && [ -s "${csv%.csv}.png" ] || fail "no cascade figure: $(ls "$work/plots")"
col() { head -1 "$csv" | tr ',' '\n' | grep -nxF "$1" | cut -d: -f1; }
cell() { sed -n "$(($1 + 1))p" "$csv" | cut -d, -f"$(col "$2")"; }
first=$(head -1 "$csv" | cut -d, -f2)
awk -v a="$(cell 1 "$first")" -v b="$(cell 2 "$first")" 'BEGIN { exit !(a >= b) }' ||
  fail "platforms not best first for $first: $(cat "$csv")"
pp=$(row 'gen:cube:120' double csr-scalar | cut -d'|' -f8)
awk -v c="$(cell 2 'csr-scalar PP')" -v w="$pp" 'BEGIN { exit !((c - w) ^ 2 < 0.005 ^ 2) }' ||
  fail "csr-scalar's PP over both platforms: $(cell 2 'csr-scalar PP'), the report's $pp"
[ "$(cell 2 'peer:cusparse PP')" = 0 ] || fail "cuSPARSE did not run on the CPU: its PP there is not 0: $(cat "$csv")"
"$bin" report "$src/tests/data/run/results.jsonl" --out "$work/one.md" 2> /dev/null || fail "report of one CPU exited $?"
! grep -q '^## Performance portability' "$work/one.md" || fail "OpenMP and PoCL on one CPU were taken for two platforms"
echo "ok"
