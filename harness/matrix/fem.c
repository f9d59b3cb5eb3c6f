/* fem.c - matrices on a tetrahedral mesh: the node graph, the P1
 * finite-element Laplacian, and the K x K block expansion that turns a
 * scalar operator into a coupled one.
 *
 * Assembly is row-parallel and race-free: each node walks its incident
 * tetrahedra (in increasing order) and adds its own row of each element
 * matrix. An element matrix is recomputed by each of its 4 nodes, which
 * costs a few flops and buys determinism: the sums happen in the same
 * order whatever the thread count, so the content hash is stable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

typedef struct incidence {
    int *ptr; /* nnodes + 1 */
    int *tet; /* 4 ntets, increasing per node */
} incidence;

static void incidence_free(incidence *inc)
{
    free(inc->ptr);
    free(inc->tet);
}

static fb_status build_incidence(const fb_mesh *m, incidence *inc)
{
    fb_status status = FB_OK;
    int *next = NULL;
    int64_t n4 = 4 * (int64_t)m->ntets;
    memset(inc, 0, sizeof *inc);
    FB_ALLOC(inc->ptr, (int64_t)m->nnodes + 1, "node incidence");
    FB_ALLOC(inc->tet, n4, "node incidence");
    FB_ALLOC(next, m->nnodes, "node incidence cursors");
    for (int64_t k = 0; k < n4; ++k)
        inc->ptr[m->tets[k] + 1]++;
    for (int i = 0; i < m->nnodes; ++i)
        inc->ptr[i + 1] += inc->ptr[i];
    memcpy(next, inc->ptr, (size_t)m->nnodes * sizeof *next);
    for (int64_t k = 0; k < n4; ++k)
        inc->tet[next[m->tets[k]]++] = (int)(k / 4);
fail:
    free(next);
    if (status != FB_OK) incidence_free(inc);
    return status;
}

/* Sorted distinct nodes sharing a tetrahedron with node i (i included).
 * stamp[] (per thread, nnodes) marks the nodes already seen for row i. */
static int row_nodes(const fb_mesh *m, const incidence *inc, int i, int *stamp, int *out)
{
    int n = 0;
    for (int p = inc->ptr[i]; p < inc->ptr[i + 1]; ++p)
        for (int a = 0; a < 4; ++a) {
            int v = m->tets[4 * (int64_t)inc->tet[p] + a];
            if (stamp[v] == i) continue;
            stamp[v] = i;
            int k = n++;
            for (; k > 0 && out[k - 1] > v; --k)
                out[k] = out[k - 1];
            out[k] = v;
        }
    return n;
}

static int max_incident(const incidence *inc, int nnodes)
{
    int mx = 0;
    for (int i = 0; i < nnodes; ++i)
        mx = inc->ptr[i + 1] - inc->ptr[i] > mx ? inc->ptr[i + 1] - inc->ptr[i] : mx;
    return mx;
}

/* count_only: row lengths into out->rowptr[i + 1]; else the columns. */
static int pattern_pass(const fb_mesh *m, const incidence *inc, fb_csr *out, int count_only)
{
    int failed = 0, width = 4 * max_incident(inc, m->nnodes) + 1;
#pragma omp parallel reduction(+ : failed)
    {
        int *stamp = malloc((size_t)m->nnodes * sizeof *stamp), *row = malloc((size_t)width * sizeof *row);
        failed = !stamp || !row;
        for (int i = 0; stamp && i < m->nnodes; ++i)
            stamp[i] = -1;
#pragma omp for schedule(dynamic, 1024)
        for (int i = 0; i < m->nnodes; ++i) {
            if (!stamp || !row) continue;
            int n = row_nodes(m, inc, i, stamp, row);
            if (count_only)
                out->rowptr[i + 1] = n;
            else
                memcpy(out->colidx + out->rowptr[i], row, (size_t)n * sizeof *row);
        }
        free(stamp);
        free(row);
    }
    return failed;
}

static fb_status pattern(const fb_mesh *m, const incidence *inc, fb_csr *out)
{
    fb_status status = FB_OK;
    int *lengths = NULL;
    fb_csr counts = {.nrows = m->nnodes};
    FB_ALLOC(lengths, (int64_t)m->nnodes + 1, "row lengths");
    counts.rowptr = lengths;
    if (pattern_pass(m, inc, &counts, 1)) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the node graph");
    int64_t nnz = 0;
    for (int i = 0; i < m->nnodes; ++i)
        nnz += lengths[i + 1];
    FB_CHECK(fb_csr_alloc(out, m->nnodes, m->nnodes, nnz));
    for (int i = 0; i < m->nnodes; ++i)
        out->rowptr[i + 1] = out->rowptr[i] + lengths[i + 1];
    if (pattern_pass(m, inc, out, 0)) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the node graph");
fail:
    free(lengths);
    if (status != FB_OK) fb_csr_free(out);
    return status;
}

fb_status fb_mesh_graph(const fb_mesh *m, fb_csr *out)
{
    fb_status status = FB_OK;
    incidence inc = {0};
    FB_CHECK(build_incidence(m, &inc));
    FB_CHECK(pattern(m, &inc, out));
    for (int64_t p = 0; p < out->nnz; ++p)
        out->values[p] = 1.0;
fail:
    incidence_free(&inc);
    return status;
}

/* With rows d_k = x_k - x_0: grad l_1 = d2 x d3 / det, grad l_2 =
 * d3 x d1 / det, grad l_3 = d1 x d2 / det, grad l_0 = -(their sum). */
double fb_tet_gradients(const fb_mesh *m, int64_t t, double g[4][3])
{
    const int *v = m->tets + 4 * t;
    double d[3][3];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c)
            d[k][c] = m->xyz[3 * (int64_t)v[k + 1] + c] - m->xyz[3 * (int64_t)v[0] + c];
    for (int k = 0; k < 3; ++k) {
        const double *a = d[(k + 1) % 3], *b = d[(k + 2) % 3];
        g[k + 1][0] = a[1] * b[2] - a[2] * b[1];
        g[k + 1][1] = a[2] * b[0] - a[0] * b[2];
        g[k + 1][2] = a[0] * b[1] - a[1] * b[0];
    }
    double det = d[0][0] * g[1][0] + d[0][1] * g[1][1] + d[0][2] * g[1][2];
    for (int c = 0; c < 3; ++c) {
        for (int k = 1; k < 4; ++k)
            g[k][c] /= det;
        g[0][c] = -(g[1][c] + g[2][c] + g[3][c]);
    }
    return det / 6.0;
}

fb_status fb_mesh_check_volumes(const fb_mesh *m)
{
    fb_status status = FB_OK;
    int bad = m->ntets;
#pragma omp parallel for reduction(min : bad) schedule(static)
    for (int t = 0; t < m->ntets; ++t) {
        double g[4][3];
        double vol = fabs(fb_tet_gradients(m, t, g));
        if (!(vol > 0.0) || !isfinite(vol) || !isfinite(g[0][0] + g[0][1] + g[0][2])) bad = t < bad ? t : bad;
    }
    if (bad < m->ntets) {
        /* tetrahedra keep file order; nodes were renumbered, so name corners */
        const int *v = m->tets + 4 * (int64_t)bad;
        const double *x[4] = {m->xyz + 3 * (int64_t)v[0], m->xyz + 3 * (int64_t)v[1], m->xyz + 3 * (int64_t)v[2],
                              m->xyz + 3 * (int64_t)v[3]};
        FB_FAIL(FB_ERR_INPUT,
                "tetrahedron #%d (in file order) has zero volume: corners (%g,%g,%g) (%g,%g,%g) "
                "(%g,%g,%g) (%g,%g,%g)",
                bad + 1, x[0][0], x[0][1], x[0][2], x[1][0], x[1][1], x[1][2], x[2][0], x[2][1], x[2][2], x[3][0],
                x[3][1], x[3][2]);
    }
fail:
    return status;
}

static int64_t find_col(const fb_csr *A, int i, int j)
{
    int lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->colidx[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Row i of the stiffness matrix, from its incident tetrahedra. */
static void laplacian_row(const fb_mesh *m, const incidence *inc, fb_csr *A, int i)
{
    for (int p = inc->ptr[i]; p < inc->ptr[i + 1]; ++p) {
        int64_t t = inc->tet[p];
        const int *v = m->tets + 4 * t;
        double g[4][3], vol = fabs(fb_tet_gradients(m, t, g));
        int a = 0;
        while (v[a] != i)
            ++a;
        for (int b = 0; b < 4; ++b)
            A->values[find_col(A, i, v[b])] += vol * (g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2]);
    }
}

fb_status fb_mesh_laplacian(const fb_mesh *m, fb_csr *out)
{
    fb_status status = FB_OK;
    incidence inc = {0};
    memset(out, 0, sizeof *out);
    FB_CHECK(fb_mesh_check_volumes(m));
    FB_CHECK(build_incidence(m, &inc));
    FB_CHECK(pattern(m, &inc, out));
#pragma omp parallel for schedule(dynamic, 1024)
    for (int i = 0; i < m->nnodes; ++i)
        laplacian_row(m, &inc, out, i);
fail:
    incidence_free(&inc);
    return status;
}

fb_status fb_csr_kron_block(const fb_csr *A, int k, fb_csr *out)
{
    fb_status status = FB_OK;
    double M[FB_BCSR_MAX_BLOCK][FB_BCSR_MAX_BLOCK];
    memset(out, 0, sizeof *out);
    if (k < 1 || k > FB_BCSR_MAX_BLOCK) FB_FAIL(FB_ERR_USAGE, "block size %d: must be 1..%d", k, FB_BCSR_MAX_BLOCK);
    for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b)
            M[a][b] = 1.0 / (1.0 + abs(a - b));
    FB_CHECK(fb_csr_alloc(out, (int64_t)k * A->nrows, (int64_t)k * A->ncols, (int64_t)k * k * A->nnz));
    for (int i = 0; i < A->nrows; ++i)
        for (int a = 0; a < k; ++a)
            out->rowptr[i * k + a + 1] = out->rowptr[i * k + a] + k * (A->rowptr[i + 1] - A->rowptr[i]);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int i = 0; i < A->nrows; ++i)
        for (int a = 0; a < k; ++a) {
            int w = out->rowptr[i * k + a];
            for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
                for (int b = 0; b < k; ++b, ++w) {
                    out->colidx[w] = A->colidx[p] * k + b;
                    out->values[w] = A->values[p] * M[a][b];
                }
        }
fail:
    return status;
}
