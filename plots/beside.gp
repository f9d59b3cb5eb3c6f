# beside.gp - GB/s of each kernel (lines) against a counter or resource
# field (x) - occupancy, IPC, registers, a parameter - on one device and
# matrix: the best GB/s measured at each value of the field.
# Input: CSV "FIELD,KERNEL1,..." one row per field value, ascending; NaN = none.
# Usage: gnuplot -e "datafile='t.csv'; outfile='b.png'; term='png'; plottitle='...'" plots/beside.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'GB/s beside a field'
if (term eq 'svg') { set terminal svg size 1000,560 dynamic background rgb 'white' } \
else { set terminal pngcairo size 1000,560 }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = STATS_columns - 1 }
set title plottitle noenhanced
set key above noenhanced
set ylabel 'effective bandwidth [GB/s] (best at each value)'
set xlabel 'value of the field named in the title (column 1 of the table)'
set grid
set yrange [0:*]
plot for [i=2:ncols+1] datafile using 1:i with linespoints pointtype 7 title columnheader(i)
