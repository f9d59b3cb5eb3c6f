# heatmap.gp - a sweep over two parameters: one cell per measured pair of
# values, coloured and labelled by GB/s (the best over any other swept
# parameter). Cells that were not measured (pruned, failed, outside the
# space's constraints) show the hatched background, and a line under the
# graph says so (blanks, from NAME.vars: how many).
# Input: CSV "xi,yi,X,Y,gbs,untrusted": xi, yi the positions of the values
# on each axis (0, 1, ... in numeric order), X, Y the values, gbs in GB/s,
# untrusted 1 where the cell's record was unstable or contended (hatched
# in black over its colour; untrusted in NAME.vars: how many).
# Variables (NAME.vars): xname, yname (the parameter names) and ncols, nrows
# (how many values each axis has).
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, axis names,
# sizes: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/heatmap.gp
# By hand: gnuplot -e "datafile='h.csv'; outfile='h.png'; xname='WG'; yname='R'; ncols=6; nrows=11" plots/heatmap.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Sweep'
if (!exists("xname")) xname = 'x'
if (!exists("yname")) yname = 'y'
if (term eq 'svg') { set terminal svg size 900,640 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 900,640 noenhanced }
set output outfile
set datafile separator comma
if (!exists("ncols")) { stats datafile using 1 nooutput; ncols = STATS_max + 1 }
if (!exists("nrows")) { stats datafile using 2 nooutput; nrows = STATS_max + 1 }
if (!exists("titlelines")) titlelines = 1
if (!exists("blanks")) blanks = 0
# The title centred on the canvas (flowbench breaks a long one into lines).
set label 100 plottitle at screen 0.5, screen 0.97 center noenhanced
set tmargin 2 + 1.3 * titlelines
set bmargin 5
set rmargin 14
set xlabel xname noenhanced
set ylabel yname noenhanced
set cblabel 'GB/s (effective)' offset 1, 0
set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind fillcolor rgb '#999999' fillstyle pattern 4
if (blanks > 0) set label 102 sprintf('hatched: %d cell%s not measured (pruned, failed, or outside the space)', \
                                      blanks, blanks == 1 ? '' : 's') at screen 0.01, screen 0.02 left font ',9'
set palette defined (0 '#ffffcc', 0.5 '#fd8d3c', 1 '#bd0026')
set xrange [-0.5:ncols-0.5]
set yrange [-0.5:nrows-0.5]
set tics out nomirror
set cbrange [0:*]
unset key
# a cell's value in digits a reader takes in: 2170, 964, 35.2, 0.481 (not 2.17e+03)
cell(v) = abs(v) >= 100 ? sprintf('%.0f', v) : sprintf('%.3g', v)
# A cell resting on an unstable or contended record (column 6) is hatched
# in black over its colour, a cell not measured in grey without one.
if (!exists("untrusted")) untrusted = 0
if (untrusted > 0) set label 103 sprintf('hatched over its colour: %d cell%s unstable or contended, not a figure to trust', \
                                        untrusted, untrusted == 1 ? '' : 's') at screen 0.01, screen 0.05 left font ',9'
if (untrusted > 0) {
  set bmargin 6.5 # room for both lines under the graph
  set style textbox opaque noborder # the values readable over the hatching
  plot datafile using 1:2:(0.5):(0.5):5:xtic(3):ytic(4) skip 1 with boxxyerror fs solid 1 noborder lc palette, \
       '' using 1:($6 > 0 ? $2 : NaN):(0.5):(0.5) skip 1 with boxxyerror fs transparent pattern 5 noborder \
         lc rgb 'black', \
       '' using 1:2:(cell($5)) skip 1 with labels boxed font ',10' tc rgb 'black'
} else {
  plot datafile using 1:2:(0.5):(0.5):5:xtic(3):ytic(4) skip 1 with boxxyerror fs solid 1 noborder lc palette, \
       '' using 1:2:(cell($5)) skip 1 with labels font ',10' tc rgb 'black'
}
