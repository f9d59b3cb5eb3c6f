# heat2d-scaling.gp - speedup of the decomposed heat2d transient over one
# rank against the number of ranks, one line per grid size, and the ideal
# line (speedup = ranks, dashed). A size whose line falls below 1 got
# slower on more ranks: its exchange and reduction outweigh the split work.
# Input: CSV "ranks,SIZE1,SIZE2,..." with one row per rank count (speedup
# over one rank; NaN = not run), as scripts/heat2d-scaling.sh writes it.
# Usage: gnuplot -e "datafile='speedup-wide.csv'; outfile='speedup.png'; plottitle='...'" plots/heat2d-scaling.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'heat2d speedup over one rank'
if (term eq 'svg') { set terminal svg size 960,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 960,560 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
stats datafile using 1 nooutput
maxranks = STATS_max
set title plottitle noenhanced
set xlabel 'ranks (one device each)'
set ylabel 'speedup over one rank [time per iteration, 1 rank / P ranks]'
set grid xtics ytics
set key top left noenhanced
set xrange [0.8:maxranks * 1.1]
set xtics 1
set yrange [0:*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 3 lc rgb '#888888' back
# Series colours: as plots/speedup.gp, hues a golden angle apart unless given.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
plot x with lines dashtype 2 lw 1.5 lc rgb '#444444' title 'ideal (speedup = ranks)', \
     for [i=2:ncols+1] datafile using 1:i with linespoints lw 2 pt 7 ps 1.2 lc rgb colour(i - 1) title columnheader(i)
