#!/usr/bin/env bash
# solve_tune.sh FLOWBENCH DIR - the solver's device kernels swept, tuned and
# looked up on OpenCL (PoCL in CI), cavity level 0, 2 steps a run:
# - `solve --param WG_SIZE=64,128 --tune --cache C` runs both points
#   through tune's search (a record each, "benchmark" "ns", checked against
#   the OpenMP baseline), tabulates them and stores one "ns" entry whose
#   params are one of the two points;
# - `solve --tuned --cache C --json` finds it (tuning.source "exact") and
#   runs with its params; level 1 finds it as the nearest signature;
# - refusals are one line and a non-zero exit: --tuned with --param,
#   --tuned on openmp, a bad value in a list, a sweep over two backends;
# - Ctrl-C stops between points: exit 130, nothing stored.
# Skips (77) without OpenCL.
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
cache=$dir/tuning.json
run=(solve cavity --level 0 --steps 2 --no-stream --backend opencl)

# the sweep and --tune: the plan, a progress line per point, the table, one entry
"$bin" "${run[@]}" --param WG_SIZE=64,128 --tune --cache "$cache" --out "$dir/sweep.jsonl" \
  > "$dir/tune.txt" 2> "$dir/tune.err" || { echo "FAIL: --tune: $(tail -3 "$dir/tune.err")"; exit 1; }
grep -q 'tuning over 2 points' "$dir/tune.err" || { echo "FAIL: no plan line"; cat "$dir/tune.err"; exit 1; }
[ "$(grep -c '^  \[[12]\] WG_SIZE=' "$dir/tune.err")" -eq 2 ] || { echo "FAIL: progress lines"; cat "$dir/tune.err"; exit 1; }
grep -q 'by median time per step' "$dir/tune.txt" && grep -q 'stored in' "$dir/tune.txt" ||
  { echo "FAIL: no table or no store line"; cat "$dir/tune.txt"; exit 1; }
jq -e -s '[.[] | select(.type == "measurement")] | length == 3 and all(.status == "ok" and .benchmark == "ns")
          and all(.check.ok and .check.u_rel_l2 <= 1e-6 and .check.p_rel_l2 <= 1e-4)
          and (.[0:2] | map(.params.WG_SIZE) | sort) == [64, 128]
          and (.[0:2] | map(.search.evaluation)) == [1, 2] and all(.search.strategy == "exhaustive")
          and (.[2].search | .best and .evaluations == 2 and .space_size == 2)' "$dir/sweep.jsonl" > /dev/null ||
  { echo "FAIL: a record per point with its search part, then the best marked"; exit 1; }
jq -e '[.entries[] | select(.kernel == "ns")] | length == 1 and (.[0].precision == "double")
       and (.[0].params.WG_SIZE == 64 or .[0].params.WG_SIZE == 128) and .[0].params.GROUP_REDUCE == 0
       and .[0].signature.kind == "mesh" and .[0].signature.nodes == 3375 and .[0].matrix == "cavity-l0"
       and (.[0].device | startswith("opencl|"))' "$cache" > /dev/null ||
  { echo "FAIL: cache entry"; cat "$cache"; exit 1; }

# --tuned: the exact entry, its params in the record
"$bin" "${run[@]}" --tuned --cache "$cache" --json > "$dir/tuned.json" 2> "$dir/tuned.err" ||
  { echo "FAIL: --tuned: $(tail -3 "$dir/tuned.err")"; exit 1; }
grep -q '^--tuned: tuned for this mesh signature (cavity-l0)' "$dir/tuned.err" ||
  { echo "FAIL: --tuned says which"; cat "$dir/tuned.err"; exit 1; }
jq -e --slurpfile c "$cache" '.status == "ok" and .tuning.source == "exact" and .tuning.matrix == "cavity-l0"
       and (. as $r | $c[0].entries[0].params | to_entries | all(.value == $r.params[.key]))' "$dir/tuned.json" \
  > /dev/null || { echo "FAIL: --tuned record"; jq -c '.tuning, .params' "$dir/tuned.json"; exit 1; }

# another mesh of the same kind: the nearest signature
"$bin" solve cavity --level 1 --steps 1 --no-stream --backend opencl --tuned --cache "$cache" --json \
  > "$dir/nearest.json" 2> "$dir/nearest.err" || { echo "FAIL: --tuned level 1: $(tail -3 "$dir/nearest.err")"; exit 1; }
jq -e '.tuning.source == "nearest" and .tuning.matrix == "cavity-l0"' "$dir/nearest.json" > /dev/null ||
  { echo "FAIL: level 1 should take the nearest entry"; jq -c .tuning "$dir/nearest.json"; exit 1; }

# refusals: one line on stderr, exit 2, nothing run
refuse() { # REGEX ARGS...
  local regex=$1; shift
  set +e; "$bin" "$@" > "$dir/refuse.out" 2> "$dir/refuse.err"; local rc=$?; set -e
  [ "$rc" -eq 2 ] && [ "$(wc -l < "$dir/refuse.err")" -eq 1 ] && grep -Eq -- "$regex" "$dir/refuse.err" ||
    { echo "FAIL: flowbench $* -> exit $rc:"; cat "$dir/refuse.err"; exit 1; }
}
refuse '--tuned and --param exclude each other' "${run[@]}" --tuned --param WG_SIZE=64 --cache "$cache"
refuse '--tuned is for the device backends' solve cavity --steps 2 --no-stream --tuned --cache "$cache"
refuse "--param: WG_SIZE: 'x' is not an integer" "${run[@]}" --param WG_SIZE=64,x
refuse 'WG_SIZE=48 is not one of the axis' "${run[@]}" --param WG_SIZE=64,48
refuse 'runs on one --backend' solve cavity --steps 2 --backend opencl --backend opencl --param WG_SIZE=64,128

# --tuned with CG_SPMV: the ns point stored with CG_SPMV=2, then csr-vector's
# own point for the pressure matrix from an spmv tune entry, set on the device
# (--kernel-times counts its launches: the CG's product)
spmv_cache=$dir/spmv-cache.json
"$bin" tune --matrix gen:cube:15 --kernel csr-vector --backend opencl --strategy random --evals 2 --budget 0.02 \
  --cache "$spmv_cache" > "$dir/spmv-tune.txt" 2>&1 || { echo "FAIL: tune csr-vector"; cat "$dir/spmv-tune.txt"; exit 1; }
"$bin" "${run[@]}" --param CG_SPMV=2 --param WG_SIZE=64,128 --tune --cache "$spmv_cache" > "$dir/spmv-sweep.txt" 2>&1 ||
  { echo "FAIL: --tune with CG_SPMV=2"; cat "$dir/spmv-sweep.txt"; exit 1; }
"$bin" "${run[@]}" --tuned --cache "$spmv_cache" --kernel-times --json > "$dir/spmv-tuned.json" 2> "$dir/spmv-tuned.txt" ||
  { echo "FAIL: --tuned with CG_SPMV"; cat "$dir/spmv-tuned.txt"; exit 1; }
want=$(jq -c '[.entries[] | select(.kernel == "csr-vector")][0].params' "$spmv_cache")
jq -e --argjson want "$want" '.params.CG_SPMV == 2 and .tuning.spmv.kernel == "csr-vector"
    and .tuning.spmv.source != "default" and .cg_spmv.kernel == "csr-vector" and .cg_spmv.params == $want
    and .launches_per_cg_iteration == 4
    and .kernel_times["csr-vector"].calls >= .cg.its_total' "$dir/spmv-tuned.json" > /dev/null ||
  { echo "FAIL: --tuned did not set the CG's SpMV point ($want)"; jq -c '{params, tuning, cg_spmv}' "$dir/spmv-tuned.json"; exit 1; }
grep -q -- "--tuned: the CG's SpMV csr-vector" "$dir/spmv-tuned.txt" || { echo "FAIL: no SpMV --tuned line"; exit 1; }

# Ctrl-C: the sweep stops between points, exit 130, the cache untouched
cp "$cache" "$dir/before.json"
"$bin" solve cavity --level 1 --steps 100000 --no-stream --backend opencl --param WG_SIZE=64,128 --tune \
  --cache "$cache" --out "$dir/int.jsonl" > "$dir/int.txt" 2>&1 &
pid=$!
for _ in $(seq 1 200); do grep -q 'tuning over 2 points' "$dir/int.txt" 2>/dev/null && break; sleep 0.1; done
sleep 3
kill -INT "$pid"
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" -eq 130 ] || { echo "FAIL: Ctrl-C gave exit $rc, expected 130"; cat "$dir/int.txt"; exit 1; }
grep -q 'nothing stored in the tuning cache' "$dir/int.txt" || { echo "FAIL: Ctrl-C message"; cat "$dir/int.txt"; exit 1; }
cmp -s "$cache" "$dir/before.json" || { echo "FAIL: an interrupted --tune changed the cache"; exit 1; }
echo ok
