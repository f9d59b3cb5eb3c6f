#!/usr/bin/env bash
# spmv-bytes-table.sh RESULTS.jsonl[.gz] - the table of scripts/spmv-bytes.sh:
# per matrix (and order), backend and precision, each SpMV kernel's median
# over its checked records of the median time, its GB/s in its own format's
# bytes and the median fraction of the read ceiling (fraction_of_read: the
# device's stream dot; "-" where none was measured or dot ran below the
# triad), and the speedup over csr-scalar (the plain loop), over the
# fastest CSR kernel and over GraphBLAS on the same matrix (their time over
# the kernel's: above 1 is faster), with the range of that speedup over
# csr-scalar across the processes that ran both (one a round in
# spmv-bytes.sh: a target the median meets may not hold in every round;
# each process's ratio of its medians where it recorded a kernel twice). A
# kernel's records are taken together whatever their point (spmv-bytes.sh
# runs one point of each). A kernel that trades precision for bytes is
# marked (mixed).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: spmv-bytes-table.sh RESULTS.jsonl[.gz]..." >&2; exit 2; }
for f in "$@"; do [ -r "$f" ] || { echo "spmv-bytes-table.sh: $f: cannot read" >&2; exit 2; }; done
read_all() { for f in "$@"; do case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac; done; }
read_all "$@" | jq -r -s '
  def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
              else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def fmt(d): if . == null then "-" else (. * pow(10; d) | round / pow(10; d) | tostring) end;
  [.[] | select(.type == "measurement" and .benchmark == "spmv" and .status == "ok")]
  | group_by([.matrix.name, (.matrix.reorder // "natural"), .backend, .precision])
  | map(. as $g
        | ($g | group_by(.kernel) | map({kernel: .[0].kernel, n: length,
             t: (map(.stats.median_s) | median), gbs: (map(.gbs) | median),
             read: (map(.fraction_of_read | select(. != null)) | median),
             csr: (.[0].format == "csr"), mixed: (.[0].check.error_vs_double_values != null)})) as $k
        | ($g | group_by(.run_id) | map(select(any(.[]; .kernel == "csr-scalar"))
             | (map(select(.kernel == "csr-scalar") | .stats.median_s) | median) as $p
             | group_by(.kernel) | map({kernel: .[0].kernel, r: ($p / (map(.stats.median_s) | median))}))
           | flatten | group_by(.kernel)
           | map({key: .[0].kernel, value: (map(.r) | if length > 1 then "\(min | fmt(2))-\(max | fmt(2))"
                                                    else (.[0] | fmt(2)) end)})
           | from_entries) as $range
        | ($k | map(select(.kernel == "csr-scalar")) | first | .t) as $plain
        | ($k | map(select(.kernel == "peer:graphblas")) | first | .t) as $gb
        | ($k | map(select(.csr and (.kernel | startswith("peer:") | not)) | .t) | min) as $best
        | "\n### \($g[0].matrix.name) (\($g[0].matrix.reorder // "natural order")), \($g[0].backend), \($g[0].precision): \($g[0].matrix.rows) rows, \($g[0].matrix.nnz) entries\n",
          "| kernel | runs | median ms | GB/s (own bytes) | of read ceiling | vs csr-scalar | by process | vs best CSR | vs GraphBLAS |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
          ($k | sort_by(.t) | .[] |
           "| \(.kernel)\(if .mixed then " (mixed)" else "" end) | \(.n) | \(.t * 1e3 | fmt(3)) | \(.gbs | fmt(2)) | \(.read | fmt(2)) | \(if $plain then ($plain / .t | fmt(2)) else "-" end) | \(if .kernel == "csr-scalar" then "-" else ($range[.kernel] // "-") end) | \(if $best then ($best / .t | fmt(2)) else "-" end) | \(if $gb then ($gb / .t | fmt(2)) else "-" end) |"))
  | .[]'
