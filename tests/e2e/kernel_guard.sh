#!/usr/bin/env bash
# kernel_guard.sh FLOWBENCH SOURCE_DIR WORK_DIR - a user's kernel cannot
# take the harness down (core/guard.h): in a sweep, a kernel that crashes
# its process and one that never returns are recorded as crashed and
# timeout (kernel and file named) and the configurations after them run;
# one spmv run of the crashing kernel ends in one line naming it (exit 3);
# one SIGTERM stops an spmv stuck in a kernel, leaving no process behind;
# FLOWBENCH_GUARD=0 shows what the guard prevents. Skips (77) without
# OpenCL.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
kernels=tests/data/kernels
# under ASan the planted write is caught and, with abort_on_error, turned
# into SIGABRT: let the real SIGSEGV reach the guard, as it does unsanitized
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
quick=(--no-stream --min-samples 3 --max-samples 5 --budget 0.02)
# One PoCL thread: the hanging kernel spins on every thread PoCL has until
# it is killed (12 s in the sweep, 3 s in the SIGTERM check, side by side):
# on two threads it took both cores from the tests ctest runs beside this one.
export POCL_MAX_PTHREAD_COUNT=1

# The sweep runs in the background while the single runs are checked: its
# hang takes 12 s of waiting, which the other checks fill.
"$bin" sweep tests/data/suites/hostile-kernels.suite --out "$work/h.jsonl" > "$work/sweep.log" 2>&1 &
sweep=$!
trap 'kill "$sweep" 2> /dev/null || true' EXIT # a failed check leaves no sweep behind (its child dies with it)
echo "== spmv: one line names the kernel, its file and the signal"
rc=0
"$bin" spmv --matrix gen:cube:6 --backend opencl "${quick[@]}" --kernel-file $kernels/csr_oob.cl --kernel csr_oob \
  > "$work/spmv.log" 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "spmv with a crashing kernel exited $rc: $(cat "$work/spmv.log")"
[ "$(grep -c '^flowbench:' "$work/spmv.log")" = 1 ] &&
  grep -q "^flowbench: kernel csr_oob of $kernels/csr_oob.cl (spmv on opencl:0.0): .*died of SIGSEGV" "$work/spmv.log" ||
  fail "spmv's message: $(cat "$work/spmv.log")"

echo "== without the guard the process itself dies (what the guard prevents)"
rc=0
FLOWBENCH_GUARD=0 "$bin" spmv --matrix gen:cube:6 --backend opencl "${quick[@]}" --kernel-file $kernels/csr_oob.cl \
  --kernel csr_oob > "$work/unguarded.log" 2>&1 || rc=$?
[ "$rc" -gt 128 ] || fail "unguarded, the crash exited $rc; the planted kernel no longer crashes, and this test proves nothing"

echo "== one SIGTERM stops a kernel that never returns"
"$bin" spmv --matrix gen:cube:6 --backend opencl "${quick[@]}" --kernel-file $kernels/csr_spin.cl --kernel csr_spin \
  > "$work/spin.log" 2>&1 &
guard=$!
sleep 3
kill -TERM "$guard"
start=$(date +%s)
rc=0
wait "$guard" || rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 130 ] || fail "after SIGTERM spmv exited $rc: $(cat "$work/spin.log")"
[ "$took" -le 10 ] || fail "SIGTERM took $took s to stop it"
sleep 0.5
! pgrep -f "csr_spin.cl --kernel csr_spin" > /dev/null || fail "a process was left running the kernel"

echo "== sweep: a crash and a hang are recorded, the rest runs"
rc=0
wait "$sweep" || rc=$?
[ "$rc" = 1 ] || fail "sweep exited $rc (expected 1: configurations failed to run): $(cat "$work/sweep.log")"
status_of() { jq -r --arg c "$1" 'select(.case == $c) | .status' "$work/h.jsonl"; }
reason_of() { jq -r --arg c "$1" 'select(.case == $c) | .reason' "$work/h.jsonl"; }
# before and after: measured (ok, or timeout with their samples on a machine too busy for 1 s)
ran() { case "$(status_of "$1")" in ok | timeout) ;; *) fail "the configuration $1: '$(status_of "$1")'" ;; esac; }
ran before
[ "$(status_of oob)" = crashed ] || fail "the crashing kernel: '$(status_of oob)'"
reason_of oob | grep -q "died of SIGSEGV.*kernel csr_oob of .*csr_oob.cl" || fail "crash reason: $(reason_of oob)"
[ "$(status_of spin)" = timeout ] || fail "the hanging kernel: '$(status_of spin)'"
reason_of spin | grep -q "did not finish within 12 s and was killed.*kernel csr_spin of .*csr_spin.cl" ||
  fail "hang reason: $(reason_of spin)"
ran after
[ "$(jq -s 'map(select(.type == "measurement")) | length' "$work/h.jsonl")" = 4 ] || fail "not one record each"
# the hang is a timeout the guard killed: failed to run (exit 1), not a slow
# configuration that kept its samples (docs/tuning.md, "Exit status")
[ "$(jq -r 'select(.case == "spin") | .killed' "$work/h.jsonl")" = true ] || fail "the hang's record lacks killed: true"
grep -Eq "4 configurations: [0-2] ok, 0 wrong result, 2 failed, 0 pruned, 0 abandoned, [0-2] timed out" "$work/sweep.log" ||
  fail "the summary is not the whole command's, or counts the hang as expected: $(grep configurations "$work/sweep.log")"
grep -q "2 configuration(s) failed to run" "$work/sweep.log" || fail "the hang is not counted as failed to run"
grep -q '^\[4/4\]' "$work/sweep.log" || fail "progress does not count the whole command"
[ ! -e "$work/h.jsonl.inflight" ] || fail "the in-flight marker was left"

echo "ok"
