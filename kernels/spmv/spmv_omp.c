/* spmv_omp.c - the OpenMP baseline of the SpMV family, instantiated in
 * double and single precision from spmv_omp_template.h. Host twins take
 * the device kernels' arguments in the same order. */
#include <omp.h>
#include <stdint.h>

#include "../common_host.h"
#include "merge_path.h" /* merge_path_rows, as the device kernel */
#include "spmv_kernels.h"

#define FB_OMP_MAX_THREADS 1024

/* First row whose start offset is >= target (lower bound on rowptr). */
static int row_at_nnz(const int *rowptr, int nrows, long long target)
{
    int lo = 0, hi = nrows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (rowptr[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The calling thread's rows, so that threads get equal nonzero counts. The
 * last thread always ends at nrows, so trailing empty rows are written. */
static void fb_omp_balanced_rows(const int *rowptr, int nrows, int *r0, int *r1)
{
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const long long nnz = rowptr[nrows];
    *r0 = t == 0 ? 0 : row_at_nnz(rowptr, nrows, nnz * t / nt);
    *r1 = t == nt - 1 ? nrows : row_at_nnz(rowptr, nrows, nnz * (t + 1) / nt);
}

/* log2 of a power of two (csr16's BASE_ROWS). */
static int fb_log2_int(int v)
{
    int k = 0;
    while ((1 << (k + 1)) <= v)
        ++k;
    return k;
}

#define REAL double
#define SUFFIX d
#include "spmv_omp_template.h"
#undef REAL
#undef SUFFIX

#define REAL float
#define SUFFIX s
#include "spmv_omp_template.h"
#undef REAL
#undef SUFFIX

const fb_host_kernel fb_spmv_host_kernels[] = {
    FB_HOST_BOTH("spmv_csr_scalar", 6, spmv_csr_omp_),
    FB_HOST_BOTH("spmv_csr_vector", 6, spmv_csr_omp_),
    FB_HOST_BOTH("spmv_csr_multirow", 6, spmv_csr_omp_),
    FB_HOST_BOTH("spmv_csr_merge", 10, spmv_csr_merge_omp_),
    FB_HOST_BOTH("spmv_csr_merge_fixup", 5, spmv_csr_merge_fixup_omp_),
    FB_HOST_BOTH("spmv_bcsr", 6, spmv_bcsr_omp_),
    FB_HOST_BOTH("spmv_bcsr_vector", 6, spmv_bcsr_omp_),
    FB_HOST_BOTH("spmv_bcsr_lanes", 6, spmv_bcsr_omp_),
    FB_HOST_BOTH("spmv_bcsr_soa", 7, spmv_bcsr_soa_omp_),
    FB_HOST_BOTH("spmv_bcsr_warp", 6, spmv_bcsr_omp_),
    FB_HOST_BOTH("spmv_sell", 9, spmv_sell_omp_),
    FB_HOST_BOTH("spmv_sell16", 11, spmv_sell16_omp_),
    FB_HOST_BOTH("spmv_csr16", 8, spmv_csr16_omp_),
    FB_HOST_BOTH("spmv_csr16_mixed", 8, spmv_csr16_mixed_omp_),
    FB_HOST_BOTH("spmv_sss", 11, spmv_sss_omp_),
    FB_HOST_BOTH("spmv_sss_fixup", 5, spmv_sss_fixup_omp_),
    FB_HOST_BOTH("spmv_sss_zero", 2, spmv_sss_zero_omp_),
    FB_HOST_BOTH("spmv_sss_atomic", 7, spmv_sss_atomic_omp_),
    {NULL, NULL, 0, NULL},
};
