# stepenergy.gp - the solver's energy per time step on each backend for
# one problem: the device's joules over the time loop / steps (NVML: the
# GPU board; RAPL: the CPU package and DRAM; docs/solver.md).
# Input: CSV "label,J per step" with one row per backend (device).
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
plot datafile using 0:2:xtic(1) skip 1 with boxes lc rgb colour(1)
