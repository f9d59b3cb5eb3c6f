#!/usr/bin/env bash
# user_kernel.sh FLOWBENCH SOURCE_DIR WORK_DIR - a user's kernel file end to
# end on the OpenCL device (docs/kernels.md, "Your own kernel"): the shipped
# example through spmv (checked, its record naming the file), a heat2d
# kernel file through grid; a sweep with the example, a wrong kernel
# (recorded wrong-result, exit 1) and one that does not compile (its file
# and line in the record); tune (the cache entry under the user's kernel
# name) and spmv --tuned; plot and compare of two runs, and a changed file
# that compare does not pair silently, and pairs with --pair-by kernel
# saying the file changed; the openmp refusal. Skips (77)
# without OpenCL.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
example=cases/examples/csr_unroll.cl
quick=(--no-stream --min-samples 3 --max-samples 5 --budget 0.02)
declare_example=(--kernel-file "$example" --kernel csr_unroll --like csr-scalar --global-divisor ROWS_PER_ITEM)
measurements() { jq -c 'select(.type == "measurement")' "$1"; }
count() { measurements "$1" | jq -s "map(select($2)) | length"; }

echo "== spmv: the example runs as csr-scalar does, checked; its record names the file"
"$bin" spmv --matrix gen:cube:7 --backend opencl "${quick[@]}" "${declare_example[@]}" --param UNROLL=4 \
  --param ROWS_PER_ITEM=2 --json > "$work/spmv.json" 2> "$work/spmv.log" || fail "spmv exited $?: $(cat "$work/spmv.log")"
jq -e '.status == "ok" and .kernel == "csr_unroll" and .params == {"WG_SIZE": 128, "UNROLL": 4, "ROWS_PER_ITEM": 2}
       and .kernel_file.path == "cases/examples/csr_unroll.cl" and (.kernel_file.hash | test("^[0-9a-f]{16}$"))
       and .kernel_file.like == "csr-scalar" and .check.ok' "$work/spmv.json" > /dev/null ||
  fail "spmv record: $(jq -c '{status, kernel, params, kernel_file, check}' "$work/spmv.json")"
# 343 rows, groups of 128 divided by 2: 2 groups
[ "$(jq -c .launch.global "$work/spmv.json")" = "[256]" ] || fail "the divisor did not divide the launch: $(jq -c .launch "$work/spmv.json")"

echo "== grid: a heat2d kernel file, checked as heat-jacobi is"
"$bin" grid --family heat2d --grid grid:33x33 --backend opencl "${quick[@]}" \
  --kernel-file cases/examples/heat_jacobi_cells.cl --kernel heat_jacobi_cells --param CELLS_PER_ITEM=2 \
  --global-divisor CELLS_PER_ITEM --json > "$work/grid.json" 2> "$work/grid.log" ||
  fail "grid exited $?: $(cat "$work/grid.log")"
jq -e '.status == "ok" and .kernel_file.like == "heat-jacobi" and .params.CELLS_PER_ITEM == 2
       and .launch.global == [32, 36]' "$work/grid.json" > /dev/null ||
  fail "grid record: $(jq -c '{status, params, launch, kernel_file}' "$work/grid.json")"

echo "== openmp: refused with the reason, nothing run"
code=0
"$bin" spmv --matrix gen:cube:7 "${quick[@]}" --kernel-file "$example" --kernel csr_unroll 2> "$work/omp.log" || code=$?
[ "$code" -eq 2 ] && grep -q 'the openmp backend has no twin of it; run it on opencl or cuda' "$work/omp.log" ||
  fail "openmp: exit $code, $(cat "$work/omp.log")"

echo "== sweep: ok, pruned by a constraint, wrong-result, build error naming the file and line"
code=0
"$bin" sweep tests/data/suites/user-kernel.suite --out "$work/sweep.jsonl" 2> "$work/sweep.log" || code=$?
[ "$code" -eq 1 ] || fail "a sweep with a wrong result exited $code, want 1"
grep -q '1 gave a wrong result' "$work/sweep.log" || fail "no wrong-result summary: $(tail -2 "$work/sweep.log")"
[ "$(count "$work/sweep.jsonl" '.kernel == "csr_unroll" and .status == "ok" and .kernel_file.like == "csr-scalar"')" -eq 3 ] ||
  fail "the example's 3 points are not ok"
[ "$(count "$work/sweep.jsonl" '.kernel == "csr_unroll" and .status == "pruned" and (.reason | test("constraint .UNROLL \\* ROWS_PER_ITEM <= 4. does not hold"))
    and (.kernel_file.path | endswith("csr_unroll.cl"))')" -eq 1 ] ||
  fail "the constraint did not prune UNROLL=4 ROWS_PER_ITEM=2, or its record does not name the kernel file"
[ "$(count "$work/sweep.jsonl" '.kernel == "csr_skip7" and .status == "wrong-result" and (.reason | test("y\\[3\\] is NaN")) and (.check.ok | not)')" -eq 1 ] ||
  fail "the wrong kernel is not recorded wrong-result: $(measurements "$work/sweep.jsonl" | jq -c 'select(.kernel == "csr_skip7") | {status, reason}')"
[ "$(count "$work/sweep.jsonl" '.kernel == "csr_bad" and .status == "build-error" and (.reason | test("csr_bad.cl:8:[0-9]+: .*undeclared_variable"))')" -eq 1 ] ||
  fail "the build error does not name csr_bad.cl:8: $(measurements "$work/sweep.jsonl" | jq -c 'select(.kernel == "csr_bad") | .reason')"
[ "$(count "$work/sweep.jsonl" '.kernel == "csr-scalar" and .status == "ok" and (has("kernel_file") | not)')" -eq 1 ] ||
  fail "the template's own record"

echo "== tune: the cache entry under the user's kernel name; spmv --tuned takes it"
cache=$work/tuning.json
"$bin" tune --matrix gen:cube:7 --backend opencl "${declare_example[@]}" --param UNROLL=1,2 --param ROWS_PER_ITEM=1,2 --param WG_SIZE=64 \
  --strategy exhaustive --budget 0.02 --min-samples 3 --no-variants --cache "$cache" --out "$work/tune.jsonl" \
  > "$work/tune.txt" 2> "$work/tune.log" || fail "tune exited $?: $(tail -2 "$work/tune.log")"
grep -q 'tune csr_unroll on opencl.*4 of 4 points evaluated' "$work/tune.txt" || fail "tune: $(head -1 "$work/tune.txt")"
[ "$(jq -r '.entries | map(.kernel) | join(",")' "$cache")" = csr_unroll ] || fail "cache: $(jq -c .entries "$cache")"
best=$(jq -cS '.entries[0].params' "$cache")
"$bin" spmv --matrix gen:cube:7 --backend opencl "${quick[@]}" "${declare_example[@]}" --param UNROLL=1,2 \
  --param ROWS_PER_ITEM=1,2 --param WG_SIZE=64 --tuned --cache "$cache" --json > "$work/tuned.json" 2> /dev/null || fail "spmv --tuned exited $?"
[ "$(jq -r .tuning.source "$work/tuned.json")" = exact ] && [ "$(jq -cS .params "$work/tuned.json")" = "$best" ] ||
  fail "spmv --tuned: $(jq -c '{tuning, params}' "$work/tuned.json")"

echo "== plot and compare: the user's kernel as any kernel; a changed file is not paired"
"$bin" sweep tests/data/suites/user-kernel.suite --out "$work/sweep2.jsonl" 2> /dev/null || true
"$bin" plot "$work/sweep.jsonl" --out "$work/plots" --scripts plots > "$work/plot.txt" || fail "plot exited $?"
grep -q 'csr_unroll' "$work"/plots/variants-spmv-*.csv || fail "the variants figure lacks csr_unroll"
ls "$work"/plots/heatmap-csr-unroll-*.csv > /dev/null || fail "no heat map of csr_unroll's parameters"
"$bin" compare "$work/sweep.jsonl" "$work/sweep2.jsonl" --threshold 500 > "$work/compare.txt" 2>&1 || true
grep -Eq '^(SAME|INCONCLUSIVE|SLOWER|FASTER) .*spmv csr_unroll .*ROWS_PER_ITEM=1 UNROLL=1' "$work/compare.txt" ||
  fail "compare did not pair the two runs of csr_unroll: $(cat "$work/compare.txt")"
jq -c 'if .kernel_file then .kernel_file.hash = "0123456789abcdef" else . end' "$work/sweep2.jsonl" > "$work/changed.jsonl"
"$bin" compare "$work/sweep.jsonl" "$work/changed.jsonl" > "$work/changed.txt" 2>&1 || true
grep -q 'kernel_file.hash differs' "$work/changed.txt" && ! grep -Eq '^(SAME|INCONCLUSIVE|SLOWER|FASTER) .*csr_unroll' "$work/changed.txt" ||
  fail "compare paired a changed kernel file with the old one: $(cat "$work/changed.txt")"
# the CI use: gate an edited kernel against its previous version, paired by kernel name
rc=0; "$bin" compare "$work/sweep.jsonl" "$work/changed.jsonl" --pair-by kernel --threshold 500 --no-noise --allow-wrong > "$work/edited.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] && grep -Eq '^(SAME|INCONCLUSIVE) .*spmv csr_unroll .*ROWS_PER_ITEM=1 UNROLL=1' "$work/edited.txt" &&
  grep -Eq 'kernel file changed: [0-9a-f]{12} vs 0123456789ab \(cases/examples/csr_unroll.cl\)' "$work/edited.txt" ||
  fail "compare --pair-by kernel (exit $rc) did not pair the edited kernel file, saying so: $(cat "$work/edited.txt")"
echo "== sweep --resume after the kernel file was edited: refused, naming the file"
mkdir -p "$work/pin/suites"
cp cases/examples/csr_unroll.cl "$work/pin/k.cl"
sed -e 's|kernel_file: ../../../cases/examples/csr_unroll.cl|kernel_file: ../k.cl|' \
  -e '/^  - name: wrong/,$d' tests/data/suites/user-kernel.suite > "$work/pin/suites/pin.suite"
"$bin" sweep "$work/pin/suites/pin.suite" --out "$work/pin/r.jsonl" --limit 1 2> /dev/null || fail "pinned sweep exited $?"
jq -e -s --arg h "$(jq -r 'select(.kernel_file) | .kernel_file.hash' "$work/pin/r.jsonl" | head -1)" \
  '.[0].kernel_files | to_entries | length == 1 and .[0].value == $h' "$work/pin/r.jsonl" > /dev/null ||
  fail "the header does not pin the kernel file's content: $(head -1 "$work/pin/r.jsonl" | jq -c .kernel_files)"
echo "// edited" >> "$work/pin/k.cl"
code=0
"$bin" sweep "$work/pin/suites/pin.suite" --out "$work/pin/r.jsonl" --resume 2> "$work/pin/resume.log" || code=$?
[ "$code" = 2 ] && grep -q "kernel file .*k.cl changed since .*r.jsonl was begun" "$work/pin/resume.log" ||
  fail "--resume after an edit: exit $code, $(cat "$work/pin/resume.log")"
[ "$(jq -s 'map(select(.type == "measurement")) | length' "$work/pin/r.jsonl")" = 1 ] ||
  fail "the refused resume wrote records"
echo "user kernel e2e: all checks passed"
