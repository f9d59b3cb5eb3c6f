#!/usr/bin/env bash
# bundle.sh [--ahmed] - builds flowbench for a GPU node that has the NVIDIA
# driver and the CUDA toolkit but none of the Debian packages flowbench links
# (jansson, CHOLMOD, libyaml, the OpenCL ICD loader, Open MPI, METIS):
# configures build-gpu/ here with FLOWBENCH_CARRIED (every binary finds
# .devlibs/ by its RPATH, so nothing is put on the node's LD_LIBRARY_PATH)
# and copies those shared libraries into .devlibs/, so the two folders can
# travel with the source tree and run there (docs/device-run.md):
#   scripts/device/call.sh A OUTDIR        # then call.sh B OUTDIR
# What travels is one file, .devpack/flowbench-gpu.tar.gz (the two folders,
# gzipped to about 40%; call.sh unpacks it on the node), since a device
# allocation carries at most 64 MiB with the source tree and the two
# folders alone had grown to 26 MiB beside a 21 MiB tree. This keeps the
# total under 48 MiB: only the test programs phase 1 runs (the ctest
# labels cuda and opencl) stay, object files, static libraries and CMake's
# own files go once linked, the binaries are stripped, and the total is
# checked (the next bundle.sh builds again from scratch). --ahmed also
# carries results/ahmed.msh (scripts/mesh-ahmed.sh) gzipped as
# .devlibs/ahmed.msh.gz for phase 2's Ahmed run (GPU nodes rarely have
# gmsh); without it Ahmed is left out.
# The GraphBLAS peer is left out (its library is 170 MB), and MPI: Open
# MPI's libraries carry a RUNPATH of their Debian folder, which would take
# their own dependencies from the node rather than .devlibs, and a node
# without mpirun (the usual) has no use for them. The CUDA toolkit's
# libraries (NVRTC, cuSPARSE, cudart) and the driver are the node's.
set -euo pipefail
cd "$(dirname "$0")/../.."
limit_mib=48 ahmed=0
case ${1:-} in
  --ahmed) ahmed=1 ;;
  "") ;;
  *) echo "usage: bundle.sh [--ahmed]" >&2; exit 2 ;;
esac
rm -rf .devpack # a failed bundle leaves no older pack to be carried with a newer tree
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLOWBENCH_GRAPHBLAS=OFF -DFLOWBENCH_PAPI=OFF \
  -DFLOWBENCH_MPI=OFF -DFLOWBENCH_CARRIED=ON >/dev/null
cmake --build build-gpu -j "$(nproc)" >/dev/null

# The programs of the device tests (phase 1); every other test program goes.
kept=$(scripts/device/device-tests.sh build-gpu)
mapfile -t keep <<<"$kept"
for f in build-gpu/tests/test_*; do
  printf '%s\n' "${keep[@]}" | grep -q -x -F "$(realpath "$f")" || rm -f "$f"
done
find build-gpu -name '*.o' -delete
find build-gpu -name CMakeFiles -type d -prune -exec rm -rf {} +
rm -rf build-gpu/*.a build-gpu/generated build-gpu/tests/fake_* build-gpu/tests/libfake_* build-gpu/tests/fuzz
strip --strip-unneeded build-gpu/flowbench "${keep[@]}"

rm -rf .devlibs && mkdir -p .devlibs
# Every library the binaries load, less glibc's own and the CUDA toolkit's.
for f in build-gpu/flowbench "${keep[@]}"; do ldd "$f"; done |
  awk '/=> \//{print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s)\.so|/usr/local/cuda|/\.devlibs/' |
  while read -r lib; do cp -L "$lib" .devlibs/; done
[ $ahmed = 1 ] && { [ -s results/ahmed.msh ] || { echo "bundle.sh: --ahmed: no results/ahmed.msh (scripts/mesh-ahmed.sh)" >&2; exit 1; }; }
[ $ahmed = 1 ] && gzip -9 -c results/ahmed.msh >.devlibs/ahmed.msh.gz

# The RPATH is what finds .devlibs: every library a binary loads now
# resolves there or to glibc's.
for f in build-gpu/flowbench "${keep[@]}"; do
  readelf -d "$f" | grep -q "(RPATH).*\$ORIGIN/\.\./\.devlibs" ||
    { echo "bundle.sh: $f has no RPATH to .devlibs (FLOWBENCH_CARRIED)" >&2; exit 1; }
  stray=$(env -u LD_LIBRARY_PATH ldd "$f" | awk '/=> \//{print $3}' |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s)\.so|/\.devlibs/' || true)
  [ -z "$stray" ] || { echo "bundle.sh: $f loads $(echo "$stray" | head -n 1) from outside .devlibs" >&2; exit 1; }
done

rm -rf .devpack && mkdir -p .devpack
tar -czf .devpack/flowbench-gpu.tar.gz build-gpu .devlibs
tree_kb=$(git ls-files -z | du -c -k --files0-from=- | tail -n 1 | cut -f1)
carry_kb=$(du -s -k .devpack | cut -f1)
echo "bundle: build-gpu/ $(du -s -k build-gpu | cut -f1) KiB and .devlibs/ $(du -s -k .devlibs | cut -f1) KiB" \
  "packed in .devpack/ $carry_kb KiB, the source tree $tree_kb KiB:" \
  "$(((carry_kb + tree_kb) / 1024)) MiB of the $limit_mib carried"
if [ $((carry_kb + tree_kb)) -gt $((limit_mib * 1024)) ]; then
  echo "bundle.sh: $(((carry_kb + tree_kb) / 1024)) MiB in all, over the $limit_mib MiB this run allows itself (64 carried)" >&2
  rm -rf .devpack
  exit 1
fi
