/* source.c - resolves SRC (a file path or a gen: spec, with :KEY=VALUE
 * options) into the scalar CSR and, with :block=K, its BCSR. The grammar
 * is in source.h; every refusal names the SRC and says what is accepted. */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/clock.h"
#include "format.h"
#include "mesh.h"
#include "mtx.h"

#define MAX_BLOCK_OPTION 5
#define MAX_CUBE_N 100000 /* gen:cube:N; the nonzero count refuses far less */

typedef struct spec {
    char base[512];
    int gen;                    /* gen:cube:N, else a file */
    fb_file_format format;      /* of a file */
    int block;                  /* 0: none */
    int graph;                  /* matrix=graph */
    int cholmod;                /* reader=cholmod */
    int rcm;                    /* reorder=rcm */
    int given[FB_SRC_NOPTIONS]; /* each option seen */
    int cube_n;
} spec;

static const char *const option_keys[FB_SRC_NOPTIONS] = {"block=", "matrix=", "reader=", "reorder="};

int fb_source_option_of(const char *piece, const char **value)
{
    for (int k = 0; k < FB_SRC_NOPTIONS; ++k)
        if (strncmp(piece, option_keys[k], strlen(option_keys[k])) == 0) {
            if (value) *value = piece + strlen(option_keys[k]);
            return k;
        }
    return -1;
}

static fb_status option(const char *src, spec *s, int key, const char *value)
{
    fb_status status = FB_OK;
    char *end = NULL;
    if (s->given[key]++) FB_FAIL(FB_ERR_USAGE, "%s: %s given twice", src, option_keys[key]);
    if (key == FB_SRC_BLOCK) {
        long k = strtol(value, &end, 10);
        if (end == value || *end || k < 1 || k > MAX_BLOCK_OPTION)
            FB_FAIL(FB_ERR_USAGE, "%s: block=%s: K must be an integer 1..%d", src, value, MAX_BLOCK_OPTION);
        s->block = (int)k;
    } else if (key == FB_SRC_MATRIX) {
        if (strcmp(value, "graph") && strcmp(value, "laplacian"))
            FB_FAIL(FB_ERR_USAGE, "%s: matrix=%s: expected laplacian or graph", src, value);
        s->graph = strcmp(value, "graph") == 0;
    } else if (key == FB_SRC_READER) {
        if (strcmp(value, "cholmod") && strcmp(value, "flowbench"))
            FB_FAIL(FB_ERR_USAGE, "%s: reader=%s: expected flowbench or cholmod", src, value);
        s->cholmod = strcmp(value, "cholmod") == 0;
    } else {
        if (strcmp(value, "rcm") && strcmp(value, "none"))
            FB_FAIL(FB_ERR_USAGE, "%s: reorder=%s: expected rcm or none", src, value);
        s->rcm = strcmp(value, "rcm") == 0;
    }
fail:
    return status;
}

/* Peels ":key=value" pieces with known keys off the right end. */
static fb_status options(const char *src, spec *s)
{
    fb_status status = FB_OK;
    for (char *colon; (colon = strrchr(s->base, ':')) != NULL;) {
        const char *value = NULL;
        int key = fb_source_option_of(colon + 1, &value);
        if (key < 0) break;
        FB_CHECK(option(src, s, key, value));
        *colon = '\0';
    }
fail:
    return status;
}

static fb_status cube_size(const char *src, const char *arg, spec *s)
{
    fb_status status = FB_OK;
    char *end = NULL;
    long n = 0;
    if (strncmp(arg, "level=", 6) == 0) {
        long level = strtol(arg + 6, &end, 10);
        if (end == arg + 6 || *end || !fb_mesh_cube_level((int)level) || level < 0)
            FB_FAIL(FB_ERR_USAGE, "%s: level must be 0, 1 or 2 (N = 15, 29, 57)", src);
        n = fb_mesh_cube_level((int)level);
    } else {
        errno = 0;
        n = strtol(arg, &end, 10);
        if (end == arg || *end || (errno != ERANGE && n < 2))
            FB_FAIL(FB_ERR_USAGE, "%s: N must be an integer >= 2 (gen:cube:N, N nodes per edge)", src);
        if (errno == ERANGE || n > MAX_CUBE_N) FB_FAIL(FB_ERR_USAGE, "%s: N is out of range 2..%d", src, MAX_CUBE_N);
    }
    int64_t k2 = s->block ? (int64_t)s->block * s->block : 1, nnz = fb_mesh_cube_nnz(n) * k2;
    if (nnz > FB_CSR_MAX_NNZ || (int64_t)n * n * n * (s->block ? s->block : 1) > FB_CSR_MAX_DIM)
        FB_FAIL(FB_ERR_USAGE, "%s: %lld nonzeros is too many: flowbench keeps 32-bit indices (nnz < 2^31)", src,
                (long long)nnz);
    s->cube_n = (int)n;
fail:
    return status;
}

static fb_status classify(const char *src, spec *s)
{
    fb_status status = FB_OK;
    if (strncmp(s->base, "gen:", 4) == 0) {
        s->gen = 1;
        if (strncmp(s->base, "gen:cube:", 9) != 0)
            FB_FAIL(FB_ERR_USAGE, "%s: unknown generator (known: gen:cube:N, gen:cube:level=0|1|2)", src);
        FB_CHECK(cube_size(src, s->base + 9, s));
    } else if ((s->format = fb_file_format_of(s->base)) == FB_FILE_UNKNOWN) {
        FB_FAIL(FB_ERR_USAGE, "%s: unknown matrix source (expected a .mtx, .mtx.gz, .msh or .su2 file, or gen:cube:N)",
                src);
    }
    if (s->given[FB_SRC_MATRIX] && s->format == FB_FILE_MTX)
        FB_FAIL(FB_ERR_USAGE, "%s: matrix= applies to meshes and gen:cube, not to Matrix Market files", src);
    if (s->given[FB_SRC_READER] && s->format != FB_FILE_MTX)
        FB_FAIL(FB_ERR_USAGE, "%s: reader= applies to Matrix Market files", src);
fail:
    return status;
}

/* Prefixes the last error with SRC (for errors raised without a file name). */
static fb_status with_source(fb_status st, const char *src)
{
    char msg[1024];
    if (st == FB_OK) return st;
    snprintf(msg, sizeof msg, "%s", fb_error_message());
    return fb_error_set(st, __FILE__, __LINE__, "%s: %s", src, msg);
}

static fb_status load_mtx(const spec *s, fb_matrix *out, fb_csr *base)
{
    fb_status status = FB_OK;
    fb_mtx m;
    FB_CHECK(s->cholmod ? fb_mtx_read_cholmod(s->base, &m) : fb_mtx_read(s->base, &m));
    snprintf(out->origin, sizeof out->origin, "matrix market (%s %s %s%s)", m.info.array ? "array" : "coordinate",
             fb_mtx_field_name(m.info.field), fb_mtx_symmetry_name(m.info.symmetry),
             s->cholmod ? ", read by CHOLMOD" : "");
    if (m.info.array) {
        out->is_vector = m.dense.ncols == 1;
        status = with_source(fb_csr_from_dense(&m.dense, base), s->base);
    } else {
        *base = m.csr;
        memset(&m.csr, 0, sizeof m.csr);
    }
    fb_mtx_free(&m);
fail:
    return status;
}

static fb_status load_mesh(const char *src, const spec *s, fb_matrix *out, fb_csr *base)
{
    fb_status status = FB_OK;
    fb_mesh mesh = {0};
    if (s->gen)
        FB_CHECK(fb_mesh_cube(s->cube_n, &mesh));
    else
        FB_CHECK(fb_mesh_read(s->base, &mesh));
    snprintf(out->origin, sizeof out->origin, "%s, %s",
             s->gen                      ? "gen:cube mesh"
             : s->format == FB_FILE_GMSH ? "gmsh mesh"
                                         : "su2 mesh",
             s->graph ? "node graph" : "P1 Laplacian");
    out->mesh_nodes = mesh.nnodes;
    out->mesh_tets = mesh.ntets;
    FB_CHECK(with_source(s->graph ? fb_mesh_graph(&mesh, base) : fb_mesh_laplacian(&mesh, base), src));
fail:
    fb_mesh_free(&mesh);
    return status;
}

static fb_status reorder(const char *src, const spec *s, fb_csr *base, fb_matrix *out)
{
    fb_status status = FB_OK;
    int *perm = NULL;
    fb_csr permuted = {0};
    if (base->nrows != base->ncols)
        FB_FAIL(FB_ERR_USAGE, "%s: %s needs a square matrix (this one is %d x %d)", src,
                s->rcm ? "reorder=rcm" : "--reorder rcm", base->nrows, base->ncols);
    out->bandwidth_before = fb_csr_bandwidth(base);
    FB_ALLOC(perm, base->nrows, "RCM permutation");
    FB_CHECK(with_source(fb_csr_rcm(base, perm), src));
    FB_CHECK(with_source(fb_csr_permute(base, perm, &permuted), src));
    fb_csr_free(base);
    *base = permuted;
    out->reordered = 1;
fail:
    free(perm);
    return status;
}

static fb_status build(const char *src, const spec *s, const fb_matrix_options *opt, fb_matrix *out)
{
    fb_status status = FB_OK;
    fb_csr base = {0};
    if (opt && opt->reorder_rcm && s->given[FB_SRC_REORDER] && !s->rcm)
        FB_FAIL(FB_ERR_USAGE, "%s: reorder=none in the source, --reorder rcm beside it: name one order", src);
    FB_CHECK(s->format == FB_FILE_MTX ? load_mtx(s, out, &base) : load_mesh(src, s, out, &base));
    out->order_named = s->given[FB_SRC_REORDER] > 0;
    if ((opt && opt->reorder_rcm) || s->rcm) FB_CHECK(reorder(src, s, &base, out));
    if (s->block && s->format != FB_FILE_MTX) {
        FB_CHECK(with_source(fb_csr_kron_block(&base, s->block, &out->A), src));
        fb_csr_free(&base);
    } else {
        out->A = base;
        memset(&base, 0, sizeof base);
    }
    if (s->block) FB_CHECK(with_source(fb_csr_to_bcsr(&out->A, s->block, s->block, &out->B), src));
    out->block = s->block;
fail:
    fb_csr_free(&base);
    return status;
}

fb_status fb_matrix_load(const char *src, const fb_matrix_options *opt, fb_matrix *out)
{
    fb_status status = FB_OK;
    spec s;
    double t0 = fb_now();
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    if (!src || !*src) FB_FAIL(FB_ERR_USAGE, "empty matrix source (expected a file or gen:cube:N)");
    if (strlen(src) >= sizeof s.base) FB_FAIL(FB_ERR_USAGE, "matrix source is too long (%zu characters)", strlen(src));
    snprintf(out->source, sizeof out->source, "%s", src);
    snprintf(s.base, sizeof s.base, "%s", src);
    FB_CHECK(options(src, &s));
    FB_CHECK(classify(src, &s));
    FB_CHECK(build(src, &s, opt, out));
    out->load_seconds = fb_now() - t0;
    return FB_OK;
fail:
    fb_matrix_free(out);
    return status;
}

void fb_matrix_free(fb_matrix *m)
{
    if (!m) return;
    fb_csr_free(&m->A);
    fb_bcsr_free(&m->B);
    memset(m, 0, sizeof *m);
}
