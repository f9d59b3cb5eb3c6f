#!/usr/bin/env bash
# fake_cuda.sh FLOWBENCH SOURCE_DIR WORK_DIR FAKE_DIR - the CUDA backend
# process by process on the test suite's fake driver (FAKE_DIR/libcuda.so.1,
# and FAKE_DIR/old/libcuda.so.1 without cuLaunchKernel), found through the
# backend's own search (FLOWBENCH_CUDA_DRIVER):
#  - `devices` lists the fake's cuda:0; no device, a driver too old and a
#    driver that is not there are each said with why;
#  - a sticky CUDA error (an illegal address at the first launch) ends the
#    guarded process inside its configuration: that configuration is
#    recorded crashed with the CUDA error, and the next one runs in a new
#    process and is not blamed for it (the fake computes nothing, so its
#    check fails: wrong-result, not a CUDA error);
#  - without the guard, every later configuration says the context was
#    lost and to what, instead of an error of its own.
# Skips (77) where the CUDA backend is not built.
set -euo pipefail
bin=$1 work=$3 fake=$4/libcuda.so.1 old=$4/old/libcuda.so.1
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -e "$fake" ] || { echo "no fake driver (CUDA not built): skipped"; exit 77; }
export FLOWBENCH_CUDA_DRIVER=$fake

"$bin" devices >"$work/devices.txt" 2>&1 || fail "devices: $(cat "$work/devices.txt")"
grep -q '^cuda:0 .*flowbench fake GPU' "$work/devices.txt" || fail "no fake cuda:0: $(cat "$work/devices.txt")"
FAKE_CUDA_NO_DEVICE=1 "$bin" devices | grep -q '^cuda: no device$' || fail "no device not said"
FLOWBENCH_CUDA_DRIVER=$old "$bin" devices | grep -q '^cuda: driver too old: libcuda.so.1 lacks cuLaunchKernel' ||
  fail "a driver too old not said"
FLOWBENCH_CUDA_DRIVER=$work/none.so.1 "$bin" devices | grep -q "^cuda: no driver found: .*tried $work/none.so.1" ||
  fail "a driver that is not there not said with where it was looked for"

plan=(spmv --backend cuda --matrix gen:cube:4 --kernel csr-scalar --kernel csr-vector --no-stream --min-samples 1
  --max-samples 2)
record() { jq -c --arg k "$2" 'select(.type == "measurement" and .kernel == $k)' "$1"; }

# Guarded: the crashed configuration with its CUDA error, the next one fresh.
rc=0
FAKE_CUDA_STICKY_LAUNCH=1 FAKE_CUDA_COUNTER=$work/count "$bin" "${plan[@]}" --out "$work/guarded.jsonl" \
  >"$work/guarded.txt" 2>&1 || rc=$?
[ $rc = 1 ] || fail "guarded: exit $rc: $(tail -n 3 "$work/guarded.txt")"
record "$work/guarded.jsonl" csr-scalar | jq -e '.status == "crashed"
    and (.reason | test("CUDA_ERROR_ILLEGAL_ADDRESS \\(700\\)")) and (.reason | test("went on in a new process"))' \
  >/dev/null || fail "guarded: the first configuration: $(record "$work/guarded.jsonl" csr-scalar)"
record "$work/guarded.jsonl" csr-vector | jq -e '.status == "wrong-result"
    and (.reason | test("ILLEGAL_ADDRESS|700|context was lost") | not)' >/dev/null ||
  fail "guarded: the next configuration was blamed: $(record "$work/guarded.jsonl" csr-vector)"

# Unguarded: the later configuration names the lost context and its cause.
rc=0
FLOWBENCH_GUARD=0 FAKE_CUDA_STICKY_LAUNCH=1 FAKE_CUDA_COUNTER=$work/count2 "$bin" "${plan[@]}" \
  --out "$work/unguarded.jsonl" >"$work/unguarded.txt" 2>&1 || rc=$?
[ $rc = 1 ] || fail "unguarded: exit $rc: $(tail -n 3 "$work/unguarded.txt")"
record "$work/unguarded.jsonl" csr-vector | jq -e '.status == "failed"
    and (.reason | test("context was lost to an earlier error .*CUDA_ERROR_ILLEGAL_ADDRESS"))' >/dev/null ||
  fail "unguarded: the later configuration: $(record "$work/unguarded.jsonl" csr-vector)"
echo "fake cuda: devices, no device, too old, absent; a sticky error guarded and unguarded: ok"
