# steps.gp - the solver's time split per backend for one problem, as the
# paper's Tables 5 and 6: CPU->GPU, step 1, step 2, step 3 and GPU->CPU
# stacked into each backend's total time (seconds).
# Input: CSV "label,PART1,..." with one row per backend (device).
# Usage: gnuplot -e "datafile='t.csv'; outfile='s.png'; term='png'; plottitle='...'" plots/steps.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Solver time split'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set title plottitle noenhanced
set ylabel 'time [s]'
set xlabel 'backend (device)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid ytics
set key outside right noenhanced
set bmargin 6
set xtics noenhanced rotate by -12
set yrange [0:*]
plot for [i=2:ncols+1] datafile using i:xtic(1) title columnheader(i)
