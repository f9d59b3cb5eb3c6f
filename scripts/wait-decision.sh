#!/usr/bin/env bash
# wait-decision.sh [FLOWBENCH] [OUT] [RUNS] - issue 50's wait-policy target:
# the OpenMP wait policy decided at start (core/wait_policy.c) on
#   flowbench spmv --matrix gen:cube:40 --kernel csr-scalar --no-stream
#   - a quiet machine with one task of 50 ms started just before each run
#     (a busy loop under `timeout 0.05`): the default policy is to be kept
#     in RUNS of RUNS runs (default 10);
#   - one busy process for the whole run: passive waiting is to be chosen;
#   - a quiet machine: the default kept, the look's cost in the record.
# Writes OUT/runs.tsv and OUT/summary.md; exit 1 when a target fails.
# Run it on an otherwise quiet machine (uptime in the summary).
set -euo pipefail
bin=${1:-build/flowbench}
out=${2:-results/wait-decision}
runs=${3:-10}
mkdir -p "$out"
cmd=(spmv --matrix gen:cube:40 --kernel csr-scalar --no-stream --json)
printf 'case\trun\tset_by\tmedian_ms\twhy\n' >"$out/runs.tsv"
before=$(uptime)
one() { # CASE RUN
  "$bin" "${cmd[@]}" 2>/dev/null | jq -r --arg c "$1" --arg i "$2" \
    '[$c, $i, .environment.openmp.wait.set_by, (.stats.median_s * 1e3), .environment.openmp.wait.why] | @tsv' \
    >>"$out/runs.tsv"
}
unset OMP_WAIT_POLICY GOMP_SPINCOUNT FLOWBENCH_WAIT_POLICY_DECISION
for i in $(seq 1 "$runs"); do
  one quiet "$i"
  timeout 0.05 sh -c 'while :; do :; done' &
  one "50 ms task" "$i"
  wait
done
sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
for i in $(seq 1 "$runs"); do one "one busy process" "$i"; done
kill $busy
after=$(uptime)
count() { awk -F'\t' -v c="$1" -v b="$2" '$1 == c && $3 == b { n++ } END { print n + 0 }' "$out/runs.tsv"; }
task_default=$(count "50 ms task" default) busy_passive=$(count "one busy process" flowbench)
quiet_default=$(count quiet default)
{
  echo "# The OpenMP wait policy at start, $(date -u +%Y-%m-%d)"
  echo
  echo "\`scripts/wait-decision.sh $bin $out $runs\`: \`flowbench ${cmd[*]}\`; flowbench: $("$bin" --version)"
  echo
  echo "- before: $before"
  echo "- after: $after"
  echo "- quiet: the default kept in $quiet_default of $runs"
  echo "- a 50 ms task at start: the default kept in $task_default of $runs (target $runs of $runs)"
  echo "- one busy process: passive chosen in $busy_passive of $runs (target $runs of $runs)"
  echo
  echo '| case | run | set by | median ms | why |'
  echo '|---|---:|---|---:|---|'
  tail -n +2 "$out/runs.tsv" | awk -F'\t' '{printf "| %s | %s | %s | %.4f | %s |\n", $1, $2, $3, $4, $5}'
} >"$out/summary.md"
cat "$out/summary.md"
[ "$task_default" = "$runs" ] && [ "$busy_passive" = "$runs" ]
