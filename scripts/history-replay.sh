#!/usr/bin/env bash
# history-replay.sh FLOWBENCH OUT [RUNS] [STEP_AT] - a real replay of CI
# history for `flowbench history detect` (issue 37): RUNS sweeps of the
# quick suite (cases/quick.suite) on this machine, each added to
# OUT/history.db as one commit (commit-01 ... commit-RUNS, an hour apart),
# with a real 1.5x slowdown of one kernel from commit STEP_AT on:
# csr-scalar's OpenCL kernel summing the second half of each row twice,
# read from a copy of kernels/ through FLOWBENCH_KERNEL_DIR (the same
# configurations, a slower kernel; the change scripts/aa-noise.sh makes).
# Then `history detect`, whose change points should all be csr-scalar
# opencl configurations at commit STEP_AT, and nothing else.
# Also writes OUT/aa-noise.txt: per configuration with 5 or more stable
# runs before STEP_AT, one line of the relative deviations of their
# medians from its median (A/A noise of this machine, for
# scripts/history-bench.sh). Then `history detect --include-flagged` too:
# on a busy machine most runs are flagged contended, and this shows what
# the detection makes of them.
# Defaults: RUNS 30, STEP_AT 20. About 8 s per sweep on 2 cores.
set -euo pipefail
# shellcheck source=lib/slow-kernels.sh
. "$(dirname "$0")/lib/slow-kernels.sh"
bin=$(realpath "$1"); out=$2; runs=${3:-30}; step_at=${4:-20}
src=$(dirname "$(realpath "$0")")/..
die() { echo "history-replay.sh: $*" >&2; exit 2; }
mkdir -p "$out"
db=$out/history.db
rm -f "$db"

slow_kernels() { # as scripts/aa-noise.sh: every row alike, 1.5 times the work
  slow_csr_scalar "$src/kernels" "$out/kernels-slow" || die "cannot make the slow kernel"
}
slow_kernels

start=$(date +%s)
for i in $(seq 1 "$runs"); do
  run=$(printf '%s/run-%02d.jsonl' "$out" "$i")
  rm -f "$run"
  if [ "$i" -ge "$step_at" ]; then
    FLOWBENCH_KERNEL_DIR=$(realpath "$out/kernels-slow") "$bin" sweep "$src/cases/quick.suite" --out "$run" \
      > "$run.log" 2>&1 || die "sweep $i failed: see $run.log"
  else
    "$bin" sweep "$src/cases/quick.suite" --out "$run" > "$run.log" 2>&1 || die "sweep $i failed: see $run.log"
  fi
  "$bin" history add "$run" --commit "$(printf 'commit-%02d' "$i")" --when $((1700000000 + 3600 * i)) --db "$db"
done
echo "replay: $runs sweeps in $(( $(date +%s) - start )) s"
echo "== detect (stable runs only)"
"$bin" history detect --db "$db" | tee "$out/detect.txt"
echo "== detect --include-flagged"
"$bin" history detect --db "$db" --include-flagged | tee "$out/detect-flagged.txt"

# A/A noise: deviations from each configuration's median before the step.
"$bin" history export --db "$db" --out "$out/history.csv"
python3 - "$out/history.csv" "$step_at" "$out/aa-noise.txt" << 'EOF'
import csv, statistics, sys
rows, step_at = list(csv.DictReader(open(sys.argv[1]))), int(sys.argv[2])
series = {}
for r in rows:
    n = int(r["commit"].split("-")[1])
    if r["quality"] == "stable" and r["status"] == "ok" and r["median_s"] and n < step_at:
        series.setdefault((r["key"], r["machine"]), []).append(float(r["median_s"]))
lines, devs = [], []
for s in series.values():
    if len(s) >= 5:  # one line per configuration: its deviations
        m = statistics.median(s)
        lines.append(" ".join("%.6f" % (x / m - 1) for x in s))
        devs += [x / m - 1 for x in s]
if not lines:
    sys.exit("history-replay.sh: no configuration has 5 stable runs before the step: no A/A noise to record")
with open(sys.argv[3], "w") as f:
    f.write("\n".join(lines) + "\n")
q = sorted(abs(d) for d in devs)
print("A/A noise: %d deviations from %d configurations with 5 or more stable runs; |dev| median %.2f%%, 90th "
      "%.2f%%, 99th %.2f%%" % (len(q), len(lines), 100 * q[len(q) // 2], 100 * q[int(0.9 * len(q))],
                               100 * q[int(0.99 * len(q))]))
EOF
