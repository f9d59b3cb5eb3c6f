#!/usr/bin/env bash
# tune-verify.sh FLOWBENCH SWEEP.jsonl BACKEND OUTDIR [SEEDS] [ROUNDS] [PRIOR_SWEEP.jsonl...] -
# the tune study's verdict timed again. tune-study.sh judges each search
# against the recorded optimum, the least of many noisy costs, which a
# noisy recording makes too good (and a point's recorded cost may have met
# a slow spell). Here the points the searches ended at are measured again
# head to head with the recorded optimum: for every (matrix, kernel) pair
# with more than 4 points, anneal is replayed over SEEDS seeds (default 100)
# from the prior's start and from the default (as in tune-study.sh); then one
# sweep measures each pair's recorded optimum and every point a seed ended
# at, in ROUNDS rounds (default 7; a round measures every pair, its points
# back to back, so a point and the optimum meet the same machine), and each
# point's cost is the median over the rounds of its cost / the optimum's cost
# in the same round. A pair "makes it" when >= 90% of its seeds ended at a
# point within 5% of the optimum by that median; the summary also counts it
# by each point's worst round (every round within 5%: the verdict does not
# hang on one round) and its best round. TUNE_STUDY_EVALS=quarter gives
# the searches a strict quarter of the space (tune-study.sh).
# OUTDIR keeps the prior, the end points (ends.tsv), the suite, the sweep
# (verify.jsonl: rerun to resume it) and the table (verify.md, also printed).
# Run from the repository root, like the recording (its matrix paths).
set -euo pipefail
# shellcheck source=lib/tune-replay.sh
. "$(dirname "$0")/lib/tune-replay.sh"
bin=$1 file=$2 backend=$3 dir=$4 seeds=${5:-100} rounds=${6:-7}
shift $(($# < 6 ? $# : 6))
prior_sweeps=("$@")
[ ${#prior_sweeps[@]} -gt 0 ] || prior_sweeps=("$file")
mkdir -p "$dir"
"$bin" tune --fit-prior "${prior_sweeps[@]}" --prior "$dir/prior.json" >&2

# ends.tsv: case \t matrix \t kernel \t what \t point \t seeds \t recorded ratio
# \t mean evaluations \t points, what = "optimum" (the recorded optimum, once
# per pair) or the strategy.
ends=$dir/ends.tsv
: >"$ends"
n=0
while IFS=$'\t' read -r matrix kernel; do
  case_name=$(printf 'p%03d' $((n + 1)))
  for start in prior default; do
    out=$(replay_run "$bin" "$file" "$backend" "$matrix" "$kernel" anneal "$start" "$dir/prior.json" "$seeds") || continue
    points=$(replay_points "$out")
    [ "${points:-0}" -gt 4 ] || continue
    evals=$(sed -n 's/.*replay over [0-9]* seeds: \([0-9.]*\) evaluations on average.*/\1/p' <<<"$out")
    [ "$start" = default ] ||
      sed -n "s|^  recorded optimum: \([0-9.]*\) ms over .*: \(.*\)$|$case_name\t$matrix\t$kernel\toptimum\t\2\t0\t1\t0\t$points|p" \
        <<<"$out" >>"$ends"
    sed -n "s|^  ends: \(.*\) in \([0-9]*\) seeds (\([0-9.]*\)x)$|$case_name\t$matrix\t$kernel\tanneal ($start start)\t\1\t\2\t\3\t$evals\t$points|p" \
      <<<"$out" >>"$ends"
  done
  grep -q "^$case_name	" "$ends" && n=$((n + 1))
done < <(replay_pairs "$file")
[ "$n" -gt 0 ] || { echo "tune-verify.sh: $file: no (matrix, kernel) pair with more than 4 points" >&2; exit 1; }

# One case per point (a suite axis lists a value once, so a pair's points
# cannot be zipped): case PAIR.I, the pair's points back to back, a shipped
# file's path made absolute for the suite's folder.
suite=$dir/verify.suite
{
  echo "# written by scripts/tune-verify.sh from $file"
  echo "suite: tune-verify"
  echo "backends: [$backend]"
  echo "precisions: [double]"
  echo "measure: {min_samples: 5, max_samples: 100, spread_pct: 2, budget_s: 0.2, timeout_s: 30, abandon_factor: 0}"
  echo "cases:"
  awk -F'\t' -v root="$PWD" '!seen[$1 SUBSEP $5]++ {
      m = $2
      if (m !~ /^gen:/ && m !~ /^\//) m = root "/" m
      printf "  - name: %s.%d\n    matrices: [\"%s\"]\n    kernels: [%s]\n    params: {", $1, ++np[$1], m, $3
      naxes = split($5, axes, " ")
      for (a = 1; a <= naxes; a++) { split(axes[a], kv, "="); printf "%s%s: [%s]", (a > 1 ? ", " : ""), kv[1], kv[2] }
      printf "}\n" }' "$ends"
} >"$suite"

resume=()
[ -s "$dir/verify.jsonl" ] && resume=(--resume)
"$bin" sweep "$suite" --out "$dir/verify.jsonl" --repeat "$rounds" "${resume[@]}" >&2

# Per pair and strategy: the recorded share of seeds within 5% (tune-study's
# verdict) and the re-timed shares, by each point's median, worst and best
# round; a failed time is a miss (so is a point never timed), a round
# without the optimum's time is skipped.
jq -n -r --rawfile ends "$ends" --slurpfile recs "$dir/verify.jsonl" '
  def text: del(.BLOCK_SIZE) | to_entries | map("\(.key)=\(.value)") | join(" ");
  def x: if . >= 1e9 then "failed" else (. * 100 | round) as $c
          | "\($c / 100 | floor).\($c % 100 | tostring | if length < 2 then "0" + . else . end)x" end;
  def median: sort | if length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def share(f): (map(select(f <= 1.05) | .seeds) | add // 0) * 100 / (map(.seeds) | add);
  ($recs | map(select(.type == "measurement")) | map({case: (.case | sub("[.][0-9]+$"; "")), round, point: (.params | text),
          t: (if .status == "ok" then .stats.median_s else null end)})) as $m
  | ($ends | split("\n") | map(select(length > 0) | split("\t")
          | {case: .[0], matrix: .[1], kernel: .[2], what: .[3], point: .[4], seeds: (.[5] | tonumber),
             recorded: (.[6] | tonumber), evals: (.[7] | tonumber), points: (.[8] | tonumber)})) as $e
  | $e | map(select(.what == "optimum")) | map({key: .case, value: .point}) | from_entries as $optimum
  | ($m | map(select(.point == $optimum[.case] and .t != null)) | map({key: "\(.case)/\(.round)", value: .t})
        | from_entries) as $opt_t
  | ($m | map(select($opt_t["\(.case)/\(.round)"] != null)
              | {key: "\(.case)/\(.point)", r: (if .t == null then 1e9 else .t / $opt_t["\(.case)/\(.round)"] end)})
        | group_by(.key) | map({key: .[0].key, value: (map(.r) | {median: median, worst: max, best: min})})
        | from_entries) as $ratio
  | $e | map(select(.what != "optimum")
              | . + ($ratio["\(.case)/\(.point)"] // {median: 1e9, worst: 1e9, best: 1e9}))
  | group_by([.case, .what])[]
  | [.[0].case, .[0].matrix, .[0].kernel, .[0].what, share(.recorded), share(.median), share(.worst), share(.best),
     (map("\(.point): \(.seeds) seeds, \(.median | x) [\(.best | x)-\(.worst | x)]")
      | join("; ")), .[0].evals, .[0].points] | @tsv' >"$dir/rows.tsv"

{
  echo "| matrix | kernel | strategy | evaluations / points | seeds within 5%: recorded | re-timed (median round) | every round | best round | where the seeds ended: re-timed ratio to the optimum, median [best-worst round] |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---|"
  awk -F'\t' '{ sub(".*/", "", $2); printf "| %s | %s | %s | %.1f / %d | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %s |\n", $2, $3, $4, $10, $11, $5, $6, $7, $8, $9 }' \
    "$dir/rows.tsv"
  echo
  echo "$rounds rounds; budget: $([ "${TUNE_STUDY_EVALS:-default}" = quarter ] && echo "a strict quarter of the space (at least 1)" ||
    echo "tune's default --evals (a quarter of the space, at least 4)"); pairs with >= 90% of $seeds seeds within 5% of the recorded optimum:"
  echo
  echo "| strategy | pairs | evaluations / points | recorded costs | re-timed: median round | every round | best round |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '{ if (!($4 in n)) order[++k] = $4
               n[$4]++; ev[$4] += $10; pts[$4] += $11
               rec[$4] += $5 >= 90; med[$4] += $6 >= 90; all[$4] += $7 >= 90; any[$4] += $8 >= 90 }
       END { for (i = 1; i <= k; i++) { s = order[i]
               printf "| %s | %d | %.1f / %.1f (%.0f%%) | %d | %d | %d | %d |\n", s, n[s], ev[s] / n[s], pts[s] / n[s],
                      100 * ev[s] / pts[s], rec[s], med[s], all[s], any[s] } }' "$dir/rows.tsv"
} | tee "$dir/verify.md"
