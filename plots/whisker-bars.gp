# whisker-bars.gp - the bars of every whiskered bar figure (stream,
# blockshape, variants, fraction, percell), loaded by their scripts once
# they have set their labels, ranges and colour(k): a cluster of bars per
# row, one per series, with whiskers, the bars not to trust hatched.
# Input: the figure's CSV, "label,SERIES,SERIES lo,SERIES hi,..." (then,
# where flagged > 0, "SERIES (unstable or contended)" per series), and
# from the loading script datafile, ncols, flagged, colour(k), marked(label)
# (a row's label says its records were unstable or contended) and nmarked
# (how many rows say so).
# Column 3i-1 is series i, 3i and 3i+1 its whiskers. Row r's cluster
# (r from 0) centres on x = r, a slot per series and one slot of gap. A
# bar a pass does not draw is -1 high, under the graph, not NaN: a pass
# without one valid point makes gnuplot warn. The whiskers are
# candlesticks without a body (errorbars draw a white disc at the value).
slot = 1.0 / (ncols + 1)
x(i) = $0 + (i - (ncols + 1) / 2.0) * slot
given(c) = valid(c) ? column(c) : -1
solid(i) = marked(strcol(1)) ? -1 : given(3 * i - 1)
hatched(i) = flagged > 0 ? given(3 * ncols + 1 + i) : (marked(strcol(1)) ? given(3 * i - 1) : -1)
centre(i) = valid(3 * i - 1) ? column(3 * i - 1) : (flagged > 0 ? given(3 * ncols + 1 + i) : NaN)
set xtics scale 0
plot datafile using 0:(-1):xtic(1) with points ps 0 notitle, \
     for [i=1:ncols] datafile using (x(i)):(solid(i)):(slot) with boxes fs solid 0.8 border -1 \
       lc rgb colour(i) title columnheader(3 * i - 1), \
     for [i=1:ncols] datafile using (x(i)):(hatched(i)):(slot) with boxes fs pattern 4 border rgb colour(i) \
       lc rgb colour(i) notitle, \
     for [i=1:ncols] datafile using (x(i)):(centre(i)):3*i:3*i+1:(centre(i)):(0.3 * slot) \
       with candlesticks whiskerbars 1 lw 1 lc rgb 'black' notitle, \
     keyentry with boxes fs pattern 4 border rgb 'black' lc rgb 'black' \
       title (flagged + nmarked > 0 ? 'unstable or contended' : '')
