#!/usr/bin/env bash
# pocl-step.sh - the solver's step on OpenCL beside the OpenMP baseline on
# the same CPU (issue 39's target: PoCL at least 0.7x OpenMP on the cavity
# level-2 step), alternated round by round, each run a process of its own,
# the order swapped every round; then one run of each with --kernel-times,
# so the summary says where each backend's step goes, kernel by kernel. A
# benchmark, not a timed test: run it on a quiet machine; it records
# `uptime` before and after.
#
# Usage: scripts/pocl-step.sh [FLOWBENCH] [OUT] [LEVEL] [ROUNDS] [STEPS]
#   defaults: build/flowbench results/pocl-step 2 4 5
# Writes OUT/summary.md and keeps the records (OUT/solve.jsonl, OUT/times.jsonl).
# Exit 2 when something failed (no OpenCL device included).
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/pocl-step}
level=${3:-2}
rounds=${4:-4}
steps=${5:-5}
die() { echo "pocl-step: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
"$bin" devices | grep -q '^opencl:' || die "no OpenCL device here"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out/solve.jsonl" "$out/times.jsonl" "$out/summary.md" "$out/err.txt"
run() { # BACKEND FILE [OPTIONS...]
  local b=$1 f=$2; shift 2
  "$bin" solve cavity --level "$level" --steps "$steps" --no-stream --quiet --backend "$b" --out "$f" "$@" \
    > /dev/null 2>> "$out/err.txt" || die "solve on $b failed: see $out/err.txt"
}
echo "before: $(uptime)" > "$out/uptime.txt"
for r in $(seq 1 "$rounds"); do
  order=(openmp opencl)
  [ $((r % 2)) -eq 0 ] && order=(opencl openmp)
  for b in "${order[@]}"; do
    echo "round $r/$rounds: $b" >&2
    run "$b" "$out/solve.jsonl"
  done
done
for b in openmp opencl; do run "$b" "$out/times.jsonl" --kernel-times; done
echo "after: $(uptime)" >> "$out/uptime.txt"
med='def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;'
{
  echo "# The solver's step on OpenCL beside OpenMP, cavity level $level, $steps steps a run ($rounds rounds)"
  echo
  sed 's/^/    /' "$out/uptime.txt"
  echo
  echo "| round | openmp ms/step | opencl ms/step | opencl / openmp speed |"
  echo "|---:|---:|---:|---:|"
  jq -rs "$med"'
    [.[] | select(.type == "measurement")] as $m | [range(0; $m | length; 2)] |
    map([$m[.], $m[. + 1]] | map({(.backend): .stats.median_s}) | add) | to_entries[] |
    "| \(.key + 1) | \(.value.openmp * 1e4 | round / 10) | \(.value.opencl * 1e4 | round / 10) | \(.value.openmp / .value.opencl * 100 | round / 100)x |"' \
    "$out/solve.jsonl"
  jq -rs "$med"'
    [.[] | select(.type == "measurement")] | group_by(.backend) | map({(.[0].backend): (map(.stats.median_s) | med)}) | add |
    "\nmedian of the rounds: openmp \(.openmp * 1e4 | round / 10) ms, opencl \(.opencl * 1e4 | round / 10) ms per step: OpenCL at \(.openmp / .opencl * 100 | round / 100)x OpenMP"' \
    "$out/solve.jsonl"
  echo
  echo "Where a step goes (one run each with --kernel-times: every launch waited for), ms per step:"
  echo
  echo "| kernel | openmp | opencl |"
  echo "|---|---:|---:|"
  jq -rs '[.[] | select(.type == "measurement")] | map({(.backend): (.kernel_times | map_values(.total_s))}) | add as $t |
    ($t.openmp + $t.opencl | keys) as $k | [$k[] | {k: ., o: ($t.openmp[.] // 0), c: ($t.opencl[.] // 0)}] |
    sort_by(-.c)[] | "| \(.k) | \(.o / '"$steps"' * 1e4 | round / 10) | \(.c / '"$steps"' * 1e4 | round / 10) |"' \
    "$out/times.jsonl"
} > "$out/summary.md"
cat "$out/summary.md"
