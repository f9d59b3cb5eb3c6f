/* cmd_matrix.c - `flowbench matrix info SRC` and `flowbench matrix export
 * SRC OUT.mtx`: what a matrix is before anything runs on it (shape, rows,
 * bandwidth, symmetry, content hash, the fill every BCSR shape would cost),
 * and a way to hand it to any other tool. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../matrix/mtx.h"
#include "../matrix/source.h"
#include "../results/presentation/matrix_info.h"

static const fb_option options[] = {
    {"json", NULL, "info: print one JSON document instead of text", 0},
    {"reorder", "ORDER", "renumber rows and columns first: none (default) or rcm (reverse Cuthill-McKee)", 0},
    {NULL, NULL, NULL, 0},
};

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
    FB_CHECK(is_info ? fb_matrix_info_print(stdout, &m, fb_cli_flag(args, "json")) : export(&m, args->positional[2]));
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
                   "  :reorder=rcm            renumber by reverse Cuthill-McKee (as --reorder rcm)\n"
                   "Bad input is refused with one line naming the file and line; exit status 2.",
    .options = options,
    .min_positional = 2,
    .max_positional = 3,
    .run = run_matrix,
};
