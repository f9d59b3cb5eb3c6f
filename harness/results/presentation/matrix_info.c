/* matrix_info.c - `flowbench matrix info`'s description of a matrix
 * (matrix_info.h). */
#include "matrix_info.h"

#include <jansson.h>

#define FILL_MAX 6 /* BCSR shapes r x c for r, c in 1..6 */

typedef struct fill_table {
    int64_t blocks[FILL_MAX][FILL_MAX];
    double fill[FILL_MAX][FILL_MAX];
} fill_table;

static fb_status fills(const fb_csr *A, fill_table *t)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_csr_bcsr_fill_table(A, FILL_MAX, FILL_MAX, &t->blocks[0][0]));
    for (int r = 1; r <= FILL_MAX; ++r)
        for (int c = 1; c <= FILL_MAX; ++c)
            t->fill[r - 1][c - 1] = A->nnz ? (double)t->blocks[r - 1][c - 1] * r * c / (double)A->nnz : 1.0;
fail:
    return status;
}

static void print_text(FILE *f, const fb_matrix *m, const fb_csr_stats *s, const fill_table *t)
{
    fprintf(f, "source       %s\n", m->source);
    fprintf(f, "origin       %s\n", m->origin);
    if (m->mesh_nodes)
        fprintf(f, "mesh         %lld nodes, %lld tetrahedra\n", (long long)m->mesh_nodes, (long long)m->mesh_tets);
    fprintf(f, "rows         %d\ncols         %d\nnnz          %lld\n", s->nrows, s->ncols, (long long)s->nnz);
    fprintf(f, "nnz/row      min %d  mean %.3f  max %d  stddev %.3f  (empty rows %d)\n", s->row_min, s->row_mean,
            s->row_max, s->row_stddev, s->empty_rows);
    fprintf(f, "bandwidth    %lld (lower %lld, upper %lld)\n", (long long)s->bandwidth, (long long)s->lower_bandwidth,
            (long long)s->upper_bandwidth);
    if (m->reordered)
        fprintf(f, "reorder      rcm: bandwidth %lld -> %lld\n", (long long)m->bandwidth_before,
                (long long)s->bandwidth);
    fprintf(f, "symmetry     %s\n", fb_symmetry_name(s->symmetry));
    fprintf(f, "hash         %016llx\n", (unsigned long long)s->hash);
    if (m->block)
        fprintf(f, "block        %dx%d BCSR, %lld blocks, fill %.3f\n", m->block, m->block, (long long)m->B.nblocks,
                fb_bcsr_fill(&m->B));
    fprintf(f, "load time    %.3f s\n", m->load_seconds);
    fprintf(f, "bcsr fill    r\\c");
    for (int c = 1; c <= FILL_MAX; ++c)
        fprintf(f, "%8d", c);
    fprintf(f, "\n");
    for (int r = 1; r <= FILL_MAX; ++r) {
        fprintf(f, "             %3d", r);
        for (int c = 1; c <= FILL_MAX; ++c)
            fprintf(f, "%8.3f", t->fill[r - 1][c - 1]);
        fprintf(f, "\n");
    }
}

static json_t *json_doc(const fb_matrix *m, const fb_csr_stats *s, const fill_table *t)
{
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s->hash);
    json_t *fill = json_array();
    for (int r = 1; r <= FILL_MAX; ++r)
        for (int c = 1; c <= FILL_MAX; ++c)
            json_array_append_new(fill, json_pack("{s:i, s:i, s:I, s:f}", "r", r, "c", c, "blocks",
                                                  (json_int_t)t->blocks[r - 1][c - 1], "fill", t->fill[r - 1][c - 1]));
    json_t *doc =
        json_pack("{s:s, s:s, s:i, s:i, s:I, s:{s:i, s:f, s:i, s:f, s:i}, s:I, s:I, s:I, s:s, s:s, s:f, s:o}", "source",
                  m->source, "origin", m->origin, "rows", s->nrows, "cols", s->ncols, "nnz", (json_int_t)s->nnz,
                  "nnz_per_row", "min", s->row_min, "mean", s->row_mean, "max", s->row_max, "stddev", s->row_stddev,
                  "empty_rows", s->empty_rows, "bandwidth", (json_int_t)s->bandwidth, "lower_bandwidth",
                  (json_int_t)s->lower_bandwidth, "upper_bandwidth", (json_int_t)s->upper_bandwidth, "symmetry",
                  fb_symmetry_name(s->symmetry), "hash", hash, "load_seconds", m->load_seconds, "bcsr_fill", fill);
    if (m->mesh_nodes)
        json_object_set_new(
            doc, "mesh",
            json_pack("{s:I, s:I}", "nodes", (json_int_t)m->mesh_nodes, "tetrahedra", (json_int_t)m->mesh_tets));
    if (m->reordered)
        json_object_set_new(
            doc, "reorder",
            json_pack("{s:s, s:I}", "method", "rcm", "bandwidth_before", (json_int_t)m->bandwidth_before));
    if (m->block)
        json_object_set_new(doc, "block",
                            json_pack("{s:i, s:I, s:f}", "size", m->block, "blocks", (json_int_t)m->B.nblocks, "fill",
                                      fb_bcsr_fill(&m->B)));
    return doc;
}

fb_status fb_matrix_info_print(FILE *f, const fb_matrix *m, int as_json)
{
    fb_status status = FB_OK;
    fb_csr_stats s;
    fill_table t;
    FB_CHECK(fb_csr_stats_compute(&m->A, &s));
    FB_CHECK(fills(&m->A, &t));
    if (as_json) {
        json_t *doc = json_doc(m, &s, &t);
        json_dumpf(doc, f, JSON_INDENT(2));
        fprintf(f, "\n");
        json_decref(doc);
    } else {
        print_text(f, m, &s, &t);
    }
fail:
    return status;
}
