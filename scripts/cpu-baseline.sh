#!/usr/bin/env bash
# cpu-baseline.sh - is flowbench's OpenMP SpMV an honest baseline? Its CSR
# kernels beside the CPU peers (PETSc's MatMult, GraphBLAS's GrB_mxv) and
# the stream triad of the same run, on a DRAM-sized matrix, in both
# precisions (issue 39's targets: flowbench's best at least the best peer,
# and at least 0.9 of the triad). A benchmark, not a timed test: run it on
# a quiet machine; it records `uptime` before and after.
#
# Usage: scripts/cpu-baseline.sh [FLOWBENCH] [OUT] [MATRICES] [ROUNDS]
#   defaults: build/flowbench results/cpu-baseline gen:cube:100 3
#   env: RANKS [nproc]: PETSc's MatMult is also run as its users run it on
#        a node, under MPIEXEC [mpirun] (MPIEXEC_FLAGS [--oversubscribe -x
#        OMP_NUM_THREADS]) with RANKS ranks of one thread, shown as
#        peer:petsc@RANKSranks (RANKS=1 or no launcher: not run). As root,
#        Open MPI's OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) are set.
# MATRICES is one matrix or several, comma-separated, each run in every
# round: `gen:cube:100,gen:cube:40` puts the DRAM-sized matrix beside one
# that lives in the last-level cache (64k rows, 12 MB in double), whose
# GFLOP/s says how fast the kernel's loop runs when memory is not what
# holds it back (the GFLOP/s column).
# Each round runs the triad and every kernel and peer once, alternating, so
# a change of the machine's state lands on all of them; the table takes
# each one's median over the rounds. Writes OUT/summary.md and keeps the
# records (OUT/spmv.jsonl, OUT/stream.jsonl). Exit 2 when something failed.
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-results/cpu-baseline}
IFS=, read -r -a matrices <<< "${3:-gen:cube:100}"
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
# PETSc as its users run it on a node: one MPI rank a core (no threads in
# Debian's build), recorded as peer:petsc@Pranks
nranks=${RANKS:-$(nproc)}
# shellcheck source=lib/mpi-env.sh
. "$(dirname "$0")/lib/mpi-env.sh"
case $nranks in '' | *[!0-9]*) die "RANKS takes a whole number, not '$nranks'" ;; esac
petsc_ranks=0
if [ "$nranks" -gt 1 ] && [[ " ${peers[*]} " == *" peer:petsc "* ]] && command -v "$mpiexec" > /dev/null; then
  petsc_ranks=$nranks
fi
echo "before: $(uptime)" > "$out/uptime.txt"
for r in $(seq 1 "$rounds"); do
  for prec in double single; do
    echo "round $r/$rounds, $prec" >&2
    "$bin" stream --backend openmp --precision "$prec" --out "$out/stream.jsonl" > /dev/null 2>> "$out/err.txt" ||
      die "stream failed: see $out/err.txt"
    for matrix in "${matrices[@]}"; do
      for k in "${kernels[@]}" "${peers[@]}"; do
        [ "$prec" = single ] && "$bin" spmv --list | grep -q "^$k .*double precision only" && continue
        "$bin" spmv --matrix "$matrix" --kernel "$k" --precision "$prec" --no-stream --budget 1 \
          --out "$out/spmv.jsonl" > /dev/null 2>> "$out/err.txt" || die "spmv $k $prec $matrix failed: see $out/err.txt"
      done
      if [ "$prec" = double ] && [ "$petsc_ranks" -gt 1 ]; then
        # shellcheck disable=SC2086 # MPIEXEC_FLAGS is a list of flags
        OMP_NUM_THREADS=1 "$mpiexec" -np "$petsc_ranks" $mpiflags "$bin" spmv --matrix "$matrix" --kernel peer:petsc \
          --no-stream --budget 1 --out "$out/spmv.jsonl" > /dev/null 2>> "$out/err.txt" ||
          die "spmv peer:petsc on $petsc_ranks ranks, $matrix failed: see $out/err.txt"
      fi
    done
  done
done
echo "after: $(uptime)" >> "$out/uptime.txt"

# median over the rounds of each kernel's GB/s, and of the triad, per precision
jq -s -r '
  def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def kname: .kernel + (if .mpi then "@\(.mpi.ranks)ranks" else "" end);
  [.[] | select(.type == "measurement" and .status == "ok")] | group_by([.precision, .matrix.name]) | .[] |
  "\(.[0].precision) \(.[0].matrix.name) \(group_by(kname) | map({k: (.[0] | kname), g: (map(.gbs) | med), f: (map(.gflops) | med),
     q: (map(.stats.quality) | unique | join("/"))}) | map("\(.k)=\(.g)=\(.f)=\(.q)") | join(" "))"' \
  "$out/spmv.jsonl" > "$out/spmv.txt"
jq -s -r '[.[] | select(.type == "measurement" and .kernel == "triad")] | group_by(.precision) | .[] |
  "\(.[0].precision) \(map(.gbs) | sort | .[length / 2 | floor])"' "$out/stream.jsonl" > "$out/triad.txt"
{
  echo "# CPU baseline: flowbench's OpenMP SpMV beside PETSc and GraphBLAS"
  echo
  echo "${matrices[*]}, $rounds rounds alternating, openmp ($(jq -r 'select(.type == "header") | "\(.host.cpu), \(.host.logical_cpus) logical CPUs, \(.host.omp_threads) OpenMP threads"' "$out/spmv.jsonl" | head -1))."
  echo "Machine: $(head -1 "$out/uptime.txt"); $(tail -1 "$out/uptime.txt")."
  echo
  echo "| precision | matrix | kernel | GB/s (median of rounds) | of triad | GFLOP/s | quality |"
  echo "|---|---|---|---:|---:|---:|---|"
  shown=
  while read -r prec matrix rest; do
    triad=$(awk -v p="$prec" '$1 == p {print $2}' "$out/triad.txt")
    [ "$shown" = "$prec" ] || printf '| %s | | stream triad | %.2f | 1.00 | | |\n' "$prec" "$triad"
    shown=$prec
    for kv in $rest; do
      IFS='=' read -r k g f q <<< "$kv"
      printf '| %s | %s | %s | %.2f | %.2f | %.3f | %s |\n' "$prec" "$matrix" "$k" "$g" \
        "$(echo "$g / $triad" | bc -l)" "$f" "$q"
    done
  done < "$out/spmv.txt"
  echo
  echo "Per round: each kernel's GB/s over the triad of its own round (this VM's"
  echo "bandwidth moves from minute to minute, so a ratio of two medians can pair"
  echo "a fast triad with a slow SpMV), the rounds' ratios and their median:"
  echo
  echo "| precision | matrix | kernel | per-round fractions of the triad | median |"
  echo "|---|---|---|---|---:|"
  # the n-th run of a kernel belongs to the n-th round, as does the n-th triad of its precision
  jq -s -r --slurpfile s "$out/stream.jsonl" '
    def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    ($s | map(select(.type == "measurement" and .kernel == "triad")) | group_by(.precision)
        | map({key: .[0].precision, value: map(.gbs)}) | from_entries) as $triad |
    def kname: .kernel + (if .mpi then "@\(.mpi.ranks)ranks" else "" end);
    [.[] | select(.type == "measurement" and .status == "ok")] | group_by([.precision, .matrix.name, kname]) | .[] |
    . as $runs | [range(0; length) | $runs[.].gbs / $triad[$runs[0].precision][.]] as $f |
    "| \(.[0].precision) | \(.[0].matrix.name) | \(.[0] | kname) | \($f | map(. * 100 | round / 100 | tostring) | join(", ")) | \($f | med * 100 | round / 100) |"' \
    "$out/spmv.jsonl"
} > "$out/summary.md"
cat "$out/summary.md"
