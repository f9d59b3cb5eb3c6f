# energy.gp - energy efficiency beside speed for the kernel variants on one
# problem and device: left GB/s, right GFLOP/J (flops of one run / joules
# of one run, from the record's energy window: docs/measurement.md), a bar
# per kernel with its best settings for each figure.
# Input: CSV "label,GB/s,GFLOP/J" with one row per kernel; NaN = none.
# Where a kernel's record was unstable or contended (flagged > 0 in
# NAME.vars) its two values stand in two more columns, "GB/s (unstable or
# contended),GFLOP/J (unstable or contended)" (NaN in the first two), drawn
# empty and hatched.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/energy.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/energy.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'GB/s and GFLOP/J per kernel'
if (term eq 'svg') { set terminal svg size 1280,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1280,560 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
# Series colours: flowbench writes one per series into NAME.vars (here the
# two panels' quantities); without them, hues a golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set key off
set xtics noenhanced rotate by -30
set yrange [0:*]
# one bar per row at x = 0, 1, ...; a little room above the tallest
if (!exists("nrows")) { stats datafile using 2 skip 1 nooutput; nrows = STATS_records }
set xrange [-0.5:nrows - 0.5]
set offsets 0, 0, graph 0.05, 0
set xlabel 'kernel'
set multiplot layout 1,2 title plottitle noenhanced
# A bar a pass does not draw is -1 high, under the graph: a pass without
# one valid point would make gnuplot warn.
if (!exists("flagged")) flagged = 0
given(c) = valid(c) ? column(c) : -1
if (flagged > 0) set label 102 'hatched: unstable or contended, not a figure to trust' \
  at screen 0.99, screen 0.015 right font ',8' textcolor rgb '#555555'
set ylabel 'bandwidth [GB/s, model bytes / median time]'
if (flagged > 0) {
  plot datafile using 0:(given(2)):xtic(1) skip 1 with boxes lc rgb colour(1), \
       '' using 0:(given(4)) skip 1 with boxes fs pattern 4 border rgb colour(1) lc rgb colour(1)
} else {
  plot datafile using 0:(given(2)):xtic(1) skip 1 with boxes lc rgb colour(1)
}
set ylabel 'energy efficiency [GFLOP/J, flops / joules per run]'
if (flagged > 0) {
  plot datafile using 0:(given(3)):xtic(1) skip 1 with boxes lc rgb colour(2), \
       '' using 0:(given(5)) skip 1 with boxes fs pattern 4 border rgb colour(2) lc rgb colour(2)
} else {
  plot datafile using 0:(given(3)):xtic(1) skip 1 with boxes lc rgb colour(2)
}
unset multiplot
