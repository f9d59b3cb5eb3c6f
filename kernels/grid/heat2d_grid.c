/* heat2d_grid.c - the heat2d problem: grid specs, the stretched mesh and
 * the exact decaying mode (see heat2d.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "heat2d.h"

#define SPEC_FORM "expected grid:NXxNY[:stretch=R], e.g. grid:101x101:stretch=4"
#define MIN_CELLS_PER_DIM 3
#define MAX_CELLS_PER_DIM 65536
#define MAX_STRETCH 1000.0

/* A whole decimal integer at *s, advancing *s; 0 if there is none. */
static int read_int(const char **s, long *v)
{
    char *end;
    if (**s < '0' || **s > '9') return 0;
    errno = 0;
    *v = strtol(*s, &end, 10);
    if (errno) return 0;
    *s = end;
    return 1;
}

static fb_status parse_option(const char *spec, const char *opt, size_t len, fb_heat2d_grid *g, int *seen)
{
    fb_status status = FB_OK;
    char text[64], *end;
    if (len >= sizeof text) FB_FAIL(FB_ERR_USAGE, "%s: option '%.40s...' is too long (%s)", spec, opt, SPEC_FORM);
    snprintf(text, sizeof text, "%.*s", (int)len, opt);
    if (strncmp(text, "stretch=", 8) != 0) FB_FAIL(FB_ERR_USAGE, "%s: unknown option '%s' (%s)", spec, text, SPEC_FORM);
    if (*seen) FB_FAIL(FB_ERR_USAGE, "%s: stretch given twice", spec);
    *seen = 1;
    errno = 0;
    g->stretch = strtod(text + 8, &end);
    if (end == text + 8 || *end || errno || !(g->stretch >= 1.0 && g->stretch <= MAX_STRETCH))
        FB_FAIL(FB_ERR_USAGE, "%s: stretch '%s' is not a number in [1, %g] (widest / narrowest cell)", spec, text + 8,
                MAX_STRETCH);
fail:
    return status;
}

static fb_status parse_spec(const char *spec, fb_heat2d_grid *g)
{
    fb_status status = FB_OK;
    const char *s = spec;
    long nx = 0, ny = 0;
    int seen_stretch = 0;
    if (strlen(spec) >= sizeof g->spec) FB_FAIL(FB_ERR_USAGE, "%.60s...: grid spec too long", spec);
    if (strncmp(s, "grid:", 5) != 0) FB_FAIL(FB_ERR_USAGE, "%s: not a grid spec (%s)", spec, SPEC_FORM);
    s += 5;
    if (!read_int(&s, &nx) || *s++ != 'x' || !read_int(&s, &ny) || (*s && *s != ':'))
        FB_FAIL(FB_ERR_USAGE, "%s: bad size (%s)", spec, SPEC_FORM);
    if (nx < MIN_CELLS_PER_DIM || ny < MIN_CELLS_PER_DIM || nx > MAX_CELLS_PER_DIM || ny > MAX_CELLS_PER_DIM)
        FB_FAIL(FB_ERR_USAGE, "%s: NX and NY must be in %d..%d", spec, MIN_CELLS_PER_DIM, MAX_CELLS_PER_DIM);
    if (nx * ny > FB_HEAT2D_MAX_CELLS)
        FB_FAIL(FB_ERR_USAGE, "%s: %ld cells exceed the limit %d", spec, nx * ny, FB_HEAT2D_MAX_CELLS);
    g->nx = (int)nx, g->ny = (int)ny, g->stretch = 1.0;
    while (*s == ':') {
        const char *opt = ++s;
        s += strcspn(s, ":");
        if (s == opt) FB_FAIL(FB_ERR_USAGE, "%s: empty option (%s)", spec, SPEC_FORM);
        FB_CHECK(parse_option(spec, opt, (size_t)(s - opt), g, &seen_stretch));
    }
    snprintf(g->spec, sizeof g->spec, "%s", spec);
fail:
    return status;
}

/* Widths growing geometrically by the same factor from 0 to L, widest /
 * narrowest = stretch; centres; k / centre distances (half cells at the walls). */
static void build_axis(int n, double L, double stretch, double k, double *w, double *c, double *gk)
{
    const double r = pow(stretch, 1.0 / (n - 1));
    double sum = 0, at = 0;
    for (int m = 0; m < n; ++m)
        sum += w[m] = pow(r, m);
    for (int m = 0; m < n; ++m) {
        w[m] *= L / sum;
        c[m] = at + 0.5 * w[m];
        at += w[m];
    }
    gk[0] = k / c[0];
    for (int m = 1; m < n; ++m)
        gk[m] = k / (c[m] - c[m - 1]);
    gk[n] = k / (L - c[n - 1]);
}

static double min_of(const double *v, int n, int want_max)
{
    double m = v[0];
    for (int i = 1; i < n; ++i)
        m = want_max ? fmax(m, v[i]) : fmin(m, v[i]);
    return m;
}

fb_status fb_heat2d_grid_parse(const char *spec)
{
    fb_heat2d_grid g;
    memset(&g, 0, sizeof g);
    return parse_spec(spec, &g);
}

fb_status fb_heat2d_grid_open(const char *spec, fb_heat2d_grid *g)
{
    fb_status status = FB_OK;
    memset(g, 0, sizeof *g);
    FB_CHECK(parse_spec(spec, g));
    g->lx = g->ly = g->k = 1.0;
    FB_ALLOC(g->dx, g->nx, "grid widths");
    FB_ALLOC(g->dy, g->ny, "grid widths");
    FB_ALLOC(g->xc, g->nx, "grid centres");
    FB_ALLOC(g->yc, g->ny, "grid centres");
    FB_ALLOC(g->gx, g->nx + 1, "grid conductances");
    FB_ALLOC(g->gy, g->ny + 1, "grid conductances");
    build_axis(g->nx, g->lx, g->stretch, g->k, g->dx, g->xc, g->gx);
    build_axis(g->ny, g->ly, g->stretch, g->k, g->dy, g->yc, g->gy);
    g->h_min = fmin(min_of(g->dx, g->nx, 0), min_of(g->dy, g->ny, 0));
    g->h_max = fmax(min_of(g->dx, g->nx, 1), min_of(g->dy, g->ny, 1));
    g->hash = fb_hash_bytes(FB_HASH_SEED, &g->nx, sizeof g->nx);
    g->hash = fb_hash_bytes(g->hash, &g->ny, sizeof g->ny);
    g->hash = fb_hash_bytes(g->hash, g->dx, (size_t)g->nx * sizeof *g->dx);
    g->hash = fb_hash_bytes(g->hash, g->dy, (size_t)g->ny * sizeof *g->dy);
    return FB_OK;
fail:
    fb_heat2d_grid_free(g);
    return status;
}

void fb_heat2d_grid_free(fb_heat2d_grid *g)
{
    free(g->dx), free(g->dy), free(g->xc), free(g->yc), free(g->gx), free(g->gy);
    g->dx = g->dy = g->xc = g->yc = g->gx = g->gy = NULL;
}

double fb_heat2d_decay_rate(const fb_heat2d_grid *g)
{
    return g->k * M_PI * M_PI * (1.0 / (g->lx * g->lx) + 1.0 / (g->ly * g->ly));
}

double fb_heat2d_exact(const fb_heat2d_grid *g, int i, int j, double t)
{
    return exp(-fb_heat2d_decay_rate(g) * t) * sin(M_PI * g->xc[i] / g->lx) * sin(M_PI * g->yc[j] / g->ly);
}

double fb_heat2d_check_dt(const fb_heat2d_grid *g) { return 0.5 * g->h_min * g->h_min / g->k; }

/* The four conductances of cell (i, j); walls have their own (half-cell) ones. */
