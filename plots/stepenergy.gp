# stepenergy.gp - the solver's energy per time step on each backend for
# one problem: the device's joules over the time loop / steps (NVML: the
# GPU board; RAPL: the CPU package and DRAM; docs/solver.md).
# Input: CSV "label,J per step" with one row per backend (device); where
# a run was unstable or contended (flagged > 0 in NAME.vars) its value
# stands in a second column, "J per step (unstable or contended)" (NaN in
# the first), drawn empty and hatched.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, labels, sizes,
# colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/stepenergy.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; plottitle='...'" plots/stepenergy.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Solver energy per step'
if (term eq 'svg') { set terminal svg size 960,560 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 960,560 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
set title plottitle noenhanced
set ylabel 'energy per time step [J]'
set xlabel 'backend (device)'
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set key off
set xtics noenhanced rotate by -12
set bmargin 7
set yrange [0:*]
# one bar per row at x = 0, 1, ...; a little room above the tallest
if (!exists("nrows")) { stats datafile using 2 skip 1 nooutput; nrows = STATS_records }
set xrange [-0.5:nrows - 0.5]
set offsets 0, 0, graph 0.05, 0
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
# A long device name ("opencl:0.0 NVIDIA H100 80GB HBM3") in two lines, at
# the middle word: slanted whole, it ran off the canvas.
join(s, i, k) = i > k ? '' : word(s, i).(i < k ? ' ' : '').join(s, i + 1, k)
wrap(s) = strlen(s) <= 24 || words(s) < 3 ? s : join(s, 1, words(s) / 2)."\n".join(s, words(s) / 2 + 1, words(s))
# A bar a pass does not draw is -1 high, under the graph: a pass without
# one valid point would make gnuplot warn.
if (!exists("flagged")) flagged = 0
given(c) = valid(c) ? column(c) : -1
if (flagged > 0) {
  set label 102 'hatched: unstable or contended, not a figure to trust' \
    at screen 0.99, screen 0.015 right font ',8' textcolor rgb '#555555'
  plot datafile using 0:(given(2)):xtic(wrap(strcol(1))) skip 1 with boxes lc rgb colour(1), \
       '' using 0:(given(3)) skip 1 with boxes fs pattern 4 border rgb colour(1) lc rgb colour(1)
} else {
  plot datafile using 0:(given(2)):xtic(wrap(strcol(1))) skip 1 with boxes lc rgb colour(1)
}
