/* colours.h - one colour per series across every figure of a `plot` run.
 *
 * Bars and lines used to take gnuplot's colours by column, so a kernel
 * changed colour from one figure to the next and colours repeated within
 * one. The map gives every series label of the run (kernels, peer:NAME,
 * devices where the series are devices, solvers, solver steps) one colour
 * of a fixed palette, in sorted label order, so a label has the same colour
 * in every figure that shows it. The heat map has no series.
 */
#ifndef FB_COLOURS_H
#define FB_COLOURS_H

#include "figures.h"

/* Well-separated colours, the first ten gnuplot's and matplotlib's tab10. */
#define FB_PALETTE_SIZE 24

typedef struct fb_colour_map {
    char **labels; /* sorted */
    int *colour;   /* index into the palette; at FB_PALETTE_SIZE and beyond, generated */
    int n;
} fb_colour_map;

/* The map over the series of every figure in lists[0 .. nlists-1]. With at
 * most FB_PALETTE_SIZE labels each gets its own palette colour, in sorted
 * order. With more, each label in sorted order takes the first colour that
 * no label sharing a figure with it has: the series of one figure still
 * differ, and a label still keeps one colour in all figures. */
fb_status fb_colour_map_build(const fb_figure_list *lists, int nlists, fb_colour_map *map);

/* "#rrggbb" of label into buf; black for a label the map lacks. */
const char *fb_colour_of(const fb_colour_map *map, const char *label, char buf[8]);

/* Whether a kind's columns are series that take colours (not the heat
 * map's parameter values). */
int fb_figure_has_series(fb_figure_kind kind);

void fb_colour_map_free(fb_colour_map *map);

#endif
