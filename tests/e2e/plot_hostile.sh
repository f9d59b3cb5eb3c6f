#!/usr/bin/env bash
# plot_hostile.sh FLOWBENCH SOURCE_DIR WORKDIR - no text of a results file
# reaches a shell or gnuplot's command substitution: a results file whose
# host name, device name, kernel, matrix, case and parameter names each
# carry a gnuplot backtick command, a shell $(...), an @ macro and attempts
# to close gnuplot's and the shell's quotes is plotted, and its replot.sh
# run; each payload would create a marker file in WORKDIR/markers. The
# figures must be drawn and no marker may exist.
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"
mkdir -p "$dir/markers"
fail() { echo "FAIL: $*"; exit 1; }
m=$dir/markers

# Every way into a command the field has: backticks (gnuplot expands them
# in double-quoted strings and on plain command lines), $(...) (a shell),
# @macro (gnuplot's macros), and quote breaks for gnuplot's ", ' and the
# shell's '.
payload() {
  local tag=$1
  printf '%s' "$tag\`touch $m/backtick-$tag\`\$(touch $m/shell-$tag)"
  printf '%s' "@fbm;m=\"system('touch $m/macro-$tag')\"; @m;"
  printf '%s' "\"; system(\"touch $m/dq-$tag\"); x=\""
  printf '%s' "'; system('touch $m/sq-$tag'); x='"
  printf '%s' "'\\''\$(touch $m/shq-$tag)'"
}
# Parameter names become axis labels and must stay short enough to keep.
short() { printf '%s' "$1\`touch $m/backtick-$1\`\$(touch $m/shell-$1)@m"; }
host=$(payload host); cpu=$(payload cpu); gpu=$(payload gpu); kernel=$(payload kernel)
matrix=$(payload matrix); case_=$(payload case); px=$(short px); py=$(short py)

header() {
  jq -cn --arg host "$host" --arg cpu "$cpu" --arg gpu "$gpu" '{type: "header", schema: 1, run_id: "hostile-1",
    date: "2026-11-22T00:00:00Z", command: "constructed-test-data",
    host: {hostname: $host, cpu: $cpu, logical_cpus: 2, omp_threads: 2},
    build: {flowbench_version: "0.1.0"},
    devices: [{backend: "openmp", id: "openmp:0", name: $cpu}, {backend: "opencl", id: "opencl:0.0", name: $gpu}]}'
}
# record BENCHMARK KERNEL BACKEND DEVICE NAME MATRIX X Y MEDIAN_S
record() {
  jq -cn --arg b "$1" --arg k "$2" --arg be "$3" --arg d "$4" --arg dn "$5" --arg mx "$6" --arg case "$case_" \
    --arg px "$px" --arg py "$py" --argjson x "$7" --argjson y "$8" --argjson t "$9" '{type: "measurement",
    schema: 1, run_id: "hostile-1", benchmark: $b, kernel: $k, backend: $be, device: $d, device_name: $dn,
    precision: "double", params: ({($px): $x, ($py): $y, n: 1000000}), status: "ok",
    stats: {samples_s: [$t, ($t * 1.05), ($t * 0.97)], n: 3, median_s: $t, min_s: ($t * 0.97),
            max_s: ($t * 1.05)},
    bytes: 24e6, gbs: (24e6 / $t / 1e9), flops: 2e6, gflops: (2e6 / $t / 1e9)}
    + (if $mx == "" then {} else {matrix: {name: $mx, hash: $mx}, suite: "hostile", case: $case} end)'
}

results=$dir/hostile.jsonl
{
  header
  for dev in "openmp openmp:0 cpu" "opencl opencl:0.0 gpu"; do
    read -r be id who <<< "$dev"
    name=$cpu; [ "$who" = gpu ] && name=$gpu
    record stream "$kernel" "$be" "$id" "$name" "" 1 1 0.001
    record stream triad "$be" "$id" "$name" "" 1 1 0.0012
    for x in 1 2 3; do
      for y in 1 2; do
        record spmv "$kernel" "$be" "$id" "$name" "$matrix" "$x" "$y" "0.00$x$y"
        record spmv other "$be" "$id" "$name" "$matrix" "$x" "$y" "0.00$y$x"
        record spmv other "$be" "$id" "$name" second "$x" "$y" "0.00$y$x"
        record spmv "$kernel" "$be" "$id" "$name" second "$x" "$y" "0.00$x$y"
      done
    done
  done
} > "$results"

cd "$dir"
"$bin" plot "$results" --out "$dir/figs" --scripts "$src/plots" > "$dir/plot.txt" 2>&1 ||
  { cat "$dir/plot.txt"; fail "plot failed on the hostile file"; }
cat "$dir/plot.txt"
[ -z "$(ls -A "$m")" ] || fail "plot ran a command from the results file: $(ls "$m")"
for kind in stream speedup heatmap variants roofline profile; do
  ls "$dir/figs/$kind"-*.png > /dev/null 2>&1 || fail "no $kind figure drawn"
done

rm "$dir"/figs/*.png "$dir"/figs/*.svg
sh "$dir/figs/replot.sh" > "$dir/replot.txt" 2>&1 || { cat "$dir/replot.txt"; fail "replot.sh failed"; }
[ -z "$(ls -A "$m")" ] || fail "replot.sh ran a command from the results file: $(ls "$m")"
ls "$dir"/figs/variants-*.png > /dev/null 2>&1 || fail "replot.sh drew nothing"
echo "ok"
