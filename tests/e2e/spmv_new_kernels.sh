#!/usr/bin/env bash
# spmv_new_kernels.sh FLOWBENCH SOURCE_DIR WORKDIR - the kernels of issue 23
# in CI: cases/quick.suite's sell, bcsr-warp and auto configurations swept
# on OpenMP and OpenCL, every one checked and recorded (sell with its
# conversion and padding, auto with its choice and why, run as the kernel it
# names); then one-bug copies of sell.cl and bcsr_warp.cl, loaded through
# FLOWBENCH_KERNEL_DIR on the OpenCL device, must come out as wrong results
# (exit 1, status wrong-result) while the unmodified copies pass. Skips (77)
# without OpenCL.
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi

echo "== quick.suite's sell, bcsr-warp and auto configurations, swept"
# without abandoning: every configuration is to be checked, and beside the
# other tests of a ctest run a slow burst can make a point look 4x slow
# twice (the abandon rule has its own test in e2e.sweep)
sed -e 's/abandon_factor: [0-9.]*/abandon_factor: 0/' -e "s|\"\.\./|\"$src/|g" "$src/cases/quick.suite" > "$dir/quick.suite"
grep -q 'abandon_factor: 0' "$dir/quick.suite" || fail "cases/quick.suite no longer sets abandon_factor"
"$bin" sweep "$dir/quick.suite" --filter '^(sell|bcsr-warp|auto)$' --out "$dir/quick.jsonl" \
  > "$dir/sweep.txt" 2>&1 || fail "sweep exited $?: $(tail -3 "$dir/sweep.txt")"
records() { jq -c 'select(.type == "measurement" and .benchmark == "spmv")' "$dir/quick.jsonl"; }
n=$(records | wc -l)
[ "$n" -ge 10 ] || fail "only $n records"
[ "$(records | jq -s 'map(select(.status != "ok")) | length')" -eq 0 ] || fail "records not ok: $(records | jq -c 'select(.status != "ok") | [.kernel, .status, .reason]')"
for b in openmp opencl; do
  records | jq -e -s --arg b "$b" 'any(.[]; .backend == $b and .kernel == "sell" and .format == "sell"
    and .sell.stored >= .matrix.nnz and .sell.conversion_s >= 0 and .check.ok)' > /dev/null ||
    fail "no checked sell record with its conversion on $b"
  records | jq -e -s --arg b "$b" 'any(.[]; .backend == $b and .kernel == "bcsr-warp" and .check.ok)' > /dev/null ||
    fail "no checked bcsr-warp record on $b"
  # auto's record is the chosen kernel's, and says so: the kernel it names ran
  records | jq -e -s --arg b "$b" '[.[] | select(.backend == $b and .auto)] | length == 2 and
    all(.[]; .auto.kernel == .kernel and .auto.choice == .format and (.auto.why | length) > 20 and .check.ok)' \
    > /dev/null || fail "auto records on $b do not name the kernel that ran: $(records | jq -c 'select(.auto) | .auto')"
done
echo "ok: $n records, every one checked"

run() { # KERNEL_DIR ARGS... -> exit status; record in $dir/out.json
  local kdir=$1; shift
  set +e
  FLOWBENCH_KERNEL_DIR=$kdir "$bin" spmv --backend opencl --no-stream --min-samples 2 --max-samples 3 --json "$@" \
    > "$dir/out.json" 2> "$dir/out.txt"
  local rc=$?
  set -e
  return $rc
}
mutant() { # NAME FILE SED-EXPRESSION: a copy of kernels/ with one change
  local name=$1 file=$2 expr=$3
  rm -rf "${dir:?}/$name"; cp -r "$src/kernels" "$dir/$name"
  sed -i "$expr" "$dir/$name/$file"
  cmp -s "$src/kernels/$file" "$dir/$name/$file" && fail "mutant $name: the edit did not apply"
  echo "$dir/$name"
}
expect_wrong() { # NAME ARGS...
  local name=$1; shift
  local rc=0
  run "$dir/$name" "$@" || rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit $rc, expected 1 (wrong result): $(tail -1 "$dir/out.txt")"
  [ "$(jq -r .status "$dir/out.json")" = wrong-result ] || fail "$name: status $(jq -r .status "$dir/out.json")"
  echo "ok: $name caught: $(tail -1 "$dir/out.txt")"
}

echo "== unmodified kernels from disk pass"
run "$src/kernels" --matrix gen:cube:6 --kernel sell --param SIGMA=32 --param SLICE_HEIGHT=8 ||
  fail "sell from disk: $(tail -1 "$dir/out.txt")"
run "$src/kernels" --matrix gen:cube:5:block=5 --kernel bcsr-warp || fail "bcsr-warp from disk: $(tail -1 "$dir/out.txt")"

echo "== sell: y written in the sorted order, not through the permutation"
mutant sell-noperm spmv/sell.cl 's|y\[permuted ? perm\[pos\] : pos\] = sum|y[pos] = sum|' > /dev/null
expect_wrong sell-noperm --matrix gen:cube:6 --kernel sell --param SIGMA=32 --param SLICE_HEIGHT=8

echo "== sell: the threads of a row not added up (THREADS_PER_ROW 2)"
mutant sell-noreduce spmv/sell.cl 's|if ((lane) < offset) partial\[lid\] += partial\[(lid) + offset\];|;|' > /dev/null
expect_wrong sell-noreduce --matrix gen:cube:6 --kernel sell --param THREADS_PER_ROW=2

echo "== bcsr-warp: only the first block of each step summed"
mutant warp-oneslot spmv/bcsr_warp.cl 's|for (int s = 1; s < BLOCKS_PER_STEP; ++s)|for (int s = 1; s < 1; ++s)|' > /dev/null
expect_wrong warp-oneslot --matrix gen:cube:5:block=5 --kernel bcsr-warp
echo "ok"
