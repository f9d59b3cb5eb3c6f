# shellcheck shell=bash
# slow-kernels.sh - sourced by aa-noise.sh and history-replay.sh: a copy of
# kernels/ in which csr-scalar does 1.5 times its work, for a real slowdown
# of one kernel on the same configurations (FLOWBENCH_KERNEL_DIR reads it).

# slow_csr_scalar KERNELS OUT: copies KERNELS to OUT (replacing it) and
# makes csr_scalar.cl sum the second half of every row twice (every row
# alike: half again the row's loads and flops), keeping the result right:
# y = head + (tail + tail again) / 2. Returns 1, with one line on stderr,
# when the lines it changes are not in the file (the kernel was edited).
slow_csr_scalar() {
  local kernels=$1 out=$2 k=$2/spmv/csr_scalar.cl
  rm -rf "$out" && cp -r "$kernels" "$out" || { echo "slow_csr_scalar: cannot copy $kernels to $out" >&2; return 1; }
  grep -q '^    for (int j = rowptr\[row\]; j < end; ++j) sum += values\[j\] \* x\[colidx\[j\]\];$' "$k" &&
    grep -q '^    y\[row\] = sum;' "$k" || { echo "slow_csr_scalar: $k: the lines to change are not there" >&2; return 1; }
  sed -i -e 's|^    for (int j = rowptr\[row\]; j < end; ++j) sum += .*|    const int mid = rowptr[row] + (end - rowptr[row]) / 2;\
    REAL tail = 0, again = 0;\
    for (int j = rowptr[row]; j < mid; ++j) sum += values[j] * x[colidx[j]];\
    for (int j = mid; j < end; ++j) tail += values[j] * x[colidx[j]];\
    for (int j = end - 1; j >= mid; --j) again += values[j] * x[colidx[j]];|' \
    -e 's|^    y\[row\] = sum;|    y[row] = sum + 0.5 * (tail + again);|' "$k" || { echo "slow_csr_scalar: cannot change $k" >&2; return 1; }
}
