#!/usr/bin/env bash
# alternates a stream run and two spmv runs (csr-scalar, sss) on a DRAM-sized cube, each a fresh process
fb=${FLOWBENCH:-build/flowbench}
export FLOWBENCH_STREAM_CACHE=${TMPDIR:-/tmp}/regimes-loop-stream.json FLOWBENCH_CACHE_DIR=${TMPDIR:-/tmp}/regimes-cache
for i in $(seq 1 $1); do
  s=$($fb stream --backend openmp --json 2>/dev/null | jq -r "[.[] | select(.kernel==\"triad\" or .kernel==\"dot\") | .gbs] | map(.*100|round/100) | join(\" \")")
  a=$($fb spmv --matrix gen:cube:120 --kernel csr-scalar --backend openmp --no-stream --json 2>/dev/null | jq -r "[.stats.median_s*1000, .gbs] | map(.*100|round/100) | join(\" \")")
  b=$($fb spmv --matrix gen:cube:120 --kernel sss --backend openmp --no-stream --json 2>/dev/null | jq -r "[.stats.median_s*1000, .gbs] | map(.*100|round/100) | join(\" \")")
  echo "$(date +%T) triad,dot $s | csr ms,GB/s $a | sss ms,GB/s $b"
done
