# stream.gp - stream bandwidth per kernel (x) and device (bars), median GB/s.
# Input (written by `flowbench plot`, or by hand): CSV whose header is
# "label,DEVICE1,DEVICE2,..." and whose rows are "copy,63.7,75.6,..." in
# GB/s; NaN leaves a gap.
# Usage: gnuplot -e "datafile='t.csv'; outfile='s.png'; term='png'; plottitle='...'" plots/stream.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Stream bandwidth'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set title plottitle noenhanced
set ylabel 'bandwidth [GB/s = 1e9 B/s]'
set xlabel 'kernel (copy, mul: 2 words per element; add, triad: 3)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set yrange [0:*]
plot for [i=2:ncols+1] datafile using i:xtic(1) title columnheader(i)
