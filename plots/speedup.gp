# speedup.gp - speedup of each device over the OpenMP baseline, per problem
# (a matrix, or a kernel for stream): OpenMP median time / device median
# time, each with its best settings (the solver: its median time step, the
# per-step speedup). 1 = as fast as OpenMP (dashed line).
# Input: CSV "label,DEVICE1,..." with one row per problem; NaN = not run.
# Where a bar rests on a record whose samples were unstable or whose CPUs
# other work took (stats.quality), the table has a second column per
# device, "DEVICE1 (unstable or contended)", with those bars' values (NaN in
# the first): they are drawn as empty hatched boxes in the device's colour,
# under one key entry, "unstable or contended (not a figure to trust)";
# flowbench sets flagged > 0 in NAME.vars then.
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
if (!exists("flagged")) flagged = 0
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / (flagged > 0 ? 2 : 1) }
if (!exists("nrows")) { stats datafile using 2 skip 1 nooutput; nrows = STATS_records }
set title plottitle noenhanced
set ylabel 'speedup over OpenMP [OpenMP time / device time]'
set xlabel 'problem (matrix, or kernel for stream)'
# Clustered bars placed by hand (not the histogram style), so that a
# device's hatched bars stand where its solid ones would: problem r at
# x = r, its devices side by side, a bar's width apart, a gap of one bar.
w = 1.0 / (ncols + 1)
xpos(i) = column(0) + (i - (ncols + 1) / 2.0) * w
set boxwidth w absolute
set xrange [-0.5:nrows - 0.5]
set key outside top center horizontal Left reverse noenhanced autotitle columnheader
set grid ytics
set xtics noenhanced rotate by -30
set yrange [0:1.1<*]
set offsets 0, 0, graph 0.05, 0
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
# Series colours: flowbench writes one per series into NAME.vars, the same
# label the same colour in every figure of a run; without them, hues a
# golden angle apart.
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
# The problems' names under the middle of each cluster (an invisible point: a
# transparent colour).
if (!exists("cells")) cells = 0
if (flagged > 0 && flagged >= cells) {
  # every bar untrusted: no solid column to draw (gnuplot would warn of an
  # empty one); the hatched ones carry the devices' names
  plot datafile using 0:(0):xtic(1) with points lc rgb '#ff000000' notitle, \
       for [i=1:ncols] datafile using (xpos(i)):(column(ncols + i + 1)) with boxes \
         fs pattern 4 border rgb colour(i) lc rgb colour(i) title columnheader(ncols + i + 1)
} else { if (flagged > 0) {
  plot datafile using 0:(0):xtic(1) with points lc rgb '#ff000000' notitle, \
       for [i=1:ncols] datafile using (xpos(i)):(column(i + 1)) with boxes fs solid 0.8 border -1 \
         lc rgb colour(i) title columnheader(i + 1), \
       for [i=1:ncols] datafile using (xpos(i)):(column(ncols + i + 1)) with boxes \
         fs pattern 4 border rgb colour(i) lc rgb colour(i) notitle, \
       keyentry with boxes fs pattern 4 border rgb 'black' lc rgb 'black' \
         title 'unstable or contended (not a figure to trust)'
} else {
  plot datafile using 0:(0):xtic(1) with points lc rgb '#ff000000' notitle, \
       for [i=1:ncols] datafile using (xpos(i)):(column(i + 1)) with boxes fs solid 0.8 border -1 \
         lc rgb colour(i) title columnheader(i + 1)
}
}
