# steps.gp - the solver's time split per backend for one problem, as the
# paper's Tables 5 and 6: CPU->GPU, step 1, step 2, step 3 and GPU->CPU
# stacked into each backend's total time (seconds).
# Input: CSV "label,PART1,..." with one row per backend (device); where a
# backend's run was unstable or contended, "PART1 (unstable or
# contended),..." columns follow, holding its parts (drawn hatched).
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/steps.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/steps.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Solver time split'
if (term eq 'svg') { set terminal svg size 1100,600 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1100,600 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
# The title centred on the whole canvas, not on the graph the key narrows.
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
set ylabel 'time [s]'
set xlabel 'backend (device)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
# the key under the graph, three to a line: at the right it took half the
# width from the bars
set key outside bottom center horizontal maxcols 3 Left reverse noenhanced
set bmargin 10
set xtics noenhanced rotate by -12
set yrange [0:*]
# the bars sit at 0 .. nrows - 1: no empty slot beside the first
if (exists("nrows")) set xrange [-0.5:nrows - 0.5]
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
# A backend whose run was unstable or contended: its parts are in the
# second set of columns ("NAME (unstable or contended)", NaN elsewhere),
# stacked hatched where its solid bar would stand.
if (!exists("flagged")) flagged = 0
# (a NaN part stacks 0 high: a missing value would drop the row)
nz(i) = strstrt(stringcolumn(i), 'NaN') ? 0 : column(i)
if (flagged > 0) {
  unset datafile missing
  plot for [i=2:ncols+1] datafile using (nz(i)):xtic(1) title columnheader(i) lc rgb colour(i - 1), \
       for [i=1:ncols] datafile skip 1 using (nz(ncols + i + 1)) \
         fs pattern 4 border rgb colour(i) lc rgb colour(i) notitle, \
       keyentry with boxes fs pattern 4 border rgb 'black' lc rgb 'black' \
         title 'unstable or contended (not a figure to trust)'
} else {
  plot for [i=2:ncols+1] datafile using i:xtic(1) title columnheader(i) lc rgb colour(i - 1)
}
