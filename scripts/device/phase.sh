#!/usr/bin/env bash
# phase.sh [--cpu] [--tiny] [--budget SECONDS] PHASE OUTDIR - one phase of
# the device run (docs/device-run.md), sized for a short GPU allocation: each
# phase stays inside its time budget (default 450 s; scripts/device/call.sh
# gives each its share of one device command), writes its records as they
# complete, and ends with one archive OUTDIR/phaseN-NAME.tar.xz (everything
# the phase wrote) and one page OUTDIR/phaseN-NAME.md (what ran, how long,
# what failed). The phases, in order of value:
#   1 correctness  the CUDA and OpenCL instances of every family's tests and
#                  the device solver's (ctest labels cuda and opencl: the
#                  NVIDIA OpenCL driver where the node has one); no compile-
#                  only shard (CI runs those); a skipped device test fails
#                  the phase in GPU mode
#   2 solver       solve on openmp, cuda, then opencl (named, never "every
#                  backend that opens": a missing row fails the step) on
#                  cavity levels 0-2, one cuSPARSE SpMV, where the device's
#                  step goes kernel by kernel, and Ahmed where there is a
#                  mesh: the paper's Tables 4-7 with the energy column
#   3 spmv         the SpMV targets as one sweep (each matrix built once):
#                  the kernels no GPU has run first (sell, sell16, csr16,
#                  csr16-mixed, bcsr-warp, bcsr-lanes, auto), then every
#                  kernel and cuSPARSE on the
#                  L2-sized gen:cube:57 and DRAM-sized gen:cube:120, scalar
#                  and 4x4, double and single, warm and cold, the OpenMP
#                  baseline beside them, 5x5 blocks and the spaces last
#   4 studies      the solver's device axes swept, tuned and run tuned,
#                  ViennaCL's CG beside flowbench's, 2 ranks on one GPU, the
#                  grid studies, the paper's SpMV spaces
# A step that would start with under 10 s of budget left is skipped, a step
# that runs past the budget is stopped (its records so far stay): a phase
# cut off keeps what it finished, and run again on the same OUTDIR it skips
# the steps that ended ok and resumes the sweeps. Nothing is derived on the
# node (it has no jq or gnuplot): scripts/device/ingest.sh makes the tables
# back home.
#
# Modes: on a GPU node (default) the binary is build-gpu/flowbench with the
# libraries of .devlibs/ (scripts/device/bundle.sh); --cpu runs the same
# phases with PoCL's OpenCL in place of CUDA and no cuSPARSE, from build/
# (FLOWBENCH_BUILD=DIR for another build), to time them and keep them from
# rotting; --tiny shrinks every input so a phase takes seconds (CI).
set -uo pipefail

usage() { echo "usage: phase.sh [--cpu] [--tiny] [--budget SECONDS] 1|2|3|4 OUTDIR" >&2; exit 2; }
mode=gpu tiny=0 budget=${PHASE_BUDGET_S:-450}
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) mode=cpu; shift ;;
    --tiny) tiny=1; shift ;;
    --budget) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "phase.sh: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || usage
phase=$1 out=$2
case $phase in
  1) name=correctness ;; 2) name=solver ;; 3) name=spmv ;; 4) name=studies ;;
  *) echo "phase.sh: phase '$phase': expected 1, 2, 3 or 4" >&2; exit 2 ;;
esac
[[ $budget =~ ^[0-9]+$ ]] && [ "$budget" -ge 10 ] ||
  { echo "phase.sh: --budget '$budget': expected whole seconds, at least 10" >&2; exit 2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $mode = gpu ]; then build=${FLOWBENCH_BUILD:-$root/build-gpu}; else build=${FLOWBENCH_BUILD:-$root/build}; fi
bin=$build/flowbench
[ -x "$bin" ] || { echo "phase.sh: $bin: no flowbench binary (GPU mode: scripts/device/bundle.sh builds build-gpu/; --cpu: build/, or FLOWBENCH_BUILD=DIR)" >&2; exit 2; }
mkdir -p "$out" || { echo "phase.sh: $out: cannot create the output folder" >&2; exit 2; }
out=$(cd "$out" && pwd)
dir=$out/phase$phase-$name
mkdir -p "$dir"
res=$dir/results.jsonl log=$dir/phase.log steps_tsv=$dir/steps.tsv
start=$(date +%s)
deadline=$((start + budget))
nstep=0

# --- the node ----------------------------------------------------------------

# GPU nodes have the driver and the toolkit, not the Debian packages the
# build links: bundle.sh carries them in .devlibs/, which build-gpu's
# binaries find by their RPATH, so nothing else on the node (ctest, mpirun,
# nvidia-smi) loads Debian 12's libraries; the CUDA toolkit's libraries are
# found by flowbench's own search (harness/backends/dynlib.h). The node may
# register no ICD for NVIDIA's OpenCL driver.
setup_node() {
  if [ $mode = gpu ] && [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -z "${OCL_ICD_VENDORS:-}" ]; then
    mkdir -p "$dir/icd" && echo libnvidia-opencl.so.1 >"$dir/icd/nvidia.icd"
    export OCL_ICD_VENDORS=$dir/icd
  fi
  # ctest keeps the configure machine's absolute source path.
  local src
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
  if [ -n "$src" ] && [ "$src" != "$root" ] && [ ! -e "$src" ]; then
    mkdir -p "$(dirname "$src")" 2>/dev/null && ln -s "$root" "$src" 2>/dev/null
  fi
}

# machine.env: what ingest.sh files the phase under (KEY=value, one a line,
# read with sed, never sourced).
describe_machine() {
  local gpu=none driver=none
  if [ $mode = gpu ] && command -v nvidia-smi >/dev/null; then
    IFS=, read -r gpu driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
    driver=${driver# }
  fi
  {
    echo "phase=$phase"
    echo "phase_name=$name"
    echo "mode=$mode"
    echo "tiny=$tiny"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "gpu=${gpu:-none}"
    echo "driver=${driver:-none}"
    echo "host=$(hostname 2>/dev/null || echo unknown)"
    echo "cpus=$(nproc 2>/dev/null || echo 1)"
    echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
    echo "memory_kb=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\).*/\1/p' /proc/meminfo 2>/dev/null)"
    echo "kernel=$(uname -sr)"
    echo "flowbench=$("$bin" --version 2>/dev/null | head -n 1)"
    echo "budget_s=$budget"
  } >"$dir/machine.env"
  [ $mode = gpu ] && nvidia-smi >"$dir/nvidia-smi.txt" 2>&1
  { "$bin" devices; "$bin" devices --json; } >"$dir/devices.txt" 2>&1
  uptime >"$dir/uptime-before.txt" 2>&1
}

# --- steps -------------------------------------------------------------------

# The node's OpenMP baseline pinned, one thread per core, in the flowbench
# processes that run it (a VM's SMT siblings as one place would leave the
# CPU mode one thread); never exported: libgomp binds a process's first
# thread to the first place, so ctest's -j16 test processes would all
# compile NVRTC on one core.
pinned=()
[ $mode = gpu ] && pinned=(env "OMP_PROC_BIND=${OMP_PROC_BIND:-close}" "OMP_PLACES=${OMP_PLACES:-cores}")
unpinned=(env -u OMP_PROC_BIND -u OMP_PLACES)

# step NAME [--to FILE] COMMAND...: one external command inside the budget,
# its output appended to phase.log (or FILE in the phase folder), its end in
# steps.tsv (name, status, seconds) and a progress line on stderr.
step() {
  local sname=$1 to=$log; shift
  if [ "${1:-}" = --to ]; then to=$dir/$2; shift 2; fi
  nstep=$((nstep + 1))
  if awk -F'\t' -v n="$sname" '$1 == n { last = $2 } END { exit last != "ok" }' "$steps_tsv" 2>/dev/null; then
    progress "$sname" "already ok, not repeated"; return 0
  fi
  local left=$((deadline - $(date +%s))) t0 rc status
  if [ $left -lt 10 ]; then
    printf '%s\tskipped\t0\n' "$sname" >>"$steps_tsv"; progress "$sname" "skipped: the phase's budget is spent"; return 0
  fi
  t0=$(date +%s) running=$sname
  echo "== $sname: $*" >>"$log"
  # In the background, so that a signal to this script is handled now
  # (stop_step), not when the step ends.
  timeout --kill-after=10 "$left" "$@" >>"$to" 2>&1 &
  child=$!
  wait "$child"
  rc=$? child= running=
  case $rc in
    0) status=ok ;; 124 | 137) status="stopped at the budget" ;; *) status="failed ($rc)" ;;
  esac
  printf '%s\t%s\t%d\n' "$sname" "$status" $(($(date +%s) - t0)) >>"$steps_tsv"
  progress "$sname" "$status, $(($(date +%s) - t0)) s"
}

# SIGTERM (a device command's time-out) or Ctrl-C: the running step is
# stopped (timeout passes the signal on to its command), recorded as
# interrupted, and the phase ends with its page and archive (exit 130).
stop_step() {
  if [ -n "${child:-}" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
    printf '%s\tstopped (interrupted)\t%d\n' "$running" $(($(date +%s) - t0)) >>"$steps_tsv"
  fi
  exit 130
}

progress() { # NAME WHAT
  echo "phase $phase, step $nstep, $1: $2 ($((deadline - $(date +%s))) s of the budget left)" >&2
}

# --- the phases --------------------------------------------------------------

dev=cuda; [ $mode = cpu ] && dev=opencl   # the device: CUDA, or PoCL in the CPU mode
# Tiny inputs are for seeing the commands still run, not for figures: no
# stream triad, three samples.
quick_spmv=() quick_solve=() tiny_cavity=(cavity --cube 6 --steps 2)
[ $tiny = 1 ] && quick_spmv=(--no-stream --min-samples 3 --max-samples 3 --budget 0.05) quick_solve=(--no-stream)

phase_1() {
  # The device instances (labels cuda and opencl exactly: not cuda-compile,
  # whose NVRTC shards need no GPU and run in CI); the CPU mode's stand-in
  # is PoCL's instances of the same tests.
  local select=(-L '^(cuda|opencl)$' -LE 'nightly|cuda-compile')
  [ $mode = cpu ] && select=(-L '^opencl$' -LE 'nightly|cuda-compile')
  [ $tiny = 1 ] && select=(-R '^unit\.test_(device_backend|heat2d)\.(opencl|cuda)$')
  step ctest --to ctest.log "${unpinned[@]}" "$(ctest_command)" --test-dir "$build" "${select[@]}" -j "$(nproc)" \
    --timeout 300 --output-on-failure --output-junit "$dir/ctest.xml"
  [ $mode = gpu ] && device_tests_ran
}

# ctest: on PATH, else beside a cmake that is (a GPU node's image may have
# CMake from pip in a virtual environment), else the plain name, so that
# the step fails saying it is missing.
ctest_command() {
  local c
  c=$(command -v ctest) && { echo "$c"; return; }
  c=$(command -v cmake) && [ -x "$(dirname "$c")/ctest" ] && { echo "$(dirname "$c")/ctest"; return; }
  for c in /opt/*/.venv/bin/ctest /usr/local/bin/ctest; do [ -x "$c" ] && { echo "$c"; return; }; done
  echo ctest
}

# GPU mode: a device test that skipped (exit 77: its backend found no
# device) or a backend no test ran on is a failure of the phase, not a
# pass: without it a node whose driver did not load reads "100% passed".
device_tests_ran() {
  local skipped backend why=()
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(unit\.[^ ]*\.\(cuda\|opencl\)\) (Skipped)$/\1/p' "$dir/ctest.log" | tr '\n' ' ')
  [ -n "$skipped" ] && why+=("skipped: ${skipped% }")
  for backend in cuda opencl; do
    grep -q -E "Test +#[0-9]+: unit\.[a-z_]+\.$backend \.+ +Passed" "$dir/ctest.log" || why+=("no $backend test passed")
  done
  if [ ${#why[@]} -gt 0 ]; then
    mark device-tests "failed ($(IFS=';'; echo "${why[*]}"))"
  else
    mark device-tests ok
  fi
}

# mark NAME STATUS: a check's verdict as a step of its own in steps.tsv.
mark() {
  printf '%s\t%s\t0\n' "$1" "$2" >>"$steps_tsv"
  progress "$1" "$2"
}

# The solver's backends, named so that a device that does not open fails
# its step: the device before NVIDIA's OpenCL, whose ns.cl compile is the
# likelier to fail.
solver_backends=(openmp cuda opencl)
[ $mode = cpu ] && solver_backends=(openmp opencl)

phase_2() {
  local level ahmed
  if [ $tiny = 1 ]; then
    solve_table solve-cavity-tiny "${tiny_cavity[@]}"
  else
    solve_table solve-cavity-l0 cavity --level 0
  fi
  peer_spmv
  for level in $([ $tiny = 0 ] && echo 1 2); do
    solve_table "solve-cavity-l$level" cavity --level "$level"
  done
  kernel_times
  ahmed=$(ahmed_mesh) || { echo "no Ahmed mesh (results/ahmed.msh) or tiny inputs: Ahmed not run" >>"$log"; return 0; }
  solve_table solve-ahmed ahmed --mesh "$ahmed" --steps 50
}

# solve_table NAME CASE ARGS...: the case on every solver backend, in order,
# and the speedup table; the step fails when the table lacks a backend's
# row (solve goes on past a backend that fails, and says which).
solve_table() {
  local sname=$1 b args=(); shift
  for b in "${solver_backends[@]}"; do args+=(--backend "$b"); done
  step "$sname" --to "$sname.txt" "${pinned[@]}" "$bin" solve "$@" "${args[@]}" "${quick_solve[@]}" --quiet --out "$res"
  [ -s "$dir/$sname.txt" ] || return 0
  local missing=()
  for b in "${solver_backends[@]}"; do
    awk '/speedup over/ { on = 1 } on && $1 ~ "^'"$b"':" { found = 1 } END { exit !found }' "$dir/$sname.txt" ||
      missing+=("$b")
  done
  [ ${#missing[@]} -eq 0 ] || mark "$sname" "failed (no ${missing[*]} row in the speedup table)"
}

# One cuSPARSE SpMV beside flowbench's kernels early, so that a cut later
# in the call cannot lose the peer (the CPU mode: PoCL's kernels alone).
peer_spmv() {
  local m=gen:cube:57 kernels=(--kernel csr-vector --kernel sell)
  [ $tiny = 1 ] && m=gen:cube:6
  [ $mode = gpu ] && kernels+=(--kernel peer:cusparse)
  step spmv-peer --to spmv-peer.txt "$bin" spmv --backend "$dev" --matrix "$m" "${kernels[@]}" "${quick_spmv[@]}" \
    --out "$res"
}

# Where the device's step goes, kernel by kernel (solve --kernel-times:
# every launch waited for), on level 2 (tiny: the tiny cavity); its own
# records file, so the tables' solve records stay the comparison runs.
kernel_times() {
  local size=(cavity --level 2 --steps 5)
  [ $tiny = 1 ] && size=("${tiny_cavity[@]}")
  step kernel-times --to kernel-times.txt "$bin" solve "${size[@]}" --backend "$dev" --no-stream --quiet \
    --kernel-times --out "$dir/kernel-times.jsonl"
}

# The Ahmed mesh (scripts/mesh-ahmed.sh): results/ahmed.msh, else the one
# bundle.sh --ahmed carried gzipped; never in the tiny mode.
ahmed_mesh() {
  [ $tiny = 0 ] || return 1
  if [ -s "$root/results/ahmed.msh" ]; then echo "$root/results/ahmed.msh"; return 0; fi
  [ -s "$root/.devlibs/ahmed.msh.gz" ] || return 1
  [ -s "$out/ahmed.msh" ] || gzip -dc "$root/.devlibs/ahmed.msh.gz" >"$out/ahmed.msh" || return 1
  echo "$out/ahmed.msh"
}

# The SpMV targets as one sweep of a suite written here: each matrix is
# built once (the sweep keeps a problem open while the next configuration
# uses it, and the cases are ordered so that the next one does), the
# stream triad of each backend first, records as they complete; run again
# on the same folder it resumes.
phase_3() {
  spmv_suite >"$dir/spmv.suite"
  step spmv-targets --to sweep-spmv.txt "${pinned[@]}" "$bin" sweep "$dir/spmv.suite" --out "$res" --resume
}

# The suite, in order of value: the kernels no GPU has run (sell,
# bcsr-warp, bcsr-lanes, auto) with their neighbours and cuSPARSE on the
# L2-sized matrix, scalar then 4x4; the OpenMP baseline there; the
# DRAM-sized matrix the same way, warm then cold; 5x5 blocks; the spaces
# of the new kernels; last, sss-atomic (one triangle, atomic adds: a GPU's
# mapping of it) and sss with the many chunks a GPU needs (a CPU mapping:
# docs/kernels.md says why it is not expected to win there). Peers are
# pruned off their backend (CPU mode).
spmv_suite() {
  local small=gen:cube:57 large=gen:cube:120 budget=1 samples=100 spaces=1
  local csr="[sell, sell16, csr16, csr16-mixed, auto, csr-scalar, csr-vector, csr-multirow, csr-merge, peer:cusparse]"
  local bcsr="[bcsr-warp, bcsr-lanes, auto, bcsr, bcsr-vector, bcsr-soa, peer:cusparse-bsr]"
  local host="[csr-scalar, csr-vector, csr-multirow, csr-merge, sell, sell16, csr16, csr16-mixed, auto]"
  local stream=true
  if [ $tiny = 1 ]; then small=gen:cube:6 large=gen:cube:8 budget=0.05 samples=3 spaces=0 stream=false; fi
  cat <<EOF_SUITE
# Written by scripts/device/phase.sh (phase 3) on $(date -u +%Y-%m-%dT%H:%M:%SZ).
suite: device-spmv
backends: [$dev]
precisions: [double, single]
stream: $stream
measure: {min_samples: 3, max_samples: $samples, spread_pct: 1, budget_s: $budget, timeout_s: 60, abandon_factor: 0}
cases:
  - {name: new-l2, space: default, matrices: [$small], kernels: $csr}
  - {name: new-l2-b4, space: default, matrices: ["$small:block=4"], kernels: $bcsr}
  - {name: openmp-l2-b4, space: default, matrices: ["$small:block=4"], backends: [openmp], precisions: [double], kernels: [bcsr, bcsr-vector, auto]}
  - {name: openmp-l2, space: default, matrices: [$small], backends: [openmp], precisions: [double], kernels: $host}
  - {name: dram, space: default, matrices: [$large], kernels: $csr}
  - {name: openmp-dram, space: default, matrices: [$large], backends: [openmp], precisions: [double], kernels: $host}
  - {name: dram-cold, space: default, matrices: [$large], kernels: $csr, measure: {min_samples: 3, max_samples: $samples, spread_pct: 1, budget_s: $budget, timeout_s: 60, abandon_factor: 0, cold: true}}
  - {name: dram-b4, space: default, matrices: ["$large:block=4"], kernels: $bcsr}
  - {name: dram-b4-cold, space: default, matrices: ["$large:block=4"], kernels: $bcsr, measure: {min_samples: 3, max_samples: $samples, spread_pct: 1, budget_s: $budget, timeout_s: 60, abandon_factor: 0, cold: true}}
  - {name: l2-b5, space: default, matrices: ["$small:block=5"], kernels: $bcsr}
  - {name: dram-b5, space: default, matrices: ["$large:block=5"], kernels: $bcsr}
  - {name: sss, space: default, matrices: [$small, $large], kernels: [sss-atomic, sss], params: {CHUNKS: [16384, 65536], WG_SIZE: [128]}}
EOF_SUITE
  [ $spaces = 1 ] || return 0
  cat <<EOF_SUITE
  - {name: space-sell, space: default, matrices: [$small], kernels: [sell], params: {SLICE_HEIGHT: [4, 8, 16, 32], THREADS_PER_ROW: [1, 2, 4], SIGMA: [1, 256], WG_SIZE: [64, 128, 256]}}
  - {name: space-bcsr-b4, space: default, matrices: ["$small:block=4"], kernels: [bcsr-warp, bcsr-lanes], params: {TEAM: [8, 16, 32], WG_SIZE: [64, 128, 256], BLOCKS_PER_ITER: [1, 2, 4, 8], BROWS_PER_GROUP: [1, 2, 4, 8, 16]}}
EOF_SUITE
}

# spmv_plan NAME ARGS...: several kernels on one matrix, a one-case sweep
# with the device's stream triad first (its fraction is in every record).
spmv_plan() {
  local sname=$1; shift
  step "$sname" "$bin" spmv --backend "$dev" --out "$res" "${quick_spmv[@]}" "$@"
}

phase_4() {
  local ahmed cavity=(cavity --level 2 --steps 10) peer_levels=(0 1 2) case_name=cavity-l2
  [ $tiny = 1 ] && cavity=("${tiny_cavity[@]}") peer_levels=() case_name=cavity-tiny
  solver_axes "$case_name" "${cavity[@]}"
  [ $tiny = 1 ] && viennacl_peer cavity-tiny "${tiny_cavity[@]}"
  for level in "${peer_levels[@]}"; do viennacl_peer "cavity-l$level" cavity --level "$level" --steps 5; done
  shared_gpu_ranks
  grid_studies
  paper_spmv_spaces
  if ahmed=$(ahmed_mesh); then solver_axes ahmed ahmed --mesh "$ahmed" --steps 10; fi
}

# The device axes (their defaults were chosen on PoCL): reductions, CG
# variants, edge layout and node order, each point checked against the
# first; --tune keeps the fastest in tuning.json and --tuned runs it.
solver_axes() { # NAME CASE ARGS...
  local sname=$1; shift
  local axes=(--param GROUP_REDUCE=0,1 --param CG_VARIANT=0,1,2 --param EDGE_LAYOUT=0,1 --param RENUMBER=0,1,2)
  [ $tiny = 1 ] && axes=(--param CG_VARIANT=0,1)
  step "sweep-$sname" --to "sweep-$sname.txt" "$bin" solve "$@" --backend "$dev" --no-stream --tune \
    --cache "$dir/tuning.json" --out "$res" "${axes[@]}"
  step "tuned-$sname" --to "solve-$sname-tuned.txt" "$bin" solve "$@" --backend "$dev" --tuned "${quick_solve[@]}" \
    --cache "$dir/tuning.json" --quiet --out "$res"
}

viennacl_peer() { # NAME CASE ARGS...: ViennaCL's CG on the OpenCL device (the paper: 6x)
  local sname=$1; shift
  step "viennacl-$sname" --to "peer-$sname.txt" "$bin" solve "$@" --backend opencl --peer viennacl --quiet \
    --no-stream --out "$res"
}

# The decomposed solver on 2 ranks sharing the first device against one
# process, checked field by field (docs/scaling.md); needs mpirun.
shared_gpu_ranks() {
  command -v mpirun >/dev/null || { echo "no mpirun on this node: 2 ranks on one GPU not run" >>"$log"; return 0; }
  grep -q '^FLOWBENCH_MPI:BOOL=ON' "$build/CMakeCache.txt" ||
    { echo "$build has no MPI (bundle.sh builds without): 2 ranks on one GPU not run" >>"$log"; return 0; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  local cavity=(cavity --level 1 --steps 10)
  [ $tiny = 1 ] && cavity=("${tiny_cavity[@]}")
  step ranks-1 --to solve-ranks-1.txt "$bin" solve "${cavity[@]}" --backend "$dev" \
    --no-stream --quiet --vtk "$dir/ranks-1.vtu" --out "$res"
  step ranks-2 --to solve-ranks-2.txt mpirun -np 2 "$bin" solve "${cavity[@]}" \
    --backend "$dev" --no-stream --quiet --vtk "$dir/ranks-2.vtu" --out "$res"
  if [ -s "$dir/ranks-1.vtu" ] && [ -s "$dir/ranks-2.vtu" ]; then
    step ranks-diff --to solve-ranks-check.txt "$root/scripts/vtu-diff.sh" "$dir/ranks-1.vtu" "$dir/ranks-2.vtu"
    ranks_verdict
  fi
  rm -f "$dir/ranks-1.vtu" "$dir/ranks-2.vtu"
}

# The two fields' largest relative differences within 1e-8 (as
# tests/e2e/solve_mpi.sh asks), else a failed step.
ranks_verdict() {
  local du dp status=ok
  read -r du dp <"$dir/solve-ranks-check.txt" || du=missing
  awk -v u="$du" -v p="$dp" 'BEGIN { exit !(u ~ /^[0-9.e+-]+$/ && u + 0 <= 1e-8 && p + 0 <= 1e-8) }' ||
    status="failed (2 ranks against one process: velocity $du, pressure ${dp:-?}; limit 1e-8)"
  printf 'ranks-fields\t%s\t0\n' "$status" >>"$steps_tsv"
  progress ranks-fields "$status"
}

grid_studies() { # the structured-grid studies on the device, resumed where a cut left them
  local suite=$root/cases/grid-study.suite limit=()
  [ $tiny = 1 ] && suite=$root/cases/grid-quick.suite limit=(--limit 2)
  step grid-studies "$bin" sweep "$suite" --backend "$dev" --backend openmp --out "$dir/grid.jsonl" --resume "${limit[@]}"
}

# The paper's brute force over csr-multirow on the cavity level-2
# Laplacian, and the csr-vector and bcsr-lanes spaces.
paper_spmv_spaces() {
  local m=gen:cube:57 multirow=(--param WORKGROUP_SIZE_BITS=5,6,7,8,9,10 --param ROWS_PER_WORKGROUP_BITS=0,1,2,3,4,5,6)
  local vector=(--param VECTOR_SIZE=1,2,4,8,16,32 --param WG_SIZE=128,256,512)
  [ $tiny = 1 ] && m=gen:cube:6 multirow=(--param WORKGROUP_SIZE_BITS=5,6) vector=(--param VECTOR_SIZE=1,8)
  spmv_plan space-csr-multirow --matrix $m --kernel csr-multirow "${multirow[@]}"
  spmv_plan space-csr-vector --matrix $m --kernel csr-vector "${vector[@]}"
}

# --- the end: one page and one archive, whatever stopped the phase ----------

summarize() {
  local wall=$(($(date +%s) - start)) ok failed skipped
  final_steps >"$dir/steps-final.tsv"
  ok=$(grep -c $'\tok\t' "$dir/steps-final.tsv")
  failed=$(grep -c -E $'\t(failed|stopped)' "$dir/steps-final.tsv")
  skipped=$(grep -c $'\tskipped\t' "$dir/steps-final.tsv")
  echo "wall_s=$wall" >>"$dir/machine.env"
  uptime >"$dir/uptime-after.txt" 2>&1
  {
    echo "# Phase $phase ($name), $mode mode$([ $tiny = 1 ] && echo ", tiny inputs")"
    echo
    echo "- machine: $(sed -n 's/^gpu=//p' "$dir/machine.env") on $(sed -n 's/^host=//p' "$dir/machine.env")," \
      "$(nproc) CPUs; $(sed -n 's/^flowbench=//p' "$dir/machine.env")"
    echo "- wall time: $wall s of a $budget s budget; steps: ${ok:-0} ok, ${failed:-0} failed or stopped, ${skipped:-0} skipped"
    echo "- records: $(count_lines '"status": *"ok"') ok of $(count_lines '"type": *"measurement"')"
    [ -s "$dir/ctest.log" ] && grep -h -E "tests passed|tests failed|Total Test time" "$dir/ctest.log" | sed 's/^/- ctest: /'
    [ -s "$dir/ctest.log" ] && grep -h -E '\*\*\*(Failed|Timeout|Exception)|Failed  ' "$dir/ctest.log" | head -n 15 | sed 's/^/  /'
    solver_tables
    echo
    echo "| step | status | seconds |"
    echo "|---|---|---:|"
    awk -F'\t' '{printf "| %s | %s | %s |\n", $1, $2, $3}' "$dir/steps-final.tsv"
  } >"$out/phase$phase-$name.md"
  cp "$out/phase$phase-$name.md" "$dir/summary.md"
}

# Each step once, as it last ended (a resumed phase appends to steps.tsv:
# a step stopped in the first run and ok in the second is ok).
final_steps() {
  awk -F'\t' '!($1 in last) { order[n++] = $1 } { last[$1] = $0 } END { for (i = 0; i < n; i++) print last[order[i]] }' \
    "$steps_tsv" 2>/dev/null
}

solver_tables() { # the speedup tables of solve --compare, as printed
  awk '/speedup over/ { on = 1 } on && /^$/ { on = 0 } on { print "    " $0 }' "$dir"/solve-*.txt 2>/dev/null | head -n 40
}

count_lines() { # REGEX: matching lines over the phase's record files (no bc or jq on a node)
  cat "$dir"/*.jsonl 2>/dev/null | grep -c -E "$1"
}

archive() {
  local tarball=$out/phase$phase-$name.tar.xz size
  if command -v xz >/dev/null; then
    tar -C "$out" -cJf "$tarball" "phase$phase-$name"
  else
    tarball=$out/phase$phase-$name.tar.gz
    tar -C "$out" -czf "$tarball" "phase$phase-$name"
  fi
  size=$(stat -c %s "$tarball")
  [ "$size" -le $((16 * 1024 * 1024)) ] ||
    echo "phase.sh: $tarball is $((size / 1048576)) MiB, over the 16 MiB a device command brings back" >&2
  echo "phase $phase done: $tarball ($((size / 1024)) KiB), $out/phase$phase-$name.md" >&2
}

# The phase's status: 130 when interrupted, else 1 when a step failed or
# was stopped at the budget, 0 when every step that ran ended ok.
finish() {
  local rc=$1
  trap - EXIT INT TERM
  summarize
  archive
  [ "$rc" = 130 ] || [ "$rc" = 3 ] || rc=$(grep -q -E $'\t(failed|stopped)' "$dir/steps-final.tsv" && echo 1 || echo 0)
  exit "$rc"
}
trap 'finish $?' EXIT
trap stop_step INT TERM
child= running= t0=0

setup_node
describe_machine
# A CUDA device, not a line about CUDA ("cuda: no driver found ..."): the
# phase fails at once rather than run every cuda test as skipped.
if [ $mode = gpu ] && ! grep -q '^cuda:[0-9]' "$dir/devices.txt"; then
  echo "phase.sh: no CUDA device here ($bin devices: see $dir/devices.txt); --cpu runs the phase on PoCL" >&2
  exit 3
fi
echo "phase $phase ($name), $mode mode: budget $budget s, into $dir" >&2
"phase_$phase"
