#!/usr/bin/env bash
# spmv_outputs.sh FLOWBENCH DIR - the outputs of `flowbench spmv` agree with
# each other: the results file is valid JSON Lines that the results readers
# accept, the y written by --y-out equals A x for the --x given (checked by
# running the same product on another backend with that x), and a record's
# byte model is what docs/kernels.md says for CSR, and --json prints the
# record alone, with the device kernel's resources. A block kernel on a
# matrix whose size is not a multiple of the block takes x and gives y at
# the matrix's true size.
set -euo pipefail
bin=$1; dir=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"
m=gen:cube:7
# x = a vector of the right length, written by the matrix tool from a column
n=$("$bin" matrix info "$m" --json | jq .rows)
{ echo '%%MatrixMarket matrix array real general'; echo "$n 1"; for i in $(seq 1 "$n"); do echo "0.$((i % 97 + 1))"; done; } > "$dir/x.mtx"
"$bin" spmv --matrix "$m" --x "$dir/x.mtx" --y-out "$dir/y_omp.mtx" --no-stream --max-samples 5 --out "$dir/r.jsonl" > /dev/null
"$bin" spmv --matrix "$m" --x "$dir/x.mtx" --y-out "$dir/y_ocl.mtx" --no-stream --max-samples 5 --backend opencl \
  --kernel csr-vector --out "$dir/r.jsonl" > /dev/null
# same y from two backends and kernels, to the check's tolerance
paste <(tail -n +4 "$dir/y_omp.mtx") <(tail -n +4 "$dir/y_ocl.mtx") |
  awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12 * (1 + ($1 < 0 ? -$1 : $1))) bad++ } END { exit bad > 0 }' ||
  { echo "FAIL: y from openmp and opencl differ"; exit 1; }
[ "$(tail -n +4 "$dir/y_omp.mtx" | wc -l)" -eq "$n" ] || { echo "FAIL: y has the wrong length"; exit 1; }
# two runs, two headers, two measurement records; readers accept them
[ "$(jq -s '[.[] | select(.type == "measurement" and .status == "ok")] | length' "$dir/r.jsonl")" -eq 2 ] ||
  { echo "FAIL: expected 2 ok records"; exit 1; }
"$bin" export "$dir/r.jsonl" --csv > "$dir/r.csv"
grep -q csr-vector "$dir/r.csv" || { echo "FAIL: export lost the csr-vector record"; exit 1; }
# CSR byte model: 8 B values + 4 B colidx per entry, 4 B per row pointer,
# x and y once: 12 nnz + 4 (rows + 1) + 8 cols + 8 rows
jq -s -e '[.[] | select(.type == "measurement")][0] |
  .bytes == 12 * .matrix.nnz + 4 * (.matrix.rows + 1) + 8 * .matrix.cols + 8 * .matrix.rows' "$dir/r.jsonl" > /dev/null ||
  { echo "FAIL: CSR byte model differs from docs/kernels.md"; exit 1; }
# --json puts the record alone on stdout (the text report goes to stderr);
# device kernels carry what the runtime says of them, host ones nothing.
"$bin" spmv --matrix "$m" --no-stream --max-samples 5 --backend opencl --kernel csr-vector --json 2>/dev/null |
  jq -e '.kernel_resources.local_bytes >= 8 * 128 and .kernel_resources.max_group_items >= 128' > /dev/null ||
  { echo "FAIL: opencl record lacks kernel_resources (or --json output is not JSON alone)"; exit 1; }
"$bin" spmv --matrix "$m" --no-stream --max-samples 5 --json 2>/dev/null | jq -e 'has("kernel_resources") | not' > /dev/null ||
  { echo "FAIL: openmp record claims kernel_resources"; exit 1; }
# BCSR pads a matrix whose size is not a multiple of K (5 x 5 with K = 2
# or 3) inside: --x is of the matrix's true size, and so is --y-out, equal
# to the CSR kernel's y for the same x
{ echo '%%MatrixMarket matrix array real general'; echo '5 1'; printf '%s\n' 0.5 -1 2 0.25 3; } > "$dir/x5.mtx"
"$bin" spmv --matrix "$src/matrices/general.mtx" --x "$dir/x5.mtx" --y-out "$dir/y5_csr.mtx" --no-stream \
  --max-samples 5 > /dev/null || { echo "FAIL: csr-scalar with a 5-entry x"; exit 1; }
for k in 2 3; do
  for kernel in bcsr bcsr-soa; do
    "$bin" spmv --matrix "$src/matrices/general.mtx:block=$k" --kernel $kernel --x "$dir/x5.mtx" \
      --y-out "$dir/y5_$kernel$k.mtx" --no-stream --max-samples 5 > "$dir/bcsr.log" 2>&1 ||
      { echo "FAIL: $kernel with block=$k refused the 5-entry x:"; cat "$dir/bcsr.log"; exit 1; }
    [ "$(sed -n 3p "$dir/y5_$kernel$k.mtx")" = "5 1" ] || { echo "FAIL: $kernel block=$k: y is not 5 x 1"; exit 1; }
    paste <(tail -n +4 "$dir/y5_csr.mtx") <(tail -n +4 "$dir/y5_$kernel$k.mtx") |
      awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12 * (1 + ($1 < 0 ? -$1 : $1))) bad++ } END { exit bad > 0 }' ||
      { echo "FAIL: $kernel block=$k: y differs from csr-scalar's"; exit 1; }
  done
done
echo ok
