#!/usr/bin/env bash
# report_choice.sh FLOWBENCH WORKDIR - which record of a configuration
# `report` takes when a file holds several (docs/plots-and-compare.md,
# "Several records of one configuration"), on results files written here
# by hand: a solver pair (cavity-l1, openmp and opencl) measured in runs
# whose records say stable or contended.
#  1. a stable run, then a later contended one: the report takes the
#     stable pair (0.43x, not the contended 0.38x), says for each side that
#     it took the stable one over a later contended one, and the header's
#     range spans both runs;
#  2. the same runs in another file order, with an older stable run read
#     last: still the latest stable pair by time (not the one read last),
#     the older one read after it named, the range from the earliest run
#     to the latest, the machine that of the latest run;
#  3. no stable run: the latest by time (not the one read last), said;
#  4. a later failure is not hidden behind an older stable pass;
#  5. a folder whose files are read in name order, the newer first.
set -euo pipefail
bin=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
section() { awk -v h="## $1" 'index($0, h) == 1 {on = 1; next} /^## / {on = 0} on' "$2"; }
T09=2026-11-28T09:00:00Z T10=2026-11-28T10:02:00Z T11=2026-11-28T11:00:00Z

header() { # header TIME CPU: a run's header
  jq -cn --arg t "$1" --arg cpu "$2" '{type: "header", schema: 1, run_id: ($t + "-4242"), date: $t, command: "solve",
    host: {hostname: "vm", cpu: $cpu, omp_threads: 2}, devices: []}'
}
solve() { # solve TIME BACKEND STEP_S QUALITY [STATUS]: the solver's record of cavity-l1
  jq -cn --arg t "$1" --arg b "$2" --argjson s "$3" --arg q "$4" --arg st "${5:-ok}" '{type: "measurement",
    schema: 1, run_id: ($t + "-4242"), benchmark: "solve", kernel: "fractional-step", backend: $b,
    device: (if $b == "openmp" then "openmp:0" else "opencl:0.0" end), device_name: "CPU", precision: "double",
    status: $st, params: {level: 1}, matrix: {name: "cavity-l1", hash: "c1"}, case: "cavity", steps: 10,
    total_s: (10 * $s), stats: {samples_s: [$s, $s, $s], median_s: $s, quality: $q,
      quality_why: (if $q == "stable" then null else "CV 45%: other work took the CPUs" end)},
    environment: {contended: ($q == "contended")}}
    + (if $st == "ok" then {} else {reason: "u off by 3%"} end)'
}
run() { # run TIME QUALITY OPENMP_STEP_S [OPENCL_STATUS]: a run of the pair (OpenCL: 0.1 s a step)
  header "$1" "CPU of $1"
  solve "$1" openmp "$3" "$2"
  solve "$1" opencl 0.1 "$2" "${4:-ok}"
}
report() { # report NAME INPUT...: the report in DIR/NAME.md
  local name=$1; shift
  "$bin" report "$@" --out "$dir/$name.md" 2> "$dir/$name.err" || fail "$name: exit $?: $(cat "$dir/$name.err")"
}
opencl_row() { section "Solver (the paper's Tables 4-7)" "$dir/$1.md" | grep -m1 '^| opencl:0.0 CPU |' || true; }
range() { grep -q "^- runs in th[a-z]* files\?: $2, started from $3 to $4\$" "$dir/$1.md" ||
  fail "$1: the runs' range is not $3 to $4: $(grep '^- runs in' "$dir/$1.md")"; }

echo "== 1. stable, then a later contended run"
{ run $T10 stable 0.043; run $T11 contended 0.038; } > "$dir/one.jsonl"
report one "$dir/one.jsonl"
grep -Eq '^\| opencl:0.0 CPU \| 10 \| 100 \| 1 \| 0.43x \| 0.43x \| stable \|$' <<< "$(opencl_row one)" ||
  fail "1: not the stable pair: $(opencl_row one)"
grep -q '^| cavity-l1 | .*0.43x |' "$dir/one.md" || fail "1: the speedup table is not the stable pair"
grep -q '0.38x' "$dir/one.md" && fail "1: the contended pair is reported: $(grep -n 0.38x "$dir/one.md")"
grep -q '^2 configurations are measured more than once: the report takes each one.s latest stable record by time' \
  "$dir/one.md" || fail "1: no word on the configurations measured twice"
for side in "openmp:0" "opencl:0.0"; do
  grep -q "^- solve fractional-step $side double cavity-l1 level=1: 2 records; took the stable one of $T10 (line [23]) over a later contended one ($T11, line [56])\$" \
    "$dir/one.md" || fail "1: $side: the choice is not said: $(grep '^- solve' "$dir/one.md")"
done
range one 2 $T10 $T11

echo "== 2. the same runs in another order, an older stable run read last"
{ run $T11 contended 0.038; run $T10 stable 0.043; run $T09 stable 0.041; } > "$dir/two.jsonl"
report two "$dir/two.jsonl"
grep -q ' 0.43x | 0.43x | stable |$' <<< "$(opencl_row two)" || fail "2: not the latest stable pair: $(opencl_row two)"
grep -q "^- solve fractional-step opencl:0.0 double cavity-l1 level=1: 3 records; took the stable one of $T10 (line 6) over a later contended one ($T11, line 3); one read after it is older ($T09, line 9)\$" \
  "$dir/two.md" || fail "2: the choice is not said: $(grep '^- solve' "$dir/two.md")"
range two 3 $T09 $T11
grep -q "^- CPU: CPU of $T11," "$dir/two.md" || fail "2: the machine is not the latest run's: $(grep '^- CPU' "$dir/two.md")"

echo "== 3. no stable run: the latest by time"
{ run $T11 contended 0.038; run $T10 contended 0.036; } > "$dir/three.jsonl"
report three "$dir/three.jsonl"
grep -q ' 0.38x? | 0.38x? | contended: CV 45% |$' <<< "$(opencl_row three)" ||
  fail "3: not the latest pair: $(opencl_row three)"
grep -q "^- solve fractional-step opencl:0.0 double cavity-l1 level=1: 2 records; took the latest by time, contended, of $T11 (line 3) (none stable); one read after it is older ($T10, line 6)\$" \
  "$dir/three.md" || fail "3: the choice is not said: $(grep '^- solve' "$dir/three.md")"
range three 2 $T10 $T11

echo "== 4. a later failure stands"
{ run $T10 stable 0.043; run $T11 stable 0.043 wrong-result; } > "$dir/four.jsonl"
report four "$dir/four.jsonl"
[ -z "$(opencl_row four)" ] || fail "4: an older pass hides the failure: $(opencl_row four)"
section Failures "$dir/four.md" | grep -q '^| 6 | solve fractional-step opencl:0.0 .* | wrong-result: u off by 3% |$' ||
  fail "4: the failure is not listed: $(section Failures "$dir/four.md")"

echo "== 5. a folder read in name order, the newer file first"
mkdir -p "$dir/run"
run $T11 contended 0.038 > "$dir/run/a.jsonl"
run $T10 stable 0.043 > "$dir/run/b.jsonl"
report five "$dir/run"
grep -q ' 0.43x | 0.43x | stable |$' <<< "$(opencl_row five)" || fail "5: not the stable pair: $(opencl_row five)"
grep -q "^- solve fractional-step opencl:0.0 double cavity-l1 level=1: 2 records; took the stable one of $T10 (b.jsonl:3) over a later contended one ($T11, a.jsonl:3)\$" \
  "$dir/five.md" || fail "5: the choice is not said: $(grep '^- solve' "$dir/five.md")"
range five 2 $T10 $T11
echo "report's choice among records: all checks passed"
