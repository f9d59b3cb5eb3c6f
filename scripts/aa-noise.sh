#!/usr/bin/env bash
# aa-noise.sh - does `flowbench compare` keep quiet on noise and still catch
# a real slowdown on this machine? The benchmark behind the CI gate's claim.
#
#   1. learn: LEARN A/A pairs (two sweeps of the same code, one after the
#      other) go through `compare --learn-noise` into OUT/noise.json;
#   2. test: TESTS more A/A comparisons (consecutive sweeps) with that
#      floor: the target is no SLOWER verdict at all;
#   3. power: the same suite on 2 OpenMP threads (BASE) against 1 (NEW):
#      the target is at least one SLOWER verdict, and the list says which.
# Every sweep runs the plan REPEAT times, round after round (sweep
# --repeat), so compare sees between-run noise in each file.
#
# Usage: scripts/aa-noise.sh [FLOWBENCH] [SUITE]
#   env: OUT (results/aa-noise), LEARN (5), TESTS (20), REPEAT (3)
# Writes OUT/summary.txt (one line per comparison, then the verdict) and
# keeps every results file and compare table under OUT. Exit 0 when both
# targets are met, 1 when not, 2 when something failed to run.
set -uo pipefail
flowbench=${1:-build/flowbench}
suite=${2:-cases/quick.suite}
out=${OUT:-results/aa-noise}
learn=${LEARN:-5}
tests=${TESTS:-20}
repeat=${REPEAT:-3}
noise=$out/noise.json

die() { echo "aa-noise: $*" >&2; exit 2; }
[ -x "$flowbench" ] || die "$flowbench is not an executable (build first, or pass its path)"
[ -f "$suite" ] || die "$suite: no such suite"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/run-*.jsonl "$out"/run-*.jsonl.inflight "$noise" "$out/summary.txt"

sweep() { # sweep NAME [env...]: one repeated sweep of the suite into OUT/run-NAME.jsonl
  local name=$1; shift
  env "$@" "$flowbench" sweep "$suite" --repeat "$repeat" --out "$out/run-$name.jsonl" \
    >"$out/run-$name.log" 2>&1 || die "sweep $name failed: see $out/run-$name.log"
}

# counts VERDICT in a compare table: its lines start with the verdict
count() { grep -c "^$1 " "$2" || true; }

summarise() { # summarise LABEL TABLE
  printf '%-22s %2d SLOWER %2d FASTER %2d INCONCLUSIVE %2d SAME\n' "$1" "$(count SLOWER "$2")" \
    "$(count FASTER "$2")" "$(count INCONCLUSIVE "$2")" "$(count SAME "$2")" | tee -a "$out/summary.txt"
}

compare() { # compare BASE NEW TABLE [options]: exit 2 means the files could not be compared
  local base=$1 new=$2 table=$3; shift 3
  "$flowbench" compare "$out/run-$base.jsonl" "$out/run-$new.jsonl" --noise-file "$noise" "$@" >"$table" 2>&1
  [ $? -ne 2 ] || die "compare $base $new failed: see $table"
}

echo "aa-noise: $suite x$repeat rounds per sweep; learning from $learn A/A pairs, testing $tests" | tee "$out/summary.txt"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
for i in $(seq 1 "$learn"); do
  sweep "learn$i-a"; sweep "learn$i-b"
  compare "learn$i-a" "learn$i-b" "$out/learn$i.txt" --learn-noise
  summarise "learn $i (A/A)" "$out/learn$i.txt"
done

sweep test0
aa_slower=0
for i in $(seq 1 "$tests"); do
  sweep "test$i"
  compare "test$((i - 1))" "test$i" "$out/test$i.txt"
  summarise "test $i (A/A)" "$out/test$i.txt"
  aa_slower=$((aa_slower + $(count SLOWER "$out/test$i.txt")))
done

sweep threads2 OMP_NUM_THREADS=2
sweep threads1 OMP_NUM_THREADS=1
compare threads2 threads1 "$out/threads.txt"
summarise "2 -> 1 OpenMP threads" "$out/threads.txt"
grep "^SLOWER " "$out/threads.txt" | tee -a "$out/summary.txt"
threads_slower=$(count SLOWER "$out/threads.txt")

verdict="aa-noise: $aa_slower SLOWER in $tests A/A comparisons (target 0); $threads_slower SLOWER from 2 to 1 threads (target >= 1)"
echo "$verdict" | tee -a "$out/summary.txt"
[ "$aa_slower" -eq 0 ] && [ "$threads_slower" -ge 1 ]
