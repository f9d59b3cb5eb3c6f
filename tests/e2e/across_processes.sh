#!/usr/bin/env bash
# across_processes.sh FLOWBENCH WORK_DIR - what holds across runs
# (docs/measurement.md, "Across processes"; docs/tuning.md, "Tuning that
# reproduces"), on openmp:
#  - spmv and grid --processes N: N records from N fresh processes, each
#    with its processes part (index, count, every median, the verdict),
#    the verdict on the terminal; one process or a plan refused;
#  - tune with --confirm: the entry keeps its confidence and the interval a
#    fresh process's median should fall in (spread_s);
#  - spmv --tuned outside that interval is unstable, with why; inside, the
#    interval is named in its tuning part and nothing is flagged for it.
set -euo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
quick=(--no-stream --min-samples 3 --max-samples 20 --budget 0.05)

"$bin" spmv --matrix gen:cube:6 "${quick[@]}" --processes 3 --out "$work/p.jsonl" >"$work/p.txt" 2>"$work/p.err" ||
  fail "spmv --processes 3: $(tail -n 2 "$work/p.err")"
jq -e -s '[.[] | select(.type == "measurement")] | length == 3 and (map(.processes.index) == [1, 2, 3])
    and all(.processes.count == 3 and (.processes.medians_s | length) == 3
            and (.processes.verdict | test("^(one mode across 3 processes|across 3 processes, two modes)")))
    and ([.[] | select(.processes.verdict | test("two modes"))] | all(.stats.quality != "stable"))' \
  <(jq -c 'select(.type == "measurement")' "$work/p.jsonl") >/dev/null ||
  fail "spmv --processes records: $(jq -c 'select(.type == "measurement") | .processes' "$work/p.jsonl")"
grep -q "one configuration in 3 fresh processes" "$work/p.err" && grep -q "^spmv: .* 3 processes" "$work/p.txt" ||
  fail "spmv --processes does not say what it did: $(cat "$work/p.txt" "$work/p.err")"
[ "$(grep -c '^process [1-3] of 3: median' "$work/p.err")" = 3 ] || fail "no line per process: $(cat "$work/p.err")"

"$bin" grid --family heat2d --grid grid:17x17 --kernel heat-jacobi "${quick[@]}" --processes 2 --json \
  >"$work/g.json" 2>"$work/g.err" || fail "grid --processes 2: $(tail -n 2 "$work/g.err")"
jq -e -s 'length == 2 and all(.benchmark == "heat2d" and .processes.count == 2)' "$work/g.json" >/dev/null ||
  fail "grid --processes 2 --json: $(head -c 300 "$work/g.json")"

rc=0; "$bin" spmv --matrix gen:cube:6 --processes 1 2>"$work/e1.err" || rc=$?
[ $rc = 2 ] && grep -q -- "--processes: 1 is not a count of processes in \[2, 100\]" "$work/e1.err" ||
  fail "--processes 1: exit $rc, $(cat "$work/e1.err")"
rc=0; "$bin" spmv --matrix gen:cube:6 --kernel csr-scalar --kernel csr-vector --processes 2 2>"$work/e2.err" || rc=$?
[ $rc = 2 ] && grep -q "measures one configuration, not a plan" "$work/e2.err" ||
  fail "--processes with a plan: exit $rc, $(cat "$work/e2.err")"

# tune confirms, and --tuned is read against what it expects of a process
cache=$work/tuning.json
"$bin" tune --matrix gen:cube:6 --kernel csr-vector --strategy random --evals 3 --budget 0.02 --min-samples 3 \
  --confirm 3 --no-variants --cache "$cache" >"$work/tune.txt" 2>"$work/tune.err" || fail "tune: $(tail -n 2 "$work/tune.err")"
grep -q "confirmed in fresh processes (3 rounds, interleaved)" "$work/tune.txt" || fail "tune did not confirm: $(cat "$work/tune.txt")"
jq -e '.entries[0] | .confidence.rounds == 3 and (.confidence.candidates | length) >= 2
    and ([.confidence.candidates[] | select(.role | test("default"))] | length == 1)
    and (.spread_s | length == 2 and .[0] < .[1])' "$cache" >/dev/null ||
  fail "the entry lacks its confidence: $(jq -c '.entries[0] | {spread_s, confidence}' "$cache")"
jq '.entries[0].spread_s = [1e-12, 2e-12]' "$cache" >"$work/narrow.json"
"$bin" spmv --matrix gen:cube:6 --kernel csr-vector --tuned --cache "$work/narrow.json" "${quick[@]}" --json \
  >"$work/narrow.out" 2>/dev/null || fail "spmv --tuned beside a narrow interval"
jq -e '.tuning.expected_s == [1e-12, 2e-12] and .stats.quality != "stable"
    and (.stats.quality_why | test("outside the .* tune.s confirmation expected of a fresh process"))' \
  "$work/narrow.out" >/dev/null || fail "--tuned outside its interval not flagged: $(jq -c '{tuning, q: .stats.quality, w: .stats.quality_why}' "$work/narrow.out")"
jq '.entries[0].spread_s = [1e-9, 10]' "$cache" >"$work/wide.json"
"$bin" spmv --matrix gen:cube:6 --kernel csr-vector --tuned --cache "$work/wide.json" "${quick[@]}" --json \
  >"$work/wide.out" 2>/dev/null || fail "spmv --tuned beside a wide interval"
jq -e '.tuning.expected_s == [1e-9, 10] and ((.stats.quality_why // "") | test("tune.s confirmation") | not)' \
  "$work/wide.out" >/dev/null || fail "--tuned inside its interval flagged for it: $(jq -c .stats "$work/wide.out")"
echo "across processes: --processes on spmv and grid, tune's confidence, --tuned against it: ok"
