#!/usr/bin/env bash
# scale-gen.sh - synthetic inputs of the sizes a year of nightly runs
# reaches, for scripts/scale-bench.sh and the scale tests. Everything is
# schema-valid and written to standard output; nothing is measured.
#
#   scale-gen.sh results RUNS MATRICES   results file: RUNS runs (a header,
#       a stream triad per device, then per matrix 8 csr-multirow points on
#       opencl, csr-scalar on openmp and one pruned point), so
#       RUNS x (2 + 10 x MATRICES) records; every run measures the same
#       configurations, so all but the last run's records are superseded
#   scale-gen.sh suite CASES [PREFIX]    suite of CASES one-point cases on
#       gen:cube:4 (loads, checks its matrix, runs the first with --limit 1),
#       named PREFIX1, PREFIX2, ... (PREFIX "c" unless given)
#   scale-gen.sh cache ENTRIES           tuning cache of ENTRIES entries,
#       one device and kernel, every signature different
#
# Needs jq. Times: about 1 s per 10k records on one core.
set -euo pipefail

usage() { echo "usage: scale-gen.sh results RUNS MATRICES | suite CASES [PREFIX] | cache ENTRIES" >&2; exit 2; }
count() { [[ $1 =~ ^[0-9]+$ ]] || usage; }

results() { # RUNS MATRICES
  count "$1"; count "$2"
  jq -nc --argjson runs "$1" --argjson matrices "$2" '
    def device(b; id; name): {backend: b, id: id, name: name, vendor: "synthetic", device_version: "1",
      driver_version: "synthetic 1.0", runtime_version: "1", compute_units: 8, global_mem_bytes: 17179869184,
      cache_bytes: 33554432};
    def header($run): {type: "header", schema: 1, run_id: "run-\($run)",
      date: "2026-01-01T00:00:00Z", command: "scale-gen.sh",
      host: {hostname: "scale-host", cpu: "Synthetic CPU", logical_cpus: 8, omp_threads: 8,
             llc_bytes: 33554432, memory_bytes: 17179869184, os: "synthetic"},
      build: {flowbench_version: "0.1.0", git_revision: "synthetic", compiler: "cc", flags: "-O3"},
      devices: [device("openmp"; "openmp:0"; "Synthetic CPU"), device("opencl"; "opencl:0.0"; "Synthetic GPU")]};
    def stats($t): {samples_s: [$t, $t * 1.01, $t * 0.99, $t, $t * 1.02], n: 5, median_s: $t,
      min_s: ($t * 0.99), max_s: ($t * 1.02), median_spread: 0.01, stop: "converged"};
    def record($run; backend; kernel; params; $t):
      {type: "measurement", schema: 1, run_id: "run-\($run)", benchmark: "spmv", kernel: kernel,
       backend: backend, device: (if backend == "openmp" then "openmp:0" else "opencl:0.0" end),
       device_name: (if backend == "openmp" then "Synthetic CPU" else "Synthetic GPU" end),
       precision: "double", params: params, status: "ok", stats: stats($t), gbs: (2.4e-4 / $t),
       gflops: (2e-4 / $t), check: {ok: true}};
    def matrix($m): {name: "m\($m)", source: "matrices/m\($m).mtx", hash: "h\($m)", rows: (1000 + $m),
      cols: (1000 + $m), nnz: (20000 + $m)};
    def triad($run; backend; $t): record($run; backend; "triad"; {n: 2000000}; $t) | .benchmark = "stream"
      | .gbs = 4.8e-2 / $t;
    def swept($run; $m):
      (range(5; 9) as $w | range(0; 2) as $r
        | record($run; "opencl"; "csr-multirow"; {WORKGROUP_SIZE_BITS: $w, ROWS_PER_WORKGROUP_BITS: $r};
                 1e-5 * (1 + $m % 7) * (1 + ($w - 5) * 0.1 + $r * 0.05))),
      record($run; "openmp"; "csr-scalar"; {WG_SIZE: 128}; 4e-5 * (1 + $m % 7)),
      (record($run; "opencl"; "csr-vector"; {WG_SIZE: 32, VECTOR_SIZE: 64}; 1)
        | .status = "pruned" | .reason = "VECTOR_SIZE 64 over WG_SIZE 32" | del(.stats));
    range(0; $runs) as $run
    | header($run), triad($run; "openmp"; 1e-3), triad($run; "opencl"; 1e-4),
      (range(0; $matrices) as $m
        | swept($run; $m) | .matrix = matrix($m) | .suite = "scale" | .case = "multirow")'
}

suite() { # CASES [PREFIX]
  count "$1"
  printf 'suite: scale\nbackends: [openmp]\nmatrices: [gen:cube:4]\n'
  printf 'measure: {min_samples: 1, max_samples: 2, warmups: 0, budget_s: 0.01}\ncases:\n'
  awk -v n="$1" -v prefix="${2:-c}" 'BEGIN { for (i = 1; i <= n; ++i)
    printf "  - {name: %s%d, kernels: [csr-scalar], space: default, params: {WG_SIZE: [%d]}}\n", prefix, i,
      32 * 2 ^ (i % 6) }'
}

cache() { # ENTRIES
  count "$1"
  jq -n --argjson n "$1" '{flowbench_tuning_cache: 1, entries: [range(0; $n) as $i | {
    device: "opencl|Synthetic GPU|synthetic|synthetic 1.0|8", kernel: "csr-vector", precision: "double",
    signature: {rows: (1000 + $i), nnz: (20000 + 7 * $i), nnz_per_row_mean: 20.0, nnz_per_row_stddev: 2.0,
                nnz_per_row_max: 27.0, block: 1},
    params: {WG_SIZE: 128, VECTOR_SIZE: 8}, median_s: 1e-5, gbs: 100.0, matrix: "m\($i)",
    strategy: "exhaustive", evaluations: 42, date: "2026-01-01T00:00:00Z"}]}'
}

[ $# -ge 2 ] || usage
what=$1
shift
case $what in
  results) [ $# -eq 2 ] || usage; results "$@" ;;
  suite) [ $# -ge 1 ] && [ $# -le 2 ] || usage; suite "$@" ;;
  cache) [ $# -eq 1 ] || usage; cache "$@" ;;
  *) usage ;;
esac
