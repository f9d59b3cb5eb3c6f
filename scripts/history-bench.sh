#!/usr/bin/env bash
# history-bench.sh FLOWBENCH OUT [NOISE] - the benchmarks of `flowbench
# history` (issue 37; docs/plots-and-compare.md, "CI history"):
#   1. detection: 30 commits of 200 synthetic configurations
#      (scripts/history-synth.py): 100 with a step at commit 21 (5% and 10%
#      in turn), 100 without; noise drawn from NOISE (the A/A deviations
#      scripts/history-replay.sh records on this machine, a line per real
#      configuration) or, without it, normal noise of SIGMA (default 0.01).
#      Target: the step found within one commit in >= 95 of 100 series, at
#      most 1 false change point in the 100 series without a step.
#   2. scale: one `history add` of a results file of 100,000 records (and
#      how much of it is reading the file: `export --csv` of it); then 1000
#      commits x 200 configurations (200,000 records): the time of adding
#      the first 500 commits (100,000 records, one `history add` each) and
#      of `history detect` over all 1000 commits.
# SEED (default 1) seeds the synthetic noise; ROUNDS (default 1) records
# each commit's configurations that many times, each its own draw, as
# `sweep --repeat ROUNDS` would (the commit's point is their median);
# SCALE=0 skips part 2. Prints the figures; OUT keeps the databases and the
# detect output.
set -euo pipefail
bin=$(realpath "$1"); out=$2; noise=${3:-}
here=$(dirname "$(realpath "$0")")
synth="python3 $here/history-synth.py"
mkdir -p "$out"
now() { date +%s.%N; }
add_all() { # add_all DIR DB FIRST LAST: commits FIRST..LAST (0-based) of DIR
  for c in $(seq "$3" "$4"); do
    "$bin" history add "$(printf '%s/commit-%04d.jsonl' "$1" "$c")" --commit "$(printf 'c%04d' "$c")" \
      --when $((1700000000 + 60 * c)) --db "$2" > /dev/null
  done
}

echo "== detection: 30 commits, 100 series with a 5% or 10% step at commit 21, 100 without; ${ROUNDS:-1} round(s) a commit"
rm -rf "$out/detect" "$out/detect.db"
if [ -n "$noise" ]; then
  $synth gen "$out/detect" --commits 30 --step-at 20 --noise "$noise" --seed "${SEED:-1}" --rounds "${ROUNDS:-1}"
  echo "noise: A/A deviations of $(wc -l < "$noise") configurations from $noise"
else
  $synth gen "$out/detect" --commits 30 --step-at 20 --sigma "${SIGMA:-0.01}" --seed "${SEED:-1}" --rounds "${ROUNDS:-1}"
  echo "noise: normal, relative sigma ${SIGMA:-0.01}"
fi
add_all "$out/detect" "$out/detect.db" 0 29
"$bin" history detect --db "$out/detect.db" > "$out/detect.txt"
$synth score "$out/detect.txt" --step-at 20
[ "${SCALE:-1}" = 0 ] && exit 0

echo "== scale: one results file of 100,000 records"
rm -rf "$out/big" "$out/big.db"
$synth gen "$out/big" --commits 1 --step-configs 0 --flat-configs 100000
t0=$(now)
"$bin" history add "$out/big/commit-0000.jsonl" --commit big --db "$out/big.db" > /dev/null
t1=$(now)
"$bin" export "$out/big/commit-0000.jsonl" --csv > /dev/null
t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  printf "history add: one run of 100,000 records in %.1f s (reading the results file alone, export --csv: %.1f s)\n",
         b - a, c - b }'

echo "== scale: 1000 commits x 200 configurations"
rm -rf "$out/scale" "$out/scale.db"
$synth gen "$out/scale" --commits 1000 --step-configs 20 --flat-configs 180 --step-at 700 --sigma 0.01 --seed 2
t0=$(now)
add_all "$out/scale" "$out/scale.db" 0 499
t1=$(now)
add_all "$out/scale" "$out/scale.db" 500 999
t2=$(now)
"$bin" history detect --db "$out/scale.db" > "$out/scale-detect.txt"
t3=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
  printf "history add: 100,000 records (500 runs of 200) in %.1f s (%.0f ms per run); the next 100,000 in %.1f s\n",
         b - a, 1000 * (b - a) / 500, c - b
  printf "history detect: 1000 commits x 200 configurations in %.2f s\n", d - c }'
tail -1 "$out/scale-detect.txt"
ls -l "$out/scale.db" | awk '{ printf "database: %.1f MB\n", $5 / 1e6 }'
