# shellcheck shell=bash
# dram-cube.sh - sourced by default-suite.sh: the DRAM-sized SpMV matrix of
# this machine, derived as the stream arrays are (docs/measurement.md,
# "Stream: the roofline reference"): a gen:cube:N whose CSR working set in
# double precision is at least 4x the last-level cache `flowbench devices`
# measures on the openmp device. A fixed gen:cube:29 (4.6 MB) was
# cache-resident on every machine the suite ran on.

# cube_csr_bytes N: the SpMV byte model of gen:cube:N's CSR matrix in double
# (kernels/spmv: nnz x (8 + 4) + rows x (4 + 8 + 8) + 4, the row pointers,
# x and y), with the cube's exact counts: rows N^3, nonzeros
# 15 N^3 - 24 N^2 + 12 N - 2 (the tetrahedra's node graph and diagonal;
# e2e.default_dram_cube checks it against `flowbench matrix info`).
cube_csr_bytes() {
  local n=$1
  echo $(( 12 * (15 * n * n * n - 24 * n * n + 12 * n - 2) + 20 * n * n * n + 4 ))
}

# dram_cube FLOWBENCH [MAX]: prints gen:cube:N, the least N from 29 (the
# cavity's level 1, the suite's matrix before) whose CSR working set is 4x
# the openmp device's last-level cache, with two caps that keep the suite
# within its time and memory: N at most MAX (default
# $FLOWBENCH_DRAM_CUBE_MAX, else 100: 1M rows, 200 MB; every kernel and peer
# in both precisions took 216 s on openmp at gen:cube:89 on the 2-CPU VM,
# against 19 s at 29), and the 4x4 block form's run, which peaks at about
# 40x the CSR bytes (5.4 GB at gen:cube:89), within half the host's
# memory. Where a cap leaves the matrix under 4x the cache, or in it, one
# line on stderr says so: its figures include cache reuse.
dram_cube() {
  local bin=$1 max=${2:-${FLOWBENCH_DRAM_CUBE_MAX:-100}} llc mem n=29 bytes why=""
  read -r llc mem < <("$bin" devices --json |
    jq -r '[.backends[] | select(.name == "openmp") | .devices[0]][0] | "\(.cache_bytes // 0) \(.global_mem_bytes // 0)"')
  [ "${llc:-0}" -gt 0 ] 2> /dev/null || { echo "gen:cube:$n"; echo "dram_cube: the openmp device names no last-level cache: gen:cube:$n" >&2; return 0; }
  while [ "$(cube_csr_bytes "$n")" -lt $((4 * llc)) ] && [ "$n" -lt "$max" ]; do n=$((n + 1)); done
  [ "$(cube_csr_bytes "$n")" -ge $((4 * llc)) ] || why="at most gen:cube:$max (FLOWBENCH_DRAM_CUBE_MAX) to keep the suite's time"
  while [ "$mem" -gt 0 ] && [ "$n" -gt 29 ] && [ $((80 * $(cube_csr_bytes "$n"))) -gt "$mem" ]; do
    n=$((n - 1)); why="held at gen:cube:$n so that its 4x4 block form fits in half of the $((mem >> 20)) MiB memory"
  done
  bytes=$(cube_csr_bytes "$n")
  echo "gen:cube:$n"
  if [ "$bytes" -le "$llc" ]; then
    echo "dram_cube: gen:cube:$n ($((bytes >> 20)) MiB of CSR) is cache-resident in the $((llc >> 20)) MiB last-level cache, $why: its figures include cache reuse, not DRAM bandwidth" >&2
  elif [ "$bytes" -lt $((4 * llc)) ]; then
    echo "dram_cube: gen:cube:$n ($((bytes >> 20)) MiB of CSR) is under 4x the $((llc >> 20)) MiB last-level cache, $why: its figures include cache reuse" >&2
  fi
}
