/* plot.h - `flowbench plot`: figures from a results file with gnuplot.
 *
 * For each plot type (figures.h) and each figure it has data for, writes the
 * figure's table as DIR/NAME.csv and its title, labels and series colours
 * (one colour map over the whole run, colours.h) as DIR/NAME.vars, and runs
 * the matching script in plots/ on them for PNG and SVG; then checks that
 * both files are there and are what they claim to be. The scripts read only
 * those files; copies of them go to DIR/scripts/, and DIR/replot.sh repeats
 * every gnuplot call with them and no absolute path, so a user can restyle
 * a script and redraw without flowbench, wherever the folder is. Text from
 * the results file reaches gnuplot only as single-quoted strings in
 * NAME.vars, never on a command line. A plot type without data is skipped
 * with one line.
 */
#ifndef FB_PLOT_H
#define FB_PLOT_H

#include <stdio.h>

#include "../records/reader.h"

typedef struct fb_plot_options {
    const char *out_dir;     /* created if missing */
    const char *scripts_dir; /* NULL: search (fb_plot_find_scripts) */
    const char *gnuplot;     /* the program; NULL: "gnuplot" */
    const char *beside;      /* a numeric record field to plot GB/s against, or NULL */
} fb_plot_options;

typedef struct fb_plot_summary {
    int figures; /* figures drawn (each as PNG and SVG) */
    int skipped; /* plot types without data */
} fb_plot_summary;

/* The folder holding the gnuplot scripts: `given` if not NULL, else
 * $FLOWBENCH_PLOT_SCRIPTS, ./plots, plots/ beside or above the executable,
 * or the source tree this file was compiled from. */
fb_status fb_plot_find_scripts(const char *given, char *dir, size_t len);

/* Draws every figure the set has data for; progress lines go to log. */
fb_status fb_plot_results(const fb_results_set *set, const fb_plot_options *opt, FILE *log, fb_plot_summary *s);

/* What a .vars file that fb_plot_string_var writes into starts with. */
#define FB_PLOT_APOS_LINE "apos = sprintf('%c', 39)\n"

/* name = 'value' as a gnuplot single-quoted string, safe for any text of
 * a results file (plot.c says how); the file must have set apos first
 * (FB_PLOT_APOS_LINE). Shared by plot and history plot. */
void fb_plot_string_var(FILE *out, const char *name, const char *value);

/* gnuplot -e PNG_CMD SCRIPT -e "reset; SVG_CMD" SCRIPT, run inside dir:
 * both files of a figure from one process (its start, fonts included, was
 * as long as drawing the SVG). `who` ("plot", "history plot") leads its
 * messages: FB_ERR_UNAVAILABLE when the program cannot run, FB_ERR_BACKEND
 * when it fails (its own message is on stderr). */
fb_status fb_plot_run_gnuplot(const char *who, const char *gnuplot, const char *dir, const char *png_cmd,
                              const char *svg_cmd, const char *script);

/* 1 if path is a PNG (signature) or SVG (an <svg> element, closed) file. */
int fb_plot_file_valid(const char *path);

#endif
