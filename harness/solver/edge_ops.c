/* edge_ops.c - builds the edge structure (the node graph without its
 * diagonal) and assembles the edge operators tetrahedron by tetrahedron.
 *
 * Assembly runs serially over the tetrahedra: it happens once per run, and
 * a serial sum gives the same bits whatever the thread count, so a run's
 * results do not depend on OMP_NUM_THREADS through the operators. */
#include "solver/edge_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/csr.h"

int fb_edge_find(const fb_edge_ops *ops, int i, int j)
{
    int lo = ops->rowptr[i], hi = ops->rowptr[i + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ops->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ops->rowptr[i + 1] && ops->col[lo] == j ? lo : -1;
}

/* The node graph without its diagonal. */
static fb_status build_structure(const fb_mesh *m, fb_edge_ops *out)
{
    fb_status status = FB_OK;
    fb_csr G = {0};
    FB_CHECK(fb_mesh_graph(m, &G));
    if (G.nnz - G.nrows > INT32_MAX)
        FB_FAIL(FB_ERR_INPUT, "mesh has %lld edges: more than 32-bit edge indices hold", (long long)(G.nnz - G.nrows));
    out->nnodes = m->nnodes;
    out->nedges = (int)(G.nnz - G.nrows);
    FB_ALLOC(out->rowptr, (int64_t)m->nnodes + 1, "edge row pointers");
    FB_ALLOC(out->col, out->nedges, "edge columns");
    for (int i = 0, e = 0; i < m->nnodes; ++i) {
        for (int p = G.rowptr[i]; p < G.rowptr[i + 1]; ++p)
            if (G.colidx[p] != i) out->col[e++] = G.colidx[p];
        out->rowptr[i + 1] = e;
    }
fail:
    fb_csr_free(&G);
    return status;
}

/* Adds tetrahedron t's contributions to every edge between its corners. */
static void add_tet(const fb_mesh *m, int t, const double g[4][3], double vol, fb_edge_ops *ops)
{
    const int *v = m->tets + 4 * (int64_t)t;
    for (int a = 0; a < 4; ++a) {
        ops->mass[v[a]] += vol / 4.0;
        ops->mc_diag[v[a]] += vol / 10.0;
        for (int b = 0; b < 4; ++b) {
            if (b == a) continue;
            int e = fb_edge_find(ops, v[a], v[b]);
            ops->mc[e] += vol / 20.0;
            for (int k = 0; k < 3; ++k) {
                ops->nd[3 * (int64_t)e + k] += vol / 4.0 * g[b][k];
                ops->dn[3 * (int64_t)e + k] += vol / 4.0 * g[a][k];
                for (int l = 0; l < 3; ++l)
                    ops->ld[9 * (int64_t)e + 3 * k + l] += vol * g[a][k] * g[b][l];
            }
        }
    }
}

fb_status fb_edge_ops_build(const fb_mesh *m, fb_edge_ops *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    FB_CHECK(build_structure(m, out));
    FB_ALLOC(out->mc, out->nedges, "edge mass");
    const int64_t e3 = 3 * (int64_t)out->nedges, e9 = 3 * e3;
    FB_ALLOC(out->ld, e9, "edge Ld");
    FB_ALLOC(out->nd, e3, "edge nabla");
    FB_ALLOC(out->dn, e3, "edge G");
    FB_ALLOC(out->mass, m->nnodes, "lumped mass");
    FB_ALLOC(out->mc_diag, m->nnodes, "mass diagonal");
    for (int t = 0; t < m->ntets; ++t) {
        /* gradients divide by the signed determinant, so either orientation works */
        double g[4][3], vol = fabs(fb_tet_gradients(m, t, g));
        if (!(vol > 0.0) || !isfinite(vol)) {
            const double *x = m->xyz + 3 * (int64_t)m->tets[4 * (int64_t)t];
            FB_FAIL(FB_ERR_INPUT, "tetrahedron #%d (corner %g,%g,%g) has zero volume", t + 1, x[0], x[1], x[2]);
        }
        add_tet(m, t, g, vol, out);
    }
fail:
    if (status != FB_OK) fb_edge_ops_free(out);
    return status;
}

void fb_edge_ops_free(fb_edge_ops *ops)
{
    void *arrays[] = {ops->rowptr, ops->col, ops->mc, ops->ld, ops->nd, ops->dn, ops->mass, ops->mc_diag};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; ++k)
        free(arrays[k]);
    memset(ops, 0, sizeof *ops);
}
