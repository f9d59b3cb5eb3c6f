#!/usr/bin/env bash
# solve.sh FLOWBENCH SOURCE_DIR DIR - `flowbench solve` end to end: the
# cavity at level 0 for a few steps with --vtk, --profiles, --out and
# --json; the record (fields, per-step split, CG counts, byte and flop
# models, each step a point on the roofline), the
# results file as the readers take it, the VTK file as XML with the mesh's
# sizes, the centreline profiles and their gnuplot plot; the Ahmed case on
# a coarse gmsh mesh (drag and lift in the record); --compare on every
# backend here (a record each, the comparison tables); and Ctrl-C, which
# must stop the run cleanly with an "interrupted" record and exit 130.
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
"$bin" solve cavity --level 0 --steps 4 --no-stream --vtk "$dir/cavity.vtu" --profiles "$dir/cavity" \
  --out "$dir/r.jsonl" --json > "$dir/record.json" 2> "$dir/table.txt"
# --json: the record alone on stdout; the table on stderr
jq -e '.benchmark == "solve" and .case == "cavity" and .level == 0 and .status == "ok" and .steps == 4
       and .backend == "openmp" and .mesh.nodes == 3375 and .mesh.tets == 16464 and .mesh.edges > 0
       and (.mesh.hash | test("^[0-9a-f]{16}$")) and .cg.its_min > 0 and .cg.its_total >= 4 * .cg.its_min
       and .timings.step1.total_s > 0 and .timings.step2.total_s > 0 and .timings.step3.total_s > 0
       and .timings.cpu_to_gpu_s == 0 and .bytes_per_step > 0 and .gbs > 0 and .fraction_of_stream == null
       and (.stats.samples_s | length) == 4 and .validation.divergence_l2 >= 0
       and (.validation.net_boundary_flux | fabs) < 1e-10' "$dir/record.json" > /dev/null ||
  { echo "FAIL: record lacks or misstates fields"; cat "$dir/record.json"; exit 1; }
# the step times' verdict and the machine over the time loop (docs/results.md)
jq -e '(.stats.quality | IN("stable", "unstable", "contended"))
       and ((.stats.quality == "stable") == (.stats.quality_why == null))
       and .environment.cpu_threads >= 1 and (.environment.contended | type) == "boolean"
       and .environment.window_s > 0 and (has("speedup") | not)' "$dir/record.json" > /dev/null ||
  { echo "FAIL: record lacks the verdict or the environment"; jq -c '.stats, .environment' "$dir/record.json"; exit 1; }
grep -q "step 2 (pressure, CG)" "$dir/table.txt" || { echo "FAIL: no per-step table on stderr"; exit 1; }
# --kernel-times: every kernel of the step timed; the CG's product and
# update called once per iteration, the table by total time
"$bin" solve cavity --level 0 --steps 2 --no-stream --kernel-times --json > "$dir/times.json" 2> "$dir/times.txt" ||
  { echo "FAIL: --kernel-times: $(tail -3 "$dir/times.txt")"; exit 1; }
jq -e '.kernel_times as $t | .cg.its_total as $its | $t.ns_cg1_matvec.calls >= $its
       and $t.ns_cg1_update.calls >= $its - 2 and $t.ns_rk_stage.calls == 8 and $t.ns_cg1_matvec.total_s > 0
       and $t.scalar_reads.calls >= $its and ([$t[].total_s] | add) > 0' "$dir/times.json" > /dev/null ||
  { echo "FAIL: kernel_times"; jq -c '.kernel_times, .cg' "$dir/times.json"; exit 1; }
grep -Eq '^  ns_cg1_matvec +[0-9]+ ' "$dir/times.txt" && grep -q '^kernel times' "$dir/times.txt" ||
  { echo "FAIL: no kernel times table"; cat "$dir/times.txt"; exit 1; }
# the byte model grows with CG iterations: bytes = fixed + its_mean * per-iteration part > 0
# results file: a header then the record; the readers accept it
[ "$(jq -s 'length' "$dir/r.jsonl")" -eq 2 ] || { echo "FAIL: results file should hold 2 records"; exit 1; }
[ "$(head -1 "$dir/r.jsonl" | jq -r '.type + " " + .command')" = "header solve" ] || { echo "FAIL: no header"; exit 1; }
"$bin" export "$dir/r.jsonl" --csv > "$dir/r.csv"
grep -q fractional-step "$dir/r.csv" || { echo "FAIL: export lost the solve record"; exit 1; }
# each step is a point on the roofline: its model flops beside its model
# bytes (a bandwidth-bound mix, 0.1 to 2 flop per byte), plotted against
# the triad and the device's peak (the record's triad planted: --no-stream)
jq -e '[.timings.step1, .timings.step2, .timings.step3] | all(.flops > 0 and .flops / .bytes > 0.1 and .flops / .bytes < 2)' \
  "$dir/record.json" > /dev/null || { echo "FAIL: step flops: $(jq -c .timings "$dir/record.json")"; exit 1; }
jq -c 'if .type == "measurement" then .stream_gbs = 10 else . end' "$dir/r.jsonl" > "$dir/triad.jsonl"
"$bin" plot "$dir/triad.jsonl" --out "$dir/figs" --scripts "$src/plots" > "$dir/plot.txt" 2>&1 ||
  { echo "FAIL: plot of the solve record: $(tail -3 "$dir/plot.txt")"; exit 1; }
head -1 "$dir"/figs/roofline-openmp-*-double.csv | grep -q "solve step1,.*solve step2,.*solve step3," &&
  grep -q "^cavity-l0," "$dir"/figs/roofline-openmp-*-double.csv || { echo "FAIL: no step points on the roofline"; exit 1; }
# each step is a kernel (its own colour), the case its problem: one point each, none missing
awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ /^solve step[123]$/) c[i] = 1 }
         $1 == "cavity-l0" { for (i in c) if ($i == "NaN" || $(i + 1) == "NaN") exit 1; found = 1 }
         END { exit !found }' "$dir"/figs/roofline-openmp-*-double.csv ||
  { echo "FAIL: a step without its point: $(cat "$dir"/figs/roofline-openmp-*-double.csv)"; exit 1; }
# --compare: openmp and each device backend that opens run the same case;
# one record each, named per level, and the comparison tables
"$bin" solve cavity --level 0 --steps 3 --no-stream --quiet --compare --out "$dir/cmp.jsonl" > "$dir/cmp.txt" 2>&1 ||
  { echo "FAIL: solve --compare: $(tail -3 "$dir/cmp.txt")"; exit 1; }
jq -e -s '[.[] | select(.type == "measurement")] | length >= 1 and all(.matrix.name == "cavity-l0" and .status == "ok")
          and any(.backend == "openmp")' "$dir/cmp.jsonl" > /dev/null || { echo "FAIL: --compare records"; exit 1; }
if "$bin" devices | grep -q '^opencl:'; then
  jq -e -s '[.[] | select(.type == "measurement")] | (map(.backend) | sort) == ["opencl", "openmp"]
            and (map(select(.backend == "opencl"))[0] | .timings.cpu_to_gpu_s > 0 and .launches_per_cg_iteration == 3
                 and .timings.device_setup_s > 0)
            and (map(.cg.its_total) | unique | length) == 1' "$dir/cmp.jsonl" > /dev/null ||
    { echo "FAIL: --compare: openmp and opencl records (same CG iterations)"; exit 1; }
  grep -q "speedup over openmp:0" "$dir/cmp.txt" && grep -q "per-step split" "$dir/cmp.txt" ||
    { echo "FAIL: no comparison tables"; cat "$dir/cmp.txt"; exit 1; }
  # the device record carries its speedup over the openmp run, both ways, with the definitions and the verdict
  jq -e -s '[.[] | select(.type == "measurement")] | (map(select(.backend == "openmp"))[0] | has("speedup") | not)
            and (map(select(.backend == "opencl"))[0].speedup | .over == "openmp:0" and .per_step > 0 and .total > 0
                 and (.trusted | type) == "boolean" and ((.why == null) == .trusted)
                 and (.definition.per_step | test("median time step")) and (.definition.total | test("whole run")))' \
    "$dir/cmp.jsonl" > /dev/null || { echo "FAIL: the opencl record's speedup"; exit 1; }
  # the baseline runs first whatever the order given, so every device record can carry its speedup
  "$bin" solve cavity --level 0 --steps 2 --no-stream --quiet --backend opencl --backend openmp \
    --out "$dir/order.jsonl" > /dev/null 2>&1 || { echo "FAIL: solve --backend opencl --backend openmp"; exit 1; }
  jq -e -s '[.[] | select(.type == "measurement")] | map(.backend) == ["openmp", "opencl"]
            and (.[1].speedup.over == "openmp:0")' "$dir/order.jsonl" > /dev/null ||
    { echo "FAIL: openmp did not run first, or the opencl record has no speedup"; exit 1; }
  "$bin" plot "$dir/cmp.jsonl" --out "$dir/plots" > "$dir/plot.txt" 2>&1 || { echo "FAIL: plot: $(tail -2 "$dir/plot.txt")"; exit 1; }
  grep -q '^cavity-l0,' "$dir/plots/speedup-solve-double.csv" || { echo "FAIL: no speedup row for cavity-l0"; exit 1; }
fi
# the time split per backend (stacked bars): a row per backend, the five parts as columns
"$bin" plot "$dir/cmp.jsonl" --out "$dir/plots" > "$dir/plot.txt" 2>&1 || { echo "FAIL: plot: $(tail -2 "$dir/plot.txt")"; exit 1; }
# (a contended run's parts follow in "PART (unstable or contended)" columns, drawn hatched)
head -1 "$dir/plots/steps-double-cavity-l0.csv" |
  grep -Eq '^label,CPU->GPU,step 1 \(momentum\),step 2 \(pressure CG\),step 3 \(correction\),GPU->CPU(,CPU->GPU \(unstable or contended\).*)?$' ||
  { echo "FAIL: steps figure columns: $(head -1 "$dir/plots/steps-double-cavity-l0.csv")"; exit 1; }
[ -s "$dir/plots/steps-double-cavity-l0.png" ] || { echo "FAIL: no steps figure drawn"; exit 1; }
"$bin" report "$dir/cmp.jsonl" > "$dir/report.md" || { echo "FAIL: report"; exit 1; }
grep -A30 "## Solver (the paper" "$dir/report.md" | grep -A6 "Split per step" | grep -q '^| openmp:0' ||
  { echo "FAIL: report lacks the time split"; exit 1; }
# VTK: well-formed XML, points and cells of the mesh, the fields ParaView shows
xmllint --noout "$dir/cavity.vtu" || { echo "FAIL: cavity.vtu is not well-formed XML"; exit 1; }
grep -q 'NumberOfPoints="3375" NumberOfCells="16464"' "$dir/cavity.vtu" || { echo "FAIL: vtu sizes"; exit 1; }
for f in velocity pressure divergence; do
  grep -q "Name=\"$f\"" "$dir/cavity.vtu" || { echo "FAIL: vtu lacks $f"; exit 1; }
done
# profiles: 15 nodes on each centreline, u = 1 at the lid, 0 at the bottom
[ "$(grep -vc '^#' "$dir/cavity-u.dat")" -eq 15 ] || { echo "FAIL: cavity-u.dat should have 15 points"; exit 1; }
[ "$(grep -vc '^#' "$dir/cavity-w.dat")" -eq 15 ] || { echo "FAIL: cavity-w.dat should have 15 points"; exit 1; }
awk '!/^#/ && $1 == 1 && $2 != 1 { bad = 1 } !/^#/ && $1 == 0 && $2 != 0 { bad = 1 } END { exit bad }' \
  "$dir/cavity-u.dat" || { echo "FAIL: profile boundary values"; exit 1; }
if command -v gnuplot > /dev/null; then
  gnuplot -e "prefix='$dir/cavity'; out='$dir/centreline.png'" "$src/plots/centreline.gp"
  [ -s "$dir/centreline.png" ] || { echo "FAIL: gnuplot made no centreline.png"; exit 1; }
fi
# Ahmed on a coarse mesh of cases/ahmed.geo (when gmsh is here): drag and lift come out
if command -v gmsh > /dev/null; then
  "$src/scripts/mesh-ahmed.sh" "$dir/ahmed4.msh" 4 > /dev/null
  "$bin" solve ahmed --mesh "$dir/ahmed4.msh" --steps 3 --no-stream --quiet --json 2> /dev/null > "$dir/ahmed.json"
  jq -e '.status == "ok" and .validation.body_faces > 100 and (.validation.cd | type) == "number"
         and (.validation.cl | type) == "number" and (.validation.force_pressure | length) == 3' "$dir/ahmed.json" \
    > /dev/null || { echo "FAIL: ahmed record lacks drag and lift"; cat "$dir/ahmed.json"; exit 1; }
else
  echo "note: gmsh not found, the Ahmed case was not run"
fi
# Several backends, one that cannot open first: it is said, the others run
# and print their table, and the command fails naming it (exit 3), so that
# one driver's fault cannot take the other devices' rows with it.
rc=0
OCL_ICD_VENDORS=$dir/no-icd "$bin" solve cavity --cube 6 --steps 2 --no-stream --quiet --backend opencl \
  --backend openmp --out "$dir/one-fails.jsonl" > "$dir/one-fails.txt" 2>&1 || rc=$?
[ $rc = 3 ] || { echo "FAIL: a backend that cannot open among several: exit $rc, not 3"; cat "$dir/one-fails.txt"; exit 1; }
grep -q "solve: --backend opencl: .*the comparison goes on without it" "$dir/one-fails.txt" &&
  grep -q "^  openmp:0 " "$dir/one-fails.txt" && grep -q "solve cavity: --backend opencl failed" "$dir/one-fails.txt" ||
  { echo "FAIL: the failed backend not named, or the others not run"; cat "$dir/one-fails.txt"; exit 1; }
jq -e -s '[.[] | select(.type == "measurement")] | length == 1 and .[0].backend == "openmp" and .[0].status == "ok"' \
  "$dir/one-fails.jsonl" > /dev/null || { echo "FAIL: the openmp record of a comparison with a failed backend"; exit 1; }
# Ctrl-C: a clean stop with the steps measured so far
"$bin" solve cavity --level 1 --steps 100000 --no-stream --quiet --out "$dir/int.jsonl" > "$dir/int.txt" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^solve cavity' "$dir/int.txt" 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -INT "$pid"
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" -eq 130 ] || { echo "FAIL: Ctrl-C gave exit $rc, expected 130"; cat "$dir/int.txt"; exit 1; }
jq -s -e '.[1].status == "interrupted" and .[1].steps > 0 and (.[1].reason | test("interrupted"))' \
  "$dir/int.jsonl" > /dev/null ||
  { echo "FAIL: no interrupted record"; cat "$dir/int.jsonl"; exit 1; }
echo ok
