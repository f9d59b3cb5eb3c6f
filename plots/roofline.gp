# roofline.gp - fraction of the bandwidth roofline reached per matrix (x) by
# each kernel (bars): effective GB/s of its best settings / stream triad GB/s
# measured by flowbench in the same run on the same device. 1 (dashed) is
# the roofline; above it means caches served part of the traffic.
# Input: CSV "label,KERNEL1,KERNEL1 lo,KERNEL1 hi,..." one row per matrix;
# NaN = not run.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: gnuplot -e "datafile='t.csv'; outfile='r.png'; term='png'; plottitle='...'" plots/roofline.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Fraction of measured stream bandwidth'
if (term eq 'svg') { set terminal svg size 1100,560 dynamic background rgb 'white' } \
else { set terminal pngcairo size 1100,560 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
set title plottitle noenhanced
set ylabel 'fraction of stream triad bandwidth [effective GB/s / triad GB/s]'
set xlabel 'matrix'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set xtics noenhanced rotate by -30
set yrange [0:1.1<*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
# Column 3i-1 is series i, 3i and 3i+1 its whiskers.
plot for [i=1:ncols] datafile using 3*i-1:3*i:3*i+1:xtic(1) title columnheader(3*i-1)
