#!/bin/bash
# dashboards.sh BIN SRC WORK - `export --bmf` and `export --github-benchmark`
# (results/records/dashboards.h): a measured run exported in both formats, each
# validated against its documented shape (tests/data/schemas/, with
# Debian's python3-jsonschema); one benchmark per stable configuration,
# named readably and uniquely; the time's interval as BMF's bounds; a
# contended record left out and counted on stderr; usage errors.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
validate() { # SCHEMA FILE
  /usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' "$src/tests/data/schemas/$1" "$2" ||
    fail "$2 does not have the shape of $1"
}
/usr/bin/python3 -c 'import jsonschema' 2> /dev/null || { echo "no python3-jsonschema (scripts/setup.sh installs it)"; exit 77; }

# two kernels on one matrix, measured; a third record planted as contended
run=$work/run.jsonl
for k in csr-scalar csr-vector; do
  "$bin" spmv --matrix gen:cube:8 --kernel "$k" --no-stream --min-samples 5 --out "$run" > /dev/null 2>&1 ||
    fail "spmv $k exited $?"
done
# (the export is under test, not the machine: the measured records are
# marked stable, a copy of one marked contended, whatever this machine did)
jq -c 'if .type == "measurement" then .stats.quality = "stable" | .stats.quality_why = null
       | .environment.contended = false else . end' "$run" > "$work/stable.jsonl"
jq -c 'select(.type == "measurement" and .kernel == "csr-vector") | .kernel = "csr-busy" | .stats.quality = "contended"
       | .stats.quality_why = "planted" | .environment.contended = true' "$run" > "$work/planted.jsonl"
cat "$work/stable.jsonl" "$work/planted.jsonl" > "$work/both.jsonl"
run=$work/stable.jsonl
stable=$(jq -s '[.[] | select(.type == "measurement" and .status == "ok")] | length' "$run")
[ "$stable" = 2 ] || fail "the two kernels' runs did not both end ok"

echo "== BMF"
"$bin" export "$work/both.jsonl" --bmf --out "$work/bmf.json" 2> "$work/bmf.err" || fail "export --bmf exited $?"
validate bmf.schema.json "$work/bmf.json"
[ "$(jq 'keys | length' "$work/bmf.json")" = "$stable" ] || fail "BMF: not one benchmark per stable configuration"
grep -q '^export: 1 contended or unstable record(s) left out' "$work/bmf.err" || fail "the contended record is not counted"
! jq -r 'keys[]' "$work/bmf.json" | grep -q csr-busy || fail "the contended record was exported"
jq -e 'to_entries | all(.key | test("^spmv csr-(scalar|vector) openmp:0 double "))' "$work/bmf.json" > /dev/null ||
  fail "benchmark names: $(jq -c keys "$work/bmf.json")"
jq -e --slurpfile r "$run" 'to_entries[] | select(.key | test("csr-scalar")) | .value.latency as $l
    | ($r | map(select(.type == "measurement" and .kernel == "csr-scalar"))[0].stats) as $s
    | ($l.value - $s.median_s * 1e9 | fabs) < 1 and $l.lower_value < $l.value and $l.value < $l.upper_value
      and (.value["gb-per-s"].value > 0) and (.value["fraction-of-triad"] | not)' "$work/bmf.json" > /dev/null ||
  fail "BMF latency is not the median in ns with its interval: $(jq -c . "$work/bmf.json")"

echo "== github-action-benchmark, time and GB/s"
"$bin" export "$work/both.jsonl" --github-benchmark time --out "$work/gh-time.json" 2> /dev/null || fail "time exited $?"
"$bin" export "$work/both.jsonl" --github-benchmark gbs --out "$work/gh-gbs.json" 2> /dev/null || fail "gbs exited $?"
validate github-benchmark.schema.json "$work/gh-time.json"
validate github-benchmark.schema.json "$work/gh-gbs.json"
jq -e --arg n "$stable" 'length == ($n | tonumber) and all(.unit == "ms" and .value > 0 and (.range | startswith("± ")))' \
  "$work/gh-time.json" > /dev/null || fail "time entries: $(cat "$work/gh-time.json")"
jq -e 'all(.unit == "GB/s" and .value > 0) and ([.[].name] | unique | length) == length' "$work/gh-gbs.json" \
  > /dev/null || fail "GB/s entries: $(cat "$work/gh-gbs.json")"

echo "== usage"
code=0
"$bin" export "$run" --github-benchmark fast > /dev/null 2> "$work/bad.err" || code=$?
[ "$code" = 2 ] && grep -q "'fast' is not time or gbs" "$work/bad.err" || fail "--github-benchmark fast: exit $code"
code=0
"$bin" export "$run" --bmf --csv > /dev/null 2> "$work/two.err" || code=$?
[ "$code" = 2 ] || fail "--bmf --csv: exit $code"
echo "ok"
