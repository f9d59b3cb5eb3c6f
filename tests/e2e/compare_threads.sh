#!/usr/bin/env bash
# compare_threads.sh FLOWBENCH WORKDIR - `flowbench compare` on real
# measurements: OpenMP stream with 2 threads recorded twice (BASE and SAME,
# the same code) and with 1 thread (HALF), RUNS runs each, interleaved in
# time so that drifts of a shared machine hit all three alike. With 7 runs a
# side compare tests the run medians, so between-run noise is in the test.
#
#  - BASE -> SAME must exit 0 with nothing SLOWER. Always enforced.
#  - BASE -> HALF must exit 1 with triad SLOWER, whenever the measurements
#    hold that difference: every 1-thread triad run slower than every
#    2-thread one. On a 2-core VM that is not a given: two threads get two
#    cores only when nothing else runs (in 1 of 60 quiet attempts and a fifth
#    of attempts beside other builds the 2-thread runs were as slow as
#    1-thread ones, or stalled). Then the attempt is repeated once, and if
#    the machine still shows no difference the test is SKIPPED (exit 77),
#    never passed. So is an attempt whose triad runs the records call
#    contended or unstable: compare then says INCONCLUSIVE, not SLOWER, by
#    design (docs/plots-and-compare.md, "On a shared machine").
#
# The size keeps the three arrays (9.6 MB) in the last-level cache, where
# one thread reaches about half the bandwidth of two; in DRAM one core of a
# 2-core VM already takes much of the memory bandwidth.
set -euo pipefail
bin=$1; dir=$2
size=${FB_E2E_SIZE:-400000}
runs=${FB_E2E_RUNS:-7}
mkdir -p "$dir"

run() { OMP_NUM_THREADS=$1 "$bin" stream --backend openmp --size "$size" --max-samples 100 --budget 0.5 \
          --out "$2" > /dev/null; }

# The triad run medians of a file, one per line, in seconds.
triad_medians() { jq -r 'select(.type == "measurement" and .kernel == "triad") | .stats.median_s' "$1"; }

# 0 if every 1-thread triad run was slower than every 2-thread one.
difference_measured() {
  local fast slow
  fast=$(triad_medians "$dir/base.jsonl" | sort -g | tail -1)
  slow=$(triad_medians "$dir/half.jsonl" | sort -g | head -1)
  awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(s > 1.05 * f) }'
}

measure() {
  rm -f "$dir"/base.jsonl "$dir"/same.jsonl "$dir"/half.jsonl
  for i in $(seq "$runs"); do
    run 2 "$dir/base.jsonl"
    run 2 "$dir/same.jsonl"
    run 1 "$dir/half.jsonl"
  done
}

check_same() {
  local code=0
  "$bin" compare "$dir/base.jsonl" "$dir/same.jsonl" > "$dir/same.txt" || code=$?
  cat "$dir/same.txt"
  [ "$code" -eq 0 ] || { echo "FAIL: the same code twice: compare exited $code, expected 0"; exit 1; }
  if grep -q '^SLOWER' "$dir/same.txt"; then echo "FAIL: the same code twice came out SLOWER"; exit 1; fi
}

# 0: SLOWER found; 1: the machine showed no difference to find.
check_half() {
  local code=0
  "$bin" compare "$dir/base.jsonl" "$dir/half.jsonl" > "$dir/half.txt" || code=$?
  cat "$dir/half.txt"
  if [ "$code" -eq 1 ] && grep -Eq '^SLOWER .* stream triad ' "$dir/half.txt"; then return 0; fi
  if grep -A1 -E '^INCONCLUSIVE .* stream triad ' "$dir/half.txt" | grep -q 'SLOWER not trusted'; then
    echo "note: a triad run was contended or unstable: compare rightly does not trust the difference"
    return 1
  fi
  if difference_measured; then
    echo "FAIL: half the threads: every 1-thread triad run was slower, yet compare exited $code"
    exit 1
  fi
  echo "note: the 2-thread runs were not all faster than the 1-thread runs: no difference to find"
  return 1
}

measure
check_same
if ! check_half; then
  echo "== measuring afresh once"
  measure
  check_same
  check_half || { echo "SKIP: no difference to trust between 2 threads and 1 on this machine (note above); half the threads not checked"; exit 77; }
fi
echo "ok: same code -> nothing SLOWER (exit 0); half the threads -> SLOWER (exit 1)"
