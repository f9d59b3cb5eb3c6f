/* heat2d_ref.c - the serial reference every heat2d run is checked against:
 * the backward-Euler cell update every kernel computes, lexicographic
 * Gauss-Seidel in double, and the truncation and contraction numbers the
 * check's bounds come from (see heat2d.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat2d.h"

#define MAX_REFERENCE_SWEEPS 100000

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
