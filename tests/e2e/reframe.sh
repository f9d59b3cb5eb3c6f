#!/bin/bash
# reframe.sh BIN SRC WORK REFRAME MPI - scripts/reframe/flowbench_sweep.py
# run by ReFrame (from PyPI, in the build's virtual environment: setup.sh)
# with scripts/reframe/settings.py, on the prebuilt flowbench:
#  - on this host (partition local): sanity (every record checked, the
#    sweep's summary and exit), the performance figures (triad, best SpMV
#    GB/s) against references with tolerances, --report-junit;
#  - a reference planted far above the machine: the check fails, in
#    ReFrame's exit status, its report and the JUnit file;
#  - through a one-host Slurm cluster (partition slurm: sbatch, squeue,
#    srun), one process and, with MPI, two ranks: the configuration a site
#    copies is one that ran.
# Exits 77 with the reason where ReFrame is not installed or the cluster
# cannot start.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$3
reframe=$4
mpi=$5
rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
fail() { echo "FAIL: $*" >&2; exit 1; }
set -E
trap 'err=$?; [[ $- != *e* ]] || echo "FAIL: reframe.sh line $LINENO: a command exited $err" >&2' ERR
[ -x "$reframe" ] || { echo "reframe.sh: no ReFrame at $reframe (scripts/setup.sh installs it from PyPI)" >&2; exit 77; }

# ReFrame keeps reports under ~/.reframe and Python caches beside the check:
# both kept out of the user's home and the source tree
export HOME=$work/home PYTHONDONTWRITEBYTECODE=1
cd "$work"
run() { # NAME PARTITION [OPTIONS...]: ReFrame's exit status
  local name=$1 part=$2
  shift 2
  "$reframe" -C "$src/scripts/reframe/settings.py" -c "$src/scripts/reframe/flowbench_sweep.py" \
    --system "flowbench-host:$part" --prefix "$work/$name" --report-junit "$work/$name.xml" --nocolor \
    -S flowbench_build.prebuilt="$bin" -S flowbench_build_mpi.prebuilt="$bin" "$@" -r > "$work/$name.txt" 2>&1
}
perf() { sed -n "s/^P: $2: \([0-9.e+]*\) GB\/s.*/\1/p" "$work/$1.txt" | head -1; }

echo "== this host: sanity, triad and best GB/s against references, JUnit"
run local local -n 'flowbench_quick_sweep$' -S flowbench_quick_sweep.triad_ref=0.01 \
  -S flowbench_quick_sweep.best_ref=0.01 || fail "ReFrame on this host: $(grep -A3 'FAILURE INFO' "$work/local.txt")"
for v in triad best config; do
  awk -v x="$(perf local $v)" 'BEGIN { exit !(x > 0) }' || fail "no $v figure: $(grep '^P:' "$work/local.txt")"
done
grep -q "^P: triad: .* (r:0.01, l:-0.2, u:None)" "$work/local.txt" || fail "the triad was not read against its reference"
jq -e -s 'all(.[] | select(.type == "measurement"); .status == "ok" and .check.ok)' \
  "$work"/local/output/flowbench-host/local/host/flowbench_quick_sweep/quick.jsonl > /dev/null ||
  fail "the run ReFrame passed holds a record not ok or not checked"
grep -q 'tests="2".*failures="0"\|failures="0".*tests="2"' "$work/local.xml" || fail "JUnit: $(head -3 "$work/local.xml")"

echo "== a planted reference far above the machine fails the check"
code=0
run planted local -n 'flowbench_quick_sweep$' -S flowbench_quick_sweep.triad_ref=1e6 || code=$?
[ "$code" -ne 0 ] || fail "ReFrame passed a triad 1e6 GB/s reference"
grep -q "failed to meet reference(s): triad=" "$work/planted.txt" || fail "no performance failure: $(tail -5 "$work/planted.txt")"
grep -q '<failure type="failure" message="performance"' "$work/planted.xml" || fail "JUnit has no performance failure"

echo "== through a one-host Slurm cluster: sbatch, squeue, srun"
cluster=$work/cluster
code=0
"$src/scripts/slurm/local-cluster.sh" start "$cluster" > /dev/null 2> "$work/cluster.log" || code=$?
if [ "$code" -eq 77 ]; then
  echo "reframe.sh: the Slurm part skipped: $(cat "$work/cluster.log")" >&2
  exit 77
fi
[ "$code" -eq 0 ] || fail "local-cluster.sh start exited $code: $(cat "$work/cluster.log")"
trap '"$src/scripts/slurm/local-cluster.sh" stop "$cluster"' EXIT
export SLURM_CONF=$cluster/slurm.conf
tests='flowbench_quick_sweep$'
[ "$mpi" = ON ] && tests='flowbench_quick_sweep(_mpi)?$'
run slurm slurm -n "$tests" -S flowbench_quick_sweep.best_ref=0.01 ||
  fail "ReFrame through Slurm: $(grep -A3 'FAILURE INFO\|ERROR' "$work/slurm.txt")"
out=$work/slurm/output/flowbench-host/slurm/host
grep -q '^#SBATCH --ntasks=1' "$out/flowbench_quick_sweep/rfm_job.sh" &&
  grep -q '^srun .*flowbench sweep ' "$out/flowbench_quick_sweep/rfm_job.sh" || fail "the job script is not sbatch + srun"
jq -e -s 'map(select(.type == "header")) | .[0].slurm.job_id | length > 0' \
  "$out/flowbench_quick_sweep/quick.jsonl" > /dev/null || fail "the results do not name the Slurm job that ran them"
if [ "$mpi" = ON ]; then
  jq -e -s 'map(select(.type == "header")) | .[0].ranks == 2 and (.[0].slurm.job_id | length > 0)' \
    "$out/flowbench_quick_sweep_mpi/quick.jsonl" > /dev/null || fail "the MPI sweep did not run on 2 ranks under Slurm"
fi
echo "ok"
