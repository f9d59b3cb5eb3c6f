#!/usr/bin/env bash
# cpu-baseline.sh - is flowbench's OpenMP SpMV an honest baseline? Its CSR
# kernels beside the CPU peers (PETSc's MatMult, GraphBLAS's GrB_mxv) and
# the stream triad of the same run, on a DRAM-sized matrix, in both
# precisions (issue 39's targets: flowbench's best at least the best peer,
# and at least 0.9 of the triad). A benchmark, not a timed test: run it on
# a quiet machine; it records `uptime` before and after.
#
# Usage: scripts/cpu-baseline.sh [FLOWBENCH] [OUT] [MATRIX] [ROUNDS]
#   defaults: build/flowbench results/cpu-baseline gen:cube:100 3
# Each round runs the triad and every kernel and peer once, alternating, so
# a change of the machine's state lands on all of them; the table takes
# each one's median over the rounds. Writes OUT/summary.md and keeps the
# records (OUT/spmv.jsonl, OUT/stream.jsonl). Exit 2 when something failed.
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/cpu-baseline}
matrix=${3:-gen:cube:100}
rounds=${4:-3}
die() { echo "cpu-baseline: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build first, or pass its path)"
command -v jq > /dev/null || die "jq is needed (scripts/setup.sh installs it)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.jsonl "$out/summary.md"
kernels=(csr-scalar csr-vector csr-multirow csr-merge sell)
peers=()
for p in peer:petsc peer:graphblas; do
  "$bin" spmv --list | grep -Eq "^$p .*on the openmp backend(, double precision only)?$" && peers+=("$p")
done
echo "before: $(uptime)" > "$out/uptime.txt"
for r in $(seq 1 "$rounds"); do
  for prec in double single; do
    echo "round $r/$rounds, $prec" >&2
    "$bin" stream --backend openmp --precision "$prec" --out "$out/stream.jsonl" > /dev/null 2>> "$out/err.txt" ||
      die "stream failed: see $out/err.txt"
    for k in "${kernels[@]}" "${peers[@]}"; do
      [ "$prec" = single ] && "$bin" spmv --list | grep -q "^$k .*double precision only" && continue
      "$bin" spmv --matrix "$matrix" --kernel "$k" --precision "$prec" --no-stream --budget 1 \
        --out "$out/spmv.jsonl" > /dev/null 2>> "$out/err.txt" || die "spmv $k $prec failed: see $out/err.txt"
    done
  done
done
echo "after: $(uptime)" >> "$out/uptime.txt"

# median over the rounds of each kernel's GB/s, and of the triad, per precision
jq -s -r --arg m "$matrix" '
  def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  [.[] | select(.type == "measurement" and .status == "ok")] | group_by(.precision) | .[] |
  "\(.[0].precision) \(group_by(.kernel) | map({k: .[0].kernel, g: (map(.gbs) | med),
     q: (map(.stats.quality) | unique | join("/"))}) | map("\(.k)=\(.g)=\(.q)") | join(" "))"' \
  "$out/spmv.jsonl" > "$out/spmv.txt"
jq -s -r '[.[] | select(.type == "measurement" and .kernel == "triad")] | group_by(.precision) | .[] |
  "\(.[0].precision) \(map(.gbs) | sort | .[length / 2 | floor])"' "$out/stream.jsonl" > "$out/triad.txt"
{
  echo "# CPU baseline: flowbench's OpenMP SpMV beside PETSc and GraphBLAS"
  echo
  echo "$matrix, $rounds rounds alternating, openmp ($(jq -r 'select(.type == "header") | "\(.host.cpu), \(.host.logical_cpus) logical CPUs, \(.host.omp_threads) OpenMP threads"' "$out/spmv.jsonl" | head -1))."
  echo "Machine: $(head -1 "$out/uptime.txt"); $(tail -1 "$out/uptime.txt")."
  echo
  echo "| precision | kernel | GB/s (median of rounds) | of triad | quality |"
  echo "|---|---|---:|---:|---|"
  while read -r prec rest; do
    triad=$(awk -v p="$prec" '$1 == p {print $2}' "$out/triad.txt")
    for kv in $rest; do
      IFS== read -r k g q <<< "$kv"
      printf '| %s | %s | %.2f | %.2f | %s |\n' "$prec" "$k" "$g" "$(echo "$g / $triad" | bc -l)" "$q"
    done
    printf '| %s | stream triad | %.2f | 1.00 | |\n' "$prec" "$triad"
  done < "$out/spmv.txt"
} > "$out/summary.md"
cat "$out/summary.md"
