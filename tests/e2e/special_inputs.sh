#!/usr/bin/env bash
# special_inputs.sh FLOWBENCH SRCDIR DIR - a path the user gives to be read
# that is not a regular file (a FIFO, a directory, a character device) is
# refused at once with one line naming it, never opened to block: every
# reader (matrices, meshes, --x, suites, results files, the tuning cache,
# the noise store) goes through the same check. Each run is under
# `timeout`, so a reader that blocks fails the test instead of hanging it.
set -uo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
cd "$src" || exit 1
fails=0

# refuse WHAT REGEX ARGS...: exit 2, one line matching REGEX, within 10 s.
refuse() {
  local what=$1 regex=$2; shift 2
  local out rc
  out=$(timeout 10 "$bin" "$@" 2>&1 < /dev/null); rc=$?
  if [ "$rc" -eq 124 ]; then
    echo "FAIL: $what: flowbench $* blocked (killed after 10 s)"; fails=$((fails + 1)); return
  fi
  if [ "$rc" -ne 2 ] || ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
    printf 'FAIL: %s: flowbench %s\n  exit %s, expected 2 and /%s/:\n%s\n' "$what" "$*" "$rc" "$regex" "$out"
    fails=$((fails + 1)); return
  fi
  echo "ok: $what"
}

for name in a.mtx a.mtx.gz a.msh a.su2 x.mtx s.suite r.jsonl b.jsonl cache.json noise.json; do
  mkfifo "$dir/$name"
done
refuse "matrix FIFO" "$dir/a\.mtx: not a regular file" matrix info "$dir/a.mtx"
refuse "gzip matrix FIFO" "$dir/a\.mtx\.gz: not a regular file" matrix info "$dir/a.mtx.gz"
refuse "CHOLMOD matrix FIFO" "$dir/a\.mtx: not a regular file" matrix info "$dir/a.mtx:reader=cholmod"
refuse "Gmsh mesh FIFO" "$dir/a\.msh: not a regular file" matrix info "$dir/a.msh"
refuse "SU2 mesh FIFO" "$dir/a\.su2: not a regular file" matrix info "$dir/a.su2"
refuse "ahmed mesh FIFO" "$dir/a\.msh: not a regular file" solve ahmed --mesh "$dir/a.msh" --steps 1 --no-stream
refuse "--x FIFO" "$dir/x\.mtx: not a regular file" spmv --matrix matrices/general.mtx --x "$dir/x.mtx" --no-stream
refuse "suite FIFO" "$dir/s\.suite: not a regular file" sweep "$dir/s.suite" --out "$dir/out.jsonl"
refuse "results FIFO" "$dir/r\.jsonl: not a regular file" report "$dir/r.jsonl"
refuse "results FIFO (compare)" "$dir/b\.jsonl: not a regular file" compare \
  tests/data/results/constructed-base.jsonl "$dir/b.jsonl"
refuse "tuning cache FIFO" "$dir/cache\.json: not a regular file" spmv --matrix gen:cube:4 --tuned \
  --cache "$dir/cache.json" --no-stream
refuse "noise store FIFO" "$dir/noise\.json: not a regular file" compare tests/data/results/constructed-base.jsonl \
  tests/data/results/constructed-equal.jsonl --noise-file "$dir/noise.json"
ln -s /dev/zero "$dir/zero.mtx"
mkdir "$dir/d.mtx"
refuse "character device" "$dir/zero\.mtx: not a regular file" matrix info "$dir/zero.mtx"
refuse "directory" "$dir/d\.mtx: is a directory" matrix info "$dir/d.mtx"
# a FIFO in a suite's matrix list is a bad suite, said before anything runs
printf 'suite: fifo\nmatrices: ["%s"]\ncases:\n  - kernels: [csr-scalar]\n' "$dir/a.mtx" > "$dir/fifo.suite"
refuse "FIFO in a suite" "a\.mtx: not a regular file" sweep "$dir/fifo.suite" --out "$dir/out.jsonl"
[ "$fails" -eq 0 ] || { echo "FAIL: $fails case(s)"; exit 1; }
echo ok
