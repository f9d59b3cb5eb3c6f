#!/usr/bin/env bash
# solve_peer.sh FLOWBENCH DIR - `flowbench solve --peer petsc|viennacl`
# end to end: cavity level 0 for 2 steps, then the last pressure system
# solved by flowbench's CG and the peer's: PETSc's KSPCG beside the OpenMP
# baseline (when this build has PETSc), ViennaCL's on PoCL beside the
# device CG (also on a renumbered device). Both must converge (true
# residuals within 10x the tolerance), agree (relative difference below
# 1e-4 with the means removed) and take iteration counts within 25% of
# each other; the record carries the "peer" object. --peer viennacl with
# openmp is refused with one line. Skipped (77) when ViennaCL or an OpenCL
# device is missing (after the PETSc part).
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
if out=$("$bin" solve cavity --peer viennacl --steps 1 --no-stream --quiet 2>&1); then
  echo "FAIL: --peer viennacl on openmp ran"; exit 1
fi
grep -q "flowbench: --peer viennacl runs beside the opencl backend: give --backend opencl\[:P.D\], not openmp" <<<"$out" ||
  { echo "FAIL: --peer with openmp: $out"; exit 1; }
# the peer's side of the record agrees with flowbench's: check_peer FILE NAME
check_peer() {
  jq -e --arg n "$2" '.peer as $p | $p.name == $n and $p.system.rows == 3375 and $p.system.singular
       and $p.flowbench.rel_residual <= 10 * $p.tol and $p[$n].rel_residual <= 10 * $p.tol
       and $p.solution_rel_diff < 1e-4 and $p.flowbench.its > 0 and $p[$n].its > 0
       and (($p[$n].its - $p.flowbench.its) | fabs) <= 0.25 * $p.flowbench.its
       and $p.flowbench.total_s > 0 and $p[$n].total_s > 0 and $p[$n].spmv_s > 0
       and $p.flowbench.spmv_s > 0' "$1" > /dev/null || { echo "FAIL: $2 peer record"; jq .peer "$1"; exit 1; }
}
rc=0
"$bin" solve cavity --level 0 --steps 2 --no-stream --quiet --peer petsc --json > "$dir/petsc.json" 2> "$dir/petsc.txt" ||
  rc=$?
if [ "$rc" -ne 0 ] && grep -q "not built" "$dir/petsc.txt"; then
  echo "petsc part skipped: $(grep 'not built' "$dir/petsc.txt")"
else
  [ "$rc" -eq 0 ] || { echo "FAIL: solve --peer petsc: $(tail -3 "$dir/petsc.txt")"; exit 1; }
  check_peer "$dir/petsc.json" petsc
  grep -q "one core (sequential AIJ)" "$dir/petsc.txt" && grep -q "PETSc KSPCG + PCJACOBI" "$dir/petsc.txt" ||
    { echo "FAIL: no petsc peer table"; exit 1; }
  jq -e '.peer.ranks == 1 and .peer.residuals == "on the host"' "$dir/petsc.json" > /dev/null ||
    { echo "FAIL: the one-process peer record's ranks and residuals"; exit 1; }
fi
if ! "$bin" devices | grep -q '^opencl:'; then echo "skipped: no OpenCL device"; exit 77; fi
# the defaults, and a renumbered device (the system comes back through the
# renumbering before it is rebuilt as CSR)
for point in "" "--param RENUMBER=2 --param EDGE_LAYOUT=1"; do
  rc=0
  # shellcheck disable=SC2086
  "$bin" solve cavity --level 0 --steps 2 --no-stream --quiet --backend opencl --peer viennacl --json $point \
    > "$dir/record.json" 2> "$dir/table.txt" || rc=$?
  if [ "$rc" -ne 0 ] && grep -q "not built" "$dir/table.txt"; then
    echo "skipped: $(grep 'not built' "$dir/table.txt")"; exit 77
  fi
  [ "$rc" -eq 0 ] || { echo "FAIL: solve --peer viennacl $point: $(tail -3 "$dir/table.txt")"; exit 1; }
  check_peer "$dir/record.json" viennacl
  grep -q "ViennaCL CG (jacobi_precond)" "$dir/table.txt" || { echo "FAIL: no peer table"; exit 1; }
done
echo "solve --peer petsc and viennacl: both CGs converge and agree; viennacl on openmp refused"
