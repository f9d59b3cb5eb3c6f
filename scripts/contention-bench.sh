#!/usr/bin/env bash
# contention-bench.sh - is the OpenMP baseline honest on a shared machine?
# The benchmark behind docs/measurement.md's targets ("On a shared
# machine"); not a timed test.
#
#   quiet:  RUNS spmv runs (csr-scalar on gen:cube:12) and SOLVES runs of
#           `solve cavity --level 1 --steps 5 --compare`, NEW and BASE
#           alternating, nothing else running: the quiet medians, and NEW
#           against BASE side by side (target: NEW within 5% of BASE);
#   loaded: the same runs with one competing busy process for the whole
#           phase (targets: every NEW spmv within 3x of NEW's quiet median,
#           every NEW solve's OpenMP step time within 1.5x of its quiet
#           value). BASE's loaded figures show what the harness did before.
# A run's figure is its record's median (spmv: one SpMV; solve: the openmp
# row's median step, with total_s beside it), with the record's quality and
# the OpenMP wait policy it ran with.
#
# Usage: scripts/contention-bench.sh NEW_FLOWBENCH [BASE_FLOWBENCH] [OUT]
#   env: RUNS (10), SOLVES (5), PHASES ("quiet loaded")
# BASE defaults to NEW (then the side-by-side ratio is an A/A check).
# Writes OUT/summary.md (the tables and the verdicts, uptime before and
# after each phase) and keeps every record under OUT/. Exit 0 when every
# target holds, 1 when one does not, 2 when something failed to run.
set -uo pipefail
new=${1:?usage: scripts/contention-bench.sh NEW_FLOWBENCH [BASE_FLOWBENCH] [OUT]}
base=${2:-$new}
out=${3:-results/contention-bench}
runs=${RUNS:-10}
solves=${SOLVES:-5}
phases=${PHASES:-quiet loaded}

die() { echo "contention-bench: $*" >&2; exit 2; }
for b in "$new" "$base"; do [ -x "$b" ] || die "$b is not an executable (build first, or pass its path)"; done
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.jsonl "$out"/*.err "$out/summary.md"

busy_pid=
start_load() {
  (exec sh -c 'while :; do :; done') &
  busy_pid=$!
  sleep 1
}
stop_load() { [ -n "$busy_pid" ] && kill "$busy_pid" 2> /dev/null; busy_pid=; }
trap stop_load EXIT

# one_spmv PHASE SIDE BIN I: a record in OUT/PHASE-SIDE-spmv.jsonl
one_spmv() {
  "$3" spmv --matrix gen:cube:12 --kernel csr-scalar --no-stream --json >> "$out/$1-$2-spmv.jsonl" \
    2>> "$out/$1-$2-spmv.err" || die "$2 spmv run $4 failed: see $out/$1-$2-spmv.err"
}
# one_solve PHASE SIDE BIN I: the openmp record of a --compare run
one_solve() {
  local f=$out/$1-$2-solve-$4.jsonl
  "$3" solve cavity --level 1 --steps 5 --compare --out "$f" > /dev/null 2>> "$out/$1-$2-solve.err" ||
    die "$2 solve run $4 failed: see $out/$1-$2-solve.err"
  jq -c 'select(.benchmark == "solve" and .backend == "openmp")' "$f" >> "$out/$1-$2-solve.jsonl"
}

run_phase() { # run_phase PHASE: RUNS spmv and SOLVES solve runs of each side, alternating
  local phase=$1
  echo "- $phase, before: $(uptime)" >> "$out/uptime.txt"
  for i in $(seq "$runs"); do
    one_spmv "$phase" new "$new" "$i"; one_spmv "$phase" base "$base" "$i"
    echo "contention-bench: $phase spmv $i/$runs" >&2
  done
  for i in $(seq "$solves"); do
    one_solve "$phase" new "$new" "$i"; one_solve "$phase" base "$base" "$i"
    echo "contention-bench: $phase solve $i/$solves" >&2
  done
  echo "- $phase, after: $(uptime)" >> "$out/uptime.txt"
}

rm -f "$out/uptime.txt"
for phase in $phases; do
  [ "$phase" = loaded ] && start_load
  run_phase "$phase"
  [ "$phase" = loaded ] && stop_load
done

# ---- tables ----
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
figures() { # figures FILE FIELD: one line per record: value quality policy
  jq -r --arg f "$2" '[(getpath($f | split(".")) * 1e3), .stats.quality,
                       (.environment.openmp.wait.policy // "unrecorded" | split(" ")[0])] | @tsv' "$1"
}
quiet_median() { figures "$1" "$2" | cut -f1 | median; }

spmv_q=$(quiet_median "$out/quiet-new-spmv.jsonl" stats.median_s)
solve_q=$(quiet_median "$out/quiet-new-solve.jsonl" stats.median_s)
base_spmv_q=$(quiet_median "$out/quiet-base-spmv.jsonl" stats.median_s)
base_solve_q=$(quiet_median "$out/quiet-base-solve.jsonl" stats.median_s)
ok=0
{
  echo "# OpenMP baseline on a shared machine"
  echo
  echo "NEW: \`$new\` ($("$new" --version)); BASE: \`$base\` ($("$base" --version))"
  echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); loaded phase: one busy process (sh loop) for the whole phase"
  echo
  cat "$out/uptime.txt"
  echo
  echo "## Quiet medians, NEW against BASE side by side (target: within 5%)"
  echo
  echo "| figure | NEW ms | BASE ms | NEW / BASE |"
  echo "|---|---|---|---|"
  echo "| spmv csr-scalar gen:cube:12 | $spmv_q | $base_spmv_q | $(awk -v a="$spmv_q" -v b="$base_spmv_q" 'BEGIN {printf "%.3f", a / b}') |"
  echo "| solve cavity L1 openmp median step | $solve_q | $base_solve_q | $(awk -v a="$solve_q" -v b="$base_solve_q" 'BEGIN {printf "%.3f", a / b}') |"
} > "$out/summary.md"

verdict_rows() { # verdict_rows PHASE SIDE KIND FIELD QUIET BOUND: a table row per run, and the count within BOUND
  local within=0 n=0
  while IFS=$'\t' read -r v q p; do
    n=$((n + 1))
    r=$(awk -v a="$v" -v b="$5" 'BEGIN {printf "%.2f", a / b}')
    awk -v r="$r" -v k="$6" 'BEGIN {exit !(r <= k)}' && within=$((within + 1))
    echo "| $1 | $2 | $3 | $n | $(printf '%.4f' "$v") | ${r}x | $q | $p |"
  done < <(figures "$out/$1-$2-$3.jsonl" "$4")
  echo "$within/$n" > "$out/.count"
}
{
  echo
  echo "## Every run against NEW's quiet median (targets under load: spmv within 3x in every run, solve within 1.5x)"
  echo
  echo "| phase | side | figure | run | ms | / quiet | quality | OpenMP wait |"
  echo "|---|---|---|---|---|---|---|---|"
} >> "$out/summary.md"
declare -A counts
for phase in $phases; do
  for side in new base; do
    verdict_rows "$phase" "$side" spmv stats.median_s "$spmv_q" 3 >> "$out/summary.md"
    counts[$phase-$side-spmv]=$(cat "$out/.count")
    verdict_rows "$phase" "$side" solve stats.median_s "$solve_q" 1.5 >> "$out/summary.md"
    counts[$phase-$side-solve]=$(cat "$out/.count")
  done
done
rm -f "$out/.count"
check() { # check LABEL COUNT: all within
  local c=$2
  if [ "${c%/*}" = "${c#*/}" ]; then echo "- $1: $c: met"; else echo "- $1: $c: NOT met"; ok=1; fi
}
{
  echo
  echo "## Verdicts"
  echo
  [[ " $phases " == *" loaded "* ]] && check "NEW spmv under load within 3x of quiet" "${counts[loaded-new-spmv]}"
  [[ " $phases " == *" loaded "* ]] && check "NEW solve under load within 1.5x of quiet" "${counts[loaded-new-solve]}"
  [[ " $phases " == *" loaded "* ]] && echo "- BASE under load, for comparison: spmv ${counts[loaded-base-spmv]} within 3x, solve ${counts[loaded-base-solve]} within 1.5x (of NEW's quiet medians)"
  for f in spmv solve; do
    q=$([ $f = spmv ] && echo "$spmv_q/$base_spmv_q" || echo "$solve_q/$base_solve_q")
    if awk "BEGIN {r = $q; exit !(r <= 1.05)}"; then echo "- quiet NEW/BASE $f: $(awk "BEGIN {printf \"%.3f\", $q}"): met"; else echo "- quiet NEW/BASE $f: $(awk "BEGIN {printf \"%.3f\", $q}"): NOT met"; ok=1; fi
  done
} >> "$out/summary.md"
grep -q "NOT met" "$out/summary.md" && ok=1
cat "$out/summary.md"
exit $ok
