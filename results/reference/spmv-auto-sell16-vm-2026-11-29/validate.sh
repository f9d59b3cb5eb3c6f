#!/usr/bin/env bash
# validate.sh OUT.jsonl CYLINDER.msh AHMED.msh [BACKEND [ORDERS]] - auto's
# new picks against the old rule's (kept as explicit kernels) and the plain
# loop, on two meshes no sweep recorded, in gmsh's order and after RCM
# (ORDERS "gmsh rcm", the default, or one of them): 3 rounds, one plan
# per mesh and order, its kernels rotated each round. BACKEND: opencl
# (the default) or openmp.
set -euo pipefail
fb=${FLOWBENCH:-build/flowbench} out=$1 cyl=$2 ahmed=$3 backend=${4:-opencl} orders=${5:-gmsh rcm}
meshes=()
for m in "$cyl" "$ahmed"; do
  case " $orders " in *" gmsh "*) meshes+=("$m") ;; esac
  case " $orders " in *" rcm "*) meshes+=("$m:reorder=rcm") ;; esac
done
for r in 1 2 3; do
  for m in "${meshes[@]}"; do
    case $m in
      *:reorder=rcm) old=(--kernel sss --param CHUNKS=4) ;;   # the old rule's pick after RCM on PoCL
      *) old=(--kernel csr16) ;;                              # ... in gmsh's order (its defaults)
    esac
    ks=(--kernel auto --kernel csr-scalar "${old[@]}")
    [ $r = 2 ] && ks=(--kernel csr-scalar "${old[@]}" --kernel auto)
    [ $r = 3 ] && ks=("${old[@]}" --kernel auto --kernel csr-scalar)
    "$fb" spmv --backend "$backend" --matrix "$m" "${ks[@]}" --no-stream --out "$out" 2>/dev/null >/dev/null
  done
done
