#!/usr/bin/env bash
# tune_objective.sh FLOWBENCH WORK - tune --objective (docs/tuning.md,
# "Objectives") on a recorded landscape whose energy is constructed (test
# data, not a measurement: joules = time x a power that grows with
# WG_SIZE, so the fastest point is not the most frugal):
#  - energy and edp: the best is the landscape's least joules, least J s
#    (computed here from the records with jq);
#  - time,energy: the Pareto front printed is the one jq computes;
#  - records without energy refuse the objective in one line (replayed,
#    and measured on a device that measures none), and a bad name is a
#    usage error.
set -euo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export FLOWBENCH_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
tune=(tune --matrix gen:cube:6 --kernel csr-vector --backend openmp --no-variants)

"$bin" "${tune[@]}" --strategy exhaustive --no-cache --min-samples 3 --max-samples 3 --budget 0.05 \
  --out plain.jsonl > record.txt 2>&1 || { cat record.txt; fail "recording the landscape"; }
# joules: time x a power growing with WG_SIZE, and the fastest point at
# ten times that, so the least energy is never where the least time is
jq -c -s '(map(select(.type == "measurement" and .status == "ok") | .stats.median_s) | min) as $fastest
  | .[] | if .type == "measurement" and .status == "ok"
          then .energy = {"source": "constructed", "joules_per_run":
                 (.stats.median_s * (10 + .params.WG_SIZE / 32) * (if .stats.median_s == $fastest then 10 else 1 end))}
          else . end' plain.jsonl > energy.jsonl

points='select(.type == "measurement" and .status == "ok" and (.search.best | not))
        | {p: "WG_SIZE=\(.params.WG_SIZE) VECTOR_SIZE=\(.params.VECTOR_SIZE)", t: .stats.median_s, j: .energy.joules_per_run}'
best_by() { jq -rs "map($points) | min_by($1) | .p" energy.jsonl; }
best_of() { sed -n 's/^  best: \(WG_SIZE=[0-9]* VECTOR_SIZE=[0-9]*\)  .*/\1/p' "$1"; }
for o in energy edp; do
  "$bin" "${tune[@]}" --replay energy.jsonl --strategy exhaustive --objective $o > $o.txt 2>&1 ||
    { cat $o.txt; fail "--objective $o exited $?"; }
  want=$(best_by "$([ $o = energy ] && echo .j || echo '.j * .t')")
  [ "$(best_of $o.txt)" = "$want" ] || fail "--objective $o: best $(best_of $o.txt), the records' least: $want"
done
grep -Eq '^  best: .*  [0-9.e+-]+ mJ' energy.txt || fail "the energy objective's best is not said in joules: $(grep best: energy.txt)"
[ "$(best_of energy.txt)" != "$(best_by .t)" ] || fail "the constructed landscape puts the least energy at the fastest point"

"$bin" "${tune[@]}" --replay energy.jsonl --strategy exhaustive --objective time,energy > pareto.txt 2>&1 ||
  { cat pareto.txt; fail "--objective time,energy exited $?"; }
want=$(jq -rs "map($points) | sort_by(.t, .j)
  | reduce .[] as \$x ({least: 1e300, front: []}; if \$x.j < .least then {least: \$x.j, front: (.front + [\$x.p])} else . end)
  | .front[]" energy.jsonl)
got=$(sed -n '/Pareto front/,/^  [a-z]/p' pareto.txt | sed -n 's/^    \(WG_SIZE=[0-9]* VECTOR_SIZE=[0-9]*\) .*/\1/p')
[ -n "$got" ] && [ "$got" = "$want" ] || fail "Pareto front: got [$got], want [$want]"
[ "$(best_of pareto.txt)" = "$(best_by .t)" ] || fail "time,energy does not search on time: $(best_of pareto.txt)"

code=0
"$bin" "${tune[@]}" --replay plain.jsonl --strategy exhaustive --objective energy > noenergy.txt 2>&1 || code=$?
[ "$code" != 0 ] && [ "$(wc -l < noenergy.txt)" -le 2 ] && grep -q -- '--objective energy: .*plain.jsonl: a replayed record has no measured energy (RAPL' noenergy.txt ||
  fail "a replay without energy: exit $code, $(cat noenergy.txt)"
code=0
FLOWBENCH_POWERCAP_ROOT=$work/none "$bin" "${tune[@]}" --strategy random --evals 2 --no-cache --objective edp \
  --min-samples 3 --max-samples 3 --budget 0.05 > measured.txt 2>&1 || code=$?
[ "$code" != 0 ] && grep -q '^flowbench: tune --objective edp: openmp:0 measured no energy (' measured.txt ||
  fail "a measured tune without energy: exit $code, $(cat measured.txt)"
code=0
"$bin" "${tune[@]}" --objective joules > bad.txt 2>&1 || code=$?
[ "$code" = 2 ] && grep -q "is not time, energy, edp or time,energy" bad.txt || fail "a bad objective: $code, $(cat bad.txt)"
echo "ok"
