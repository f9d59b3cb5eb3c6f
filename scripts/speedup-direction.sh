#!/usr/bin/env bash
# speedup-direction.sh - do the default suite's speedups over OpenMP point
# the same way on a busy machine as on a quiet one? The benchmark behind
# the README's claim (docs/measurement.md, "On a shared machine"); not a
# timed test.
#
# Runs, quiet and then with one busy process for the whole phase, the
# default suite's comparisons over OpenMP that are cheap to repeat:
#   - `solve cavity --level 1 --steps 5 --compare` (per-step and total
#     speedups of each device over openmp, from the records' speedup);
#   - csr-scalar, csr-vector and sell on gen:cube:29 (the default suite's
#     matrix) on openmp and on the OpenCL device, and their ratio.
# Then one table: each speedup quiet and loaded, whether each was trusted
# (both sides stable and uncontended), and whether the direction (above or
# below 1) held.
#
# Usage: scripts/speedup-direction.sh [FLOWBENCH] [OUT]
# Writes OUT/summary.md and keeps the records. Exit 0 when every speedup
# kept its direction or was flagged untrusted under load, 1 when a trusted
# one flipped, 2 when something failed to run.
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/speedup-direction}
die() { echo "speedup-direction: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.jsonl "$out/summary.md" "$out/uptime.txt"
device=$("$bin" devices | awk '/^opencl:[0-9.]+ /{print $1; exit}')
[ -n "$device" ] || die "no OpenCL device here: nothing to compare with openmp"

busy_pid=
stop_load() { [ -n "$busy_pid" ] && kill "$busy_pid" 2> /dev/null; busy_pid=; }
trap stop_load EXIT

phase() { # phase NAME: the runs into OUT/NAME-*.jsonl
  echo "- $1, before: $(uptime)" >> "$out/uptime.txt"
  "$bin" solve cavity --level 1 --steps 5 --compare --out "$out/$1-solve.jsonl" > /dev/null 2>> "$out/$1.err" ||
    die "$1 solve failed: see $out/$1.err"
  for k in csr-scalar csr-vector sell; do
    for b in openmp "$device"; do
      "$bin" spmv --matrix gen:cube:29 --kernel "$k" --backend "$b" --out "$out/$1-spmv.jsonl" > /dev/null \
        2>> "$out/$1.err" || die "$1 spmv $k on $b failed: see $out/$1.err"
    done
  done
  echo "- $1, after: $(uptime)" >> "$out/uptime.txt"
}
phase quiet
(exec sh -c 'while :; do :; done') &
busy_pid=$!
sleep 1
phase loaded
stop_load

# figures PHASE: "NAME<TAB>SPEEDUP<TAB>TRUSTED" lines
figures() {
  jq -r 'select(.benchmark == "solve" and .speedup != null) |
         ("solve " + .device + " per step\t\(.speedup.per_step)\t\(.speedup.trusted)"),
         ("solve " + .device + " total\t\(.speedup.total)\t\(.speedup.trusted)")' "$out/$1-solve.jsonl"
  jq -rs --arg d "$device" '
    def ok(r): (r.stats.quality // "stable") == "stable";
    [.[] | select(.type == "measurement" and .benchmark == "spmv")] as $r |
    ($r | map(.kernel) | unique[]) as $k |
    ($r | map(select(.kernel == $k and .backend == "openmp"))[0]) as $o |
    ($r | map(select(.kernel == $k and .device == $d))[0]) as $c |
    select($o != null and $c != null) |
    "spmv \($k) \($d) over openmp\t\($o.stats.median_s / $c.stats.median_s)\t\(ok($o) and ok($c))"' \
    "$out/$1-spmv.jsonl"
}
figures quiet | sort > "$out/.quiet"
figures loaded | sort > "$out/.loaded"
flipped=0
{
  echo "# Speedups over OpenMP, quiet and beside one busy process"
  echo
  echo "\`$bin\` ($("$bin" --version)); $(nproc) CPUs; OpenCL device $device"
  echo
  cat "$out/uptime.txt"
  echo
  echo "| speedup | quiet | trusted | loaded | trusted | direction |"
  echo "|---|---|---|---|---|---|"
} > "$out/summary.md"
while IFS=$'\t' read -r name q qt; do
  IFS=$'\t' read -r _ l lt < <(grep -F "$name"$'\t' "$out/.loaded")
  same=$(awk -v a="$q" -v b="$l" 'BEGIN {print ((a > 1) == (b > 1)) ? "same" : "FLIPPED"}')
  if [ "$same" = FLIPPED ] && [ "$lt" = true ]; then flipped=$((flipped + 1)); same="FLIPPED (trusted)"; fi
  [ "$same" = FLIPPED ] && same="flipped, flagged untrusted"
  printf '| %s | %.3gx | %s | %.3gx | %s | %s |\n' "$name" "$q" "$qt" "$l" "$lt" "$same" >> "$out/summary.md"
done < "$out/.quiet"
rm -f "$out/.quiet" "$out/.loaded"
echo >> "$out/summary.md"
echo "trusted speedups that flipped direction under load: $flipped" >> "$out/summary.md"
cat "$out/summary.md"
[ "$flipped" -eq 0 ]
