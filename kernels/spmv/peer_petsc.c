/* peer_petsc.c - PETSc's MatMult as a CPU peer. Debian's PETSc has no
 * OpenMP: it runs one core per process, so there are two layouts.
 *
 * One process: a SeqAIJ matrix wrapping the very CSR arrays the kernels
 * read (MatCreateSeqAIJWithArrays: no copy), x wrapped the same way, each
 * sample timing one MatMult with the monotonic clock (one core).
 *
 * Under mpirun (every rank runs the command; cmd_spmv.c): an MPIAIJ matrix
 * over MPI_COMM_WORLD, each rank copying in its block of rows (PETSc's
 * default split: n / P rows each, the first n % P ranks one more), the
 * way a PETSc user runs it on a node, one rank per core. A fixed number of
 * samples, each every rank starting together (a barrier) and lasting until
 * the slowest rank's MatMult ends (the maximum over ranks), so every rank
 * holds the same samples and the measurement policy then judges them as
 * usual without a collective inside it (ranks deciding apart would wait on
 * each other for ever). y comes together on every rank for the check.
 * Double precision only: Debian's build is real double.
 *
 * libpetsc_real is opened at the first run, not linked (petsc_api.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"

#include "core/comm.h"

#include "petsc_api.h"

#ifdef FB_HAVE_PETSC
static const fb_petsc_api *api;
static char api_why[512];

static int petsc_ready(void) { return (api = fb_petsc_open(api_why, sizeof api_why)) != NULL; }

#define CHECK_PETSC(call, what)                                                                                        \
    do {                                                                                                               \
        if ((call) != 0) FB_FAIL(FB_ERR_BACKEND, "peer:petsc: %s failed", (what));                                     \
    } while (0)

typedef struct petsc_run {
    fb_target *t;
    Mat A;
    Vec x, y;
} petsc_run;

static fb_status sample_petsc(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    petsc_run *p = ctx;
    double t0 = fb_now();
    CHECK_PETSC(api->mat_mult(p->A, p->x, p->y), "MatMult");
    *seconds = fb_now() - t0;
fail:
    return status;
}

static fb_status read_y(const fb_spmv_matrix *M, petsc_run *p, double *y)
{
    fb_status status = FB_OK;
    const PetscScalar *v = NULL;
    CHECK_PETSC(api->vec_read(p->y, &v), "VecGetArrayRead");
    memcpy(y, v, (size_t)M->shape.nrows * sizeof *y);
    CHECK_PETSC(api->vec_unread(p->y, &v), "VecRestoreArrayRead");
fail:
    return status;
}

/* ---- on ranks ---- */

enum { RANK_SAMPLES = 30 };

/* This rank's rows [*first, *first + *n) of nrows: PETSc's PETSC_DECIDE split. */
static void row_block(int nrows, int *first, int *n)
{
    const int p = fb_comm_size(), r = fb_comm_rank(), base = nrows / p, extra = nrows % p;
    *n = base + (r < extra), *first = r * base + (r < extra ? r : extra);
}

/* The synchronised samples, replayed to the measurement policy in order. */
typedef struct replay {
    const double *samples;
    int n, next;
} replay;

static fb_status sample_replay(void *ctx, double *seconds)
{
    replay *r = ctx;
    *seconds = r->samples[r->next++ % r->n];
    return FB_OK;
}

/* One sample on every rank: all start together, the slowest ends it. */
static fb_status sample_ranks(petsc_run *p, double *seconds)
{
    fb_status status = FB_OK;
    fb_comm_barrier();
    const double t0 = fb_now();
    CHECK_PETSC(api->mat_mult(p->A, p->x, p->y), "MatMult");
    *seconds = fb_now() - t0;
    fb_comm_allreduce(seconds, 1, FB_COMM_MAX);
fail:
    return status;
}

/* Every rank's block of y, in rank order, on every rank. */
static fb_status gather_y(const fb_spmv_matrix *M, petsc_run *p, int n, double *y)
{
    fb_status status = FB_OK;
    const PetscScalar *v = NULL;
    double *all = NULL;
    CHECK_PETSC(api->vec_read(p->y, &v), "VecGetArrayRead");
    status = fb_comm_gather(v, sizeof *v * (size_t)n, 0, (void **)&all, NULL);
    CHECK_PETSC(api->vec_unread(p->y, &v), "VecRestoreArrayRead");
    FB_CHECK(status);
    if (fb_comm_rank() == 0) memcpy(y, all, sizeof *y * (size_t)M->shape.nrows);
    fb_comm_bcast(y, sizeof *y * (size_t)M->shape.nrows, 0);
fail:
    free(all);
    return status;
}

/* This rank's rows as PETSc's MPIAIJ block (copied in), x's block wrapped. */
static fb_status create_ranks(const fb_spmv_matrix *M, const double *x, int first, int n, petsc_run *p)
{
    fb_status status = FB_OK;
    PetscInt *rowptr = NULL;
    const int N = M->shape.nrows, base = M->ptr[first];
    FB_ALLOC(rowptr, n + 1, "this rank's row pointers");
    for (int i = 0; i <= n; ++i)
        rowptr[i] = M->ptr[first + i] - base;
    CHECK_PETSC(api->mat_create_mpi(api->world, n, n, N, N, rowptr, (const PetscInt *)M->idx + base,
                                    (const PetscScalar *)M->values + base, &p->A),
                "MatCreateMPIAIJWithArrays");
    CHECK_PETSC(api->vec_wrap_mpi(api->world, 1, n, N, x + first, &p->x), "VecCreateMPIWithArray");
    CHECK_PETSC(api->vec_create_mpi(api->world, n, N, &p->y), "VecCreateMPI");
fail:
    free(rowptr);
    return status;
}

/* RANK_SAMPLES synchronised samples after the warm-ups, judged by the
 * policy with exactly those samples (no counters or energy: the other
 * ranks' work is not this process's). */
static fb_status measure_ranks(fb_target *t, const fb_spmv_config *cfg, petsc_run *p, fb_measurement *m)
{
    fb_status status = FB_OK;
    double samples[RANK_SAMPLES], warm;
    fb_measure_config fixed = cfg->measure;
    replay r = {samples, RANK_SAMPLES, 0};
    for (int k = 0; k < cfg->measure.warmups; ++k)
        FB_CHECK(sample_ranks(p, &warm));
    for (int k = 0; k < RANK_SAMPLES; ++k)
        FB_CHECK(sample_ranks(p, &samples[k]));
    fixed.warmups = 0, fixed.min_samples = fixed.max_samples = RANK_SAMPLES;
    fixed.budget_s = 1e9, fixed.cold = 0, fixed.abandon_above_s = 0.0, fixed.deadline = 0.0;
    fixed.counters = NULL, fixed.energy = NULL;
    FB_CHECK(fb_target_measure(t, &fixed, sample_replay, &r, NULL, NULL, m));
fail:
    return status;
}

static fb_status run_petsc_ranks(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                                 fb_spmv_result *out)
{
    fb_status status = FB_OK;
    petsc_run p = {.t = t};
    int first, n;
    /* Every rank holds the whole matrix and decides this alike, so no
     * rank waits in a collective for one that refused: no abort needed. */
    if (M->shape.nrows != M->shape.ncols)
        return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                            "peer:petsc on %d ranks takes a square matrix (its rows and x are split alike); this one "
                            "is %d x %d: run it on one process",
                            fb_comm_size(), M->shape.nrows, M->shape.ncols);
    row_block(M->shape.nrows, &first, &n);
    FB_CHECK(create_ranks(M, x, first, n, &p));
    FB_CHECK(measure_ranks(t, cfg, &p, &out->m));
    FB_ALLOC(out->y, (size_t)M->shape.nrows, "result vector");
    FB_CHECK(gather_y(M, &p, n, out->y));
fail:
    if (status != FB_OK) { /* the other ranks may wait in a collective: end them all */
        fprintf(stderr, "flowbench: rank %d of %d: %s\n", fb_comm_rank(), fb_comm_size(), fb_error_message());
        fb_comm_abort(fb_status_exit_code(status));
    }
    if (p.A) api->mat_destroy(&p.A);
    if (p.x) api->vec_destroy(&p.x);
    if (p.y) api->vec_destroy(&p.y);
    return status;
}

/* ---- one process ---- */

/* PETSc keeps the arrays it wraps as given and MatMult only reads them;
 * its prototypes take them non-const. */
static fb_status run_petsc(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                           fb_spmv_result *out)
{
    fb_status status = FB_OK;
    petsc_run p = {.t = t};
    if (!petsc_ready()) FB_FAIL(FB_ERR_UNAVAILABLE, "peer:petsc: %s", api_why);
    if (fb_comm_size() > 1) return run_petsc_ranks(t, M, cfg, x, out);
    CHECK_PETSC(api->mat_create(api->self, M->shape.nrows, M->shape.ncols, (PetscInt *)M->ptr, (PetscInt *)M->idx,
                                (PetscScalar *)M->values, &p.A),
                "MatCreateSeqAIJWithArrays");
    CHECK_PETSC(api->vec_wrap(api->self, 1, M->shape.ncols, x, &p.x), "VecCreateSeqWithArray");
    CHECK_PETSC(api->vec_create(api->self, M->shape.nrows, &p.y), "VecCreateSeq");
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample_petsc, &p, fb_target_flush_callback, t, &out->m));
    FB_ALLOC(out->y, (size_t)M->shape.nrows, "result vector");
    FB_CHECK(read_y(M, &p, out->y));
fail:
    if (p.A) api->mat_destroy(&p.A);
    if (p.x) api->vec_destroy(&p.x);
    if (p.y) api->vec_destroy(&p.y);
    return status;
}

#else

#define run_petsc NULL /* unreachable: fb_petsc_available says why first */

#endif

const fb_peer fb_peer_petsc = {
    .def = {.name = "peer:petsc",
            .summary = "PETSc MatMult on a SeqAIJ matrix wrapping the same CSR arrays (CPU, one core); under mpirun "
                       "an MPIAIJ matrix, one rank a core",
            .format = &fb_spmv_csr},
    .backend = "openmp",
    .double_only = 1, /* Debian's real build: PetscScalar is double */
    .available = fb_petsc_available,
    .run = run_petsc,
};
