#!/usr/bin/env bash
# tune-study.sh FLOWBENCH SWEEP.jsonl BACKEND [SEEDS] - how close each search
# strategy gets to the exhaustive optimum, and with what fraction of the
# evaluations, on a recorded exhaustive sweep (cases/tune-study.suite):
# for every (matrix, kernel) with more than 4 points, `flowbench tune
# --replay` runs anneal and random with the default --evals (a quarter of
# the space) over SEEDS seeds (default 100). Prints a markdown table.
set -euo pipefail
bin=$1 file=$2 backend=$3 seeds=${4:-100}

pairs=$(jq -r 'select(.type == "measurement" and .benchmark == "spmv" and .status == "ok")
               | [.matrix.source, .kernel] | @tsv' "$file" | sort -u)
echo "| matrix | kernel | points | strategy | evaluations | within 5% | median | worst |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
while IFS=$'\t' read -r matrix kernel; do
  for strategy in anneal random; do
    out=$("$bin" tune --replay "$file" --matrix "$matrix" --kernel "$kernel" --backend "$backend" \
            --strategy "$strategy" --seeds "$seeds" --no-variants 2>/dev/null) || continue
    points=$(sed -n 's/.* of \([0-9]*\) points evaluated.*/\1/p' <<<"$out")
    [ "${points:-0}" -gt 4 ] || continue
    sed -n "s/.*replay over [0-9]* seeds: \([0-9.]*\) evaluations on average; within 5% of the optimum in [0-9]* (\([0-9]*%\)); median \([0-9.]*x\), worst \([0-9.]*x\).*/| $(basename "$matrix") | $kernel | $points | $strategy | \1 | \2 | \3 | \4 |/p" <<<"$out"
  done
done <<<"$pairs"
