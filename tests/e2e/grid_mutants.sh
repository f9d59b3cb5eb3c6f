#!/usr/bin/env bash
# grid_mutants.sh FLOWBENCH SOURCE_DIR WORKDIR [SOLVER_TEST] - the checks
# catch wrong kernels: copies of the device kernels with one deliberate bug
# each, loaded through FLOWBENCH_KERNEL_DIR on the OpenCL device, must be
# reported as wrong results (grid families: exit 1, status wrong-result, a
# reason naming the check; the solver: its device-against-OpenMP test,
# tests/unit/test_solver_device.c, fails), while the unmodified copies pass.
# Skips (77) without OpenCL.
set -euo pipefail
bin=$1; src=$2; dir=$3; solver_test=${4:-}
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi

run() { # KERNEL_DIR ARGS... -> exit status; output in $dir/out.txt
  local kdir=$1; shift
  set +e
  FLOWBENCH_KERNEL_DIR=$kdir "$bin" grid --backend opencl --no-stream --budget 0.05 --json "$@" \
    > "$dir/out.json" 2> "$dir/out.txt"
  local rc=$?
  set -e
  return $rc
}

mutant() { # NAME FILE SED-EXPRESSION: a copy of kernels/ with one change, which must take
  local name=$1 file=$2 expr=$3
  rm -rf "$dir/$name"; cp -r "$src/kernels" "$dir/$name"
  sed -i "$expr" "$dir/$name/$file"
  cmp -s "$src/kernels/$file" "$dir/$name/$file" && fail "mutant $name: the edit did not apply"
  echo "$dir/$name"
}

expect_wrong() { # NAME ARGS...
  local name=$1; shift
  local rc=0
  run "$(cat "$dir/$name.path")" "$@" || rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit $rc, expected 1 (wrong result): $(tail -1 "$dir/out.txt")"
  [ "$(jq -r .status "$dir/out.json")" = wrong-result ] || fail "$name: status $(jq -r .status "$dir/out.json")"
  jq -r .reason "$dir/out.json" | grep -q . || fail "$name: no reason in the record"
  echo "ok: $name caught: $(jq -r .reason "$dir/out.json")"
}

echo "== unmodified kernels from disk pass"
run "$src/kernels" --family heat2d --grid grid:257x129 --precision single || fail "heat2d from disk: $(tail -1 "$dir/out.txt")"
run "$src/kernels" --family fv-surface --grid grid:9x7x5 --kernel fv-passes || fail "fv-surface from disk: $(tail -1 "$dir/out.txt")"

echo "== heat2d: an update that leaves T as it was (passed a short transient in single precision once)"
mutant heat-noop grid/heat2d.cl \
  's|const REAL v = heat_update(i, j, nx, ny, inv_dt, dx, dy, gx, gy, tn, t_in);|const REAL v = t_in[HEAT_AT(i, j)];|' \
  > "$dir/heat-noop.path"
expect_wrong heat-noop --family heat2d --grid grid:1001x1001 --precision single
expect_wrong heat-noop --family heat2d --grid grid:257x129 --kernel heat-jacobi --param ORDER=1

echo "== heat2d: the device reduction reports half the largest change (a convergence test that stops early)"
mutant heat-reduce grid/heat2d.cl '0,/red\[lid\] = change;/s||red[lid] = change * (REAL)0.5;|' \
  > "$dir/heat-reduce.path"
expect_wrong heat-reduce --family heat2d --grid grid:37x23 --kernel heat-jacobi

echo "== fv-surface: the Rusanov dissipation dropped (in the helper fv_surface.cl includes: read from disk too)"
mutant fv-nodiss grid/rusanov.h 's|hs \* (uR\[v\] - uL\[v\])|hs * (uR[v] - uR[v])|' > "$dir/fv-nodiss.path"
for k in fv-passes fv-atomic fv-gather; do
  expect_wrong fv-nodiss --family fv-surface --grid grid:9x7x5 --kernel "$k"
done

[ -n "$solver_test" ] || { echo "ok (no solver test given)"; exit 0; }
solver() { # KERNEL_DIR TESTS -> the device solver test's exit status (only the tests the glob
  # TESTS names: each mutant against the comparison that runs the kernel it breaks); output in
  # $dir/solver.txt
  set +e
  FB_TEST_ONLY=$2 FLOWBENCH_KERNEL_DIR=$1 "$solver_test" opencl > "$dir/solver.txt" 2>&1
  local rc=$?
  set -e
  return $rc
}
expect_solver_caught() { # NAME TESTS
  local rc=0
  solver "$(cat "$dir/$1.path")" "$2" || rc=$?
  [ "$rc" -eq 1 ] || fail "$1: the solver comparison exited $rc, expected 1: $(tail -3 "$dir/solver.txt")"
  grep -q FAILED "$dir/solver.txt" || fail "$1: no failed comparison in: $(tail -3 "$dir/solver.txt")"
  echo "ok: $1 caught: $(grep -m1 -B2 'FAILED  \]' "$dir/solver.txt" | head -1)"
}

# The control: the very comparisons the mutants below run (all at level 0),
# with the unmodified kernels read from disk, pass; so a mutant's failure is
# its bug's. (unit.test_solver_device runs the level-1 one, from the
# embedded sources: the same text.)
echo "== ns: the unmodified solver kernels from disk match the OpenMP solver"
solver "$src/kernels" "test_cavity_level0*" || fail "solver kernels from disk: $(tail -3 "$dir/solver.txt")"
grep -q "test_cavity_level0_spmv_multirow_rcm" "$dir/solver.txt" || fail "the control ran too few comparisons"

echo "== ns: the viscous term dropped from the momentum right-hand side"
mutant ns-inviscid ns/ns.cl 's|nu \* (lxx + lyy + lzz)|(REAL)0|' > "$dir/ns-inviscid.path"
expect_solver_caught ns-inviscid test_cavity_level0

echo "== ns: the classic CG's r.z dot product halved"
mutant ns-halfdot ns/ns.cl 's|zr += zi \* ri, rr += ri \* ri;|zr += (REAL)0.5 * zi * ri, rr += ri * ri;|' > "$dir/ns-halfdot.path"
expect_solver_caught ns-halfdot test_cavity_level0_classic_cg

echo "== ns: the single-reduction CG's (r, u) halved"
mutant ns-halfgamma ns/ns.cl 's|gamma += ri \* ui,|gamma += (REAL)0.5 * ri * ui,|' > "$dir/ns-halfgamma.path"
expect_solver_caught ns-halfgamma test_cavity_level0

echo "== ns: the pipelined CG's recurrence y = A M^-1 z loses its beta y term (n drifts from A M^-1 w)"
mutant ns-pipe-y ns/ns.cl 's|const REAL yi = t + beta \* y\[i\],|const REAL yi = t,|' > "$dir/ns-pipe-y.path"
expect_solver_caught ns-pipe-y test_cavity_level0_pipelined_cg

echo "== ns: the (w, u) dot product after the SpMV family's product halved (CG_SPMV's ns_cg1_dots)"
mutant ns-halfdelta ns/ns.cl 's|delta += w\[i\] \* ui,|delta += (REAL)0.5 * w[i] * ui,|' > "$dir/ns-halfdelta.path"
expect_solver_caught ns-halfdelta 'test_cavity_level0_spmv*'
echo "ok"
