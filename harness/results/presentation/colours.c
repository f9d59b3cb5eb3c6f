/* colours.c - the colour map of a plot run (colours.h). */
#include "colours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// clang-format off
/* tab10 first, then colours chosen to stand apart from it and from each
 * other on white (no pastel a thin line would lose); which label gets
 * which is chosen so that labels sharing a figure differ most. */
static const char *const palette[FB_PALETTE_SIZE] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#000075", "#f032e6", "#469990", "#800000", "#9a6324", "#4363d8",
    "#3cb44b", "#e6194b", "#808000", "#911eb4", "#00c2a0", "#fa8072", "#a9a9a9", "#b8860b",
};
// clang-format on

int fb_figure_has_series(fb_figure_kind kind) { return kind != FB_FIG_HEATMAP; }

static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int find_label(const fb_colour_map *map, const char *label)
{
    char *const *hit = bsearch(&label, map->labels, (size_t)map->n, sizeof *map->labels, cmp_text);
    return hit ? (int)(hit - map->labels) : -1;
}

/* Every series label of the lists, once each, sorted. */
static fb_status gather_labels(const fb_figure_list *lists, int nlists, fb_colour_map *map)
{
    fb_status status = FB_OK;
    int total = 0, n = 0;
    for (int l = 0; l < nlists; ++l)
        for (int i = 0; i < lists[l].n; ++i)
            total += fb_figure_has_series(lists[l].f[i].kind) ? lists[l].f[i].ncols : 0;
    FB_ALLOC(map->labels, total, "the colour map");
    for (int l = 0; l < nlists; ++l)
        for (int i = 0; i < lists[l].n; ++i)
            for (int c = 0; fb_figure_has_series(lists[l].f[i].kind) && c < lists[l].f[i].ncols; ++c)
                map->labels[n++] = lists[l].f[i].cols[c];
    qsort(map->labels, (size_t)n, sizeof *map->labels, cmp_text);
    map->n = 0;
    for (int i = 0; i < n; ++i)
        if (map->n == 0 || strcmp(map->labels[map->n - 1], map->labels[i]) != 0) map->labels[map->n++] = map->labels[i];
    for (int i = 0; i < map->n; ++i)
        if (!(map->labels[i] = strdup(map->labels[i]))) {
            map->n = i;
            FB_FAIL(FB_ERR_NOMEM, "out of host memory building the colour map");
        }
fail:
    return status;
}

/* Marks in taken the colours of the labels already coloured that share a
 * figure with label `me`, and in near those that share one other than a
 * roofline. A roofline holds every kernel of every family a device ran
 * (30 in the default run), more than the palette can keep apart: its
 * series must differ, but how far apart is judged in the other figures,
 * where a bar's colour is all that names it (before, sell and csr-merge
 * were two reds side by side). */
static void mark_neighbours(const fb_figure_list *lists, int nlists, const fb_colour_map *map, int me, char *taken,
                            char *near)
{
    for (int l = 0; l < nlists; ++l)
        for (int i = 0; i < lists[l].n; ++i) {
            const fb_figure *f = &lists[l].f[i];
            int here = 0;
            for (int c = 0; fb_figure_has_series(f->kind) && c < f->ncols; ++c)
                here |= strcmp(f->cols[c], map->labels[me]) == 0;
            for (int c = 0; here && c < f->ncols; ++c) {
                int other = find_label(map, f->cols[c]);
                if (other < 0 || map->colour[other] < 0) continue;
                taken[map->colour[other]] = 1;
                if (f->kind != FB_FIG_ROOFLINE) near[map->colour[other]] = 1;
            }
        }
}

/* CIE L*a*b* of a palette colour: distances there follow what an eye tells
 * apart (two browns, or two purples, are close; in RGB they were not). */
static void lab_of(const char *hex, double lab[3])
{
    unsigned rgb[3];
    double lin[3], xyz[3];
    sscanf(hex, "#%02x%02x%02x", &rgb[0], &rgb[1], &rgb[2]);
    for (int i = 0; i < 3; ++i) {
        const double c = rgb[i] / 255.0;
        lin[i] = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
    }
    xyz[0] = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047;
    xyz[1] = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    xyz[2] = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883;
    for (int i = 0; i < 3; ++i)
        xyz[i] = xyz[i] > 0.008856 ? cbrt(xyz[i]) : 7.787 * xyz[i] + 16.0 / 116;
    lab[0] = 116 * xyz[1] - 16;
    lab[1] = 500 * (xyz[0] - xyz[1]);
    lab[2] = 200 * (xyz[1] - xyz[2]);
}

double fb_colour_distance(const char *a, const char *b)
{
    double x[3], y[3];
    lab_of(a, x);
    lab_of(b, y);
    return sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
}

/* The palette colour for a label whose neighbours (labels sharing a figure
 * with it) hold the colours marked in taken: of the colours no neighbour
 * has (and, when every label can have its own, no label has: used), the
 * one farthest from its nearest bar-figure neighbour's (near); the lowest
 * index on a tie. -1 when the palette has none left. */
static int farthest_free(const char *taken, const char *near, const char *used)
{
    int best = -1;
    double best_gap = -1;
    for (int k = 0; k < FB_PALETTE_SIZE; ++k) {
        double gap = INFINITY;
        if (taken[k] || (used && used[k])) continue;
        for (int j = 0; j < FB_PALETTE_SIZE; ++j)
            if (near[j]) gap = fmin(gap, fb_colour_distance(palette[k], palette[j]));
        if (gap > best_gap + 1e-9) best = k, best_gap = gap;
    }
    return best;
}

fb_status fb_colour_map_build(const fb_figure_list *lists, int nlists, fb_colour_map *map)
{
    fb_status status = FB_OK;
    char *taken = NULL, *near = NULL, used[FB_PALETTE_SIZE] = {0};
    size_t marks;
    memset(map, 0, sizeof *map);
    FB_CHECK(gather_labels(lists, nlists, map));
    marks = (size_t)map->n + FB_PALETTE_SIZE + 1; /* the palette and a generated colour per label */
    FB_ALLOC(map->colour, map->n, "the colour map");
    FB_ALLOC(taken, marks, "the colour map");
    FB_ALLOC(near, marks, "the colour map");
    for (int i = 0; i < map->n; ++i)
        map->colour[i] = -1;
    for (int i = 0; i < map->n; ++i) {
        memset(taken, 0, marks);
        memset(near, 0, marks);
        mark_neighbours(lists, nlists, map, i, taken, near);
        int k = farthest_free(taken, near, map->n <= FB_PALETTE_SIZE ? used : NULL);
        if (k < 0) /* more neighbours than the palette: the first generated colour none has */
            for (k = FB_PALETTE_SIZE; taken[k]; ++k)
                ;
        map->colour[i] = k;
        if (k < FB_PALETTE_SIZE) used[k] = 1;
    }
fail:
    free(taken);
    free(near);
    if (status != FB_OK) fb_colour_map_free(map);
    return status;
}

/* Colours past the palette: hues a golden angle apart, so neighbours in
 * the sequence still differ. */
static void generated_colour(int k, char buf[8])
{
    double h = fmod(k * 0.618033988749895, 1.0) * 6, s = 0.7, v = 0.75;
    double c = v * s, x = c * (1 - fabs(fmod(h, 2) - 1)), m = v - c, rgb[3];
    int sector = (int)h;
    double table[6][3] = {{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}};
    for (int i = 0; i < 3; ++i)
        rgb[i] = table[sector % 6][i] + m;
    snprintf(buf, 8, "#%02x%02x%02x", (int)(rgb[0] * 255 + 0.5), (int)(rgb[1] * 255 + 0.5), (int)(rgb[2] * 255 + 0.5));
}

const char *fb_colour_of(const fb_colour_map *map, const char *label, char buf[8])
{
    int i = find_label(map, label), k = i >= 0 ? map->colour[i] : -1;
    if (k < 0)
        snprintf(buf, 8, "#000000");
    else if (k < FB_PALETTE_SIZE)
        snprintf(buf, 8, "%s", palette[k]);
    else
        generated_colour(k, buf);
    return buf;
}

void fb_colour_map_free(fb_colour_map *map)
{
    for (int i = 0; i < map->n; ++i)
        free(map->labels[i]);
    free(map->labels);
    free(map->colour);
    memset(map, 0, sizeof *map);
}
