/* mesh.c - the generated unit cube, and the node bookkeeping the file
 * readers share (tag lookup, dropping unused nodes). */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "mesh_internal.h"

void fb_mesh_free(fb_mesh *m)
{
    if (!m) return;
    free(m->xyz);
    free(m->tets);
    memset(m, 0, sizeof *m);
}

int fb_mesh_cube_level(int level) { return level >= 0 && level <= 2 ? 14 * (1 << level) + 1 : 0; }

/* Diagonal plus both directions of the 7 edge directions of a Kuhn cell,
 * (1,0,0) ... (1,1,1): a direction d has prod_a (N - d_a) node pairs. */
int64_t fb_mesh_cube_nnz(int64_t n)
{
    int64_t m = n - 1;
    return n * n * n + 2 * (3 * n * n * m + 3 * n * m * m + m * m * m);
}

static int cube_node(int n, int i, int j, int k) { return i + n * (j + n * k); }

/* The 6 tetrahedra of cell (i, j, k): walk from corner 000 to 111 adding
 * the unit steps in each of the 6 axis orders. Odd orders are mirrored
 * images, so two vertices are swapped to keep every volume positive. */
static void cube_cell(int n, int i, int j, int k, int *tet)
{
    static const int order[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int t = 0; t < 6; ++t) {
        int c[3] = {i, j, k};
        tet[4 * t] = cube_node(n, c[0], c[1], c[2]);
        for (int s = 0; s < 3; ++s) {
            c[order[t][s]]++;
            tet[4 * t + 1 + s] = cube_node(n, c[0], c[1], c[2]);
        }
        if (t >= 3) {
            int tmp = tet[4 * t + 1];
            tet[4 * t + 1] = tet[4 * t + 2];
            tet[4 * t + 2] = tmp;
        }
    }
}

fb_status fb_mesh_cube(int n, fb_mesh *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    int64_t nodes = (int64_t)n * n * n, tets = 6 * (int64_t)(n - 1) * (n - 1) * (n - 1);
    if (n < 2) FB_FAIL(FB_ERR_USAGE, "gen:cube:%d: N must be at least 2", n);
    if (nodes > FB_CSR_MAX_DIM || 4 * tets > FB_CSR_MAX_NNZ)
        FB_FAIL(FB_ERR_USAGE, "gen:cube:%d: %lld nodes and %lld tetrahedra is too large (32-bit indices)", n,
                (long long)nodes, (long long)tets);
    out->nnodes = (int)nodes;
    out->ntets = (int)tets;
    int64_t ncoords = 3 * nodes, nvertices = 4 * tets;
    FB_ALLOC(out->xyz, ncoords, "cube coordinates");
    FB_ALLOC(out->tets, nvertices, "cube tetrahedra");
    double h = 1.0 / (n - 1);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                int64_t v = cube_node(n, i, j, k);
                out->xyz[3 * v] = i * h;
                out->xyz[3 * v + 1] = j * h;
                out->xyz[3 * v + 2] = k * h;
            }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n - 1; ++k)
        for (int j = 0; j < n - 1; ++j)
            for (int i = 0; i < n - 1; ++i)
                cube_cell(n, i, j, k, out->tets + 24 * (i + (int64_t)(n - 1) * (j + (int64_t)(n - 1) * k)));
    return FB_OK;
fail:
    fb_mesh_free(out);
    return status;
}

/* ---- shared by the readers ------------------------------------------------ */

void fb_node_table_free(fb_node_table *t)
{
    free(t->tags);
    free(t->xyz);
    free(t->sorted);
    memset(t, 0, sizeof *t);
}

static int cmp_tag_pos(const void *a, const void *b)
{
    int64_t x = ((const fb_tag_pos *)a)->tag, y = ((const fb_tag_pos *)b)->tag;
    return (x > y) - (x < y);
}

/* Sorts (tag, position) for lookups; a tag given twice is an error naming
 * that tag. Tags may be sparse (Gmsh allows any positive tags), so no
 * array is ever sized by the largest tag. */
fb_status fb_node_table_index(fb_node_table *t, const char *name)
{
    fb_status status = FB_OK;
    FB_ALLOC(t->sorted, t->n, "node index");
    for (int k = 0; k < t->n; ++k)
        t->sorted[k] = (fb_tag_pos){t->tags[k], k};
    qsort(t->sorted, (size_t)t->n, sizeof *t->sorted, cmp_tag_pos);
    for (int k = 1; k < t->n; ++k)
        if (t->sorted[k].tag == t->sorted[k - 1].tag)
            FB_FAIL(FB_ERR_INPUT, "%s: node %lld is defined twice", name, (long long)t->sorted[k].tag);
fail:
    return status;
}

int fb_node_table_find(const fb_node_table *t, int64_t tag)
{
    int lo = 0, hi = t->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t->sorted[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->sorted[lo].tag == tag ? t->sorted[lo].pos : -1;
}

fb_status fb_tet_list_push(fb_tet_list *l, const int *v, const char *name, int64_t line)
{
    fb_status status = FB_OK;
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 1024;
        if (cap > FB_CSR_MAX_NNZ / 4) cap = FB_CSR_MAX_NNZ / 4;
        if (l->n >= cap)
            FB_FAIL(FB_ERR_INPUT, "%s: line %lld: more than %lld tetrahedra (32-bit indices)", name, (long long)line,
                    (long long)cap);
        int *bigger = realloc(l->v, (size_t)cap * 4 * sizeof *bigger);
        if (!bigger) FB_FAIL(FB_ERR_NOMEM, "%s: out of host memory for %lld tetrahedra", name, (long long)cap);
        l->v = bigger;
        l->cap = cap;
    }
    memcpy(l->v + 4 * l->n, v, 4 * sizeof *v);
    l->n++;
fail:
    return status;
}

/* Keeps the nodes tetrahedra use, in table order, and renumbers. */
fb_status fb_mesh_assemble(const char *name, fb_node_table *nodes, fb_tet_list *tets, fb_mesh *out)
{
    fb_status status = FB_OK;
    int *newid = NULL, used = 0;
    memset(out, 0, sizeof *out);
    if (tets->n == 0) FB_FAIL(FB_ERR_INPUT, "%s: the mesh has no tetrahedra", name);
    FB_ALLOC(newid, nodes->n, "node renumbering");
    for (int64_t k = 0; k < 4 * tets->n; ++k)
        newid[tets->v[k]] = 1;
    for (int k = 0; k < nodes->n; ++k)
        newid[k] = newid[k] ? used++ : -1;
    out->nnodes = used;
    out->ntets = (int)tets->n;
    int64_t ncoords = 3 * (int64_t)used;
    FB_ALLOC(out->xyz, ncoords, "mesh coordinates");
    for (int k = 0; k < nodes->n; ++k)
        if (newid[k] >= 0) memcpy(out->xyz + 3 * (int64_t)newid[k], nodes->xyz + 3 * (int64_t)k, 3 * sizeof(double));
    for (int64_t k = 0; k < 4 * tets->n; ++k)
        tets->v[k] = newid[tets->v[k]];
    out->tets = tets->v; /* ownership moves to the mesh */
    tets->v = NULL;
    tets->n = tets->cap = 0;
fail:
    free(newid);
    if (status != FB_OK) fb_mesh_free(out);
    return status;
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t k = 0; k < m; ++k)
        if ((s[n - m + k] | 0x20) != (suffix[k] | 0x20)) return 0;
    return 1;
}

fb_status fb_mesh_read(const char *path, fb_mesh *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    if (ends_with_ci(path, ".msh")) return fb_mesh_read_gmsh(path, out);
    if (ends_with_ci(path, ".su2")) return fb_mesh_read_su2(path, out);
    FB_FAIL(FB_ERR_INPUT, "%s: unknown mesh type (expected .msh or .su2)", path);
fail:
    return status;
}
