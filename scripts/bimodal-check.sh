#!/usr/bin/env bash
# bimodal-check.sh [FLOWBENCH] [OUT] [RUNS] - issue 50's PoCL target: RUNS
# (default 10) single runs of
#   flowbench spmv --matrix gen:cube:40 --backend opencl --kernel csr-scalar --no-stream
# as flowbench runs them (PoCL's workers pinned: POCL_AFFINITY=1, its own
# decision) and, alternating with them, with the workers left free
# (POCL_AFFINITY=0, set as a user would), each a fresh process. Per side:
# the fastest run's median, the runs over 1.5x it, and whether each of
# those was flagged (its stats.quality not "stable": never "converged").
# The target holds on a side when every run over 1.5x the fastest is
# flagged, or there is none (the bimodality gone: the records say what
# removed it, environment.pocl). Writes OUT/runs.tsv, OUT/records.jsonl
# and OUT/summary.md; exit 1 when the target fails on the pinned side.
# Run it on a quiet machine: `uptime` before and after is in the summary.
set -euo pipefail
bin=${1:-build/flowbench}
out=${2:-results/bimodal-check}
runs=${3:-10}
mkdir -p "$out"
: >"$out/records.jsonl"
printf 'side\trun\tmedian_ms\tquality\tstop\twait_fraction\tpocl_affinity\n' >"$out/runs.tsv"
cmd=(spmv --matrix gen:cube:40 --backend opencl --kernel csr-scalar --no-stream --json)
before=$(uptime)
one() { # SIDE RUN ENV...
  local side=$1 i=$2; shift 2
  env "$@" "$bin" "${cmd[@]}" 2>/dev/null | jq -c --arg side "$side" '. + {side: $side}' >>"$out/records.jsonl"
  tail -n 1 "$out/records.jsonl" | jq -r --arg i "$i" '[.side, $i, (.stats.median_s * 1e3), .stats.quality,
    .stats.stop, (.environment.run_queue_wait_fraction // "null"), (.environment.pocl.variables.POCL_AFFINITY // "unset")] | @tsv' \
    >>"$out/runs.tsv"
}
for i in $(seq 1 "$runs"); do
  one flowbench "$i" -u POCL_AFFINITY -u FLOWBENCH_POCL_AFFINITY_DECISION
  one unpinned "$i" -u FLOWBENCH_POCL_AFFINITY_DECISION POCL_AFFINITY=0
done
after=$(uptime)

verdict() { # SIDE: one line, and exit status 0 when the target holds
  jq -r -s --arg side "$1" '
    [.[] | select(.side == $side)] as $r | ($r | map(.stats.median_s) | min) as $fast
    | [$r[] | select(.stats.median_s > 1.5 * $fast)] as $slow
    | ($slow | map(select(.stats.quality != "stable"))) as $flagged
    | "\($side): \($r | length) runs, fastest \($fast * 1e3 | . * 1000 | round / 1000) ms; \($slow | length) over 1.5x it, \($flagged | length) of them flagged"
      + (if ($slow | length) == 0 then " (one mode)" else "" end)
      + "; stable \([$r[] | select(.stats.quality == "stable")] | length) of \($r | length)",
    (if ($slow | length) == ($flagged | length) then "ok" else "FAILED" end)' "$out/records.jsonl"
}
{
  echo "# PoCL bimodality, $(date -u +%Y-%m-%d)"
  echo
  echo "\`scripts/bimodal-check.sh $bin $out $runs\`: \`flowbench ${cmd[*]}\`, $runs runs a side, alternating."
  echo
  echo "- before: $before"
  echo "- after: $after"
  echo "- flowbench: $("$bin" --version)"
  echo "- PoCL's workers as flowbench sets them: $(jq -r -s 'map(select(.side == "flowbench"))[0].environment.pocl.affinity_why' "$out/records.jsonl")"
  echo
  for side in flowbench unpinned; do verdict "$side" | paste -sd' ' | sed 's/^/- /'; done
  echo
  echo '| side | run | median ms | quality | stop | run-queue wait | POCL_AFFINITY |'
  echo '|---|---:|---:|---|---|---:|---|'
  tail -n +2 "$out/runs.tsv" | awk -F'\t' '{printf "| %s | %s | %.4f | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}'
} >"$out/summary.md"
cat "$out/summary.md"
verdict flowbench | tail -n 1 | grep -q '^ok$'
