# stream.gp - stream bandwidth per kernel (x) and device (bars), median GB/s.
# Input (written by `flowbench plot`, or by hand): CSV whose header is
# "label,DEVICE1,DEVICE1 lo,DEVICE1 hi,DEVICE2,..." and whose rows are
# "copy,63.7,61.2,64.0,75.6,..." in GB/s; NaN leaves a gap.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/stream.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/stream.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Stream bandwidth'
if (term eq 'svg') { set terminal svg size 960,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 960,560 noenhanced }
set output outfile
# The whiskers' meaning, on every figure that has them.
set label 101 'whiskers: the value by the fastest and by the slowest sample of the record' at screen 0.99, screen 0.015 right font ',8' textcolor rgb '#555555'
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
set title plottitle noenhanced
set bmargin 5
set ylabel 'bandwidth [GB/s = 1e9 B/s]'
set xlabel 'kernel (copy, mul, dot: 2 words per element; add, triad: 3; dot reads both)'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key outside top center horizontal Left reverse noenhanced
set yrange [0:*]
# the clusters sit at 0 .. nrows - 1: no empty slot beside the first
if (exists("nrows")) set xrange [-0.5:nrows - 0.5]
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
# Column 3i-1 is series i, 3i and 3i+1 its whiskers.
plot for [i=1:ncols] datafile using 3*i-1:3*i:3*i+1:xtic(1) title columnheader(3*i-1) \
     lc rgb colour(i)
