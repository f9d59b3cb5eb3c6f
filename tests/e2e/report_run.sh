#!/usr/bin/env bash
# report_run.sh FLOWBENCH SOURCE_DIR WORKDIR - `report` and `plot` of a whole
# run (issue 36), on tests/data/run: a default-suite folder cut small
# (results.jsonl: a stream run and spmv runs on openmp:0 and opencl:0.0;
# solve.jsonl: the cavity at levels 0 and 1; sweep-quick.jsonl and
# sweep-grid.jsonl: sweeps of the quick and grid-quick suites).
#  1. the report of the folder is one document: its files, the solver's
#     tables (not "No solver records"), grid studies and sweeps;
#  2. one triad per device: the triad table has a row per device, and every
#     fraction of the triad in the report (SpMV, grids, the solver's steps)
#     divides by it: the one the spmv records divided by (a stored one,
#     shared by the run's commands), not the stream run's other figure,
#     which its own table still shows, nor the quick sweep's own; the same
#     for a report of results.jsonl alone;
#  3. the roofline per device: log-log, intensity = flops / model bytes of
#     the records, the report's triad as the bandwidth ceiling, a peak
#     that says where it comes from, the cache's roof beside a
#     cache-resident point (the sweep's triad within the cache); throughput against size where a
#     sweep ran two grids; the figure defects of issue 36 (grids called
#     matrices, a peer of another device among OpenCL's kernels, long
#     titles cut, blank heat-map cells without a key).
set -euo pipefail
bin=$1; src=$2; dir=$3
run=$src/tests/data/run
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
section() { awk -v h="## $1" 'index($0, h) == 1 {on = 1; next} /^## / {on = 0} on' "$2"; }

echo "== 1. the report of the run's folder"
"$bin" report "$run" --out "$dir/report.md" || fail "report of the folder: exit $?"
files=$(section "Files of this run" "$dir/report.md")
for f in results.jsonl solve.jsonl sweep-grid.jsonl sweep-quick.jsonl; do
  grep -q "^| $f | [0-9]" <<< "$files" || fail "the report does not name $f: $files"
done
solver=$(section "Solver (the paper's Tables 4-7)" "$dir/report.md")
! grep -q "No solver records" "$dir/report.md" || fail "the report says No solver records"
grep -q '^### cavity-l0 ' <<< "$solver" || fail "no cavity-l0 in the solver's tables: $solver"
grep -q '^### cavity-l1 ' <<< "$solver" || fail "no cavity-l1 in the solver's tables"
grep -Eq '^\| opencl:0.0 .* \| [0-9.]+x\?? \| [0-9.]+x\?? \| ' <<< "$solver" || fail "no speedup row for opencl: $solver"
grep -q '| step 1 GB/s (of triad) |' <<< "$solver" || fail "no split per step (Tables 5 and 6)"
grep -q '^| heat2d | 101x101 | double | heat-jacobi | openmp:0 ' "$dir/report.md" || fail "no grid study row"
sweeps=$(section "Sweeps" "$dir/report.md")
grep -q '^| grid-quick / heat-shapes | [1-9]' <<< "$sweeps" || fail "the grid sweep is not reported: $sweeps"
grep -q '^| quick / csr | [1-9]' <<< "$sweeps" || fail "the quick sweep is not reported"
grep -q '^## Environment, stability and energy' "$dir/report.md" || fail "no environment section"

echo "== 2. one triad per device, every fraction divided by it"
python3 - "$dir/report.md" "$run" << 'PY' || fail "fractions of the report"
import json, re, sys, glob
text = open(sys.argv[1]).read()
def table(heading):
    part = text.split("\n## " + heading, 1)[1].split("\n## ", 1)[0]
    rows = [l for l in part.splitlines() if l.startswith("| ")]
    head = [c.strip() for c in rows[0].strip("|").split(" | ")]
    return head, [[c.strip() for c in r.strip("|").split(" | ")] for r in rows[1:]]
head, rows = table("Devices and their stream triad")
triad = {r[0]: float(r[head.index("triad GB/s")]) for r in rows}
assert len(rows) == len(triad) == 2, rows  # one row per device
# the triad the spmv records divided by (the stored reference the run's
# commands shared: issue 50), not the stream run's other figure nor the
# sweep's own
stream = [json.loads(l) for l in open(sys.argv[2] + "/results.jsonl")]
measured = {r["device"]: r["gbs"] for r in stream if r.get("kernel") == "triad" and "suite" not in r}
carried = {r["device"]: r["stream_gbs"] for r in stream if r.get("benchmark") == "spmv"}
for d in measured:
    assert abs(triad[d] - carried[d]) < 0.006, (d, triad[d], carried[d])
    assert abs(carried[d] - measured[d]) > 0.05, "the fixture must carry another triad than the stream run's"
head, rows = table("Stream bandwidth")
for r in rows:  # the stream run's own measurement, shown as it was
    assert abs(float(r[head.index("triad")]) - measured[r[0]]) < 0.006, r
head, rows = table("Best variant per matrix")
for r in rows:
    device = r[head.index("device")].split()[0]
    gbs, frac = float(r[head.index("GB/s")]), float(r[head.index("fraction of triad")].split()[0])
    assert abs(frac - gbs / triad[device]) < 0.002 + 0.004 * frac, (r, triad[device])  # the triad shown to 0.01
head, rows = table("Grid studies")
for r in rows:
    device = r[head.index("device")].split()[0]
    assert abs(float(r[head.index("of triad")]) - float(r[head.index("GB/s")]) / triad[device]) < 0.002, r
split = [l for l in text.split("Split per step (Tables 5 and 6):")[1].splitlines() if l.startswith("| openmp:0")][0]
for gbs, frac in re.findall(r"\| ([0-9.]+) \(([0-9.]+)\)", split):
    assert abs(float(frac) - float(gbs) / triad["openmp:0"]) < 0.01, split
PY
"$bin" report "$run/results.jsonl" --out "$dir/one.md"
python3 - "$dir/one.md" << 'PY' || fail "a report of one file divides by more than one triad per device"
import sys
text = open(sys.argv[1]).read()
rows = [l for l in text.split("## Devices and their stream triad")[1].split("\n## ")[0].splitlines() if l.startswith("| ")]
triad = {r.split(" | ")[0].strip("| "): float(r.split(" | ")[2]) for r in rows[1:]}
best = [l for l in text.split("## Best variant per matrix")[1].split("\n## ")[0].splitlines() if l.startswith("| ")]
for r in best[1:]:
    c = [x.strip() for x in r.strip("|").split(" | ")]
    assert abs(float(c[9].split()[0]) - float(c[8]) / triad[c[1].split()[0]]) < 0.002 + 0.004 * float(c[9].split()[0]), c
PY

echo "== 3. the roofline, throughput against size, the figure defects"
"$bin" plot "$run" --out "$dir/figures" --scripts "$src/plots" > "$dir/plot.txt" || fail "plot of the folder: $(cat "$dir/plot.txt")"
fig=$dir/figures/roofline-openmp-0-double
for ext in png svg csv vars; do [ -s "$fig.$ext" ] || fail "no $fig.$ext"; done
grep -q '^set logscale xy' "$src/plots/roofline.gp" || fail "roofline.gp: not log-log"
grep -q 'arithmetic intensity \[flop / byte of the byte model\] (log)' "$fig.svg" || fail "roofline: no intensity axis"
grep -q 'GFLOP/s, median (log)' "$fig.svg" || fail "roofline: no GFLOP/s axis"
grep -q "stream triad 5.474 GB/s" "$fig.svg" || fail "roofline: the bandwidth ceiling is not the report's triad (the one the spmv records divided by)"
grep -Eq "^peakwhy = 'peak [0-9.]+ GFLOP/s from device properties: 2 units x 2445 MHz" "$fig.vars" ||
  fail "roofline: the compute ceiling does not say where it comes from: $(grep peakwhy "$fig.vars")"
# the spmv run's gen:cube:12 fitted the 32 MiB cache and the quick sweep's
# stream (n = 2^20, 24 MiB) ran within it: that triad is the cache's roof
grep -q "cache roof 9.838 GB/s" "$fig.svg" && grep -q "cache roof: 32.0 MiB last-level cache: stream triad, n = 1048576" "$fig.svg" ||
  fail "roofline: no cache roof beside a cache-resident point: $(grep cache "$fig.vars")"
grep -q "problem: gen:cube:12 (cache resident)" "$fig.svg" || fail "roofline: the cache-resident problem is not named so"
grep -qx "triadreuse = 0" "$fig.vars" || fail "roofline: the 768 MiB triad is said to include cache reuse"
python3 - "$fig.csv" "$run" << 'PY' || fail "roofline: a point is not at flops / bytes of its record"
import csv, glob, json, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
records = [json.loads(l) for f in glob.glob(sys.argv[2] + "/*.jsonl") for l in open(f)]
point = [row for row in rows if row[0] == "gen:cube:12"][0]
x, y = float(point[head.index("csr-scalar")]), float(point[head.index("csr-scalar gflops")])
assert any(r.get("kernel") == "csr-scalar" and r.get("device") == "openmp:0" and r.get("matrix", {}).get("name") ==
           "gen:cube:12" and abs(x - r["flops"] / r["bytes"]) < 1e-4 * x and abs(y - r["gflops"]) < 1e-4 * y
           for r in records), (x, y)
PY
[ -s "$dir/figures/sizes-heat2d-openmp-0-double.png" ] || fail "no throughput-against-size figure of the two grids"
grep -q "^xname = 'grid cells'" "$dir/figures/sizes-heat2d-openmp-0-double.vars" || fail "sizes: x is not the grid's cells"
grep -q "^xname = 'grid'" "$dir/figures/fraction-heat2d-openmp-0-double.vars" || fail "a grid is called a matrix"
! grep -q 'matrix 101x101' "$dir"/figures/*.vars || fail "a grid is called a matrix in a title"
! head -1 "$dir/figures/variants-spmv-opencl-0.0-double.csv" | grep -q '(openmp:0)' ||
  fail "the OpenCL variants figure shows the OpenMP peer"
grep -q '^blanks = ' "$dir"/figures/heatmap-*.vars || fail "heat map: no count of blank cells"
! grep -h "^titlepart" "$dir"/figures/*.vars | awk 'length > 96' | grep -q . || fail "a title line wider than the canvas"
grep -q 'whiskers: the value by the fastest and by the slowest sample' "$dir/figures/variants-spmv-openmp-0-double.svg" ||
  fail "a figure with whiskers does not say what they span"
echo "== 4. a folder's files are the report's inputs: none may be its output"
cp -r "$run" "$dir/copy"
code=0
"$bin" report "$dir/copy" --html "$dir/copy/results.jsonl" 2> "$dir/refused.txt" || code=$?
[ "$code" -eq 2 ] && grep -q 'is the input RESULTS: refusing to overwrite it' "$dir/refused.txt" ||
  fail "report DIR --html DIR/results.jsonl: exit $code, $(cat "$dir/refused.txt")"
cmp -s "$run/results.jsonl" "$dir/copy/results.jsonl" || fail "a refused report changed the results file"
echo "== 5. backticks in a record's text: the page's markup stays balanced"
# a kernel named with one backtick (no partner) and one with a pair: the
# lone one is printed as itself, never an open <code> for the rest
mkdir -p "$dir/ticks"
jq -c 'if .type == "measurement" and .kernel == "sell" then .kernel = "sell`odd"
       elif .type == "measurement" and .kernel == "csr-scalar" then .kernel = "a`b`c" else . end' \
  "$run/results.jsonl" > "$dir/ticks/results.jsonl"
"$bin" report "$dir/ticks/results.jsonl" --html "$dir/ticks/report.html" > /dev/null 2>&1 || fail "report --html of the ticks"
opened=$(grep -o '<code>' "$dir/ticks/report.html" | wc -l)
closed=$(grep -o '</code>' "$dir/ticks/report.html" | wc -l)
[ "$opened" = "$closed" ] || fail "unbalanced markup from a backtick in a record: $opened <code>, $closed </code>"
grep -q 'sell`odd' "$dir/ticks/report.html" || fail "the lone backtick of sell\`odd is not printed as itself"
echo "report_run e2e: all checks passed"
