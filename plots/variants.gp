# variants.gp - GFLOP/s of every kernel variant (bars) per matrix (x) on one
# device, each variant with its best settings, peer libraries (peer:NAME)
# beside them.
# Input: CSV "label,KERNEL1,KERNEL1 lo,KERNEL1 hi,KERNEL2,..." with one row
# per matrix, GFLOP/s; NaN = the variant did not run on that matrix.
# The whiskers span the value by the slowest and the fastest sample of the
# record the bar shows (its best configuration), converted as the bar is.
# Usage: gnuplot -e "datafile='t.csv'; outfile='v.png'; term='png'; plottitle='...'" plots/variants.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Kernel variants per matrix'
if (term eq 'svg') { set terminal svg size 1100,560 dynamic background rgb 'white' } \
else { set terminal pngcairo size 1100,560 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 3 }
set title plottitle noenhanced
set ylabel 'performance [GFLOP/s = 1e9 flop/s, 2 flops per stored entry]'
set xlabel 'matrix'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set xtics noenhanced rotate by -30
set yrange [0:*]
# Fourteen distinct colours: gnuplot's default eight repeat with the ten
# SpMV variants and the peers beside them.
array palette[14] = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', \
                     '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#e7ba52', '#843c39', '#000000']
# Column 3i-1 is series i, 3i and 3i+1 its whiskers.
plot for [i=1:ncols] datafile using 3*i-1:3*i:3*i+1:xtic(1) title columnheader(3*i-1) lc rgb palette[(i - 1) % 14 + 1]
