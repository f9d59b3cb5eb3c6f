/* cmd_matrix.c - `flowbench matrix info SRC` and `flowbench matrix export
 * SRC OUT.mtx`: what a matrix is before anything runs on it (shape, rows,
 * bandwidth, symmetry, content hash, the fill every BCSR shape would cost),
 * and a way to hand it to any other tool. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../matrix/mtx.h"
#include "../matrix/source.h"

#define FILL_MAX 6 /* BCSR shapes r x c for r, c in 1..6 */

static const fb_option options[] = {
    {"json", NULL, "info: print one JSON document instead of text", 0},
    {"reorder", "ORDER", "renumber rows and columns first: none (default) or rcm (reverse Cuthill-McKee)", 0},
    {NULL, NULL, NULL, 0},
};

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

static void print_text(const fb_matrix *m, const fb_csr_stats *s, const fill_table *t)
{
    printf("source       %s\n", m->source);
    printf("origin       %s\n", m->origin);
    if (m->mesh_nodes)
        printf("mesh         %lld nodes, %lld tetrahedra\n", (long long)m->mesh_nodes, (long long)m->mesh_tets);
    printf("rows         %d\ncols         %d\nnnz          %lld\n", s->nrows, s->ncols, (long long)s->nnz);
    printf("nnz/row      min %d  mean %.3f  max %d  stddev %.3f  (empty rows %d)\n", s->row_min, s->row_mean,
           s->row_max, s->row_stddev, s->empty_rows);
    printf("bandwidth    %lld (lower %lld, upper %lld)\n", (long long)s->bandwidth, (long long)s->lower_bandwidth,
           (long long)s->upper_bandwidth);
    if (m->reordered)
        printf("reorder      rcm: bandwidth %lld -> %lld\n", (long long)m->bandwidth_before, (long long)s->bandwidth);
    printf("symmetry     %s\n", fb_symmetry_name(s->symmetry));
    printf("hash         %016llx\n", (unsigned long long)s->hash);
    if (m->block)
        printf("block        %dx%d BCSR, %lld blocks, fill %.3f\n", m->block, m->block, (long long)m->B.nblocks,
               fb_bcsr_fill(&m->B));
    printf("load time    %.3f s\n", m->load_seconds);
    printf("bcsr fill    r\\c");
    for (int c = 1; c <= FILL_MAX; ++c)
        printf("%8d", c);
    printf("\n");
    for (int r = 1; r <= FILL_MAX; ++r) {
        printf("             %3d", r);
        for (int c = 1; c <= FILL_MAX; ++c)
            printf("%8.3f", t->fill[r - 1][c - 1]);
        printf("\n");
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

static fb_status info(const fb_matrix *m, int as_json)
{
    fb_status status = FB_OK;
    fb_csr_stats s;
    fill_table t;
    FB_CHECK(fb_csr_stats_compute(&m->A, &s));
    FB_CHECK(fills(&m->A, &t));
    if (as_json) {
        json_t *doc = json_doc(m, &s, &t);
        json_dumpf(doc, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(doc);
    } else {
        print_text(m, &s, &t);
    }
fail:
    return status;
}

static fb_status export(const fb_matrix *m, const char *path)
{
    fb_status status = FB_OK;
    char comment[600];
    snprintf(comment, sizeof comment, " written by flowbench matrix export from %s%s", m->source,
             m->reordered ? " (rcm order)" : "");
    if (m->is_vector)
        FB_CHECK(fb_mtx_write_vector(path, m->A.values, m->A.nrows, comment));
    else
        FB_CHECK(fb_mtx_write(path, &m->A, comment));
    printf("wrote %s: %d x %d, %lld entries (%s real general)\n", path, m->A.nrows, m->A.ncols, (long long)m->A.nnz,
           m->is_vector ? "array" : "coordinate");
fail:
    return status;
}

static fb_status parse_args(const fb_parsed *args, int *is_info, fb_matrix_options *opt)
{
    fb_status status = FB_OK;
    const char *sub = args->positional[0], *order = fb_cli_value(args, "reorder");
    *is_info = strcmp(sub, "info") == 0;
    if (!*is_info && strcmp(sub, "export") != 0)
        FB_FAIL(FB_ERR_USAGE, "matrix: unknown sub-command '%s' (expected info or export)", sub);
    if (*is_info && args->npositional != 2)
        FB_FAIL(FB_ERR_USAGE, "matrix: usage: flowbench matrix info SRC [--json] [--reorder rcm]");
    if (!*is_info && args->npositional != 3)
        FB_FAIL(FB_ERR_USAGE, "matrix: usage: flowbench matrix export SRC OUT.mtx [--reorder rcm]");
    if (!*is_info && fb_cli_flag(args, "json")) FB_FAIL(FB_ERR_USAGE, "matrix: --json applies to matrix info");
    if (order && strcmp(order, "rcm") != 0 && strcmp(order, "none") != 0)
        FB_FAIL(FB_ERR_USAGE, "--reorder: '%s' is not none or rcm", order);
    opt->reorder_rcm = order && strcmp(order, "rcm") == 0;
fail:
    return status;
}

static int run_matrix(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_matrix m;
    fb_matrix_options opt = {0};
    int is_info = 0;
    memset(&m, 0, sizeof m);
    FB_CHECK(parse_args(args, &is_info, &opt));
    FB_CHECK(fb_matrix_load(args->positional[1], &opt, &m));
    FB_CHECK(is_info ? info(&m, fb_cli_flag(args, "json")) : export(&m, args->positional[2]));
fail:
    fb_matrix_free(&m);
    return fb_comm_report(status);
}

const fb_command fb_cmd_matrix = {
    .name = "matrix",
    .summary = "describe a matrix or mesh-derived matrix, or export it as Matrix Market",
    .usage = "matrix info SRC [--json] [--reorder rcm] | matrix export SRC OUT.mtx [--reorder rcm]",
    .description = "info: rows, cols, nnz, nonzeros per row (min, mean, max, stddev), bandwidth,\n"
                   "symmetry, content hash, load time, and the BCSR fill ratio (stored / true\n"
                   "nonzeros) of every r x c block shape for r, c in 1..6.\n"
                   "export: writes the matrix as Matrix Market coordinate real general (a vector\n"
                   "as array); a name ending in .gz is written compressed.\n\n"
                   "SRC is a file or a generator, with optional :KEY=VALUE suffixes:\n"
                   "  PATH.mtx, PATH.mtx.gz   Matrix Market (real, integer, pattern; general,\n"
                   "                          symmetric, skew-symmetric; coordinate or array)\n"
                   "  PATH.msh, PATH.su2      tetrahedral mesh (Gmsh 2.2/4.1 ASCII, SU2)\n"
                   "  gen:cube:N              unit cube, N^3 nodes, 6 (N-1)^3 tetrahedra\n"
                   "  gen:cube:level=L        L = 0, 1, 2: N = 15, 29, 57 (the cavity levels)\n"
                   "  :matrix=laplacian|graph meshes: P1 Laplacian (default) or node graph\n"
                   "  :block=K                K x K blocks (1..5), e.g. 4 for u,v,w,p\n"
                   "  :reader=cholmod         read a .mtx with SuiteSparse CHOLMOD instead\n"
                   "Bad input is refused with one line naming the file and line; exit status 2.",
    .options = options,
    .min_positional = 2,
    .max_positional = 3,
    .run = run_matrix,
};
