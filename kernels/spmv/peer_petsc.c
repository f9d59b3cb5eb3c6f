/* peer_petsc.c - PETSc's MatMult as a CPU peer: a SeqAIJ matrix wrapping
 * the very CSR arrays the kernels read (MatCreateSeqAIJWithArrays: no
 * copy), x wrapped the same way, and each sample timing one MatMult with
 * the monotonic clock. PETSc's AIJ MatMult runs in one process on one
 * core: Debian's PETSc has no OpenMP, and on a node a PETSc user runs one
 * MPI rank per core, which this single-process peer does not (its summary
 * says so). Double precision only: Debian's build is real double.
 *
 * libpetsc_real is opened at the first run, not linked (petsc_api.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"

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

static fb_status flush_petsc(void *ctx) { return fb_target_flush_cache(((petsc_run *)ctx)->t); }

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

/* PETSc keeps the arrays it wraps as given and MatMult only reads them;
 * its prototypes take them non-const. */
static fb_status run_petsc(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                           fb_spmv_result *out)
{
    fb_status status = FB_OK;
    petsc_run p = {.t = t};
    if (!petsc_ready()) FB_FAIL(FB_ERR_UNAVAILABLE, "peer:petsc: %s", api_why);
    CHECK_PETSC(api->mat_create(api->self, M->shape.nrows, M->shape.ncols, (PetscInt *)M->ptr, (PetscInt *)M->idx,
                                (PetscScalar *)M->values, &p.A),
                "MatCreateSeqAIJWithArrays");
    CHECK_PETSC(api->vec_wrap(api->self, 1, M->shape.ncols, x, &p.x), "VecCreateSeqWithArray");
    CHECK_PETSC(api->vec_create(api->self, M->shape.nrows, &p.y), "VecCreateSeq");
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample_petsc, &p, flush_petsc, &p, &out->m));
    FB_ALLOC(out->y, (size_t)M->shape.nrows, "result vector");
    FB_CHECK(read_y(M, &p, out->y));
fail:
    if (p.A) api->mat_destroy(&p.A);
    if (p.x) api->vec_destroy(&p.x);
    if (p.y) api->vec_destroy(&p.y);
    return status;
}

#else

static fb_status run_petsc(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                           fb_spmv_result *out)
{
    (void)t, (void)M, (void)cfg, (void)x, (void)out;
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "peer:petsc: not built");
}

#endif

const fb_peer fb_peer_petsc = {
    .def = {.name = "peer:petsc",
            .summary = "PETSc MatMult on a SeqAIJ matrix wrapping the same CSR arrays (CPU, one process)",
            .format = &fb_spmv_csr},
    .backend = "openmp",
    .double_only = 1, /* Debian's real build: PetscScalar is double */
    .available = fb_petsc_available,
    .run = run_petsc,
};
