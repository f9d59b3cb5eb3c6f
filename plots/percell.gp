# percell.gp - time per cell of a grid family (heat2d, fv-surface) per
# work-group shape or cell layout (x), one bar per kernel (and array order),
# each with its best other settings. Lower is better.
# Input: CSV "label,KERNEL1,KERNEL1 lo,KERNEL1 hi,..." one row per shape or
# layout, ns per cell; NaN = not run.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: gnuplot -e "datafile='t.csv'; outfile='p.png'; term='png'; plottitle='...'" plots/percell.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Time per cell'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
set title plottitle noenhanced
set ylabel 'time per cell [ns] (lower is better)'
set xlabel 'work-group shape or cell layout'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set yrange [0:*]
set xtics rotate by -30 noenhanced
# Column 3i-1 is series i, 3i and 3i+1 its whiskers.
plot for [i=1:ncols] datafile using 3*i-1:3*i:3*i+1:xtic(1) title columnheader(3*i-1)
