/* fv_surface_grid.c - fv-surface problems: "grid:NXxNYxNZ" specs and the
 * initial field every run starts from. */
#include "fv_surface.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- grids ------------------------------------------------------------ */

/* One decimal size at *s (digits only, 1..4096); advances *s. */
static fb_status parse_size(const char *spec, const char **s, const char *what, int *out)
{
    fb_status status = FB_OK;
    char *end;
    if (!isdigit((unsigned char)**s))
        FB_FAIL(FB_ERR_USAGE, "%s: %s is not a number (expected grid:NXxNYxNZ)", spec, what);
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (errno || v < 1 || v > 4096) FB_FAIL(FB_ERR_USAGE, "%s: %s must be 1..4096", spec, what);
    *out = (int)v;
    *s = end;
fail:
    return status;
}

static fb_status parse_spec(const char *spec, fb_fv_grid *g)
{
    fb_status status = FB_OK;
    const char *s = spec;
    const char *names[3] = {"NX", "NY", "NZ"};
    int *dims[3] = {&g->nx, &g->ny, &g->nz};
    if (strncmp(s, "grid:", 5) != 0) FB_FAIL(FB_ERR_USAGE, "%s: not a grid spec (expected grid:NXxNYxNZ)", spec);
    s += 5;
    for (int d = 0; d < 3; ++d) {
        FB_CHECK(parse_size(spec, &s, names[d], dims[d]));
        if (d < 2 && *s != 'x') FB_FAIL(FB_ERR_USAGE, "%s: expected 'x' after %s (grid:NXxNYxNZ)", spec, names[d]);
        if (d < 2) ++s;
    }
    if (*s) FB_FAIL(FB_ERR_USAGE, "%s: unexpected '%s' after NZ (grid:NXxNYxNZ)", spec, s);
    if ((long long)g->nx * g->ny * g->nz > FV_MAX_CELLS)
        FB_FAIL(FB_ERR_USAGE, "%s: %lld cells, more than %d", spec, (long long)g->nx * g->ny * g->nz, FV_MAX_CELLS);
    if (strlen(spec) >= sizeof g->spec) FB_FAIL(FB_ERR_USAGE, "%s: spec too long", spec);
    snprintf(g->spec, sizeof g->spec, "%s", spec);
    g->cells = g->nx * g->ny * g->nz;
fail:
    return status;
}

/* A smooth periodic flow on the unit cube: density 0.7..1.3, pressure
 * 0.9..1.1, velocities up to 0.35, so every face has a different flux. */
static void fill_field(fb_fv_grid *g)
{
    const double tau = 6.283185307179586;
    for (int k = 0; k < g->nz; ++k)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                double x = (i + 0.5) / g->nx, y = (j + 0.5) / g->ny, z = (k + 0.5) / g->nz;
                double rho = 1.0 + 0.2 * sin(tau * x) * cos(tau * y) + 0.1 * sin(tau * z);
                double u = 0.3 * sin(tau * y), v = 0.2 * cos(tau * z), w = 0.1 * sin(tau * x) + 0.05;
                double p = 1.0 + 0.1 * cos(tau * (x + y + z));
                double *U = g->U + ((size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * k)) * FV_NVAR;
                U[0] = rho;
                U[1] = rho * u;
                U[2] = rho * v;
                U[3] = rho * w;
                U[4] = p / 0.4 + 0.5 * rho * (u * u + v * v + w * w);
            }
}

static unsigned long long field_hash(const fb_fv_grid *g)
{
    unsigned long long h = 1469598103934665603ULL; /* FNV-1a over the field's bytes */
    const unsigned char *b = (const unsigned char *)g->U;
    for (size_t i = 0; i < (size_t)g->cells * FV_NVAR * sizeof(double); ++i)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

fb_status fb_fv_grid_parse(const char *spec)
{
    fb_fv_grid g;
    memset(&g, 0, sizeof g);
    return parse_spec(spec, &g);
}

fb_status fb_fv_grid_open(const char *spec, fb_fv_grid **out)
{
    fb_status status = FB_OK;
    fb_fv_grid *g = NULL;
    char hash[32];
    *out = NULL;
    FB_ALLOC(g, 1, "a grid");
    FB_CHECK(parse_spec(spec, g));
    const size_t values = (size_t)g->cells * FV_NVAR;
    FB_ALLOC(g->U, values, "the grid's field");
    fill_field(g);
    g->area[0] = 1.0 / ((double)g->ny * g->nz);
    g->area[1] = 1.0 / ((double)g->nx * g->nz);
    g->area[2] = 1.0 / ((double)g->nx * g->ny);
    g->hash = field_hash(g);
    snprintf(hash, sizeof hash, "%016llx", g->hash);
    g->json = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:s}", "name", spec + 5, "spec", spec, "nx", g->nx, "ny", g->ny,
                        "nz", g->nz, "cells", g->cells, "hash", hash);
    if (!g->json) FB_FAIL(FB_ERR_NOMEM, "%s: out of memory building its record", spec);
    *out = g;
    return FB_OK;
fail:
    fb_fv_grid_close(g);
    return status;
}

void fb_fv_grid_close(fb_fv_grid *g)
{
    if (!g) return;
    json_decref(g->json);
    free(g->U);
    free(g);
}
