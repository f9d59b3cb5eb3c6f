/* colours.c - the colour map of a plot run (colours.h). */
#include "colours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// clang-format off
static const char *const palette[FB_PALETTE_SIZE] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#e7ba52", "#843c39", "#6b6ecf", "#aec7e8", "#98df8a",
    "#ff9896", "#c5b0d5", "#637939", "#7b4173", "#9edae5", "#f7b6d2", "#c49c94", "#000000",
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
 * figure with label `me`. */
static void mark_neighbours(const fb_figure_list *lists, int nlists, const fb_colour_map *map, int me, char *taken)
{
    for (int l = 0; l < nlists; ++l)
        for (int i = 0; i < lists[l].n; ++i) {
            const fb_figure *f = &lists[l].f[i];
            int here = 0;
            for (int c = 0; fb_figure_has_series(f->kind) && c < f->ncols; ++c)
                here |= strcmp(f->cols[c], map->labels[me]) == 0;
            for (int c = 0; here && c < f->ncols; ++c) {
                int other = find_label(map, f->cols[c]);
                if (other >= 0 && map->colour[other] >= 0) taken[map->colour[other]] = 1;
            }
        }
}

fb_status fb_colour_map_build(const fb_figure_list *lists, int nlists, fb_colour_map *map)
{
    fb_status status = FB_OK;
    char *taken = NULL;
    memset(map, 0, sizeof *map);
    FB_CHECK(gather_labels(lists, nlists, map));
    FB_ALLOC(map->colour, map->n, "the colour map");
    FB_ALLOC(taken, map->n + 1, "the colour map");
    for (int i = 0; i < map->n; ++i)
        map->colour[i] = map->n <= FB_PALETTE_SIZE ? i : -1;
    for (int i = 0; i < map->n && map->n > FB_PALETTE_SIZE; ++i) {
        memset(taken, 0, (size_t)map->n + 1);
        mark_neighbours(lists, nlists, map, i, taken);
        while (taken[++map->colour[i]])
            ;
    }
fail:
    free(taken);
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
