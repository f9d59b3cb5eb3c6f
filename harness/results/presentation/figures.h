/* figures.h - the data behind each plot type, taken from a results set.
 *
 * A figure is a table of cells (row label, column label, value), grouped so
 * that one figure shows one host / device / precision / problem. Each plot
 * type selects its records by their common fields only (benchmark, kernel,
 * backend, device, precision, params, matrix, suite, case), so it works on
 * any family that fills them. Every figure keeps the best value per cell
 * (the best settings of that kernel there). The plot types and the records
 * they need are listed in docs/plots-and-compare.md.
 */
#ifndef FB_FIGURES_H
#define FB_FIGURES_H

#include <stdio.h>

#include "../records/reader.h"

typedef enum fb_figure_kind {
    FB_FIG_STREAM,       /* stream GB/s: kernels x devices */
    FB_FIG_SPEEDUP,      /* time of OpenMP / time of device: problems x devices */
    FB_FIG_HEATMAP,      /* GB/s over two swept parameters */
    FB_FIG_BLOCKSHAPE,   /* GB/s per block shape: shapes x kernels */
    FB_FIG_VARIANTS,     /* GFLOP/s: matrices x kernels (peers beside) */
    FB_FIG_FRACTION,     /* fraction of the device's stream triad: matrices x kernels */
    FB_FIG_PROFILE,      /* performance profile: matrices x solvers (times) */
    FB_FIG_BESIDE,       /* GB/s against a counter or resource field: its values x kernels (plot --beside) */
    FB_FIG_PERCELL,      /* time per cell (grid families): block shapes or layouts x kernels */
    FB_FIG_STEPS,        /* the solver's time split: backends x (CPU->GPU, step 1, 2, 3, GPU->CPU), stacked */
    FB_FIG_SCALING,      /* speedup and parallel efficiency against ranks (records with "scaling"): ranks x problems */
    FB_FIG_ENERGY,       /* GFLOP/J beside GB/s per kernel (records with energy.gflop_per_j): kernels x the two */
    FB_FIG_ENERGY_STEPS, /* the solver's energy per step: backends x joules per step */
    FB_FIG_ROOFLINE,     /* GFLOP/s against flops per model byte, log-log, under the triad and the peak: problems x
                            kernels, each cell a point (x: intensity) */
    FB_FIG_SIZES,        /* throughput against problem size: sizes x kernels (lines), where a sweep has several */
    FB_FIG_CASCADE,      /* performance portability's cascade (portability.h): platforms, best first x each kernel's
                            application efficiency and its PP over the platforms so far */
    FB_FIG_NKINDS
} fb_figure_kind;

#define FB_NAME_QUALIFIERS 4

typedef struct fb_cell {
    int row, col;
    double value;
    double lo, hi; /* the value by the fastest and slowest sample of its record (whiskers); NAN when unknown */
    /* The record the value comes from and, for a speedup, the OpenMP
     * record it divides (else NULL); quality: the worse of their verdicts
     * (fb_quality, results/records/quality.h). A cell keeps the best value of the
     * stable records where it has one, an unstable or contended record's
     * only where it has none. */
    const fb_record *rec, *base;
    int quality;
    double x; /* the roofline's arithmetic intensity (flops per model byte); 0 elsewhere */
} fb_cell;

typedef struct fb_figure {
    fb_figure_kind kind;
    char group[512]; /* what the figure is of; figures are unique by kind + group */
    char name[128];  /* file stem: "stream-double-n2000000" */
    /* Group fields the stem leaves out (case, suite, host, ...): added to
     * it, in this order, only where stems would otherwise be equal. */
    char qualifier[FB_NAME_QUALIFIERS][96];
    char title[512];
    char xlabel[256], ylabel[256]; /* heat map axes: the parameter names */
    char ref[160];                 /* speedup: the OpenMP device; heat map: parameters maximised over */
    const fb_record *rep;          /* the first record of the figure: host, device, precision */
    /* The roofline's ceilings: the device's one triad (GB/s), whether it
     * includes cache reuse (its 3 arrays under 4x the cache: no DRAM
     * roof), and its peak (GFLOP/s) with where the peak comes from, for
     * the key; where a point is cache resident, the cache's roof: the best
     * triad measured within the cache (0: none in the records); and the
     * read ceiling of the triad's stream run (its dot, the bound of the
     * SpMV points: 0 where none was measured or it ran far below the
     * triad, FB_READ_CEILING_MIN_OF_TRIAD). */
    double ceiling_gbs, ceiling_gflops;
    int ceiling_reuse;
    char ceiling_why[256];
    double cache_gbs;
    char cache_why[128];
    double read_gbs;
    char **rows, **cols;
    int nrows, ncols;
    fb_cell *cells;
    int ncells;
} fb_figure;

typedef struct fb_figure_list {
    fb_figure *f;
    int n;
    char **notes; /* why a figure the data nearly had was not made, one line each */
    int nnotes;
} fb_figure_list;

/* The script (without ".gp") and a one-line description of each kind. */
const char *fb_figure_script(fb_figure_kind kind);
/* What a kind needs, for the line printed when a file has none:
 * "heat map: no sweep records with two swept parameters". */
const char *fb_figure_missing(fb_figure_kind kind);

/* Every figure of one kind the set has data for (possibly none). */
fb_status fb_figures_collect(const fb_results_set *set, fb_figure_kind kind, fb_figure_list *out);

/* GB/s of each kernel against the numeric record field `field` (a dotted
 * path: "kernel_resources.occupancy", "counters.derived.ipc",
 * "params.WG_SIZE"), one figure per device, precision and matrix with at
 * least two values of it; best GB/s per (value, kernel). */
fb_status fb_figures_collect_beside(const fb_results_set *set, const char *field, fb_figure_list *out);

/* Whether the kind's bars carry whiskers: its table gives each series three
 * columns, "NAME,NAME lo,NAME hi" (docs/plots-and-compare.md). */
int fb_figure_has_whiskers(fb_figure_kind kind);

/* How many of the figure's cells rest on an unstable or contended record. */
int fb_figure_flagged(const fb_figure *fig);

/* Those of them a bar figure draws hatched, each series's in a second
 * column after the others ("NAME (unstable or contended)"; the first
 * holds NaN there): fb_figure_flagged for the kinds that hatch (speedup,
 * steps, stream, blockshape, variants, percell, energy, stepenergy), else
 * 0. */
int fb_figure_hatched(const fb_figure *f);

/* The speedup table's columns of figures that are no figure to trust:
 * "DEVICE" FB_FIGURE_UNTRUSTED_SUFFIX (docs/plots-and-compare.md). */
#define FB_FIGURE_UNTRUSTED_SUFFIX " (unstable or contended)"

/* Writes the figure's data file (CSV, documented per kind). */
fb_status fb_figure_write(const fb_figure *fig, const char *path);

void fb_figure_list_free(fb_figure_list *list);

#endif
