/* spmv_family.c - the SpMV family's descriptor (bench/family.h): its
 * kernels, the peer libraries (kernel indices past the flowbench kernels
 * are the peers), "auto" right after them (it runs the kernel the rule of
 * spmv_auto.h picks for the matrix), and the user's kernel files (past
 * "auto"; bench/user_kernel.h), problems as matrix SRC specs, and every
 * device program its space can produce. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "core/comm.h"
#include "matrix/mtx.h"
#include "peers.h"
#include "spmv.h"
#include "spmv_auto.h"
#include "spmv_matrix.h"
#include "spmv_record.h"

#define MAX_FAMILY_KERNELS 32

typedef struct spmv_problem {
    fb_matrix m;
    json_t *json;
    fb_signature sig;
    double *x; /* the user's x (fb_spmv_problem_read_x), zero-padded to a block view's columns; NULL: the default */
    double *y; /* the last run's y (fb_spmv_problem_y) */
} spmv_problem;

static fb_family_kernel kernels[MAX_FAMILY_KERNELS];

/* Filled on first use from the kernel table and the peer registry. */
static void fill_kernels(void)
{
    if (kernels[0].name) return;
    for (int i = 0; i < fb_spmv_kernel_count; ++i)
        kernels[i] =
            (fb_family_kernel){fb_spmv_kernels[i].name,   fb_spmv_kernels[i].summary, fb_spmv_kernels[i].nparams,
                               fb_spmv_kernels[i].params, fb_spmv_kernels[i].source,  NULL};
    for (int i = 0; i < fb_peer_count(); ++i) {
        const fb_peer *p = fb_peer_at(i);
        kernels[fb_spmv_kernel_count + i] =
            (fb_family_kernel){p->def.name, p->def.summary, 0, p->def.params, NULL, NULL};
    }
    kernels[fb_spmv_kernel_count + fb_peer_count()] = (fb_family_kernel){
        "auto", "the format, kernel and parameters the rule of recorded sweeps picks for the matrix", 0, NULL, NULL,
        NULL};
}

/* The built-ins, the peers and "auto": what is there before any kernel file. */
static int own_count(void) { return fb_spmv_kernel_count + fb_peer_count() + 1; }

static const fb_family_kernel *kernel_at(int i)
{
    fill_kernels();
    if (i >= own_count()) kernels[i] = fb_user_kernel_view(fb_spmv_user_kernel(i - own_count())->user);
    return &kernels[i];
}

static int kernel_count(void) { return own_count() + fb_spmv_user_kernel_count(); }

static int is_auto(int i) { return i == fb_spmv_kernel_count + fb_peer_count(); }

static const fb_spmv_kernel_def *kernel_def(int i, const fb_peer **peer)
{
    *peer = i >= fb_spmv_kernel_count && i < fb_spmv_kernel_count + fb_peer_count()
                ? fb_peer_at(i - fb_spmv_kernel_count)
                : NULL;
    if (i >= own_count()) return fb_spmv_user_kernel(i - own_count());
    return *peer ? &(*peer)->def : &fb_spmv_kernels[i];
}

fb_status fb_spmv_problem_open(const char *spec, int reorder_rcm, void **out)
{
    fb_status status = FB_OK;
    fb_matrix_options opt = {.reorder_rcm = reorder_rcm};
    spmv_problem *p = NULL;
    FB_ALLOC(p, 1, "a matrix problem");
    FB_CHECK(fb_matrix_load(spec, &opt, &p->m));
    if (p->m.is_vector) FB_FAIL(FB_ERR_INPUT, "%s: is a vector (Matrix Market array), not a matrix", spec);
    FB_CHECK(fb_spmv_matrix_describe(&p->m, &p->json, &p->sig));
    /* what sss's kernels need, from the statistics the description computed */
    const char *symmetry = json_string_value(json_object_get(p->json, "symmetry"));
    p->m.symmetric = symmetry && !strcmp(symmetry, "symmetric");
    *out = p;
    return FB_OK;
fail:
    if (p) fb_matrix_free(&p->m);
    free(p);
    return status;
}

static fb_status problem_open(const char *spec, void **out) { return fb_spmv_problem_open(spec, 0, out); }

/* A Matrix Market array with one column and as many rows as the matrix
 * has columns; a block view rounds the columns up to a multiple of K, and
 * those columns hold no entry, so their x is 0 (the user never sees the
 * padding). */
fb_status fb_spmv_problem_read_x(void *vp, const char *path)
{
    fb_status status = FB_OK;
    spmv_problem *p = vp;
    const int ncols = p->m.A.ncols, padded = p->m.block ? p->m.B.nbcols * p->m.B.c : ncols;
    fb_mtx file;
    memset(&file, 0, sizeof file);
    FB_CHECK(fb_mtx_read(path, &file));
    if (!file.info.array || file.dense.ncols != 1)
        FB_FAIL(FB_ERR_INPUT, "%s: --x must be a Matrix Market array with one column", path);
    if (file.dense.nrows != ncols)
        FB_FAIL(FB_ERR_INPUT, "%s: --x has %d entries but the matrix has %d columns", path, file.dense.nrows, ncols);
    free(p->x);
    p->x = calloc((size_t)(padded > ncols ? padded : ncols), sizeof *p->x);
    if (!p->x) FB_FAIL(FB_ERR_NOMEM, "out of host memory for x (%d entries)", padded);
    memcpy(p->x, file.dense.values, (size_t)ncols * sizeof *p->x);
fail:
    fb_mtx_free(&file);
    return status;
}

const fb_matrix *fb_spmv_problem_matrix(const void *vp) { return &((const spmv_problem *)vp)->m; }

fb_status fb_spmv_problem_check_ranks(const void *problem)
{
    const fb_matrix *m = fb_spmv_problem_matrix(problem);
    if (fb_comm_size() == 1 || m->A.nrows == m->A.ncols) return FB_OK;
    return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__,
                        "%s: peer:petsc on %d ranks takes a square matrix, and this one is %lld x %lld (run it on one "
                        "process)",
                        m->source, fb_comm_size(), (long long)m->A.nrows, (long long)m->A.ncols);
}

const double *fb_spmv_problem_y(const void *vp) { return ((const spmv_problem *)vp)->y; }

static void problem_close(void *vp)
{
    spmv_problem *p = vp;
    if (!p) return;
    free(p->x);
    free(p->y);
    json_decref(p->json);
    fb_matrix_free(&p->m);
    free(p);
}

static const json_t *problem_json(const void *vp) { return ((const spmv_problem *)vp)->json; }
static void signature(const void *vp, fb_signature *out) { *out = ((const spmv_problem *)vp)->sig; }

static fb_spmv_config config_of(const spmv_problem *p, const fb_spmv_kernel_def *k, const fb_family_run *run)
{
    fb_spmv_config cfg = {
        .kernel = k, .point = run->point, .is_double = run->is_double, .x = p->x, .measure = run->measure};
    return cfg;
}

/* "auto": the run of the kernel and point the rule picks on this device. */
static fb_status auto_run(const spmv_problem *p, const fb_family_run *run, const fb_device_info *dev,
                          fb_spmv_auto_choice *c, fb_family_run *chosen)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_spmv_auto_pick(&p->m, p->json, dev, run->is_double, c));
    *chosen = *run;
    chosen->kernel = (int)(c->kernel - fb_spmv_kernels);
    chosen->point = c->point;
fail:
    return status;
}

static fb_status check(const void *vp, const fb_family_run *run, const fb_device_info *dev)
{
    fb_status status = FB_OK;
    const spmv_problem *p = vp;
    fb_spmv_auto_choice choice;
    fb_family_run chosen;
    if (is_auto(run->kernel)) {
        FB_CHECK(auto_run(p, run, dev, &choice, &chosen));
        run = &chosen;
    }
    const fb_peer *peer;
    const fb_spmv_kernel_def *k = kernel_def(run->kernel, &peer);
    fb_spmv_config cfg = config_of(p, k, run);
    fb_spmv_matrix A;
    char why[256] = "";
    if (peer) {
        if (!peer->available(why, sizeof why)) FB_FAIL(FB_ERR_USAGE, "%s: %s", k->name, why);
        if (strcmp(peer->backend, dev->backend) != 0)
            FB_FAIL(FB_ERR_USAGE, "%s runs on the %s backend only", k->name, peer->backend);
        return FB_OK;
    }
    FB_CHECK(fb_spmv_view_shape(&p->m, k, &A));
    FB_CHECK(fb_spmv_check_point(&cfg, dev, &A));
fail:
    return status;
}

static fb_status run(fb_target *t, void *vp, const fb_family_run *frun, json_t **record)
{
    fb_status status = FB_OK, run_status;
    spmv_problem *p = vp;
    fb_spmv_auto_choice choice = {0};
    fb_family_run chosen;
    fb_spmv_result r;
    memset(&r, 0, sizeof r);
    *record = NULL;
    if (is_auto(frun->kernel)) {
        FB_CHECK(auto_run(p, frun, fb_target_info(t), &choice, &chosen));
        frun = &chosen;
    }
    const fb_peer *peer;
    const fb_spmv_kernel_def *k = kernel_def(frun->kernel, &peer);
    fb_spmv_config cfg = config_of(p, k, frun);
    fb_spmv_matrix A;
    FB_CHECK(fb_spmv_view_for(&p->m, k, &A));
    run_status = peer ? fb_peer_run(peer, t, &A, &cfg, &r) : fb_spmv_run(t, &A, &cfg, &r);
    if (run_status != FB_OK && run_status != FB_ERR_CHECK) {
        status = run_status;
        goto fail;
    }
    *record = fb_spmv_record(fb_target_info(t), p->json, &A, &cfg, &r, 0.0);
    if (run_status == FB_ERR_CHECK) json_object_set_new(*record, "reason", json_string(fb_error_message()));
    if (choice.kernel) json_object_set_new(*record, "auto", fb_spmv_auto_json(&choice));
    free(p->y); /* kept for the spmv command's --y-out */
    p->y = r.y;
    r.y = NULL;
    status = run_status;
fail:
    fb_spmv_result_free(&r);
    return status;
}

/* ---- variants: every program a sweep can build on a CUDA-class device ---- */

#define MAX_BLOCK 8

static int point_variants(fb_variant_sink *sink, const fb_spmv_kernel_def *k, const char *kernel_name, int block,
                          const char *real)
{
    int pos[FB_MAX_PARAMS];
    fb_param_point p;
    char why[256], num[16];
    fb_spmv_shape shape = {.nrows = 1024,
                           .ncols = 1024,
                           .nnz = 8192,
                           .block = block,
                           .nbrows = 1024,
                           .nblocks = 8192,
                           .real_bytes = strcmp(real, "double") == 0 ? 8 : 4,
                           .symmetric = 1}; /* sss's programs too */
    for (int more = fb_variant_first_point(k->params, k->nparams, pos, &p); more;
         more = fb_variant_next_point(k->params, k->nparams, pos, &p)) {
        if (!k->allowed(&p, &fb_variant_generic_gpu, &shape, why, sizeof why)) continue;
        fb_variant v;
        fb_variant_begin(&v, k->source, kernel_name, real);
        fb_variant_define_point(&v, k->params, k->nparams, &p);
        if (k->format->blocked) {
            snprintf(num, sizeof num, "%d", block);
            fb_variant_define(&v, "BLOCK_SIZE", num);
        }
        if (fb_variant_emit(sink, &v)) return 1;
    }
    return 0;
}

static int variants(fb_variant_sink *sink)
{
    for (int i = 0; i < fb_spmv_kernel_count; ++i) {
        const fb_spmv_kernel_def *k = &fb_spmv_kernels[i];
        int max_block = k->format->blocked ? MAX_BLOCK : 1;
        for (int r = 0; r < 2; ++r)
            for (int b = 1; b <= max_block; ++b) {
                if (point_variants(sink, k, k->kernel, b, fb_variant_reals[r])) return 1;
                if (k->fixup_kernel && b == 1 && point_variants(sink, k, k->fixup_kernel, b, fb_variant_reals[r]))
                    return 1;
            }
    }
    return 0;
}

const fb_family fb_family_spmv = {
    .name = "spmv",
    .summary = "sparse matrix-vector product y = A x, CSR and K x K block CSR, with library peers",
    .model = "2 flops per stored entry; bytes: values, indices (32-bit, or 16-bit offsets in csr16; one triangle "
             "of a symmetric matrix in sss and sss-atomic, with sss's slots) and row pointers once, x once, y once "
             "(each format's model, spmv_formats.c)",
    .reference = "serial double y = A x; |y - y_ref| within a bound from |A| |x| and the longest row (spmv_ref.c)",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .variants = variants,
    .host_kernels = fb_spmv_host_kernels,
    .user_kernels = 1,
    .problem_key = "matrix",
    .problem_open = problem_open,
    .problem_close = problem_close,
    .problem_json = problem_json,
    .signature = signature,
    .check = check,
    .run = run,
};
