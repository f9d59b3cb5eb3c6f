# speedup.gp - speedup of each device over the OpenMP baseline, per problem
# (a matrix, or a kernel for stream): OpenMP median time / device median
# time, each with its best settings. 1 = as fast as OpenMP (dashed line).
# Input: CSV "label,DEVICE1,..." with one row per problem; NaN = not run.
# Usage: gnuplot -e "datafile='t.csv'; outfile='s.png'; term='png'; plottitle='...'" plots/speedup.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Speedup over OpenMP'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set title plottitle noenhanced
set ylabel 'speedup over OpenMP [OpenMP time / device time]'
set xlabel 'problem (matrix, or kernel for stream)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key above noenhanced
set xtics noenhanced
set yrange [0:1.1<*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
plot for [i=2:ncols+1] datafile using i:xtic(1) title columnheader(i)
