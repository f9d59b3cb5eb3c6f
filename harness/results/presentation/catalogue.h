/* catalogue.h - what can run here, as the commands list it: `devices` (every
 * backend, its devices and the properties that matter for tuning, or why
 * it has none) and `spmv`, `grid` and `solve --list` (a family's model,
 * reference, kernels and their parameter axes). */
#ifndef FB_PRESENTATION_CATALOGUE_H
#define FB_PRESENTATION_CATALOGUE_H

#include <stdio.h>

#include <jansson.h>

#include "../../core/params.h"

/* One line per parameter axis: "INDENT NAME = {v, ...}, default D: help",
 * marking launch-geometry-only axes and the axis's role. */
void fb_catalogue_print_axes(FILE *f, const fb_param_axis *axes, int naxes, const char *indent);

/* The SpMV family: its kernels with their axes, the peers (available or
 * why not), auto, and the kernel files registered before listing. */
void fb_catalogue_print_spmv(FILE *f);

/* The structured-grid families (problem key "grid") and their kernels. */
void fb_catalogue_print_grid(FILE *f);

/* The solver's family: its kernels in launch order and their axes. */
void fb_catalogue_print_solver(FILE *f);

/* Every backend: {"backends": [{"name", "available", "devices": [...],
 * "reason" where none}]}; with text non-NULL, the same as lines there
 * (a device's id, name, vendor, sizes, clock, versions). */
json_t *fb_catalogue_devices(FILE *text);

#endif
