#!/usr/bin/env bash
# tune-reproduce.sh [FLOWBENCH] [OUT] [RUNS] - issue 50's tuning target:
# what tune stores reproduces. Two tunes on PoCL, each into a cache of its
# own in OUT (never the user's):
#   spmv:   tune --matrix gen:cube:20 --kernel csr-vector --backend opencl --strategy random --evals 8
#   heat2d: tune --family heat2d --grid grid:257x257 --kernel heat-jacobi --backend opencl --strategy random --evals 8
# then the tuned point RUNS times (default 10), each a fresh process
# (`spmv --tuned` / `grid --tuned`). The target holds for a tune when every
# run's median falls within the stored spread_s (where a fresh process's
# median should fall, 99 times in 100: tune/confirm.h) or tune stored the
# default as the answer ("no significant winner: default kept"); a run
# its own record calls contended is left out, and more than two such runs
# leave the target not judged. Writes
# OUT/<family>-tune.txt, OUT/<family>-runs.jsonl, OUT/summary.md; exit 1
# when a target fails. Run it on a quiet machine (uptime in the summary).
set -euo pipefail
bin=${1:-build/flowbench}
out=${2:-results/tune-reproduce}
runs=${3:-10}
mkdir -p "$out"
before=$(uptime)
status=0

# reproduce NAME TUNE_ARGS... -- RUN_ARGS...: the tune, the runs, one line
reproduce() {
  local name=$1 tune=() run=() cache=$out/$1-tuning.json
  shift
  while [ "$1" != -- ]; do tune+=("$1"); shift; done
  shift
  run=("$@")
  rm -f "$cache" "$cache.lock" "$out/$name-runs.jsonl"
  "$bin" tune "${tune[@]}" --cache "$cache" --no-variants >"$out/$name-tune.txt" 2>"$out/$name-tune.err"
  for i in $(seq 1 "$runs"); do
    "$bin" "${run[@]}" --tuned --cache "$cache" --no-stream --json 2>/dev/null | jq -c . >>"$out/$name-runs.jsonl"
  done
  jq -r -s --slurpfile c "$cache" --arg name "$name" '
    def ms: . * 1e6 | round / 1e3;
    $c[0].entries[0] as $e | [.[] | select(.stats.quality != "contended")] as $judged
    | ($judged | map(.stats.median_s)) as $m | (length - ($judged | length)) as $contended
    | ($e.spread_s // [0, 0]) as $s | [$m[] | select(. < $s[0] or . > $s[1])] as $out
    | "\($name): stored \($e.params | to_entries | map("\(.key)=\(.value)") | join(" ")), median \($e.median_s | ms) ms, "
      + "expected \($s[0] | ms)-\($s[1] | ms) ms (\($e.confidence.verdict)); \(length) tuned runs, "
      + "\($contended) contended (left out: not a figure of this machine), the rest \($m | min | ms)-\($m | max | ms) ms, "
      + "\($out | length) outside (\([$judged[] | select(.stats.median_s < $s[0] or .stats.median_s > $s[1])
          | select(.stats.quality == "unstable")] | length) of them flagged unstable by their own record): "
      + (if $contended > 2 then "NOT JUDGED (too many contended runs: run it on a quiet machine)"
         elif ($out | length) == 0 then "ok" elif ($e.confidence.winner_stored | not) then "ok (the default kept)"
         else "FAILED" end)' \
    "$out/$name-runs.jsonl"
}

lines=()
lines+=("$(reproduce spmv --matrix gen:cube:20 --kernel csr-vector --backend opencl --strategy random --evals 8 \
  -- spmv --matrix gen:cube:20 --kernel csr-vector --backend opencl)")
lines+=("$(reproduce heat2d --family heat2d --grid grid:257x257 --kernel heat-jacobi --backend opencl --strategy random \
  --evals 8 -- grid --family heat2d --grid grid:257x257 --kernel heat-jacobi --backend opencl)")
after=$(uptime)
{
  echo "# Tuning that reproduces, $(date -u +%Y-%m-%d)"
  echo
  echo "\`scripts/tune-reproduce.sh $bin $out $runs\`; flowbench: $("$bin" --version)"
  echo
  echo "- before: $before"
  echo "- after: $after"
  for l in "${lines[@]}"; do echo "- $l"; done
  for name in spmv heat2d; do
    echo
    echo "## $name"
    echo
    echo '```'
    cat "$out/$name-tune.txt"
    echo '```'
  done
} >"$out/summary.md"
cat "$out/summary.md"
rm -f "$out"/*.lock
for l in "${lines[@]}"; do case $l in *FAILED) status=1 ;; esac; done
exit $status
