/* graphblas.c - SuiteSparse:GraphBLAS GrB_mxv as the CPU peer: the matrix
 * is built once (untimed) in GraphBLAS's default by-row format and each
 * sample times one y = A x over the plus-times semiring with the monotonic
 * clock, GraphBLAS using its own OpenMP threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"

#ifdef FB_HAVE_GRAPHBLAS
#include <GraphBLAS.h>

#define CHECK_GRB(call, what)                                                                                          \
    do {                                                                                                               \
        GrB_Info info_ = (call);                                                                                       \
        if (info_ != GrB_SUCCESS && info_ != GrB_NO_VALUE)                                                             \
            FB_FAIL(FB_ERR_BACKEND, "peer:graphblas: %s failed (GrB_Info %d)", (what), (int)info_);                    \
    } while (0)

typedef struct grb_run {
    fb_target *t;
    GrB_Matrix A;
    GrB_Vector x, y;
    GrB_Semiring semiring;
} grb_run;

static int initialised;

static int available_graphblas(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

static fb_status build_matrix(const fb_spmv_matrix *M, int is_double, grb_run *g)
{
    fb_status status = FB_OK;
    GrB_Index n = (GrB_Index)M->shape.nnz, *I = NULL, *J = NULL;
    float *xs = NULL;
    FB_ALLOC(I, n, "GraphBLAS row indices");
    FB_ALLOC(J, n, "GraphBLAS column indices");
    for (int r = 0; r < M->shape.nrows; ++r)
        for (int k = M->ptr[r]; k < M->ptr[r + 1]; ++k) {
            I[k] = (GrB_Index)r;
            J[k] = (GrB_Index)M->idx[k];
        }
    CHECK_GRB(
        GrB_Matrix_new(&g->A, is_double ? GrB_FP64 : GrB_FP32, (GrB_Index)M->shape.nrows, (GrB_Index)M->shape.ncols),
        "GrB_Matrix_new");
    if (is_double) {
        CHECK_GRB(GrB_Matrix_build_FP64(g->A, I, J, M->values, n, GrB_PLUS_FP64), "GrB_Matrix_build");
    } else {
        FB_ALLOC(xs, n, "single-precision values");
        for (GrB_Index k = 0; k < n; ++k)
            xs[k] = (float)M->values[k];
        CHECK_GRB(GrB_Matrix_build_FP32(g->A, I, J, xs, n, GrB_PLUS_FP32), "GrB_Matrix_build");
    }
    CHECK_GRB(GrB_Matrix_wait(g->A, GrB_MATERIALIZE), "GrB_Matrix_wait");
fail:
    free(I);
    free(J);
    free(xs);
    return status;
}

static fb_status build_x(const fb_spmv_matrix *M, const double *x, int is_double, grb_run *g)
{
    fb_status status = FB_OK;
    GrB_Type type = is_double ? GrB_FP64 : GrB_FP32;
    CHECK_GRB(GrB_Vector_new(&g->x, type, (GrB_Index)M->shape.ncols), "GrB_Vector_new");
    CHECK_GRB(GrB_Vector_new(&g->y, type, (GrB_Index)M->shape.nrows), "GrB_Vector_new");
    for (int j = 0; j < M->shape.ncols; ++j) {
        if (is_double)
            CHECK_GRB(GrB_Vector_setElement_FP64(g->x, x[j], (GrB_Index)j), "GrB_Vector_setElement");
        else
            CHECK_GRB(GrB_Vector_setElement_FP32(g->x, (float)x[j], (GrB_Index)j), "GrB_Vector_setElement");
    }
    CHECK_GRB(GrB_Vector_wait(g->x, GrB_MATERIALIZE), "GrB_Vector_wait");
    g->semiring = is_double ? GrB_PLUS_TIMES_SEMIRING_FP64 : GrB_PLUS_TIMES_SEMIRING_FP32;
fail:
    return status;
}

static fb_status sample_graphblas(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    grb_run *g = ctx;
    double t0 = fb_now();
    CHECK_GRB(GrB_mxv(g->y, NULL, NULL, g->semiring, g->A, g->x, NULL), "GrB_mxv");
    CHECK_GRB(GrB_Vector_wait(g->y, GrB_MATERIALIZE), "GrB_Vector_wait");
    *seconds = fb_now() - t0;
fail:
    return status;
}

/* Rows with no entries have no value in y: they are zero. */
static fb_status read_y(const fb_spmv_matrix *M, int is_double, grb_run *g, double *y)
{
    fb_status status = FB_OK;
    memset(y, 0, (size_t)M->shape.nrows * sizeof *y);
    for (int i = 0; i < M->shape.nrows; ++i) {
        double d = 0;
        float f = 0;
        GrB_Info info = is_double ? GrB_Vector_extractElement_FP64(&d, g->y, (GrB_Index)i)
                                  : GrB_Vector_extractElement_FP32(&f, g->y, (GrB_Index)i);
        if (info == GrB_SUCCESS)
            y[i] = is_double ? d : (double)f;
        else if (info != GrB_NO_VALUE)
            FB_FAIL(FB_ERR_BACKEND, "peer:graphblas: reading y failed (GrB_Info %d)", (int)info);
    }
fail:
    return status;
}

static fb_status run_graphblas(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                               fb_spmv_result *out)
{
    fb_status status = FB_OK;
    grb_run g = {.t = t};
    if (!initialised) {
        CHECK_GRB(GrB_init(GrB_NONBLOCKING), "GrB_init");
        initialised = 1;
    }
    FB_CHECK(build_matrix(M, cfg->is_double, &g));
    FB_CHECK(build_x(M, x, cfg->is_double, &g));
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample_graphblas, &g, fb_target_flush_callback, t, &out->m));
    FB_ALLOC(out->y, (size_t)M->shape.nrows, "result vector");
    FB_CHECK(read_y(M, cfg->is_double, &g, out->y));
fail:
    GrB_Matrix_free(&g.A);
    GrB_Vector_free(&g.x);
    GrB_Vector_free(&g.y);
    return status;
}

#else

static int available_graphblas(char *why, size_t len)
{
    snprintf(why, len, "not built (GraphBLAS not found at configure time; Debian: libgraphblas-dev)");
    return 0;
}

#define run_graphblas NULL /* unreachable: available says why first */

#endif

const fb_peer fb_peer_graphblas = {
    .def = {.name = "peer:graphblas", .summary = "SuiteSparse:GraphBLAS GrB_mxv (CPU, OpenMP)", .format = &fb_spmv_csr},
    .backend = "openmp",
    .available = available_graphblas,
    .run = run_graphblas,
};
