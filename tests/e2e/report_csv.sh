#!/usr/bin/env bash
# report_csv.sh FLOWBENCH SOURCE_DIR WORK_DIR - report and export on real
# records of every kind (stream, spmv, heat2d, fv-surface, solve, a sweep's
# pruned points) plus failed, crashed and abandoned ones: the report keeps
# expected outcomes out of Failures and prints no "nan"; the solver's
# validation figures reach the report and the CSV; every CSV column that
# docs/results.md documents exists, and is filled for every kind that has it.
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
filled() { # COLUMN CONDITION WHAT: every matching row (at least one) has COLUMN filled
  local v
  v=$(col "$1" "$2")
  [ -n "$v" ] || fail "no $3 rows"
  ! grep -qx '' <<< "$v" || fail "$1 is empty on a $3 row"
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
filled reason "r['status'] != 'ok'" "not ok"
[ "$(col command_line "r['benchmark'] == 'spmv' and r['suite'] == ''" | head -1)" = \
  "$bin spmv --matrix gen:cube:6 --kernel csr-vector --backend openmp --no-stream ${quick[*]} --out $r" ] ||
  fail "command_line is not the command that wrote the run"
echo "== report: the best-variant table's spread, and fractions that are no roofline fraction flagged"
r2=$work/r2.jsonl
FLOWBENCH_STREAM_CACHE=$work/stream.json "$bin" spmv --matrix gen:cube:6 --kernel csr-vector --backend openmp \
  --stream-size 1000000 "${quick[@]}" --out "$r2" > /dev/null 2>&1 || fail "spmv with a stream reference"
jq -e 'select(.benchmark == "spmv") | .cache_resident == true' "$r2" > /dev/null ||
  fail "gen:cube:6 is not recorded as cache resident"
# a record above the triad, not cache resident
jq -c 'select(.benchmark == "spmv") | .cache_resident = false | .fraction_of_stream = 1.7 | .params.WG_SIZE = 64
       | del(.roofline_note) | .matrix.name = "above" | .matrix.hash = "0000000000000001"' "$r2" >> "$r2"
"$bin" report "$r2" > "$work/report2.md"
best=$(section "Best variant per matrix" "$work/report2.md")
grep -Fq '| median time | spread |' <<< "$best" || fail "no spread column: $best"
grep -Eq '\| ±[0-9.e+-]+% \|' <<< "$best" || fail "no spread value: $best"
grep -Fq '(cache resident) |' <<< "$best" || fail "a cache-resident fraction is not flagged: $best"
grep -Fq '1.700 (above 1: caches?) |' <<< "$best" || fail "a fraction above 1 is not flagged: $best"

echo "report/csv e2e: all checks passed"
