#!/usr/bin/env bash
# spmv_auto_rule.sh SRC DIR - scripts/spmv-auto-rule.sh counts a
# configuration recorded several times (rounds of a sweep, or several
# files) at the median of its medians, not its least: a kernel fast once
# and slow twice loses to one steady between the two, whichever file or
# round its records come in; a configuration recorded once is taken as
# it is; a matrix with one kernel gives no row.
set -euo pipefail
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
rec() { # MATRIX KERNEL MEDIAN_S ROUND: one checked OpenMP record
  jq -cn --arg m "$1" --arg k "$2" --argjson t "$3" --argjson r "$4" '{type: "measurement", benchmark: "spmv",
    status: "ok", cold: false, backend: "openmp", device_name: "test CPU", precision: "double", kernel: $k,
    params: {WG_SIZE: 128}, round: $r, check: {ok: true}, stats: {median_s: $t},
    matrix: {name: $m, hash: ($m + "-hash"), rows: 1000, bandwidth: 20, nnz_per_row: {mean: 7, stddev: 1}}}'
}
{ # round 1: lucky-once is fastest of all; the second matrix has one record a kernel
  rec cube lucky-once 0.5e-3 1; rec cube steady 2e-3 1
  rec cube2 csr-scalar 4e-3 1; rec cube2 csr-vector 3e-3 1
  rec alone csr-scalar 1e-3 1
} > "$dir/round1.jsonl"
{ rec cube lucky-once 3e-3 2; rec cube steady 2e-3 2; } > "$dir/round2.jsonl"
{ rec cube lucky-once 3e-3 3; rec cube steady 2.1e-3 3; } | gzip > "$dir/round3.jsonl.gz"
"$src/scripts/spmv-auto-rule.sh" "$dir/round1.jsonl" "$dir/round2.jsonl" "$dir/round3.jsonl.gz" > "$dir/rule.h" ||
  fail "the rule script failed"
row() { grep -F "\"$1\", 1000," "$dir/rule.h" || true; }
# steady: median 2e-3; lucky-once: median 3e-3 (its least, 0.5e-3, won before)
row cube | grep -q '"steady", "WG_SIZE=128", 0.002, "lucky-once", 0.003}' || fail "cube: $(row cube)"
row cube2 | grep -q '"csr-vector", "WG_SIZE=128", 0.003, "csr-scalar", 0.004}' || fail "cube2: $(row cube2)"
[ -z "$(row alone)" ] || fail "a matrix with one kernel gave a row: $(row alone)"
[ "$(grep -c '^    {"openmp"' "$dir/rule.h")" = 2 ] || fail "rows: $(grep -c '^    {"openmp"' "$dir/rule.h"), not 2"
echo ok
