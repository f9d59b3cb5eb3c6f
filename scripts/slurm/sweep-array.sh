#!/bin/bash
# sweep-array.sh - a sweep as a Slurm job array: share I of N per task
# (flowbench sweep --shard I/N), then one job that joins the shares
# (flowbench merge) once the array has ended. docs/scaling.md.
#
# Submit from the flowbench tree (a build in build/), not with sbatch: this
# script submits the array and the merge job itself, so that the merge
# depends on the array.
#
#   SUITE=cases/standard.suite SHARES=8 BACKEND=cuda OUT=results/std \
#     scripts/slurm/sweep-array.sh [extra sbatch options, e.g. --partition=gpu --account=proj]
#
# Writes OUT/share-I.jsonl per task, OUT/sweep.jsonl at the end, logs in
# OUT/logs/ (a resubmitted task appends to its log). A task that failed or
# hit the time limit: run this again with TASKS=I RESUME=1 (the same SUITE,
# SHARES, BACKEND, OUT): task I continues its file and the merge runs again
# after it.
#
# Environment:
#   SUITE     the suite file (default cases/quick.suite)
#   SHARES    N, the number of shares and array tasks (default 4)
#   BACKEND   --backend for every share (default: the suite's backends)
#   OUT       the results folder, on a file system the nodes share (default results/sweep-array)
#   FLOWBENCH the binary (default build/flowbench)
#   TIME      time limit per share (default 01:00:00)
#   GPUS      GPUs per task (default 1 when BACKEND is cuda or opencl, else 0)
#   TASKS     the array tasks to submit (default 1-N; e.g. 3,5 to run those again)
#   RESUME    1: --resume (a resubmitted task continues its file)
set -euo pipefail
suite=${SUITE:-cases/quick.suite}
shares=${SHARES:-4}
out=${OUT:-results/sweep-array}
flowbench=$(realpath "${FLOWBENCH:-build/flowbench}")
backend=${BACKEND:-}
case "$backend" in cuda* | opencl*) gpus=${GPUS:-1} ;; *) gpus=${GPUS:-0} ;; esac
[ -x "$flowbench" ] || { echo "sweep-array.sh: no flowbench at $flowbench (build it first, or set FLOWBENCH)" >&2; exit 2; }
[ -f "$suite" ] || { echo "sweep-array.sh: no suite $suite" >&2; exit 2; }
case "$shares" in '' | *[!0-9]* | 0) echo "sweep-array.sh: SHARES must be a whole number >= 1, not '$shares'" >&2; exit 2 ;; esac
mkdir -p "$out/logs"

opts=()
[ -n "$backend" ] && opts+=(--backend "$backend")
[ "${RESUME:-0}" = 1 ] && opts+=(--resume)
gres=()
[ "$gpus" -gt 0 ] && gres=(--gpus-per-task="$gpus")

# One share per task: Slurm counts array tasks from 1 here, as --shard does.
array=$(sbatch --parsable "$@" --job-name=fb-sweep --array="${TASKS:-1-$shares}" --ntasks=1 "${gres[@]}" \
  --time="${TIME:-01:00:00}" --output="$out/logs/share-%a.log" --open-mode=append \
  --wrap="OMP_PROC_BIND=close '$flowbench' sweep '$suite' --shard \${SLURM_ARRAY_TASK_ID}/$shares \
--out '$out'/share-\${SLURM_ARRAY_TASK_ID}.jsonl ${opts[*]}")

# afterany: the shares that finished are joined even when one failed; the
# merge names the shares it lacks. Files it would refuse (a share run twice)
# stop it with one line in its log.
inputs=()
for i in $(seq 1 "$shares"); do inputs+=("'$out/share-$i.jsonl'"); done
merge="rm -f '$out/sweep.jsonl' && '$flowbench' merge '$out/sweep.jsonl' ${inputs[*]}"
sbatch "$@" --job-name=fb-merge --dependency="afterany:$array" --ntasks=1 --time=00:10:00 \
  --output="$out/logs/merge.log" --wrap="$merge"
echo "sweep-array.sh: array job $array ($shares shares of $suite), then the merge into $out/sweep.jsonl"
echo "sweep-array.sh: to join again by hand: $merge"
