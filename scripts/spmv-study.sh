#!/usr/bin/env bash
# spmv-study.sh FLOWBENCH OUT.jsonl BACKEND MATRIX... - every SpMV kernel at
# its default settings, and every peer library that runs on BACKEND, on each
# MATRIX (CSR kernels) and its 4x4-block form (block kernels), in double and
# single precision. Each run measures the stream triad on the same device
# first (the roofline fraction), checks y against the serial reference, and
# appends its record to OUT.jsonl; a failing run is reported and the study
# goes on. The figures of docs/kernels.md come from this script.
# $FB_STUDY_SPMV_OPTS: more options for every run (the test passes
# --no-stream: every kernel in both precisions is what it checks, and on a
# busy machine no triad is stable enough to be stored, so each of the 60-odd
# runs measured its own, several seconds each).
set -uo pipefail
bin=${1:?usage: spmv-study.sh FLOWBENCH OUT.jsonl BACKEND MATRIX...}
out=${2:?usage}; backend=${3:?usage}; shift 3
[ $# -gt 0 ] || { echo "spmv-study.sh: no matrix given" >&2; exit 2; }

# Kernels and the peers of this backend, from the binary itself.
mapfile -t kernels < <("$bin" spmv --list | awk '/^[a-z]/ && !/^peer:/ && $1 != "auto" && $1 != "family" {print $1}')
mapfile -t peers < <("$bin" spmv --list | awk -v b="on the ${backend%%:*} backend" '/^peer:/ && index($0, b) {print $1}')
# a kernel or peer that runs in double only (csr16-mixed, PETSc's real build) is not run in single
mapfile -t double_only < <("$bin" spmv --list | awk '/double precision only/ {print $1}')
only_double() { local d; for d in "${double_only[@]}"; do [ "$d" = "$1" ] && return 0; done; return 1; }
is_block() { case $1 in bcsr*|*-bsr) return 0 ;; *) return 1 ;; esac; }

failed=0
for m in "$@"; do
  for p in double single; do
    for k in "${kernels[@]}" "${peers[@]}"; do
      src=$m; is_block "$k" && src=$m:block=4
      if [ "$p" = single ] && only_double "$k"; then
        printf '%-18s %-22s %-6s %s\n' "$k" "$src" "$p" "skipped: double precision only"
        continue
      fi
      # shellcheck disable=SC2086 # the options are words
      line=$("$bin" spmv --matrix "$src" --backend "$backend" --kernel "$k" --precision "$p" --out "$out" \
               ${FB_STUDY_SPMV_OPTS:-} 2>&1 |
             grep -E 'GFLOP/s|flowbench:' | sed 's/^ *//')
      printf '%-18s %-22s %-6s %s\n' "$k" "$src" "$p" "$line"
      case $line in *GFLOP/s*) ;; *) failed=$((failed + 1)) ;; esac
    done
  done
done
[ $failed -eq 0 ] || { echo "spmv-study.sh: $failed runs failed" >&2; exit 1; }
