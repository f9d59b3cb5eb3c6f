# sizes.gp - throughput against problem size: each kernel's best GB/s
# (lines) at each size it ran (x, log: matrix rows, grid cells, mesh
# nodes, stream's n), on one device in one precision.
# Input: CSV "SIZE,KERNEL1,..." a row per size, ascending; NaN = not run there.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/sizes.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/sizes.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Throughput against problem size'
if (term eq 'svg') { set terminal svg size 1150,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1150,560 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
set key outside right top vertical Left reverse noenhanced
if (!exists("xname") || xname eq '') xname = 'problem size'
set xlabel xname.' (log)' noenhanced
set ylabel 'GB/s, median (best settings at each size)'
set logscale x 10
# 100k, 1M, 10M: a row count in digits is read by counting zeros
set format x '%.0s%c'
set grid
set yrange [0:*]
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot for [i=2:ncols+1] datafile using 1:i title columnheader(i) with linespoints pointtype 7 lw 2 lc rgb colour(i - 1)
