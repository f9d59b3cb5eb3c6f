# speedup.gp - speedup of each device over the OpenMP baseline, per problem
# (a matrix, or a kernel for stream): OpenMP median time / device median
# time, each with its best settings. 1 = as fast as OpenMP (dashed line).
# Input: CSV "label,DEVICE1,..." with one row per problem; NaN = not run.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/speedup.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/speedup.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Speedup over OpenMP'
if (term eq 'svg') { set terminal svg size 960,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 960,560 noenhanced }
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
set key outside top center horizontal Left reverse noenhanced
set xtics noenhanced rotate by -30
set yrange [0:1.1<*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot for [i=2:ncols+1] datafile using i:xtic(1) title columnheader(i) lc rgb colour(i - 1)
