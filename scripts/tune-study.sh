#!/usr/bin/env bash
# tune-study.sh FLOWBENCH SWEEP.jsonl[.gz] BACKEND [SEEDS] [PRIOR_SWEEP.jsonl...] -
# how close each search strategy gets to the exhaustive optimum, and with
# what fraction of the evaluations, on a recorded exhaustive sweep
# (cases/tune-study.suite): for every (matrix, kernel) with more than 4
# points, `flowbench tune --replay` runs, with the default --evals (a
# quarter of the space, at least 4; TUNE_STUDY_EVALS=quarter: a strict
# quarter, at least 1) over SEEDS seeds (default 100):
#   anneal --start default   from the kernel's default point
#   anneal --start prior     from the prior's prediction; the prior is fit
#                            to PRIOR_SWEEP... (default: SWEEP itself) and
#                            the replay leaves the pair's own matrix out of
#                            it, so the start is never the matrix's own
#                            recorded optimum (docs/tuning.md)
#   bayes --start default / --start prior   Bayesian optimisation (search_bayes.c)
#                            from the same starts; with the prior, the
#                            prior's expected cost is the model's mean
#   random
# Prints the per-pair markdown table, then a summary table: per group of
# matrices (the gen:cube meshes, the shipped files) and strategy, the mean
# evaluations and points, the mean share of seeds within 5%, how many pairs
# have >= 90% of their seeds within 5% ("make it"), the worst median ratio.
set -euo pipefail
# shellcheck source=lib/tune-replay.sh
. "$(dirname "$0")/lib/tune-replay.sh"
bin=$1 file=$2 backend=$3 seeds=${4:-100}
shift $(($# < 4 ? $# : 4))
prior_sweeps=("$@")
[ ${#prior_sweeps[@]} -gt 0 ] || prior_sweeps=("$file")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" tune --fit-prior "${prior_sweeps[@]}" --prior "$tmp/prior.json" >&2

rows=$tmp/rows.tsv
: >"$rows"
while IFS=$'\t' read -r matrix kernel; do
  for run in "anneal default" "anneal prior" "bayes default" "bayes prior" "random -"; do
    read -r strategy start <<<"$run"
    label=$strategy
    [ "$start" = - ] || label="$strategy ($start start)"
    out=$(replay_run "$bin" "$file" "$backend" "$matrix" "$kernel" "$strategy" "$start" "$tmp/prior.json" "$seeds") ||
      continue
    points=$(replay_points "$out")
    [ "${points:-0}" -gt 4 ] || continue
    sed -n "s|.*replay over [0-9]* seeds: \([0-9.]*\) evaluations on average; within 5% of the optimum in [0-9]* (\([0-9]*\)%); median \([0-9.]*\)x, worst \([0-9.]*\)x.*|$matrix\t$kernel\t$points\t$label\t\1\t\2\t\3\t\4|p" <<<"$out" >>"$rows"
  done
done < <(replay_pairs "$file")

echo "| matrix | kernel | points | strategy | evaluations | within 5% | median | worst |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
awk -F'\t' '{ sub(".*/", "", $1); printf "| %s | %s | %s | %s | %s | %s%% | %sx | %sx |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$rows"

echo
echo "| matrices | strategy | evaluations / points | mean share of seeds within 5% | pairs with >= 90% of seeds within 5% | worst median ratio |"
echo "|---|---|---:|---:|---:|---:|"
awk -F'\t' '
  function add(g, k) {
    k = g "\t" $4
    if (!(k in n)) order[++nk] = k
    if (!(g in gi)) gi[g] = g == "all" ? 99 : ++ng
    n[k]++; ev[k] += $5; pts[k] += $3; share[k] += $6; made[k] += ($6 >= 90)
    if ($7 > worst[k]) worst[k] = $7
  }
  { add(($1 ~ /^gen:cube/) ? "gen:cube levels 0-2, scalar and 4x4 blocks" : "shipped small files"); add("all") }
  END { for (i = 1; i <= nk; i++) { k = order[i]; split(k, p, "\t")
          printf "%d\t%d\t| %s (%d pairs) | %s | %.1f / %.1f (%.0f%%) | %.0f%% | %d of %d | %.2fx |\n", gi[p[1]], i, p[1], n[k], p[2],
                 ev[k] / n[k], pts[k] / n[k], 100 * ev[k] / pts[k], share[k] / n[k], made[k], n[k], worst[k] } }' \
  <(awk -F'\t' '$1 ~ /^gen:cube/' "$rows"; awk -F'\t' '$1 !~ /^gen:cube/' "$rows") |
  sort -t$'\t' -k1,1n -k2,2n | cut -f3-
