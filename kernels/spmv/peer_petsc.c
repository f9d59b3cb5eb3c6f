/* peer_petsc.c - PETSc's MatMult as a CPU peer: a SeqAIJ matrix wrapping
 * the very CSR arrays the kernels read (MatCreateSeqAIJWithArrays: no
 * copy), x wrapped the same way, and each sample timing one MatMult with
 * the monotonic clock. PETSc's AIJ MatMult runs in one process on one
 * core: Debian's PETSc has no OpenMP, and on a node a PETSc user runs one
 * MPI rank per core, which this single-process peer does not (its summary
 * says so). Double precision only: Debian's build is real double.
 *
 * libpetsc_real is opened at the first run (dynlib.h), not linked: with
 * its hundred libraries it cost every flowbench process 0.23 s at start.
 * The headers give the types and prototypes; the calls go through the
 * pointers looked up here, and PETSC_COMM_SELF, which Open MPI's mpi.h
 * makes a reference to a libmpi symbol, is looked up the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/dynlib.h"
#include "peers.h"

#ifdef FB_HAVE_PETSC
#include <petscmat.h>

typedef struct petsc_api {
    int tried, ok;
    char why[512];
    MPI_Comm self;
    PetscErrorCode (*initialize)(void);
    PetscErrorCode (*finalize)(void);
    PetscErrorCode (*mat_create)(MPI_Comm, PetscInt, PetscInt, PetscInt *, PetscInt *, PetscScalar *, Mat *);
    PetscErrorCode (*mat_mult)(Mat, Vec, Vec);
    PetscErrorCode (*mat_destroy)(Mat *);
    PetscErrorCode (*vec_wrap)(MPI_Comm, PetscInt, PetscInt, const PetscScalar *, Vec *);
    PetscErrorCode (*vec_create)(MPI_Comm, PetscInt, Vec *);
    PetscErrorCode (*vec_read)(Vec, const PetscScalar **);
    PetscErrorCode (*vec_unread)(Vec, const PetscScalar **);
    PetscErrorCode (*vec_destroy)(Vec *);
} petsc_api;

static petsc_api api;
static int (*mpi_finalized)(int *);

/* PetscFinalize ends MPI when PETSc began it (a singleton). Under mpirun
 * flowbench ends MPI itself before the exit handlers run, and a PETSc call
 * after MPI_Finalize aborts the job: then there is nothing left to end. */
static void finalize_at_exit(void)
{
    int done = 0;
    if (mpi_finalized && mpi_finalized(&done) == 0 && done) return;
    api.finalize();
}

/* Every pointer, or 0 with api.why. */
static int look_up(void *lib)
{
    const char *so = FB_PETSC_LIBRARY;
    void **slots[] = {(void **)&api.initialize, (void **)&api.finalize,    (void **)&api.mat_create,
                      (void **)&api.mat_mult,   (void **)&api.mat_destroy, (void **)&api.vec_wrap,
                      (void **)&api.vec_create, (void **)&api.vec_read,    (void **)&api.vec_unread,
                      (void **)&api.vec_destroy};
    static const char *const names[] = {"PetscInitializeNoArguments",
                                        "PetscFinalize",
                                        "MatCreateSeqAIJWithArrays",
                                        "MatMult",
                                        "MatDestroy",
                                        "VecCreateSeqWithArray",
                                        "VecCreateSeq",
                                        "VecGetArrayRead",
                                        "VecRestoreArrayRead",
                                        "VecDestroy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!(*slots[i] = fb_dynlib_symbol(lib, so, names[i], api.why, sizeof api.why))) return 0;
    /* Open MPI's MPI_COMM_SELF is the address of this object in libmpi */
    api.self = (MPI_Comm)fb_dynlib_symbol(lib, so, "ompi_mpi_comm_self", api.why, sizeof api.why);
    *(void **)&mpi_finalized = fb_dynlib_symbol(lib, so, "MPI_Finalized", api.why, sizeof api.why);
    return api.self != NULL && mpi_finalized != NULL;
}

/* Opens and initialises PETSc once (MPI_Init as a singleton when this
 * process did not start MPI itself). */
static int petsc_ready(void)
{
    if (api.tried) return api.ok;
    api.tried = 1;
    void *lib = fb_dynlib_open(NULL, FB_PETSC_LIBRARY, api.why, sizeof api.why);
    if (!lib || !look_up(lib)) return 0;
    if (api.initialize() != 0) {
        snprintf(api.why, sizeof api.why, "PetscInitializeNoArguments failed");
        return 0;
    }
    atexit(finalize_at_exit);
    return api.ok = 1;
}

static int available_petsc(char *why, size_t len)
{
    if (petsc_ready()) return 1;
    snprintf(why, len, "PETSc %s could not be opened: %s", FB_PETSC_VERSION, api.why);
    return 0;
}

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
    CHECK_PETSC(api.mat_mult(p->A, p->x, p->y), "MatMult");
    *seconds = fb_now() - t0;
fail:
    return status;
}

static fb_status flush_petsc(void *ctx) { return fb_target_flush_cache(((petsc_run *)ctx)->t); }

static fb_status read_y(const fb_spmv_matrix *M, petsc_run *p, double *y)
{
    fb_status status = FB_OK;
    const PetscScalar *v = NULL;
    CHECK_PETSC(api.vec_read(p->y, &v), "VecGetArrayRead");
    memcpy(y, v, (size_t)M->shape.nrows * sizeof *y);
    CHECK_PETSC(api.vec_unread(p->y, &v), "VecRestoreArrayRead");
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
    if (!petsc_ready()) FB_FAIL(FB_ERR_UNAVAILABLE, "peer:petsc: %s", api.why);
    CHECK_PETSC(api.mat_create(api.self, M->shape.nrows, M->shape.ncols, (PetscInt *)M->ptr, (PetscInt *)M->idx,
                               (PetscScalar *)M->values, &p.A),
                "MatCreateSeqAIJWithArrays");
    CHECK_PETSC(api.vec_wrap(api.self, 1, M->shape.ncols, x, &p.x), "VecCreateSeqWithArray");
    CHECK_PETSC(api.vec_create(api.self, M->shape.nrows, &p.y), "VecCreateSeq");
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample_petsc, &p, flush_petsc, &p, &out->m));
    FB_ALLOC(out->y, (size_t)M->shape.nrows, "result vector");
    FB_CHECK(read_y(M, &p, out->y));
fail:
    if (p.A) api.mat_destroy(&p.A);
    if (p.x) api.vec_destroy(&p.x);
    if (p.y) api.vec_destroy(&p.y);
    return status;
}

#else

static int available_petsc(char *why, size_t len)
{
    snprintf(why, len, "not built (PETSc not found at configure time; Debian: libpetsc-real-dev)");
    return 0;
}

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
    .available = available_petsc,
    .run = run_petsc,
};
