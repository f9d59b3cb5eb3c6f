/* heat2d_grid.c - the heat2d problem: grid specs, the stretched mesh, the
 * exact decaying mode, the truncation and contraction numbers the check's
 * bounds come from, and the serial reference solver (see heat2d.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hash.h"
#include "heat2d.h"

#define SPEC_FORM "expected grid:NXxNY[:stretch=R], e.g. grid:101x101:stretch=4"
#define MIN_CELLS_PER_DIM 3
#define MAX_CELLS_PER_DIM 65536
#define MAX_STRETCH 1000.0
#define MAX_REFERENCE_SWEEPS 100000

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
static void conductances(const fb_heat2d_grid *g, int i, int j, double G[4])
{
    G[0] = g->dy[j] * g->gx[i];
    G[1] = g->dy[j] * g->gx[i + 1];
    G[2] = g->dx[i] * g->gy[j];
    G[3] = g->dx[i] * g->gy[j + 1];
}

/* phi = sx[i] sy[j] (sin at the centres, 0 beyond the walls: index 0 and
 * n + 1 of the padded arrays), so the truncation pass needs no sin per cell. */
static double *padded_sines(int n, const double *c, double L)
{
    double *s = calloc((size_t)n + 2, sizeof *s);
    if (s)
        for (int m = 0; m < n; ++m)
            s[m + 1] = sin(M_PI * c[m] / L);
    return s;
}

double fb_heat2d_truncation(const fb_heat2d_grid *g)
{
    const double lambda = fb_heat2d_decay_rate(g);
    double *sx = padded_sines(g->nx, g->xc, g->lx), *sy = padded_sines(g->ny, g->yc, g->ly), worst = 0;
    if (!sx || !sy) worst = INFINITY; /* no memory: no bound, the check will say so */
    for (int j = 0; j < g->ny && sx && sy; ++j)
        for (int i = 0; i < g->nx; ++i) {
            double G[4], p = sx[i + 1] * sy[j + 1];
            double nb[4] = {sx[i] * sy[j + 1], sx[i + 2] * sy[j + 1], sx[i + 1] * sy[j], sx[i + 1] * sy[j + 2]};
            conductances(g, i, j, G);
            double flux = 0;
            for (int f = 0; f < 4; ++f)
                flux += G[f] * (nb[f] - p);
            worst = fmax(worst, fabs(flux / (g->dx[i] * g->dy[j]) + lambda * p));
        }
    free(sx);
    free(sy);
    return worst;
}

double fb_heat2d_contraction(const fb_heat2d_grid *g, double dt)
{
    double worst = 0;
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i) {
            double G[4];
            conductances(g, i, j, G);
            double sum = G[0] + G[1] + G[2] + G[3];
            worst = fmax(worst, sum / (g->dx[i] * g->dy[j] / dt + sum));
        }
    return worst;
}

double fb_heat2d_cell_update(const fb_heat2d_grid *g, double inv_dt, const double *tn, const double *T, int i, int j)
{
    const int nx = g->nx, ny = g->ny;
    const size_t at = (size_t)j * nx + (size_t)i;
    double G[4], vdt = g->dx[i] * g->dy[j] * inv_dt;
    conductances(g, i, j, G);
    double sum = vdt * tn[at];
    sum += G[0] * (i > 0 ? T[at - 1] : 0) + G[1] * (i + 1 < nx ? T[at + 1] : 0);
    sum += G[2] * (j > 0 ? T[at - nx] : 0) + G[3] * (j + 1 < ny ? T[at + nx] : 0);
    return sum / (vdt + G[0] + G[1] + G[2] + G[3]);
}

/* One lexicographic Gauss-Seidel sweep in place; returns the largest change. */
static double gauss_seidel_sweep(const fb_heat2d_grid *g, double inv_dt, const double *tn, double *T)
{
    double worst = 0;
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i) {
            const size_t at = (size_t)j * g->nx + (size_t)i;
            double v = fb_heat2d_cell_update(g, inv_dt, tn, T, i, j);
            worst = fmax(worst, fabs(v - T[at]));
            T[at] = v;
        }
    return worst;
}

fb_status fb_heat2d_reference(const fb_heat2d_grid *g, double dt, int nsteps, double tol, double *T, int *sweeps)
{
    fb_status status = FB_OK;
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    double *tn = NULL;
    int total = 0;
    FB_ALLOC(tn, n, "reference previous step");
    for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i)
            T[(size_t)j * g->nx + i] = fb_heat2d_exact(g, i, j, 0);
    for (int step = 0; step < nsteps; ++step) {
        int s = 0;
        memcpy(tn, T, n * sizeof *tn);
        while (gauss_seidel_sweep(g, 1.0 / dt, tn, T) > tol)
            if (++s >= MAX_REFERENCE_SWEEPS)
                FB_FAIL(FB_ERR_CHECK, "%s: reference step %d did not converge in %d sweeps", g->spec, step + 1, s);
        total += s + 1;
    }
    if (sweeps) *sweeps = total;
fail:
    free(tn);
    return status;
}
