#!/usr/bin/env bash
# petsc_mpi.sh FLOWBENCH SOURCE_DIR DIR - PETSc as its users run it on a
# node, one MPI rank a core ($FB_MPIEXEC, 2 ranks on loopback):
# - `solve --peer petsc`: PETSc's MPIAIJ CG over the ranks beside
#   flowbench's CG on the ranks' parts: both converge on the whole system,
#   agree, take iteration counts within 25%, the record says 2 ranks, and
#   rank 0 prints one table;
# - `spmv --kernel peer:petsc`: MatMult over the ranks, y checked against
#   the reference, one record (from rank 0) with its mpi part, and every
#   other kernel refused on ranks in one line.
# Skipped (77) without a launcher or without PETSc in this build.
set -euo pipefail
bin=$1; dir=$3
mpiexec=${FB_MPIEXEC:-mpirun}
command -v "$mpiexec" > /dev/null || { echo "skipped: no MPI launcher ($mpiexec) on this machine"; exit 77; }
"$bin" spmv --list | grep -q "^peer:petsc .*openmp backend" || { echo "skipped: PETSc not in this build"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"

"$mpiexec" -np 2 "$bin" solve cavity --level 0 --steps 2 --no-stream --quiet --peer petsc --out "$dir/solve.jsonl" \
  > "$dir/solve.txt" 2>&1 || { echo "FAIL: solve --peer petsc on 2 ranks:"; tail -5 "$dir/solve.txt"; exit 1; }
jq -e '.peer as $p | $p.name == "petsc" and $p.ranks == 2 and $p.system.rows == 3375 and $p.system.singular
       and $p.flowbench.rel_residual <= 10 * $p.tol and $p.petsc.rel_residual <= 10 * $p.tol
       and $p.solution_rel_diff < 1e-4 and $p.flowbench.its > 0
       and (($p.petsc.its - $p.flowbench.its) | fabs) <= 0.25 * $p.flowbench.its
       and $p.petsc.total_s > 0 and $p.petsc.spmv_s > 0 and $p.flowbench.spmv_s > 0
       and ($p.device | test("2 ranks of one core each"))' "$dir/solve.jsonl" > /dev/null ||
  { echo "FAIL: the petsc peer record on 2 ranks"; jq .peer "$dir/solve.jsonl"; exit 1; }
[ "$(grep -c '^peer petsc' "$dir/solve.txt")" -eq 1 ] || { echo "FAIL: not one peer table"; exit 1; }
echo "ok: solve --peer petsc on 2 ranks"

"$mpiexec" -np 2 "$bin" spmv --matrix gen:cube:16 --kernel peer:petsc --out "$dir/spmv.jsonl" > "$dir/spmv.txt" 2>&1 ||
  { echo "FAIL: spmv peer:petsc on 2 ranks:"; tail -5 "$dir/spmv.txt"; exit 1; }
jq -e -s '[.[] | select(.type == "measurement")] | length == 1 and (.[0] | .kernel == "peer:petsc"
          and .status == "ok" and .check.ok and .mpi.ranks == 2 and .stats.n == 30 and .gbs > 0)' \
  "$dir/spmv.jsonl" > /dev/null || { echo "FAIL: the spmv record on 2 ranks"; cat "$dir/spmv.jsonl"; exit 1; }
[ "$(grep -c '^  check: ok' "$dir/spmv.txt")" -eq 1 ] || { echo "FAIL: not one checked table"; exit 1; }
set +e
timeout 60 "$mpiexec" -np 2 "$bin" spmv --matrix gen:cube:16 --kernel csr-scalar > "$dir/refused.out" 2> "$dir/refused.err"
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { echo "FAIL: csr-scalar on 2 ranks: exit $rc (0 = ran, 124 = hung)"; exit 1; }
[ "$(grep -c '^flowbench:' "$dir/refused.err")" -eq 1 ] && grep -q "only --kernel peer:petsc" "$dir/refused.err" ||
  { echo "FAIL: csr-scalar on 2 ranks: expected one line from rank 0"; cat "$dir/refused.err"; exit 1; }
# a matrix that is not square: refused by rank 0 in one line naming it,
# exit 2, before PETSc (which aborted the job with exit 3, the file unnamed)
set +e
timeout 60 "$mpiexec" -np 2 "$bin" spmv --matrix "$2/matrices/rectangular.mtx" --kernel peer:petsc --no-stream \
  > "$dir/rect.out" 2> "$dir/rect.err"
rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(grep -c '^flowbench:' "$dir/rect.err")" -eq 1 ] &&
  grep -q "rectangular.mtx: peer:petsc on 2 ranks takes a square matrix, and this one is 3 x 6" "$dir/rect.err" &&
  ! grep -q "PETSC ERROR" "$dir/rect.err" ||
  { echo "FAIL: a 3 x 6 matrix on 2 ranks: exit $rc"; cat "$dir/rect.err"; exit 1; }
echo "ok: spmv peer:petsc on 2 ranks, checked; other kernels and a matrix not square refused"
