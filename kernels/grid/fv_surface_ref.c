/* fv_surface_ref.c - the serial reference every fv-surface run is checked
 * against: the residual in double, each cell's faces added in the order
 * the deterministic variants keep, and the magnitude of its terms (the
 * error scale of the check in fv_surface_run.c). */
#include "fv_surface.h"

#include <math.h>

/* The reference's flux: the twins' code, in double (kernels/grid/). */
#define REAL double
#define FV_FN(base) base##ref
#include "fv_surface_flux.h"
#undef REAL
#undef FV_FN

/* Magnitude of the terms of one face's flux x area (the error scale). */
static void flux_scale(int d, const double *uL, const double *uR, double area, double *s)
{
    double unL = uL[1 + d] / uL[0], unR = uR[1 + d] / uR[0];
    double pL = 0.4 * (uL[4] - 0.5 * (uL[1] * uL[1] + uL[2] * uL[2] + uL[3] * uL[3]) / uL[0]);
    double pR = 0.4 * (uR[4] - 0.5 * (uR[1] * uR[1] + uR[2] * uR[2] + uR[3] * uR[3]) / uR[0]);
    double smax = fmax(fabs(unL) + sqrt(1.4 * pL / uL[0]), fabs(unR) + sqrt(1.4 * pR / uR[0]));
    for (int v = 0; v < FV_NVAR; ++v) {
        double fl = fabs(uL[v] * unL) + (v == 1 + d ? fabs(pL) : 0) + (v == 4 ? fabs(pL * unL) : 0);
        double fr = fabs(uR[v] * unR) + (v == 1 + d ? fabs(pR) : 0) + (v == 4 ? fabs(pR * unR) : 0);
        s[v] = area * (0.5 * (fl + fr) + 0.5 * smax * fabs(uR[v] - uL[v]));
    }
}

static size_t cell_of(const fb_fv_grid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->nx * ((size_t)j + (size_t)g->ny * (size_t)k);
}

/* The cell one step along d from (i, j, k), periodic. */
static size_t step_of(const fb_fv_grid *g, int i, int j, int k, int d, int step)
{
    int idx[3] = {i, j, k}, n[3] = {g->nx, g->ny, g->nz};
    idx[d] = (idx[d] + step + n[d]) % n[d];
    return cell_of(g, idx[0], idx[1], idx[2]);
}

static void reference_cell(const fb_fv_grid *g, const double *U, int i, int j, int k, double *r, double *s)
{
    const size_t c = cell_of(g, i, j, k);
    const double *uc = U + c * FV_NVAR;
    double lo[FV_NVAR], hi[FV_NVAR], slo[FV_NVAR], shi[FV_NVAR];
    for (int v = 0; v < FV_NVAR; ++v)
        r[v] = s[v] = 0;
    for (int d = 0; d < 3; ++d) {
        const double *ul = U + step_of(g, i, j, k, d, -1) * FV_NVAR, *uh = U + step_of(g, i, j, k, d, 1) * FV_NVAR;
        fv_rusanov_ref(d, ul, uc, g->area[d], lo);
        fv_rusanov_ref(d, uc, uh, g->area[d], hi);
        flux_scale(d, ul, uc, g->area[d], slo);
        flux_scale(d, uc, uh, g->area[d], shi);
        for (int v = 0; v < FV_NVAR; ++v) {
            r[v] = r[v] + lo[v]; /* the order every deterministic variant keeps */
            r[v] = r[v] - hi[v];
            s[v] += slo[v] + shi[v];
        }
    }
}

void fb_fv_reference(const fb_fv_grid *g, const double *U, double *R, double *S)
{
    for (int k = 0; k < g->nz; ++k)
        for (int j = 0; j < g->ny; ++j)
            for (int i = 0; i < g->nx; ++i) {
                const size_t c = cell_of(g, i, j, k) * FV_NVAR;
                reference_cell(g, U, i, j, k, R + c, S + c);
            }
}
