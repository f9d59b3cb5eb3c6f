#!/usr/bin/env bash
# spmv-targets.sh RESULTS.jsonl[.gz]... [-- BACKEND] - where each SpMV kernel
# stands against the targets of issue 23 (docs/kernels.md): one markdown
# table per (matrix, precision, warm or cold) with, for every kernel, its
# fastest checked record on BACKEND (default cuda): parameters, GB/s of its
# minimal-byte model, the fraction of the stream triad measured on the same
# device in the same precision (the record's own, else the file's latest
# triad record of that device), the ratio to cuSPARSE on the same matrix
# (peer:cusparse for CSR-input kernels, peer:cusparse-bsr for block
# kernels: cuSPARSE's median time over the kernel's, so above 1 is faster),
# launch geometry, registers and occupancy (kernel_resources, CUDA only).
#   scripts/spmv-targets.sh results/reference/h100-2026-11-23/results.jsonl
set -euo pipefail
backend=cuda files=()
while [ $# -gt 0 ]; do
  case $1 in
    --) backend=${2:?usage: spmv-targets.sh RESULTS... [-- BACKEND]}; shift 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
[ ${#files[@]} -gt 0 ] || { echo "usage: spmv-targets.sh RESULTS.jsonl[.gz]... [-- BACKEND]" >&2; exit 2; }
for f in "${files[@]}"; do [ -r "$f" ] || { echo "spmv-targets.sh: $f: cannot read" >&2; exit 2; }; done
read_all() { for f in "$@"; do case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac; done; }

read_all "${files[@]}" | jq -r -s --arg b "$backend" '
  def fmt(d): if . == null then "-" else (. * pow(10; d) | round / pow(10; d) | tostring) end;
  def block_kernel: test("^bcsr") or . == "peer:cusparse-bsr";
  ([.[] | select(.type == "measurement" and .benchmark == "stream" and .kernel == "triad" and .status == "ok")]
   | map({key: "\(.device)|\(.precision)", value: .gbs}) | from_entries) as $triad
  | [.[] | select(.type == "measurement" and .benchmark == "spmv" and .status == "ok" and .backend == $b)]
  | group_by([.matrix.name, .precision, .cold])
  | .[]
  | (sort_by(.stats.median_s)) as $all
  | ([$all[] | select(.kernel == "peer:cusparse")] | first) as $cs
  | ([$all[] | select(.kernel == "peer:cusparse-bsr")] | first) as $bsr
  | "\n\($all[0].matrix.name), \($all[0].precision), \(if $all[0].cold then "cold L2" else "warm" end) (\($all[0].device_name)):\n",
    "| kernel | parameters | GB/s | of triad | vs cuSPARSE | launch (global/local) | registers | occupancy |",
    "|---|---|---:|---:|---:|---|---:|---:|",
    ($all | group_by(.kernel) | map(first) | sort_by(.stats.median_s) | .[]
     | (.fraction_of_stream // (if $triad["\(.device)|\(.precision)"] then .gbs / $triad["\(.device)|\(.precision)"]
                                else null end)) as $frac
     | (if (.kernel | block_kernel) then $bsr else $cs end) as $peer
     | "| \(.kernel) | \(.params | to_entries | map("\(.key)=\(.value)") | join(" ")) | \(.gbs | fmt(0))"
       + " | \($frac | fmt(2)) | \(if $peer then ($peer.stats.median_s / .stats.median_s | fmt(2)) else "-" end)"
       + " | \(if .launch then "\(.launch.global[0])/\(.launch.local[0])" else "-" end)"
       + " | \(if (.kernel_resources.registers // 0) > 0 then .kernel_resources.registers else "-" end) | \(if (.kernel_resources.occupancy // 0) > 0 then (.kernel_resources.occupancy | fmt(2)) else "-" end) |")'
