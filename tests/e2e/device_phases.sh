#!/usr/bin/env bash
# device_phases.sh FLOWBENCH SOURCE_DIR WORK_DIR - the phased device run in
# its CPU mode on tiny inputs (scripts/device/phase.sh --cpu --tiny, PoCL in
# place of CUDA), so that the scripts a GPU allocation depends on cannot rot
# between allocations:
#  - each phase ends ok with its archive (under the 16 MiB a device command
#    brings back) and its one page, and the archive holds its records;
#  - a phase stopped by SIGTERM (the device tool's time-out) stops its
#    running step, keeps the steps it finished in its archive and exits 130;
#    run again, it does not repeat them (nor phase 3's finished sweep);
#  - ingest.sh files the archives under results/reference/cpu-<date>/ of a
#    copy of the repository, with MACHINE.md, report.md and spmv-targets.md;
#    phase 1 alone (no records) is filed but not listed, and the docs'
#    tables still pass doc-tables.sh --check;
#    without --docs the docs stay as they were, with --docs their generated
#    blocks name the new run;
#  - ingest.sh --regenerate on the committed gpu-sources.txt reproduces the
#    docs' tables and kernels/spmv/spmv_auto_rule.h byte for byte (the H100
#    figures the docs quote come from the records, none typed);
#  - bad input: one line naming the file, exit 2.
# Skips (77) without OpenCL.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! "$bin" devices | grep -q '^opencl:'; then echo "no OpenCL device: skipped"; exit 77; fi
export FLOWBENCH_BUILD=$(dirname "$bin") FLOWBENCH=$bin
phase=$src/scripts/device/phase.sh ingest=$src/scripts/device/ingest.sh
out=$work/out

for p in 1 2 3 4; do
  "$phase" --cpu --tiny "$p" "$out" 2>"$work/phase$p.err" || { tail -n 5 "$work/phase$p.err" >&2; fail "phase $p failed"; }
  tarball=$(ls "$out"/phase"$p"-*.tar.xz) || fail "phase $p: no archive"
  [ "$(stat -c %s "$tarball")" -le $((16 * 1024 * 1024)) ] || fail "$tarball over 16 MiB"
  page=${tarball%.tar.xz}.md
  grep -q "failed or stopped" "$page" || fail "$page: no step counts"
  grep -q ", 0 failed or stopped, 0 skipped" "$page" || fail "$page: a step failed: $(cat "$page")"
  tar -tJf "$tarball" >"$work/list$p.txt" || fail "$tarball: not an xz tar archive"
  grep -q 'machine.env$' "$work/list$p.txt" || fail "$tarball: no machine.env"
done
grep -q 'results.jsonl$' "$work/list3.txt" || fail "the SpMV archive holds no records"
grep -q 'tests passed' "$out"/phase1-correctness.md || fail "phase 1's page has no ctest line"
grep -q 'speedup over' "$out"/phase2-solver.md || fail "phase 2's page has no speedup table"

# Cut off: SIGTERM to the phase's script (not its group) in its second step.
cut=$work/cut
"$phase" --cpu --tiny 2 "$cut" 2>"$work/cut.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -s "$cut/phase2-solver/steps.tsv" ] && break
  sleep 0.1
done
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || fail "a phase stopped by SIGTERM exited $rc, not 130"
[ -s "$cut/phase2-solver.tar.xz" ] || fail "a phase stopped by SIGTERM left no archive"
tar -xJOf "$cut/phase2-solver.tar.xz" phase2-solver/steps.tsv >"$work/cut-steps.tsv" || fail "the cut archive has no steps.tsv"
grep -q $'\tok\t' "$work/cut-steps.tsv" || fail "the cut archive lost the finished step"
[ "$(grep -c $'\tok\t' "$work/cut-steps.tsv")" -lt "$(grep -c $'\tok\t' "$out/phase2-solver/steps.tsv")" ] ||
  fail "SIGTERM did not stop the phase (every step ended ok)"
"$phase" --cpu --tiny 2 "$cut" 2>"$work/resume.err" || fail "the resumed phase failed"
grep -q "already ok, not repeated" "$work/resume.err" || fail "the resumed phase repeated a finished step"
# The SpMV phase is one sweep: run again, it is not repeated.
"$phase" --cpu --tiny 3 "$out" 2>"$work/again.err" || fail "phase 3 again failed"
grep -q "spmv-targets: already ok" "$work/again.err" || fail "phase 3 run again repeated its sweep"

# Ingest into a copy of the repository's files that ingest touches.
root=$work/root
mkdir -p "$root/results/reference" "$root/docs" "$root/kernels/spmv"
cp "$src/README.md" "$root/" && cp "$src/docs/kernels.md" "$src/docs/solver.md" "$root/docs/"
cp "$src/kernels/spmv/spmv_auto_rule.h" "$root/kernels/spmv/"
cp -r "$src/results/reference/gpu-sources.txt" "$src/results/reference/spmv-auto-sell16-vm-2026-11-29" "$root/results/reference/"
while read -r d; do mkdir -p "$root/$(dirname "$d")" && cp -r "$src/$d" "$root/$d"; done \
  < <(grep -v -E '^[[:space:]]*(#|$)' "$src/results/reference/gpu-sources.txt")

"$ingest" --root "$root" --regenerate 2>"$work/regen.err" || fail "ingest --regenerate: $(cat "$work/regen.err")"
for f in README.md docs/kernels.md docs/solver.md kernels/spmv/spmv_auto_rule.h; do
  cmp -s "$src/$f" "$root/$f" || fail "$f is not what the committed reference runs give (run scripts/device/ingest.sh --regenerate)"
done

# Phase 1 alone (no records) is filed, not listed: the docs' tables stay
# valid (lint.doc_tables) and ingest says they were left alone.
cp "$root/results/reference/gpu-sources.txt" "$work/sources-before.txt"
"$ingest" --root "$root" --docs "$out"/phase1-correctness.tar.xz 2>"$work/ingest1.err" ||
  fail "ingest --docs of phase 1 alone: $(cat "$work/ingest1.err")"
cmp -s "$work/sources-before.txt" "$root/results/reference/gpu-sources.txt" || fail "phase 1 alone was listed as a source"
grep -q "left alone" "$work/ingest1.err" || fail "ingest of phase 1 alone did not say the tables were left alone"
"$src/scripts/device/doc-tables.sh" --check --root "$root" 2>"$work/check.err" ||
  fail "the docs' tables after phase 1 alone: $(cat "$work/check.err")"
"$ingest" --root "$root" "$out"/phase*.tar.xz 2>"$work/ingest.err" || fail "ingest: $(cat "$work/ingest.err")"
run=$(ls -d "$root"/results/reference/cpu-*) || fail "ingest filed no cpu-<date> folder"
for f in MACHINE.md report.md spmv-targets.md phase1-correctness/summary.md phase4-studies/results.jsonl; do
  [ -s "$run/$f" ] || fail "ingest left no $f"
done
[ "$(grep -c '^| phase[1-4]-' "$run/MACHINE.md")" = 4 ] || fail "MACHINE.md does not list the 4 phases"
cmp -s "$src/README.md" "$root/README.md" || fail "a CPU-mode ingest without --docs changed README.md"
"$ingest" --root "$root" --docs "$out"/phase3-spmv.tar.xz 2>>"$work/ingest.err" || fail "ingest --docs failed"
grep -q "results/reference/$(basename "$run")" "$root/results/reference/gpu-sources.txt" || fail "--docs did not list the run"
grep -q "$(basename "$run")" "$root/docs/kernels.md" || fail "--docs did not regenerate docs/kernels.md from the run"

# Bad input.
echo "not an archive" >"$work/bogus.tar.xz"
rc=0; "$ingest" --root "$root" "$work/bogus.tar.xz" 2>"$work/bad.err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$work/bad.err")" = 1 ] && grep -q "bogus.tar.xz" "$work/bad.err" ||
  fail "ingest of a non-archive: exit $rc, $(cat "$work/bad.err")"
rc=0; "$phase" --cpu 7 "$work/x" 2>"$work/bad.err" || rc=$?
[ $rc = 2 ] && grep -q "phase '7'" "$work/bad.err" || fail "phase 7: exit $rc, $(cat "$work/bad.err")"
rc=0; "$phase" --cpu --budget 5 1 "$work/x" 2>"$work/bad.err" || rc=$?
[ $rc = 2 ] && grep -q "budget" "$work/bad.err" || fail "--budget 5: exit $rc, $(cat "$work/bad.err")"
echo "device phases: 4 phases, a cut and a resume, ingest and regenerate: ok"
