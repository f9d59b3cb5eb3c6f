/* test_matrix_util.h - helpers shared by the test_matrix_*.c tests: where
 * the shipped matrices are, and comparisons of CSR and dense results with
 * values written out by hand in the tests. */
#ifndef TEST_MATRIX_UTIL_H
#define TEST_MATRIX_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/csr.h"

/* The repository root: $FLOWBENCH_SOURCE_DIR, else derived from this
 * file's path (CMake compiles with absolute paths). */
static inline const char *repo_root(void)
{
    static char buf[2048];
    const char *env = getenv("FLOWBENCH_SOURCE_DIR");
    if (env) return env;
    snprintf(buf, sizeof buf, "%s", __FILE__);
    char *p = strstr(buf, "/tests/unit/");
    if (p)
        *p = '\0';
    else
        snprintf(buf, sizeof buf, ".");
    return buf;
}

/* Path of a shipped file under matrices/ (a rotating set of buffers, so a
 * test can hold a few at once). */
static inline const char *shipped(const char *name)
{
    static char bufs[4][4608];
    static int k = 0;
    char *b = bufs[k++ % 4];
    snprintf(b, 4608, "%s/matrices/%s", repo_root(), name);
    return b;
}

/* A(i, j) of a CSR, 0 if not stored (and *stored = 0). */
static inline double csr_at(const fb_csr *A, int i, int j, int *stored)
{
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
        if (A->colidx[p] == j) {
            if (stored) *stored = 1;
            return A->values[p];
        }
    if (stored) *stored = 0;
    return 0.0;
}

/* A equals the row-major dense `want` exactly, with exactly `nnz` stored
 * entries and the CSR invariants holding. */
static inline void assert_csr_equals(const fb_csr *A, int nrows, int ncols, int64_t nnz, const double *want)
{
    assert_int_equal(A->nrows, nrows);
    assert_int_equal(A->ncols, ncols);
    assert_int_equal(A->nnz, nnz);
    assert_int_equal(fb_csr_validate(A, "test"), FB_OK);
    for (int i = 0; i < nrows; ++i)
        for (int j = 0; j < ncols; ++j) {
            double got = csr_at(A, i, j, NULL);
            if (got != want[i * ncols + j])
                fail_msg("A(%d,%d) = %.17g, want %.17g", i + 1, j + 1, got, want[i * ncols + j]);
        }
}

/* Bitwise-equal CSR (structure and values). */
static inline void assert_csr_identical(const fb_csr *A, const fb_csr *B)
{
    assert_int_equal(A->nrows, B->nrows);
    assert_int_equal(A->ncols, B->ncols);
    assert_int_equal(A->nnz, B->nnz);
    assert_memory_equal(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr);
    if (A->nnz) {
        assert_memory_equal(A->colidx, B->colidx, (size_t)A->nnz * sizeof *A->colidx);
        assert_memory_equal(A->values, B->values, (size_t)A->nnz * sizeof *A->values);
    }
}

#endif
