#!/usr/bin/env bash
# default-suite.sh FLOWBENCH - the default suite: the devices found, the
# stream bandwidth of each (its arrays 4x the last-level cache where memory
# allows), and every SpMV kernel and peer library on each device on this
# machine's DRAM-sized cube Laplacian (gen:cube:N, its CSR 4x the last-level
# cache, N from 29 to 100: scripts/lib/dram-cube.sh) and its 4x4-block form
# (results.jsonl), then the quick sweep suites (sweep-quick.jsonl,
# sweep-grid.jsonl), then the Navier-Stokes solver: cavity levels 0-2, the
# steady level-1 cavity's centreline profiles against Ghia et al., and 20
# timed steps of the Ahmed body (solve.jsonl), all under results/run-DATE/;
# then one report of the whole folder (report.md, and report.html with the
# figures inline), its figures (PNG, SVG: rooflines, throughput against
# size, ...), results.csv, and bmf.json and github-benchmark.json for the
# Bencher and github-action-benchmark dashboards. Every fraction of the triad in them divides by
# one triad per device: the stored reference the run's commands share,
# which the stream run stores when it is stable and the best of the hour
# (docs/measurement.md). Interrupting keeps every record already written.
set -euo pipefail
bin=${1:-build/flowbench}
dir=results/run-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$dir"
# machine notices (energy unavailable, throttling not checked): once in the whole run
export FLOWBENCH_NOTICES="$dir/notices.txt"

echo "== devices"
"$bin" devices | tee "$dir/devices.txt"
"$bin" devices --json > "$dir/devices.json"

echo "== stream (every device; validated)"
status=0
"$bin" stream --out "$dir/results.jsonl" || status=$?

# shellcheck source=lib/dram-cube.sh
. "$(dirname "$0")/lib/dram-cube.sh"
cube=$(dram_cube "$bin") # a cap that leaves it under 4x the cache is said on stderr
echo "== spmv: every kernel and peer on every device (checked), $cube (sized to 4x the last-level cache)"
for dev in $("$bin" devices | awk '/^[a-z]+:[0-9.]+ /{print $1}'); do
  echo "-- $dev"
  "$(dirname "$0")/spmv-study.sh" "$bin" "$dir/results.jsonl" "$dev" "$cube" || status=1
done

echo "== sweep: cases/quick.suite (every configuration checked and recorded)"
"$bin" sweep cases/quick.suite --out "$dir/sweep-quick.jsonl" || status=1

echo "== sweep: cases/grid-quick.suite (heat2d shapes, fv-surface layouts; checked)"
"$bin" sweep cases/grid-quick.suite --out "$dir/sweep-grid.jsonl" || status=1

echo "== solve: the Navier-Stokes cavity at levels 0, 1, 2 (t 0..0.1) and the Ahmed body (20 steps)"
for level in 0 1 2; do
  "$bin" solve cavity --level "$level" --no-stream --out "$dir/solve.jsonl" || status=1
done
"$bin" solve cavity --level 1 --t-end 20 --no-stream --quiet --profiles "$dir/cavity-re100-l1" \
  --out "$dir/solve.jsonl" > /dev/null || status=1
gnuplot -e "prefix='$dir/cavity-re100-l1'; out='$dir/cavity-re100-l1.png'; \
  ref='cases/data/cavity2d-re100-ghia.dat'; reftitle='Ghia, Ghia and Shin 1982 (2D)'" plots/centreline.gp || status=1
if [ -s results/ahmed.msh ] || "$(dirname "$0")/mesh-ahmed.sh" results/ahmed.msh; then
  "$bin" solve ahmed --mesh results/ahmed.msh --steps 20 --no-stream --out "$dir/solve.jsonl" || status=1
else
  status=1
fi

if ls "$dir"/*.jsonl > /dev/null 2>&1; then
  echo "== figures and one report of the whole run (every results file in $dir)"
  [ -s "$dir/results.jsonl" ] && "$bin" export "$dir/results.jsonl" --csv --out "$dir/results.csv"
  # the dashboards' formats (docs/plots-and-compare.md, "Dashboards"): stable records only
  if [ -s "$dir/results.jsonl" ]; then
    "$bin" export "$dir/results.jsonl" --bmf --out "$dir/bmf.json" || status=1
    "$bin" export "$dir/results.jsonl" --github-benchmark time --out "$dir/github-benchmark.json" || status=1
  fi
  "$bin" plot "$dir" --scripts plots > "$dir/plots.txt" || status=1
  tail -n 1 "$dir/plots.txt"
  "$bin" report "$dir" --plots "$dir" --out "$dir/report.md" --html "$dir/report.html" || status=1
  echo "== wrote $dir/report.md, report.html (open it in a browser), results.csv, bmf.json, github-benchmark.json and the figures"
else
  echo "== no results written (no device ran)"
fi
exit $status
