#!/usr/bin/env bash
# plots.sh FLOWBENCH SOURCE_DIR WORKDIR - `flowbench plot`, `export` and
# `report` end to end:
#  1. on the constructed sweep file (tests/data/results, test data): every
#     plot type is drawn, as a valid PNG and a well-formed SVG, and the
#     sweep too sparse for a heat map is skipped rather than drawn. Each
#     series label has one colour in every figure (NAME.vars), and the
#     series of one figure have different colours;
#  1a. a run shaped like the standard suite (both precisions, two cases
#     sweeping the same kernel and matrix): each name says its precision
#     and case, none is told apart by a number;
#  1b. replot.sh names no absolute path and redraws every figure in a
#     copy of the folder moved elsewhere (with its scripts/);
#  1c. records that are unstable or contended beside stable ones: a
#     speedup or variants bar resting on one is no solid bar (its own
#     column, drawn hatched), a fraction-of-triad bar of one stands in a
#     marked row, drawn hatched;
#  2. on a real stream run: the stream bars (and, with OpenCL, speedup bars
#     over OpenMP) are drawn, and the types without data say so in one line;
#  3. replot.sh redraws the figures from the tables alone;
#  4. on the committed H100 reference run: the same GPU through cuda and
#     opencl gets a figure each, and every device with a baseline gets a
#     speedup (two bugs once hid them); its names and the grid-cpu
#     reference's pass the test of 1a, its colours that of 1 (it has more
#     series labels than the palette has colours);
#  5. on a real grid-quick sweep: time per cell by work-group shape (heat2d,
#     row- and column-major side by side) and by cell layout (fv-surface).
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }

valid_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
valid_svg() {
  if command -v xmllint > /dev/null; then xmllint --noout "$1"; else grep -q '</svg>' "$1"; fi &&
    grep -q '<svg' "$1"
}
check_names() { # DIR: every figure's name says its precision, and none is another's with a number added
  local d=$1 n
  for f in "$d"/*.png; do
    n=$(basename "$f" .png)
    case $n in *-double*|*-single*) ;; *) fail "$f: no precision in the name" ;; esac
    if [[ $n =~ ^(.*)-[0-9]+$ ]] && [ -e "$d/${BASH_REMATCH[1]}.png" ]; then
      fail "$f: told apart from ${BASH_REMATCH[1]}.png by a number, not by what differs"
    fi
  done
}
series_of() { # TABLE: the series labels of a figure's table, one a line, in column order
  if head -1 "$1" | grep -q '^ratio,'; then
    sed -n 's/^ratio,//p' "$1"
  elif head -1 "$1" | grep -q ' gflops$'; then # a roofline: each kernel's intensity and GFLOP/s
    head -1 "$1" | tr ',' '\n' | tail -n +2 | awk 'NR % 2 == 1'
  elif head -1 "$1" | grep -q ' lo,'; then # untrusted columns after the triples: the series again, hatched
    head -1 "$1" | tr ',' '\n' | tail -n +2 | awk 'NR % 3 == 1' | grep -v ' (unstable or contended)$'
  else # a speedup's untrusted columns are its devices' again, drawn hatched in their colours
    head -1 "$1" | tr ',' '\n' | tail -n +2 | grep -v ' (unstable or contended)$'
  fi
}
check_colours() { # DIR: a label has one colour in all figures, and the series of a figure differ
  local d=$1 vars label colour
  declare -A seen=()
  for vars in "$d"/*.vars; do
    grep -q '^colours = ' "$vars" || continue
    local colours=($(sed -n "s/^colours = '\(.*\)'$/\1/p" "$vars")) i=0
    [ "$(printf '%s\n' "${colours[@]}" | sort | uniq -d)" = "" ] || fail "$vars: two series share a colour"
    while IFS= read -r label; do
      colour=${colours[$i]:-}; i=$((i + 1))
      [ -n "$colour" ] || fail "$vars: no colour for $label"
      [ "${seen[$label]:-$colour}" = "$colour" ] || fail "$label is ${seen[$label]} in one figure, $colour in $vars"
      seen[$label]=$colour
    done < <(series_of "${vars%.vars}.csv")
    [ "$i" -eq "${#colours[@]}" ] || fail "$vars: $i series, ${#colours[@]} colours"
  done
  [ "${#seen[@]}" -gt 0 ] || fail "$d: no series colours at all"
}
check_figures() { # DIR KIND...: at least one valid PNG and SVG per kind, and nothing else broken
  local d=$1; shift
  for kind in "$@"; do
    ls "$d/$kind"-*.png > /dev/null 2>&1 || fail "$d: no $kind figure"
  done
  for f in "$d"/*.png; do valid_png "$f" || fail "$f is not a PNG"; done
  for f in "$d"/*.svg; do valid_svg "$f" || fail "$f is not a well-formed SVG"; done
}

echo "== 1. constructed sweep (test data)"
"$bin" plot "$src/tests/data/results/constructed-sweep.jsonl" --out "$dir/constructed" --scripts "$src/plots" \
  | tee "$dir/constructed.txt"
check_figures "$dir/constructed" stream speedup heatmap blockshape variants fraction profile
check_colours "$dir/constructed"
! ls "$dir"/constructed/heatmap-heat-jacobi-* > /dev/null 2>&1 || fail "3 block shapes on a 3 x 3 grid drawn as a heat map"
grep -q 'WORKGROUP_SIZE_BITS' "$dir"/constructed/heatmap-csr-multirow-opencl-0.0-double-ahmed.csv || fail "heat map axes"
grep -q ',0$' "$dir"/constructed/heatmap-csr-multirow-opencl-0.0-double-ahmed.csv &&
  ! grep -q ',1$' "$dir"/constructed/heatmap-csr-multirow-opencl-0.0-double-ahmed.csv || fail "stable cells marked untrusted"
# the same sweep with csr-multirow's records contended: each cell says so
# (its last column), the vars count them, and gnuplot draws it silently
jq -c 'if .kernel == "csr-multirow" then .stats.quality = "contended" | .stats.quality_why = "constructed" else . end' \
  "$src/tests/data/results/constructed-sweep.jsonl" > "$dir/contended-sweep.jsonl"
"$bin" plot "$dir/contended-sweep.jsonl" --out "$dir/contended" --scripts "$src/plots" > /dev/null 2> "$dir/contended.err"
[ ! -s "$dir/contended.err" ] || fail "gnuplot said something on stderr: $(head -3 "$dir/contended.err")"
heat="$dir/contended/heatmap-csr-multirow-opencl-0.0-double-ahmed"
[ "$(grep -c ',1$' "$heat.csv")" = 15 ] && ! grep -q ',0$' "$heat.csv" || fail "contended heat map cells: $(cat "$heat.csv")"
grep -qx 'untrusted = 15' "$heat.vars" || fail "the heat map's vars do not count the contended cells"

echo "== 1a. names of a standard-suite-like run: precision and case, no numbers"
"$bin" plot "$src/tests/data/results/constructed-standard.jsonl" --out "$dir/standard" --scripts "$src/plots" \
  > "$dir/standard.txt"
check_figures "$dir/standard" stream speedup heatmap blockshape variants fraction profile
check_names "$dir/standard"
for prec in double single; do
  for case_ in csr occupancy; do
    [ -e "$dir/standard/heatmap-csr-multirow-opencl-0.0-$prec-general-$case_.png" ] || fail "no $prec $case_ heat map"
  done
done

echo "== 1b. replot.sh in a moved copy of the folder"
# No absolute path (the shebang aside): the scripts it runs are the copies
# in scripts/ beside it.
! tail -n +2 "$dir/constructed/replot.sh" | grep -nE "(^|[ '\"=:])/" || fail "replot.sh names an absolute path"
! grep -qF "$src" "$dir/constructed/replot.sh" || fail "replot.sh names the source tree"
# (and the file those load beside them: whisker-bars.gp)
used=$(grep -o '"$scripts/[a-z]*.gp"' "$dir/constructed/replot.sh" | sort -u | wc -l)
loaded=$(grep -ho "^load here\.'/[a-z-]*\.gp'" "$dir"/constructed/scripts/*.gp | sort -u | wc -l)
[ "$(ls "$dir"/constructed/scripts/*.gp | wc -l)" -eq "$((used + loaded))" ] ||
  fail "scripts/ does not hold the scripts replot.sh runs"
cp -r "$dir/constructed" "$dir/moved"
rm "$dir"/moved/*.png "$dir"/moved/*.svg
(cd / && sh "$dir/moved/replot.sh") > "$dir/moved.txt" 2>&1 || { cat "$dir/moved.txt"; fail "replot.sh failed in a moved folder"; }
check_figures "$dir/moved" stream speedup heatmap blockshape variants fraction profile
[ "$(ls "$dir"/moved/*.png | wc -l)" -eq "$(ls "$dir"/constructed/*.png | wc -l)" ] || fail "replot.sh redrew fewer figures"

echo "== 1c. unstable and contended records: hatched speedup bars, marked fraction-of-triad rows"
"$bin" plot "$src/tests/data/results/constructed-quality.jsonl" --out "$dir/quality" --scripts "$src/plots" \
  > "$dir/quality.txt"
check_figures "$dir/quality" speedup fraction
check_colours "$dir/quality"
gpu='opencl:0.0 Constructed GPU (constructed test data)'
[ "$(cat "$dir/quality/speedup-spmv-double.csv")" = "label,$gpu,$gpu (unstable or contended)
cavity-L1,14.2582,NaN
cavity-L2,NaN,14.2649
ahmed,NaN,14.2919" ] || fail "speedup table of unstable and contended records: $(cat "$dir/quality/speedup-spmv-double.csv")"
grep -qx 'flagged = 2' "$dir/quality/speedup-spmv-double.vars" || fail "speedup vars lack flagged = 2"
grep -q '^cavity-l1,NaN,16$' "$dir/quality/speedup-solve-double.csv" || fail "the contended solver run's bar is solid"
grep -qx 'flagged = 0' "$dir/quality/speedup-stream-double-n10000000.vars" || fail "stable stream speedups flagged"
[ "$(head -1 "$dir/quality/speedup-stream-double-n10000000.csv")" = "label,$gpu" ] ||
  fail "a speedup table with no untrusted cell changed its columns"
grep -q '^cavity-L2 (unstable),' "$dir/quality/fraction-spmv-opencl-0.0-double.csv" || fail "fraction: unstable row"
grep -q '^ahmed (contended),' "$dir/quality/fraction-spmv-openmp-0-double.csv" || fail "fraction: contended row"
grep -q '^cavity-L2,' "$dir/quality/fraction-spmv-openmp-0-double.csv" || fail "fraction: a stable row got marked"
# a bar with whiskers resting on an unstable record: its value in the
# series's second column, after the triples, and drawn hatched; the
# fraction figure's marked rows are hatched too (gnuplot's SVG fills a
# hatched box with a pattern: the bar and the key entry)
[ "$(head -3 "$dir/quality/variants-spmv-opencl-0.0-double.csv")" = "label,csr-scalar,csr-scalar lo,csr-scalar hi,\
csr-scalar (unstable or contended)
cavity-L1,59.2322,58.5869,60.3527,NaN
cavity-L2,NaN,4.25356,59.5498,59.5498" ] ||
  fail "variants table of an unstable record: $(head -3 "$dir/quality/variants-spmv-opencl-0.0-double.csv")"
grep -qx 'flagged = 1' "$dir/quality/variants-spmv-opencl-0.0-double.vars" || fail "variants vars lack flagged = 1"
for fig in variants-spmv-opencl-0.0-double fraction-spmv-openmp-0-double; do
  [ "$(grep -o 'url(#gpPat' "$dir/quality/$fig.svg" | wc -l)" -ge 2 ] || fail "$fig: the untrusted bar is not hatched"
done
# a long title is written in lines (titlepart1, titlepart2, ...): read it whole
sed -n "s/^titlepart[0-9]* = '\(.*\)'$/\1/p" "$dir/quality/fraction-spmv-opencl-0.0-double.vars" | tr '\n' ' ' |
  grep -q "unstable or contended: not a figure to trust" || fail "the fraction figure's title does not say what the mark means"
grep -q "unstable or contended (not a figure to trust)" "$src/plots/speedup.gp" || fail "speedup.gp has no key entry"

echo "== 2. real stream run"
"$bin" stream --size 100000 --max-samples 10 --budget 0.5 --out "$dir/real.jsonl" > /dev/null
"$bin" plot "$dir/real.jsonl" --out "$dir/real" --scripts "$src/plots" | tee "$dir/real.txt"
check_figures "$dir/real" stream
grep -q '^heat map: no sweep records with two swept parameters$' "$dir/real.txt" || fail "no line for the missing heat map"
if [ "$(head -1 "$dir/real.jsonl" | jq '[.devices[].backend] | index("opencl") != null')" = true ]; then
  check_figures "$dir/real" speedup
fi
"$bin" export "$dir/real.jsonl" --csv --out "$dir/real.csv"
[ "$(wc -l < "$dir/real.csv")" -eq "$(( $(grep -c '"type":"measurement"' "$dir/real.jsonl") + 1 ))" ] ||
  fail "export: one row per measurement plus the header row"
"$bin" report "$dir/real.jsonl" --plots "$dir/real" --out "$dir/real/report.md"
grep -q '^## Stream bandwidth' "$dir/real/report.md" || fail "report: no stream section"
grep -q '](stream-' "$dir/real/report.md" || fail "report: no link to the stream figure"

echo "== 3. replot.sh from the tables alone"
rm "$dir"/real/*.png "$dir"/real/*.svg
sh "$dir/real/replot.sh"
check_figures "$dir/real" stream
echo "== 4. H100 reference run"
ref=$(ls "$src"/results/reference/h100-*/results.jsonl | head -n 1)
"$bin" plot "$ref" --out "$dir/h100" --scripts "$src/plots" > "$dir/h100.txt" 2> "$dir/h100.err"
check_figures "$dir/h100" variants fraction roofline speedup heatmap
# every figure of the fixed inputs drawn without a word from gnuplot (its
# warnings, "difficulty making room for xtic labels", once leaked here)
"$bin" plot "$src/tests/data/run" --out "$dir/run-figures" --scripts "$src/plots" > /dev/null 2> "$dir/run.err"
for err in "$dir/h100.err" "$dir/run.err"; do
  [ ! -s "$err" ] || fail "gnuplot said something on stderr: $(head -3 "$err")"
done
# a roofline of more problems than gnuplot has shapes: past the twelve
# shapes each problem is a letter, in the key and at its points, silently
awk 'BEGIN { print "label,k1,k1 gflops"; for (r = 1; r <= 17; r++) printf "p%d,%g,%g\n", r, 0.1 * r, 0.2 * r }' \
  > "$dir/many.csv"
gnuplot -e "datafile='$dir/many.csv'; outfile='$dir/many.png'; triad=20; peak=500; nrows=17" \
  "$src/plots/roofline.gp" > "$dir/many.err" 2>&1 && [ -s "$dir/many.png" ] && [ ! -s "$dir/many.err" ] ||
  fail "a roofline of 17 problems: $(head -3 "$dir/many.err")"
[ "$(gnuplot -e "nrows=17; datafile='$dir/many.csv'; outfile='/dev/null'; load '$src/plots/roofline.gp'; \
      print sprintf('%d %s%s', ptype(12), letter(13), letter(17))" 2>&1)" = "3 AE" ] || fail "the roofline's marks past 12 problems"
# each problem's points carry its own mark: drawn as SVG, the first
# problem's shape (pt 5, gnuplot's gpPt4) is used twice (its key entry and
# its point) and the letters stop at E (problems 13-17); a header line
# counted as a row once gave each point the next problem's mark
gnuplot -e "term='svg'; datafile='$dir/many.csv'; outfile='$dir/many.svg'; triad=20; peak=500; nrows=17" \
  "$src/plots/roofline.gp"
[ "$(grep -c "href='#gpPt4'" "$dir/many.svg")" = 2 ] && grep -q '<text>E</text>' "$dir/many.svg" &&
  ! grep -q '<text>F</text>' "$dir/many.svg" ||
  fail "the roofline's points do not carry their own problem's mark"
# the roofline's names never overlap: a name is left out where it would
# cover another's (labely nan); the key, under the graph, names every colour
grep -q "^labely = '.*nan" "$dir/h100/roofline-cuda-0-double.vars" ||
  fail "the H100 roofline labels every kernel's best point though they sit on one spot"
for d in cuda-0 opencl-0.0; do
  [ -e "$dir/h100/variants-spmv-$d-double.png" ] || fail "no variants figure for $d"
done
grep -q '^gen:cube:57,[0-9.]*,[0-9.]*$' "$dir/h100/speedup-spmv-double.csv" || fail "speedup lost a device on gen:cube:57"
check_names "$dir/h100"
check_colours "$dir/h100" # more labels than the palette has colours
grid=$(ls "$src"/results/reference/grid-cpu-*/results.jsonl | head -n 1)
"$bin" plot "$grid" --out "$dir/grid-ref" --scripts "$src/plots" > "$dir/grid-ref.txt"
check_names "$dir/grid-ref" # two cases sweep the same kernels on 64x64x64

echo "== 5. grid families: time per cell by shape and by layout"
# the whole quick grid suite on openmp, every configuration checked (the CLI
# table's case for it moved here: one sweep of it serves both)
"$bin" sweep "$src/cases/grid-quick.suite" --backend openmp --out "$dir/grid.jsonl" > "$dir/grid-sweep.txt" 2>&1 ||
  fail "the grid-quick sweep exited $?: $(tail -3 "$dir/grid-sweep.txt")"
grep -q '61 configurations: 61 ok, 0 wrong result, 0 failed' "$dir/grid-sweep.txt" ||
  fail "the grid-quick sweep: $(grep configurations "$dir/grid-sweep.txt")"
"$bin" plot "$dir/grid.jsonl" --out "$dir/grid" --scripts "$src/plots" > "$dir/grid.txt"
check_figures "$dir/grid" percell blockshape
heat=$(ls "$dir"/grid/percell-heat2d-openmp-0-double-101x101.csv) || fail "no heat2d percell table for 101x101"
# Each series is three columns: the value and its whiskers.
head -1 "$heat" | grep -q '^label,heat-jacobi row-major,heat-jacobi row-major lo,heat-jacobi row-major hi,heat-jacobi column-major,' ||
  fail "heat2d percell columns: $(head -1 "$heat")"
# A value is NaN where its record was contended (on a busy machine): it
# moved to the series's hatched column, after the triples.
num='\(NaN\|[0-9.e+-]*\)'
for shape in 128x1 32x4 1x128; do grep -q "^$shape\(,$num\)\{6\}" "$heat" || fail "no $shape row in $heat"; done
fv=$(ls "$dir"/grid/percell-fv-surface-openmp-0-double-16x16x16.csv) || fail "no fv-surface percell table"
for layout in aos soa aosoa8; do
  grep -q "^$layout\(,$num\)\{9\}\(\(,$num\)\{3\}\)\{0,1\}$" "$fv" || fail "no $layout row in $fv"
done
echo "ok"
