#!/usr/bin/env bash
# tune_families.sh FLOWBENCH DIR - `tune` for every family, end to end:
# - heat2d on openmp: `tune --family heat2d --grid grid:33x33` (random, 3
#   evaluations) writes its --out records with their search part and the
#   marked best, and one cache entry with the grid signature {33, 33, 1, 1};
#   `grid --tuned` takes it exactly (33x33), as the nearest grid (48x40),
#   and falls back to the defaults for another precision and another
#   kernel; `sweep --tuned` on a grid suite finds it the same way; --replay
#   of the --out file searches it again without measuring;
# - fv-surface once: tune, then `grid --tuned` exact;
# - the solver on OpenCL (PoCL; this part is skipped without OpenCL): `tune
#   --case cavity --kernel ns` on level 0, 2 steps a run, --evals 2 (and
#   the default point after them), stores an "ns" entry with the mesh
#   signature that `solve --tuned` finds
#   exactly; so does an entry written before signatures had kinds (the
#   pressure matrix's signature, as older versions stored it).
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
cache=$dir/tuning.json
quick=(--budget 0.02 --min-samples 3 --max-samples 10)
measurements() { jq -c 'select(.type == "measurement")' "$1"; }

echo "== tune --family heat2d: the search, its records, the cache entry"
"$bin" tune --family heat2d --grid grid:33x33 --kernel heat-jacobi --strategy random --evals 3 "${quick[@]}" \
  --cache "$cache" --out "$dir/heat.jsonl" --no-variants > "$dir/heat.txt" 2> "$dir/heat.err" ||
  fail "tune heat2d: $(tail -3 "$dir/heat.err")"
grep -Eq 'tune heat-jacobi on openmp:0, double, grid:33x33: random, [34] of [0-9]+ points evaluated' "$dir/heat.txt" &&
  grep -q 'stored in' "$dir/heat.txt" || fail "tune heat2d report: $(cat "$dir/heat.txt")"
# random never starts at the default: the search runs it last unless it drew it (docs/tuning.md)
dflt=$(jq -c '.params' <("$bin" grid --family heat2d --grid grid:33x33 --kernel heat-jacobi \
  "${quick[@]}" --no-stream --json 2>/dev/null) | head -1)
[ -n "$dflt" ] || fail "grid --json gave no default point"
measurements "$dir/heat.jsonl" | jq -e -s --argjson dflt "$dflt" '
    map(select(.search.best | not)) as $evals | map(select(.search.best)) as $best
    | ($evals | length) as $n | ($n == 3 or $n == 4) and ($evals | any(.params == $dflt))
    and ($evals | all(.benchmark == "heat2d" and .grid.name == "33x33" and .search.strategy == "random"))
    and ($best | length == 1 and .[0].search.evaluations == $n)
    and ($best[0].stats.median_s <= ($evals | map(select(.status == "ok") | .stats.median_s) | min))' > /dev/null ||
  fail "tune --out: records without their search part, no marked best, the default not run, or a best that is not the fastest: $(measurements "$dir/heat.jsonl" | jq -c '[.params, .search.evaluation, .search.best]')"
jq -e '.entries | length == 1 and .[0].kernel == "heat-jacobi" and .[0].family == "heat2d" and .[0].grid == "33x33"
       and .[0].signature == {"kind": "grid", "nx": 33, "ny": 33, "nz": 1, "stretch": 1}' "$cache" > /dev/null ||
  fail "cache entry: $(cat "$cache")"
# stored is what the confirmation in fresh processes chose (docs/tuning.md,
# "Tuning that reproduces"): the search's best is among its candidates
# beside the default, and the point stored is its winner or, without a
# significant one, the default
best=$(jq -cS '.entries[0].params' "$cache")
searched=$(measurements "$dir/heat.jsonl" | jq -cS 'select(.search.best) | .params')
jq -e --argjson s "$searched" --argjson d "$dflt" '.entries[0] as $e | $e.confidence as $c
    | ($c.candidates | map(.params) | index($s) != null and index($d) != null) and ($c.rounds >= 2)
    and (if $c.winner_stored then ($c.candidates | map(.params) | index($e.params) != null) else $e.params == $d end)
    and ($e.spread_s | length == 2 and .[0] <= $e.median_s and $e.median_s <= .[1])' "$cache" > /dev/null ||
  fail "the stored point $best is not what the confirmation chose: $(jq -c '.entries[0] | {params, confidence}' "$cache")"
grep -q "confirmed in fresh processes" "$dir/heat.txt" || fail "tune did not say what the confirmation found"

echo "== grid --tuned: exact, nearest, default"
grid_json() { "$bin" grid --family heat2d --no-stream --json "${quick[@]}" "$@" 2>> "$dir/grid.err"; }
tuned() { grid_json --tuned --cache "$cache" "$@"; }
tuned --grid grid:33x33 --kernel heat-jacobi > "$dir/exact.json" || fail "grid --tuned: $(tail -2 "$dir/grid.err")"
jq -e --argjson best "$best" '.status == "ok" and .tuning.source == "exact" and .tuning.signature == "grid"
       and .tuning.grid == "33x33" and .params == $best' "$dir/exact.json" > /dev/null ||
  fail "grid --tuned exact: $(jq -c '{tuning, params}' "$dir/exact.json")"
grep -q -- '--tuned: tuned for this grid signature (33x33)' "$dir/grid.err" || fail "grid --tuned does not say which"
tuned --grid grid:48x40 > "$dir/nearest.json" || fail "grid --tuned 48x40"
jq -e --argjson best "$best" '.tuning.source == "nearest" and .tuning.grid == "33x33" and .params == $best' \
  "$dir/nearest.json" > /dev/null || fail "grid --tuned nearest: $(jq -c '{tuning, params}' "$dir/nearest.json")"
for other in "--kernel heat-jacobi --precision single" "--kernel heat-rbgs"; do
  # shellcheck disable=SC2086 # the words of $other are options
  tuned --grid grid:33x33 $other > "$dir/default.json" || fail "grid --tuned $other"
  # shellcheck disable=SC2086
  grid_json --grid grid:33x33 $other > "$dir/plain.json" || fail "grid $other"
  jq -e --slurpfile plain "$dir/plain.json" '.tuning.source == "default" and .params == $plain[0].params' \
    "$dir/default.json" > /dev/null || fail "grid --tuned $other: $(jq -c '{tuning, params}' "$dir/default.json")"
done

echo "== sweep --tuned on grid cases"
cat > "$dir/grids.suite" <<'EOF'
suite: tuned-grids
backends: [openmp]
stream: false
measure: {min_samples: 3, max_samples: 10, budget_s: 0.02}
grids: ["grid:33x33", "grid:40x40"]
cases:
  - name: heat
    family: heat2d
    kernels: [heat-jacobi]
EOF
"$bin" sweep "$dir/grids.suite" --tuned --cache "$cache" --out "$dir/sweep.jsonl" 2> "$dir/sweep.err" ||
  fail "sweep --tuned: $(tail -3 "$dir/sweep.err")"
measurements "$dir/sweep.jsonl" | jq -e -s --argjson best "$best" 'length == 2 and all(.status == "ok" and .params == $best)
    and (map([.grid.name, .tuning.source]) | sort) == [["33x33", "exact"], ["40x40", "nearest"]]' > /dev/null ||
  fail "sweep --tuned: $(measurements "$dir/sweep.jsonl" | jq -c '[.grid.name, .tuning.source, .params]')"

echo "== tune --replay of a grid family's records"
"$bin" tune --family heat2d --grid grid:33x33 --kernel heat-jacobi --strategy random --evals 3 \
  --replay "$dir/heat.jsonl" --no-variants > "$dir/replay.txt" 2>&1 || fail "replay: $(tail -3 "$dir/replay.txt")"
grep -q 'recorded optimum: ' "$dir/replay.txt" && grep -Eq 'this search: [0-9.]+x the optimum' "$dir/replay.txt" ||
  fail "replay report: $(cat "$dir/replay.txt")"

echo "== tune --family fv-surface, grid --tuned"
"$bin" tune --family fv-surface --grid grid:12x12x12 --kernel fv-gather --strategy random --evals 2 "${quick[@]}" \
  --cache "$cache" --no-variants > "$dir/fv.txt" 2>&1 || fail "tune fv-surface: $(tail -3 "$dir/fv.txt")"
jq -e '[.entries[] | select(.kernel == "fv-gather")] | length == 1 and .[0].grid == "12x12x12"
       and .[0].signature == {"kind": "grid", "nx": 12, "ny": 12, "nz": 12, "stretch": 1}' "$cache" > /dev/null ||
  fail "fv-surface cache entry: $(cat "$cache")"
"$bin" grid --family fv-surface --grid grid:12x12x12 --kernel fv-gather --no-stream --json "${quick[@]}" --tuned \
  --cache "$cache" > "$dir/fv.json" 2>> "$dir/grid.err" || fail "grid --tuned fv-surface"
jq -e --slurpfile c "$cache" '.tuning.source == "exact"
       and .params == ($c[0].entries[] | select(.kernel == "fv-gather") | .params)' "$dir/fv.json" > /dev/null ||
  fail "grid --tuned fv-surface: $(jq -c '{tuning, params}' "$dir/fv.json")"

if ! "$bin" devices | grep -q '^opencl:'; then
  echo "no OpenCL device: the solver's part skipped"
  echo ok
  exit 0
fi

echo "== tune --case cavity --kernel ns: the family ns through tune's search, the mesh signature"
ns_cache=$dir/ns.json
"$bin" tune --case cavity --level 0 --steps 2 --kernel ns --backend opencl --evals 2 --cache "$ns_cache" \
  --out "$dir/ns.jsonl" > "$dir/ns.txt" 2> "$dir/ns.err" || fail "tune --case: $(tail -3 "$dir/ns.err")"
grep -q '^tuning ns ' "$dir/ns.err" || fail "no tuning line: $(cat "$dir/ns.err")"
grep -Eq '^tune ns on opencl:[0-9.]+, double, cavity:level=0:steps=2: exhaustive, 3 of 864 points' "$dir/ns.txt" ||
  fail "tune --case summary (2 evaluations and the default's): $(cat "$dir/ns.txt")"
grep -q 'stored in' "$dir/ns.txt" || fail "tune --case did not store: $(cat "$dir/ns.txt")"
# the first two evaluable points in order, then the default (not among them), then the best marked
measurements "$dir/ns.jsonl" | jq -e -s 'length == 4 and all(.benchmark == "ns" and .kernel == "ns" and .status == "ok")
    and all(.check.ok and .search.strategy == "exhaustive" and .search.budget == 2)
    and (.[2].params == {WG_SIZE: 128, GROUP_REDUCE: 0, CG_VARIANT: 1, EDGE_LAYOUT: 0, RENUMBER: 1, CG_SPMV: 0})
    and ([.[] | select(.search.best)] | length == 1)
    and (.[3] | .search.best and .search.evaluations == 3 and .search.space_size == 864)
    and (.[3].params as $p | [.[0:3][] | select(.params == $p)] | length == 1)' > /dev/null ||
  fail "tune --case --out: a record per evaluation with its search part, then the best marked: $(measurements "$dir/ns.jsonl" | jq -c '[.search, .params]')"
jq -e --slurpfile runs <(measurements "$dir/ns.jsonl") '.entries | length == 1 and .[0].kernel == "ns"
       and .[0].family == "ns" and .[0].signature.kind == "mesh" and .[0].signature.nodes == 3375
       and .[0].signature.edges > 3375 and .[0].strategy == "exhaustive" and .[0].evaluations == 3
       and .[0].matrix == "cavity-l0" and .[0].confidence.rounds >= 2
       and (.[0].confidence.candidates | map(.params) | index($runs[3].params) != null)
       and (.[0].confidence.candidates | map(.params) | index($e0.params) != null)' --argjson e0 "$(jq -c '.entries[0]' "$ns_cache")" \
  "$ns_cache" > /dev/null ||
  fail "ns cache entry: $(cat "$ns_cache")"
echo "== tune --case --param: the solver's axes narrowed (was refused as a kernel file's --param)"
"$bin" tune --case cavity --level 0 --steps 2 --kernel ns --backend opencl --no-cache --param WG_SIZE=64,128 \
  --param GROUP_REDUCE=0 --param CG_VARIANT=1 --param EDGE_LAYOUT=0 --param RENUMBER=1 --param CG_SPMV=0 \
  --out "$dir/ns-param.jsonl" > "$dir/ns-param.txt" 2> "$dir/ns-param.err" ||
  fail "tune --case --param: $(tail -3 "$dir/ns-param.err")"
measurements "$dir/ns-param.jsonl" | jq -e -s '[.[] | select(.search.best | not) | .params.WG_SIZE] == [64, 128]
    and all(.check.ok)' > /dev/null ||
  fail "tune --case --param: the two WG_SIZE points: $(measurements "$dir/ns-param.jsonl" | jq -c '[.params, .status]')"
ns_tuned() { # CACHE: solve --tuned on level 0 must find the entry exactly
  "$bin" solve cavity --level 0 --steps 1 --no-stream --backend opencl --tuned --cache "$1" --json \
    > "$dir/ns-tuned.json" 2> "$dir/ns-tuned.err" || fail "solve --tuned: $(tail -3 "$dir/ns-tuned.err")"
  jq -e --slurpfile c "$1" '.tuning.source == "exact" and .tuning.signature == "mesh"
         and (. as $r | $c[0].entries[0].params | to_entries | all(.value == $r.params[.key]))' \
    "$dir/ns-tuned.json" > /dev/null ||
    fail "solve --tuned with $1: $(jq -c .tuning "$dir/ns-tuned.json")"
}
ns_tuned "$ns_cache"

echo "== an \"ns\" entry written before signatures had kinds is read as its mesh"
jq '.entries |= map(.signature |= {rows: .nodes, nnz: (.edges + .nodes), nnz_per_row_mean: ((.edges + .nodes) / .nodes),
                                   nnz_per_row_stddev: .degree_stddev, nnz_per_row_max: (.degree_max + 1), block: 1})' \
  "$ns_cache" > "$dir/old.json"
ns_tuned "$dir/old.json"
echo ok
