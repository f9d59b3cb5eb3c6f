#!/usr/bin/env bash
# tune_study_run.sh FLOWBENCH SRCDIR WORKDIR - the GPU node's tune-study
# script (scripts/device/tune-study-run.sh, run only where a GPU is lent)
# on this machine's OpenCL device and a small suite: two recordings of 3
# rounds each, the study of each (the summary rows) and their noise table,
# so a GPU session finds a script that works.
set -uo pipefail
bin=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 2
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
export XDG_CACHE_HOME=$work/cache
cat > "$work/small.suite" <<'SUITE'
suite: small-study
backends: [opencl]
precisions: [double]
stream: false
measure: {min_samples: 3, max_samples: 10, spread_pct: 5, budget_s: 0.02, timeout_s: 30}
matrices: [gen:cube:6, gen:cube:8]
cases:
  - name: csr
    kernels: [csr-vector]
SUITE
(cd "$src" && TUNE_STUDY_SUITE=$work/small.suite FLOWBENCH=$bin scripts/device/tune-study-run.sh "$work/out" opencl) \
  > "$work/run.log" 2>&1 || fail "tune-study-run.sh exited $?: $(tail -3 "$work/run.log")"
! grep -q FAILED "$work/out/tune-study.log" || fail "$(grep FAILED "$work/out/tune-study.log")"
for r in 1 2; do
  jq -e -s '[.[] | select(.type == "measurement" and .status == "ok")] | length == 246
            and (map(.round) | unique) == [1, 2, 3]' "$work/out/tune-study-$r.jsonl" > /dev/null ||
    fail "recording $r is not 2 matrices x 41 points x 3 rounds"
done
for f in tune-study-1.md tune-study-2-prior-1.md; do
  grep -Eq '^\| all \(2 pairs\) \| anneal \(prior start\) \| [0-9.]+ / [0-9.]+ ' "$work/out/$f" ||
    fail "$f has no summary row: $(tail -3 "$work/out/$f")"
done
[ "$(grep -c '| csr-vector | 41 |' "$work/out/tune-noise.md")" -eq 2 ] || fail "noise table: $(cat "$work/out/tune-noise.md")"
echo "ok: two recordings in rounds, their studies and the noise table"
