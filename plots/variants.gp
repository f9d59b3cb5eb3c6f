# variants.gp - GFLOP/s of every kernel variant (bars) per matrix (x) on one
# device, each variant with its best settings, peer libraries (peer:NAME)
# beside them.
# Input: CSV "label,KERNEL1,KERNEL1 lo,KERNEL1 hi,KERNEL2,..." with one row
# per matrix, GFLOP/s; NaN = the variant did not run on that matrix.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/variants.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/variants.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Kernel variants per matrix'
if (term eq 'svg') { set terminal svg size 1280,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1280,560 noenhanced }
set output outfile
# The whiskers' meaning, on every figure that has them.
set label 101 'whiskers: the value by the fastest and by the slowest sample of the record' at screen 0.99, screen 0.015 right font ',8' textcolor rgb '#555555'
set datafile separator comma
set datafile missing 'NaN'
set datafile columnheaders
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
# A bar resting on an unstable or contended record is drawn empty and
# hatched: flowbench puts its value in the series's second column (the
# last ncols; flagged > 0 counts them) or, in the fraction figure, names
# its row so ("MATRIX (contended)"); those rows are counted here, before
# any range is set: stats leaves out what a range excludes.
if (!exists("flagged")) flagged = 0
marked(label) = strstrt(label, '(unstable)') > 0 || strstrt(label, '(contended)') > 0
stats datafile using (marked(strcol(1))) nooutput
nmarked = STATS_sum
# The title centred on the whole canvas, not on the graph the key narrows.
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
set ylabel 'performance [GFLOP/s, 2 flops per stored entry]'
if (!exists("xname") || xname eq '') xname = 'matrix'
set xlabel xname noenhanced
set grid ytics
set key outside right top vertical Left reverse noenhanced
set xtics noenhanced rotate by -30
set yrange [0:*]
# the clusters sit at 0 .. nrows - 1: no empty slot beside the first
if (exists("nrows")) set xrange [-0.5:nrows - 0.5]
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
# The bars, the hatched ones and the whiskers: whisker-bars.gp, beside
# this script (ARG0), draws them for every whiskered figure.
here = '.'
do for [i=1:strlen(ARG0)] { if (ARG0[i:i] eq '/') { here = ARG0[1:i-1] } }
load here.'/whisker-bars.gp'
