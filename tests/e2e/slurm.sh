#!/bin/bash
# slurm.sh BIN SRC WORK MPI - the cluster scripts run for real on a one-host
# Slurm cluster (scripts/slurm/local-cluster.sh, Debian's slurm-wlm and
# munge), started and stopped here with nothing left running:
#  - sweep-array.sh: cases/quick.suite as a 4-task array, merged; the merged
#    file holds exactly the single-process plan, each record naming its job
#    and array task;
#  - a task cancelled mid-run (scancel), resubmitted with the script's
#    resume: nothing lost or doubled;
#  - with MPI (MPI=ON): sweep-mpi.sh in a 2-task allocation (srun through
#    PMIx), and solve --scaling inside one, its ranks started by srun as
#    steps of the allocation (docs/scaling.md says why srun).
# Exits 77 with the reason where the daemons cannot start (not root).
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
mpi=$4
rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
cd "$src"
fail() { echo "FAIL: $*" >&2; exit 1; }
set -E
trap 'err=$?; [[ $- != *e* ]] || echo "FAIL: slurm.sh line $LINENO: a command exited $err" >&2' ERR

cluster=$work/cluster
code=0
scripts/slurm/local-cluster.sh start "$cluster" > "$work/cluster.env" 2> "$work/cluster.log" || code=$?
if [ "$code" -eq 77 ]; then
  cat "$work/cluster.log" >&2
  exit 77
fi
[ "$code" -eq 0 ] || fail "local-cluster.sh start exited $code: $(cat "$work/cluster.log")"
trap 'scripts/slurm/local-cluster.sh stop "$cluster"' EXIT
export SLURM_CONF=$cluster/slurm.conf
export OMP_NUM_THREADS=1 # one CPU per task: the array's tasks run side by side

measurements() { jq -c 'select(.type == "measurement" and .benchmark != "stream")' "$1"; }
# Until Slurm holds no job of this cluster (at most 120 s).
drain() {
  for _ in $(seq 1200); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 0.1
  done
  fail "jobs still queued after 120 s: $(squeue)"
}
# The single-process plan's keys, and a file's measured keys, sorted.
plan_keys() { "$bin" sweep "$@" --dry-run 2> /dev/null | sed -n 's/  run$//p' | sort; }
file_keys() { measurements "$1" | jq -r .sweep_key | sort; }

echo "== sweep-array.sh: cases/quick.suite as a 4-task array (openmp: PoCL's compiles would take most of 2 cores), then the merge job"
SUITE=cases/quick.suite SHARES=4 BACKEND=openmp OUT=$work/array FLOWBENCH=$bin scripts/slurm/sweep-array.sh > "$work/array.txt"
array=$(sed -n 's/^sweep-array.sh: array job \([0-9]*\) .*/\1/p' "$work/array.txt")
[ -n "$array" ] || fail "sweep-array.sh named no array job: $(cat "$work/array.txt")"
drain
[ -s "$work/array/sweep.jsonl" ] || fail "no merged file: $(cat "$work/array/logs/merge.log")"
plan_keys cases/quick.suite --backend openmp > "$work/plan.txt"
[ "$(wc -l < "$work/plan.txt")" -gt 8 ] || fail "the plan is too small to share: $(wc -l < "$work/plan.txt")"
file_keys "$work/array/sweep.jsonl" > "$work/merged.txt"
diff "$work/plan.txt" "$work/merged.txt" > "$work/plan.diff" ||
  fail "the merged file is not the single-process plan, each once: $(head -5 "$work/plan.diff")"
for i in 1 2 3 4; do
  measurements "$work/array/share-$i.jsonl" | jq -e -s --arg a "$array" --arg i "$i" \
    'length > 0 and all(.slurm.array_job_id == $a and .slurm.array_task_id == $i and (.slurm.job_id | length > 0))' \
    > /dev/null || fail "share $i's records do not name array job $array, task $i"
done
measurements "$work/array/sweep.jsonl" | jq -e -s --arg a "$array" \
  'all(.slurm.array_job_id == $a and (.slurm.array_task_id | test("^[1-4]$")))' > /dev/null ||
  fail "a merged record lost its job or array task"

echo "== a task cancelled mid-run, resubmitted with RESUME=1: nothing lost or doubled"
slow=tests/data/suites/slow.suite
SUITE=$slow SHARES=2 OUT=$work/cancel FLOWBENCH=$bin scripts/slurm/sweep-array.sh > "$work/cancel.txt"
array=$(sed -n 's/^sweep-array.sh: array job \([0-9]*\) .*/\1/p' "$work/cancel.txt")
share=$work/cancel/share-2.jsonl
for _ in $(seq 600); do # grep, not jq: the slow suite's records are 120 KB each
  [ -f "$share" ] && [ "$(grep -c '"type":"measurement"' "$share")" -ge 1 ] && break
  sleep 0.05
done
scancel "${array}_2"
drain
got=$(grep -c '"type":"measurement"' "$share" || true)
[ "$got" -ge 1 ] && [ "$got" -lt 4 ] || fail "the cancel did not come mid-run: share 2 holds $got of 4 records"
TASKS=2 RESUME=1 SUITE=$slow SHARES=2 OUT=$work/cancel FLOWBENCH=$bin scripts/slurm/sweep-array.sh > /dev/null
drain
log=$work/cancel/logs/share-2.log # both runs of task 2, appended
grep -q "CANCELLED" "$log" && grep -q "^sweep slow: stopped with $got of 4 recorded; continue with: " "$log" &&
  grep -q "^sweep: resuming .*share-2.jsonl: $got of 4 configurations already recorded" "$log" ||
  fail "share 2's log does not tell the cancel, the stop and the resume: $(grep -v '^ \|^\[' "$log")"
plan_keys "$slow" > "$work/slow-plan.txt"
file_keys "$work/cancel/sweep.jsonl" > "$work/slow-merged.txt"
diff "$work/slow-plan.txt" "$work/slow-merged.txt" > "$work/slow.diff" ||
  fail "after the resume, the merged file is not the plan, each once: $(head -5 "$work/slow.diff")"
measurements "$work/cancel/sweep.jsonl" | jq -e -s 'all(.status == "ok")' > /dev/null ||
  fail "a resumed record is not ok"

if [ "$mpi" != ON ]; then
  echo "== sweep-mpi.sh and solve --scaling: not here (a build without MPI)"
  exit 0
fi

echo "== sweep-mpi.sh in a 2-task allocation (srun, PMIx)"
sbatch --wait -n 2 --output="$work/mpi-%j.log" \
  --export=ALL,SUITE=cases/quick.suite,BACKEND=openmp,OUT=$work/mpi.jsonl,FLOWBENCH=$bin \
  scripts/slurm/sweep-mpi.sh > "$work/mpi.txt" || fail "sweep-mpi.sh's job failed: $(cat "$work"/mpi-*.log | tail -5)"
job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$work/mpi.txt")
plan_keys cases/quick.suite --backend openmp > "$work/mpi-plan.txt"
file_keys "$work/mpi.jsonl" | diff "$work/mpi-plan.txt" - > "$work/mpi.diff" ||
  fail "the MPI sweep is not the plan, each once: $(head -5 "$work/mpi.diff")"
jq -e -s --arg j "$job" '(map(select(.type == "header")) | .[0].ranks == 2)
    and all(.slurm.job_id == $j)' "$work/mpi.jsonl" > /dev/null ||
  fail "the MPI sweep's header does not say 2 ranks, or a record lacks job $job"

echo "== solve --scaling strong inside a 2-task allocation, ranks started by srun"
sbatch --wait -n 2 --output="$work/scaling-%j.log" --wrap="'$bin' solve cavity --steps 2 --no-stream \
--scaling strong --ranks 1,2 --launcher 'srun -n {P}' --out '$work/scaling.jsonl'" > /dev/null ||
  fail "the scaling job failed: $(tail -5 "$work"/scaling-*.log)"
jq -e -s '[.[] | select(.type == "measurement")] | length == 2 and map(.scaling.ranks) == [1, 2]
    and .[1].mpi.ranks == 2 and all(.slurm.job_id | length > 0)' "$work/scaling.jsonl" > /dev/null ||
  fail "scaling records: $(jq -c 'select(.type == "measurement") | [.scaling, .mpi.ranks]' "$work/scaling.jsonl")"
grep -q efficiency "$work"/scaling-*.log || fail "no scaling table in the job's log"
echo "ok"
