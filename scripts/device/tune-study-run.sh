#!/usr/bin/env bash
# tune-study-run.sh OUTDIR [BACKEND] - on a GPU node (build-gpu/ and
# .devlibs/ from scripts/device/bundle.sh beside the source, as for
# reference-run.sh): the guided-search study of issue 21 (docs/tuning.md,
# "How close the guided search gets") on BACKEND (default cuda), where a
# GPU's event timer and fixed clocks should give a landscape steadier than
# the 2-core VM's, whose optima do not reproduce to 5% between recordings:
#   - cases/tune-study.suite recorded TUNE_STUDY_RECORDINGS times (default
#     2), each with --repeat 3 (a point's cost is the median of its rounds,
#     as tune --replay and --fit-prior read it): OUTDIR/tune-study-R.jsonl;
#   - OUTDIR/tune-study-1.md: scripts/tune-study.sh on recording 1 (the prior
#     fit to it, each pair's matrix left out); with a second recording,
#     OUTDIR/tune-study-2-prior-1.md (recording 2, the prior fit to 1) and
#     OUTDIR/tune-noise.md (scripts/tune-noise.sh 1 2: whether each pair's
#     optimum reproduces within 5%, the condition for the target to mean
#     anything);
#   - OUTDIR/verify-R/verify.md: scripts/tune-verify.sh on each recording,
#     the points the searches ended at timed again against the recorded
#     optimum, head to head in 7 rounds: the verdict that does not hang on
#     the recording's own noise.
# Commit OUTDIR under results/reference/ (gzip the .jsonl files) and put the
# summary rows in docs/tuning.md. Time: not yet measured on a GPU (the VM's
# PoCL: 8 min per --repeat 3 recording, 3 min per re-timed verdict); run it
# as its own device command. Run again on the same OUTDIR, it resumes: the
# recordings and the verdicts' sweeps go on from their last record, and
# the tables are written again. So on a device machine, whose commands stop
# at 10 minutes, put OUTDIR in an ignored folder of the checkout (it stays
# while the machine is warm, e.g. results/tune-gpu), run `timeout 570
# scripts/device/tune-study-run.sh results/tune-gpu` until the log says
# "done", then tar it into $OUT (only 8 files come back from there).
# TUNE_STUDY_SUITE replaces the suite (to try the script on a small one).
set -uo pipefail
out=${1:?usage: tune-study-run.sh OUTDIR [BACKEND]}
backend=${2:-cuda}
recordings=${TUNE_STUDY_RECORDINGS:-2}
mkdir -p "$out"
root=$PWD
bin=${FLOWBENCH:-$root/build-gpu/flowbench}
[ -d "$root/.devlibs" ] && export LD_LIBRARY_PATH=$root/.devlibs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$out/tune-study.log
for r in $(seq 1 "$recordings"); do
  echo "== recording $r of $recordings on $backend" | tee -a "$log"
  resume=()
  [ -s "$out/tune-study-$r.jsonl" ] && resume=(--resume)
  "$bin" sweep "${TUNE_STUDY_SUITE:-$root/cases/tune-study.suite}" --backend "$backend" --repeat 3 \
    --out "$out/tune-study-$r.jsonl" "${resume[@]}" >>"$log" 2>&1 || echo "FAILED ($?): recording $r" | tee -a "$log"
done
scripts/tune-study.sh "$bin" "$out/tune-study-1.jsonl" "$backend" 100 >"$out/tune-study-1.md" 2>>"$log" ||
  echo "FAILED ($?): the study of recording 1" | tee -a "$log"
if [ "$recordings" -ge 2 ]; then
  scripts/tune-study.sh "$bin" "$out/tune-study-2.jsonl" "$backend" 100 "$out/tune-study-1.jsonl" \
    >"$out/tune-study-2-prior-1.md" 2>>"$log" || echo "FAILED ($?): the study of recording 2" | tee -a "$log"
  scripts/tune-noise.sh "$out/tune-study-1.jsonl" "$out/tune-study-2.jsonl" >"$out/tune-noise.md" ||
    echo "FAILED ($?): tune-noise" | tee -a "$log"
fi
for r in $(seq 1 "$recordings"); do
  scripts/tune-verify.sh "$bin" "$out/tune-study-$r.jsonl" "$backend" "$out/verify-$r" 100 7 >/dev/null 2>>"$log" ||
    echo "FAILED ($?): the re-timed verdict of recording $r" | tee -a "$log"
done
echo "== done" | tee -a "$log"
tail -4 "$out/tune-study-1.md"
tail -4 "$out/verify-1/verify.md"
