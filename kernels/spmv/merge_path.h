/* merge_path.h - the merge-path search of csr-merge (Merrill and Garland),
 * written once for the device kernel (spmv/csr_merge.cl: #include
 * "spmv/merge_path.h", expanded by the build path) and its OpenMP twin
 * (spmv_omp.c, after common_host.h), so both cut the merge path at the
 * same places. In the C subset of kernels/common_host.h: ternaries where
 * OpenCL C has min and max, which host C lacks for int.
 */
#ifndef FB_MERGE_PATH_H
#define FB_MERGE_PATH_H

/* Number of row ends before diagonal d on the merge path: the largest i with
 * rowptr[i] (the end of row i-1) <= d - i, searched in [max(0, d - nnz), min(d, nrows)]. */
FB_INLINE int merge_path_rows(const int d, const int nrows, const int nnz, FB_GLOBAL const int *restrict rowptr)
{
    const int least = d - nnz; /* row ends: d steps hold at most nnz nonzeros */
    int lo = least > 0 ? least : 0, hi = d < nrows ? d : nrows;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (rowptr[mid + 1] <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
