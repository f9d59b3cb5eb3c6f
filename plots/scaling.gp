# scaling.gp - a scaling study over MPI ranks: left, the speedup of each
# problem (lines) against the study's first rank count with the ideal line
# (speedup = ranks / first); right, the parallel efficiency, speedup over
# ideal (100% = perfect; weak scaling: time per step of the first count
# over this count's, the problem grown with the ranks). A problem whose
# line falls below 1 got slower on more ranks.
# Input: CSV "ranks,PROBLEM1,..." one row per rank count, ascending; NaN = none.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/scaling.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/scaling.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Scaling over ranks'
if (term eq 'svg') { set terminal svg size 1250,540 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1250,540 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
stats datafile using 1 nooutput
first = STATS_min
last = STATS_max
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
set multiplot title plottitle noenhanced
set grid
set xlabel 'ranks'
set logscale x 2
set xrange [first / 1.2 : last * 1.2]
set xtics 2
set key top left Left reverse noenhanced
set size 0.5, 0.92
set origin 0, 0
set ylabel 'speedup against the first rank count (log scale)'
set logscale y 2
set yrange [*:*]
plot x / first title 'ideal' with lines dashtype 2 lw 2 lc rgb '#808080', \
     for [i=2:ncols+1] datafile using 1:i title columnheader(i) with linespoints pointtype 7 lw 2 lc rgb colour(i - 1)
set origin 0.5, 0
unset logscale y
set ylabel 'parallel efficiency [%]'
set yrange [0:*]
set offsets 0, 0, 15, 0
plot 100 title 'ideal' with lines dashtype 2 lw 2 lc rgb '#808080', \
     for [i=2:ncols+1] datafile using 1:(100 * column(i) / ($1 / first)) title columnheader(i) \
       with linespoints pointtype 7 lw 2 lc rgb colour(i - 1)
unset multiplot
