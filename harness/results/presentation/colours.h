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

/* The map over the series of every figure in lists[0 .. nlists-1]. Each
 * label, in sorted order, takes the palette colour farthest (in L*a*b*)
 * from the colours of the labels sharing a figure with it that have one
 * already: the first label the palette's first, csr-merge and the
 * GraphBLAS peer no longer two browns side by side. With at most
 * FB_PALETTE_SIZE labels each has its own colour; with more, a colour no
 * label of its figures has: the series of one figure still differ, and a
 * label keeps one colour in all figures. */
fb_status fb_colour_map_build(const fb_figure_list *lists, int nlists, fb_colour_map *map);

/* How far apart two "#rrggbb" colours look: the CIE76 distance in L*a*b*
 * (about 2.3 is the least an eye tells apart; tab10's brown and red: 36). */
double fb_colour_distance(const char *a, const char *b);

/* "#rrggbb" of label into buf; black for a label the map lacks. */
const char *fb_colour_of(const fb_colour_map *map, const char *label, char buf[8]);

/* Whether a kind's columns are series that take colours (not the heat
 * map's parameter values). */
int fb_figure_has_series(fb_figure_kind kind);

void fb_colour_map_free(fb_colour_map *map);

#endif
