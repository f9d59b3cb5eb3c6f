#!/usr/bin/env bash
# stream_results.sh FLOWBENCH OUT - runs `stream` on every device found,
# writing OUT, and checks the file: valid JSON Lines, one header first, four
# measurement records per device that ran, every record checked "ok".
set -euo pipefail
bin=$1; out=$2
rm -f "$out"
"$bin" stream --size 200000 --max-samples 10 --out "$out"
lines=$(wc -l < "$out")
jq -e . "$out" > /dev/null || { echo "FAIL: $out is not valid JSON Lines"; exit 1; }
[ "$(head -1 "$out" | jq -r .type)" = header ] || { echo "FAIL: first record is not the header"; exit 1; }
ndev=$(head -1 "$out" | jq '.devices | length')
nrec=$(jq -s '[.[] | select(.type == "measurement")] | length' "$out")
nok=$(jq -s '[.[] | select(.type == "measurement" and .status == "ok" and .check.ok)] | length' "$out")
bad=$(jq -s '[.[] | select(.type == "measurement") | select(.gbs <= 0 or .stats.n < 1)] | length' "$out")
echo "records: $lines lines, devices in header: $ndev, measurements: $nrec, ok: $nok"
[ "$nrec" -ge 8 ] || { echo "FAIL: expected openmp and opencl (>= 8 records), got $nrec"; exit 1; }
[ "$nrec" -eq "$nok" ] || { echo "FAIL: $((nrec - nok)) records not ok"; exit 1; }
[ "$bad" -eq 0 ] || { echo "FAIL: $bad records with non-positive GB/s or no samples"; exit 1; }
echo "ok"
