/* cusparse.c - NVIDIA cuSPARSE as the CUDA peers, on the cuda backend's
 * own device buffers (cuda_interop.h) and under the same measurement and
 * check as flowbench's kernels:
 *   peer:cusparse      cusparseSpMV, CSR, 32-bit indices, default algorithm,
 *                      with its work buffer and cusparseSpMV_preprocess done
 *                      once before timing (what a solver loop would do);
 *   peer:cusparse-bsr  cusparse<D|S>bsrmv, BSR with row-major blocks
 *                      (CUSPARSE_DIRECTION_ROW, the bcsr kernels' layout).
 * Each sample times one product with CUDA events on the default stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_interop.h"
#include "peers.h"

#ifdef FB_HAVE_CUSPARSE
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "backends/dynlib.h"

/* cuSPARSE and the CUDA runtime, opened when a peer is first asked for
 * (backends/dynlib.h says why they are not linked). */
#define SPARSE_FUNCTIONS(X)                                                                                            \
    X(cusparseCreate)                                                                                                  \
    X(cusparseCreateCsr)                                                                                               \
    X(cusparseCreateDnVec)                                                                                             \
    X(cusparseCreateMatDescr)                                                                                          \
    X(cusparseDbsrmv)                                                                                                  \
    X(cusparseDestroy)                                                                                                 \
    X(cusparseDestroyDnVec)                                                                                            \
    X(cusparseDestroyMatDescr)                                                                                         \
    X(cusparseDestroySpMat)                                                                                            \
    X(cusparseGetErrorString)                                                                                          \
    X(cusparseSbsrmv)                                                                                                  \
    X(cusparseSetMatIndexBase)                                                                                         \
    X(cusparseSetMatType)                                                                                              \
    X(cusparseSpMV)                                                                                                    \
    X(cusparseSpMV_bufferSize)                                                                                         \
    X(cusparseSpMV_preprocess)
#define RUNTIME_FUNCTIONS(X)                                                                                           \
    X(cudaEventCreate)                                                                                                 \
    X(cudaEventDestroy)                                                                                                \
    X(cudaEventElapsedTime)                                                                                            \
    X(cudaEventRecord)                                                                                                 \
    X(cudaEventSynchronize)                                                                                            \
    X(cudaGetErrorName)

static struct {
    int tried, usable;
    char why[1024];
#define LIB_FIELD(name) __typeof__(&name) p_##name;
    SPARSE_FUNCTIONS(LIB_FIELD)
    RUNTIME_FUNCTIONS(LIB_FIELD)
} libs;

#define LIB(name) libs.p_##name

static void *load_symbols_of(const char *soname)
{
    void *lib = fb_cuda_lib_open(soname, libs.why, sizeof libs.why);
    libs.usable = libs.usable && lib != NULL;
    return lib;
}

static void load_libs(void)
{
    if (libs.tried) return;
    libs.tried = 1, libs.usable = 1;
    void *sparse = load_symbols_of(FB_CUSPARSE_SONAME),
         *runtime = libs.usable ? load_symbols_of(FB_CUDART_SONAME) : NULL;
#define LIB_LOAD(lib, soname, name)                                                                                    \
    if (libs.usable &&                                                                                                 \
        !(libs.p_##name = (__typeof__(&name))fb_dynlib_symbol(lib, soname, #name, libs.why, sizeof libs.why)))         \
        libs.usable = 0;
#define SPARSE_LOAD(name) LIB_LOAD(sparse, FB_CUSPARSE_SONAME, name)
#define RUNTIME_LOAD(name) LIB_LOAD(runtime, FB_CUDART_SONAME, name)
    SPARSE_FUNCTIONS(SPARSE_LOAD)
    RUNTIME_FUNCTIONS(RUNTIME_LOAD)
}

#define CHECK_SPARSE(call, what)                                                                                       \
    do {                                                                                                               \
        cusparseStatus_t s_ = (call);                                                                                  \
        if (s_ != CUSPARSE_STATUS_SUCCESS)                                                                             \
            FB_FAIL(FB_ERR_BACKEND, "%s: %s failed: %s", run->name, (what), LIB(cusparseGetErrorString)(s_));          \
    } while (0)

#define CHECK_RT(call, what)                                                                                           \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess)                                                                                         \
            FB_FAIL(FB_ERR_BACKEND, "%s: %s failed: %s", run->name, (what), LIB(cudaGetErrorName)(e_));                \
    } while (0)

typedef struct sparse_run {
    const char *name;
    fb_target *t;
    const fb_spmv_matrix *M;
    int is_double;
    cudaDataType type; /* CUDA_R_64F or CUDA_R_32F, from is_double */
    cusparseHandle_t handle;
    cudaEvent_t start, stop;
    fb_spmv_buffers d;
    fb_buffer *work;
    /* CSR (generic API) */
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    /* BSR (legacy API) */
    cusparseMatDescr_t descr;
    double alpha, beta;
    float alpha_s, beta_s;
} sparse_run;

static void *dev_ptr(const fb_buffer *b) { return (void *)(uintptr_t)fb_cuda_buffer_address(b); }

static int available_cusparse(char *why, size_t len)
{
    load_libs();
    if (!libs.usable) snprintf(why, len, "%.1000s", libs.why);
    return libs.usable;
}

static const void *alpha_of(const sparse_run *run)
{
    return run->is_double ? (const void *)&run->alpha : &run->alpha_s;
}
static const void *beta_of(const sparse_run *run) { return run->is_double ? (const void *)&run->beta : &run->beta_s; }

static fb_status prepare_csr(sparse_run *run)
{
    fb_status status = FB_OK;
    const fb_spmv_matrix *M = run->M;
    cudaDataType type = run->type;
    size_t work = 0;
    CHECK_SPARSE(LIB(cusparseCreateCsr)(&run->A, M->shape.nrows, M->shape.ncols, M->shape.nnz, dev_ptr(run->d.ptr),
                                        dev_ptr(run->d.idx), dev_ptr(run->d.val), CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type),
                 "cusparseCreateCsr");
    CHECK_SPARSE(LIB(cusparseCreateDnVec)(&run->X, M->shape.ncols, dev_ptr(run->d.x), type), "cusparseCreateDnVec");
    CHECK_SPARSE(LIB(cusparseCreateDnVec)(&run->Y, M->shape.nrows, dev_ptr(run->d.y), type), "cusparseCreateDnVec");
    CHECK_SPARSE(LIB(cusparseSpMV_bufferSize)(run->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_of(run), run->A,
                                              run->X, beta_of(run), run->Y, type, CUSPARSE_SPMV_ALG_DEFAULT, &work),
                 "cusparseSpMV_bufferSize");
    FB_CHECK(fb_target_alloc(run->t, work, &run->work));
    CHECK_SPARSE(LIB(cusparseSpMV_preprocess)(run->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_of(run), run->A,
                                              run->X, beta_of(run), run->Y, type, CUSPARSE_SPMV_ALG_DEFAULT,
                                              dev_ptr(run->work)),
                 "cusparseSpMV_preprocess");
fail:
    return status;
}

static fb_status product_csr(sparse_run *run)
{
    fb_status status = FB_OK;
    CHECK_SPARSE(LIB(cusparseSpMV)(run->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha_of(run), run->A, run->X,
                                   beta_of(run), run->Y, run->type, CUSPARSE_SPMV_ALG_DEFAULT, dev_ptr(run->work)),
                 "cusparseSpMV");
fail:
    return status;
}

static fb_status prepare_bsr(sparse_run *run)
{
    fb_status status = FB_OK;
    CHECK_SPARSE(LIB(cusparseCreateMatDescr)(&run->descr), "cusparseCreateMatDescr");
    CHECK_SPARSE(LIB(cusparseSetMatType)(run->descr, CUSPARSE_MATRIX_TYPE_GENERAL), "cusparseSetMatType");
    CHECK_SPARSE(LIB(cusparseSetMatIndexBase)(run->descr, CUSPARSE_INDEX_BASE_ZERO), "cusparseSetMatIndexBase");
fail:
    return status;
}

static fb_status product_bsr(sparse_run *run)
{
    fb_status status = FB_OK;
    const fb_spmv_shape *s = &run->M->shape;
    int mb = s->nbrows, nb = s->ncols / s->block, nnzb = (int)s->nblocks;
    if (run->is_double)
        CHECK_SPARSE(LIB(cusparseDbsrmv)(run->handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb,
                                         nnzb, &run->alpha, run->descr, dev_ptr(run->d.val), dev_ptr(run->d.ptr),
                                         dev_ptr(run->d.idx), s->block, dev_ptr(run->d.x), &run->beta,
                                         dev_ptr(run->d.y)),
                     "cusparseDbsrmv");
    else
        CHECK_SPARSE(LIB(cusparseSbsrmv)(run->handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb, nb,
                                         nnzb, &run->alpha_s, run->descr, dev_ptr(run->d.val), dev_ptr(run->d.ptr),
                                         dev_ptr(run->d.idx), s->block, dev_ptr(run->d.x), &run->beta_s,
                                         dev_ptr(run->d.y)),
                     "cusparseSbsrmv");
fail:
    return status;
}

static fb_status product(sparse_run *run) { return run->M->format->blocked ? product_bsr(run) : product_csr(run); }

static fb_status sample_cusparse(void *ctx, double *seconds)
{
    fb_status status = FB_OK;
    sparse_run *run = ctx;
    float ms = 0;
    CHECK_RT(LIB(cudaEventRecord)(run->start, 0), "cudaEventRecord");
    FB_CHECK(product(run));
    CHECK_RT(LIB(cudaEventRecord)(run->stop, 0), "cudaEventRecord");
    CHECK_RT(LIB(cudaEventSynchronize)(run->stop), "cudaEventSynchronize");
    CHECK_RT(LIB(cudaEventElapsedTime)(&ms, run->start, run->stop), "cudaEventElapsedTime");
    *seconds = (double)ms * 1e-3;
fail:
    return status;
}

static void release_run(sparse_run *run)
{
    if (run->A) LIB(cusparseDestroySpMat)(run->A);
    if (run->X) LIB(cusparseDestroyDnVec)(run->X);
    if (run->Y) LIB(cusparseDestroyDnVec)(run->Y);
    if (run->descr) LIB(cusparseDestroyMatDescr)(run->descr);
    if (run->start) LIB(cudaEventDestroy)(run->start);
    if (run->stop) LIB(cudaEventDestroy)(run->stop);
    if (run->handle) LIB(cusparseDestroy)(run->handle);
    fb_spmv_buffers_release(run->t, &run->d);
    fb_target_release(run->t, run->work);
}

static fb_status run_cusparse(const char *name, fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg,
                              const double *x, fb_spmv_result *out)
{
    fb_status status = FB_OK;
    sparse_run r = {.name = name,
                    .t = t,
                    .M = M,
                    .is_double = cfg->is_double,
                    .type = cfg->is_double ? CUDA_R_64F : CUDA_R_32F,
                    .alpha = 1,
                    .beta = 0,
                    .alpha_s = 1,
                    .beta_s = 0};
    sparse_run *run = &r;
    char why[1024];
    if (!available_cusparse(why, sizeof why))
        return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "%s: %s", name, why);
    FB_CHECK(fb_spmv_upload(t, M, run->is_double, x, &run->d)); /* first: makes the device's context current */
    CHECK_SPARSE(LIB(cusparseCreate)(&run->handle), "cusparseCreate");
    CHECK_RT(LIB(cudaEventCreate)(&run->start), "cudaEventCreate");
    CHECK_RT(LIB(cudaEventCreate)(&run->stop), "cudaEventCreate");
    FB_CHECK(M->format->blocked ? prepare_bsr(run) : prepare_csr(run));
    FB_CHECK(fb_target_measure(t, &cfg->measure, sample_cusparse, run, fb_target_flush_callback, t, &out->m));
    FB_CHECK(fb_spmv_download_reals(t, cfg->is_double, run->d.y, (size_t)M->shape.nrows, &out->y));
fail:
    release_run(run);
    return status;
}

static fb_status run_csr(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                         fb_spmv_result *out)
{
    return run_cusparse("peer:cusparse", t, M, cfg, x, out);
}

static fb_status run_bsr(fb_target *t, const fb_spmv_matrix *M, const fb_spmv_config *cfg, const double *x,
                         fb_spmv_result *out)
{
    return run_cusparse("peer:cusparse-bsr", t, M, cfg, x, out);
}

#else

static int available_cusparse(char *why, size_t len)
{
    snprintf(why, len, "not built (cuSPARSE not found with the CUDA toolkit at configure time)");
    return 0;
}

/* unreachable: available says why first */
#define run_csr NULL
#define run_bsr NULL

#endif

const fb_peer fb_peer_cusparse = {
    .def = {.name = "peer:cusparse", .summary = "NVIDIA cuSPARSE cusparseSpMV, CSR (CUDA)", .format = &fb_spmv_csr},
    .backend = "cuda",
    .available = available_cusparse,
    .run = run_csr,
};

const fb_peer fb_peer_cusparse_bsr = {
    .def = {.name = "peer:cusparse-bsr",
            .summary = "NVIDIA cuSPARSE bsrmv, BSR with row-major blocks (CUDA)",
            .format = &fb_spmv_bcsr},
    .backend = "cuda",
    .available = available_cusparse,
    .run = run_bsr,
};
