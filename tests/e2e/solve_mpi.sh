#!/usr/bin/env bash
# solve_mpi.sh FLOWBENCH SOURCE_DIR DIR - the solver on several MPI ranks
# ($FB_MPIEXEC, Open MPI on loopback): cavity level 0 on 1, 2 and 4 ranks
# and level 1 on 4, ethier-steinman (time-dependent boundary values, a pressure
# reference) and Ahmed (outlet pressure, slip walls; when gmsh is here) on 2,
# each equal to the single-process run: velocity and pressure within 1e-8
# of the field's largest value (docs/scaling.md), CG iterations within one
# per step; the record's "mpi" part; when an OpenCL device is listed, the
# device solver on 2 ranks sharing it (docs/solver.md, "Device
# backends on several ranks") equal to the single-process OpenCL run, with
# both CGs and in the mesh's order; what cannot run on several ranks
# refused in one line by rank 0; the scaling study's records; the energy of
# ranks sharing one meter counted once.
set -euo pipefail
bin=$1; src=$2; dir=$3
mpiexec=${FB_MPIEXEC:-mpirun}
# a GPU node that got this build carries no MPI launcher: said, not failed
command -v "$mpiexec" > /dev/null || { echo "skipped: no MPI launcher ($mpiexec) on this machine"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"

# run CASE ARGS... on 1 process (no launcher: $tag-single) and on each
# count in $counts; compare
check_case() {
  local tag=$1; shift
  "$bin" solve "$@" --no-stream --quiet --vtk "$dir/$tag-single.vtu" --out "$dir/$tag-single.jsonl" > /dev/null
  for p in $counts; do
    "$mpiexec" -np "$p" "$bin" solve "$@" --no-stream --quiet --vtk "$dir/$tag-$p.vtu" --out "$dir/$tag-$p.jsonl" \
      > "$dir/$tag-$p.txt" 2>&1 || { echo "FAIL: $tag on $p ranks:"; tail -5 "$dir/$tag-$p.txt"; exit 1; }
    read -r du dp <<< "$("$src/scripts/vtu-diff.sh" "$dir/$tag-single.vtu" "$dir/$tag-$p.vtu")"
    awk -v u="$du" -v p="$dp" 'BEGIN { exit !(u != "missing" && u <= 1e-8 && p <= 1e-8) }' ||
      { echo "FAIL: $tag on $p ranks differs from one process: velocity $du, pressure $dp (limit 1e-8)"; exit 1; }
    jq -e -s --argjson p "$p" --slurpfile one "$dir/$tag-single.jsonl" '
        ([$one[] | select(.type == "measurement")][0].cg.its_per_step) as $ref
        | [.[] | select(.type == "measurement")][0]
        | .status == "ok" and (.cg.its_per_step | length) == ($ref | length)
          and ([.cg.its_per_step, $ref] | transpose | all((.[0] - .[1]) | fabs <= 1))
          and (if $p > 1 then .mpi.ranks == $p and (.mpi.hosts | length) == $p and .mpi.partition.nodes_min > 0
                 and .mpi.halo_bytes_per_step > 0 and .mpi.halo_messages_per_step > 0
                 and .mpi.imbalance.step2 >= 1 and .mpi.halo_s.total >= 0 else .mpi == null end)' \
      "$dir/$tag-$p.jsonl" > /dev/null ||
      { echo "FAIL: $tag on $p ranks: CG iterations or the mpi part of the record"; jq -c '.cg, .mpi' "$dir/$tag-$p.jsonl"; exit 1; }
    grep -q "load balance" "$dir/$tag-$p.txt" || [ "$p" -eq 1 ] || { echo "FAIL: $tag: no mpi lines in the table"; exit 1; }
  done
  echo "ok: $tag equals its single-process run on ranks: $counts"
}

# Level 0 on every count (1 rank under the launcher too: its record has no
# "mpi" part); level 1, whose partition has 7 times the nodes, on 4 ranks
# only: on 2 it would prove nothing level 0 on 2 and level 1 on 4 do not.
counts="1 2 4" check_case cavity-l0 cavity --level 0 --steps 5
counts="4" check_case cavity-l1 cavity --level 1 --steps 3
counts="2" check_case es ethier-steinman --level 0 --steps 3
if command -v gmsh > /dev/null; then
  "$src/scripts/mesh-ahmed.sh" "$dir/ahmed4.msh" 4 > /dev/null
  counts="2" check_case ahmed ahmed --mesh "$dir/ahmed4.msh" --steps 2
fi

# Every rank on the one PoCL device (--backend opencl: local rank modulo one
# device): one PoCL thread each, so 2 ranks on 2 cores do not fight over them.
# The single-reduction CG in RCM order on 2 ranks; then the classic CG in
# the mesh's order on 2: another launch sequence and another node order
# through the same halo exchange. Ranks with several neighbours each are
# the openmp runs' above (level 0 and 1 on 4 ranks): since the one driver
# the openmp baseline runs this launch sequence too, so the device runs
# need not repeat 4 ranks (4 PoCL ranks on 2 cores took 5-8 s). The CG
# variant and the order are independent (the CG's launches do not see the
# order), so one run holds both.
has_opencl=0
"$bin" devices 2> /dev/null | grep -q '^opencl:[0-9]' && has_opencl=1
if [ "$has_opencl" -eq 1 ]; then
  export POCL_MAX_PTHREAD_COUNT=1
  counts="2" check_case cl-cavity-l0 cavity --level 0 --steps 5 --backend opencl
  counts="2" check_case cl-cavity-l0-cg0-mesh cavity --level 0 --steps 5 --backend opencl --param CG_VARIANT=0 \
    --param RENUMBER=0
  jq -e -s '[.[] | select(.type == "measurement")][0] | .backend == "opencl" and .params.CG_VARIANT == 0
            and .params.RENUMBER == 0 and .launches_per_cg_iteration == 4' "$dir/cl-cavity-l0-cg0-mesh-2.jsonl" \
    > /dev/null ||
    { echo "FAIL: the device run's record on 2 ranks"; exit 1; }
  unset POCL_MAX_PTHREAD_COUNT
fi

# what runs on one rank only: refused by rank 0 in one line, exit 2, no hang
refused() {
  local what=$1; shift
  set +e
  timeout 60 "$mpiexec" -np 2 "$bin" "$@" > "$dir/refused.out" 2> "$dir/refused.err"
  local rc=$?
  set -e
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { echo "FAIL: $what: exit $rc (0 = accepted, 124 = hung)"; exit 1; }
  [ "$(grep -c '^flowbench:' "$dir/refused.err")" -eq 1 ] && grep -q -- "$what" "$dir/refused.err" ||
    { echo "FAIL: $what: expected one line from rank 0"; cat "$dir/refused.err"; exit 1; }
}
refused "CG_VARIANT=2 (the pipelined CG) runs on one rank" solve cavity --steps 1 --no-stream --backend opencl \
  --param CG_VARIANT=2
refused "give one --backend" solve cavity --steps 1 --no-stream --compare
refused "does not run on several ranks" devices
refused "--peer viennacl runs on one rank" solve cavity --steps 1 --no-stream --backend opencl --peer viennacl
echo "ok: refusals on several ranks"

# the scaling study: one record per count with its scaling part
"$bin" solve cavity --steps 2 --no-stream --scaling strong --ranks 1,2 --launcher "$mpiexec -np {P}" \
  --out "$dir/scaling.jsonl" > "$dir/scaling.txt"
jq -e -s '[.[] | select(.type == "measurement")] | length == 2
          and (map(.scaling.ranks) == [1, 2]) and .[0].scaling.efficiency == 1 and (.[1].scaling.speedup > 0)
          and .[1].mpi.ranks == 2 and all(.scaling.mode == "strong")' "$dir/scaling.jsonl" > /dev/null ||
  { echo "FAIL: strong scaling records"; cat "$dir/scaling.txt"; exit 1; }
"$bin" solve cavity --steps 2 --no-stream --scaling weak --ranks 1,2 --launcher "$mpiexec -np {P}" \
  --out "$dir/weak.jsonl" > "$dir/weak.txt"
jq -e -s '[.[] | select(.type == "measurement")] | map(.mesh.nodes) == [3375, 6859]
          and all(.scaling.mode == "weak")' "$dir/weak.jsonl" > /dev/null ||
  { echo "FAIL: weak scaling grows the cube 15 -> 19 nodes per side"; cat "$dir/weak.txt"; exit 1; }
grep -q "efficiency" "$dir/scaling.txt" || { echo "FAIL: no scaling table"; exit 1; }
echo "ok: scaling studies"

# energy on several ranks (docs/solver.md): each rank reads its meter over
# its time loop and the ranks' readings are one, a meter shared on a host
# counted once (the arithmetic: unit.test_energy). Here both ranks are on
# this host's RAPL, a fake powercap tree: one meter, ranks [0, 1].
pc=$dir/powercap
mkdir -p "$pc/intel-rapl:0"
echo package-0 > "$pc/intel-rapl:0/name"; echo 1000000 > "$pc/intel-rapl:0/energy_uj"
FLOWBENCH_POWERCAP_ROOT=$pc "$mpiexec" -np 2 "$bin" solve cavity --steps 2 --no-stream --quiet --out "$dir/energy.jsonl" \
  > "$dir/energy.txt" 2>&1 || { echo "FAIL: energy on 2 ranks:"; tail -5 "$dir/energy.txt"; exit 1; }
jq -e 'select(.type == "measurement") | .energy | .source == "rapl" and (.meters | length) == 1
       and .meters[0].ranks == [0, 1] and (.meters[0].meter | endswith("/rapl"))
       and .joules_to_solution == .meters[0].joules' "$dir/energy.jsonl" > /dev/null ||
  { echo "FAIL: energy on 2 ranks sharing RAPL: $(jq -c 'select(.type == "measurement") | .energy' "$dir/energy.jsonl")"; exit 1; }
grep -q '^  energy (rapl counter): ' "$dir/energy.txt" || { echo "FAIL: no energy line"; cat "$dir/energy.txt"; exit 1; }
FLOWBENCH_POWERCAP_ROOT=$dir/absent "$mpiexec" -np 2 "$bin" solve cavity --steps 2 --no-stream --quiet \
  --out "$dir/no-energy.jsonl" > "$dir/no-energy.txt" 2>&1 || { echo "FAIL: 2 ranks without RAPL"; exit 1; }
jq -e 'select(.type == "measurement") | .energy | .source == "none"
       and (.unavailable | startswith("rank 0: RAPL: '"$dir"'/absent"))' "$dir/no-energy.jsonl" > /dev/null ||
  { echo "FAIL: energy unavailable on 2 ranks: $(jq -c 'select(.type == "measurement") | .energy' "$dir/no-energy.jsonl")"; exit 1; }
echo "ok: energy on several ranks"
