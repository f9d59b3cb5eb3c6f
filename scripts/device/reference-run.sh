#!/usr/bin/env bash
# reference-run.sh OUTDIR - the whole device run in one command, for a GPU
# node with no limit per command: the four phases of scripts/device/phase.sh
# one after the other (correctness, the solver's tables, the SpMV targets,
# the studies), each with a budget of PHASE_BUDGET_S seconds (default 3600
# here, against phase.sh's 450 for a short allocation). With build-gpu/
# and .devlibs/ from scripts/device/bundle.sh beside the source; back home,
#   scripts/device/ingest.sh OUTDIR/phase*.tar.xz
# files the archives under results/reference/<gpu>-<date>/ and regenerates
# the docs' tables (docs/device-run.md). Exit 1 when a phase had a failed
# step; every phase runs regardless.
set -uo pipefail
out=${1:?usage: reference-run.sh OUTDIR}
rc=0
for phase in 1 2 3 4; do
  "$(dirname "$0")/phase.sh" --budget "${PHASE_BUDGET_S:-3600}" "$phase" "$out" || rc=1
done
exit $rc
