/* spmv_auto.c - the nearest recorded matrix decides (see spmv_auto.h). */
#include "spmv_auto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/record.h"
#include "spmv_matrix.h"
#include "spmv_record.h"

#include "spmv_auto_rule.h" /* fb_spmv_auto_rule[]: generated data */

int fb_spmv_auto_rule_count(void) { return (int)(sizeof fb_spmv_auto_rule / sizeof fb_spmv_auto_rule[0]); }

const fb_spmv_auto_entry *fb_spmv_auto_rule_at(int i)
{
    return i >= 0 && i < fb_spmv_auto_rule_count() ? &fb_spmv_auto_rule[i] : NULL;
}

const char *fb_spmv_auto_device_class(const fb_device_info *dev)
{
    if (dev->in_process) return "openmp";
    return dev->host_cpu ? "opencl-cpu" : "gpu";
}

/* From a record's matrix object (fb_spmv_matrix_json). FB_ERR_INPUT when a
 * field is missing. */
static fb_status spmv_auto_features_of(const json_t *matrix, fb_spmv_auto_features *out)
{
    fb_status status = FB_OK;
    const json_t *rows = json_object_get(matrix, "rows"), *per_row = json_object_get(matrix, "nnz_per_row");
    const json_t *mean = json_object_get(per_row, "mean"), *sd = json_object_get(per_row, "stddev");
    const json_t *block = json_object_get(matrix, "block"), *bandwidth = json_object_get(matrix, "bandwidth");
    if (!json_is_integer(rows) || !json_is_number(mean) || !json_is_number(sd) || !json_is_integer(bandwidth))
        FB_FAIL(FB_ERR_INPUT, "matrix object without rows, bandwidth and nnz_per_row mean and stddev");
    out->rows = (double)json_integer_value(rows);
    out->band = out->rows > 0 ? (double)json_integer_value(bandwidth) / out->rows : 0.0;
    out->mean = json_number_value(mean);
    out->cv = out->mean > 0 ? json_number_value(sd) / out->mean : 0.0;
    out->block = block ? (int)json_integer_value(json_object_get(block, "size")) : 0;
    out->fill = block ? json_number_value(json_object_get(block, "fill")) : 1.0;
    out->symmetric = !block && json_is_string(json_object_get(matrix, "symmetry")) &&
                     !strcmp(json_string_value(json_object_get(matrix, "symmetry")), "symmetric");
fail:
    return status;
}

double fb_spmv_auto_distance(const fb_spmv_auto_features *a, const fb_spmv_auto_features *b)
{
    double d = fabs(log10(a->rows > 1 ? a->rows : 1) - log10(b->rows > 1 ? b->rows : 1)) +
               fabs(log2(1 + a->mean) - log2(1 + b->mean)) + fabs(a->cv - b->cv) + fabs(a->band - b->band);
    if (a->block || b->block) d += fabs((double)(a->block - b->block)) + fabs(a->fill - b->fill);
    return d;
}

static fb_spmv_auto_features features_of_entry(const fb_spmv_auto_entry *e)
{
    fb_spmv_auto_features f = {
        .rows = e->rows, .mean = e->mean, .cv = e->cv, .band = e->band, .block = e->block, .fill = e->fill};
    return f;
}

/* A kernel that trades precision for bytes (csr16-mixed) is the user's
 * choice, never auto's: its results differ from the double product. */
static int declared_loss(const char *kernel)
{
    const fb_spmv_kernel_def *k = fb_spmv_kernel_find(kernel);
    return !k || k->format->single_values;
}

/* A kernel that keeps one triangle (sss) applies to a symmetric matrix only. */
static int needs_symmetry(const char *kernel)
{
    const fb_spmv_kernel_def *k = fb_spmv_kernel_find(kernel);
    return k && k->format->symmetric_only;
}

/* A row is a candidate for the same class, the same kind of input and,
 * when the class has rows of it, the same precision; a row won by sss only
 * for a symmetric matrix. */
static int candidate(const fb_spmv_auto_entry *e, const fb_spmv_auto_features *f, const char *cls, int precision)
{
    return !strcmp(e->device_class, cls) && (e->block > 0) == (f->block > 0) &&
           (precision < 0 || e->is_double == precision) && !declared_loss(e->kernel) &&
           (f->symmetric || !needs_symmetry(e->kernel));
}

static const fb_spmv_auto_entry *nearest(const fb_spmv_auto_features *f, const char *cls, int is_double, double *dist)
{
    const fb_spmv_auto_entry *best = NULL;
    int precision = is_double, any = 0;
    for (int i = 0; i < fb_spmv_auto_rule_count(); ++i)
        any |= candidate(&fb_spmv_auto_rule[i], f, cls, is_double);
    if (!any) precision = -1;
    for (int i = 0; i < fb_spmv_auto_rule_count(); ++i) {
        const fb_spmv_auto_entry *e = &fb_spmv_auto_rule[i];
        if (!candidate(e, f, cls, precision)) continue;
        fb_spmv_auto_features g = features_of_entry(e);
        double d = fb_spmv_auto_distance(f, &g);
        if (!best || d < *dist) best = e, *dist = d;
    }
    return best;
}

/* "NAME=V NAME=V" onto the kernel's axes; names it has not (BLOCK_SIZE,
 * an axis since removed) are passed over, so an old rule still runs. */
static void parse_params(const fb_spmv_kernel_def *k, const char *text, fb_param_point *p)
{
    *p = fb_spmv_default_point(k);
    for (const char *s = text; s && *s;) {
        char name[64];
        int value, used = 0;
        if (sscanf(s, " %63[^= ]=%d%n", name, &value, &used) != 2) break;
        for (int i = 0; i < k->nparams; ++i)
            if (!strcmp(k->params[i].name, name)) p->values[i] = value;
        s += used;
    }
}

/* No row to go by: bcsr for a block input, else csr-vector on a GPU and
 * csr-scalar on a CPU (the best defaults of the first recorded runs). */
static void say_default(fb_spmv_auto_choice *c, const char *cls, int blocked)
{
    c->kernel = fb_spmv_kernel_find(blocked ? "bcsr" : !strcmp(cls, "gpu") ? "csr-vector" : "csr-scalar");
    c->point = fb_spmv_default_point(c->kernel);
    snprintf(c->why, sizeof c->why,
             "no recorded sweep of %s matrices for the device class %s (kernels/spmv/spmv_auto_rule.h): the "
             "default %s",
             blocked ? "block" : "scalar", cls, c->kernel->name);
}

static void say_nearest(fb_spmv_auto_choice *c, const fb_spmv_auto_features *f, int is_double)
{
    const fb_spmv_auto_entry *e = c->nearest;
    char faster[160] = "";
    if (e->next[0] && e->best_s > 0)
        snprintf(faster, sizeof faster, ", %.2fx faster than the next kernel there, %s", e->next_s / e->best_s,
                 e->next);
    snprintf(c->why, sizeof c->why,
             "nearest recorded matrix %s (%s, %s%s; distance %.3g: %.0f vs %.0f rows, %.1f vs %.1f entries per row, "
             "spread %.2f vs %.2f, bandwidth %.3f vs %.3f of the rows%s): fastest there %s%s%s%s",
             e->matrix, e->device_class, e->is_double ? "double" : "single",
             e->is_double == is_double ? "" : ", the other precision", c->distance, f->rows, e->rows, f->mean, e->mean,
             f->cv, e->cv, f->band, e->band, f->block ? ", block fill compared" : "", e->kernel,
             e->params[0] ? " " : "", e->params, faster);
}

fb_status fb_spmv_auto_choose(const json_t *matrix, const char *device_class, int is_double, fb_spmv_auto_choice *out)
{
    fb_status status = FB_OK;
    fb_spmv_auto_features f = {0};
    memset(out, 0, sizeof *out);
    out->device_class = device_class;
    FB_CHECK(spmv_auto_features_of(matrix, &f));
    out->nearest = nearest(&f, device_class, is_double, &out->distance);
    out->kernel = out->nearest ? fb_spmv_kernel_find(out->nearest->kernel) : NULL;
    if (!out->kernel) {
        say_default(out, device_class, f.block > 0);
        out->nearest = NULL;
        return FB_OK;
    }
    parse_params(out->kernel, out->nearest->params, &out->point);
    say_nearest(out, &f, is_double);
fail:
    return status;
}

/* When the device or the matrix refuses the recorded point (a work-group
 * too large here, a TEAM narrower than this block size), the kernel's
 * default point instead, said in why. A is the view the kernel reads. */
static void spmv_auto_fit(fb_spmv_auto_choice *c, const fb_device_info *dev, const fb_spmv_matrix *A, int is_double)
{
    fb_spmv_config cfg = {.kernel = c->kernel, .point = c->point, .is_double = is_double};
    if (fb_spmv_check_point(&cfg, dev, A) == FB_OK) return;
    size_t len = strlen(c->why);
    snprintf(c->why + len, sizeof c->why - len, "; its recorded point is refused here (%s): default parameters",
             fb_error_message());
    c->point = fb_spmv_default_point(c->kernel);
}

/* A matrix whose bandwidth is over half its rows is in an unordered
 * numbering (gmsh numbers a mesh's boundary first). When RCM would bring
 * it under a quarter, why ends with the rule's pick for the renumbered
 * matrix: on the two meshes measured every kernel ran faster after RCM,
 * the fastest 1.8-2.3x (docs/matrices.md, "Reordering"). Not looked at
 * past FB_AUTO_RCM_MAX_NNZ entries (RCM's graph of A + A^T would cost as
 * much memory again as the matrix), nor for a source that names its
 * order. A hint: an RCM that fails (memory) leaves the pick as it was. */
#define FB_AUTO_UNORDERED 0.5
#define FB_AUTO_BANDED 0.25
#define FB_AUTO_RCM_MAX_NNZ (INT64_C(1) << 25)

static fb_status look_renumbered(const fb_matrix *m, const json_t *mjson, int is_double, fb_spmv_auto_choice *c)
{
    fb_status status = FB_OK;
    fb_spmv_auto_features f;
    int64_t bandwidth = 0;
    double distance = 0;
    FB_CHECK(spmv_auto_features_of(mjson, &f));
    if (m->reordered || m->block || m->A.nrows != m->A.ncols || m->A.nnz > FB_AUTO_RCM_MAX_NNZ ||
        f.band <= FB_AUTO_UNORDERED || m->order_named)
        return FB_OK;
    if (fb_csr_rcm_bandwidth(&m->A, &bandwidth) != FB_OK) return FB_OK;
    f.band = (double)bandwidth / f.rows;
    if (f.band >= FB_AUTO_BANDED || !(c->renumbered = nearest(&f, c->device_class, is_double, &distance))) return FB_OK;
    c->renumbered_band = f.band;
    size_t len = strlen(c->why);
    snprintf(c->why + len, sizeof c->why - len,
             "; renumbered by RCM (SRC:reorder=rcm) its bandwidth would be %.3f of the rows, where the rule "
             "picks %s%s%s (nearest %s)",
             f.band, c->renumbered->kernel, c->renumbered->params[0] ? " " : "", c->renumbered->params,
             c->renumbered->matrix);
fail:
    return status;
}

fb_status fb_spmv_auto_pick(const fb_matrix *m, const json_t *mjson, const fb_device_info *dev, int is_double,
                            fb_spmv_auto_choice *out)
{
    fb_status status = FB_OK;
    fb_spmv_matrix A;
    FB_CHECK(fb_spmv_auto_choose(mjson, fb_spmv_auto_device_class(dev), is_double, out));
    /* the shape is all the fit reads: the AoS/SoA layout need not be switched */
    FB_CHECK(fb_spmv_view_shape(m, out->kernel, &A));
    spmv_auto_fit(out, dev, &A, is_double);
    FB_CHECK(look_renumbered(m, mjson, is_double, out));
fail:
    return status;
}

json_t *fb_spmv_auto_json(const fb_spmv_auto_choice *c)
{
    json_t *j = json_pack("{s:s, s:s, s:o, s:s, s:s}", "choice", c->kernel->format->name, "kernel", c->kernel->name,
                          "params", fb_json_params(c->kernel->params, c->kernel->nparams, &c->point), "why", c->why,
                          "device_class", c->device_class);
    if (c->nearest) {
        json_object_set_new(j, "nearest", json_string(c->nearest->matrix));
        json_object_set_new(j, "distance", json_real(c->distance));
    }
    if (c->renumbered)
        json_object_set_new(j, "renumbered",
                            json_pack("{s:f, s:s, s:s, s:s}", "bandwidth", c->renumbered_band, "kernel",
                                      c->renumbered->kernel, "params", c->renumbered->params, "nearest",
                                      c->renumbered->matrix));
    return j;
}
