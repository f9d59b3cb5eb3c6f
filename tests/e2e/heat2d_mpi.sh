#!/usr/bin/env bash
# heat2d_mpi.sh FLOWBENCH SRC DIR - heat2d on several ranks end to end
# (docs/scaling.md), under $FB_MPIEXEC (mpirun) as
# flowbench_mpi_test runs it:
#
#  - openmp, and opencl when `flowbench devices` lists an OpenCL device:
#    1, 2 and 4 ranks in row strips and a 2x2 block decomposition on an odd
#    stretched grid (strips and blocks of unequal sizes). Each run's record
#    must say the gathered field is identical, bit for bit, to rank 0's
#    single-device run with the same iteration count; and, across separate
#    processes, every run of a backend must report the same field hash and
#    iteration count as the decomposed code on one process without mpirun;
#    the traffic must be what the decomposition implies.
#  - the check is not vacuous: an OpenCL unpack kernel that drops the
#    ghosts (FLOWBENCH_KERNEL_DIR) turns a 2-rank run into exit 1 and a
#    wrong-result record.
#  - usage errors (more ranks than rows, a product that is not the rank
#    count, fv-surface) exit 2 with exactly one "flowbench:" line, from
#    rank 0; a rank that fails alone (its kernel
#    sources missing) ends every rank with one line from that rank; Ctrl-C
#    on one rank stops all of them (exit 130, one line). Every launch runs
#    under a time-out: a hang fails the test.
set -euo pipefail
bin=$1; src=$2; dir=$3
mpiexec=${FB_MPIEXEC:-mpirun}
# a GPU node that got this build carries no MPI launcher: said, not failed
command -v "$mpiexec" > /dev/null || { echo "skipped: no MPI launcher ($mpiexec) on this machine"; exit 77; }
rm -rf "$dir"; mkdir -p "$dir"
grid=grid:61x37:stretch=2
cells=$((61 * 37))
common=(grid --family heat2d --grid "$grid" --repeats 1 --param BLOCK_X=16 --param BLOCK_Y=4 --json)

fail() { echo "FAIL: $*"; exit 1; }

# launch NAME NP ARGS...: flowbench on NP ranks (0: no mpirun); $dir/NAME.{json,err}, sets rc
launch() {
  local name=$1 np=$2; shift 2
  rc=0
  if [ "$np" -eq 0 ]; then
    timeout 120 "$bin" "$@" > "$dir/$name.json" 2> "$dir/$name.err" || rc=$?
  else
    timeout 120 "$mpiexec" -np "$np" "$bin" "$@" > "$dir/$name.json" 2> "$dir/$name.err" || rc=$?
  fi
  [ "$rc" -ne 124 ] || fail "$name: no answer in 120 s (a hang)"
}

# decomposed BACKEND NAME NP DECOMP: a run that must pass, checked; prints "hash iterations"
decomposed() {
  local backend=$1 name=$2 np=$3 decomp=$4 ranks px py
  launch "$name" "$np" "${common[@]}" --backend "$backend" --decomp "$decomp"
  [ "$rc" -eq 0 ] || fail "$name: exit $rc: $(grep flowbench: "$dir/$name.err" | head -3)"
  ranks=$((np > 0 ? np : 1))
  px=$(jq -r .decomposition.px "$dir/$name.json"); py=$(jq -r .decomposition.py "$dir/$name.json")
  [ $((px * py)) -eq "$ranks" ] || fail "$name: ${px}x$py blocks on $ranks ranks"
  # ghost rows and columns: each of the (px-1) cuts sends 37 rows' worth
  # both ways, each of the (py-1) cuts 61 columns' worth, 8 bytes a value
  jq -e --argjson ranks "$ranks" --argjson cells "$cells" \
        --argjson bytes $(( (2 * (px - 1) * 37 + 2 * (py - 1) * 61) * 8 )) '
      .status == "ok" and .check.ok and .check.identical_to_single_device
      and .check.mismatched_cells == 0 and .check.max_abs_diff == 0
      and .check.iterations == .check.single_device_iterations and .check.iterations > 0
      and .check.field_hash == .check.single_device_hash
      and .decomposition.ranks == $ranks and (.per_rank | length) == $ranks
      and ([.per_rank[] | .nx * .ny] | add) == $cells
      and .per_iteration.bytes == $bytes
      and .per_iteration.wall_s > 0 and .per_iteration.compute_s > 0
      and .per_iteration.load_balance >= 1
      and .params.RANKS == $ranks and (.stats.samples_s | length) == 1' "$dir/$name.json" > /dev/null ||
    fail "$name: record: $(jq -c '{status, check, decomposition, per_iteration}' "$dir/$name.json")"
  grep -q "identical to one device, bit for bit" "$dir/$name.err" || fail "$name: no check line in the table"
  jq -r '"\(.check.field_hash) \(.check.iterations)"' "$dir/$name.json"
}

# same_everywhere BACKEND NAME...: one hash and iteration count for all
same_everywhere() {
  local backend=$1 first; shift
  first=$(decomposed "$backend" "$backend-np0" 0 1x1)
  for spec in "$@"; do
    read -r name np decomp <<<"$spec"
    got=$(decomposed "$backend" "$backend-$name" "$np" "$decomp")
    [ "$got" = "$first" ] || fail "$backend $name: field hash and iterations '$got', one process '$first'"
  done
  echo "$backend: 1, 2, 4 ranks (strips) and 2x2 blocks identical to one device: $first"
}

same_everywhere openmp "np1 1 1d" "np2 2 1d" "np4 4 1d" "blocks 4 2x2"

# usage errors: exit 2, one line, rank 0's
usage_error() {
  local name=$1 np=$2 want=$3; shift 3
  launch "$name" "$np" "$@"
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(cat "$dir/$name.err")"
  [ "$(grep -c '^flowbench:' "$dir/$name.err")" -eq 1 ] || fail "$name: not one error line: $(cat "$dir/$name.err")"
  grep -q "^flowbench: rank 0 of $np .*$want" "$dir/$name.err" || fail "$name: $(grep flowbench: "$dir/$name.err")"
}
# One refusal of each kind that needs several ranks to arise: the grid too
# small for the ranks, blocks that are not the rank count, a family that
# does not decompose. The refusals one process can meet (a malformed
# --decomp, heat-rbgs) take the same path to rank 0's one line; their
# messages are checked in unit.test_heat2d_decomp and tests/cli/cases_grid.txt
# (each launch here is 2 s of mpirun on 2 cores).
usage_error rows 4 "--decomp 1d: 4 row strips but the grid has 3 rows" grid --family heat2d --grid grid:9x3
usage_error product 2 "--decomp 2x2: 4 blocks for 2 ranks" grid --family heat2d --grid grid:9x9 --decomp 2x2
usage_error fv 2 "fv-surface does not run decomposed on several ranks" grid --family fv-surface --grid grid:9x7x5
echo "usage errors: exit 2, one line from rank 0"

# one rank fails alone (its kernel sources missing): every rank ends, one line, that rank's
rc=0
timeout 120 "$mpiexec" -np 1 "$bin" grid --family heat2d --grid grid:9x9 : \
  -np 1 env FLOWBENCH_KERNEL_DIR="$dir/none" "$bin" grid --family heat2d --grid grid:9x9 \
  > "$dir/alone.out" 2> "$dir/alone.err" || rc=$?
[ "$rc" -ne 124 ] || fail "one rank failing alone: a hang"
[ "$rc" -ne 0 ] || fail "one rank failing alone: exit 0"
[ "$(grep -c '^flowbench:' "$dir/alone.err")" -eq 1 ] && grep -q '^flowbench: rank 1 of 2' "$dir/alone.err" ||
  fail "one rank failing alone: $(grep flowbench: "$dir/alone.err")"
[ ! -s "$dir/alone.out" ] || fail "one rank failing alone printed a result"
echo "a rank failing alone: exit $rc, one line from it, no hang"

# Ctrl-C on one rank: it rides the max-change reduction, every rank stops
# at the same iteration; exit 130 and one line. The signal goes to a rank
# (by its id) once that rank has its handler installed (SigCgt), so an
# early signal cannot be lost to the default disposition.
rc=0
timeout 120 "$mpiexec" -np 2 "$bin" grid --family heat2d --grid grid:257x257 --repeats 1000 \
  > "$dir/int.out" 2> "$dir/int.err" &
job=$!
rank=""
for _ in $(seq 200); do
  for p in $(pgrep -f "^$bin grid --family heat2d --grid grid:257x257" || true); do
    mask=$(awk '/^SigCgt/ {print $2}' "/proc/$p/status" 2> /dev/null || true)
    [ -n "$mask" ] && [ $((0x$mask & 2)) -ne 0 ] && rank=$p
  done
  [ -n "$rank" ] && break
  sleep 0.1
done
[ -n "$rank" ] || { kill "$job" 2> /dev/null; fail "Ctrl-C: no rank with its handler installed in 20 s"; }
sleep 0.5
kill -INT "$rank"
wait "$job" || rc=$?
[ "$rc" -eq 130 ] || fail "Ctrl-C on one rank: exit $rc, expected 130: $(grep flowbench: "$dir/int.err")"
[ "$(grep -c '^flowbench:' "$dir/int.err")" -eq 1 ] && grep -q '^flowbench: interrupted' "$dir/int.err" ||
  fail "Ctrl-C on one rank: $(grep flowbench: "$dir/int.err")"
echo "Ctrl-C on one rank: every rank stops, exit 130, one line"

if ! "$bin" devices | grep -q '^opencl:'; then
  echo "opencl: no OpenCL device, skipped (openmp passed)"
  exit 0
fi
same_everywhere opencl "np1 1 1d" "np2 2 1d" "np4 4 1d" "blocks 4 2x2"

# a mutant that never writes the ghosts: the decomposed run must fail its check
mkdir -p "$dir/mutant"
cp -r "$src/kernels/." "$dir/mutant/"
sed -i 's|if (k < 2 \* nx + 2 \* ny) t\[heat_edge_at(k, nx, ny, 1)\] = ghost\[k\];|(void)ghost;|' \
  "$dir/mutant/grid/heat2d.cl"
! cmp -s "$src/kernels/grid/heat2d.cl" "$dir/mutant/grid/heat2d.cl" || fail "the mutant's sed matched nothing"
rc=0
FLOWBENCH_KERNEL_DIR="$dir/mutant" timeout 120 "$mpiexec" -np 2 "$bin" "${common[@]}" --backend opencl \
  > "$dir/mutant.json" 2> "$dir/mutant.err" || rc=$?
[ "$rc" -eq 1 ] || fail "ghosts never written: exit $rc, expected 1: $(grep flowbench: "$dir/mutant.err")"
jq -e '.status == "wrong-result" and (.check.identical_to_single_device | not) and .check.mismatched_cells > 0' \
  "$dir/mutant.json" > /dev/null || fail "ghosts never written: record $(jq -c .check "$dir/mutant.json")"
grep -q "NOT identical to one device" "$dir/mutant.err" || fail "ghosts never written: no NOT identical line"
echo "opencl: a run whose ghosts are never written is caught (exit 1, wrong-result)"

# energy over the timed transients, every rank's meter summed with a meter
# shared on a host counted once (unit.test_energy has the arithmetic):
# both ranks on this host's RAPL, a fake powercap tree
pc=$dir/powercap
mkdir -p "$pc/intel-rapl:0"
echo package-0 > "$pc/intel-rapl:0/name"; echo 1000000 > "$pc/intel-rapl:0/energy_uj"
export FLOWBENCH_POWERCAP_ROOT=$pc
launch energy 2 "${common[@]}"
unset FLOWBENCH_POWERCAP_ROOT
[ "$rc" -eq 0 ] || fail "energy on 2 ranks: exit $rc: $(grep flowbench: "$dir/energy.err")"
jq -e '.energy | .source == "rapl" and .meters == [{"meter": .meters[0].meter, "ranks": [0, 1], "joules": .joules}]
       and (.meters[0].meter | endswith("/rapl")) and .runs == $iterations' \
  --argjson iterations "$(jq '.decomposition.iterations' "$dir/energy.json")" "$dir/energy.json" > /dev/null ||
  fail "energy on 2 ranks sharing RAPL: $(jq -c .energy "$dir/energy.json")"
grep -q '^  energy: .* rapl counter' "$dir/energy.err" || fail "no energy line: $(cat "$dir/energy.err")"
echo "energy: 2 ranks on one host's RAPL, one meter, the transients' iterations its runs"
