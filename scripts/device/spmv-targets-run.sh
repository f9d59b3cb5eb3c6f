#!/usr/bin/env bash
# spmv-targets-run.sh OUTDIR [BACKEND] - on a GPU node (build-gpu/ and
# .devlibs/ from scripts/device/bundle.sh beside the source, as for
# reference-run.sh, which calls it): the measurements behind the SpMV
# targets of issue 23 (docs/kernels.md, "Targets of issue 23"), on BACKEND
# (default cuda):
#   - every SpMV kernel at its defaults, what --kernel auto picks, and
#     cuSPARSE (CSR, and BSR for the block forms), on gen:cube:57 (the
#     cavity level-2 Laplacian, L2-sized) and gen:cube:120 (DRAM-sized),
#     scalar and in 4x4 and 5x5 blocks, double and single, warm and with
#     the L2 flushed before every sample (--cold);
#   - the spaces of the new kernels on the DRAM-sized matrix, both
#     precisions: sell (C, threads per row, sigma, work-group), bcsr-warp
#     (team, work-group) and bcsr-lanes (never measured on a GPU before),
#     on the 4x4 and 5x5 forms;
#   - then OUTDIR/spmv-targets.md (scripts/spmv-targets.sh: fraction of
#     triad, ratio to cuSPARSE, launch, registers, occupancy per kernel) and
#     OUTDIR/spmv_auto_rule.h, the auto rule relearned with these records
#     (copy it over kernels/spmv/spmv_auto_rule.h and commit it).
# Every record goes to OUTDIR/results.jsonl, the text to OUTDIR/spmv-targets.log.
# SPMV_MATRICES and SPMV_DRAM_MATRIX replace the matrices (to try the script
# on small ones: SPMV_MATRICES="gen:cube:12" SPMV_DRAM_MATRIX=gen:cube:12).
# About 10 minutes on an H100 node, most of it building the 5x5 form of
# gen:cube:120 (640 M stored entries, 7.7 GB in double) on the host.
set -uo pipefail
out=${1:?usage: spmv-targets-run.sh OUTDIR [BACKEND]}
backend=${2:-cuda}
mkdir -p "$out"
root=$PWD
bin=${FLOWBENCH:-$root/build-gpu/flowbench}
[ -d "$root/.devlibs" ] && export LD_LIBRARY_PATH=$root/.devlibs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
read -r -a matrices <<< "${SPMV_MATRICES:-gen:cube:57 gen:cube:120}"
dram=${SPMV_DRAM_MATRIX:-gen:cube:120}
res=$out/results.jsonl
log=$out/spmv-targets.log
# A plan (several --kernel, --param lists) runs as a one-case sweep with the
# stream triad of the device first: its fraction is in every record.
plan() { "$bin" spmv --backend "$backend" --out "$res" "$@" >>"$log" 2>&1 || echo "FAILED ($?): spmv $*" | tee -a "$log"; }
csr_kernels=(--kernel csr-scalar --kernel csr-vector --kernel csr-multirow --kernel csr-merge --kernel sell
             --kernel auto --kernel peer:cusparse)
block_kernels=(--kernel bcsr --kernel bcsr-vector --kernel bcsr-lanes --kernel bcsr-soa --kernel bcsr-warp
               --kernel auto --kernel peer:cusparse-bsr)

echo "== every kernel, auto and cuSPARSE: ${matrices[*]}, scalar, 4x4, 5x5, double and single, warm and cold"
for m in "${matrices[@]}"; do
  for p in double single; do
    for cold in "" --cold; do
      plan --matrix "$m" "${csr_kernels[@]}" --precision $p $cold
      for k in 4 5; do plan --matrix "$m:block=$k" "${block_kernels[@]}" --precision $p $cold; done
    done
  done
done

echo "== the spaces of sell, bcsr-warp and bcsr-lanes on the DRAM-sized $dram"
for p in double single; do
  plan --matrix "$dram" --kernel sell --precision $p --param SLICE_HEIGHT=4,8,16,32 \
    --param THREADS_PER_ROW=1,2,4 --param SIGMA=1,256 --param WG_SIZE=64,128,256
  for k in 4 5; do
    plan --matrix "$dram:block=$k" --kernel bcsr-warp --precision $p --param TEAM=8,16,32 --param WG_SIZE=64,128,256
    plan --matrix "$dram:block=$k" --kernel bcsr-lanes --precision $p --param BLOCKS_PER_ITER=1,2,4,8 \
      --param BROWS_PER_GROUP=1,2,4,8,16
  done
done

"$root/scripts/spmv-targets.sh" "$res" -- "${backend%%:*}" >"$out/spmv-targets.md" 2>>"$log" ||
  echo "FAILED: spmv-targets.sh" | tee -a "$log"
"$root/scripts/spmv-auto-rule.sh" "$root/results/reference/h100-2026-11-23/results.jsonl" \
  "$root/results/reference/spmv-auto-cpu-2026-11-24/results.jsonl.gz" "$res" >"$out/spmv_auto_rule.h" 2>>"$log" ||
  echo "FAILED: spmv-auto-rule.sh" | tee -a "$log"
grep -c '"status": *"ok"' "$res" | sed 's/^/spmv ok records: /'
grep -E "FAILED|wrong" "$log" | head -n 20
