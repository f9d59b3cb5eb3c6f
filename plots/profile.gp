# profile.gp - performance profile (Dolan and More 2002) over a matrix suite:
# for each solver (kernel @ device, best settings), the fraction of matrices
# on which its time is within a factor tau of the fastest solver there. The
# curve at tau = 1 is how often it wins; how fast it reaches 1 is how
# robust it is. Only matrices every solver of the figure ran are counted
# (flowbench drops the others and says how many are left in the title), so
# every curve reaches 1.
# Input: CSV blocks separated by two blank lines, one per solver, each
# "ratio,SOLVER" then "tau,fraction" rows, ascending.
# Usage: gnuplot -e "datafile='p.csv'; outfile='p.png'; term='png'; ncols=3" plots/profile.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Performance profile'
if (term eq 'svg') { set terminal svg size 960,540 dynamic background rgb 'white' } \
else { set terminal pngcairo size 960,540 }
set output outfile
set datafile separator comma
if (!exists("ncols")) { stats datafile using 1 nooutput; ncols = STATS_blocks }
set title plottitle noenhanced
set xlabel 'tau: time / fastest time on that matrix (log scale)'
set ylabel 'fraction of matrices within tau of the fastest'
set logscale x 2
set xrange [1:*]
set yrange [0:1.05]
set grid
set key right center opaque box noenhanced
plot for [i=0:ncols-1] datafile index i using 1:2 with steps lw 2 title columnheader(2)
