/* petsc_cg.c - PETSc's CG on the pressure system (contracts in
 * petsc_cg.h). */
#include "solver/peers/petsc_cg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FB_HAVE_PETSC
#include "core/clock.h"
#include "core/comm.h"
#include "core/stats.h"
#include "spmv/petsc_api.h"

#define CHECK_PETSC(call, what)                                                                                        \
    do {                                                                                                               \
        if ((call) != 0) FB_FAIL(FB_ERR_BACKEND, "--peer petsc: %s failed", (what));                                   \
    } while (0)

typedef struct petsc_system {
    const fb_petsc_api *api;
    MPI_Comm comm; /* PETSC_COMM_SELF on one process, MPI_COMM_WORLD on ranks */
    const fb_petsc_rows *rows;
    Mat A;
    Vec b, x, y;
    KSP ksp;
} petsc_system;

/* On one process the matrix wraps the rows' arrays, which PETSc only reads
 * (its prototypes take them non-const); on ranks MatCreateMPIAIJWithArrays
 * copies them into its diagonal and off-diagonal blocks. b is wrapped. */
static fb_status wrap(petsc_system *s)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    const fb_petsc_rows *r = s->rows;
    if (r->ranks > 1) {
        CHECK_PETSC(api->mat_create_mpi(s->comm, r->n, r->n, r->nglobal, r->nglobal, r->rowptr, r->col, r->val, &s->A),
                    "MatCreateMPIAIJWithArrays");
        CHECK_PETSC(api->vec_wrap_mpi(s->comm, 1, r->n, r->nglobal, r->b, &s->b), "VecCreateMPIWithArray");
        CHECK_PETSC(api->vec_create_mpi(s->comm, r->n, r->nglobal, &s->x), "VecCreateMPI");
        CHECK_PETSC(api->vec_create_mpi(s->comm, r->n, r->nglobal, &s->y), "VecCreateMPI");
        goto fail;
    }
    CHECK_PETSC(
        api->mat_create(s->comm, r->n, r->n, (PetscInt *)r->rowptr, (PetscInt *)r->col, (PetscScalar *)r->val, &s->A),
        "MatCreateSeqAIJWithArrays");
    CHECK_PETSC(api->vec_wrap(s->comm, 1, r->n, r->b, &s->b), "VecCreateSeqWithArray");
    CHECK_PETSC(api->vec_create(s->comm, r->n, &s->x), "VecCreateSeq");
    CHECK_PETSC(api->vec_create(s->comm, r->n, &s->y), "VecCreateSeq");
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
    CHECK_PETSC(api->ksp_create(s->comm, &s->ksp), "KSPCreate");
    CHECK_PETSC(api->ksp_set_operators(s->ksp, s->A, s->A), "KSPSetOperators");
    CHECK_PETSC(api->ksp_set_type(s->ksp, KSPCG), "KSPSetType(cg)");
    CHECK_PETSC(api->ksp_get_pc(s->ksp, &pc), "KSPGetPC");
    CHECK_PETSC(api->pc_set_type(pc, PCJACOBI), "PCSetType(jacobi)");
    CHECK_PETSC(api->ksp_set_tolerances(s->ksp, tol, 0.0, PETSC_DEFAULT, max_its), "KSPSetTolerances");
    CHECK_PETSC(api->ksp_set_norm_type(s->ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType(unpreconditioned)");
fail:
    return status;
}

/* ||b||^2 of the whole system (summed over ranks; one process: its rows). */
static double b_norm2(const fb_petsc_rows *r)
{
    double b2 = 0.0;
    for (int i = 0; i < r->n; ++i)
        b2 += r->b[i] * r->b[i];
    fb_comm_allreduce(&b2, 1, FB_COMM_SUM);
    return b2;
}

static fb_status solve(petsc_system *s, double b2, double *x, fb_petsc_cg_result *out)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    const PetscScalar *v = NULL;
    PetscInt its = 0;
    PetscReal rnorm = 0;
    KSPConvergedReason reason;
    fb_comm_barrier(); /* on ranks every rank starts the clock together (no-op on one) */
    double t0 = fb_now();
    CHECK_PETSC(api->ksp_set_up(s->ksp), "KSPSetUp");
    const double t1 = fb_now();
    CHECK_PETSC(api->ksp_solve(s->ksp, s->b, s->x), "KSPSolve");
    out->setup_s = t1 - t0, out->solve_s = fb_now() - t1;
    CHECK_PETSC(api->ksp_iterations(s->ksp, &its), "KSPGetIterationNumber");
    CHECK_PETSC(api->ksp_residual_norm(s->ksp, &rnorm), "KSPGetResidualNorm");
    CHECK_PETSC(api->ksp_reason(s->ksp, &reason), "KSPGetConvergedReason");
    out->its = (int)its, out->est_res = b2 > 0 ? rnorm / sqrt(b2) : 0.0;
    if (reason < 0)
        FB_FAIL(FB_ERR_CHECK,
                "--peer petsc: PETSc's CG stopped without converging (KSPConvergedReason %d) after %d "
                "iterations, residual %.3g of ||b||",
                (int)reason, out->its, out->est_res);
    CHECK_PETSC(api->vec_read(s->x, &v), "VecGetArrayRead");
    memcpy(x, v, sizeof *x * (size_t)s->rows->n);
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

/* ||b - A x|| / ||b|| over every rank by one MatMult of the assembled
 * matrix (collective): x is this rank's n values. */
static fb_status true_residual(petsc_system *s, const double *x, double b2, double *res)
{
    fb_status status = FB_OK;
    const fb_petsc_api *api = s->api;
    const fb_petsc_rows *r = s->rows;
    const PetscScalar *y = NULL;
    Vec xv = NULL;
    double r2 = 0.0;
    CHECK_PETSC(api->vec_wrap_mpi(s->comm, 1, r->n, r->nglobal, x, &xv), "VecCreateMPIWithArray");
    CHECK_PETSC(api->mat_mult(s->A, xv, s->y), "MatMult");
    CHECK_PETSC(api->vec_read(s->y, &y), "VecGetArrayRead");
    for (int i = 0; i < r->n; ++i)
        r2 += (r->b[i] - y[i]) * (r->b[i] - y[i]);
    CHECK_PETSC(api->vec_unread(s->y, &y), "VecRestoreArrayRead");
    fb_comm_allreduce(&r2, 1, FB_COMM_SUM);
    *res = b2 > 0 ? sqrt(r2 / b2) : 0.0;
fail:
    if (xv) api->vec_destroy(&xv);
    return status;
}

static fb_status residuals_on_ranks(petsc_system *s, double b2, const double *x_other, const double *x,
                                    fb_petsc_cg_result *out)
{
    fb_status status = FB_OK;
    out->true_res = out->other_res = NAN;
    if (s->rows->ranks <= 1) return FB_OK;
    FB_CHECK(true_residual(s, x, b2, &out->true_res));
    if (x_other) FB_CHECK(true_residual(s, x_other, b2, &out->other_res));
fail:
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

fb_status fb_petsc_cg(const fb_petsc_rows *rows, double tol, int max_its, int spmv_repeats, const double *x_other,
                      double *x, fb_petsc_cg_result *out)
{
    fb_status status = FB_OK;
    const double b2 = b_norm2(rows);
    char why[512];
    petsc_system s = {.api = fb_petsc_open(why, sizeof why), .rows = rows};
    memset(out, 0, sizeof *out);
    snprintf(out->version, sizeof out->version, "%s", FB_PETSC_VERSION);
    if (!s.api) FB_FAIL(FB_ERR_UNAVAILABLE, "--peer petsc: PETSc %s could not be opened: %s", FB_PETSC_VERSION, why);
    s.comm = rows->ranks > 1 ? s.api->world : s.api->self;
    FB_CHECK(wrap(&s));
    FB_CHECK(configure(&s, tol, max_its));
    FB_CHECK(solve(&s, b2, x, out));
    FB_CHECK(time_spmv(&s, spmv_repeats, &out->spmv_s));
    FB_CHECK(residuals_on_ranks(&s, b2, x_other, x, out));
fail:
    if (s.api) release(&s);
    return status;
}

#else

fb_status fb_petsc_cg(const fb_petsc_rows *rows, double tol, int max_its, int spmv_repeats, const double *x_other,
                      double *x, fb_petsc_cg_result *out)
{
    (void)rows, (void)tol, (void)max_its, (void)spmv_repeats, (void)x_other, (void)x, (void)out;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "--peer petsc: not built");
}

#endif
