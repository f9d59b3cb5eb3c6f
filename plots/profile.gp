# profile.gp - performance profile (Dolan and More 2002) over a problem suite
# (matrices, or grids): for each solver (kernel @ device, best settings), the
# fraction of problems on which its time is within a factor tau of the
# fastest solver there. The curve at tau = 1 is how often it wins; how fast
# it reaches 1 is how robust it is. Only problems every solver of the figure
# ran are counted
# (flowbench drops the others and says how many are left in the title), so
# every curve reaches 1.
# Input: CSV blocks separated by two blank lines, one per solver, each
# "ratio,SOLVER" then "tau,fraction" rows, ascending.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/profile.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/profile.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Performance profile'
if (term eq 'svg') { set terminal svg size 1150,540 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1150,540 noenhanced }
set output outfile
set datafile separator comma
if (!exists("ncols")) { stats datafile using 1 nooutput; ncols = STATS_blocks }
# The title centred on the whole canvas, not on the graph the key narrows.
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
# xname and yname: the problem and its plural ("grid", "grids" for heat2d)
if (!exists("xname") || xname eq '') xname = 'matrix'
if (!exists("yname") || yname eq '') yname = 'matrices'
set xlabel 'tau: time / fastest time on that '.xname.' (log scale)' noenhanced
set ylabel 'fraction of '.yname.' within tau of the fastest' noenhanced
set logscale x 2
set xrange [1:*]
set yrange [0:1.05]
set grid
set key outside right top vertical Left reverse noenhanced
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot for [i=0:ncols-1] datafile index i using 1:2 title columnheader(2) with steps lw 2 lc rgb colour(i + 1)
