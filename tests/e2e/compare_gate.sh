#!/usr/bin/env bash
# compare_gate.sh FLOWBENCH SRCDIR WORKDIR - `flowbench compare` as a CI
# gate, on results files constructed from the shipped constructed-base.jsonl
# with jq (test data, not measurements):
#  - every NEW record wrong-result: exit 1, WRONG; --allow-wrong: exit 0;
#  - NEW lacks most configurations: exit 1, MISSING; --allow-missing: 0;
#  - NEW's records name a suite and case (a sweep): they still pair;
#  - a changed parameter: exit 2 naming it; --pair-by kernel pairs them;
#  - --junit: valid XML (xmllint when installed) with the failures;
#  - a learned A/A noise floor: a +12 % change inside it is INCONCLUSIVE
#    (exit 0), --no-noise makes it SLOWER again, +30 % is SLOWER anyway;
#  - a floor above the 25 % cap: "cannot gate", INCONCLUSIVE even at +100 %;
#  - a contended record: its SLOWER is INCONCLUSIVE with the reason, and an
#    A/A pair with it is not learned.
set -euo pipefail
bin=$1; src=$2; dir=$3
base=$src/tests/data/results/constructed-base.jsonl
mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect RC REGEX ARGS...: compare exits RC and its output matches REGEX.
expect() {
  local want=$1 regex=$2 rc=0; shift 2
  "$bin" compare "$@" > "$dir/out.txt" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$dir/out.txt"; fail "compare $*: exit $rc, expected $want"; }
  grep -Eq -- "$regex" "$dir/out.txt" || { cat "$dir/out.txt"; fail "compare $*: no /$regex/"; }
}

jq -c "if .type == \"measurement\" then .status = \"wrong-result\" | .reason = \"max_rel_error 0.5\" else . end" \
  "$base" > "$dir/wrong.jsonl"
expect 1 '^WRONG .*stream triad' "$base" "$dir/wrong.jsonl"
expect 1 'summary: 0 SLOWER, 0 FASTER, 0 SAME, 0 INCONCLUSIVE \(inside the noise\); 3 WRONG, 0 MISSING' "$base" "$dir/wrong.jsonl"
expect 0 '3 WRONG \(allowed\)' "$base" "$dir/wrong.jsonl" --allow-wrong

jq -c "select(.type == \"header\" or .kernel == \"copy\")" "$base" > "$dir/missing.jsonl"
expect 1 '^MISSING .*stream triad' "$base" "$dir/missing.jsonl"
expect 0 '1 SAME, 0 INCONCLUSIVE \(inside the noise\); 0 WRONG, 2 MISSING \(allowed\)' "$base" "$dir/missing.jsonl" --allow-missing

jq -c "if .type == \"measurement\" then .suite = \"suites/x.json\" | .case = \"c1\" else . end" \
  "$base" > "$dir/suite.jsonl"
expect 0 'summary: 0 SLOWER, 0 FASTER, 3 SAME, 0 INCONCLUSIVE \(inside the noise\); 0 WRONG, 0 MISSING; 0 not compared \(BASE failed\), 0 new' \
  "$base" "$dir/suite.jsonl"

jq -c "if .type == \"measurement\" then .params.wg = 128 else . end" "$base" > "$dir/wg.jsonl"
expect 2 'params differ: wg 256 vs 128' "$base" "$dir/wg.jsonl"
expect 0 'paired by kernel, params differ: wg 256 vs 128' "$base" "$dir/wg.jsonl" --pair-by kernel

# JUnit: triad SLOWER, add wrong, copy missing, and a kernel name that needs escaping.
jq -c "if .type == \"measurement\" and .kernel == \"copy\" then .kernel = \"c<p&\\\"y'\" else . end" \
  "$base" > "$dir/base-esc.jsonl"
jq -c "if .kernel == \"triad\" then .stats.samples_s |= map(. * 1.3)
       elif .kernel == \"add\" then .status = \"wrong-result\" | .reason = \"a <b> & \\\"c\\\"\"
       else . end" "$dir/base-esc.jsonl" | jq -c "select(.kernel != \"c<p&\\\"y'\")" > "$dir/gate.jsonl"
expect 1 'summary: 1 SLOWER, 0 FASTER, 0 SAME, 0 INCONCLUSIVE \(inside the noise\); 1 WRONG, 1 MISSING' "$dir/base-esc.jsonl" "$dir/gate.jsonl" \
  --junit "$dir/junit.xml"
x=$dir/junit.xml
if command -v xmllint > /dev/null; then
  xmllint --noout "$x" || fail "junit.xml is not well-formed XML"
  [ "$(xmllint --xpath 'count(//testcase)' "$x")" = 3 ] || fail "junit: expected 3 testcases"
  [ "$(xmllint --xpath 'count(//testcase/failure)' "$x")" = 3 ] || fail "junit: expected 3 failures"
  xmllint --xpath 'string(//testcase[@classname="stream/triad"]/failure/@message)' "$x" \
    | grep -Eq '^SLOWER: median .* \(\+30\.0%' || fail "junit: SLOWER message lacks the numbers"
  [ "$(xmllint --xpath 'string(//testcase[failure/@type="MISSING"]/@classname)' "$x")" = "stream/c<p&\"y'" ] \
    || fail "junit: the escaped kernel name did not come back"
else
  grep -q '<testsuites>' "$x" && grep -q '</testsuites>' "$x" || fail "junit: not a testsuites document"
  [ "$(grep -c '<testcase ' "$x")" = 3 ] || fail "junit: expected 3 testcases"
  [ "$(grep -c '<failure ' "$x")" = 3 ] || fail "junit: expected 3 failures"
  grep -q 'c&lt;p&amp;&quot;y&apos;' "$x" || fail "junit: kernel name not escaped"
fi
# The A/A noise floor: an A/A pair 10 % apart teaches a floor of 15 %.
scale() { jq -c "if .type == \"measurement\" then .stats.samples_s |= map(. * $1) else . end" "$base"; }
scale 1.10 > "$dir/aa.jsonl"
scale 1.12 > "$dir/slow12.jsonl"
scale 1.3 > "$dir/slow30.jsonl"
scale 1.25 > "$dir/aa25.jsonl"
scale 2.0 > "$dir/slow100.jsonl"
store=$dir/noise.json
rm -f "$store" "$dir/noise25.json" "$dir/noise-busy.json"
expect 1 'no A/A floor learned for this machine' "$base" "$dir/slow30.jsonl" --noise-file "$store"
expect 1 '^SLOWER .*stream triad' "$base" "$dir/slow30.jsonl" --noise-file "$store"
expect 0 'learned the A/A changes of 3 configurations' "$base" "$dir/aa.jsonl" --noise-file "$store" --learn-noise
jq -e '.machines | to_entries | length == 1 and (.[0].value.comparisons == 1)' "$store" > /dev/null ||
  fail "noise store: $(cat "$store")"
expect 0 '^INCONCLUSIVE .* 15\.0%A .*stream triad' "$base" "$dir/slow12.jsonl" --noise-file "$store"
expect 0 'summary: 0 SLOWER, 0 FASTER, 0 SAME, 3 INCONCLUSIVE' "$base" "$dir/slow12.jsonl" --noise-file "$store"
FLOWBENCH_NOISE_FILE=$store expect 0 'A/A floor of this machine from .*noise.json \(1 comparison' "$base" "$dir/slow12.jsonl"
expect 1 '^SLOWER .*stream triad' "$base" "$dir/slow12.jsonl" --noise-file "$store" --no-noise
expect 1 '^SLOWER .*\+30\.0% +15\.0%A .*stream triad' "$base" "$dir/slow30.jsonl" --noise-file "$store"
# a report named like the learned floors is refused: they are an input
cp "$store" "$dir/store.before"
for out in --junit --json; do
  expect 2 "is the input noise store .*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --noise-file "$store" \
    "$out" "$(dirname "$store")/./$(basename "$store")"
  # --no-noise reads no floor, but the store is still the one later compares gate with
  expect 2 "is the input noise store.*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --noise-file "$store" \
    --no-noise "$out" "$store"
done
cmp -s "$store" "$dir/store.before" || fail "a compare report overwrote the learned A/A floors"
# the default store (FLOWBENCH_CACHE_DIR's), in every mode: two files, --history and --interleave
default_store=${FLOWBENCH_CACHE_DIR:?the test sets it}/noise.json
mkdir -p "$FLOWBENCH_CACHE_DIR" && cp "$store" "$default_store"
rm -f "$dir/gate-history.db"
"$bin" history add "$base" --commit 0123abcd --db "$dir/gate-history.db" > /dev/null || fail "history add exited $?"
printf '#!/bin/sh\nexit 3\n' > "$dir/no-bin.sh" && chmod +x "$dir/no-bin.sh"
expect 2 "is the input noise store.*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --json "$default_store"
expect 2 "is the input noise store.*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --no-noise --junit "$default_store"
expect 2 "is the input noise store.*refusing to overwrite it" --history "$dir/gate-history.db" "$dir/slow30.jsonl" \
  --junit "$default_store"
expect 2 "is the input noise store.*refusing to overwrite it" --interleave "$dir/no-bin.sh" "$dir/no-bin.sh" \
  "$src/cases/quick.suite" --out "$dir/il" --junit "$default_store"
cmp -s "$default_store" "$dir/store.before" || fail "a compare report overwrote the default A/A noise store"
rm "$default_store"
# ... and so is a store not learned yet: a report there was read as a bad store by the next compare
expect 2 "is the input noise store.*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --junit "$default_store"
expect 2 "is the input noise store.*refusing to overwrite it" "$base" "$dir/slow30.jsonl" --noise-file "$dir/new-noise.json" \
  --no-noise --json "$dir/./new-noise.json"
[ ! -e "$default_store" ] && [ ! -e "$dir/new-noise.json" ] || fail "a compare report made the A/A noise store"
# a shared store that is a symbolic link stays a link; its target learns
mkdir -p "$dir/shared" && cp "$store" "$dir/shared/noise.json" && ln -sfn shared/noise.json "$dir/noise-link.json"
expect 0 'learned the A/A changes of 3 configurations' "$base" "$dir/aa.jsonl" --noise-file "$dir/noise-link.json" --learn-noise
[ -L "$dir/noise-link.json" ] && ! cmp -s "$dir/shared/noise.json" "$store" ||
  fail "learning through a link replaced the link or left its target as it was"

# The cap: an A/A pair 25 % apart teaches a floor of 37.5 %, above the 25 %
# cap, so no verdict of those configurations stands, not even +100 %.
expect 0 'learned the A/A changes of 3' "$base" "$dir/aa25.jsonl" --noise-file "$dir/noise25.json" --learn-noise
expect 0 '3 configurations, 3 above the 25% cap: this machine cannot gate them' "$base" "$dir/slow100.jsonl" \
  --noise-file "$dir/noise25.json"
expect 0 '^INCONCLUSIVE .*\+100\.0% +37\.5%A .*stream triad' "$base" "$dir/slow100.jsonl" --noise-file "$dir/noise25.json"
expect 0 'cannot gate on this machine \(A/A noise 37\.5%' "$base" "$dir/slow100.jsonl" --noise-file "$dir/noise25.json"
expect 0 'summary: 0 SLOWER, 0 FASTER, 0 SAME, 0 INCONCLUSIVE \(inside the noise\)' "$base" "$dir/slow100.jsonl" \
  --noise-file "$dir/noise25.json"
expect 0 '^3 INCONCLUSIVE because this machine cannot gate them' "$base" "$dir/slow100.jsonl" --noise-file "$dir/noise25.json"
expect 1 '^SLOWER .*\+100\.0%' "$base" "$dir/slow100.jsonl" --noise-file "$dir/noise25.json" --no-noise

# A contended run (triad's, in NEW): its +30 % is INCONCLUSIVE with the
# reason (row and JUnit), counted apart, while copy and add stay SLOWER; an
# A/A pair with it teaches the floor nothing of triad.
busy='CV 45%, min 0.65 ms, median 3.59 ms: this run'"'"'s threads waited for a CPU 34% of the time, with up to 2 other runnable tasks on 2 CPUs, 2 used by this run'
contend() { jq -c --arg why "$busy" "if .kernel == \"triad\" then .stats.quality = \"contended\" | .stats.quality_why = \$why else . end" "$1"; }
contend "$dir/slow30.jsonl" > "$dir/slow30-busy.jsonl"
contend "$dir/aa.jsonl" > "$dir/aa-busy.jsonl"
expect 1 '^INCONCLUSIVE .*\+30\.0% .*stream triad' "$base" "$dir/slow30-busy.jsonl" --no-noise --junit "$dir/busy.xml"
expect 1 'NEW contended, line [0-9]+: CV 45%, min 0\.65 ms, median 3\.59 ms: this run.s threads waited .*\.\.\. \(SLOWER not trusted' \
  "$base" "$dir/slow30-busy.jsonl" --no-noise
expect 1 'summary: 2 SLOWER, 0 FASTER, 0 SAME, 0 INCONCLUSIVE \(inside the noise\)' "$base" "$dir/slow30-busy.jsonl" --no-noise
expect 1 '^1 INCONCLUSIVE because a run was contended or unstable' "$base" "$dir/slow30-busy.jsonl" --no-noise
grep -q 'type="INCONCLUSIVE" message="INCONCLUSIVE: median .*; NEW contended, line' "$dir/busy.xml" ||
  fail "junit: the contended reason is not in the message: $(cat "$dir/busy.xml")"
expect 0 'learned the A/A changes of 2 configurations into .*; 1 left out because a run of theirs was contended' \
  "$base" "$dir/aa-busy.jsonl" --noise-file "$dir/noise-busy.json" --learn-noise
jq -e '[.machines[].configs | keys[] | select(test("triad"))] | length == 0' "$dir/noise-busy.json" > /dev/null ||
  fail "a contended pair fed the floor: $(cat "$dir/noise-busy.json")"
expect 2 'exclude each other' "$base" "$dir/aa.jsonl" --noise-file "$store" --learn-noise --no-noise
echo "not json" > "$dir/bad-noise.json"
expect 2 'bad-noise.json:1: not JSON' "$base" "$dir/aa.jsonl" --noise-file "$dir/bad-noise.json" --learn-noise
[ "$(cat "$dir/bad-noise.json")" = "not json" ] || fail "a file that is not a noise store was replaced"
# --json: the verdicts as one document, the same as the table's
expect 1 'summary: 1 SLOWER' "$base" "$src/tests/data/results/constructed-slower.jsonl" --no-noise --json "$dir/c.json"
jq -e '.gate == "fail" and .summary.slower == 1 and (.configurations | length) == (.summary.same + .summary.slower)
       and ([.configurations[] | select(.verdict == "SLOWER")][0] | .fails_gate and .change > 0.05 and .p < 0.01
            and .new_median_s > .base_median_s)
       and all(.configurations[] | select(.verdict == "SAME"); .fails_gate | not)' "$dir/c.json" > /dev/null ||
  fail "--json: $(head -c 600 "$dir/c.json")"
expect 0 'summary: 0 SLOWER' "$base" "$base" --no-noise --json "$dir/same.json"
jq -e '.gate == "pass" and .summary.slower == 0' "$dir/same.json" > /dev/null || fail "--json of equal runs: $(head -c 300 "$dir/same.json")"
# --min-gbs: an absolute floor fails the gate whatever the verdict (the constructed runs: 16 to 24 GB/s)
expect 1 '^3 below the --min-gbs floor of 50 GB/s \(failing the gate\)' "$base" "$base" --no-noise --min-gbs 50 \
  --junit "$dir/floor.xml" --json "$dir/floor.json"
grep -q 'stream triad openmp:0 double n=1000000 wg=256: 16 GB/s' "$dir/out.txt" || fail "--min-gbs does not list the triad"
jq -e '.gate == "fail" and .summary.same == 3 and .summary.below_floor == 3
       and all(.configurations[]; .below_floor and .fails_gate and .new_gbs < 50)' "$dir/floor.json" > /dev/null ||
  fail "--min-gbs in --json: $(head -c 400 "$dir/floor.json")"
[ "$(grep -c 'failure type="BELOW_FLOOR"' "$dir/floor.xml")" = 3 ] || fail "--min-gbs in --junit: $(cat "$dir/floor.xml")"
expect 0 '^0 below the --min-gbs floor of 10 GB/s$' "$base" "$base" --no-noise --min-gbs 10
echo "compare gate: all checks passed"
