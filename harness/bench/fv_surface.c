/* fv_surface.c - the fv-surface family as data and its reference: the
 * kernels' parameter spaces and constraints, grid specs and the initial
 * field, the flop/byte model, the serial reference and the check. The
 * launch side is fv_surface_run.c; the sweep family and the record are
 * fv_surface_family.c. */
#include "fv_surface.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference's flux: the twins' code, in double (kernels/grid/). */
#define REAL double
#define FV_SQRT sqrt
#define FV_FN(base) base##ref
#include "grid/fv_surface_flux.h"
#undef REAL
#undef FV_SQRT
#undef FV_FN

#define FV_AXES                                                                                                        \
    {                                                                                                                  \
        {"LAYOUT", 1, {0, 1, 2}, 3, "cell layout: 0 AoS, 1 SoA, 2 AoSoA", 0},                                          \
            {"AOSOA_BLOCK", 8, {4, 8, 16, 32}, 4, "cells per AoSoA block (LAYOUT 2 only)", 0},                         \
            {"WG_SIZE", 128, {32, 64, 128, 256, 512, 1024}, 6, "work-group size (CUDA: __launch_bounds__)", 0},        \
        {                                                                                                              \
            "LOCAL_RESERVE", 0, {0, 8192, 24576, 49152}, 4, "local memory bytes reserved per group (occupancy cap)", 0 \
        }                                                                                                              \
    }

const fb_fv_kernel fb_fv_kernels[FB_FV_KERNEL_COUNT] = {
    {"fv-passes", "6 passes, one per direction and side: each cell updated by one face per pass, no races", 1, FV_AXES},
    {"fv-atomic", "one pass over all faces, atomic adds into both neighbours", 0, FV_AXES},
    {"fv-gather", "face fluxes to a face array, then each cell sums its 6 faces", 1, FV_AXES},
};

/* Longest chain of rounded operations from the inputs to one face term
 * (kinetic energy 5, pressure 2, sound speed 3, wave speed 2, dissipation 2,
 * average and area 2): the flux's share of the error bound. */
#define FV_FLUX_DEPTH 16

fb_param_point fb_fv_default_point(void)
{
    fb_param_point p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < FB_FV_NPARAMS; ++i)
        p.values[i] = fb_fv_kernels[0].params[i].def;
    return p;
}

void fb_fv_layout_name(const fb_param_point *p, char *out, size_t len)
{
    int layout = p->values[FB_FV_LAYOUT];
    if (layout == 2)
        snprintf(out, len, "aosoa%d", p->values[FB_FV_AOSOA_BLOCK]);
    else
        snprintf(out, len, "%s", layout == 0 ? "aos" : "soa");
}

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

/* ---- constraints ---------------------------------------------------------- */

static fb_status in_space(const fb_fv_kernel *k, const fb_param_point *p)
{
    fb_status status = FB_OK;
    for (int i = 0; i < FB_FV_NPARAMS; ++i) {
        int ok = 0;
        for (int v = 0; v < k->params[i].nvalues; ++v)
            ok |= k->params[i].values[v] == p->values[i];
        if (!ok) FB_FAIL(FB_ERR_USAGE, "%s: %s=%d is not in its space", k->name, k->params[i].name, p->values[i]);
    }
fail:
    return status;
}

fb_status fb_fv_check_point(const fb_fv_grid *g, const fb_fv_config *cfg, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const fb_fv_kernel *k = &fb_fv_kernels[cfg->kernel];
    const int *v = cfg->point.values;
    (void)g;
    FB_CHECK(in_space(k, &cfg->point));
    if (v[FB_FV_LAYOUT] != 2 && v[FB_FV_AOSOA_BLOCK] != k->params[FB_FV_AOSOA_BLOCK].def)
        FB_FAIL(FB_ERR_USAGE, "%s: AOSOA_BLOCK applies to LAYOUT 2 only (the LAYOUT %d run is the one at %d)", k->name,
                v[FB_FV_LAYOUT], k->params[FB_FV_AOSOA_BLOCK].def);
    if (dev->max_work_group_size && (size_t)v[FB_FV_WG_SIZE] > dev->max_work_group_size)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: WG_SIZE %d exceeds the device limit %zu", k->name, dev->id, v[FB_FV_WG_SIZE],
                dev->max_work_group_size);
    if (dev->max_work_item_sizes[0] && (size_t)v[FB_FV_WG_SIZE] > dev->max_work_item_sizes[0])
        FB_FAIL(FB_ERR_USAGE, "%s on %s: WG_SIZE %d exceeds the device's dimension-0 limit %zu", k->name, dev->id,
                v[FB_FV_WG_SIZE], dev->max_work_item_sizes[0]);
    if (dev->local_mem_bytes && (size_t)v[FB_FV_LOCAL_RESERVE] > dev->local_mem_bytes)
        FB_FAIL(FB_ERR_USAGE, "%s on %s: LOCAL_RESERVE %d exceeds the device's %zu bytes of local memory", k->name,
                dev->id, v[FB_FV_LOCAL_RESERVE], dev->local_mem_bytes);
    if (cfg->is_double && !dev->double_support)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: device has no double precision (use --precision single)", dev->id);
    /* atomicAdd on double is native from sm_60; OpenCL's 64-bit
     * compare-and-swap (cl_khr_int64_base_atomics) is checked when the
     * kernel compiles (its #error names the extension) */
    if (cfg->kernel == FB_FV_ATOMIC && cfg->is_double && dev->cc_major && dev->cc_major < 6)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s on %s: double atomicAdd needs compute capability 6.0", k->name, dev->id);
fail:
    return status;
}

/* ---- model -------------------------------------------------------------- */

/* Per face: 2 x 14 (1 / rho, normal velocity, kinetic energy, pressure,
 * sound speed), 3 (wave speed), 2 x 8 (physical fluxes: 5 products u_n U,
 * + p on the normal momentum, + p u_n on the energy), 1 + 5 x 2
 * (dissipation), 5 x 4 (average, difference, area): 78, of which 2
 * divisions and 2 square roots. Per cell: 3 faces + 6 x 5 additions = 264. */
#define FV_FLOPS_PER_FACE 78.0
#define FV_FLOPS_PER_CELL (3.0 * FV_FLOPS_PER_FACE + 30.0)

fb_fv_model fb_fv_model_of(int kernel, int cells, int real_bytes)
{
    /* REALs per cell each variant moves (fv_surface.cl's header) */
    static const double moved[FB_FV_KERNEL_COUNT] = {85.0, 20.0, 40.0};
    fb_fv_model m;
    m.flops = FV_FLOPS_PER_CELL * cells;
    m.min_bytes = 10.0 * real_bytes * cells;
    m.moved_bytes = moved[kernel] * real_bytes * cells;
    return m;
}

/* ---- reference and check ---------------------------------------------- */

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

/* Bit for bit where the additions follow the reference's order and the
 * arithmetic is the reference's: double precision, a deterministic variant,
 * and a backend that does not fuse multiply-adds (NVRTC does by default). */
static int claims_bitwise(const fb_fv_config *cfg, const fb_device_info *dev)
{
    return cfg->is_double && fb_fv_kernels[cfg->kernel].deterministic && strcmp(dev->backend, "cuda") != 0;
}

/* Reassociating a cell's 6 terms costs up to 5 roundings of the sum of
 * their magnitudes, a face term up to FV_FLUX_DEPTH roundings of its own
 * magnitude; a factor 2 of slack as in the SpMV check. */
static double tolerance_of(const fb_fv_config *cfg, const fb_device_info *dev)
{
    double eps = cfg->is_double ? DBL_EPSILON : FLT_EPSILON;
    if (claims_bitwise(cfg, dev)) return 0;
    if (cfg->is_double && fb_fv_kernels[cfg->kernel].deterministic) return 2.0 * FV_FLUX_DEPTH * eps; /* FMA only */
    return 2.0 * (6 + FV_FLUX_DEPTH) * eps;
}

static fb_status rounded_field(const fb_fv_grid *g, int is_double, double **out)
{
    fb_status status = FB_OK;
    size_t n = (size_t)g->cells * FV_NVAR;
    FB_ALLOC(*out, n, "reference input");
    for (size_t i = 0; i < n; ++i)
        (*out)[i] = is_double ? g->U[i] : (double)(float)g->U[i];
fail:
    return status;
}

fb_status fb_fv_finish(const fb_fv_grid *g, const fb_fv_config *cfg, const fb_device_info *dev, fb_fv_result *r)
{
    fb_status status = FB_OK;
    size_t n = (size_t)g->cells * FV_NVAR;
    double *ref = NULL, *scale = NULL, *u = NULL, worst = 0, top = 0;
    int same = 1;
    r->model = fb_fv_model_of(cfg->kernel, g->cells, cfg->is_double ? 8 : 4);
    r->gflops = r->model.flops / r->m.stats.median * 1e-9;
    r->gbs = r->model.min_bytes / r->m.stats.median * 1e-9;
    r->ns_per_cell = r->m.stats.median / g->cells * 1e9;
    FB_ALLOC(ref, n, "reference residual");
    FB_ALLOC(scale, n, "reference scale");
    FB_CHECK(rounded_field(g, cfg->is_double, &u));
    fb_fv_grid seen = *g; /* the face areas as the device got them, too */
    for (int d = 0; d < 3; ++d) seen.area[d] = cfg->is_double ? g->area[d] : (double)(float)g->area[d];
    fb_fv_reference(&seen, u, ref, scale);
    for (size_t i = 0; i < n; ++i) {
        double e = fabs(r->R[i] - ref[i]);
        if (!(e <= worst)) worst = e; /* NaN counts as the worst */
        if (scale[i] > top) top = scale[i];
        same &= r->R[i] == ref[i];
    }
    r->rel_error = top > 0 ? worst / top : worst;
    r->bitwise = same;
    r->tolerance = tolerance_of(cfg, dev);
    r->checked_ok = r->rel_error <= r->tolerance;
    if (!r->checked_ok)
        FB_FAIL(FB_ERR_CHECK, "%s on %s: wrong residual (relative error %.3g > tolerance %.3g%s)",
                fb_fv_kernels[cfg->kernel].name, dev->id, r->rel_error, r->tolerance,
                r->tolerance == 0 ? ", bitwise equality expected" : "");
fail:
    free(ref);
    free(scale);
    free(u);
    return status;
}
