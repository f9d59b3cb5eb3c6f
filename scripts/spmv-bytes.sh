#!/usr/bin/env bash
# spmv-bytes.sh FLOWBENCH OUT_DIR [ROUNDS] - the kernels that move fewer
# bytes per nonzero (csr16, csr16-mixed, sss, sell16: docs/kernels.md) and sell against the plain
# loop (csr-scalar, whose OpenMP twin is the textbook CSR loop), the best
# CSR kernel, GraphBLAS and the read ceiling, on a DRAM-sized cube and on a real CFD matrix in two
# orders, OpenMP and OpenCL, in double, ROUNDS times (default 3) with the
# kernels alternating within each round. Every run is checked; every record
# is in OUT_DIR/results.jsonl; OUT_DIR/table.md is the table (median over
# the rounds), OUT_DIR/uptime-*.txt what the machine was doing.
#
# The matrices:
#   $FB_BYTES_CUBE (default gen:cube:150: 3.4 M rows, 614 MB in CSR, above
#     4x a 32 MiB last-level cache; check yours with `flowbench devices`);
#   a real CFD matrix: the P1 Laplacian of $FB_BYTES_MESH (any mesh: the
#     cylinder's is scripts/mesh-case.sh cases/cylinder.geo OUT 0.75), else
#     the Ahmed body's, cases/ahmed.geo
#     meshed by scripts/mesh-ahmed.sh at size factor $FB_BYTES_AHMED_SF,
#     default 0.5: 571,093 nodes, 8.5 M entries, 114 MB in CSR, about 3
#     minutes of gmsh; kept as OUT_DIR/ahmed.msh, 160 MB; a named mesh that
#     is not there is refused), in gmsh's node order
#     (its boundary nodes come first: long-range couplings, csr16's 32-bit
#     fallback) and renumbered by reverse Cuthill-McKee (SRC:reorder=rcm).
# $FB_BYTES_PARTS (default "cube mesh rcm") picks the parts a round runs:
#   cube, mesh (gmsh's order) and rcm (the mesh renumbered), so a part can
#   be measured again over more rounds without the others.
# Each plan measures the stream triad and dot on its device first, so each
# record's fraction_of_read divides by a ceiling measured minutes, not
# hours, from it (this VM's bandwidth moves between runs).
set -euo pipefail
bin=${1:?usage: spmv-bytes.sh FLOWBENCH OUT_DIR [ROUNDS]}
out=${2:?usage: spmv-bytes.sh FLOWBENCH OUT_DIR [ROUNDS]}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export FLOWBENCH_CACHE_DIR=$out/cache FLOWBENCH_STREAM_CACHE=$out/cache/stream.json
cube=${FB_BYTES_CUBE:-gen:cube:150}
mesh=${FB_BYTES_MESH:-$out/ahmed.msh}
parts=" ${FB_BYTES_PARTS:-cube mesh rcm} "
for part in $parts; do
  case $part in cube | mesh | rcm) ;; *) echo "spmv-bytes.sh: FB_BYTES_PARTS: unknown part '$part' (cube, mesh, rcm)" >&2; exit 2 ;; esac
done
if [[ $parts == *" mesh "* || $parts == *" rcm "* ]] && [ ! -s "$mesh" ]; then
  # only the default mesh is made here: a named one that is not there is a
  # mistake, which meshing the Ahmed body under its name would hide
  [ -z "${FB_BYTES_MESH:-}" ] ||
    { echo "spmv-bytes.sh: FB_BYTES_MESH: $mesh: no such mesh (scripts/mesh-case.sh makes one)" >&2; exit 2; }
  "$here/mesh-ahmed.sh" "$mesh" "${FB_BYTES_AHMED_SF:-0.5}"
fi
results=$out/results.jsonl
uptime > "$out/uptime-before.txt"
# On OpenMP every CSR kernel runs the same twin, the plain loop; on PoCL
# csr-vector with one item per row ran 1.4x faster than csr-scalar on the
# gmsh-order mesh (NOTES.md of the committed run), so it is there too:
# csr16's gain is measured against the best CSR kernel, not the slowest.
# sell (SELL-C-sigma, docs/kernels.md) moves CSR's bytes and its padding,
# but its slices' lanes are rows side by side, which the compiler and PoCL
# vectorise: the fastest kernel here on the cube by itself (2026-11-29), so
# the best flowbench kernel is not judged without it.
openmp_kernels=(csr-scalar csr16 csr16-mixed sss sell sell16 peer:graphblas)
opencl_kernels=(csr-scalar csr-vector csr16 csr16-mixed sss sell sell16)
# The kernels run in the listed order in odd rounds and reversed in even
# ones: the first kernel of a process ran a few per cent slower than the
# same kernel second (spmv-sss-rcm-vm-2026-11-29/NOTES.md), and no kernel
# should carry that in every round.
plan() { # ROUND BACKEND MATRIX KERNEL...: one process, the kernels in turn
  local round=$1 backend=$2 matrix=$3; shift 3
  local kernels=("$@") args=() i
  for i in "${!kernels[@]}"; do
    [ $((round % 2)) = 1 ] || i=$((${#kernels[@]} - 1 - i))
    args+=(--kernel "${kernels[i]}")
  done
  "$bin" spmv --backend "$backend" --matrix "$matrix" "${args[@]}" --param VECTOR_SIZE=1 --out "$results"
}
for r in $(seq "$rounds"); do
  echo "== round $r of $rounds ($(uptime))"
  for m in cube mesh; do
    [[ $parts == *" $m "* ]] || continue
    matrix=$cube; [ $m = mesh ] && matrix=$mesh
    plan "$r" openmp "$matrix" "${openmp_kernels[@]}"
    plan "$r" opencl "$matrix" "${opencl_kernels[@]}"
  done
  [[ $parts == *" rcm "* ]] || continue
  "$bin" stream --backend openmp --out "$results" # the ceiling beside the reordered runs
  plan "$r" openmp "$mesh:reorder=rcm" "${openmp_kernels[@]}"
  plan "$r" opencl "$mesh:reorder=rcm" "${opencl_kernels[@]}"
done
uptime > "$out/uptime-after.txt"
"$here/spmv-bytes-table.sh" "$results" > "$out/table.md"
cat "$out/table.md"
