#!/usr/bin/env bash
# report_csv.sh FLOWBENCH SOURCE_DIR WORK_DIR - report and export on real
# records of every kind (stream, spmv, heat2d, fv-surface, solve, a sweep's
# pruned points) plus failed, crashed and abandoned ones: the report keeps
# expected outcomes out of Failures and prints no "nan"; the solver's
# validation figures reach the report and the CSV; every CSV column that
# docs/results.md documents exists, and is filled for every kind that has it;
# on the constructed records of tests/data/results/constructed-quality.jsonl
# (unstable and contended beside stable), every figure resting on an
# untrusted record is flagged with its reason, never given a spread or a
# plain speedup, and the solver's speedup is given per step and in total.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }
r=$work/r.jsonl
quick=(--budget 0.02 --min-samples 3 --max-samples 5)
"$bin" stream --backend openmp --size 65536 "${quick[@]}" --out "$r" > /dev/null 2>&1
"$bin" spmv --matrix gen:cube:6 --kernel csr-vector --backend openmp --no-stream "${quick[@]}" --out "$r" \
  > /dev/null 2>&1
"$bin" grid --family heat2d --grid grid:33x17 --no-stream --budget 0.02 --out "$r" > /dev/null 2>&1
"$bin" grid --family fv-surface --grid grid:9x7x5 --kernel fv-passes --no-stream --budget 0.02 --out "$r" \
  > /dev/null 2>&1
"$bin" solve ethier-steinman --steps 3 --no-stream --out "$r" > /dev/null 2>&1
"$bin" sweep tests/data/suites/e2e.suite --out "$r" > /dev/null 2>&1
# a failed, a crashed and an abandoned configuration, made from the spmv record
spmv=$(jq -c 'select(.benchmark == "spmv" and .sweep_key == null)' "$r")
wg=1000 # a distinct configuration each, so that none replaces another
for st in failed crashed abandoned; do
  jq -c --arg st "$st" --argjson wg $((wg += 1)) '.status = $st | .reason = "made by the test: " + $st | .params.WG_SIZE = $wg' \
    <<< "$spmv" >> "$r"
done

echo "== report: real failures apart from expected outcomes, no nan, validation shown"
"$bin" report "$r" > "$work/report.md"
section() { awk -v h="## $1" 'index($0, h) == 1 {on = 1; next} /^## / {on = 0} on' "${2:-$work/report.md}"; }
failures=$(section Failures)
expected=$(section 'Expected outcomes')
grep -q 'made by the test: failed' <<< "$failures" || fail "Failures lacks the failed record"
grep -q 'made by the test: crashed' <<< "$failures" || fail "Failures lacks the crashed record"
! grep -Eq 'pruned|abandoned' <<< "$failures" || fail "Failures lists expected outcomes: $failures"
grep -Eq '^\| pruned \| 6 \|' <<< "$expected" || fail "expected outcomes lack 6 pruned: $expected"
grep -Eq '^\| abandoned \| 1 \|' <<< "$expected" || fail "expected outcomes lack the abandoned one"
! grep -qiw 'nan' "$work/report.md" || fail "the report prints nan: $(grep -iw nan "$work/report.md")"
grep -Eq '^\| [0-9]+ \| solve .*velocity_l2_rel_error [0-9]' "$work/report.md" ||
  fail "the report lacks the solver's validation figures"

echo "== CSV: every documented column, filled for every kind that has it"
"$bin" export "$r" --csv > "$work/r.csv"
documented=$(sed -n '/^## CSV export/,/^`flowbench plot`/p' docs/results.md | grep '^| `' | grep -v '^| column' |
  cut -d'|' -f2 | grep -o '`[a-z_]*`' | tr -d '`' | grep -v '^param_$' | grep -v '^validation_$')
header=$(head -1 "$work/r.csv")
for c in $documented; do
  grep -q "\(^\|,\)$c\(,\|$\)" <<< "$header" || fail "documented column $c is not in the CSV"
done
echo "== JSON and markdown: the CSV's rows and columns"
"$bin" export "$r" --json > "$work/r.json"
"$bin" export "$r" --markdown > "$work/r.md"
python3 - "$work/r.csv" "$work/r.json" "$work/r.md" << 'PY' || fail "export --json or --markdown differs from --csv"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
objs = json.load(open(sys.argv[2]))
md = [l for l in open(sys.argv[3]) if l.startswith("|")]
assert len(objs) == len(rows) - 1, (len(objs), len(rows))
assert all(list(o.keys()) == rows[0] for o in objs), "json keys are not the CSV columns"
for o, row in zip(objs, rows[1:]):
    for k, v in zip(rows[0], row):
        j = o[k]
        # CSV prints 10 significant digits, JSON all of them
        num = isinstance(j, (int, float)) and v != "" and abs(float(v) - j) <= 1e-9 * max(1.0, abs(j))
        assert (j is None and v == "") or num or str(j) == v, (k, j, v)
assert md[1].startswith("|---") and len(md) == len(rows) + 1, (len(md), len(rows))
assert md[0].count(" | ") == len(rows[0]) - 1
PY
# column values by name, for rows selected by an awk condition on named columns
col() { # COLUMN CONDITION -> that column of the matching rows, one per line
  python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if eval(sys.argv[3], {}, {"r": r}): print(r[sys.argv[2]])' "$work/r.csv" "$1" "$2"
}
# COLUMN CONDITION WHAT: every matching row (at least one) has COLUMN filled;
# noted here, checked together by check_filled (one python, not fifty)
filled() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$work/filled.tsv"; }
check_filled() {
  python3 - "$work/r.csv" "$work/filled.tsv" > "$work/filled.out" << 'PY' || fail "$(cat "$work/filled.out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
for line in open(sys.argv[2]):
    column, cond, what = line.rstrip("\n").split("\t")
    chosen = [r for r in rows if eval(cond, {}, {"r": r})]
    if rows and column not in rows[0]:
        bad.append(f"no column {column}")
    elif not chosen:
        bad.append(f"no {what} rows")
    elif any(r[column] == "" for r in chosen):
        bad.append(f"{column} is empty on a {what} row")
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
}
ok_kind() { echo "r['status'] == 'ok' and r['benchmark'] == '$1'"; }
for kind in stream spmv heat2d fv-surface; do
  for c in max_rel_error median_s gbs samples; do filled $c "$(ok_kind $kind)" "ok $kind"; done
done
for kind in stream spmv; do filled gflops "$(ok_kind $kind)" "ok $kind"; done
filled fraction_of_stream "r['status'] == 'ok' and r['suite'] == 'e2e'" "swept ok"
filled ns_per_cell "$(ok_kind heat2d)" "ok heat2d"
# every measured record has an energy object: its source (none where nothing can be read; tests/e2e/energy.sh
# fills the other energy columns from records with energy)
for kind in stream spmv heat2d fv-surface solve; do filled energy_source "$(ok_kind $kind)" "ok $kind"; done
for kind in spmv heat2d fv-surface solve; do filled matrix_hash "r['benchmark'] == '$kind'" "$kind"; done
for c in matrix_rows matrix_nnz; do filled $c "r['benchmark'] in ('spmv', 'solve')" "spmv or solve"; done
for c in validation_divergence_l2 validation_velocity_l2_rel_error median_s; do
  filled $c "r['benchmark'] == 'solve'" "solve"
done
for c in run_id host compiler driver command_line status line latest; do filled $c "True" "any"; done
# the samples' verdict on every measured record, and the machine's where it was watched
for kind in stream spmv heat2d fv-surface solve; do filled quality "$(ok_kind $kind)" "ok $kind"; done
for kind in spmv heat2d fv-surface solve; do filled contended "$(ok_kind $kind)" "ok $kind"; done
filled reason "r['status'] != 'ok'" "not ok"
check_filled
! col quality "r['status'] == 'ok'" | grep -vxE 'stable|unstable|contended' || fail "a quality that is no verdict"
[ "$(col command_line "r['benchmark'] == 'spmv' and r['suite'] == ''" | head -1)" = \
  "$bin spmv --matrix gen:cube:6 --kernel csr-vector --backend openmp --no-stream ${quick[*]} --out $r" ] ||
  fail "command_line is not the command that wrote the run"
echo "== report: the best-variant table's spread, and fractions that are no roofline fraction flagged"
r2=$work/r2.jsonl
FLOWBENCH_STREAM_CACHE=$work/stream.json "$bin" spmv --matrix gen:cube:6 --kernel csr-vector --backend openmp \
  --stream-size 1000000 "${quick[@]}" --out "$r2" > /dev/null 2>&1 || fail "spmv with a stream reference"
jq -e 'select(.benchmark == "spmv") | .cache_resident == true' "$r2" > /dev/null ||
  fail "gen:cube:6 is not recorded as cache resident"
# a record above the triad, not cache resident (the report divides by the device's one triad: here the
# one the records carry)
jq -c 'select(.benchmark == "spmv") | .cache_resident = false | .gbs = .stream_gbs * 1.7 | .fraction_of_stream = 1.7
       | .params.WG_SIZE = 64
       | del(.roofline_note) | .matrix.name = "above" | .matrix.hash = "0000000000000001"' "$r2" >> "$r2"
"$bin" report "$r2" > "$work/report2.md"
best=$(section "Best variant per matrix" "$work/report2.md")
grep -Fq '| median time | spread |' <<< "$best" || fail "no spread column: $best"
grep -Eq '\| (±[0-9.e+-]+%|unstable|contended) \|' <<< "$best" || fail "no spread value: $best"
grep -Fq '(cache resident) |' <<< "$best" || fail "a cache-resident fraction is not flagged: $best"
grep -Fq '1.700 (above 1: caches?) |' <<< "$best" || fail "a fraction above 1 is not flagged: $best"

echo "== unstable and contended records: flagged with their reasons, never a plain spread or speedup"
q=$src/tests/data/results/constructed-quality.jsonl
"$bin" report "$q" > "$work/quality.md"
best=$(section "Best variant per matrix" "$work/quality.md")
# cavity-L2 on opencl: two modes 14x apart, its median's interval +-0.6%: the spread cell says unstable
grep -Eq '^\| cavity-L2 \| opencl:0.0 .*\| unstable \| [0-9.]+ \|' <<< "$best" || fail "the unstable record's spread: $best"
! grep -q '±0.6%' <<< "$best" || fail "the report gives the unstable record a spread of ±0.6%"
grep -Eq '^\| ahmed \| openmp:0 .*\| contended \|' <<< "$best" || fail "the contended record's spread: $best"
grep -Eq '^\| cavity-L1 \| opencl:0.0 .*\| ±[0-9.]+% \|' <<< "$best" || fail "a stable record lost its spread"
list=$(section "Unstable or contended measurements" "$work/quality.md")
for want in '^\| 13 \| spmv csr-scalar opencl:0.0 double cavity-L2 .*\| unstable \| CV 98%, .*two modes' \
  '^\| 14 \| spmv csr-scalar openmp:0 double ahmed \| contended \| .*waited for a CPU 45%' \
  '^\| 19 \| solve fractional-step opencl:0.0 .*\| contended \| CV 40%'; do
  grep -Eq "$want" <<< "$list" || fail "the list of untrusted records lacks /$want/: $list"
done
[ "$(grep -c '^| [0-9]' <<< "$list")" -eq 3 ] || fail "the list of untrusted records holds stable ones: $list"
speedup=$(section "Speedup over OpenMP" "$work/quality.md")
grep -Eq '^\| cavity-L1 \| [0-9.]+x \|' <<< "$speedup" || fail "the trusted speedup is flagged: $speedup"
grep -Eq '^\| cavity-L2 \| [0-9.]+x\? \|' <<< "$speedup" || fail "the unstable speedup is not flagged: $speedup"
grep -Eq '^\| ahmed \| [0-9.]+x\? \|' <<< "$speedup" || fail "the contended baseline's speedup is not flagged"
grep -Eq '^- cavity-L2, opencl:0.0 .*: opencl:0.0 \(line 13\) unstable: CV 98%' <<< "$speedup" ||
  fail "no reason under the speedup table: $speedup"
grep -Eq '^- ahmed, opencl:0.0 .*: openmp:0 \(line 14\) contended: ' <<< "$speedup" || fail "no reason for ahmed"
solver=$(section "Solver (the paper" "$work/quality.md")
grep -q 'per step = the baseline.s median time step / this run.s median time step' <<< "$solver" ||
  fail "no per-step definition: $solver"
grep -q 'total = the baseline.s whole run / this run.s whole run (all steps, CPU->GPU and GPU->CPU' <<< "$solver" ||
  fail "no total definition: $solver"
grep -Fq '| opencl:0.0 Constructed GPU (constructed test data) | 10 | 1 | 0.09 | 10.00x | 1.11x | stable |' \
  <<< "$solver" || fail "the trusted solver speedup, per step and total: $solver"
grep -Eq '^\| opencl:0.0 .*\| 16.00x\? \| 2.29x\? \| contended' <<< "$solver" || fail "the contended solver row"
grep -Eq '^- cavity-l1, opencl:0.0 .*: opencl:0.0 contended: CV 40%' <<< "$solver" ||
  fail "no reason under the solver speedup: $solver"
# the time split of the contended run is flagged too, and given once (not again as a figure's table)
awk '/^### cavity-l1/,0' <<< "$solver" | grep -Eq '^\| opencl:0.0 .*\| 0.2 \(57%\)\? \|' ||
  fail "the contended run's time split is not flagged: $solver"
! grep -q 'Solver time split per backend' "$work/quality.md" || fail "the time split is given twice"
! grep -q 'Solver speedup over OpenMP' "$work/quality.md" || fail "the solver's speedup is given twice"
"$bin" export "$q" --csv > "$work/quality.csv"
python3 - "$work/quality.csv" << 'PY' || fail "export: quality, quality_why, contended"
import csv, sys
rows = {r["line"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert (rows["13"]["quality"], rows["13"]["contended"]) == ("unstable", "0"), rows["13"]
assert rows["13"]["quality_why"].startswith("CV 98%, min 1.23 ms"), rows["13"]["quality_why"]
assert (rows["14"]["quality"], rows["14"]["contended"]) == ("contended", "1"), rows["14"]
assert "waited for a CPU 45%" in rows["14"]["quality_why"]
assert (rows["19"]["quality"], rows["19"]["contended"]) == ("contended", "1")
assert (rows["12"]["quality"], rows["12"]["quality_why"], rows["12"]["contended"]) == ("stable", "", "0")
assert (rows["2"]["quality"], rows["2"]["contended"]) == ("stable", ""), rows["2"]  # no verdict written: stable
PY

echo "report/csv e2e: all checks passed"
