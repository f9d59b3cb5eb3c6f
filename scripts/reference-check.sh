#!/usr/bin/env bash
# reference-check.sh [OUT] - issue 50's reference target, end to end from
# this checkout:
#   1. `./run.sh test` with one busy process (a shell loop) beside it for
#      the whole run, the user's cache folder snapshot before and checked
#      after (tests/lint/user_cache.sh): the tests must not touch it;
#   2. then, quiet, `./run.sh default`, its terminal kept: every fraction
#      of the triad in its terminal lines ("= 67.3% of stream triad 27.41
#      GB/s"), in its records (stream_gbs) and in its report (the triad
#      each device's fractions divide by) must be one figure per device
#      and precision, and that triad stable (the records'
#      stream_reference.quality).
# Writes OUT/summary.md (default results/reference-check) and the logs;
# exit 1 when the target fails. Takes the test suite's time plus the
# default suite's (about 15 minutes on the 2-core VM).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/reference-check}
mkdir -p "$out"
lint=tests/lint/user_cache.sh
status=0

"$lint" snapshot "$out/user-cache.snapshot" >/dev/null
sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
before_test=$(uptime)
./run.sh test >"$out/test.log" 2>&1
test_rc=$?
kill $busy
trap - EXIT
if "$lint" check "$out/user-cache.snapshot" >"$out/user-cache.txt" 2>&1; then
  cache_line="the user's cache folder was not touched by the tests"
else
  cache_line="FAILED: the tests touched the user's cache folder: $(tr '\n' ' ' <"$out/user-cache.txt")"
  status=1
fi

sleep 5 # the busy process's CPU time out of the load's first figure
before_default=$(uptime)
./run.sh default >"$out/default.log" 2>&1
default_rc=$?
after=$(uptime)
run=$(ls -d results/run-* | sort | tail -n 1)

# The triad of every fraction, per source: terminal (the figure printed
# after "of stream triad"), records (stream_gbs), report (its table of the
# triad each device divides by).
grep -o 'of stream triad [0-9.]* GB/s' "$out/default.log" | awk '{print $4}' | sort -u >"$out/terminal-triads.txt"
cat "$run"/*.jsonl | jq -r 'select(.type == "measurement" and (.stream_gbs // 0) > 0 and .suite == null)
    | "\(.device) \(.precision) \(.stream_gbs) \(.stream_reference.quality // "unknown")"' | sort -u >"$out/record-triads.txt"
sed -n '/^## Devices and their stream triad/,/^## /p' "$run/report.md" >"$out/report-triads.md"
{
  echo "# The reference triad across one run, $(date -u +%Y-%m-%d)"
  echo
  echo "\`scripts/reference-check.sh $out\`; flowbench $(build/flowbench --version)"
  echo
  echo "- \`./run.sh test\` beside one busy process: exit $test_rc ($(grep -E 'tests passed' "$out/test.log" | tail -n 1)); started at: $before_test"
  echo "- $cache_line"
  echo "- \`./run.sh default\`, quiet: exit $default_rc, into $run; before: $before_default; after: $after"
  echo "- the terminal's fractions divided by: $(paste -sd' ' "$out/terminal-triads.txt") GB/s"
  echo "- the records' (device, precision, stream_gbs, the reference's quality): $(paste -sd';' "$out/record-triads.txt")"
  echo "- the report's triads:"
  echo
  sed 's/^/    /' "$out/report-triads.md"
} >"$out/summary.md"
# one figure per device and precision in the records, each stable, each
# printed on the terminal, and each the report's
while read -r device precision gbs quality; do
  [ "$quality" = stable ] || { echo "- FAILED: $device ($precision) divided by a $quality triad" >>"$out/summary.md"; status=1; }
  [ "$(grep -c "^$device $precision " "$out/record-triads.txt")" = 1 ] ||
    { echo "- FAILED: $device's $precision records divided by several triads" >>"$out/summary.md"; status=1; }
  printf '%.2f\n' "$gbs" | grep -q -x -F -f - "$out/terminal-triads.txt" ||
    { echo "- FAILED: $device's $precision triad $gbs is not the terminal's" >>"$out/summary.md"; status=1; }
  grep -q "$(printf '%.2f' "$gbs")" "$out/report-triads.md" ||
    { echo "- FAILED: $device's $precision triad $gbs is not the report's" >>"$out/summary.md"; status=1; }
done <"$out/record-triads.txt"
[ $status = 0 ] && echo "- target met: one stable triad per device and precision in the terminal, the records and the report" >>"$out/summary.md"
cat "$out/summary.md"
exit $status
