/* rcm.c - reverse Cuthill-McKee, and the symmetric permutation that applies
 * it. Numbering decides which x entries an SpMV row touches together; RCM
 * pulls them into a narrow band so they share cache lines. `flowbench matrix
 * info --reorder rcm` shows the bandwidth before and after. */
#include "csr.h"

#include <stdlib.h>
#include <string.h>

/* Pattern of A + A^T without the diagonal: the graph RCM walks. */
typedef struct graph {
    int n;
    int64_t *ptr;
    int *adj;
    int *degree;
} graph;

static void graph_free(graph *g)
{
    free(g->ptr);
    free(g->adj);
    free(g->degree);
}

/* Merges the sorted rows of A and A^T (at) into adjacency lists. */
static void merge_rows(const fb_csr *A, const fb_csr *at, graph *g, int i, int count_only)
{
    int p = A->rowptr[i], pe = A->rowptr[i + 1], q = at->rowptr[i], qe = at->rowptr[i + 1], n = 0;
    int *out = count_only ? NULL : g->adj + g->ptr[i];
    while (p < pe || q < qe) {
        int j;
        if (q >= qe || (p < pe && A->colidx[p] < at->colidx[q]))
            j = A->colidx[p++];
        else if (p >= pe || at->colidx[q] < A->colidx[p])
            j = at->colidx[q++];
        else
            j = A->colidx[p++], q++;
        if (j == i) continue;
        if (out) out[n] = j;
        n++;
    }
    if (count_only) g->degree[i] = n;
}

/* Pattern-only transpose (values ignored, sorted columns by construction). */
static fb_status pattern_transpose(const fb_csr *A, fb_csr *at)
{
    fb_status status = FB_OK;
    int *next = NULL;
    memset(at, 0, sizeof *at);
    at->nrows = A->ncols;
    at->ncols = A->nrows;
    at->nnz = A->nnz;
    FB_ALLOC(at->rowptr, (int64_t)A->ncols + 1, "transpose row pointers");
    FB_ALLOC(at->colidx, A->nnz, "transpose columns");
    FB_ALLOC(next, (int64_t)A->ncols + 1, "transpose cursors");
    for (int64_t p = 0; p < A->nnz; ++p)
        at->rowptr[A->colidx[p] + 1]++;
    for (int j = 0; j < A->ncols; ++j)
        at->rowptr[j + 1] += at->rowptr[j];
    memcpy(next, at->rowptr, ((size_t)A->ncols + 1) * sizeof *next);
    for (int i = 0; i < A->nrows; ++i)
        for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
            at->colidx[next[A->colidx[p]]++] = i;
    free(next);
    return FB_OK;
fail:
    free(next);
    fb_csr_free(at);
    return status;
}

static fb_status build_graph(const fb_csr *A, graph *g)
{
    fb_status status = FB_OK;
    fb_csr at;
    memset(g, 0, sizeof *g);
    g->n = A->nrows;
    FB_CHECK(pattern_transpose(A, &at));
    FB_ALLOC(g->degree, g->n, "RCM degrees");
    FB_ALLOC(g->ptr, (int64_t)g->n + 1, "RCM graph pointers");
#pragma omp parallel for schedule(dynamic, 4096)
    for (int i = 0; i < g->n; ++i)
        merge_rows(A, &at, g, i, 1);
    for (int i = 0; i < g->n; ++i)
        g->ptr[i + 1] = g->ptr[i] + g->degree[i];
    FB_ALLOC(g->adj, g->ptr[g->n], "RCM graph");
#pragma omp parallel for schedule(dynamic, 4096)
    for (int i = 0; i < g->n; ++i)
        merge_rows(A, &at, g, i, 0);
fail:
    fb_csr_free(&at);
    if (status != FB_OK) graph_free(g);
    return status;
}

/* Breadth-first level structure from `start`; order[] receives the nodes
 * in visit order, level[] their depth. Returns the number visited and sets
 * *depth. Only the entries visited are touched, so resetting is cheap. */
static int bfs(const graph *g, int start, int *level, int *order, int *depth)
{
    int head = 0, tail = 0;
    level[start] = 0;
    order[tail++] = start;
    while (head < tail) {
        int u = order[head++];
        for (int64_t p = g->ptr[u]; p < g->ptr[u + 1]; ++p)
            if (level[g->adj[p]] < 0) {
                level[g->adj[p]] = level[u] + 1;
                order[tail++] = g->adj[p];
            }
    }
    *depth = level[order[tail - 1]];
    return tail;
}

static void bfs_reset(int *level, const int *order, int n)
{
    for (int k = 0; k < n; ++k)
        level[order[k]] = -1;
}

/* George-Liu: restart from a minimum-degree node of the deepest level
 * until the eccentricity stops growing. */
static int pseudo_peripheral(const graph *g, int start, int *level, int *order)
{
    int depth = 0, n = bfs(g, start, level, order, &depth);
    for (int iter = 0; iter < 32; ++iter) {
        int best = -1;
        for (int k = n - 1; k >= 0 && level[order[k]] == depth; --k)
            if (best < 0 || g->degree[order[k]] < g->degree[best]) best = order[k];
        bfs_reset(level, order, n);
        int d2 = 0;
        n = bfs(g, best, level, order, &d2);
        if (d2 <= depth) {
            bfs_reset(level, order, n);
            return start;
        }
        start = best;
        depth = d2;
    }
    bfs_reset(level, order, n);
    return start;
}

typedef struct deg_node {
    int degree, node;
} deg_node;

static int cmp_deg_node(const void *a, const void *b)
{
    const deg_node *x = a, *y = b;
    if (x->degree != y->degree) return (x->degree > y->degree) - (x->degree < y->degree);
    return (x->node > y->node) - (x->node < y->node);
}

/* Cuthill-McKee from `root`, appending to perm[*count...]. */
static void cuthill_mckee(const graph *g, int root, char *visited, int *perm, int *count, deg_node *tmp)
{
    int head = *count;
    perm[(*count)++] = root;
    visited[root] = 1;
    while (head < *count) {
        int u = perm[head++], n = 0;
        for (int64_t p = g->ptr[u]; p < g->ptr[u + 1]; ++p)
            if (!visited[g->adj[p]]) {
                visited[g->adj[p]] = 1;
                tmp[n++] = (deg_node){g->degree[g->adj[p]], g->adj[p]};
            }
        qsort(tmp, (size_t)n, sizeof *tmp, cmp_deg_node);
        for (int k = 0; k < n; ++k)
            perm[(*count)++] = tmp[k].node;
    }
}

fb_status fb_csr_rcm(const fb_csr *A, int *perm)
{
    fb_status status = FB_OK;
    graph g = {0};
    int *level = NULL, *order = NULL, count = 0, maxdeg = 0;
    char *visited = NULL;
    deg_node *tmp = NULL;
    if (A->nrows != A->ncols)
        FB_FAIL(FB_ERR_INPUT, "RCM needs a square matrix (this one is %dx%d)", A->nrows, A->ncols);
    FB_CHECK(build_graph(A, &g));
    FB_ALLOC(level, g.n, "RCM levels");
    FB_ALLOC(order, g.n, "RCM queue");
    FB_ALLOC(visited, g.n, "RCM marks");
    for (int i = 0; i < g.n; ++i) {
        level[i] = -1;
        maxdeg = g.degree[i] > maxdeg ? g.degree[i] : maxdeg;
    }
    FB_ALLOC(tmp, maxdeg, "RCM neighbour list");
    /* components in order of their lowest-numbered node, each from a
     * pseudo-peripheral start (found from the component's min-degree node) */
    for (int i = 0; i < g.n; ++i) {
        if (visited[i]) continue;
        int depth = 0, n = bfs(&g, i, level, order, &depth), start = i;
        for (int k = 0; k < n; ++k)
            if (g.degree[order[k]] < g.degree[start]) start = order[k];
        bfs_reset(level, order, n);
        cuthill_mckee(&g, pseudo_peripheral(&g, start, level, order), visited, perm, &count, tmp);
    }
    for (int k = 0; k < g.n / 2; ++k) {
        int t = perm[k];
        perm[k] = perm[g.n - 1 - k];
        perm[g.n - 1 - k] = t;
    }
fail:
    graph_free(&g);
    free(level);
    free(order);
    free(visited);
    free(tmp);
    return status;
}

fb_status fb_csr_permute(const fb_csr *A, const int *perm, fb_csr *out)
{
    fb_status status = FB_OK;
    int *inv = NULL;
    if (A->nrows != A->ncols) FB_FAIL(FB_ERR_INPUT, "a symmetric permutation needs a square matrix");
    FB_CHECK(fb_csr_alloc(out, A->nrows, A->ncols, A->nnz));
    FB_ALLOC(inv, A->nrows, "inverse permutation");
    for (int k = 0; k < A->nrows; ++k)
        inv[k] = -1;
    for (int k = 0; k < A->nrows; ++k) {
        if (perm[k] < 0 || perm[k] >= A->nrows || inv[perm[k]] >= 0)
            FB_FAIL(FB_ERR_INPUT, "not a permutation (entry %d)", k);
        inv[perm[k]] = k;
    }
    for (int k = 0; k < A->nrows; ++k)
        out->rowptr[k + 1] = out->rowptr[k] + (A->rowptr[perm[k] + 1] - A->rowptr[perm[k]]);
#pragma omp parallel for schedule(dynamic, 4096)
    for (int k = 0; k < A->nrows; ++k) {
        int src = A->rowptr[perm[k]], len = A->rowptr[perm[k] + 1] - src;
        for (int m = 0; m < len; ++m) {
            out->colidx[out->rowptr[k] + m] = inv[A->colidx[src + m]];
            out->values[out->rowptr[k] + m] = A->values[src + m];
        }
    }
    FB_CHECK(fb_csr_canonicalize(out));
    free(inv);
    return FB_OK;
fail:
    free(inv);
    fb_csr_free(out);
    return status;
}

fb_status fb_csr_rcm_bandwidth(const fb_csr *A, int64_t *bandwidth)
{
    fb_status status = FB_OK;
    int *perm = NULL, *at = NULL; /* at[old] = new */
    int64_t widest = 0;
    FB_ALLOC(perm, A->nrows > 0 ? A->nrows : 1, "RCM permutation");
    FB_ALLOC(at, A->nrows > 0 ? A->nrows : 1, "RCM positions");
    FB_CHECK(fb_csr_rcm(A, perm));
    for (int k = 0; k < A->nrows; ++k)
        at[perm[k]] = k;
    for (int i = 0; i < A->nrows; ++i)
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            const int64_t d = llabs((long long)at[i] - at[A->colidx[p]]);
            widest = d > widest ? d : widest;
        }
    *bandwidth = widest;
fail:
    free(perm);
    free(at);
    return status;
}
