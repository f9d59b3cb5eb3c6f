#!/usr/bin/env bash
# vtu-diff.sh A.vtu B.vtu - how far two solver fields (flowbench solve --vtk,
# the same mesh) are apart: prints "VELOCITY PRESSURE", each the largest
# |a - b| over the nodes divided by the largest |a| of that field, or
# "missing" when a file lacks one. The rule the decomposed solver is held to
# (1e-8: tests/e2e/solve_mpi.sh, scripts/device/phase.sh).
set -euo pipefail
awk 'FNR == 1 { file++ }
     /<DataArray/ { arr = ($0 ~ /Name="velocity"/) ? "u" : ($0 ~ /Name="pressure"/) ? "p" : ""; n = 0; next }
     /<\/DataArray>/ { arr = ""; next }
     arr != "" { for (i = 1; i <= NF; ++i) { k = arr SUBSEP (n++)
                   if (file == 1) { v[k] = $i; a = $i < 0 ? -$i : $i; if (a > amax[arr]) amax[arr] = a }
                   else { d = $i - v[k]; d = d < 0 ? -d : d; if (d > dmax[arr]) dmax[arr] = d; seen[arr] += 1 } } }
     END { if (!seen["u"] || !seen["p"] || !amax["u"]) { print "missing"; exit }
           printf "%.3g %.3g\n", dmax["u"] / amax["u"], dmax["p"] / (amax["p"] ? amax["p"] : 1) }' "$1" "$2"
