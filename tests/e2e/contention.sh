#!/usr/bin/env bash
# contention.sh FLOWBENCH DIR - flowbench on a shared machine
# (docs/measurement.md, "On a shared machine"), on planted machines:
#   - a fake /proc (FLOWBENCH_PROC_ROOT) with other runnable work: the
#     command re-executes with passive OpenMP waiting and records who chose
#     it and why; the record is contended, with the reason, and the
#     terminal line says "contended:" instead of "converged";
#   - a fake quiet /proc: the runtime's default policy is kept;
#   - the user's OMP_WAIT_POLICY wins over the decision, and is recorded;
#   - real competitors (busy processes, one more than the CPUs): the record
#     says passive waiting was chosen and the run was contended.
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
run=(spmv --matrix gen:cube:6 --kernel csr-scalar --no-stream --min-samples 5 --max-samples 40 --budget 0.2)

plant() { # plant ROOT RUNNABLE: a /proc with RUNNABLE runnable tasks, this process one of them
  mkdir -p "$1/self/task/1"
  echo "1.00 0.50 0.25 $2/300 4242" > "$1/loadavg"
  echo "cpu  100 0 100 1000 0 0 0 0 0 0" > "$1/stat"
  echo "1 (flowbench) R 0 1 1 0 -1" > "$1/self/task/1/stat"
}
cpus=$(nproc)
plant "$dir/busy" $((cpus + 2))
plant "$dir/quiet" 1
unset OMP_WAIT_POLICY GOMP_SPINCOUNT FLOWBENCH_WAIT_POLICY_DECISION

FLOWBENCH_PROC_ROOT=$dir/busy "$bin" "${run[@]}" --json > "$dir/busy.json" 2> "$dir/busy.err" ||
  fail "busy: $(tail -2 "$dir/busy.err")"
jq -e '.environment.openmp.wait | .policy == "passive" and .set_by == "flowbench" and (.why | test("other runnable"))' \
  "$dir/busy.json" > /dev/null || fail "busy: no passive decision: $(jq -c .environment.openmp.wait "$dir/busy.json")"
jq -e '.environment.openmp.variables.OMP_WAIT_POLICY == "passive"' "$dir/busy.json" > /dev/null ||
  fail "busy: the re-executed process does not run with OMP_WAIT_POLICY=passive"
jq -e '.stats.quality == "contended" and .stats.stop != "converged" and .environment.contended
       and (.stats.quality_why | test("other runnable tasks")) and (.environment.contended_why | length > 0)' \
  "$dir/busy.json" > /dev/null || fail "busy: not contended: $(jq -c '.stats | del(.samples_s)' "$dir/busy.json")"
out=$(FLOWBENCH_PROC_ROOT=$dir/busy "$bin" "${run[@]}" 2>&1) || fail "busy text: $out"
grep -Eq 'median .* \(95% CI .*, contended: CV [0-9]+%, min .* ms, median .* ms.*: up to [0-9]+ other runnable tasks' \
  <<< "$out" || fail "busy: the terminal line does not say contended: $out"
grep -q 'converged' <<< "$out" && fail "busy: a contended run says converged: $out"

FLOWBENCH_PROC_ROOT=$dir/quiet "$bin" "${run[@]}" --json > "$dir/quiet.json" 2> /dev/null || fail "quiet run"
jq -e '.environment.openmp.wait.set_by == "default" and (.environment.openmp.variables | has("OMP_WAIT_POLICY") | not)
       and .environment.contended == false and .environment.other_runnable.max == 0' "$dir/quiet.json" > /dev/null ||
  fail "quiet: $(jq -c .environment "$dir/quiet.json")"

# A task that passes (busy for the start's first 80 ms, then gone) is not
# competing work: the look (up to 250 ms) keeps the default; the look of
# 30 ms before it switched on passive waiting for any such task. And the
# busy machine's decision is said once, at the first measurement.
plant "$dir/passing" $((cpus + 2))
(sleep 0.08; echo "1.00 0.50 0.25 1/300 4242" > "$dir/passing/loadavg.new" && mv "$dir/passing/loadavg.new" "$dir/passing/loadavg") &
FLOWBENCH_GUARD=0 FLOWBENCH_PROC_ROOT=$dir/passing "$bin" "${run[@]}" --json > "$dir/passing.json" 2> /dev/null ||
  fail "passing task run"
wait
jq -e '.environment.openmp.wait.set_by == "default" and (.environment.openmp.wait.why | test("no competing work at start"))' \
  "$dir/passing.json" > /dev/null || fail "a passing task switched on passive waiting: $(jq -c .environment.openmp.wait "$dir/passing.json")"
FLOWBENCH_PROC_ROOT=$dir/busy "$bin" "${run[@]}" > /dev/null 2> "$dir/busy-said.err" || fail "busy, said"
[ "$(grep -c 'note: OpenMP wait policy: passive' "$dir/busy-said.err")" = 1 ] ||
  fail "the passive decision is not said once: $(cat "$dir/busy-said.err")"
OMP_WAIT_POLICY=active FLOWBENCH_PROC_ROOT=$dir/busy "$bin" "${run[@]}" --json > "$dir/user.json" 2> /dev/null ||
  fail "user policy run"
jq -e '.environment.openmp.wait | .policy == "active" and .set_by == "user"' "$dir/user.json" > /dev/null ||
  fail "user: the user's policy did not win: $(jq -c .environment.openmp.wait "$dir/user.json")"
# what is in force is recorded: libgomp takes " Passive " and ignores "garbage"
OMP_WAIT_POLICY=" Passive " "$bin" "${run[@]}" --json > "$dir/spaced.json" 2> /dev/null || fail "spaced policy run"
jq -e '.environment.openmp.wait | .policy == "passive" and .set_by == "user"' "$dir/spaced.json" > /dev/null ||
  fail "' Passive ' is not recorded as the passive policy: $(jq -c .environment.openmp.wait "$dir/spaced.json")"
OMP_WAIT_POLICY=garbage "$bin" "${run[@]}" --json > "$dir/garbage.json" 2> /dev/null || fail "garbage policy run"
jq -e '.environment.openmp.wait | (.policy | test("default.*ignored")) and .set_by != "user" and (.why | test("ignored"))' \
  "$dir/garbage.json" > /dev/null ||
  fail "OMP_WAIT_POLICY=garbage is recorded as the user's policy: $(jq -c .environment.openmp.wait "$dir/garbage.json")"

# the environment part is in every record: a sweep's too, with the contended mark on its progress line
cat > "$dir/one.suite" << 'SUITE'
suite: one
backends: [openmp]
precisions: [double]
stream: false
measure: {min_samples: 3, max_samples: 20, budget_s: 0.05}
matrices: [gen:cube:5]
cases:
  - name: c
    kernels: [csr-scalar]
SUITE
FLOWBENCH_PROC_ROOT=$dir/busy "$bin" sweep "$dir/one.suite" --out "$dir/sweep.jsonl" > "$dir/sweep.log" 2>&1 ||
  fail "sweep: $(tail -3 "$dir/sweep.log")"
grep -q 'contended' "$dir/sweep.log" || fail "sweep: the progress line does not say contended: $(cat "$dir/sweep.log")"
jq -se '[.[] | select(.kernel == "csr-scalar")] | length >= 1 and all(.environment.contended)' "$dir/sweep.jsonl" \
  > /dev/null || fail "sweep: records without a contended environment"

# real competitors: one more busy process than CPUs, for this command only
pids=()
for _ in $(seq $((cpus + 1))); do (exec timeout 60 sh -c 'while :; do :; done') & pids+=($!); done
trap 'kill "${pids[@]}" 2> /dev/null || true' EXIT
sleep 0.3
# (at least 300 samples of a larger matrix: tens of ms of work; a window of
# 2 ms, gen:cube:10's 51 samples, once fell between the competitors'
# timeslices, waited for no CPU and was rightly judged stable)
"$bin" spmv --matrix gen:cube:20 --kernel csr-scalar --no-stream --budget 0.5 --min-samples 300 --max-samples 400 \
  --json > "$dir/real.json" 2> /dev/null ||
  fail "real competitors run"
kill "${pids[@]}" 2> /dev/null || true
jq -e '.environment.openmp.wait.set_by == "flowbench" and .environment.openmp.wait.policy == "passive"' \
  "$dir/real.json" > /dev/null || fail "real: no passive decision: $(jq -c .environment.openmp "$dir/real.json")"
jq -e '.stats.quality == "contended"' "$dir/real.json" > /dev/null ||
  fail "real: not contended: $(jq -c '.environment, (.stats | del(.samples_s))' "$dir/real.json")"

# no signal readable (a container that hides /proc): "not measured", never quiet
mkdir -p "$dir/noproc"
FLOWBENCH_PROC_ROOT=$dir/noproc "$bin" "${run[@]}" --json > "$dir/noproc.json" 2> "$dir/noproc.err" || fail "no-proc run"
jq -e '.environment.contended == null and (.environment.contended_why | test("^not measured"))
       and (.environment.openmp.wait.why | test("not looked at"))' "$dir/noproc.json" \
  > /dev/null || fail "no /proc: contention recorded as measured: $(jq -c .environment "$dir/noproc.json")"
[ "$(grep -c 'cannot be read.*contention not measured' "$dir/noproc.err")" = 1 ] ||
  fail "no /proc: not said once on stderr: $(cat "$dir/noproc.err")"
# /proc not mounted at all: the guard cannot start this program again; the
# command runs unguarded and says so (it exited 127 without a word)
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null; then
  code=0
  unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$bin" "${run[@]}" --json > "$dir/unmounted.json" \
    2> "$dir/unmounted.err" || code=$?
  [ "$code" = 0 ] || fail "without /proc: exit $code: $(cat "$dir/unmounted.err")"
  grep -q 'running without the guard' "$dir/unmounted.err" || fail "without /proc: the guard's absence is not said"
  jq -e '.environment.contended == null' "$dir/unmounted.json" > /dev/null || fail "without /proc: contention recorded"
else
  echo "note: /proc unmounted not tried (needs root and unshare -m)"
fi
echo "ok: contention planted and seen"
