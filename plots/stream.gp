# stream.gp - stream bandwidth per kernel (rows) and device (columns), as
# clustered bars. Input: a whitespace table whose first line is
# "kernel DEVICE1 DEVICE2 ..." and whose rows are "copy 12.3 45.6 ..." in GB/s
# (written by scripts/default-suite.sh from the results file).
# Usage: gnuplot -e "datafile='t.dat'; outfile='s.png'; term='png'; host='name'" plots/stream.gp
if (!exists("term")) term = 'png'
if (!exists("host")) host = ''
if (term eq 'svg') { set terminal svg size 900,500 dynamic background rgb 'white' } \
else { set terminal pngcairo size 900,500 }
set output outfile
set title sprintf("Stream bandwidth, median of validated samples (%s)", host) noenhanced
set ylabel 'bandwidth [GB/s = 1e9 B/s]'
set xlabel 'kernel (copy, mul: 2 words per element; add, triad: 3)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key outside right top noenhanced
set yrange [0:*]
stats datafile using 0 nooutput
ncol = STATS_columns
plot for [i=2:ncol] datafile using i:xtic(1) title columnheader(i)
