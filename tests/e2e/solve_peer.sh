#!/usr/bin/env bash
# solve_peer.sh FLOWBENCH DIR - `flowbench solve --peer viennacl` end to end
# on PoCL: cavity level 0 for 2 steps, then the last pressure system solved
# by flowbench's device CG and ViennaCL's CG. Both must converge (true
# residuals within 10x the tolerance), agree (relative difference below
# 1e-4 with the means removed) and take iteration counts within 25% of
# each other, also on a renumbered device; the record carries the "peer" object. --peer with openmp is
# refused with one line. Skipped (77) when ViennaCL or an OpenCL device is
# missing.
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
if out=$("$bin" solve cavity --peer viennacl --steps 1 --no-stream --quiet 2>&1); then
  echo "FAIL: --peer viennacl on openmp ran"; exit 1
fi
grep -q "flowbench: --peer viennacl runs on ViennaCL's OpenCL backend: give --backend opencl\[:P.D\], not openmp" <<<"$out" ||
  { echo "FAIL: --peer with openmp: $out"; exit 1; }
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
  jq -e '.peer as $p | $p.name == "viennacl" and $p.system.rows == 3375 and $p.system.singular
       and $p.flowbench.rel_residual <= 10 * $p.tol and $p.viennacl.rel_residual <= 10 * $p.tol
       and $p.solution_rel_diff < 1e-4 and $p.flowbench.its > 0 and $p.viennacl.its > 0
       and (($p.viennacl.its - $p.flowbench.its) | fabs) <= 0.25 * $p.flowbench.its
       and $p.flowbench.total_s > 0 and $p.viennacl.total_s > 0 and $p.viennacl.spmv_s > 0
       and $p.flowbench.spmv_s > 0' "$dir/record.json" > /dev/null ||
    { echo "FAIL: peer record"; jq .peer "$dir/record.json"; exit 1; }
  grep -q "ViennaCL CG (jacobi_precond)" "$dir/table.txt" || { echo "FAIL: no peer table"; exit 1; }
done
echo "solve --peer viennacl: both CGs converge and agree; openmp refused"
