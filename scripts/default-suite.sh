#!/usr/bin/env bash
# default-suite.sh FLOWBENCH - the default suite: the devices found and the
# stream bandwidth of each, as JSON Lines, CSV and gnuplot figures under
# results/run-DATE/. Interrupting keeps every record already written.
set -euo pipefail
bin=${1:-build/flowbench}
dir=results/run-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$dir"

echo "== devices"
"$bin" devices | tee "$dir/devices.txt"
"$bin" devices --json > "$dir/devices.json"

echo "== stream (every device; validated)"
status=0
"$bin" stream --out "$dir/results.jsonl" || status=$?

# Table for gnuplot: one row per kernel, one column per device, median GB/s.
jq -rs '[.[] | select(.type == "measurement" and .benchmark == "stream")] as $r
        | ($r | map(.device) | unique) as $devs
        | (["kernel"] + $devs | join(" ")),
          (["copy", "mul", "add", "triad"][] as $k
           | ([$k] + [$devs[] as $d | ($r[] | select(.device == $d and .kernel == $k) | .gbs | tostring)]
              | join(" ")))' "$dir/results.jsonl" > "$dir/stream.dat"
host=$(jq -r 'select(.type == "header") | .host.hostname' "$dir/results.jsonl" | head -1)
for term in png svg; do
  gnuplot -e "datafile='$dir/stream.dat'; outfile='$dir/stream.$term'; term='$term'; host='$host'" plots/stream.gp
done
echo "== wrote $dir/results.jsonl, $dir/stream.dat, $dir/stream.png, $dir/stream.svg"
exit $status
