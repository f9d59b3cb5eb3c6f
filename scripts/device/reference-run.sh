#!/usr/bin/env bash
# reference-run.sh OUTDIR - on a GPU node, with build-gpu/ and .devlibs/ from
# scripts/device/bundle.sh beside the source: the whole test suite (CUDA tests
# included), then the reference benchmarks committed under results/reference/:
#   stream (cuda double and single; openmp on the node's CPU),
#   every SpMV kernel and the cuSPARSE peers on the cavity level-2 Laplacian
#   (gen:cube:57) and on gen:cube:120 (well beyond a 50 MB L2), CSR and
#   4x4 blocks, double and single,
#   the csr-multirow space (the paper's brute force), csr-vector's and
#   bcsr-lanes', the best kernels with a cold L2,
#   the SpMV targets of issue 23 (spmv-targets-run.sh beside this script:
#   every kernel, auto and cuSPARSE on cube 57 and 120, scalar, 4x4 and
#   5x5, both precisions, warm and cold; the sell, bcsr-warp and bcsr-lanes
#   spaces; OUTDIR/spmv-targets.md and a relearned OUTDIR/spmv_auto_rule.h),
#   the OpenCL backend on the NVIDIA OpenCL driver when the node has one,
#   and the Navier-Stokes solver on every backend (solve --compare: openmp,
#   cuda, opencl) on cavity levels 0-2 and Ahmed (results/ahmed.msh when
#   carried, else meshed here when gmsh is installed), with the paper's
#   tables in OUTDIR/solve-*.txt and the speedup and time-split figures in
#   OUTDIR/plots/; its device axes swept and tuned on cuda
#   (OUTDIR/sweep-*.txt, OUTDIR/tuning.json) and run tuned; ViennaCL's CG
#   beside flowbench's on the NVIDIA OpenCL driver (OUTDIR/peer-*.txt);
#   the solver on 2 MPI ranks sharing cuda:0 against one process when the
#   node has mpirun (OUTDIR/solve-ranks-*.txt).
# Every record is appended to OUTDIR/results.jsonl as it completes, each with
# its energy (docs/measurement.md: NVML on the GPU - joules per run, GFLOP/J,
# power, clocks, throttle reasons - and RAPL on the CPU where readable); the
# SpMV variants' GFLOP/J beside GB/s and the solver's joules per step per
# backend are in OUTDIR/report.md and OUTDIR/plots/ (energy-*.png, stepenergy-*.png), the
# GPU's power and clock state before and after in OUTDIR/nvidia-smi-power-*.txt.
set -uo pipefail
out=${1:?usage: reference-run.sh OUTDIR}
mkdir -p "$out"
root=$PWD
bin=$root/build-gpu/flowbench
export LD_LIBRARY_PATH=$root/.devlibs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=close OMP_PLACES=cores

# The NVIDIA OpenCL driver, when the node registers no ICD for it.
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
  mkdir -p "$root/.icd" && echo libnvidia-opencl.so.1 >"$root/.icd/nvidia.icd"
  export OCL_ICD_VENDORS=$root/.icd
fi
# ctest keeps the configure machine's absolute paths.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build-gpu/CMakeCache.txt)
if [ "$src" != "$root" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"; fi

nvidia-smi >"$out/nvidia-smi.txt" 2>&1
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >"$out/nvidia-smi-power-before.txt" 2>&1
{ "$bin" devices; "$bin" devices --json; } >"$out/devices.txt" 2>&1
head -n 12 "$out/devices.txt"

echo "== ctest"
ctest --test-dir build-gpu -j 8 --output-on-failure --timeout 300 >"$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|\*\*\*|Failed|Not Run" "$out/ctest.log" | tail -n 25

res=$out/results.jsonl
log=$out/bench.log
spmv() { "$bin" spmv --out "$res" "$@" >>"$log" 2>&1 || echo "FAILED ($?): spmv $*" | tee -a "$log"; }

echo "== stream"
for p in double single; do "$bin" stream --backend cuda --precision $p --out "$res" >>"$log" 2>&1; done
"$bin" stream --backend openmp --out "$res" >>"$log" 2>&1

echo "== spmv variants and peers (scripts/spmv-study.sh)"
for b in cuda openmp; do
  scripts/spmv-study.sh "$bin" "$res" $b gen:cube:57 gen:cube:120 >>"$log" 2>&1 || echo "FAILED: spmv-study $b" | tee -a "$log"
done

echo "== csr-multirow space on gen:cube:57 (the paper's brute force)"
for w in 5 6 7 8 9 10; do
  for r in $(seq 0 $w); do
    spmv --matrix gen:cube:57 --backend cuda --kernel csr-multirow  \
      --param WORKGROUP_SIZE_BITS=$w --param ROWS_PER_WORKGROUP_BITS=$r
  done
done
echo "== csr-vector space on gen:cube:57"
for v in 1 2 4 8 16 32; do
  for wg in 128 256 512; do
    spmv --matrix gen:cube:57 --backend cuda --kernel csr-vector  --param VECTOR_SIZE=$v --param WG_SIZE=$wg
  done
done

echo "== bcsr-lanes space on gen:cube:57:block=4"
for bpi in 1 2 4 8; do
  for g in 1 2 4 8 16; do
    spmv --matrix gen:cube:57:block=4 --backend cuda --kernel bcsr-lanes  \
      --param BLOCKS_PER_ITER=$bpi --param BROWS_PER_GROUP=$g
  done
done
echo "== cold L2 (flushed before every sample) on gen:cube:57"
for k in csr-vector peer:cusparse; do spmv --matrix gen:cube:57 --backend cuda --kernel $k --cold; done
for k in bcsr-lanes peer:cusparse-bsr; do spmv --matrix gen:cube:57:block=4 --backend cuda --kernel $k --cold; done

echo "== the SpMV targets of issue 23"
FLOWBENCH=$bin scripts/device/spmv-targets-run.sh "$out" cuda

echo "== opencl on the NVIDIA driver"
if "$bin" devices 2>/dev/null | grep -q '^opencl:'; then
  "$bin" stream --backend opencl --out "$res" >>"$log" 2>&1
  for k in csr-scalar csr-vector csr-multirow; do spmv --matrix gen:cube:57 --backend opencl --kernel $k; done
  for k in bcsr bcsr-lanes bcsr-warp; do spmv --matrix gen:cube:57:block=4 --backend opencl --kernel $k; done
  spmv --matrix gen:cube:57 --backend opencl --kernel sell
  # cold on OpenCL: the flush takes CUDA's L2 size, not the driver's 4.1 MiB (flush_size.h)
  for k in csr-vector sell; do spmv --matrix gen:cube:57 --backend opencl --kernel $k --cold; done
else
  echo "no OpenCL device on this node" | tee -a "$log"
fi
echo "== the solver on every backend (the paper's tables)"
solve() { # NAME ARGS...: the tables into OUTDIR/solve-NAME.txt
  local name=$1; shift
  "$bin" solve "$@" --compare --quiet --out "$res" >"$out/solve-$name.txt" 2>&1 ||
    echo "FAILED ($?): solve $*" | tee -a "$log"
}
for level in 0 1 2; do solve "cavity-l$level" cavity --level "$level"; done
# The device axes on the GPU (the defaults were chosen on PoCL): a sweep of
# reductions, CG variants, edge layout and node order, each point checked
# against the first; --tune stores the fastest in OUTDIR/tuning.json, and
# --tuned runs it (its record carries which entry it took).
sweep() { # NAME ARGS...: the sweep's table into OUTDIR/sweep-NAME.txt
  local name=$1; shift
  "$bin" solve "$@" --backend cuda --no-stream --tune --cache "$out/tuning.json" --out "$res" \
    --param GROUP_REDUCE=0,1 --param CG_VARIANT=0,1,2 --param EDGE_LAYOUT=0,1 --param RENUMBER=0,1,2 \
    >"$out/sweep-$name.txt" 2>&1 || echo "FAILED ($?): sweep $name" | tee -a "$log"
  "$bin" solve "$@" --backend cuda --tuned --cache "$out/tuning.json" --quiet --out "$res" \
    >"$out/solve-$name-cuda-tuned.txt" 2>&1 || echo "FAILED ($?): solve $name --tuned" | tee -a "$log"
}
sweep cavity-l2 cavity --level 2 --steps 10
# ViennaCL's CG beside flowbench's on the NVIDIA OpenCL driver (the paper: 6x)
peer() { # NAME ARGS...
  local name=$1; shift
  "$bin" solve "$@" --backend opencl --peer viennacl --quiet --no-stream --out "$res" \
    >"$out/peer-$name.txt" 2>&1 || echo "FAILED ($?): peer $name" | tee -a "$log"
}
for level in 0 1 2; do peer "cavity-l$level" cavity --level "$level" --steps 5; done
# Ahmed: the mesh carried in results/ahmed.msh (scripts/mesh-ahmed.sh), or
# meshed here when the node has gmsh
ahmed=$root/results/ahmed.msh
if [ -s "$ahmed" ] || { command -v gmsh >/dev/null && scripts/mesh-ahmed.sh "$out/ahmed.msh" >>"$log" 2>&1 && ahmed=$out/ahmed.msh; }; then
  solve ahmed ahmed --mesh "$ahmed" --steps 50
  sweep ahmed ahmed --mesh "$ahmed" --steps 10
  peer ahmed ahmed --mesh "$ahmed" --steps 5
else
  echo "no Ahmed mesh (no results/ahmed.msh, gmsh missing or failed): Ahmed not run" | tee -a "$log"
fi
# The decomposed solver on CUDA: 2 ranks sharing the node's first GPU,
# their fields against one process (docs/scaling.md). Needs an MPI launcher
# on the node (bundle.sh carries the MPI library, not mpirun).
echo "== the solver on 2 ranks sharing cuda:0"
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  "$bin" solve cavity --level 1 --steps 10 --backend cuda:0 --no-stream --quiet --vtk "$out/ranks-1.vtu" \
    --out "$res" >"$out/solve-ranks-1.txt" 2>&1 || echo "FAILED: solve cuda one process" | tee -a "$log"
  mpirun -np 2 "$bin" solve cavity --level 1 --steps 10 --backend cuda:0 --no-stream --quiet \
    --vtk "$out/ranks-2.vtu" --out "$res" >"$out/solve-ranks-2.txt" 2>&1 || echo "FAILED: solve cuda 2 ranks" | tee -a "$log"
  read -r du dp <<< "$(scripts/vtu-diff.sh "$out/ranks-1.vtu" "$out/ranks-2.vtu")"
  echo "2 ranks on cuda:0 against one process: velocity $du, pressure $dp (limit 1e-8)" | tee "$out/solve-ranks-check.txt"
  rm -f "$out/ranks-1.vtu" "$out/ranks-2.vtu"
else
  echo "no mpirun on this node: the decomposed solver was not run on CUDA" | tee -a "$log"
fi
"$bin" plot "$res" --out "$out/plots" >>"$log" 2>&1 || echo "FAILED: plot" | tee -a "$log"
grep -h -A4 "speedup over" "$out"/solve-*.txt

echo "== energy: GFLOP/J beside GB/s per SpMV variant, the solver's joules per step (report.md)"
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE >"$out/nvidia-smi-power-after.txt" 2>&1
"$bin" report "$res" --plots "$out/plots" --out "$out/report.md" >>"$log" 2>&1 || echo "FAILED: report" | tee -a "$log"
for src in nvml rapl none; do
  grep -c "\"source\": *\"$src\"" "$res" | sed "s/^/records with energy source $src: /"
done
grep -c '"throttled": *true' "$res" | sed 's/^/records measured while throttled: /'
grep -h -e "^energy unavailable" -e "^throttling not checked" "$log" "$out"/solve-*.txt | sort -u | head -n 5

grep -c '"status": *"ok"' "$res" | sed 's/^/ok records: /'
grep -E "FAILED|wrong" "$log" | head -n 20
