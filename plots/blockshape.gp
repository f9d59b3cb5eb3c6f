# blockshape.gp - bandwidth per block shape (x: thread-block XxY, or BCSR
# KxK) for each kernel (bars) on one device and matrix, each with its best
# other settings.
# Input: CSV "label,KERNEL1,KERNEL1 lo,KERNEL1 hi,..." one row per shape,
# GB/s; NaN = not run.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: gnuplot -e "datafile='t.csv'; outfile='b.png'; term='png'; plottitle='...'" plots/blockshape.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Block shapes'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
set title plottitle noenhanced
set ylabel 'effective bandwidth [GB/s = 1e9 B/s]'
set xlabel 'block shape'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set yrange [0:*]
# Column 3i-1 is series i, 3i and 3i+1 its whiskers.
plot for [i=1:ncols] datafile using 3*i-1:3*i:3*i+1:xtic(1) title columnheader(3*i-1)
