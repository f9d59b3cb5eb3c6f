# cascade.gp - performance portability's cascade plot (Pennycook's metric,
# as the p3-analysis-library draws it): the platforms on x, ordered by the
# best kernel's application efficiency (highest first); for each kernel
# its efficiency on each platform (solid, points) and the performance
# portability over the platforms so far (dashed, same colour: the harmonic
# mean of the efficiencies up to that platform, 0 from the first platform
# the kernel did not run on).
# Input: CSV "label,K1,K1 PP,K2,K2 PP,..." a row per platform; NaN = not run.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/cascade.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/cascade.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Performance portability cascade'
if (term eq 'svg') { set terminal svg size 1150,600 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1150,600 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
set datafile columnheaders
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 2 + 1.3 * titlelines
set bmargin 6
set key outside right top vertical Left reverse noenhanced
set xlabel 'platform (best first)'
set ylabel 'application efficiency, and PP so far (dashed)'
set yrange [0:1.05]
set ytics 0.2
set grid ytics
set offsets 0.3, 0.3, 0, 0
set xtics rotate by -20 noenhanced
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot for [i=2:ncols+1:2] datafile using 0:i:xtic(1) title columnheader(i) with linespoints pointtype 7 ps 1.3 lw 2 lc rgb colour(i - 1), \
     for [i=3:ncols+1:2] datafile using 0:i notitle with linespoints pointtype 6 dt 2 lw 2 lc rgb colour(i - 2), \
     NaN title 'dashed: PP over the platforms so far' with lines dt 2 lw 2 lc rgb '#555555'
