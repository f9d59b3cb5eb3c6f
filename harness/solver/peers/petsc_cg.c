/* petsc_cg.c - PETSc's CG on the pressure system (contracts in
 * petsc_cg.h). */
#include "solver/peers/petsc_cg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FB_HAVE_PETSC
#include "core/clock.h"
#include "core/stats.h"
#include "spmv/petsc_api.h"

#define CHECK_PETSC(call, what)                                                                                        \
    do {                                                                                                               \
        if ((call) != 0) FB_FAIL(FB_ERR_BACKEND, "--peer petsc: %s failed", (what));                                   \
    } while (0)

typedef struct petsc_system {
    const fb_petsc_api *api;
    Mat A;
    Vec b, x, y;
    KSP ksp;
} petsc_system;

/* The matrix wraps m's arrays, which PETSc only reads (its prototypes take
 * them non-const); b is wrapped the same way. */
static fb_status wrap(petsc_system *s, const fb_pressure_csr *m)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    CHECK_PETSC(
        api->mat_create(api->self, m->n, m->n, (PetscInt *)m->rowptr, (PetscInt *)m->col, (PetscScalar *)m->val, &s->A),
        "MatCreateSeqAIJWithArrays");
    CHECK_PETSC(api->vec_wrap(api->self, 1, m->n, m->b, &s->b), "VecCreateSeqWithArray");
    CHECK_PETSC(api->vec_create(api->self, m->n, &s->x), "VecCreateSeq");
    CHECK_PETSC(api->vec_create(api->self, m->n, &s->y), "VecCreateSeq");
fail:
    return status;
}

/* KSPCG + PCJACOBI at flowbench's stopping test: the unpreconditioned
 * residual relative to ||b|| (x starts at 0, PETSc's default). */
static fb_status configure(petsc_system *s, double tol, int max_its)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    PC pc;
    CHECK_PETSC(api->ksp_create(api->self, &s->ksp), "KSPCreate");
    CHECK_PETSC(api->ksp_set_operators(s->ksp, s->A, s->A), "KSPSetOperators");
    CHECK_PETSC(api->ksp_set_type(s->ksp, KSPCG), "KSPSetType(cg)");
    CHECK_PETSC(api->ksp_get_pc(s->ksp, &pc), "KSPGetPC");
    CHECK_PETSC(api->pc_set_type(pc, PCJACOBI), "PCSetType(jacobi)");
    CHECK_PETSC(api->ksp_set_tolerances(s->ksp, tol, 0.0, PETSC_DEFAULT, max_its), "KSPSetTolerances");
    CHECK_PETSC(api->ksp_set_norm_type(s->ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType(unpreconditioned)");
fail:
    return status;
}

static fb_status solve(petsc_system *s, const fb_pressure_csr *m, double *x, fb_petsc_cg_result *out)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    const PetscScalar *v = NULL;
    PetscInt its = 0;
    PetscReal rnorm = 0;
    KSPConvergedReason reason;
    double b2 = 0.0, t0 = fb_now();
    CHECK_PETSC(api->ksp_set_up(s->ksp), "KSPSetUp");
    const double t1 = fb_now();
    CHECK_PETSC(api->ksp_solve(s->ksp, s->b, s->x), "KSPSolve");
    out->setup_s = t1 - t0, out->solve_s = fb_now() - t1;
    CHECK_PETSC(api->ksp_iterations(s->ksp, &its), "KSPGetIterationNumber");
    CHECK_PETSC(api->ksp_residual_norm(s->ksp, &rnorm), "KSPGetResidualNorm");
    CHECK_PETSC(api->ksp_reason(s->ksp, &reason), "KSPGetConvergedReason");
    for (int i = 0; i < m->n; ++i)
        b2 += m->b[i] * m->b[i];
    out->its = (int)its, out->est_res = b2 > 0 ? rnorm / sqrt(b2) : 0.0;
    if (reason < 0)
        FB_FAIL(FB_ERR_CHECK,
                "--peer petsc: PETSc's CG stopped without converging (KSPConvergedReason %d) after %d "
                "iterations, residual %.3g of ||b||",
                (int)reason, out->its, out->est_res);
    CHECK_PETSC(api->vec_read(s->x, &v), "VecGetArrayRead");
    memcpy(x, v, sizeof *x * (size_t)m->n);
    CHECK_PETSC(api->vec_unread(s->x, &v), "VecRestoreArrayRead");
fail:
    return status;
}

/* Median seconds of one MatMult y = A x over repeats. */
static fb_status time_spmv(petsc_system *s, int repeats, double *median_s)
{
    fb_status status = FB_OK;
    double *times = NULL;
    FB_ALLOC(times, repeats > 0 ? repeats : 1, "the SpMV timings");
    for (int k = 0; k < repeats; ++k) {
        const double t0 = fb_now();
        CHECK_PETSC(s->api->mat_mult(s->A, s->x, s->y), "MatMult");
        times[k] = fb_now() - t0;
    }
    *median_s = repeats > 0 ? fb_median(times, (size_t)repeats) : 0.0;
fail:
    free(times);
    return status;
}

static void release(petsc_system *s)
{
    if (s->ksp) s->api->ksp_destroy(&s->ksp);
    Vec *vecs[] = {&s->b, &s->x, &s->y};
    for (size_t k = 0; k < sizeof vecs / sizeof *vecs; ++k)
        if (*vecs[k]) s->api->vec_destroy(vecs[k]);
    if (s->A) s->api->mat_destroy(&s->A);
}

fb_status fb_petsc_cg(const fb_pressure_csr *m, double tol, int max_its, int spmv_repeats, double *x,
                      fb_petsc_cg_result *out)
{
    fb_status status = FB_OK;
    char why[512];
    petsc_system s = {.api = fb_petsc_open(why, sizeof why)};
    memset(out, 0, sizeof *out);
    snprintf(out->version, sizeof out->version, "%s", FB_PETSC_VERSION);
    if (!s.api) FB_FAIL(FB_ERR_UNAVAILABLE, "--peer petsc: PETSc %s could not be opened: %s", FB_PETSC_VERSION, why);
    FB_CHECK(wrap(&s, m));
    FB_CHECK(configure(&s, tol, max_its));
    FB_CHECK(solve(&s, m, x, out));
    FB_CHECK(time_spmv(&s, spmv_repeats, &out->spmv_s));
fail:
    if (s.api) release(&s);
    return status;
}

#else

fb_status fb_petsc_cg(const fb_pressure_csr *m, double tol, int max_its, int spmv_repeats, double *x,
                      fb_petsc_cg_result *out)
{
    (void)m, (void)tol, (void)max_its, (void)spmv_repeats, (void)x, (void)out;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "--peer petsc: not built");
}

#endif
