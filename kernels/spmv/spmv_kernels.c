/* spmv_kernels.c - parameter spaces, constraints, launch geometry and the
 * byte/flop model of every SpMV variant. Read with the .cl files beside it:
 * each kernel's header comment states the same geometry and model. */
#include "spmv_kernels.h"

#include <stdio.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "spmv.h"
#include "sss_matrix.h"

#define POW2_WG {32, 64, 128, 256, 512, 1024}, 6
/* The kernels that size a local array for any group (bcsr_warp.cl, sell.cl: GROUP_MAX). */
#define FB_SPMV_GROUP_MAX 256
#define TEAM_WG {32, 64, 128, 256}, 4

/* ---- shared checks -------------------------------------------------- */

static int too_big_group(size_t wg, const fb_device_info *dev, char *why, size_t len)
{
    if (dev->max_work_group_size && wg > dev->max_work_group_size) {
        snprintf(why, len, "work-group %zu exceeds the device limit %zu", wg, dev->max_work_group_size);
        return 1;
    }
    return 0;
}

static int too_much_local(size_t bytes, const fb_device_info *dev, char *why, size_t len)
{
    if (dev->local_mem_bytes && bytes > dev->local_mem_bytes) {
        snprintf(why, len, "needs %zu bytes of local memory, device has %zu", bytes, dev->local_mem_bytes);
        return 1;
    }
    return 0;
}

static int bad_block(const fb_spmv_shape *s, char *why, size_t len)
{
    if (s->block < 1 || s->block > 8) {
        snprintf(why, len, "block size %d outside 1..8", s->block);
        return 1;
    }
    return 0;
}

static size_t groups_for(long long items, long long per_group)
{
    long long g = (items + per_group - 1) / per_group;
    return (size_t)(g > 0 ? g : 1);
}

static fb_launch launch_groups(size_t groups, size_t wg)
{
    fb_launch l = {.dims = 1, .global = {groups * wg, 1, 1}, .local = {wg, 1, 1}};
    return l;
}

/* ---- csr-scalar, bcsr, bcsr-soa: one item per (block) row --------------- */

static int allowed_one_per_row(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                               size_t len)
{
    (void)s;
    return !too_big_group((size_t)p->values[0], dev, why, len);
}

static int allowed_block_per_item(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                                  size_t len)
{
    return !bad_block(s, why, len) && allowed_one_per_row(p, dev, s, why, len);
}

static void geometry_one_per_row(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                                 int *nthreads)
{
    (void)fixup;
    *nthreads = s->nbrows;
    *main = launch_groups(groups_for(s->nbrows, p->values[0]), (size_t)p->values[0]);
}

/* ---- csr-vector, bcsr-vector: VECTOR_SIZE items per (block) row --------- */

static int allowed_vector(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                          size_t len)
{
    int wg = p->values[0], vs = p->values[1];
    if (vs > wg) {
        snprintf(why, len, "VECTOR_SIZE %d exceeds WG_SIZE %d", vs, wg);
        return 0;
    }
    if (bad_block(s, why, len)) return 0;
    return !too_big_group((size_t)wg, dev, why, len) &&
           !too_much_local((size_t)wg * (size_t)s->block * (size_t)s->real_bytes, dev, why, len);
}

static void geometry_vector(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                            int *nthreads)
{
    (void)fixup;
    int wg = p->values[0], vs = p->values[1];
    *main = launch_groups(groups_for(s->nbrows, wg / vs), (size_t)wg);
    *nthreads = (int)main->global[0];
}

/* ---- bcsr-lanes: K^2 * BLOCKS_PER_ITER items per block row --------------- */

static size_t lanes_group_items(const fb_param_point *p, const fb_spmv_shape *s)
{
    return (size_t)s->block * (size_t)s->block * (size_t)p->values[0] * (size_t)p->values[1];
}

static int allowed_lanes(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                         size_t len)
{
    if (bad_block(s, why, len)) return 0;
    size_t wg = lanes_group_items(p, s);
    return !too_big_group(wg, dev, why, len) && !too_much_local(wg * (size_t)s->real_bytes, dev, why, len);
}

static void geometry_lanes(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                           int *nthreads)
{
    (void)fixup;
    *main = launch_groups(groups_for(s->nbrows, p->values[1]), lanes_group_items(p, s));
    *nthreads = (int)main->global[0];
}

/* ---- csr-multirow: 2^W items, 2^R rows per group ------------------------ */

static int allowed_multirow(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                            size_t len)
{
    int w = p->values[0], r = p->values[1];
    if (r > w) {
        snprintf(why, len, "ROWS_PER_WORKGROUP_BITS %d exceeds WORKGROUP_SIZE_BITS %d", r, w);
        return 0;
    }
    size_t local = ((size_t)1 << w) * (size_t)s->real_bytes + (((size_t)1 << r) + 1) * sizeof(int);
    return !too_big_group((size_t)1 << w, dev, why, len) && !too_much_local(local, dev, why, len);
}

static void geometry_multirow(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                              int *nthreads)
{
    (void)fixup;
    int w = p->values[0], r = p->values[1];
    *main = launch_groups(groups_for(s->nrows, 1LL << r), (size_t)1 << w);
    *nthreads = (int)main->global[0];
}

/* ---- csr-merge: ITEMS_PER_THREAD merge steps per item, plus a fix-up ---- */

static int allowed_merge(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                         size_t len)
{
    if ((long long)s->nrows + s->nnz >= 2147483647LL) {
        snprintf(why, len, "nrows + nnz does not fit a 32-bit merge coordinate");
        return 0;
    }
    return !too_big_group((size_t)p->values[0], dev, why, len);
}

static void geometry_merge(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                           int *nthreads)
{
    size_t wg = (size_t)p->values[0];
    *nthreads = (int)groups_for((long long)s->nrows + s->nnz, p->values[1]);
    *main = launch_groups(groups_for(*nthreads, (long long)wg), wg);
    *fixup = *main;
}

/* ---- bcsr-warp: TEAM items per block row, one per row of a block -------- */

static int allowed_team(const char *team_name, int team, int wg, const fb_device_info *dev, char *why, size_t len)
{
    if (team > wg) {
        snprintf(why, len, "%s %d exceeds WG_SIZE %d", team_name, team, wg);
        return 0;
    }
    if (wg > FB_SPMV_GROUP_MAX) {
        snprintf(why, len, "WG_SIZE %d exceeds the kernel's local array of %d items", wg, FB_SPMV_GROUP_MAX);
        return 0;
    }
    return !too_big_group((size_t)wg, dev, why, len);
}

static int allowed_warp(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                        size_t len)
{
    int team = p->values[0], wg = p->values[1];
    if (bad_block(s, why, len)) return 0;
    if (team < s->block) {
        snprintf(why, len, "TEAM %d is narrower than a block row of %d", team, s->block);
        return 0;
    }
    return allowed_team("TEAM", team, wg, dev, why, len) &&
           !too_much_local((size_t)FB_SPMV_GROUP_MAX * (size_t)s->real_bytes, dev, why, len);
}

static void geometry_team(int team, int wg, long long teams, fb_launch *main, int *nthreads)
{
    *main = launch_groups(groups_for(teams, wg / team), (size_t)wg);
    *nthreads = (int)main->global[0];
}

static void geometry_warp(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                          int *nthreads)
{
    (void)fixup;
    geometry_team(p->values[0], p->values[1], s->nbrows, main, nthreads);
}

/* ---- sell: a team of C x THREADS_PER_ROW items per slice of C rows ------ */

static int allowed_sell(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                        size_t len)
{
    int c = p->values[0], t = p->values[1], sigma = p->values[2], wg = p->values[3];
    if (sigma > 1 && sigma % c) {
        snprintf(why, len, "SIGMA %d is not a multiple of SLICE_HEIGHT %d (or 1)", sigma, c);
        return 0;
    }
    if (!allowed_team("SLICE_HEIGHT x THREADS_PER_ROW", c * t, wg, dev, why, len)) return 0;
    return t == 1 || !too_much_local((size_t)FB_SPMV_GROUP_MAX * (size_t)s->real_bytes, dev, why, len);
}

static void geometry_sell(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                          int *nthreads)
{
    (void)fixup;
    int c = p->values[0];
    geometry_team(c * p->values[1], p->values[3], ((long long)s->nrows + c - 1) / c, main, nthreads);
}

/* ---- csr16, csr16-mixed: as csr-vector, on 16-bit column offsets ---------- */

/* The mixed kernel's single-precision values are its point only in a
 * double run: in a single one csr16 already reads floats. */
static int allowed_mixed(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                         size_t len)
{
    if (s->real_bytes == 4) {
        snprintf(why, len, "a single-precision run stores its values in single precision already (use csr16)");
        return 0;
    }
    return allowed_vector(p, dev, s, why, len);
}

/* ---- sss: one item per chunk of rows, on a symmetric matrix -------------- */

/* sss and sss-atomic keep one triangle: a matrix that is not symmetric is
 * pruned, not run into a wrong result. */
static int not_symmetric(const fb_spmv_shape *s, const char *kernel, char *why, size_t len)
{
    if (s->symmetric) return 0;
    snprintf(why, len, "the matrix is not symmetric (%s keeps one triangle)", kernel);
    return 1;
}

static int allowed_sss(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                       size_t len)
{
    int chunks = fb_sss_chunks(p->values[0], dev), wg = p->values[1];
    if (not_symmetric(s, "sss", why, len)) return 0;
    if (wg > chunks) {
        snprintf(why, len, "WG_SIZE %d exceeds the %d chunks: items past them would idle", wg, chunks);
        return 0;
    }
    return !too_big_group((size_t)wg, dev, why, len);
}

/* sss-atomic: one item per row, on a symmetric matrix. */
static int allowed_sss_atomic(const fb_param_point *p, const fb_device_info *dev, const fb_spmv_shape *s, char *why,
                              size_t len)
{
    return !not_symmetric(s, "sss-atomic", why, len) && allowed_one_per_row(p, dev, s, why, len);
}

/* CHUNKS 0 (one per compute unit) is resolved by the run, which knows the
 * device: the launch here is then one group, replaced there. */
static void geometry_sss(const fb_param_point *p, const fb_spmv_shape *s, fb_launch *main, fb_launch *fixup,
                         int *nthreads)
{
    (void)s, (void)fixup; /* the fix-up's size comes from the conversion (sss_run.c) */
    *nthreads = p->values[0] > 0 ? p->values[0] : p->values[1];
    *main = launch_groups(groups_for(*nthreads, p->values[1]), (size_t)p->values[1]);
}

/* ---- the table ------------------------------------------------------------ */

/* One row per kernel; clang-format would put every field on its own line.
 * A built-in kernel has no user file (source_text, fixup_source, user). */
#define BUILT_IN NULL, NULL, NULL
/* sell and sell16: one space (sell16 changes how a column is stored, not the slices) */
#define SELL_AXES                                                                                                      \
    {                                                                                                                  \
        {"SLICE_HEIGHT", 32, {4, 8, 16, 32}, 4, "rows per slice (C)", 0, FB_ROLE_LAYOUT_BLOCK},                        \
            {"THREADS_PER_ROW", 1, {1, 2, 4}, 3, "work-items per row", 0, FB_ROLE_TEAM},                               \
            {"SIGMA", 1, {1, 32, 256, 4096}, 4, "sort window in rows (1: natural order)", 1, FB_ROLE_OTHER},           \
        {                                                                                                              \
            "WG_SIZE", 128, TEAM_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE                                          \
        }                                                                                                              \
    }
#define CSR16_AXES                                                                                                     \
    {                                                                                                                  \
        {"WG_SIZE", 128, POW2_WG, "work-group size", 0, FB_ROLE_GROUP_SIZE},                                           \
            {"VECTOR_SIZE", 1, {1, 2, 4, 8, 16, 32}, 6, "work-items per row", 0, FB_ROLE_TEAM},                        \
        {                                                                                                              \
            "BASE_ROWS", 64, {16, 64, 256, 1024}, 4, "rows sharing one base column", 0, FB_ROLE_LAYOUT_BLOCK           \
        }                                                                                                              \
    }
// clang-format off
const fb_spmv_kernel_def fb_spmv_kernels[] = {
    {"csr-scalar", "CSR, one work-item per row", "spmv/csr_scalar.cl", "spmv_csr_scalar", NULL, &fb_spmv_csr, 1,
     {{"WG_SIZE", 128, POW2_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE}}, allowed_one_per_row, geometry_one_per_row, BUILT_IN},
    {"csr-vector", "CSR, VECTOR_SIZE work-items per row, local-memory reduction", "spmv/csr_vector.cl",
     "spmv_csr_vector", NULL, &fb_spmv_csr, 2,
     {{"WG_SIZE", 128, POW2_WG, "work-group size", 0, FB_ROLE_GROUP_SIZE},
      {"VECTOR_SIZE", 8, {1, 2, 4, 8, 16, 32, 64}, 7, "work-items per row", 0, FB_ROLE_TEAM}},
     allowed_vector, geometry_vector, BUILT_IN},
    {"csr-multirow", "CSR, the paper's kernel: 2^W items handle 2^R rows", "spmv/csr_multirow.cl",
     "spmv_csr_multirow", NULL, &fb_spmv_csr, 2,
     {{"WORKGROUP_SIZE_BITS", 7, {5, 6, 7, 8, 9, 10}, 6, "log2 of the work-group size", 0, FB_ROLE_GROUP_SIZE_BITS},
      {"ROWS_PER_WORKGROUP_BITS", 4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 11, "log2 of the rows per work-group", 0, FB_ROLE_WORK_PER_ITEM}},
     allowed_multirow, geometry_multirow, BUILT_IN},
    {"csr-merge", "CSR, merge-path load balancing (for irregular rows)", "spmv/csr_merge.cl", "spmv_csr_merge",
     "spmv_csr_merge_fixup", &fb_spmv_csr, 2,
     {{"WG_SIZE", 128, POW2_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE},
      {"ITEMS_PER_THREAD", 8, {1, 2, 4, 8, 16, 32, 64}, 7, "merge steps per work-item", 0, FB_ROLE_WORK_PER_ITEM}},
     allowed_merge, geometry_merge, BUILT_IN},
    {"bcsr", "BCSR K x K blocks (AoS), one work-item per block row (the SU2 port)", "spmv/bcsr.cl", "spmv_bcsr",
     NULL, &fb_spmv_bcsr, 1, {{"WG_SIZE", 128, POW2_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE}}, allowed_block_per_item,
     geometry_one_per_row, BUILT_IN},
    {"bcsr-vector", "BCSR K x K blocks (AoS), VECTOR_SIZE work-items per block row", "spmv/bcsr_vector.cl",
     "spmv_bcsr_vector", NULL, &fb_spmv_bcsr, 2,
     {{"WG_SIZE", 128, POW2_WG, "work-group size", 0, FB_ROLE_GROUP_SIZE},
      {"VECTOR_SIZE", 4, {1, 2, 4, 8, 16, 32}, 6, "work-items per block row", 0, FB_ROLE_TEAM}},
     allowed_vector, geometry_vector, BUILT_IN},
    {"bcsr-lanes", "BCSR K x K blocks (AoS), K^2 x BLOCKS_PER_ITER lanes per block row, coalesced",
     "spmv/bcsr_lanes.cl", "spmv_bcsr_lanes", NULL, &fb_spmv_bcsr, 2,
     {{"BLOCKS_PER_ITER", 2, {1, 2, 4, 8}, 4, "blocks a block row's team reads per step", 0, FB_ROLE_WORK_PER_ITEM},
      {"BROWS_PER_GROUP", 8, {1, 2, 4, 8, 16, 32}, 6, "block rows per work-group", 0, FB_ROLE_WORK_PER_ITEM}},
     allowed_lanes, geometry_lanes, BUILT_IN},
    {"bcsr-soa", "BCSR K x K blocks as K^2 value arrays (SoA), one work-item per block row", "spmv/bcsr_soa.cl",
     "spmv_bcsr_soa", NULL, &fb_spmv_bcsr_soa, 1, {{"WG_SIZE", 128, POW2_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE}},
     allowed_block_per_item, geometry_one_per_row, BUILT_IN},
    {"bcsr-warp", "BCSR K x K blocks (AoS), a team of TEAM items (a warp) per block row, one item per block row's row",
     "spmv/bcsr_warp.cl", "spmv_bcsr_warp", NULL, &fb_spmv_bcsr, 2,
     {{"TEAM", 32, {8, 16, 32}, 3, "work-items per block row", 0, FB_ROLE_TEAM},
      {"WG_SIZE", 128, TEAM_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE}},
     allowed_warp, geometry_warp, BUILT_IN},
    {"sell", "SELL-C-sigma: slices of C rows, column-major, rows sorted by length in windows of SIGMA",
     "spmv/sell.cl", "spmv_sell", NULL, &fb_spmv_sell, 4, SELL_AXES, allowed_sell, geometry_sell, BUILT_IN},
    {"sell16", "SELL-C-sigma with 16-bit column offsets from a base per slice (32-bit where a slice spans more)",
     "spmv/sell.cl", "spmv_sell16", NULL, &fb_spmv_sell16, 4, SELL_AXES, allowed_sell, geometry_sell, BUILT_IN},
    {"csr16", "CSR with 16-bit column offsets from a base per BASE_ROWS rows (32-bit where a block spans more)",
     "spmv/csr16.cl", "spmv_csr16", NULL, &fb_spmv_csr16, 3, CSR16_AXES, allowed_vector, geometry_vector, BUILT_IN},
    {"csr16-mixed", "csr16 with single-precision values, double accumulation, double precision only: a declared loss, its error stated",
     "spmv/csr16.cl", "spmv_csr16_mixed", NULL, &fb_spmv_csr16_sv, 3, CSR16_AXES, allowed_mixed, geometry_vector, BUILT_IN},
    {"sss", "symmetric sparse skyline: the diagonal and lower triangle, each value used twice; a chunk of rows per item, symmetric matrices only",
     "spmv/sss.cl", "spmv_sss", "spmv_sss_fixup", &fb_spmv_sss, 2,
     {{"CHUNKS", 0, {0, 2, 4, 16, 64, 256, 1024, 4096, 16384, 65536}, 10, "chunks of rows, one work-item each (0: one per compute unit)", 1, FB_ROLE_WORK_PER_ITEM},
      {"WG_SIZE", 1, {1, 8, 32, 128}, 4, "work-group size", 1, FB_ROLE_GROUP_SIZE}},
     allowed_sss, geometry_sss, BUILT_IN},
    {"sss-atomic", "sss's triangle, one work-item per row adding into y with atomics (a GPU's mapping), symmetric matrices only",
     "spmv/sss.cl", "spmv_sss_atomic", "spmv_sss_zero", &fb_spmv_sss_atomic, 1,
     {{"WG_SIZE", 128, POW2_WG, "work-group size", 1, FB_ROLE_GROUP_SIZE}}, allowed_sss_atomic, geometry_one_per_row, BUILT_IN},
};
// clang-format on

const int fb_spmv_kernel_count = (int)(sizeof fb_spmv_kernels / sizeof fb_spmv_kernels[0]);

/* ---- user kernels: the template's row, the user's file and axes ---------- */

static fb_spmv_kernel_def user_rows[FB_USER_KERNEL_MAX];

/* Rewritten from the registry on every call: it only grows within a run
 * (tests forget it), and a row is a few hundred bytes. */
int fb_spmv_user_kernel_count(void)
{
    int n = fb_user_kernel_count(&fb_family_spmv);
    for (int u = 0; u < n; ++u) {
        const fb_user_kernel *uk = fb_user_kernel_at(&fb_family_spmv, u);
        const fb_spmv_kernel_def *t = &fb_spmv_kernels[uk->like_kernel]; /* peers are no template */
        fb_spmv_kernel_def *d = &user_rows[u];
        *d = *t;
        FB_USER_KERNEL_ROW(d, uk);
        d->kernel = uk->name;
        d->fixup_source = t->source;
    }
    return n;
}

const fb_spmv_kernel_def *fb_spmv_user_kernel(int u)
{
    return u >= 0 && u < fb_spmv_user_kernel_count() ? &user_rows[u] : NULL;
}

const fb_spmv_kernel_def *fb_spmv_kernel_find(const char *name)
{
    for (int i = 0; i < fb_spmv_kernel_count; ++i)
        if (strcmp(fb_spmv_kernels[i].name, name) == 0) return &fb_spmv_kernels[i];
    for (int u = 0, n = fb_spmv_user_kernel_count(); u < n; ++u)
        if (strcmp(user_rows[u].name, name) == 0) return &user_rows[u];
    return NULL;
}

fb_param_point fb_spmv_default_point(const fb_spmv_kernel_def *k)
{
    return fb_param_default_point(k->params, k->nparams);
}
