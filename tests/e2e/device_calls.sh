#!/usr/bin/env bash
# device_calls.sh FLOWBENCH SOURCE_DIR WORK_DIR FAKE_LIBCUDA - the two
# commands of a GPU allocation (scripts/device/call.sh) and the faults a
# review found in the phases' GPU mode, here without a GPU: the GPU mode
# runs on the test suite's fake driver (tests/fake_cuda/, through
# FLOWBENCH_CUDA_DRIVER) with a stand-in ctest on PATH that records how it
# was started and answers as a node whose CUDA tests skipped would.
#  - call A unpacks what bundle.sh packed, once;
#  - call A brings back phases 1 and 2 (archive and page each) and call B
#    phase 3 into the copy folder; B stopped by SIGTERM still brings back
#    its phase (exit 130);
#  - GPU mode with no driver: "no CUDA device" and exit 3, not a phase of
#    skipped tests ("cuda: no driver found" is no device);
#  - GPU mode, phase 1: ctest runs unpinned (no OMP_PROC_BIND, its
#    processes may use every CPU), with no .devlibs on LD_LIBRARY_PATH,
#    selecting no compile-only shard; a skipped cuda test fails the phase;
#  - a solver backend that does not open is a failed step with the
#    missing row named, not "left out" and ok.
# Skips (77) without OpenCL or without the CUDA backend.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
fake=$(realpath "$4")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$bin" devices | grep -q '^opencl:' || { echo "no OpenCL device: skipped"; exit 77; }
FLOWBENCH_CUDA_DRIVER=$fake "$bin" devices | grep -q '^cuda:0' || { echo "no CUDA backend: skipped"; exit 77; }
export FLOWBENCH_BUILD=$(dirname "$bin") FLOWBENCH=$bin

# A copy of the device scripts under a root of their own that has a
# .devlibs folder (as after bundle.sh), so that what the phases put on
# LD_LIBRARY_PATH is seen.
root=$work/root
mkdir -p "$root/scripts" "$root/.devlibs"
cp -r "$src/scripts/device" "$root/scripts/"
ln -s "$src/cases" "$root/cases"
phase=$root/scripts/device/phase.sh call=$root/scripts/device/call.sh

# What bundle.sh packs (.devpack/flowbench-gpu.tar.gz: build-gpu/ and
# .devlibs/), a stand-in here, which call A unpacks beside the source
mkdir -p "$work/pack/build-gpu" "$work/pack/.devlibs" "$root/.devpack"
echo packed >"$work/pack/build-gpu/marker"
echo packed >"$work/pack/.devlibs/marker"
tar -C "$work/pack" -czf "$root/.devpack/flowbench-gpu.tar.gz" build-gpu .devlibs

# --- the two calls, CPU mode ---------------------------------------------------
"$call" --cpu --tiny A "$work/a" "$work/back-a" 2>"$work/a.err" || fail "call A: $(tail -n 3 "$work/a.err")"
[ "$(cat "$root/build-gpu/marker" "$root/.devlibs/marker" 2>/dev/null)" = "$(printf 'packed\npacked')" ] ||
  fail "call A did not unpack .devpack/flowbench-gpu.tar.gz beside the source"
echo "$(date)" >"$root/build-gpu/marker" # unpacked once: a second call leaves what it finds
# the node's second call carries the same pack again, a fresh copy of the folder
cp -r "$root/.devpack" "$work/pack-again" && rm -rf "$root/.devpack" && mv "$work/pack-again" "$root/.devpack"
for f in phase1-correctness.tar.xz phase1-correctness.md phase2-solver.tar.xz phase2-solver.md; do
  [ -s "$work/back-a/$f" ] || fail "call A brought back no $f"
done
"$call" --cpu --tiny B "$work/b" "$work/back-b" 2>"$work/b.err" || fail "call B: $(tail -n 3 "$work/b.err")"
[ -s "$work/back-b/phase3-spmv.tar.xz" ] && [ -s "$work/back-b/phase3-spmv.md" ] || fail "call B brought back no phase 3"
[ "$(cat "$root/build-gpu/marker")" != packed ] || fail "call B unpacked the pack call A had unpacked"
# a new pack is unpacked over nothing of the old one
rm "$work/pack/.devlibs/marker"
echo repacked >"$work/pack/build-gpu/marker"
tar -C "$work/pack" -czf "$root/.devpack/flowbench-gpu.tar.gz" build-gpu .devlibs
"$call" --cpu --tiny B "$work/b2" "$work/back-b2" 2>"$work/b2.err" || fail "call B, new pack: $(tail -n 3 "$work/b2.err")"
[ "$(cat "$root/build-gpu/marker")" = repacked ] && [ ! -e "$root/.devlibs/marker" ] ||
  fail "a new pack was not unpacked over the old one's folders"
[ "$(ls "$work/back-a" "$work/back-b" | grep -c .)" -le 8 ] || fail "the calls bring back more than 8 files"
# Cut off by the tool's time-out while its sweep runs: what finished comes back.
"$call" --cpu --tiny B "$work/cut" "$work/back-cut" 2>"$work/cut.err" &
pid=$!
for _ in $(seq 1 300); do
  grep -q '"type": *"measurement"' "$work/cut/phase3-spmv/results.jsonl" 2>/dev/null && break
  sleep 0.1
done
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || fail "call B stopped by SIGTERM exited $rc, not 130"
# listed into a file: grep -q ending first would stop tar with SIGPIPE,
# which pipefail counts as the pipeline's failure
tar -tJf "$work/back-cut/phase3-spmv.tar.xz" >"$work/cut-list.txt" 2>/dev/null &&
  grep -q 'results.jsonl$' "$work/cut-list.txt" || fail "call B stopped by SIGTERM brought back no archive with its records"
rc=0; "$call" --cpu C "$work/x" 2>"$work/bad.err" || rc=$?
[ $rc = 2 ] && grep -q "call 'C'" "$work/bad.err" || fail "call C: exit $rc, $(cat "$work/bad.err")"

# --- GPU mode without a driver -------------------------------------------------
rc=0
FLOWBENCH_CUDA_DRIVER=$work/no-such-libcuda.so.1 "$phase" 1 "$work/nodriver" 2>"$work/nodriver.err" || rc=$?
[ $rc = 3 ] && grep -q "no CUDA device" "$work/nodriver.err" ||
  fail "GPU mode without a driver: exit $rc, $(tail -n 2 "$work/nodriver.err")"

# --- GPU mode, phase 1, on the fake driver with a stand-in ctest --------------
mkdir -p "$work/stub"
cat >"$work/stub/ctest" <<EOF
#!/usr/bin/env bash
{ echo "OMP_PROC_BIND=\${OMP_PROC_BIND-unset}"; echo "LD_LIBRARY_PATH=\${LD_LIBRARY_PATH-}"
  grep Cpus_allowed_list /proc/self/status; } >"$work/ctest.env"
printf '%s\n' "\$@" >"$work/ctest.args"
echo "    Start 1: unit.test_spmv.cuda"
echo "1/2 Test #1: unit.test_spmv.cuda ................   Skipped   0.10 sec"
echo "2/2 Test #2: unit.test_spmv.opencl ..............   Passed    1.00 sec"
echo "100% tests passed, 0 tests failed out of 2"
echo "The following tests did not run:"
echo "	  1 - unit.test_spmv.cuda (Skipped)"
EOF
chmod +x "$work/stub/ctest"
rc=0
PATH=$work/stub:$PATH OMP_PROC_BIND=close OMP_PLACES=cores FLOWBENCH_CUDA_DRIVER=$fake \
  "$phase" 1 "$work/gpu" 2>"$work/gpu.err" || rc=$?
[ -s "$work/ctest.env" ] || fail "GPU mode phase 1 did not run ctest: $(tail -n 3 "$work/gpu.err")"
grep -q '^OMP_PROC_BIND=unset$' "$work/ctest.env" || fail "ctest ran pinned: $(head -n 1 "$work/ctest.env")"
grep -q "^Cpus_allowed_list:[[:space:]]*$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)$" \
  "$work/ctest.env" || fail "ctest's processes may not use every CPU: $(grep Cpus "$work/ctest.env")"
! grep -q 'devlibs' "$work/ctest.env" || fail "ctest ran with .devlibs on LD_LIBRARY_PATH: $(grep LD_ "$work/ctest.env")"
# The selection, given to the real ctest: device instances only.
mapfile -t args < <(grep -v -E '^(--output-junit|--output-on-failure|.*ctest\.xml)$' "$work/ctest.args")
ctest "${args[@]}" -N >"$work/selected.txt" 2>&1 || fail "the phase's ctest arguments: $(tail -n 2 "$work/selected.txt")"
grep -q 'unit\.test_spmv\.cuda' "$work/selected.txt" || fail "phase 1 does not select the cuda tests"
! grep -q 'nvrtc_compile' "$work/selected.txt" || fail "phase 1 selects NVRTC's compile-only shards"
! grep -q '\.openmp$' "$work/selected.txt" || fail "phase 1 selects the openmp instances"
[ $rc = 1 ] || fail "a skipped cuda test: phase 1 exited $rc, not 1"
grep -q 'device-tests | failed (skipped: unit.test_spmv.cuda' "$work/gpu/phase1-correctness.md" ||
  fail "the page does not fail the skipped cuda test: $(cat "$work/gpu/phase1-correctness.md")"

# --- a solver backend that does not open ------------------------------------
mkdir -p "$work/no-icd"
rc=0
OCL_ICD_VENDORS=$work/no-icd "$phase" --cpu --tiny 2 "$work/noocl" 2>"$work/noocl.err" || rc=$?
[ $rc = 1 ] || fail "phase 2 without its OpenCL device exited $rc, not 1"
grep -q 'solve-cavity-tiny | failed (no opencl row in the speedup table)' "$work/noocl/phase2-solver.md" ||
  fail "the page does not name the missing opencl row: $(cat "$work/noocl/phase2-solver.md")"
echo "device calls: A and B, a cut, no driver, unpinned ctest, skipped cuda tests, a missing row: ok"
