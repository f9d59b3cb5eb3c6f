#!/usr/bin/env bash
# bundle.sh - builds flowbench for a GPU node that has the NVIDIA driver and
# the CUDA toolkit but none of the Debian packages flowbench links (jansson,
# CHOLMOD, inih, cmocka, the OpenCL ICD loader): configures build-gpu/ here
# and copies those shared libraries into .devlibs/, so the two folders can
# travel with the source tree and run there (docs/device-run.md):
#   scripts/device/phase.sh N OUTDIR      # N = 1..4, one device command each
# A device allocation carries at most 64 MiB with the source tree, so the
# object files and static libraries are deleted once linked (the next
# bundle.sh builds again from scratch) and the total is checked.
# results/ahmed.msh (scripts/mesh-ahmed.sh, 20 MB) travels gzipped as
# .devlibs/ahmed.msh.gz: GPU nodes rarely have gmsh, and without the mesh
# the Ahmed runs are left out.
# The GraphBLAS peer is left out (its library is 170 MB); the CUDA toolkit's
# own libraries (NVRTC, cuSPARSE, cudart) are the node's.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLOWBENCH_GRAPHBLAS=OFF -DFLOWBENCH_PAPI=OFF >/dev/null
cmake --build build-gpu -j "$(nproc)" >/dev/null
find build-gpu -name '*.o' -delete
rm -f build-gpu/*.a
rm -rf .devlibs && mkdir -p .devlibs
# Every library the binaries load, less glibc's own and the CUDA toolkit's.
for f in build-gpu/flowbench build-gpu/tests/test_* build-gpu/tests/libfake_nvml.so; do [ -e "$f" ] && ldd "$f"; done |
  awk '/=> \//{print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s)\.so|/usr/local/cuda' |
  while read -r lib; do cp -L "$lib" .devlibs/; done
[ -s results/ahmed.msh ] && gzip -9 -c results/ahmed.msh >.devlibs/ahmed.msh.gz
tree_kb=$(git ls-files -z | du -c -k --files0-from=- | tail -n 1 | cut -f1)
carry_kb=$(du -s -k build-gpu .devlibs | awk '{s += $1} END {print s}')
echo "bundle: build-gpu/ and .devlibs/ $((carry_kb / 1024)) MiB, the source tree $((tree_kb / 1024)) MiB"
if [ $((carry_kb + tree_kb)) -gt $((64 * 1024)) ]; then
  echo "bundle.sh: $(((carry_kb + tree_kb) / 1024)) MiB in all, over the 64 MiB a device allocation carries" >&2
  exit 1
fi
