#!/usr/bin/env bash
# read-bandwidth.sh - does a read-only stream reach more than the triad here?
# Issue 39's question for a read-dominated kernel (an SpMV reads its values,
# column indices and x, and writes only y): if reading alone were faster
# than the triad's two reads and a write, 0.9 of the triad would be a low
# bar for SpMV. A benchmark for a quiet machine, not a timed test.
#
# Compiles a small OpenMP probe (cc -O3 -fopenmp, as the library is built:
# no -march) and runs ROUNDS rounds over arrays of 2^25 elements in the
# given precision, alternating in each round: BabelStream's triad
# (a = b + q c: 3 words an element by its model), its dot (sum a b: 2 words
# read) and a three-array read (sum a + b + c: 3 words read). Prints GB/s
# per round with `uptime` before and after, then each kernel's median.
#
# Usage: scripts/read-bandwidth.sh [double|single] [ROUNDS]   (double, 9)
set -euo pipefail
precision=${1:-double}
rounds=${2:-9}
case "$precision" in
  double) real=double ;;
  single) real=float ;;
  *) echo "read-bandwidth: precision is double or single, not '$precision'" >&2; exit 2 ;;
esac
case "$rounds" in '' | *[!0-9]* | 0) echo "read-bandwidth: ROUNDS is a positive integer, not '$rounds'" >&2; exit 2 ;; esac
cc=${CC:-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/probe.c" << 'PROBE'
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#define N (1L << 25)
static double gbs(double words, double t) { return words * N * sizeof(REAL) / t / 1e9; }
int main(int argc, char **argv)
{
    const int rounds = atoi(argv[1]);
    REAL *a = malloc(N * sizeof(REAL)), *b = malloc(N * sizeof(REAL)), *c = malloc(N * sizeof(REAL));
    if (!a || !b || !c) return 2;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; ++i)
        a[i] = 0.1, b[i] = 0.2, c[i] = 0.0;
    for (int r = 0; r <= rounds; ++r) { /* round 0 warms up, unprinted */
        double t0 = omp_get_wtime();
#pragma omp parallel for simd schedule(static)
        for (long i = 0; i < N; ++i)
            a[i] = b[i] + (REAL)0.4 * c[i];
        double t1 = omp_get_wtime();
        REAL dot = 0, sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : dot)
        for (long i = 0; i < N; ++i)
            dot += a[i] * b[i];
        double t2 = omp_get_wtime();
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
        for (long i = 0; i < N; ++i)
            sum += a[i] + b[i] + c[i];
        double t3 = omp_get_wtime();
        if (dot <= 0 || sum <= 0) return 3; /* keeps the sums alive */
        if (r > 0) printf("%d %.2f %.2f %.2f\n", r, gbs(3, t1 - t0), gbs(2, t2 - t1), gbs(3, t3 - t2));
    }
    return 0;
}
PROBE
"$cc" -O3 -fopenmp -DREAL="$real" "$dir/probe.c" -o "$dir/probe"
echo "before: $(uptime)"
"$dir/probe" "$rounds" > "$dir/rounds.txt"
echo "after: $(uptime)"
echo "round triad dot read3 (GB/s, $precision, $(nproc) CPUs, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset})"
cat "$dir/rounds.txt"
for col in 2 3 4; do
  sort -n -k"$col","$col" "$dir/rounds.txt" | awk -v c="$col" '{ v[NR] = $c } END { printf "%s ", v[int((NR + 1) / 2)] }'
done | awk '{ printf "median: triad %s dot %s read3 %s GB/s (dot/triad %.2f, read3/triad %.2f)\n", $1, $2, $3, $2 / $1, $3 / $1 }'
