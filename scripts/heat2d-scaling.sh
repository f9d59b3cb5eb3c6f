#!/usr/bin/env bash
# heat2d-scaling.sh [FLOWBENCH] [OUT] - the heat2d scaling study (the
# lecture's "4 GPUs" study; docs/scaling.md): for each grid size,
# the decomposed heat2d transient on 1, 2, 4 ranks under mpirun (one device
# per rank), and the OpenMP CPU baseline (the same decomposed code in one
# process without mpirun, on every core). Every run checks its field bit
# for bit against one device (flowbench grid exits 1 otherwise).
#
# Writes in OUT (default heat2d-scaling/):
#   results.jsonl   the rank runs' records; baseline.jsonl the baseline's
#   log.txt         every run's table; machine.txt the machine and the load;
#                   loads.txt the 1-minute load average as each run started
#   speedup.csv     per size and rank count: time per iteration and its
#                   split, the exchange share, speedup over one rank and
#                   over the OpenMP CPU baseline
#   speedup-wide.csv, speedup.png   speedup over one rank against ranks,
#                   one line per size, and the ideal line (plots/heat2d-scaling.gp)
#   table.md        speedup.csv as a Markdown table, for the docs
#
# Environment (defaults in brackets):
#   SIZES [64 256 1024 2048]  square grids NxN     RANKS [1 2 4]
#   BACKEND [openmp]       backend of the ranks (cuda, opencl: device =
#                          the rank's number on its host modulo the devices)
#   DECOMP [1d]            1d (row strips) or 2d    REPEATS [3] transients per run
#   RANK_THREADS [1]       OMP_NUM_THREADS per rank (openmp ranks)
#   BASELINE_THREADS [nproc]  threads of the OpenMP CPU baseline
#   MPIEXEC [mpirun]       MPIEXEC_FLAGS [--oversubscribe -x OMP_NUM_THREADS] (Open MPI's)
# As root, Open MPI's OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) are set; its
# single-copy mechanism defaults to none (containers forbid it).
set -uo pipefail
bin=${1:-build/flowbench}
out=${2:-heat2d-scaling}
sizes=${SIZES:-64 256 1024 2048}
ranks=${RANKS:-1 2 4}
backend=${BACKEND:-openmp}
decomp=${DECOMP:-1d}
repeats=${REPEATS:-3}
rank_threads=${RANK_THREADS:-1}
baseline_threads=${BASELINE_THREADS:-$(nproc)}
# shellcheck source=lib/mpi-env.sh
. "$(dirname "$0")/lib/mpi-env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "heat2d-scaling.sh: $*" >&2; exit 2; }
[ -x "$bin" ] || die "$bin is not an executable (build flowbench, or give its path)"
command -v jq > /dev/null || die "jq not found"
command -v "$mpiexec" > /dev/null || die "$mpiexec not found (set MPIEXEC)"
case $decomp in 1d | 2d) ;; *) die "DECOMP '$decomp' is not 1d or 2d (PXxPY fits one rank count only)" ;; esac
for v in $sizes $ranks $repeats; do
  case $v in '' | *[!0-9]* | 0*) die "SIZES, RANKS and REPEATS take positive whole numbers, not '$v'" ;; esac
done

mkdir -p "$out" || die "cannot make $out"
results=$out/results.jsonl baseline=$out/baseline.jsonl log=$out/log.txt
loads=$out/loads.txt
rm -f "$results" "$baseline" "$log" "$loads"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname), $(nproc) logical CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "flowbench: $("$bin" --version)"
  echo "mpi: $("$mpiexec" --version 2>&1 | head -1)"
  echo "study: SIZES='$sizes' RANKS='$ranks' BACKEND=$backend DECOMP=$decomp REPEATS=$repeats"
  echo "       RANK_THREADS=$rank_threads BASELINE_THREADS=$baseline_threads"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

failed=0
# run SIZE RANKS LABEL COMMAND...: appends the table to the log and the load
# at its start to loads.txt (RANKS 0: the baseline); counts a failure
run() {
  local label=$3
  echo "$1 $2 $(cut -d' ' -f1 /proc/loadavg)" >> "$loads"
  shift 3
  printf '%-44s' "$label"
  if "$@" >> "$log" 2>&1; then
    echo "ok"
  else
    echo "FAILED (exit $?, see $log)"
    failed=$((failed + 1))
  fi
}

for n in $sizes; do
  grid=grid:${n}x$n
  common=(grid --family heat2d --grid "$grid" --repeats "$repeats")
  echo "== $grid" >> "$log"
  run "$n" 0 "$grid OpenMP CPU, $baseline_threads threads" \
    env OMP_NUM_THREADS="$baseline_threads" "$bin" "${common[@]}" --backend openmp --decomp 1x1 --out "$baseline"
  for p in $ranks; do
    # shellcheck disable=SC2086
    run "$n" "$p" "$grid $p rank(s), $backend" env OMP_NUM_THREADS="$rank_threads" \
      "$mpiexec" $mpiflags -np "$p" "$bin" "${common[@]}" --backend "$backend" --decomp "$decomp" --out "$results"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"

# ---- the CSV: the latest record of each (size, ranks) ----
jq_sizes=$(printf '%s\n' $sizes | jq -s -c .)
jq_ranks=$(printf '%s\n' $ranks | jq -s -c .)
[ -s "$baseline" ] || echo '{}' > "$baseline"
[ -s "$results" ] || echo '{}' > "$results"
# oversubscribed: openmp ranks x threads beyond the logical CPUs (they share cores)
jq -rs --argjson sizes "$jq_sizes" --argjson ranks "$jq_ranks" --slurpfile base "$baseline" \
  --argjson cores "$(nproc)" --argjson threads "$rank_threads" '
  def latest(f): map(select(.type == "measurement" and .status == "ok" and f)) | last;
  def ms: if . == null then "NaN" else . * 1e3 end;
  def ratio(a; b): if a == null or b == null then "NaN" else a / b end;
  "size,cells,ranks,decomp,backend,wall_ms,compute_ms,edge_copy_ms,halo_ms,allreduce_ms,exchange_share,"
  + "allreduce_share,load_balance,speedup_vs_1_rank,openmp_cpu_ms,speedup_vs_openmp_cpu,oversubscribed",
  (. as $all | $sizes[] as $n | ("grid:\($n)x\($n)") as $g
   | ($base | latest(.grid.spec == $g)) as $cpu
   | ($all | latest(.grid.spec == $g and .params.RANKS == 1)) as $one
   | $ranks[] as $p | ($all | latest(.grid.spec == $g and .params.RANKS == $p)) as $r
   | select($r != null) | $r.per_iteration as $i
   | [$n, $n * $n, $p, "\($r.params.PX)x\($r.params.PY)", $r.backend, ($i.wall_s | ms), ($i.compute_s | ms),
      ($i.edge_copy_s | ms), ($i.halo_s | ms), ($i.allreduce_s | ms), $i.exchange_share,
      ($i.allreduce_s / $i.mean_wall_s), $i.load_balance, ratio($one.per_iteration.wall_s; $i.wall_s),
      ($cpu.per_iteration.wall_s | ms), ratio($cpu.per_iteration.wall_s; $i.wall_s),
      (if $r.backend != "openmp" then "" elif $p * $threads > $cores then 1 else 0 end)] | @csv)
' "$results" | tr -d '"' > "$out/speedup.csv.tmp"
# the load average as the rank run started: a shared machine says how shared it was
awk 'NR == FNR { load[$1 " " $2] = $3; next }
     FNR == 1 { print $0 ",load_at_start"; next }
     { split($0, f, ","); print $0 "," load[f[1] " " f[3]] }' "$loads" "$out/speedup.csv.tmp" > "$out/speedup.csv"
rm -f "$out/speedup.csv.tmp"

# speedup over one rank, one column per size, for the figure
{
  printf 'ranks'; for n in $sizes; do printf ',%sx%s' "$n" "$n"; done; echo
  for p in $ranks; do
    printf '%s' "$p"
    for n in $sizes; do
      v=$(awk -F, -v n="$n" -v p="$p" '$1 == n && $3 == p { print $14 }' "$out/speedup.csv")
      printf ',%s' "${v:-NaN}"
    done
    echo
  done
} > "$out/speedup-wide.csv"

{
  echo "| grid | ranks | blocks | ms per iteration | compute | edge copies | halo | allreduce | exchange share | load balance (max/min compute) | speedup vs 1 rank | OpenMP CPU ms | speedup vs OpenMP CPU | load at start |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$out/speedup.csv" | awk -F, '{
    printf "| %sx%s | %s%s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f%% | %.2f | %.2f | %.3f | %.2f | %s |\n",
      $1, $1, $3, $17 == 1 ? " (shared cores)" : "", $4, $6, $7, $8, $9, $10, 100 * $11, $13, $14, $15, $16, $18 }'
} > "$out/table.md"

note=""
if [ "$backend" = openmp ]; then
  for p in $ranks; do
    [ $((p * rank_threads)) -le "$(nproc)" ] || note=" (ranks beyond $(nproc) share the $(nproc) cores)"
  done
fi
if command -v gnuplot > /dev/null; then
  gnuplot -e "datafile='$out/speedup-wide.csv'; outfile='$out/speedup.png'; \
    plottitle='heat2d (Jacobi) speedup over one rank, $backend ranks, $decomp, $(hostname)$note'" \
    "$here/plots/heat2d-scaling.gp" || { echo "heat2d-scaling.sh: gnuplot failed" >&2; failed=$((failed + 1)); }
else
  echo "heat2d-scaling.sh: gnuplot not found: no figure (the CSVs are written)" >&2
fi
cat "$out/table.md"
echo "written: $out/{results.jsonl,baseline.jsonl,log.txt,machine.txt,speedup.csv,speedup-wide.csv,table.md,speedup.png}"
[ "$failed" -eq 0 ] || { echo "heat2d-scaling.sh: $failed runs failed" >&2; exit 1; }
