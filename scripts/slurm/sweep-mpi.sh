#!/bin/bash
# sweep-mpi.sh - a sweep on P MPI ranks under srun: the configurations the
# results file lacks are dealt out to the ranks, each on its own GPU (or
# node), and rank 0 joins everything into one file. docs/scaling.md.
#
#   sbatch --nodes=2 --ntasks-per-node=4 --gpus-per-task=1 --time=02:00:00 \
#     --export=ALL,SUITE=cases/standard.suite,BACKEND=cuda,OUT=results/std.jsonl scripts/slurm/sweep-mpi.sh
#
# For CPU sweeps (BACKEND=openmp) give one task per node (--ntasks-per-node=1
# --cpus-per-task=<cores>): the ranks of one node would share its cores.
# Resubmit the same command to continue after a time limit or a failure:
# --resume (always given here) joins the rank files a killed run left and
# runs only what is missing, on any number of ranks.
#
# Environment: SUITE (default cases/quick.suite), BACKEND (default: the
# suite's; a backend without a device index, such as cuda, is taken as
# cuda:K, K = the rank's local rank % the node's GPUs), OUT (default
# results/sweep-mpi.jsonl, on a file system every node shares), FLOWBENCH
# (default build/flowbench, built with -DFLOWBENCH_MPI=ON), SRUN_MPI (srun's
# --mpi, e.g. pmix; default the cluster's MpiDefault: Open MPI's ranks need
# PMIx or PMI2 to find each other, and a cluster without either as default
# must name one here, or each rank runs the whole suite alone).
#SBATCH --job-name=fb-sweep-mpi
#SBATCH --output=fb-sweep-mpi-%j.log
set -euo pipefail
cd "${SLURM_SUBMIT_DIR:-.}"
suite=${SUITE:-cases/quick.suite}
out=${OUT:-results/sweep-mpi.jsonl}
flowbench=${FLOWBENCH:-build/flowbench}
opts=()
[ -n "${BACKEND:-}" ] && opts+=(--backend "$BACKEND")
mpi=()
[ -n "${SRUN_MPI:-}" ] && mpi=(--mpi="$SRUN_MPI")
mkdir -p "$(dirname "$out")"
export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1} OMP_PROC_BIND=close
# --kill-on-bad-exit: a rank that dies ends the step at once; its
# configuration is recorded as crashed by the next --resume, the others'
# run again (they were stopped, not the cause).
srun "${mpi[@]}" --kill-on-bad-exit=1 "$flowbench" sweep "$suite" --out "$out" --resume "${opts[@]}"
