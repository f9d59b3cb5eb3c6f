#!/usr/bin/env bash
# tune-noise.sh A.jsonl B.jsonl - the noise floor of a recorded landscape:
# the same sweep (cases/tune-study.suite) recorded twice, A and B, compared
# point by point (a sweep --repeat recording by the median of each point's
# rounds, as tune --replay reads it). Per (matrix, kernel) with more than 4 points: the median
# and largest |B/A - 1| over its points, and the cost in B of A's optimum
# over B's optimum ("A's best in B"): above 1.05, a search judged within 5%
# of A's recorded optimum is judged against noise (docs/tuning.md, "How
# close the guided search gets"). Prints a markdown table.
set -euo pipefail
costs() { # FILE: matrix \t kernel \t params \t median_s, one line per ok point: the latest run's
  # record, or the median of its rounds when it is a sweep --repeat run (as tune --replay reads it)
  jq -r -s 'map(select(.type == "measurement" and .benchmark == "spmv" and .status == "ok"))
         | group_by([.matrix.source, .kernel, (.params | tostring)])[]
         | .[-1].run_id as $run | map(select(.run_id == $run)) as $r
         | (if $r[-1].round then ($r | map(.stats.median_s) | sort) else [$r[-1].stats.median_s] end) as $v
         | [$r[-1].matrix.source, $r[-1].kernel, ($r[-1].params | to_entries | map("\(.key)=\(.value)") | join(",")),
            (if ($v | length) % 2 == 1 then $v[($v | length - 1) / 2] else ($v[($v | length) / 2 - 1] + $v[($v | length) / 2]) / 2 end)]
         | @tsv' "$1"
}
echo "| matrix | kernel | points | median \|B/A - 1\| | largest \|B/A - 1\| | A's best in B |"
echo "|---|---|---:|---:|---:|---:|"
join -t$'\t' <(costs "$1" | awk -F'\t' '{ print $1 "|" $2 "|" $3 "\t" $4 }' | sort -t$'\t' -k1,1) \
             <(costs "$2" | awk -F'\t' '{ print $1 "|" $2 "|" $3 "\t" $4 }' | sort -t$'\t' -k1,1) |
awk -F'\t' '
  { split($1, k, "|"); pair = k[1] "\t" k[2]; a = $2; b = $3
    if (!(pair in n)) order[++np] = pair
    n[pair]++; d = b / a - 1; if (d < 0) d = -d; dev[pair, n[pair]] = d
    if (!(pair in amin) || a < amin[pair]) { amin[pair] = a; b_at_amin[pair] = b }
    if (!(pair in bmin) || b < bmin[pair]) bmin[pair] = b }
  END { for (i = 1; i <= np; i++) { p = order[i]; m = n[p]; if (m <= 4) continue
          for (x = 1; x <= m; x++) v[x] = dev[p, x]
          for (x = 2; x <= m; x++) { t = v[x]; for (y = x - 1; y >= 1 && v[y] > t; y--) v[y + 1] = v[y]; v[y + 1] = t }
          split(p, q, "\t"); sub(".*/", "", q[1])
          printf "| %s | %s | %d | %.1f%% | %.0f%% | %.3fx |\n", q[1], q[2], m, 100 * v[int((m + 1) / 2)], 100 * v[m],
                 b_at_amin[p] / bmin[p] } }' | sort -t'|' -k2,2 -k3,3
