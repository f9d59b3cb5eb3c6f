/* mesh_build.c - the lower piece every mesh producer builds on: the mesh's
 * lifetime (fb_mesh_free) and the node bookkeeping the Gmsh and SU2 readers
 * share (mesh_internal.h: tag lookup, the tetrahedron list, dropping unused
 * nodes). The readers build on this file (and text.c) only; mesh.c, the
 * cube and the format dispatch, sits above them, so no file calls back
 * into one that calls it. */
#include "mesh.h"

#include <math.h>
#include <stdio.h>
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

fb_status fb_mesh_read_coordinate(fb_cursor *c, const char *what, const char *kind, int64_t node, double *out)
{
    fb_status status = FB_OK;
    char tok[128];
    fb_cursor_blanks(c);
    const char *start = c->p;
    FB_CHECK(fb_cursor_real(c, what, out));
    if (fabs(*out) > FB_MESH_MAX_COORDINATE) {
        fb_token_show(start, c->end, tok, sizeof tok);
        FB_FAIL(FB_ERR_INPUT,
                "%s: line %lld: %s %lld: %s '%s' is too large (|coordinate| at most %g, so that volumes stay finite)",
                c->name, (long long)c->line, kind, (long long)node, what, tok, FB_MESH_MAX_COORDINATE);
    }
fail:
    return status;
}

void fb_mesh_limit_add(fb_text_limit *limit, int64_t line_end, int64_t more, const char *what)
{
    if (limit->counts == 0 && line_end > FB_TEXT_HEADER_MAX) return; /* no count in the header's first 16 MiB */
    limit->counts = more > INT64_MAX - limit->counts ? INT64_MAX : limit->counts + more;
    fb_text_limit_set(limit, line_end, limit->counts, FB_MESH_RECORD_MAX);
    snprintf(limit->why, sizeof limit->why, "its header allows for %lld %s", (long long)limit->counts, what);
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
