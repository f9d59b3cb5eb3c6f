# beside.gp - GB/s of each kernel (lines) against a counter or resource
# field (x) - occupancy, IPC, registers, a parameter - on one device and
# matrix: the best GB/s measured at each value of the field.
# Input: CSV "FIELD,KERNEL1,..." one row per field value, ascending; NaN = none.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/beside.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/beside.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'GB/s beside a field'
if (term eq 'svg') { set terminal svg size 1150,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1150,560 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
# The title centred on the whole canvas, not on the graph the key narrows.
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
set key outside right top vertical Left reverse noenhanced
set ylabel 'effective bandwidth [GB/s] (best at each value)'
if (!exists("xname") || xname eq '') xname = 'value of the field named in the title (column 1 of the table)'
set xlabel xname noenhanced
set grid
set yrange [0:*]
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot for [i=2:ncols+1] datafile using 1:i title columnheader(i) with linespoints pointtype 7 lw 2 lc rgb colour(i - 1)
