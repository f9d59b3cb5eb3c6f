#!/usr/bin/env bash
# test_doc_tables.sh SRC WORK - the GPU figures of README.md, docs/kernels.md
# and docs/solver.md are what scripts/device/doc-tables.sh makes from the
# reference records (a hand edit of a generated figure fails here); on a
# copy of the docs, records planted from the H100 ones with changed numbers
# (a phase*/ archive, gzipped, beside the dir's own file; solve records
# from a GPU) change the blocks as they should, --check catches a stale
# block, and bad input is refused in one line.
set -euo pipefail
src=$1 work=$2
tool=$src/scripts/device/doc-tables.sh
h100=$src/results/reference/h100-2026-11-23/results.jsonl
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The repository's docs are up to date with its records.
"$tool" --check || fail "the docs' generated blocks differ from the records (see above)"

# 2. A copy of the docs and a planted reference dir.
rm -rf "$work" && mkdir -p "$work/root/docs" "$work/root/results/reference/fake-gpu/phase1"
cp "$src/README.md" "$work/root/"
cp "$src/docs/kernels.md" "$src/docs/solver.md" "$work/root/docs/"
ref=$work/root/results/reference/fake-gpu
printf 'results/reference/fake-gpu\n' > "$work/root/results/reference/gpu-sources.txt"
# the dir's own file: the H100 run with a faster triad, csr-vector and
# cuSPARSE on gen:cube:57 and a slower OpenMP baseline there (cuSPARSE on
# gen:cube:120 keeps its own fraction of the triad, 0.72)
jq -c 'def cube57d: .matrix.name == "gen:cube:57" and .precision == "double" and (.cold | not);
  if .type == "measurement" and .benchmark == "stream" and .kernel == "triad" and .backend == "cuda" and .precision == "double"
  then .gbs = 4000
  elif .type == "measurement" and cube57d and .backend == "cuda" and .kernel == "csr-vector"
       and .params == {"WG_SIZE": 128, "VECTOR_SIZE": 8}
  then .stats.median_s = 1e-5 | .gbs = 3600 | .fraction_of_stream = null
  elif .type == "measurement" and cube57d and .backend == "cuda" and .kernel == "peer:cusparse"
  then .stats.median_s = 2.5e-5 | .gbs = 1600 | .fraction_of_stream = null
  elif .type == "measurement" and cube57d and .backend == "openmp" and .kernel == "csr-scalar"
  then .stats.median_s = 3e-4
  else . end' "$h100" > "$ref/results.jsonl"
# phase 1: sell on gen:cube:120 (from csr-vector's record) and the solver
{ jq -c -n 'first(inputs | select(.type == "header"))' "$h100"
  jq -c 'select(.type == "measurement" and .backend == "cuda" and .kernel == "csr-vector" and .precision == "double"
                and .matrix.name == "gen:cube:120")
         | .kernel = "sell" | .params = {"C": 32} | .stats.median_s /= 2 | .gbs = 3800 | .fraction_of_stream = null' "$h100"
  jq -n -c '{type: "measurement", benchmark: "solve", status: "ok", precision: "double", steps: 20}
    | (. + {backend: "openmp", device: "openmp:0", device_name: "Intel(R) Xeon(R) Processor", matrix: {name: "cavity-l2", source: "gen:cube:57"},
            stats: {median_s: 0.5, quality: "stable"}, total_s: 10, timings: {cpu_to_gpu_s: 0, gpu_to_cpu_s: 0}}),
      (. + {backend: "cuda", device: "cuda:0", device_name: "NVIDIA H100 80GB HBM3", matrix: {name: "cavity-l2", source: "gen:cube:57"},
            stats: {median_s: 0.05, quality: "contended", quality_why: "planted: other work took the CPUs"}, total_s: 1,
            timings: {cpu_to_gpu_s: 0.5, gpu_to_cpu_s: 0.1, device_setup_s: 2}, energy: {joules_per_step: 12.5}}),
      (. + {backend: "cuda", device: "cuda:0", device_name: "NVIDIA H100 80GB HBM3", matrix: {name: "cavity-l0", source: "gen:cube:15"},
            stats: {median_s: 0.002}, total_s: 0.04, timings: {cpu_to_gpu_s: 0.01, gpu_to_cpu_s: 0.001}})'
} | gzip > "$ref/phase1/results.jsonl.gz"

# --check names every block the planted records change, and writes nothing
before=$(cat "$work/root/README.md" "$work/root/docs/"*.md | md5sum)
if out=$("$tool" --check --root "$work/root" "$ref" 2>&1); then fail "--check passed on stale blocks: $out"; fi
for want in "README.md: block readme-gpu is stale: run scripts/device/doc-tables.sh results/reference/fake-gpu" \
            "docs/kernels.md: block spmv-targets is stale: run scripts/device/doc-tables.sh results/reference/fake-gpu" \
            "docs/solver.md: block solver-gpu is stale: run scripts/device/doc-tables.sh results/reference/fake-gpu"; do
  grep -qxF "$want" <<<"$out" || fail "expected '$want' in: $out"
done
[ "$(cat "$work/root/README.md" "$work/root/docs/"*.md | md5sum)" = "$before" ] || fail "--check wrote the docs"

# the rewrite, from gpu-sources.txt; then --check passes
"$tool" --root "$work/root" > "$work/rewrite.log" || fail "the rewrite exited $?: $(cat "$work/rewrite.log")"
"$tool" --check --root "$work/root" || fail "--check fails right after the rewrite"
block() { sed -n "/^<!-- BEGIN GENERATED $2 /,/^<!-- END GENERATED $2 -->/p" "$work/root/$1"; }
expect() { # DOC BLOCK TEXT: the block holds TEXT (a whole line with -x)
  local x=; [ "$1" = -x ] && { x=x; shift; }
  block "$1" "$2" | grep -qF$x -- "$3" || fail "$1, block $2: no '$3' in:
$(block "$1" "$2")"
}
expect README.md readme-gpu "<!-- made from results/reference/fake-gpu by scripts/device/doc-tables.sh"
expect README.md readme-gpu "stream triad 4000 GB/s; on the cavity level-2 Laplacian the best flowbench CSR kernel (csr-vector) reaches 3600 GB/s, 2.50x cuSPARSE's CSR SpMV, and 30.0x the 16-thread OpenMP baseline of the same node."
expect -x docs/kernels.md spmv-targets \
  "| CSR >= 0.90 of triad, double | 0.90 (csr-vector; cuSPARSE 0.40) | 0.95 (sell; cuSPARSE 0.72) | sell: cube:120 0.95 |"
expect -x docs/kernels.md spmv-targets \
  "| the same, 4x4, single | 0.64 and 0.80x (bcsr-vector; cuSPARSE 0.80) | 0.70 and 0.79x (bcsr-vector; cuSPARSE 0.89) | bcsr-warp, bcsr-lanes: not measured on a GPU |"
expect -x docs/kernels.md spmv-targets "| the same, 5x5, double | not measured | not measured | bcsr-warp, bcsr-lanes: not measured on a GPU |"
expect -x docs/solver.md solver-gpu "| cavity level 2 | openmp:0 Intel(R) Xeon(R) Processor | 20 | 500.0 | 10.00 | 0 | 0 | - | (baseline) | (baseline) | - |"
expect -x docs/solver.md solver-gpu "| cavity level 2 | cuda:0 NVIDIA H100 80GB HBM3 | 20 | 50.00 | 1.600 | 0.500 | 0.100 | 2.00 | 10.00x? | 6.25x? | 12.5 |"
expect -x docs/solver.md solver-gpu "| cavity level 0 | cuda:0 NVIDIA H100 80GB HBM3 | 20 | 2.000 | 0.05100 | 0.0100 | 0.00100 | - | no OpenMP run | - | - |"
expect -x docs/solver.md solver-gpu "| Ahmed | GPU | not measured on a GPU | | | | | | | | |"
expect -x docs/solver.md solver-gpu "- cavity level 2, cuda:0 NVIDIA H100 80GB HBM3: cuda:0 contended: planted: other work took the CPUs"
block docs/solver.md solver-gpu | grep -q "cavity level 1 | GPU | not measured on a GPU" ||
  fail "cavity level 1 without a GPU record is not marked: $(block docs/solver.md solver-gpu)"
# outside the blocks nothing changed
diff <(sed '/^<!-- BEGIN GENERATED/,/^<!-- END GENERATED/d' "$src/docs/kernels.md") \
     <(sed '/^<!-- BEGIN GENERATED/,/^<!-- END GENERATED/d' "$work/root/docs/kernels.md") > /dev/null ||
  fail "the rewrite changed docs/kernels.md outside its block"

# a hand edit of a generated figure is stale
sed -i 's/| 0.90 (csr-vector; cuSPARSE 0.40)/| 0.91 (csr-vector; cuSPARSE 0.40)/' "$work/root/docs/kernels.md"
if out=$("$tool" --check --root "$work/root" 2>&1); then fail "--check passed a hand-edited figure"; fi
[ "$out" = "docs/kernels.md: block spmv-targets is stale: run scripts/device/doc-tables.sh" ] ||
  fail "--check on a hand edit said: $out"

# 3. Bad input: one line naming the file and the problem, exit 2, nothing written.
bad() { # WANT ARGS...: doc-tables.sh ARGS exits 2 with the line WANT
  local want=$1 out rc=0; shift
  out=$("$tool" --root "$work/root" "$@" 2>&1) || rc=$?
  [ $rc -eq 2 ] && [ "$out" = "$want" ] || fail "doc-tables.sh $*: exit $rc, said '$out', want '$want'"
}
mkdir -p "$work/empty" "$work/notjson"
echo '{"type": "measurement", "benchmark": "spmv"' > "$work/notjson/results.jsonl"
bad "doc-tables.sh: $work/missing: cannot read the directory" "$work/missing"
bad "doc-tables.sh: $work/empty: no records (no results.jsonl[.gz] in it or in its phase*/)" "$work/empty"
out=$("$tool" --root "$work/root" "$work/notjson" 2>&1) && fail "a file that is not JSON lines passed"
grep -q "^doc-tables.sh: $work/notjson/results.jsonl: not JSON lines: " <<<"$out" || fail "not JSON lines said: $out"
snap=$(cat "$work/root/README.md" "$work/root/docs/"*.md | md5sum)
printf '\n<!-- BEGIN GENERATED bogus (scripts/device/doc-tables.sh) -->\n<!-- END GENERATED bogus -->\n' \
  >> "$work/root/docs/solver.md"
n=$(wc -l < "$work/root/docs/solver.md")
bad "doc-tables.sh: docs/solver.md:$((n - 1)): unknown generated block bogus (known: readme-gpu spmv-targets solver-gpu )"
head -n $((n - 3)) "$work/root/docs/solver.md" > "$work/solver.md" && cat "$work/solver.md" > "$work/root/docs/solver.md"
printf '<!-- BEGIN GENERATED readme-gpu (scripts/device/doc-tables.sh) -->\n' >> "$work/root/docs/solver.md"
bad "doc-tables.sh: docs/solver.md:$((n - 2)): block readme-gpu has no END line"
head -n $((n - 3)) "$work/solver.md" > "$work/root/docs/solver.md"
[ "$(cat "$work/root/README.md" "$work/root/docs/"*.md | md5sum)" = "$snap" ] ||
  fail "a refused run wrote the docs (the stale docs/kernels.md before the bad docs/solver.md)"
printf '\n' > "$work/root/results/reference/gpu-sources.txt"
bad "doc-tables.sh: $work/root/results/reference/gpu-sources.txt: names no reference dir"
echo "doc tables: the repository's are current; planted records change the three blocks, --check catches stale ones, 5 bad inputs refused"
