#!/usr/bin/env bash
# cg-baseline.sh - is the OpenMP baseline's pressure CG honest? flowbench's
# CG beside PETSc's KSPCG + Jacobi (`solve --peer petsc`) on the last
# pressure system of a cavity run, with flowbench on one thread (PETSc's
# sequential AIJ runs on one core) and on all the OpenMP threads, alternated
# round by round (issue 39's target: flowbench's time per iteration at most
# 1.0x PETSc's). A benchmark, not a timed test: run it on a quiet machine;
# it records `uptime` before and after.
#
# Usage: scripts/cg-baseline.sh [FLOWBENCH] [OUT] [LEVEL] [ROUNDS]
#   defaults: build/flowbench results/cg-baseline 2 3
# Writes OUT/summary.md and keeps the records (OUT/solve.jsonl). Exit 2
# when something failed (PETSc not built included).
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/cg-baseline}
level=${3:-2}
rounds=${4:-3}
die() { echo "cg-baseline: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out/solve.jsonl" "$out/summary.md" "$out/err.txt"
threads_all=$(nproc)
echo "before: $(uptime)" > "$out/uptime.txt"
for r in $(seq 1 "$rounds"); do
  for threads in 1 "$threads_all"; do
    echo "round $r/$rounds, flowbench on $threads thread(s)" >&2
    OMP_NUM_THREADS=$threads "$bin" solve cavity --level "$level" --steps 1 --no-stream --quiet --peer petsc \
      --out "$out/solve.jsonl" > /dev/null 2>> "$out/err.txt" || die "solve --peer petsc failed: see $out/err.txt"
  done
done
echo "after: $(uptime)" >> "$out/uptime.txt"
{
  echo "# flowbench's CG beside PETSc's, cavity level $level ($rounds rounds, medians)"
  echo
  sed 's/^/    /' "$out/uptime.txt"
  echo
  echo "| flowbench threads | its | flowbench ms/it | PETSc ms/it (1 core) | flowbench / PETSc | flowbench SpMV ms | PETSc MatMult ms | solutions differ |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  jq -rs 'def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    map(select(.peer.name == "petsc")) | group_by(.threads)[] |
    [.[0].threads, .[0].peer.flowbench.its,
     (map(.peer.flowbench.s_per_iteration * 1e3) | med), (map(.peer.petsc.s_per_iteration * 1e3) | med),
     (map(.peer.flowbench.s_per_iteration / .peer.petsc.s_per_iteration) | med),
     (map(.peer.flowbench.spmv_s * 1e3) | med), (map(.peer.petsc.spmv_s * 1e3) | med),
     (map(.peer.solution_rel_diff) | max)] |
    "| \(.[0]) | \(.[1]) | \(.[2] * 1000 | round / 1000) | \(.[3] * 1000 | round / 1000) | \(.[4] * 100 | round / 100)x | \(.[5] * 1000 | round / 1000) | \(.[6] * 1000 | round / 1000) | \(.[7]) |"' \
    "$out/solve.jsonl"
} > "$out/summary.md"
cat "$out/summary.md"
