#!/usr/bin/env bash
# tune-strategies-real.sh FLOWBENCH OUT [ROUNDS] [BACKEND] - a guided strategy
# against exhaustive on real measurements: for one kernel and problem of each
# grid and SpMV family, `tune --strategy bayes` (default --evals, a quarter
# of the space) and `tune --strategy exhaustive` (every point) run
# alternately, ROUNDS rounds (default 2), nothing stored (--no-cache) and
# their own cache folder. Every tune's table goes to OUT/STRATEGY-FAMILY-rR.txt;
# the summary (per family and strategy: evaluations, the best point's time,
# the best time over the exhaustive best of the same round) to stdout.
# A ratio near 1 means bayes found what exhaustive found, with a quarter of
# the evaluations; both sides are measured, so rounds differ by the
# machine's noise (say `uptime` beside the figures).
set -euo pipefail
bin=$1 out=$2 rounds=${3:-2} backend=${4:-opencl}
mkdir -p "$out"
export FLOWBENCH_CACHE_DIR=$out/cache
problems=(
  "spmv|--matrix gen:cube:20 --kernel csr-vector"
  "heat2d|--family heat2d --grid grid:129x129 --kernel heat-jacobi"
  "fv-surface|--family fv-surface --grid grid:16x16x16 --kernel fv-gather"
)
best_ms() { sed -n 's/^  best: .*  \([0-9.]*\) ms.*/\1/p' "$1"; }
evals() { sed -n 's/.*: [a-z]*, \([0-9]*\) of \([0-9]*\) points evaluated.*/\1 of \2/p' "$1"; }
point() { sed -n 's/^  best: \(.*\)  [0-9.]* ms.*/\1/p' "$1"; }
printf "| family | round | strategy | evaluations | best point | best ms | over exhaustive's best |\n|---|---:|---|---|---|---:|---:|\n"
for ((r = 1; r <= rounds; ++r)); do
  for p in "${problems[@]}"; do
    family=${p%%|*} args=${p#*|}
    order=(bayes exhaustive)
    [ $((r % 2)) = 0 ] && order=(exhaustive bayes) # alternate who goes first
    for s in "${order[@]}"; do
      # shellcheck disable=SC2086 # args are words
      "$bin" tune $args --backend "$backend" --strategy "$s" --no-cache --no-variants > "$out/$s-$family-r$r.txt" 2>&1 ||
        { echo "tune $s $family failed: $(tail -1 "$out/$s-$family-r$r.txt")" >&2; exit 1; }
    done
    ex=$(best_ms "$out/exhaustive-$family-r$r.txt")
    for s in bayes exhaustive; do
      f=$out/$s-$family-r$r.txt
      ratio=$(awk -v b="$(best_ms "$f")" -v e="$ex" 'BEGIN { printf "%.3f", b / e }')
      printf "| %s | %d | %s | %s | %s | %s | %sx |\n" "$family" "$r" "$s" "$(evals "$f")" "$(point "$f")" "$(best_ms "$f")" "$ratio"
    done
  done
done
