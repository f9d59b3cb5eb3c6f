# roofline.gp - the roofline of one device: each kernel's best GFLOP/s (y,
# log) against its arithmetic intensity, flops per byte of the byte model
# (x, log), a point per problem and kernel (colour: the kernel, the same in
# every figure of a run; its name at its best point; point type: the
# problem, named in the key: twelve shapes, then letters), under
# two ceilings: the device's stream triad (GB/s x intensity, the bandwidth
# roof; "includes cache reuse" in the key where its arrays were under 4x
# the last-level cache, triadreuse = 1) and its peak GFLOP/s (from the
# device's properties and the CPU's vector ISA, or the best measured: the
# line under the graph says which). Where a point is cache resident (its
# problem named so in the key) and the run measured a triad within the
# cache, cachebw draws the cache's roof too (dotted, cachewhy in the key).
# The solver's steps are points too where their records count flops.
# Input: CSV "label,KERNEL1,KERNEL1 gflops,..." a row per problem: each
# kernel's intensity and GFLOP/s there; NaN = not run.
# Usage: flowbench plot writes NAME.csv and NAME.vars (title, ceilings,
# ranges, problem names, colours: gnuplot single-quoted strings) and runs
#   gnuplot -e "term='png'; outfile='NAME.png'; load 'NAME.vars'" plots/roofline.gp
# By hand: gnuplot -e "datafile='t.csv'; outfile='t.png'; triad=20; peak=500" plots/roofline.gp
if (!exists("term")) term = 'png'
if (!exists("plottitle")) plottitle = 'Roofline'
if (term eq 'svg') { set terminal svg size 1280,800 dynamic noenhanced background rgb 'white' } \
else { set terminal pngcairo size 1280,800 noenhanced }
set output outfile
set datafile separator comma
set datafile missing 'NaN'
# the first line names the columns in every clause below, not only in
# those that ask for columnheader(): otherwise a clause that reads $0 counts
# it as a row, and each problem's point took the next problem's shape
set datafile columnheaders
if (!exists("ncols")) { stats datafile using 2 nooutput; ncols = (STATS_columns - 1) / 2 }
if (!exists("nrows")) nrows = 0
if (!exists("triad")) triad = 10
if (!exists("peak")) peak = 100
if (!exists("peakwhy")) peakwhy = sprintf('peak %g GFLOP/s', peak)
if (!exists("triadreuse")) triadreuse = 0
if (!exists("cachebw")) cachebw = 0
if (!exists("cachewhy")) cachewhy = 'last-level cache'
# the read ceiling (stream dot of the triad's run): the SpMV points' bound
if (!exists("readbw")) readbw = 0
if (!exists("xmin")) { xmin = 0.01; xmax = 100; ymin = 0.01; ymax = 10 * peak }
set label 100 plottitle at screen 0.5, screen 0.965 center noenhanced
if (!exists("titlelines")) titlelines = 1
set tmargin 4 + 1.3 * titlelines
# Where the ceilings come from, under the title (too long for the key).
set label 101 peakwhy at screen 0.5, screen 0.965 - 0.035 * titlelines center font ',9' noenhanced
if (cachebw > 0) set label 102 'cache roof: '.cachewhy at screen 0.5, screen 0.94 - 0.035 * titlelines \
  center font ',9' noenhanced
# Room under the graph for the x label and the key, three entries a row.
nkey = ncols + nrows + 2 + (cachebw > 0) + (readbw > 0)
set bmargin 4 + ceil(nkey / 3.0) * 1.1

set logscale xy 10
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set format x '%g'
set format y '%g'
set xlabel 'arithmetic intensity [flop / byte of the byte model] (log)'
set ylabel 'GFLOP/s, median (log)'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
# The key under the graph, in columns: beside it, it took half the image.
set key outside below center horizontal Left reverse noenhanced font ',10' spacing 1.0 maxcols 3 width 2 samplen 2
if (!exists("colours")) colours = ''
colour(k) = k <= words(colours) ? word(colours, k) : \
            sprintf('#%06x', hsv2rgb(k * 0.618034 - floor(k * 0.618034), 0.7, 0.75))
ridge = peak / triad
# 3017 and 33450, not 3.017e+03
num(v) = v >= 1000 ? sprintf('%.0f', v) : sprintf('%.4g', v)
memroof(x) = x <= ridge ? triad * x : NaN
comproof(x) = x >= ridge ? peak : NaN
cacheroof(x) = cachebw > 0 && x <= peak / cachebw ? cachebw * x : NaN
readroof(x) = readbw > 0 && x <= peak / readbw ? readbw * x : NaN
triadtitle = 'stream triad '.num(triad).' GB/s'.(triadreuse ? ' (includes cache reuse)' : '')
# A shape per problem: those of pngcairo and svg but the filled circle
# (the kernels' colour dots) and the pentagons (14, 15: at this size they
# read as circles beside 6), then a letter per problem past them, so no two
# problems share a mark.
shapes = '5 6 8 9 10 11 12 13 4 1 2 3'
nshapes = words(shapes)
ptype(r) = int(r) <= nshapes ? int(word(shapes, int(r))) : -1
letter(r) = substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', int(r) - nshapes, int(r) - nshapes)
# Each kernel's name labels its best point only (labely, from NAME.vars:
# each kernel's best GFLOP/s as the table has it, NaN where the name would
# cover another's); without it, every point.
if (!exists("labely")) labely = ''
labelled(i, y) = words(labely) < i || (word(labely, i) ne 'nan' && abs(y - real(word(labely, i))) <= 1e-9 * abs(y))
problem(r) = exists(sprintf('problem%d', r)) ? value(sprintf('problem%d', r)) : sprintf('problem %d', r)
set samples 400
plot memroof(x) with lines lw 2.5 lc rgb '#444444' title triadtitle, \
     comproof(x) with lines lw 2.5 dt 2 lc rgb '#444444' title 'peak '.num(peak).' GFLOP/s', \
     (cachebw > 0 ? cacheroof(x) : NaN) with lines lw 2 dt 3 lc rgb '#444444' \
       title (cachebw > 0 ? 'cache roof '.num(cachebw).' GB/s' : ''), \
     (readbw > 0 ? readroof(x) : NaN) with lines lw 1.5 dt 4 lc rgb '#444444' \
       title (readbw > 0 ? 'read ceiling (stream dot) '.num(readbw).' GB/s: SpMV' : ''), \
     for [i=1:ncols] datafile using 2*i:2*i+1:($0 + 1) with points pt 7 ps 1.6 lc rgb colour(i) \
       title columnheader(2*i), \
     for [i=1:ncols] datafile using 2*i:2*i+1:(labelled(i, column(2*i+1)) ? columnhead(2*i) : '') \
       with labels left offset char 0.8, char 0.4 \
       font ',8' tc rgb colour(i) notitle, \
     for [r=1:(nrows < nshapes ? nrows : nshapes)] NaN with points pt ptype(r) ps 1.2 lc rgb 'black' \
       title 'problem: '.problem(r), \
     for [r=nshapes+1:nrows] NaN with points pt letter(r) ps 1.2 lc rgb 'black' title 'problem: '.problem(r), \
     for [i=1:ncols] datafile using 2*i:(ptype($0 + 1) > 0 ? column(2*i+1) : NaN):(ptype($0 + 1)) \
       with points pt variable ps 1.2 lc rgb 'black' notitle, \
     for [i=1:ncols] datafile using 2*i:2*i+1:(ptype($0 + 1) > 0 ? '' : letter($0 + 1)) \
       with labels center font ',8' tc rgb 'black' notitle
