#!/usr/bin/env bash
# tune_study_run.sh FLOWBENCH SRCDIR WORKDIR - the GPU node's tune-study
# script (scripts/device/tune-study-run.sh, run only where a GPU is lent)
# on this machine's OpenCL device and a small suite: two recordings of 3
# rounds each, the study of each (the summary rows), their noise table and
# the re-timed verdict of each (scripts/tune-verify.sh), so a GPU session
# finds a script that works; run again, it resumes without measuring
# anything twice; then the verdict of a recording whose optimum was made a
# lie, which only the re-timing sees through.
set -uo pipefail
bin=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 2
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
# flowbench's caches (tuning, prior, noise) in the work folder, never the
# user's; under ctest the stream triad is the suite's shared one
# (tests/CMakeLists.txt): a private one measured the DRAM triad again in each
# precision (4 s each). PoCL's compiled kernels stay where they always are: a
# fresh PoCL cache made this test compile every kernel again (half its time).
export FLOWBENCH_CACHE_DIR=$work/cache
export FLOWBENCH_STREAM_CACHE=${FLOWBENCH_STREAM_CACHE:-$work/cache/stream.json}
unset FLOWBENCH_TUNING_CACHE FLOWBENCH_NOISE_FILE FLOWBENCH_HISTORY_DB
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
for r in 1 2; do
  v=$work/out/verify-$r
  grep -Eq '^\| anneal \(prior start\) \| 2 \| [0-9.]+ / [0-9.]+ \([0-9]+%\) \| [0-2] \| [0-2] \| [0-2] \| [0-2] \|$' "$v/verify.md" ||
    fail "verify-$r has no summary row: $(tail -4 "$v/verify.md")"
  jq -e -s '[.[] | select(.type == "measurement" and .status == "ok")] | (map(.round) | unique) == [1, 2, 3, 4, 5, 6, 7]
            and (map(.case | sub("[.][0-9]+$"; "")) | unique | length) == 2' "$v/verify.jsonl" > /dev/null ||
    fail "verify-$r did not time both pairs in 7 rounds"
done

# Run again on the same OUTDIR (a device command that stopped at its time
# limit): it resumes, measuring nothing twice, and writes the tables again.
measured() { jq -s '[.[] | select(.type == "measurement")] | length' "$1"; }
before="$(measured "$work/out/tune-study-1.jsonl") $(measured "$work/out/verify-1/verify.jsonl")"
(cd "$src" && TUNE_STUDY_SUITE=$work/small.suite FLOWBENCH=$bin scripts/device/tune-study-run.sh "$work/out" opencl) \
  > "$work/rerun.log" 2>&1 || fail "tune-study-run.sh, run again, exited $?: $(tail -3 "$work/rerun.log")"
after="$(measured "$work/out/tune-study-1.jsonl") $(measured "$work/out/verify-1/verify.jsonl")"
[ "$before" = "$after" ] || fail "run again, it measured again: records $before before, $after after"
[ "$(grep -c '^== done' "$work/out/tune-study.log")" -eq 2 ] || fail "run again, it did not finish: $(tail -3 "$work/out/tune-study.log")"
! grep -q FAILED "$work/out/tune-study.log" || fail "run again: $(grep FAILED "$work/out/tune-study.log")"

# A recording whose optimum is a lie: gen:cube:8's slowest point (over its
# rounds) recorded at 1 ns. Every search is then "far" from it on the
# recording, and within 5% of it timed again: the verdict is the new times'.
rec=$work/out/tune-study-1.jsonl
slow=$(jq -c -s '[.[] | select(.type == "measurement" and .status == "ok" and .matrix.source == "gen:cube:8")]
                 | group_by(.params | tostring) | max_by(map(.stats.median_s) | add) | .[0].params' "$rec")
jq -c --argjson p "$slow" 'if .type == "measurement" and .matrix.source == "gen:cube:8" and .params == $p
                           then .stats.median_s = 1e-9 else . end' "$rec" > "$work/liar.jsonl"
(cd "$src" && scripts/tune-verify.sh "$bin" "$work/liar.jsonl" opencl "$work/liar" 10 3) > "$work/liar.md" 2> "$work/liar.err" ||
  fail "tune-verify.sh on the tampered recording exited $?: $(tail -3 "$work/liar.err")"
point=$(jq -r 'del(.BLOCK_SIZE) | to_entries | map("\(.key)=\(.value)") | join(" ")' <<<"$slow")
grep -q "	gen:cube:8	csr-vector	optimum	$point	" "$work/liar/ends.tsv" || fail "the lie ($point) is not the optimum timed again"
[ "$(grep -Ec '^\| gen:cube:8 \| csr-vector \| anneal \(.* start\) \| [0-9.]+ / [0-9]+ \| [0-9]+% \| 100% \| 100% \| 100% \|' "$work/liar.md")" -eq 2 ] ||
  fail "timed again, a search is not within 5% of the slowest point: $(grep 'gen:cube:8' "$work/liar.md")"
echo "ok: two recordings in rounds, their studies, the noise table and the re-timed verdicts (a lying optimum seen through)"
