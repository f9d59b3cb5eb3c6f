# centreline.gp - the cavity's centreline velocity profiles written by
# `flowbench solve cavity --profiles PREFIX`: u along the vertical
# centreline (x = y = 0.5) against z, and w along the horizontal one
# (y = z = 0.5) against x. Optional: a second run (prefix2, title2) and a
# reference data file (ref, reftitle) holding two gnuplot blocks in the
# same coordinates, index 0 = (z, u) and index 1 = (x, w), as the files in
# cases/data/ do.
#   gnuplot -e "prefix='results/cavity-l1'; out='results/cavity.png'; \
#               ref='cases/data/cavity2d-re100-ghia.dat'; reftitle='Ghia et al. 1982 (2D)'" plots/centreline.gp
if (!exists("prefix")) prefix = 'cavity'
if (!exists("out")) out = prefix . '.png'
if (!exists("title1")) title1 = 'flowbench'
if (!exists("title")) title = 'Lid-driven cavity: centreline velocities (flowbench solve)'
set terminal pngcairo size 1100,500 font ",10" noenhanced
set output out
set multiplot layout 1,2 title title
set grid

# one panel: file suffix, columns, reference block
u_cmd = sprintf("plot '%s-u.dat' using 2:1 with linespoints pt 7 ps 0.5 title '%s'", prefix, title1)
w_cmd = sprintf("plot '%s-w.dat' using 1:2 with linespoints pt 7 ps 0.5 title '%s'", prefix, title1)
if (exists("prefix2")) {
    u_cmd = u_cmd . sprintf(", '%s-u.dat' using 2:1 with linespoints pt 5 ps 0.5 title '%s'", prefix2, title2)
    w_cmd = w_cmd . sprintf(", '%s-w.dat' using 1:2 with linespoints pt 5 ps 0.5 title '%s'", prefix2, title2)
}
if (exists("ref")) {
    u_cmd = u_cmd . sprintf(", '%s' index 0 using 2:1 with points pt 6 ps 1.2 title '%s'", ref, reftitle)
    w_cmd = w_cmd . sprintf(", '%s' index 1 using 1:2 with points pt 6 ps 1.2 title '%s'", ref, reftitle)
}
set key bottom right
set xlabel "u (x = y = 0.5)"
set ylabel "z"
eval(u_cmd)
set key top right
set xlabel "x"
set ylabel "w (y = z = 0.5)"
eval(w_cmd)
unset multiplot
