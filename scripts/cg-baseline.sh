#!/usr/bin/env bash
# cg-baseline.sh - is the OpenMP baseline's pressure CG honest? flowbench's
# CG beside PETSc's KSPCG + Jacobi (`solve --peer petsc`) on the last
# pressure system of a cavity run, round by round, in three layouts:
#   - one process, flowbench on one thread, PETSc's sequential AIJ on one
#     core (core against core);
#   - one process, flowbench on every OpenMP thread, PETSc on one core;
#   - `mpirun -np NPROC` with one thread a rank: flowbench's CG on the
#     ranks' parts and PETSc's MPIAIJ CG on one core a rank, the way a
#     PETSc user runs it on a node (Debian's PETSc has no threads).
# Issue 39's target: flowbench's OpenMP baseline (one process, every
# thread) at most 1.0x PETSc's time per iteration on the node (NPROC
# ranks), taken per round from the same round's runs. A benchmark, not a
# timed test: run it on a quiet machine; it records `uptime` before and
# after.
#
# Usage: scripts/cg-baseline.sh [FLOWBENCH] [OUT] [LEVEL] [ROUNDS]
#   defaults: build/flowbench results/cg-baseline 2 3
#   env: MPIEXEC [mpirun], MPIEXEC_FLAGS [--oversubscribe -x OMP_NUM_THREADS]
#        (Open MPI's); RANKS [nproc] (no MPI run with RANKS=0)
# As root, Open MPI's OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) are set; its
# single-copy mechanism defaults to none (containers forbid it).
# Writes OUT/summary.md and keeps the records (OUT/solve.jsonl). Exit 2
# when something failed (PETSc not built included).
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/cg-baseline}
level=${3:-2}
rounds=${4:-3}
nranks=${RANKS:-$(nproc)}
# shellcheck source=lib/mpi-env.sh
. "$(dirname "$0")/lib/mpi-env.sh"
die() { echo "cg-baseline: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
for v in "$level" "$rounds" "$nranks"; do
  case $v in '' | *[!0-9]*) die "LEVEL, ROUNDS and RANKS take whole numbers, not '$v'" ;; esac
done
[ "$nranks" -eq 0 ] || command -v "$mpiexec" > /dev/null || die "$mpiexec not found (set MPIEXEC, or RANKS=0)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.jsonl "$out/summary.md" "$out/err.txt"
threads_all=$(nproc)
solve=(solve cavity --level "$level" --steps 1 --no-stream --quiet --peer petsc)

# one_run ROUND NAME [mpirun ...]: a record in OUT/ROUND-NAME.jsonl
one_run() {
  local f=$out/$1-$2.jsonl
  shift 2
  "$@" "$bin" "${solve[@]}" --out "$f" > /dev/null 2>> "$out/err.txt" || die "solve --peer petsc failed: see $out/err.txt"
  jq -c --arg r "${f##*/}" '. + {cg_baseline_run: $r}' "$f" >> "$out/solve.jsonl"
}

echo "before: $(uptime)" > "$out/uptime.txt"
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds: one process on 1 and $threads_all threads" >&2
  OMP_NUM_THREADS=1 one_run "$r" omp1
  OMP_NUM_THREADS=$threads_all one_run "$r" omp
  if [ "$nranks" -gt 0 ]; then
    echo "round $r/$rounds: $nranks ranks" >&2
    # shellcheck disable=SC2086 # MPIEXEC_FLAGS is a list of flags
    OMP_NUM_THREADS=1 one_run "$r" ranks "$mpiexec" -np "$nranks" $mpiflags
  fi
done
echo "after: $(uptime)" >> "$out/uptime.txt"

med='def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
     def r3: . * 1000 | round / 1000;'
{
  echo "# flowbench's CG beside PETSc's, cavity level $level ($rounds rounds, medians)"
  echo
  sed 's/^/    /' "$out/uptime.txt"
  echo
  echo "| processes | threads each | its | flowbench ms/it | PETSc ms/it | flowbench / PETSc | flowbench SpMV ms | PETSc MatMult ms | solutions differ |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  jq -rs "$med"'
    map(select(.peer.name == "petsc")) | group_by([.peer.ranks // 1, .threads])[] |
    [.[0].peer.ranks // 1, .[0].threads, .[0].peer.flowbench.its,
     (map(.peer.flowbench.s_per_iteration * 1e3) | med), (map(.peer.petsc.s_per_iteration * 1e3) | med),
     (map(.peer.flowbench.s_per_iteration / .peer.petsc.s_per_iteration) | med),
     (map(.peer.flowbench.spmv_s * 1e3) | med), (map(.peer.petsc.spmv_s * 1e3) | med),
     (map(.peer.solution_rel_diff) | max)] |
    "| \(.[0]) | \(.[1]) | \(.[2]) | \(.[3] | r3) | \(.[4] | r3) | \(.[5] * 100 | round / 100)x | \(.[6] | r3) | \(.[7] | r3) | \(.[8]) |"' \
    "$out/solve.jsonl"
  if [ "$nranks" -gt 0 ]; then
    echo
    echo "On the node: flowbench's OpenMP baseline (one process, $threads_all threads) over PETSc on $nranks ranks,"
    echo "each round's runs paired (issue 39's target: at most 1.0x):"
    echo
    jq -rs "$med"'
      map(select(.peer.name == "petsc")) | group_by(.cg_baseline_run | split("-")[0])
      | map({omp: (map(select(.cg_baseline_run | endswith("-omp.jsonl")))[0].peer.flowbench.s_per_iteration),
             petsc: (map(select(.cg_baseline_run | endswith("-ranks.jsonl")))[0].peer.petsc.s_per_iteration)})
      | map(select(.omp and .petsc) | .omp / .petsc) as $r
      | "    per round: \($r | map(. * 100 | round / 100) | join(", ")); median \($r | med | . * 100 | round / 100)x"' \
      "$out/solve.jsonl"
  fi
} > "$out/summary.md"
cat "$out/summary.md"
