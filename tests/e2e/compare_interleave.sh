#!/usr/bin/env bash
# compare_interleave.sh FLOWBENCH SOURCE_DIR WORK_DIR - `compare --interleave`
# end to end on the OpenCL device (tests/data/suites/interleave.suite):
#  - the same binary twice, 3 rounds: nothing SLOWER (exit 0), and the table
#    says 3 rounds cannot reach the sign test's level;
#  - against a wrapper whose csr-scalar does its work four times
#    (FLOWBENCH_KERNEL_DIR, a copy of kernels/ with that one file changed:
#    same configuration key, a slower kernel; four times, not twice, so
#    that a burst of load that slows one side of a round 2x, as other
#    builds on a 2-core VM do, does not flip it): 3 rounds are not enough; the
#    same command with --rounds 5 continues the 3 rounds (runs only 4 and
#    5, NEW first in even rounds) and says SLOWER (exit 1, JUnit failure);
#  - Ctrl-C (SIGINT from the wrapper in round 2): exit 130, round 1 kept,
#    the same command continues;
#  - a 2-thread side against a 1-thread one (wrappers setting
#    OMP_NUM_THREADS) on a planted busy machine (FLOWBENCH_PROC_ROOT, a fake
#    /proc with more runnable tasks than CPUs: every record contended): the
#    header names the threads and the variable, the verdict says "under
#    load: 2 of 2 rounds contended" in the table and the JUnit file; the
#    A/A above names no thread difference;
#  - usage errors name the file: a missing binary or suite, another pair of
#    binaries on the same --out, --rounds without --interleave (exit 2).
# Skips (77) without OpenCL.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
suite=$src/tests/data/suites/interleave.suite
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
"$bin" compare --help > "$work/help.txt"
grep -q -- '^  --interleave ' "$work/help.txt" || fail "compare --help does not list --interleave"

# run EXPECTED_RC NAME ARGS...: compare --interleave, output in WORK/NAME.out and .err
run() {
  local want=$1 name=$2 rc=0; shift 2
  "$bin" compare --interleave "$@" > "$work/$name.out" 2> "$work/$name.err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$work/$name.out" "$work/$name.err"; fail "$name: exit $rc, expected $want"; }
}
finished() { jq -c .finished "$1/interleave.json"; }

echo "== A/A: the same binary twice, 3 rounds"
run 0 aa "$bin" "$bin" "$suite" --rounds 3 --out "$work/aa"
grep -q '^SLOWER' "$work/aa.out" && fail "A/A came out SLOWER: $(cat "$work/aa.out")"
grep -Eq '^(SAME|INCONCLUSIVE) .* of 3 .*spmv csr-scalar opencl' "$work/aa.out" || fail "A/A row: $(cat "$work/aa.out")"
grep -q 'note: 3 rounds cannot reach p <= 0.05' "$work/aa.out" || fail "no note on too few rounds"
grep -q 'OpenMP threads:' "$work/aa.out" && fail "A/A names a thread difference: $(cat "$work/aa.out")"
[ "$(grep -c '^interleave: round [1-3]/3 done' "$work/aa.err")" = 3 ] || fail "progress lines: $(cat "$work/aa.err")"

echo "== a kernel doing its work four times"
cp -r "$src/kernels" "$work/kernels-slow"
k=$work/kernels-slow/spmv/csr_scalar.cl
grep -q '    y\[row\] = sum;' "$k" || fail "$k: the line to change is not there"
sed -i 's|^    y\[row\] = sum;|    REAL again = 0; /* three times more, backwards: no compiler merges the loops */\
    for (int pass = 0; pass < 3; ++pass)\
        for (int j = end - 1; j >= rowptr[row]; --j) again += values[j] * x[colidx[j]];\
    y[row] = 0.25 * (sum + again);|' "$k"
printf '#!/bin/sh\nFLOWBENCH_KERNEL_DIR=%s exec %s "$@"\n' "$work/kernels-slow" "$bin" > "$work/slow.sh"
chmod +x "$work/slow.sh"
run 0 ab3 "$bin" "$work/slow.sh" "$suite" --rounds 3 --out "$work/ab"
grep -q '^SLOWER' "$work/ab3.out" && fail "3 rounds gave SLOWER: $(cat "$work/ab3.out")"
run 1 ab5 "$bin" "$work/slow.sh" "$suite" --rounds 8 --out "$work/ab" --junit "$work/ab.xml"
grep -q 'holds 3 finished round(s); continuing' "$work/ab5.err" || fail "not continued: $(cat "$work/ab5.err")"
grep -q '^interleave: round [1-3]/8:' "$work/ab5.err" && fail "finished rounds ran again: $(cat "$work/ab5.err")"
grep -Eq '^SLOWER +\+[0-9.]+% .* (8/0|7/1) of 8 .*spmv csr-scalar opencl' "$work/ab5.out" ||
  fail "four times the work is not SLOWER: $(cat "$work/ab5.out")"
[ "$(finished "$work/ab" | jq -r 'join(" ")')" = "r1-base r1-new r2-new r2-base r3-base r3-new r4-new r4-base r5-base r5-new \
r6-new r6-base r7-base r7-new r8-new r8-base" ] ||
  fail "round order: $(finished "$work/ab")"
# "SLOWER under load: N of 8 rounds contended" when this machine was busy (other builds)
grep -Eq '<failure type="SLOWER" message="SLOWER( under load: [1-8] of 8 rounds contended(, [1-7] quiet)?)?: median ratio .* over 8 interleaved rounds: [78] above 1' "$work/ab.xml" ||
  fail "junit: $(cat "$work/ab.xml")"

echo "== Ctrl-C in round 2 keeps round 1; the same command continues"
cat > "$work/stop.sh" << STOP
#!/bin/sh
# the second run (round 2, NEW first) interrupts compare, as Ctrl-C would
n=\$(cat "$work/stop.count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > "$work/stop.count"
[ "\$n" = 2 ] && kill -INT \$PPID
exec "$bin" "\$@"
STOP
chmod +x "$work/stop.sh"
run 130 stop1 "$bin" "$work/stop.sh" "$suite" --rounds 2 --out "$work/stop"
grep -q 'interrupted in round 2 (NEW); 1 finished round(s) are kept in' "$work/stop1.err" ||
  fail "interrupt message: $(cat "$work/stop1.err")"
[ "$(finished "$work/stop")" = '["r1-base","r1-new"]' ] || fail "after the interrupt: $(finished "$work/stop")"
run 0 stop2 "$bin" "$work/stop.sh" "$suite" --rounds 2 --out "$work/stop"
[ "$(finished "$work/stop")" = '["r1-base","r1-new","r2-new","r2-base"]' ] || fail "continued: $(finished "$work/stop")"

echo "== other threads on a busy machine: the header names them, the verdict says under load"
mkdir -p "$work/busy/self/task/1" # a /proc with two more runnable tasks than CPUs (tests/e2e/contention.sh)
echo "1.00 0.50 0.25 $(($(nproc) + 2))/300 4242" > "$work/busy/loadavg"
echo "cpu  100 0 100 1000 0 0 0 0 0 0" > "$work/busy/stat"
echo "1 (flowbench) R 0 1 1 0 -1" > "$work/busy/self/task/1/stat"
for t in 1 2; do
  printf '#!/bin/sh\nOMP_NUM_THREADS=%s FLOWBENCH_PROC_ROOT=%s exec %s "$@"\n' "$t" "$work/busy" "$bin" > "$work/threads$t.sh"
  chmod +x "$work/threads$t.sh"
done
run 0 load "$work/threads2.sh" "$work/threads1.sh" "$suite" --rounds 2 --out "$work/load" --junit "$work/load.xml"
grep -q "^NEW ran with other settings than BASE (their records' environment):\$" "$work/load.out" ||
  fail "no settings in the header: $(cat "$work/load.out")"
grep -q '^  OpenMP threads: BASE 2, NEW 1$' "$work/load.out" || fail "threads not named: $(cat "$work/load.out")"
grep -q '^  OMP_NUM_THREADS: BASE 2, NEW 1$' "$work/load.out" || fail "variable not named: $(cat "$work/load.out")"
grep -Eq '^ +(SAME|INCONCLUSIVE) under load: 2 of 2 rounds contended$' "$work/load.out" ||
  fail "the verdict does not say under load: $(cat "$work/load.out")"
grep -q '^1 configuration judged under load' "$work/load.out" || fail "summary: $(cat "$work/load.out")"
grep -Eq 'message="(SAME|INCONCLUSIVE) under load: 2 of 2 rounds contended: median ratio|<system-out>SAME under load: 2 of 2' \
  "$work/load.xml" || fail "junit verdict: $(cat "$work/load.xml")"
grep -q '<property name="NEW.s settings differ" value="OpenMP threads: BASE 2, NEW 1"/>' "$work/load.xml" ||
  fail "junit settings: $(cat "$work/load.xml")"

echo "== usage errors"
run 2 nobin "$work/none" "$bin" "$suite" --rounds 1 --out "$work/x"
grep -q "^flowbench: $work/none: BASE_BIN: No such file or directory" "$work/nobin.err" || fail "$(cat "$work/nobin.err")"
run 2 nosuite "$bin" "$bin" "$work/none.suite" --rounds 1 --out "$work/x"
grep -q "$work/none.suite" "$work/nosuite.err" || fail "$(cat "$work/nosuite.err")"
run 2 other "$bin" "$work/stop.sh" "$suite" --rounds 1 --out "$work/aa"
grep -q "$work/aa/interleave.json: holds rounds of" "$work/other.err" || fail "$(cat "$work/other.err")"
rc=0; "$bin" compare a.jsonl b.jsonl --rounds 3 > /dev/null 2> "$work/rounds.err" || rc=$?
[ "$rc" = 2 ] && grep -q -- '--rounds is an option of --interleave' "$work/rounds.err" || fail "--rounds alone: $rc"

echo "== a binary rebuilt at the same path is another build; a side that writes nothing is not finished"
cp "$bin" "$work/rebuilt"
run 0 before "$bin" "$work/rebuilt" "$suite" --rounds 1 --out "$work/rebuild"
printf 'x' >> "$work/rebuilt" # another build at the same path (an ELF runs with bytes appended)
run 2 rebuilt "$bin" "$work/rebuilt" "$suite" --rounds 1 --out "$work/rebuild"
grep -q "interleave.json: $work/rebuilt was rebuilt since these rounds ran (content [0-9a-f]* then, [0-9a-f]* now)" \
  "$work/rebuilt.err" || fail "a rebuilt NEW_BIN judged the old build's rounds: $(cat "$work/rebuilt.err")"
printf '#!/bin/sh\nexit 0\n' > "$work/empty.sh"
chmod +x "$work/empty.sh"
run 3 empty "$bin" "$work/empty.sh" "$suite" --rounds 1 --out "$work/empty"
grep -q "empty.sh sweep .*(round 1, NEW) exited without writing its results" "$work/empty.err" ||
  fail "a side that wrote nothing: $(cat "$work/empty.err")"
jq -e '.finished | index("r1-new") == null' "$work/empty/interleave.json" > /dev/null ||
  fail "a side that wrote nothing was marked finished"
echo "compare --interleave: all checks passed"
