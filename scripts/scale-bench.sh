#!/usr/bin/env bash
# scale-bench.sh - how long flowbench takes on inputs of the size a year of
# nightly runs leaves behind: the report of a results file, loading a
# suite, loading a tuning cache. Inputs come from scripts/scale-gen.sh.
#
# Usage: scripts/scale-bench.sh [FLOWBENCH]
#   env: OUT (results/scale-bench), LIMIT (600: seconds before a command is
#        stopped and reported as "> LIMIT s")
# Prints one line per input: what, its size, the command's seconds and exit
# status. The inputs stay in OUT.
#
#   report   1 run x 1,000 matrices      10k records
#   report   10 runs x 1,000 matrices    100k records (90k superseded)
#   export   the same 100k records       export --csv
#   suite    25k and 50k cases           sweep SUITE --limit 1
#   cache    4k and 20k entries          sweep ONE-CASE --tuned --cache FILE --limit 1
set -uo pipefail
flowbench=$(realpath "${1:-build/flowbench}")
here=$(dirname "$(realpath "$0")")
out=${OUT:-results/scale-bench}
limit=${LIMIT:-600}

die() { echo "scale-bench: $*" >&2; exit 2; }
[ -x "$flowbench" ] || die "$flowbench is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "needs jq"
mkdir -p "$out" || die "cannot create $out"
out=$(realpath "$out")

gen() { # FILE ARGS...: scale-gen.sh ARGS into FILE, once
  local file=$out/$1
  shift
  [ -s "$file" ] || "$here/scale-gen.sh" "$@" > "$file" || die "scale-gen.sh $* failed"
}

timed() { # WHAT SIZE COMMAND...: runs it under the limit, prints its seconds
  local what=$1 size=$2 start end rc seconds
  shift 2
  start=$(date +%s.%N)
  # -k: a flowbench that ignores SIGTERM (as report did) is killed 10 s later
  timeout -k 10 "$limit" "$@" > "$out/last.out" 2> "$out/last.err"
  rc=$?
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && seconds="> $limit"
  printf '%-8s %-34s %10s s  (exit %d)\n' "$what" "$size" "$seconds" "$rc"
}

gen results-10k.jsonl results 1 1000
gen results-100k.jsonl results 10 1000
gen suite-25k.suite suite 25000
gen suite-50k.suite suite 50000
gen suite-1.suite suite 1
gen cache-4k.json cache 4000
gen cache-20k.json cache 20000

echo "flowbench scale benchmark: $("$flowbench" --version), limit $limit s, inputs in $out"
timed report "10k records, 1,000 matrices" "$flowbench" report "$out/results-10k.jsonl"
timed report "100k records, 1,000 matrices" "$flowbench" report "$out/results-100k.jsonl"
timed export "100k records, 1,000 matrices" "$flowbench" export "$out/results-100k.jsonl" --csv
for n in 25k 50k; do
  timed suite "$n cases" "$flowbench" sweep "$out/suite-$n.suite" --limit 1 --out "$out/sweep-$n.jsonl"
  rm -f "$out/sweep-$n.jsonl"
done
for n in 4k 20k; do
  timed cache "$n entries" "$flowbench" sweep "$out/suite-1.suite" --tuned --cache "$out/cache-$n.json" \
    --limit 1 --out "$out/sweep-cache-$n.jsonl"
  rm -f "$out/sweep-cache-$n.jsonl"
done
