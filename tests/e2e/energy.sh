#!/usr/bin/env bash
# energy.sh FLOWBENCH SRCDIR WORKDIR - energy from the command line to the
# readers (docs/measurement.md):
#  - spmv on openmp with RAPL and cpufreq from a fake powercap tree: the
#    record's energy (source rapl, the window filled to the minimum by
#    repeated runs, runs = samples + repeats) and the "energy:" line;
#  - nothing readable: said once per device on stderr, once per record;
#  - compare on constructed records (test data, not measurements): a SLOWER
#    resting on a throttled run is SLOWER* with the note, in text, markdown
#    and JUnit, and still fails the gate; unthrottled it is plain SLOWER;
#  - report, export and plot on constructed records with energy: the
#    energy columns, the GFLOP/J table, the solver's joules per step, the
#    energy and stepenergy figures.
set -euo pipefail
bin=$1; src=$2; dir=$3
base=$src/tests/data/results/constructed-base.jsonl
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== spmv with a fake RAPL tree: the window, the repeats, the line"
pc=$dir/powercap cpu=$dir/cpu
mkdir -p "$pc/intel-rapl:0" "$pc/intel-rapl:0:0" "$cpu/cpu0/cpufreq" "$cpu/cpu1/cpufreq"
echo package-0 > "$pc/intel-rapl:0/name"; echo 1000000 > "$pc/intel-rapl:0/energy_uj"
echo dram > "$pc/intel-rapl:0:0/name"; echo 2000 > "$pc/intel-rapl:0:0/energy_uj"
echo 3000000 > "$cpu/cpu0/cpufreq/scaling_cur_freq"; echo 3000000 > "$cpu/cpu1/cpufreq/scaling_cur_freq"
# a window of 0.5 s: three samples of gen:cube:6 never fill it, even on a loaded machine
FLOWBENCH_ENERGY_WINDOW=0.5 FLOWBENCH_POWERCAP_ROOT=$pc FLOWBENCH_CPUFREQ_ROOT=$cpu "$bin" spmv --matrix gen:cube:6 --no-stream \
  --min-samples 3 --max-samples 3 --out "$dir/rapl.jsonl" > "$dir/rapl.txt" 2>&1 || { cat "$dir/rapl.txt"; fail "spmv"; }
grep -Eq '^  energy: .* per run; .* W, .* over [0-9.]+ s \([0-9]+ runs, [0-9]+ of them to fill the window; rapl counter\); CPU 3000-3000 MHz$' \
  "$dir/rapl.txt" || { cat "$dir/rapl.txt"; fail "no energy line"; }
! grep -q 'energy unavailable' "$dir/rapl.txt" || fail "RAPL was readable, yet unavailable was said"
jq -e 'select(.type == "measurement") | .energy | .source == "rapl" and .method == "counter"
       and .window_s >= 0.5 and .min_window_s == 0.5 and .extra_runs > 0 and .throttled == false
       and (.domains | keys) == ["dram-0", "package-0"]' "$dir/rapl.jsonl" > /dev/null ||
  fail "RAPL record: $(jq -c 'select(.type == "measurement") | .energy' "$dir/rapl.jsonl")"
jq -e 'select(.type == "measurement") | .energy.runs == .stats.n + .energy.extra_runs' "$dir/rapl.jsonl" > /dev/null ||
  fail "runs are not samples + repeats"

echo "== nothing readable: said once per device, the record says why"
none=(FLOWBENCH_POWERCAP_ROOT=$dir/absent FLOWBENCH_CPUFREQ_ROOT=$dir/absent)
env "${none[@]}" "$bin" spmv --matrix gen:cube:6 --kernel csr-scalar --kernel csr-vector --no-stream \
  --min-samples 2 --max-samples 2 --out "$dir/none.jsonl" > "$dir/none.txt" 2>&1 || { cat "$dir/none.txt"; fail "spmv plan"; }
[ "$(grep -c "^energy unavailable on openmp:0: RAPL: $dir/absent: No such file or directory" "$dir/none.txt")" = 1 ] ||
  { cat "$dir/none.txt"; fail "energy unavailable is not said exactly once"; }
[ "$(grep -c "^throttling not checked on openmp:0: CPU frequency: no $dir/absent/cpu\*" "$dir/none.txt")" = 1 ] ||
  { cat "$dir/none.txt"; fail "no throttle check is not said exactly once"; }
! grep -Eq '^  (energy|THROTTLED)' "$dir/none.txt" || fail "an energy line without energy"

echo "== a run of several commands (FLOWBENCH_NOTICES): said once in the run, kept in the notice file"
rm -f "$dir/notices.txt"
for i in 1 2 3; do
  env "${none[@]}" FLOWBENCH_NOTICES="$dir/notices.txt" "$bin" spmv --matrix gen:cube:5 --kernel csr-scalar --no-stream \
    --min-samples 2 --max-samples 2 --json > /dev/null 2>> "$dir/run.txt" || { cat "$dir/run.txt"; fail "spmv $i"; }
done
[ "$(grep -c '^energy unavailable on openmp:0' "$dir/run.txt")" = 1 ] && [ "$(grep -c '^throttling not checked' "$dir/run.txt")" = 1 ] ||
  { cat "$dir/run.txt"; fail "three commands of one run did not say each notice once"; }
[ "$(wc -l < "$dir/notices.txt")" = 2 ] || { cat "$dir/notices.txt"; fail "the notice file does not hold the two lines"; }
[ "$(jq -c 'select(.type == "measurement" and .status == "ok") | .energy | [.source, (.unavailable | startswith("RAPL: ")),
     .throttled, (.throttle_unavailable | startswith("CPU frequency: "))]' "$dir/none.jsonl" | sort -u)" = \
  '["none",true,null,true]' ] || fail "records without energy: $(jq -c .energy "$dir/none.jsonl")"

echo "== compare: SLOWER* on a throttled run"
expect() { # RC REGEX ARGS...
  local want=$1 regex=$2 rc=0; shift 2
  "$bin" compare "$@" > "$dir/out.txt" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || { cat "$dir/out.txt"; fail "compare $*: exit $rc, expected $want"; }
  grep -Eq -- "$regex" "$dir/out.txt" || { cat "$dir/out.txt"; fail "compare $*: no /$regex/"; }
}
energy='{"source":"nvml","method":"counter","joules":2.0,"window_s":1.0,"runs":100,"extra_runs":60,
  "avg_power_w":2.0,"joules_per_run":0.02,"gflop_per_j":1.5}'
jq -c --argjson e "$energy" 'if .type == "measurement" then .energy = ($e + {throttled: false}) else . end' "$base" \
  > "$dir/cool.jsonl"
jq -c --argjson e "$energy" 'if .type == "measurement" and .kernel == "triad" then .stats.samples_s |= map(. * 2)
       | .energy = ($e + {throttled: true, throttle_reasons: ["sw_power_cap"],
                          throttle_why: "the GPU reported sw_power_cap"}) else . end' "$dir/cool.jsonl" \
  > "$dir/hot.jsonl"
jq -c 'if .type == "measurement" and .kernel == "triad" then .stats.samples_s |= map(. * 2) else . end' \
  "$dir/cool.jsonl" > "$dir/slow.jsonl"
expect 1 '^SLOWER\* .*stream triad' "$dir/cool.jsonl" "$dir/hot.jsonl" --junit "$dir/junit.xml"
expect 1 'throttled during the measurement: BASE 0 of 1 runs, NEW 1 of 1 \(NEW line [0-9]+: the GPU reported sw_power_cap\)' \
  "$dir/cool.jsonl" "$dir/hot.jsonl"
expect 1 '1 SLOWER/FASTER verdict marked \* rest on runs measured while the device throttled' \
  "$dir/cool.jsonl" "$dir/hot.jsonl"
grep -q 'message="SLOWER\*: median' "$dir/junit.xml" || fail "junit: no SLOWER* message"
expect 1 '^\| \*\*SLOWER\\\*\*\* \| stream triad' "$dir/cool.jsonl" "$dir/hot.jsonl" --markdown
expect 1 '^SLOWER  .*stream triad' "$dir/cool.jsonl" "$dir/slow.jsonl"
! grep -q 'throttled' "$dir/out.txt" || fail "an unthrottled SLOWER is marked"
expect 0 '^FASTER\* .*stream triad' "$dir/hot.jsonl" "$dir/cool.jsonl"

echo "== report, export and plot on records with energy"
r=$dir/r.jsonl
# two kernels on one matrix, one of them throttled, and a solver on two backends
jq -c 'select(.type == "header")' "$base" > "$r"
# the verdicts of these real runs depend on the machine's load: made stable, so the tables
# below are numbers (a cell resting on an unstable or contended record is flagged "?": report_csv.sh)
stable='.stats.quality = "stable" | .stats.quality_why = null | del(.environment)'
spmv=$(jq -c "select(.type == \"measurement\") | $stable" "$dir/rapl.jsonl")
jq -c --argjson e "$energy" '.energy = ($e + {throttled: false}) | .kernel = "csr-scalar"' <<< "$spmv" >> "$r"
jq -c --argjson e "$energy" '.energy = ($e + {gflop_per_j: 2.5, joules_per_run: 0.012, throttled: true,
       throttle_why: "the GPU reported hw_slowdown"}) | .kernel = "csr-vector"' <<< "$spmv" >> "$r"
"$bin" solve ethier-steinman --steps 2 --no-stream --out "$dir/solve.jsonl" > /dev/null 2>&1 || fail "solve"
solve=$(jq -c "select(.type == \"measurement\") | $stable" "$dir/solve.jsonl")
jq -e '.energy.source == "none" and (.energy.unavailable | length > 0)' <<< "$solve" > /dev/null ||
  fail "solve without a meter: $(jq -c .energy <<< "$solve")"
jq -c '.energy = {source: "rapl", method: "counter", joules: 3.0, window_s: 1.5, runs: 2, joules_per_run: 1.5,
       joules_per_step: 1.5, joules_to_solution: 3.0, throttled: false}' <<< "$solve" >> "$r"
jq -c '.backend = "opencl" | .device = "opencl:0.0" | .device_name = "Constructed GPU (constructed test data)"
       | .energy = {source: "nvml", method: "counter", joules: 0.5, window_s: 0.2, runs: 2, joules_per_run: 0.25,
       joules_per_step: 0.25, joules_to_solution: 0.5, throttled: false}' <<< "$solve" >> "$r"
"$bin" report "$r" > "$dir/report.md"
section() { awk -v h="## $1" 'index($0, h) == 1 {on = 1; next} /^## / {on = 0} on' "$dir/report.md"; }
section "Best variant per matrix" | grep -Fq '| energy per run | GFLOP/J |' || fail "best variant: no energy columns"
section "Best variant per matrix" | grep -Eq '\| csr-(scalar|vector)( \(throttled\))? \|.*\| (20|12) mJ \| (1\.5|2\.5) \|' ||
  fail "best variant: no energy values: $(section 'Best variant per matrix')"
section "Energy: GB/s beside GFLOP/J" | grep -Eq '^\| csr-vector \| [0-9.e+-]+ \| 2\.5 \|' ||
  fail "energy table: $(section 'Energy: GB/s beside GFLOP/J')"
section "Solver energy per time step" | grep -Eq '^\| opencl:0\.0 .*\| 0\.25 \|' ||
  fail "solver energy table: $(section 'Solver energy per time step')"
"$bin" export "$r" --csv > "$dir/r.csv"
python3 - "$dir/r.csv" << 'PY' || fail "CSV energy columns"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
vec = [r for r in rows if r["kernel"] == "csr-vector"][0]
assert vec["energy_source"] == "nvml" and float(vec["gflop_per_j"]) == 2.5 and vec["throttled"] == "1", vec
assert float(vec["energy_j_per_run"]) == 0.012 and float(vec["avg_power_w"]) == 2.0, vec
solve = [r for r in rows if r["benchmark"] == "solve"]
assert len(solve) == 2 and all(r["energy_j_per_step"] and r["energy_j_to_solution"] for r in solve), solve
assert all(r["throttled"] == "0" for r in solve), solve
PY
if command -v gnuplot > /dev/null; then
  "$bin" plot "$r" --out "$dir/plots" --scripts "$src/plots" > "$dir/plot.txt" 2>&1 || { cat "$dir/plot.txt"; fail "plot"; }
  ls "$dir"/plots/energy-spmv-*.png > /dev/null 2>&1 || fail "no energy figure: $(ls "$dir/plots")"
  ls "$dir"/plots/stepenergy-*.png > /dev/null 2>&1 || fail "no stepenergy figure: $(ls "$dir/plots")"
  csv=$(ls "$dir"/plots/energy-spmv-*.csv | head -1)
  # (a record contended under the suite's own load moves to the hatched
  # columns after these two)
  head -1 "$csv" | grep -q '^label,GB/s,GFLOP/J' || fail "energy table header: $(head -1 "$csv")"
  grep -q '^csr-vector,\([0-9.e+-]*,2.5\|NaN,NaN,[0-9.e+-]*,2.5\)$' "$csv" || fail "energy table: $(cat "$csv")"
  grep -q 'throttled' "$dir"/plots/energy-spmv-*.vars || fail "energy figure title does not say throttled"
  ! grep -qi 'warning' "$dir/plot.txt" || fail "gnuplot warned: $(grep -i warning "$dir/plot.txt" | head -2)"
  # a contended record's bars: in the hatched columns, drawn with a pattern
  jq -c 'if .kernel == "csr-vector" then .stats.quality = "contended" | .stats.quality_why = "constructed"
         else . end' "$r" > "$dir/contended.jsonl"
  "$bin" plot "$dir/contended.jsonl" --out "$dir/contended" --scripts "$src/plots" > "$dir/contended.txt" 2>&1 ||
    fail "plot of a contended record: $(tail -2 "$dir/contended.txt")"
  csv=$(ls "$dir"/contended/energy-spmv-*.csv | head -1)
  [ "$(head -1 "$csv")" = "label,GB/s,GFLOP/J,GB/s (unstable or contended),GFLOP/J (unstable or contended)" ] ||
    fail "energy table of a contended record: $(head -1 "$csv")"
  grep -q '^csr-vector,NaN,NaN,[0-9.e+-]*,2.5$' "$csv" || fail "the contended record's bars are solid: $(cat "$csv")"
  grep -q 'url(#gpPat' "${csv%.csv}.svg" || fail "the contended record's bars are not hatched"
  ! grep -qi 'warning' "$dir/contended.txt" || fail "gnuplot warned: $(grep -i warning "$dir/contended.txt" | head -2)"
else
  echo "gnuplot not installed: figures not drawn"
fi
echo "energy e2e: all checks passed"
