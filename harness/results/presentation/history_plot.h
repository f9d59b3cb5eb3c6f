/* history_plot.h - `history plot`: trend figures of the history with
 * gnuplot, and one self-contained HTML trend page (inline SVG, no script,
 * no file beside it).
 *
 * Per configuration: the median per commit with its spread (the lowest
 * and highest run median of the commit, or one run's sample range), the
 * change points history_detect finds (dashed, with their commit), and
 * the current gate's limit: what `compare --history` would call SLOWER
 * next, from the last FB_HISTORY_LOOKBACK commits' medians. Throughput
 * (GB/s) where the records give their bytes, else the time; with GB/s the
 * limit is a floor. Figures (DIR/history-N.png and .svg, from DIR/history-N.dat and
 * .vars with DIR/history.gp) are drawn for the configurations with a
 * change point, or all with `all`; the HTML page has one section per
 * configuration that changed (all with `all`). Text from the history
 * reaches gnuplot only as single-quoted strings in the .vars files.
 */
#ifndef FB_HISTORY_PLOT_H
#define FB_HISTORY_PLOT_H

#include <stdio.h>

#include "../history/history_detect.h"
#include "../history/history_store.h"

typedef struct fb_history_plot_options {
    const char *out_dir;
    const char *html;    /* the HTML page's path; NULL: DIR/index.html */
    const char *gnuplot; /* NULL: "gnuplot"; "" draws no figures (the HTML page only) */
    int all;             /* every configuration, not only those that changed */
    double threshold;    /* the gate's threshold (compare's --threshold) */
    fb_detect_options detect;
} fb_history_plot_options;

typedef struct fb_history_plot_summary {
    int figures;  /* configurations drawn with gnuplot */
    int sections; /* configurations on the HTML page */
    int changed;  /* configurations with a change point */
} fb_history_plot_summary;

fb_status fb_history_plot(const fb_history_series *s, int n, const fb_history_plot_options *opt, FILE *log,
                          fb_history_plot_summary *sum);

/* `history show`: a series' label, key and machine, then a line per
 * commit: when, the median and spread of its runs, flagged runs. */
void fb_history_print_series(FILE *f, const fb_history_series *s);

#endif
