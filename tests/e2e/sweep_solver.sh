#!/usr/bin/env bash
# sweep_solver.sh FLOWBENCH DIR - the solver swept like any family
# (tests/data/suites/solver.suite: family ns, cavity level 0, 2 steps a
# point, WG_SIZE 64 and 128):
# - on openmp the baseline's own point runs and WG_SIZE=64 is pruned with
#   the reason; on OpenCL (when there is one) both points run;
# - every record that ran is an "ns" record checked against the OpenMP
#   baseline (check.ok, u and p within the tolerances), its params the
#   point's six axes, the case's settings in case_params;
# - compare of the file with itself judges the configurations SAME or
#   INCONCLUSIVE, never SLOWER;
# - a suite with a bad solver case is refused at load naming its line.
set -euo pipefail
bin=$1; dir=$2
src=$(cd "$(dirname "$0")/../data/suites" && pwd)
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
backends=(--backend openmp)
if "$bin" devices | grep -q '^opencl:'; then backends=(); fi

"$bin" sweep "$src/solver.suite" "${backends[@]}" --out "$dir/sweep.jsonl" > "$dir/sweep.txt" 2>&1 ||
  fail "sweep: $(tail -5 "$dir/sweep.txt")"
m() { jq -c 'select(.type == "measurement")' "$dir/sweep.jsonl"; }
m | jq -e -s 'map(select(.backend == "openmp")) | length == 2
    and (map(select(.params.WG_SIZE == 64))[0] | .status == "pruned"
         and (.reason | test("OpenMP baseline.s one point")))
    and (map(select(.params.WG_SIZE == 128))[0].status == "ok")' > /dev/null ||
  fail "openmp: the baseline's point ok, WG_SIZE=64 pruned: $(m | jq -c '[.backend, .params.WG_SIZE, .status]')"
m | jq -e -s 'map(select(.status == "ok")) | length >= 1 and all(.benchmark == "ns" and .kernel == "ns"
    and .check.ok and .check.u_rel_l2 <= 1e-6 and .check.p_rel_l2 <= 1e-4
    and (.params | keys) == ["CG_SPMV", "CG_VARIANT", "EDGE_LAYOUT", "GROUP_REDUCE", "RENUMBER", "WG_SIZE"]
    and .case_params.level == 0 and .steps == 2 and .matrix.name == "cavity-l0" and .stats.median_s > 0)' \
  > /dev/null || fail "the records that ran: $(m | jq -c '{status, benchmark, check, params, case_params}')"
if [ ${#backends[@]} -eq 0 ]; then
  m | jq -e -s '[.[] | select(.backend == "opencl" and .status == "ok")] | length == 2' > /dev/null ||
    fail "opencl: both points: $(m | jq -c '[.backend, .params.WG_SIZE, .status, .reason]')"
fi

set +e; "$bin" compare "$dir/sweep.jsonl" "$dir/sweep.jsonl" > "$dir/compare.txt" 2>&1; rc=$?; set -e
[ "$rc" -eq 0 ] && ! grep -q "^SLOWER" "$dir/compare.txt" && grep -q "^SAME .* ns ns openmp" "$dir/compare.txt" || fail "compare with itself: exit $rc: $(cat "$dir/compare.txt")"

sed 's/cavity:level=0:steps=2/cavity:levle=0/' "$src/solver.suite" > "$dir/bad.suite"
set +e; "$bin" sweep "$dir/bad.suite" --out "$dir/bad.jsonl" > "$dir/bad.out" 2> "$dir/bad.err"; rc=$?; set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$dir/bad.err")" -eq 1 ] &&
  grep -Eq "bad\.suite: line [0-9]+: .*unknown option 'levle'" "$dir/bad.err" ||
  fail "a bad solver case: exit $rc: $(cat "$dir/bad.err")"
echo ok
