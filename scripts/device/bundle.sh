#!/usr/bin/env bash
# bundle.sh - builds flowbench for a GPU node that has the NVIDIA driver and
# the CUDA toolkit but none of the Debian packages flowbench links (jansson,
# CHOLMOD, inih, cmocka, the OpenCL ICD loader): configures build-gpu/ here
# and copies those shared libraries into .devlibs/, so the two folders can
# travel with the source tree and run there with
#   LD_LIBRARY_PATH=$PWD/.devlibs scripts/device/reference-run.sh OUTDIR
# Carry results/ahmed.msh too (scripts/mesh-ahmed.sh, 20 MB): GPU nodes
# rarely have gmsh, and without the mesh the Ahmed runs are left out.
# The GraphBLAS peer is left out (its library is 170 MB); the CUDA toolkit's
# own libraries (NVRTC, cuSPARSE, cudart) are the node's.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFLOWBENCH_GRAPHBLAS=OFF -DFLOWBENCH_PAPI=OFF >/dev/null
cmake --build build-gpu -j "$(nproc)" >/dev/null
rm -rf .devlibs && mkdir -p .devlibs
# Every library the binaries load, less glibc's own and the CUDA toolkit's.
for f in build-gpu/flowbench build-gpu/tests/test_*; do ldd "$f"; done |
  awk '/=> \//{print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s)\.so|/usr/local/cuda' |
  while read -r lib; do cp -L "$lib" .devlibs/; done
du -sh build-gpu .devlibs
