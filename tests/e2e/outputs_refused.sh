#!/usr/bin/env bash
# outputs_refused.sh FLOWBENCH SRCDIR DIR - nothing the user owns is
# overwritten (issue 34, "Data loss"):
#  - an output option naming one of the command's inputs, or another of its
#    outputs, is refused with exit 2 and one line before any work, and the
#    file is left byte for byte: compare --junit, export --out, report
#    --out, tune --fit-prior --prior, solve --out/--vtk; the same file under
#    another name (./F, an absolute path, a symbolic link, a hard link) too;
#  - tune --fit-prior writes a prior only over a prior (or a new file);
#  - sweep --out F refuses a F.rank-1 an earlier sweep of another run left
#    (planted by hand: no mpirun needed), and says why when one of its run
#    is of another suite (it printed an empty reason);
#  - merge writes a record without a sweep_key once when two inputs hold it;
#  - the measuring commands too: sweep SUITE --out SUITE, spmv --out over
#    --matrix (one run and a plan) or --y-out, grid --out over its kernel
#    file, tune --out over the cache or the prior, compare --interleave
#    --junit inside the rounds' folder, solve ahmed --vtk over the default
#    mesh.
set -uo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
cd "$dir" || exit 1
data=$src/tests/data/results suites=$src/tests/data/suites
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { [ "$fails" -eq "$2" ] && echo "ok: $1"; }

# keep FILE...: a pristine copy of each, for refused() to compare with
keep() { for f in "$@"; do cp "$f" "$f.orig"; done; }

# refused WHAT REGEX ARGS...: exit 2 with exactly one line "flowbench: ..."
# matching REGEX, and every kept file as it was.
refused() {
  local what=$1 regex=$2 before=$fails; shift 2
  timeout 60 "$bin" "$@" > out.txt 2>&1 < /dev/null; local rc=$?
  { [ "$rc" -eq 2 ] && [ "$(grep -c '^flowbench:' out.txt)" -eq 1 ] && grep -Eq -- "^flowbench: $regex" out.txt; } ||
    fail "$what: exit $rc, expected 2 and one line /$regex/: $(head -c 600 out.txt)"
  for f in *.orig; do cmp -s "${f%.orig}" "$f" || fail "$what: ${f%.orig} was changed"; done
  ok "$what" "$before"
}

# fresh: a folder of its own for the next case, holding the fixtures (kept)
# and base.jsonl's two other names, so that a case that damages one (each
# did before the refusals) cannot make the next one fail.
fresh() {
  rm -rf "$dir/case" && mkdir "$dir/case" && cd "$dir/case" || exit 1
  cp "$dir"/fixtures/* .
  keep ./*
  ln -s base.jsonl link.jsonl
  ln base.jsonl hard.jsonl
}

mkdir fixtures
cp "$data/constructed-base.jsonl" fixtures/base.jsonl
cp "$data/constructed-equal.jsonl" fixtures/new.jsonl
printf '{"mine": 1}\n' > fixtures/other.json
cp "$src/cases/examples/heat_jacobi_cells.cl" fixtures/heat.cl
cp "$suites/e2e.suite" fixtures/e2e.suite
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.0\n' > fixtures/one.mtx
# a landscape tune --fit-prior can fit, and the files of two sweeps (two
# runs: one to plant beside another file, one whose own run to plant)
"$bin" tune --matrix gen:cube:6 --kernel csr-vector --strategy exhaustive --budget 0.02 --min-samples 3 \
  --no-cache --out fixtures/sweep.jsonl --no-variants > /dev/null 2> tune.log || fail "tune: $(tail -1 tune.log)"
for f in earlier same; do
  "$bin" sweep "$suites/e2e.suite" --out fixtures/$f.jsonl --limit 1 2> $f.log || fail "sweep: $(tail -1 $f.log)"
done

echo "== an output that is an input"
fresh
refused "compare --junit NEW" "compare: --junit new\.jsonl is the input NEW: refusing to overwrite it$" \
  compare base.jsonl new.jsonl --junit new.jsonl
fresh
refused "compare --junit ./BASE" "compare: --junit \./base\.jsonl is the input BASE \(base\.jsonl\)" \
  compare base.jsonl new.jsonl --junit ./base.jsonl
fresh
refused "export --out RESULTS" "export: --out base\.jsonl is the input RESULTS: refusing to overwrite it$" \
  export base.jsonl --out base.jsonl
fresh
refused "export --out a symbolic link to RESULTS" "export: --out link\.jsonl is the input RESULTS \(base\.jsonl\)" \
  export base.jsonl --out link.jsonl
fresh
refused "export --out a hard link to RESULTS" "export: --out hard\.jsonl is the input RESULTS \(base\.jsonl\)" \
  export base.jsonl --out hard.jsonl
fresh
refused "report --out RESULTS by its absolute path" \
  "report: --out $dir/case/base\.jsonl is the input RESULTS \(base\.jsonl\)" report base.jsonl --out "$dir/case/base.jsonl"

echo "== tune --fit-prior: never over a sweep it fits, nor over anything but a prior"
fresh
refused "tune --fit-prior S --prior S" "tune --fit-prior: --prior sweep\.jsonl is the input SWEEP\.jsonl: refusing" \
  tune --fit-prior sweep.jsonl --prior sweep.jsonl
fresh
refused "tune --fit-prior --prior over a results file" \
  "tune --fit-prior: new\.jsonl exists and is not a tuning prior: refusing to overwrite it" \
  tune --fit-prior sweep.jsonl --prior new.jsonl
fresh
refused "tune --fit-prior --prior over other JSON" "tune --fit-prior: other\.json exists and is not a tuning prior" \
  tune --fit-prior sweep.jsonl --prior other.json
fresh
before=$fails
"$bin" tune --fit-prior sweep.jsonl --prior prior.json > /dev/null 2> fit.log || fail "a new prior: $(cat fit.log)"
"$bin" tune --fit-prior sweep.jsonl --prior prior.json > /dev/null 2> fit.log || fail "a prior over a prior: $(cat fit.log)"
jq -e '.flowbench_tuning_prior == 1' prior.json > /dev/null || fail "prior.json is not a prior"
ok "tune --fit-prior writes a new prior and over a prior" "$before"

echo "== solve: an output that is another output"
fresh
refused "solve --out F --vtk F" "solve: --vtk sweep\.jsonl is also --out: give each output its own file$" \
  solve cavity --steps 1 --no-stream --out sweep.jsonl --vtk sweep.jsonl
fresh
refused "solve --out F --vtk ./F, F not there yet" "solve: --vtk \./fresh\.vtu is also --out \(fresh\.vtu\)" \
  solve cavity --steps 1 --no-stream --out fresh.vtu --vtk ./fresh.vtu
[ ! -e fresh.vtu ] || fail "solve wrote fresh.vtu after refusing it"

echo "== the measuring commands: an output that is an input or another output"
fresh
refused "sweep SUITE --out SUITE" "sweep: --out e2e\.suite is the input SUITE: refusing to overwrite it$" \
  sweep e2e.suite --out e2e.suite
fresh
refused "spmv --out F --y-out ./F" "spmv: --y-out \./base\.jsonl is also --out \(base\.jsonl\)" \
  spmv --matrix gen:cube:6 --no-stream --out base.jsonl --y-out ./base.jsonl
fresh
refused "spmv --out over its --matrix" "spmv: --out one\.mtx is the input --matrix: refusing" \
  spmv --matrix one.mtx --no-stream --out one.mtx
fresh
refused "spmv plan --out over a --matrix" "spmv: --out one\.mtx is the input --matrix" \
  spmv --matrix gen:cube:6 --matrix one.mtx --no-stream --out one.mtx
fresh
refused "grid --out over its --kernel-file" "grid: --out heat\.cl is the input --kernel-file" \
  grid --family heat2d --grid grid:17x17 --backend opencl --kernel-file heat.cl --kernel heat_jacobi_cells --out heat.cl
fresh
refused "tune --out over the tuning cache" "tune: --out cache\.json is also --cache: give each output its own file" \
  tune --matrix gen:cube:6 --kernel csr-scalar --cache cache.json --out cache.json
fresh
refused "tune --out over its --prior" "tune: --out other\.json is the input --prior" \
  tune --matrix gen:cube:6 --kernel csr-scalar --no-cache --prior other.json --out other.json
fresh
mkdir rounds
refused "compare --interleave --junit inside --out DIR" \
  "compare --interleave: --junit rounds/base-r1\.jsonl is inside the rounds' folder rounds" \
  compare --interleave "$bin" "$bin" e2e.suite --out rounds --junit rounds/base-r1.jsonl
fresh
mkdir results
cp other.json results/ahmed.msh
keep results/ahmed.msh
refused "solve ahmed --vtk over the default mesh" "solve: --vtk results/ahmed\.msh is the input the default mesh" \
  solve ahmed --steps 1 --no-stream --vtk results/ahmed.msh

echo "== sweep --out F: a F.rank-1 of another run is refused and kept"
fresh
cp earlier.jsonl next.jsonl.rank-1
keep next.jsonl.rank-1
refused "sweep beside another run's rank file" \
  "next\.jsonl\.rank-1: line 1: a line of run [^ ]*, which next\.jsonl does not hold .*the \.rank-R files are kept" \
  sweep "$suites/e2e.suite" --out next.jsonl --limit 1
[ ! -s next.jsonl ] || fail "next.jsonl took records: $(head -c 300 next.jsonl)"

echo "== sweep --out F --resume: a F.rank-1 of F's run but another suite says why"
fresh
jq -c 'select(.type == "header") | .suite = "slow"' same.jsonl > same.jsonl.rank-1
keep same.jsonl.rank-1
refused "a rank file of another suite" \
  "same\.jsonl\.rank-1: line 1: a header of another sweep \(suite \"slow\", not \"e2e\".*; the \.rank-R files are kept" \
  sweep "$suites/e2e.suite" --out same.jsonl --limit 1 --resume

echo "== merge: a record without a sweep_key that two inputs hold is written once"
fresh
before=$fails
cp base.jsonl copy.jsonl
"$bin" merge merged.jsonl base.jsonl copy.jsonl 2> merge.log || fail "merge: $(cat merge.log)"
cmp -s <(sort base.jsonl) <(sort merged.jsonl) || fail "merge of a file and its copy is not the file: $(wc -l < merged.jsonl) lines"
grep -q "merged.jsonl: 3 record(s) and 1 header(s) from 2 file(s); 3 duplicate record(s) written once" merge.log ||
  fail "merge does not say it wrote the copies once: $(cat merge.log)"
"$bin" merge both.jsonl base.jsonl new.jsonl 2> merge.log || fail "merge of two runs: $(cat merge.log)"
[ "$(wc -l < both.jsonl)" -eq 8 ] || fail "merge of two runs lost or doubled a record: $(wc -l < both.jsonl) lines"
ok "merge writes a copied record once, keeps records of other runs" "$before"

ls "$dir"/case/*.tmp.* > /dev/null 2>&1 && fail "temporary files left in $dir/case"
[ "$fails" -eq 0 ] || { echo "FAIL: $fails case(s)"; exit 1; }
echo ok
