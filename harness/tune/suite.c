/* suite.c - reading cases/NAME.suite (YAML through libyaml's document API).
 *
 * The document is walked once; every value is checked where it is read so
 * an error can name its line. Unknown keys are errors: a misspelt
 * "max_sample" silently ignored would change what a night's sweep measures.
 */
#include "suite.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "../bench/user_kernel.h"
#include "../core/datadir.h"
#include "../core/files.h"
#include "../core/interrupt.h"
#include "../core/json_index.h"

typedef struct parser {
    const char *path;
    char dir[1024]; /* the suite file's directory: relative matrix paths start here */
    yaml_document_t doc;
} parser;

static int line_of(const yaml_node_t *n) { return n ? (int)n->start_mark.line + 1 : 0; }

static fb_status suite_error(const parser *P, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static fb_status suite_error(const parser *P, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %d: %s", P->path, line_of(n), msg);
}

#define SUITE_FAIL(node, ...)                                                                                          \
    do {                                                                                                               \
        status = suite_error(P, (node), __VA_ARGS__);                                                                  \
        goto fail;                                                                                                     \
    } while (0)

static yaml_node_t *node_at(parser *P, int id) { return yaml_document_get_node(&P->doc, id); }

static const char *scalar_of(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- scalars ---- */

#define SUITE_INT_MAX 1000000000L /* integers in a suite: counts and parameter values */

static fb_status read_int(parser *P, yaml_node_t *n, const char *what, int *out)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    char *end = NULL;
    long v;
    if (!s) SUITE_FAIL(n, "%s: expected an integer", what);
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end) SUITE_FAIL(n, "%s: '%s' is not an integer", what, s);
    if (errno == ERANGE || v < -SUITE_INT_MAX || v > SUITE_INT_MAX)
        SUITE_FAIL(n, "%s: '%s' is out of range (%ld..%ld)", what, s, -SUITE_INT_MAX, SUITE_INT_MAX);
    *out = (int)v;
fail:
    return status;
}

static fb_status read_double(parser *P, yaml_node_t *n, const char *what, double *out)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    char *end = NULL;
    if (!s) SUITE_FAIL(n, "%s: expected a number", what);
    *out = strtod(s, &end);
    if (end == s || *end || !(*out >= 0)) SUITE_FAIL(n, "%s: '%s' is not a non-negative number", what, s);
fail:
    return status;
}

static fb_status read_bool(parser *P, yaml_node_t *n, const char *what, int *out)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
        *out = 1;
    else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
        *out = 0;
    else
        SUITE_FAIL(n, "%s: expected true or false", what);
fail:
    return status;
}

static fb_status read_name(parser *P, yaml_node_t *n, const char *what, char *out, size_t len)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    if (!s || !*s) SUITE_FAIL(n, "%s: expected a name", what);
    if (strlen(s) >= len) SUITE_FAIL(n, "%s: '%s' is longer than %zu characters", what, s, len - 1);
    if (strpbrk(s, "|\n")) SUITE_FAIL(n, "%s: '%s' may not contain '|' or a line break", what, s);
    snprintf(out, len, "%s", s);
fail:
    return status;
}

/* ---- lists ---- */

/* The items of a sequence; a lone scalar is a list of one. */
static fb_status items_of(parser *P, yaml_node_t *n, const char *what, yaml_node_t ***items, int *count)
{
    fb_status status = FB_OK;
    *items = NULL;
    *count = 0;
    if (n->type == YAML_SCALAR_NODE) {
        FB_ALLOC(*items, 1, "a suite list");
        (*items)[(*count)++] = n;
        return FB_OK;
    }
    if (n->type != YAML_SEQUENCE_NODE) SUITE_FAIL(n, "%s: expected a list", what);
    int total = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (total == 0) SUITE_FAIL(n, "%s: the list is empty", what);
    FB_ALLOC(*items, total, "a suite list");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; ++it)
        (*items)[(*count)++] = node_at(P, *it);
fail:
    return status;
}

static void free_strings(char **s, int n)
{
    for (int i = 0; i < n; ++i)
        free(s[i]);
    free(s);
}

static fb_status push_string(char ***list, int *n, const char *s)
{
    fb_status status = FB_OK;
    char **grown = realloc(*list, (size_t)(*n + 1) * sizeof **list);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading a suite");
    *list = grown;
    if (!(grown[*n] = strdup(s))) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading a suite");
    ++*n;
fail:
    return status;
}

/* How one list item is added: as given, or (problems) with paths resolved
 * and globs expanded. */
typedef fb_status (*item_adder)(parser *P, yaml_node_t *n, const char *s, char ***list, int *count);

static fb_status add_plain(parser *P, yaml_node_t *n, const char *s, char ***list, int *count)
{
    (void)P, (void)n;
    return push_string(list, count, s);
}

/* A list of non-empty strings under key `what`, replacing *out. */
static fb_status read_list(parser *P, yaml_node_t *n, const char *what, item_adder add, char ***out, int *nout)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    int count;
    free_strings(*out, *nout);
    *out = NULL;
    *nout = 0;
    FB_CHECK(items_of(P, n, what, &items, &count));
    for (int i = 0; i < count; ++i) {
        const char *s = scalar_of(items[i]);
        if (!s || !*s) SUITE_FAIL(items[i], "%s: item %d is not a string", what, i + 1);
        FB_CHECK(add(P, items[i], s, out, nout));
    }
fail:
    free(items);
    return status;
}

/* ---- mappings ---- */

typedef fb_status (*key_fn)(parser *P, const char *key, yaml_node_t *value, void *ctx);

/* Calls fn for every key of mapping n; fn returns FB_ERR_USAGE (no message)
 * for a key it does not know, which becomes "unknown key" here. */
static fb_status each_key(parser *P, yaml_node_t *n, const char *what, const char *known, key_fn fn, void *ctx)
{
    fb_status status = FB_OK;
    if (!n || n->type != YAML_MAPPING_NODE) SUITE_FAIL(n, "%s: expected a mapping (key: value lines)", what);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
        yaml_node_t *k = node_at(P, p->key), *v = node_at(P, p->value);
        const char *key = scalar_of(k);
        if (!key) SUITE_FAIL(k, "%s: a key is not a plain name", what);
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p;
             ++q) /* YAML takes the last; we would take the first */
            if (!strcmp(scalar_of(node_at(P, q->key)) ? scalar_of(node_at(P, q->key)) : "", key))
                SUITE_FAIL(k, "%s: '%s' is given twice", what, key);
        status = fn(P, key, v, ctx);
        if (status == FB_ERR_USAGE) SUITE_FAIL(k, "%s: unknown key '%s' (expected one of: %s)", what, key, known);
        if (status != FB_OK) goto fail;
    }
fail:
    return status;
}

/* ---- measure ---- */

static fb_status measure_key(parser *P, const char *key, yaml_node_t *v, void *ctx)
{
    fb_suite_measure *m = ctx;
    double spread;
    fb_status status;
    if (!strcmp(key, "min_samples")) return read_int(P, v, key, &m->measure.min_samples);
    if (!strcmp(key, "max_samples")) return read_int(P, v, key, &m->measure.max_samples);
    if (!strcmp(key, "warmups")) return read_int(P, v, key, &m->measure.warmups);
    if (!strcmp(key, "budget_s")) return read_double(P, v, key, &m->measure.budget_s);
    if (!strcmp(key, "timeout_s")) return read_double(P, v, key, &m->timeout_s);
    if (!strcmp(key, "abandon_factor")) return read_double(P, v, key, &m->abandon_factor);
    if (!strcmp(key, "cold")) return read_bool(P, v, key, &m->measure.cold);
    if (!strcmp(key, "spread_pct")) {
        if ((status = read_double(P, v, key, &spread)) == FB_OK) m->measure.target_spread = spread / 100.0;
        return status;
    }
    return FB_ERR_USAGE;
}

static fb_status read_measure(parser *P, yaml_node_t *n, fb_suite_measure *m)
{
    fb_status status = FB_OK;
    const fb_measure_config *c = &m->measure;
    FB_CHECK(each_key(P, n, "measure",
                      "min_samples, max_samples, warmups, spread_pct, budget_s, timeout_s, abandon_factor, cold",
                      measure_key, m));
    if (c->min_samples < 1 || c->max_samples < c->min_samples || c->warmups < 0)
        SUITE_FAIL(n, "measure: need 1 <= min_samples <= max_samples and warmups >= 0");
    if (!(c->target_spread > 0) || !(c->budget_s > 0))
        SUITE_FAIL(n, "measure: spread_pct and budget_s must be positive");
    if (m->abandon_factor != 0 && m->abandon_factor <= 1)
        SUITE_FAIL(n, "measure: abandon_factor must be above 1 (or 0 for never)");
fail:
    return status;
}

/* ---- precisions and matrices ---- */

static fb_status read_precisions(parser *P, yaml_node_t *n, int is_double[2], int *count)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    int nitems;
    FB_CHECK(items_of(P, n, "precisions", &items, &nitems));
    if (nitems > 2) SUITE_FAIL(n, "precisions: at most double and single");
    for (int i = 0; i < nitems; ++i) {
        const char *s = scalar_of(items[i]);
        if (!s || (strcmp(s, "double") && strcmp(s, "single")))
            SUITE_FAIL(items[i], "precisions: '%s' is not double or single", s ? s : "(a list)");
        is_double[i] = !strcmp(s, "double");
    }
    if (nitems == 2 && is_double[0] == is_double[1]) SUITE_FAIL(n, "precisions: a precision is listed twice");
    *count = nitems;
fail:
    free(items);
    return status;
}

/* dir/rel with "x/../" collapsed, so records name ../matrices/a.mtx as
 * matrices/a.mtx when the suite sits in cases/. */
static void join_path(const char *dir, const char *rel, char *out, size_t len)
{
    char *p;
    if (rel[0] == '/' || !strcmp(dir, "."))
        snprintf(out, len, "%s", rel);
    else
        snprintf(out, len, "%s/%s", dir, rel);
    while ((p = strstr(out, "/../")) != NULL) {
        char *seg = p;
        if (p == out) { /* "/.." is "/" */
            memmove(out, out + 3, strlen(out + 3) + 1);
            continue;
        }
        while (seg > out && seg[-1] != '/')
            --seg;
        if (p - seg == 2 && !strncmp(seg, "..", 2)) break;
        memmove(seg, p + 4, strlen(p + 4) + 1);
    }
}

/* One problem item: gen: and grid: specs as given; paths relative to the suite file;
 * globs expanded in sorted order. Options after the first ':' (":block=4")
 * are kept on every file a glob matches. */
static fb_status add_matrix(parser *P, yaml_node_t *n, const char *spec, char ***list, int *count)
{
    fb_status status = FB_OK;
    char path[2048], file[1024], full[3072];
    const char *opts = strchr(spec, ':');
    glob_t g = {0};
    if (!strncmp(spec, "gen:", 4) || !strncmp(spec, "grid:", 5)) return push_string(list, count, spec);
    snprintf(file, sizeof file, "%.*s", opts ? (int)(opts - spec) : (int)strlen(spec), spec);
    join_path(P->dir, file, path, sizeof path);
    if (!strpbrk(file, "*?[")) {
        if (access(path, R_OK) != 0) SUITE_FAIL(n, "matrices: %s: %s", path, strerror(errno));
        snprintf(full, sizeof full, "%s%s", path, opts ? opts : "");
        return push_string(list, count, full);
    }
    if (glob(path, 0, NULL, &g) != 0 || g.gl_pathc == 0) SUITE_FAIL(n, "matrices: '%s' matches no file", path);
    for (size_t i = 0; i < g.gl_pathc; ++i) {
        snprintf(full, sizeof full, "%s%s", g.gl_pathv[i], opts ? opts : "");
        FB_CHECK(push_string(list, count, full));
    }
fail:
    globfree(&g);
    return status;
}

/* ---- parameter axes ---- */

/* Values go through the rule the command line's --param lists use too
 * (params.h), so a suite and a command line accept the same values. */
static fb_status push_value(parser *P, yaml_node_t *n, fb_suite_axis *a, int v)
{
    fb_status status = FB_OK;
    char why[128];
    if (!a->values) FB_ALLOC(a->values, FB_PARAM_MAX_LIST, "suite axis values");
    if (fb_param_list_add(a->values, &a->nvalues, v, why, sizeof why)) SUITE_FAIL(n, "%s: %s", a->name, why);
fail:
    return status;
}

static fb_status read_value(parser *P, yaml_node_t *n, const char *what, int *v)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    char why[128];
    if (!s) SUITE_FAIL(n, "%s: expected an integer", what);
    if (fb_param_value_parse(s, strlen(s), v, why, sizeof why)) SUITE_FAIL(n, "%s: %s", what, why);
fail:
    return status;
}

/* {pow2: [lo, hi]} or {range: [from, to, step]}: the generator's bounds. */
static fb_status read_bounds(parser *P, yaml_node_t *n, const fb_suite_axis *a, const char *gen, int b[3], int *nb)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    char what[96];
    snprintf(what, sizeof what, "%s: %s", a->name, gen);
    FB_CHECK(items_of(P, n, what, &items, nb));
    if (*nb < 2 || *nb > 3 || (*nb == 3 && !strcmp(gen, "pow2")))
        SUITE_FAIL(n, "%s needs [%s]", what, strcmp(gen, "pow2") ? "from, to] or [from, to, step" : "low, high");
    for (int i = 0; i < *nb; ++i)
        FB_CHECK(read_value(P, items[i], what, &b[i]));
    if (*nb == 2) b[2] = 1;
fail:
    free(items);
    return status;
}

static fb_status read_generator(parser *P, yaml_node_t *n, fb_suite_axis *a)
{
    fb_status status = FB_OK;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    const char *gen;
    int b[3], nb;
    if (n->data.mapping.pairs.top - p != 1)
        SUITE_FAIL(n, "%s: expected {pow2: [lo, hi]} or {range: [from, to, step]}", a->name);
    gen = scalar_of(node_at(P, p->key));
    if (!gen || (strcmp(gen, "pow2") && strcmp(gen, "range")))
        SUITE_FAIL(n, "%s: '%s' is not pow2 or range", a->name, gen ? gen : "(not a name)");
    FB_CHECK(read_bounds(P, node_at(P, p->value), a, gen, b, &nb));
    if (!strcmp(gen, "pow2")) {
        if (b[0] < 1 || b[1] < b[0] || (b[0] & (b[0] - 1)) || (b[1] & (b[1] - 1)))
            SUITE_FAIL(n, "%s: pow2 bounds must be powers of two with low <= high", a->name);
        for (long v = b[0]; v <= b[1]; v *= 2)
            FB_CHECK(push_value(P, n, a, (int)v));
    } else {
        if (b[2] < 1 || b[1] < b[0]) SUITE_FAIL(n, "%s: range needs from <= to and step >= 1", a->name);
        for (long v = b[0]; v <= b[1]; v += b[2])
            FB_CHECK(push_value(P, n, a, (int)v));
    }
fail:
    return status;
}

static fb_status read_axis_values(parser *P, yaml_node_t *n, fb_suite_axis *a)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    int count, v;
    if (n->type == YAML_MAPPING_NODE) return read_generator(P, n, a);
    FB_CHECK(items_of(P, n, a->name, &items, &count));
    for (int i = 0; i < count; ++i) {
        FB_CHECK(read_value(P, items[i], a->name, &v));
        FB_CHECK(push_value(P, items[i], a, v));
    }
fail:
    free(items);
    return status;
}

int fb_suite_case_has_axis(const fb_suite_case *c, const char *name)
{
    for (int i = 0; i < c->nkernels; ++i) {
        const fb_family_kernel *k = c->family->kernel(c->kernels[i]);
        for (int p = 0; p < k->nparams; ++p)
            if (!strcmp(k->params[p].name, name)) return 1;
    }
    return 0;
}

static fb_status read_params(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    if (n->type != YAML_MAPPING_NODE) SUITE_FAIL(n, "params: expected NAME: values lines");
    int total = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    FB_ALLOC(c->axes, total, "suite axes");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
        yaml_node_t *key = node_at(P, p->key);
        fb_suite_axis *a = &c->axes[c->naxes++];
        a->zip_group = -1;
        a->line = line_of(key);
        FB_CHECK(read_name(P, key, "params", a->name, sizeof a->name));
        if (!fb_suite_case_has_axis(c, a->name))
            SUITE_FAIL(key, "params: no kernel of this case has a parameter %s (see flowbench spmv --list)", a->name);
        if (fb_suite_case_axis(c, a->name) != a) SUITE_FAIL(key, "params: %s is given twice", a->name);
        FB_CHECK(read_axis_values(P, node_at(P, p->value), a));
    }
fail:
    return status;
}

fb_suite_axis *fb_suite_case_axis(fb_suite_case *c, const char *name)
{
    for (int i = 0; i < c->naxes; ++i)
        if (!strcmp(c->axes[i].name, name)) return &c->axes[i];
    return NULL;
}

/* One zip group: named axes of equal length that advance together. */
static fb_status read_zip_group(parser *P, yaml_node_t *n, fb_suite_case *c, int group)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    fb_suite_axis *first = NULL;
    int count;
    FB_CHECK(items_of(P, n, "zip", &items, &count));
    if (count < 2) SUITE_FAIL(n, "zip: a group needs at least two parameters");
    for (int i = 0; i < count; ++i) {
        const char *name = scalar_of(items[i]);
        fb_suite_axis *a = name ? fb_suite_case_axis(c, name) : NULL;
        if (!a) SUITE_FAIL(items[i], "zip: '%s' is not a parameter given under params", name ? name : "(a list)");
        if (a->zip_group >= 0) SUITE_FAIL(items[i], "zip: %s is in two groups", name);
        if (first && a->nvalues != first->nvalues)
            SUITE_FAIL(items[i], "zip: %s has %d values but %s has %d", name, a->nvalues, first->name, first->nvalues);
        a->zip_group = group;
        if (!first) first = a;
    }
fail:
    free(items);
    return status;
}

static fb_status read_zip(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    yaml_node_t **groups = NULL;
    int count;
    if (n->type != YAML_SEQUENCE_NODE) SUITE_FAIL(n, "zip: expected a list of groups, e.g. [[A, B]]");
    FB_CHECK(items_of(P, n, "zip", &groups, &count));
    for (int g = 0; g < count; ++g)
        FB_CHECK(read_zip_group(P, groups[g], c, g));
fail:
    free(groups);
    return status;
}

/* ---- kernels ---- */

static fb_status read_kernels(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    int count, all = scalar_of(n) && !strcmp(scalar_of(n), "all");
    int nk = c->family->kernel_count();
    FB_ALLOC(c->kernels, nk, "suite kernels");
    if (all) {
        for (int i = 0; i < nk; ++i)
            c->kernels[c->nkernels++] = i;
        return FB_OK;
    }
    FB_CHECK(items_of(P, n, "kernels", &items, &count));
    for (int i = 0; i < count; ++i) {
        const char *name = scalar_of(items[i]);
        int k = name ? fb_family_kernel_find(c->family, name) : -1;
        if (k < 0)
            SUITE_FAIL(items[i], "kernels: '%s' is not a %s kernel (see flowbench %s --list)", name ? name : "(a list)",
                       c->family->name, c->family->name);
        for (int j = 0; j < c->nkernels; ++j)
            if (c->kernels[j] == k) SUITE_FAIL(items[i], "kernels: %s is listed twice", name);
        if (c->nkernels >= nk) SUITE_FAIL(items[i], "kernels: too many");
        c->kernels[c->nkernels++] = k;
    }
fail:
    free(items);
    return status;
}

/* ---- cases and the suite ---- */

static yaml_node_t *map_get(parser *P, yaml_node_t *n, const char *key)
{
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
        const char *k = scalar_of(node_at(P, p->key));
        if (k && !strcmp(k, key)) return node_at(P, p->value);
    }
    return NULL;
}

/* Accepts exactly the keys in the ", "-separated list `known`: whole names,
 * so neither "" nor a slice of the list ("name, description") passes. */
static fb_status known_key(parser *P, const char *key, yaml_node_t *v, void *ctx)
{
    const char *at = ctx;
    size_t len = strlen(key);
    (void)P;
    (void)v;
    while (*at) {
        size_t n = strcspn(at, ",");
        if (n == len && !strncmp(at, key, len)) return FB_OK;
        at += n;
        at += strspn(at, ", ");
    }
    return FB_ERR_USAGE;
}

static const char case_keys[] =
    "name, description, family, kernels, kernel_file, kernel, like, constraints, "
    "global_divisor, space, params, zip, matrices, grids, solver, backends, precisions, measure";
static const char suite_keys[] =
    "suite, description, backends, precisions, stream, stream_n, measure, matrices, grids, solver, cases";

static fb_status copy_strings(char **from, int n, char ***to, int *nto)
{
    fb_status status = FB_OK;
    for (int i = 0; i < n; ++i)
        FB_CHECK(push_string(to, nto, from[i]));
fail:
    return status;
}

/* ---- a case's own kernel file (bench/user_kernel.h) ---- */

#define USER_WHERE_LEN 1100
#define USER_WHERES (3 + FB_MAX_PARAMS + FB_USER_MAX_CONSTRAINTS + 1)

typedef struct user_decl {
    fb_user_kernel_decl d;
    char path[2048];
    char where[USER_WHERES][USER_WHERE_LEN]; /* "x.suite: line 12" of each item */
    int nwhere;
    fb_suite_axis axes[FB_MAX_PARAMS]; /* the values under params: */
} user_decl;

static const char *where_at(parser *P, user_decl *u, const yaml_node_t *n)
{
    char *w = u->where[u->nwhere++];
    snprintf(w, USER_WHERE_LEN, "%s: line %d", P->path, line_of(n));
    return w;
}

/* A scalar under key: its text and where it is, or an error on its line. */
static fb_status user_text(parser *P, yaml_node_t *n, const char *key, user_decl *u, fb_user_text_decl *out)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(n);
    if (!s || !*s) SUITE_FAIL(n, "%s: expected a %s", key, strcmp(key, "constraints") ? "name" : "comparison");
    *out = (fb_user_text_decl){s, where_at(P, u, n)};
fail:
    return status;
}

/* Every name under params: with its values: the kernel's axes. */
static fb_status user_params(parser *P, yaml_node_t *n, user_decl *u)
{
    fb_status status = FB_OK;
    if (n->type != YAML_MAPPING_NODE) SUITE_FAIL(n, "params: expected NAME: values lines");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
        yaml_node_t *key = node_at(P, p->key);
        if (u->d.nparams == FB_MAX_PARAMS) SUITE_FAIL(key, "params: a kernel has at most %d parameters", FB_MAX_PARAMS);
        fb_suite_axis *a = &u->axes[u->d.nparams];
        FB_CHECK(read_name(P, key, "params", a->name, sizeof a->name));
        FB_CHECK(read_axis_values(P, node_at(P, p->value), a));
        u->d.params[u->d.nparams++] = (fb_user_param_decl){a->name, a->values, a->nvalues, where_at(P, u, key)};
    }
fail:
    return status;
}

static fb_status user_constraints(parser *P, yaml_node_t *n, user_decl *u)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    int count;
    FB_CHECK(items_of(P, n, "constraints", &items, &count));
    if (count > FB_USER_MAX_CONSTRAINTS) SUITE_FAIL(n, "constraints: at most %d", FB_USER_MAX_CONSTRAINTS);
    for (int i = 0; i < count; ++i)
        FB_CHECK(user_text(P, items[i], "constraints", u, &u->d.constraints[u->d.nconstraints++]));
fail:
    free(items);
    return status;
}

/* kernel_file: (relative to the suite), kernel:, like:, constraints:,
 * global_divisor: and the values under params: declare the file's kernel,
 * which is registered with the family and is the case's one kernel. */
static fb_status read_user_kernel(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    yaml_node_t *file = map_get(P, n, "kernel_file"), *v;
    user_decl *u = NULL;
    int k;
    FB_ALLOC(u, 1, "a kernel file's declaration");
    if ((v = map_get(P, n, "kernels")))
        SUITE_FAIL(v, "kernels: a case with kernel_file runs that file's kernel (kernel: NAME), not kernels:");
    if (!(v = map_get(P, n, "kernel"))) SUITE_FAIL(file, "kernel_file: give kernel: NAME, the __kernel to run");
    FB_CHECK(user_text(P, v, "kernel", u, &u->d.name));
    FB_CHECK(user_text(P, file, "kernel_file", u, &u->d.file));
    join_path(P->dir, u->d.file.text, u->path, sizeof u->path);
    u->d.file.text = u->path;
    if ((v = map_get(P, n, "like"))) FB_CHECK(user_text(P, v, "like", u, &u->d.like));
    if ((v = map_get(P, n, "global_divisor"))) FB_CHECK(user_text(P, v, "global_divisor", u, &u->d.divisor));
    if ((v = map_get(P, n, "constraints"))) FB_CHECK(user_constraints(P, v, u));
    if ((v = map_get(P, n, "params"))) FB_CHECK(user_params(P, v, u));
    status = fb_user_kernel_register(c->family, &u->d, &k);
    if (status == FB_ERR_USAGE) status = FB_ERR_INPUT; /* the message names the suite and the line */
    FB_CHECK(status);
    FB_ALLOC(c->kernels, 1, "suite kernels");
    c->kernels[c->nkernels++] = k;
fail:
    for (int i = 0; u && i < FB_MAX_PARAMS; ++i) /* one being read when it failed included */
        free(u->axes[i].values);
    free(u);
    return status;
}

/* The keys that describe a kernel file, refused without one. */
static fb_status refuse_user_keys(parser *P, yaml_node_t *n)
{
    fb_status status = FB_OK;
    static const char *const keys[] = {"kernel", "like", "constraints", "global_divisor", NULL};
    yaml_node_t *v;
    for (int i = 0; keys[i]; ++i)
        if ((v = map_get(P, n, keys[i])))
            SUITE_FAIL(v, "%s: describes a kernel file: give kernel_file: too (the family's own kernels are kernels:)",
                       keys[i]);
fail:
    return status;
}

static fb_status read_case_family(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    yaml_node_t *v = map_get(P, n, "family");
    const char *name = v ? scalar_of(v) : "spmv";
    if (!name || !(c->family = fb_family_find(name)))
        SUITE_FAIL(v, "family: '%s' is not a benchmark family this flowbench has", name ? name : "(a list)");
    if (!fb_family_sweepable(c->family))
        SUITE_FAIL(v, "family: %s has no sweep run (it is the roofline reference)", name);
    if (map_get(P, n, "kernel_file")) return read_user_kernel(P, n, c);
    FB_CHECK(refuse_user_keys(P, n));
    if (!(v = map_get(P, n, "kernels"))) SUITE_FAIL(n, "case %s: no kernels (a list, or all)", c->name);
    FB_CHECK(read_kernels(P, v, c));
fail:
    return status;
}

static fb_status read_space(parser *P, yaml_node_t *v, fb_suite_case *c)
{
    fb_status status = FB_OK;
    const char *s = scalar_of(v);
    if (!s || (strcmp(s, "full") && strcmp(s, "default"))) SUITE_FAIL(v, "space: expected full or default");
    c->full_space = !strcmp(s, "full");
fail:
    return status;
}

/* The problems of a suite or case: `matrices:` (spmv), `grids:` (the
 * grid families) or `solver:` (the solver's cases, family ns:
 * "cavity:level=1:steps=5", taken as given), one list any way; giving
 * two is an error. */
static fb_status read_problems(parser *P, yaml_node_t *map, char ***list, int *count)
{
    fb_status status = FB_OK;
    yaml_node_t *m = map_get(P, map, "matrices"), *g = map_get(P, map, "grids"), *c = map_get(P, map, "solver");
    if ((m != NULL) + (g != NULL) + (c != NULL) > 1)
        SUITE_FAIL(c ? c : g, "%s: give one of matrices, grids and solver", c ? "solver" : "grids");
    if (m) FB_CHECK(read_list(P, m, "matrices", add_matrix, list, count));
    if (g) FB_CHECK(read_list(P, g, "grids", add_matrix, list, count));
    if (c) FB_CHECK(read_list(P, c, "solver", add_plain, list, count));
fail:
    return status;
}

/* A case inherits the suite's matrices, backends, precisions and measure
 * (already in *c) and may override each. */
static fb_status read_case(parser *P, yaml_node_t *n, fb_suite_case *c)
{
    fb_status status = FB_OK;
    yaml_node_t *v;
    c->line = line_of(n);
    FB_CHECK(each_key(P, n, "case", case_keys, known_key, (void *)case_keys));
    if ((v = map_get(P, n, "name"))) FB_CHECK(read_name(P, v, "name", c->name, sizeof c->name));
    FB_CHECK(read_case_family(P, n, c));
    if ((v = map_get(P, n, "params"))) FB_CHECK(read_params(P, v, c));
    if ((v = map_get(P, n, "zip"))) FB_CHECK(read_zip(P, v, c));
    if ((v = map_get(P, n, "space"))) FB_CHECK(read_space(P, v, c));
    FB_CHECK(read_problems(P, n, &c->matrices, &c->nmatrices));
    if ((v = map_get(P, n, "backends"))) FB_CHECK(read_list(P, v, "backends", add_plain, &c->backends, &c->nbackends));
    if ((v = map_get(P, n, "precisions"))) FB_CHECK(read_precisions(P, v, c->is_double, &c->nprecisions));
    if ((v = map_get(P, n, "measure"))) FB_CHECK(read_measure(P, v, &c->measure));
    if (c->nmatrices == 0)
        SUITE_FAIL(n, "case %s: no matrices, grids or solver cases (give them here or at the top)", c->name);
    for (int i = 0; c->family->problem_parse && i < c->nmatrices; ++i) {
        char why[512];
        if (c->family->problem_parse(c->matrices[i]) == FB_OK) continue;
        snprintf(why, sizeof why, "%s", fb_error_message()); /* suite_error sets a new message */
        SUITE_FAIL(n, "case %s: %s", c->name, why);
    }
fail:
    return status;
}

/* Case names are keys of `names`: a suite of many thousand cases must
 * not compare each name with every one before it. */
static fb_status check_case_name(parser *P, yaml_node_t *n, json_t *names, const char *name)
{
    fb_status status = FB_OK;
    if (json_object_get(names, name)) SUITE_FAIL(n, "case name '%s' is used twice", name);
    FB_CHECK(fb_json_index_set(names, &name, 1, json_true()));
fail:
    return status;
}

static fb_status read_cases(parser *P, yaml_node_t *n, const fb_suite_case *base, fb_suite *s)
{
    fb_status status = FB_OK;
    yaml_node_t **items = NULL;
    json_t *names = json_object();
    int count;
    if (!names) FB_FAIL(FB_ERR_NOMEM, "out of host memory reading a suite");
    if (n->type != YAML_SEQUENCE_NODE) SUITE_FAIL(n, "cases: expected a list of cases");
    FB_CHECK(items_of(P, n, "cases", &items, &count));
    FB_ALLOC(s->cases, count, "suite cases");
    for (int i = 0; i < count; ++i) {
        if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
        fb_suite_case *c = &s->cases[s->ncases++];
        *c = *base;
        c->matrices = NULL, c->nmatrices = 0, c->backends = NULL, c->nbackends = 0;
        FB_CHECK(copy_strings(base->matrices, base->nmatrices, &c->matrices, &c->nmatrices));
        FB_CHECK(copy_strings(base->backends, base->nbackends, &c->backends, &c->nbackends));
        snprintf(c->name, sizeof c->name, "case%d", i + 1);
        FB_CHECK(read_case(P, items[i], c));
        FB_CHECK(check_case_name(P, items[i], names, c->name));
    }
fail:
    free(items);
    json_decref(names);
    return status;
}

/* The suite-level defaults every case starts from. */
static fb_status read_defaults(parser *P, yaml_node_t *root, fb_suite *s, fb_suite_case *base)
{
    fb_status status = FB_OK;
    yaml_node_t *v;
    base->measure.measure = fb_measure_defaults();
    base->full_space = 1;
    base->is_double[0] = 1;
    base->nprecisions = 1;
    FB_CHECK(push_string(&base->backends, &base->nbackends, "openmp"));
    if ((v = map_get(P, root, "suite"))) FB_CHECK(read_name(P, v, "suite", s->name, sizeof s->name));
    if ((v = map_get(P, root, "stream"))) FB_CHECK(read_bool(P, v, "stream", &s->stream));
    if ((v = map_get(P, root, "stream_n"))) {
        int n;
        FB_CHECK(read_int(P, v, "stream_n", &n));
        if (n < 1024) SUITE_FAIL(v, "stream_n: %d is under 1024 elements", n);
        s->stream_n = (size_t)n;
    }
    if ((v = map_get(P, root, "backends")))
        FB_CHECK(read_list(P, v, "backends", add_plain, &base->backends, &base->nbackends));
    if ((v = map_get(P, root, "precisions"))) FB_CHECK(read_precisions(P, v, base->is_double, &base->nprecisions));
    if ((v = map_get(P, root, "measure"))) FB_CHECK(read_measure(P, v, &base->measure));
    FB_CHECK(read_problems(P, root, &base->matrices, &base->nmatrices));
fail:
    return status;
}

static fb_status read_document(parser *P, fb_suite *s)
{
    fb_status status = FB_OK;
    yaml_node_t *root = yaml_document_get_root_node(&P->doc), *v;
    fb_suite_case base;
    memset(&base, 0, sizeof base);
    if (!root) FB_FAIL(FB_ERR_INPUT, "%s: line 1: the suite is empty", P->path);
    FB_CHECK(each_key(P, root, "suite", suite_keys, known_key, (void *)suite_keys));
    FB_CHECK(read_defaults(P, root, s, &base));
    if (!(v = map_get(P, root, "cases"))) SUITE_FAIL(root, "no cases: a suite needs a 'cases:' list");
    FB_CHECK(read_cases(P, v, &base, s));
fail:
    free_strings(base.matrices, base.nmatrices);
    free_strings(base.backends, base.nbackends);
    return status;
}

static void default_name(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const char *dot = strrchr(base, '.');
    snprintf(name, len, "%.*s", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
}

static fb_status load_yaml(parser *P, FILE *f)
{
    fb_status status = FB_OK;
    yaml_parser_t yp;
    if (!yaml_parser_initialize(&yp)) FB_FAIL(FB_ERR_NOMEM, "out of host memory starting the YAML parser");
    yaml_parser_set_input_file(&yp, f);
    if (!yaml_parser_load(&yp, &P->doc)) {
        char opened[64] = "";
        if (yp.context) snprintf(opened, sizeof opened, " on line %d", (int)yp.context_mark.line + 1);
        status = fb_error_set(FB_ERR_INPUT, __FILE__, __LINE__, "%s: line %d: not valid YAML (%s%s%s%s)", P->path,
                              (int)yp.problem_mark.line + 1, yp.problem ? yp.problem : "parse error",
                              yp.context ? ", " : "", yp.context ? yp.context : "", opened);
        memset(&P->doc, 0, sizeof P->doc);
    }
    yaml_parser_delete(&yp);
fail:
    return status;
}

fb_status fb_suite_find(const char *suite, char *path, size_t len)
{
    fb_status status = FB_OK;
    char rel[1100];
    size_t n = strlen(suite);
    int has_ext = n > 6 && strcmp(suite + n - 6, ".suite") == 0;
    /* a path is the user's to get right: the loader names what is wrong with it */
    if (strchr(suite, '/') || access(suite, F_OK) == 0) {
        snprintf(path, len, "%s", suite);
        goto fail;
    }
    snprintf(rel, sizeof rel, "cases/%s%s", suite, has_ext ? "" : ".suite");
    status = fb_data_find(rel, path, len);
    if (status == FB_ERR_INPUT)
        FB_FAIL(FB_ERR_INPUT, "%s: no such suite file, and no suite of that name (%s)", suite, fb_error_message());
fail:
    return status;
}

fb_status fb_suite_load(const char *path, fb_suite *out)
{
    fb_status status = FB_OK;
    parser P = {.path = path};
    FILE *f = NULL;
    int loaded = 0;
    const char *slash = strrchr(path, '/');
    memset(out, 0, sizeof *out);
    FB_CHECK(fb_file_fopen_read(path, "suite", &f)); /* exit 2, like a missing matrix */
    snprintf(P.dir, sizeof P.dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    snprintf(out->path, sizeof out->path, "%s", path);
    default_name(path, out->name, sizeof out->name);
    FB_CHECK(load_yaml(&P, f));
    loaded = 1;
    FB_CHECK(read_document(&P, out));
fail:
    if (loaded) yaml_document_delete(&P.doc);
    if (f) fclose(f);
    if (status != FB_OK) fb_suite_free(out);
    return status;
}

/* Opens and closes one problem. Readers of matrix and mesh files poll no
 * signal, and a large file takes seconds: before a sweep has written
 * anything, a signal may end the process at once. */
static fb_status try_open(const fb_family *family, const char *spec)
{
    fb_status status = FB_OK;
    void *problem = NULL;
    FB_CHECK(fb_interrupt_at_once_begin());
    status = family->problem_open(spec, &problem);
    fb_interrupt_at_once_end();
    if (status == FB_OK) family->problem_close(problem);
fail:
    return status;
}

/* Whether case c's matrix m already appeared earlier (same family, same
 * spec), noting it in `seen` (family name, spec) if not: each problem is
 * opened once, and a suite of many cases on the same matrices must not
 * compare each with every one before it. */
static fb_status seen_before(json_t *seen, const fb_suite_case *c, int m, int *before)
{
    const char *key[] = {c->family->name, c->matrices[m]};
    *before = fb_json_index_get(seen, key, 2) != NULL;
    return *before ? FB_OK : fb_json_index_set(seen, key, 2, json_true());
}

fb_status fb_suite_check_problems(const fb_suite *s)
{
    fb_status status = FB_OK;
    json_t *seen = json_object();
    if (!seen) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking a suite's problems");
    for (int c = 0; c < s->ncases; ++c) {
        const fb_suite_case *cs = &s->cases[c];
        for (int m = 0; m < cs->nmatrices; ++m) {
            char why[1024];
            int before;
            if (fb_interrupted) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted");
            FB_CHECK(seen_before(seen, cs, m, &before));
            if (before) continue;
            status = try_open(cs->family, cs->matrices[m]);
            if (status == FB_OK) continue;
            if (status == FB_ERR_INTERRUPTED) goto fail;
            snprintf(why, sizeof why, "%s", fb_error_message()); /* FB_FAIL sets a new message */
            FB_FAIL(FB_ERR_INPUT, "%s: case %s: matrix %s cannot be opened: %s", s->path, cs->name, cs->matrices[m],
                    why);
        }
    }
fail:
    json_decref(seen);
    return status;
}

void fb_suite_free(fb_suite *s)
{
    for (int i = 0; i < s->ncases; ++i) {
        fb_suite_case *c = &s->cases[i];
        free_strings(c->matrices, c->nmatrices);
        free_strings(c->backends, c->nbackends);
        free(c->kernels);
        for (int a = 0; a < c->naxes; ++a)
            free(c->axes[a].values);
        free(c->axes);
    }
    free(s->cases);
    s->cases = NULL;
    s->ncases = 0;
}

/* ---- expanding a case's space for one kernel ---- */

/* One dimension of the cross product: one axis, or a zipped group. */
typedef struct space_dim {
    int len;
    int axes[FB_MAX_PARAMS]; /* kernel axis indices that advance together */
    const int *values[FB_MAX_PARAMS];
    int naxes;
} space_dim;

/* The values kernel axis p takes in case c, and its zip group. */
static void axis_values(const fb_suite_case *c, const fb_param_axis *p, const int **values, int *n, int *group)
{
    for (int i = 0; i < c->naxes; ++i)
        if (!strcmp(c->axes[i].name, p->name)) {
            *values = c->axes[i].values, *n = c->axes[i].nvalues, *group = c->axes[i].zip_group;
            return;
        }
    *group = -1;
    if (c->full_space)
        *values = p->values, *n = p->nvalues;
    else
        *values = &p->def, *n = 1;
}

static int build_dims(const fb_suite_case *c, const fb_family_kernel *k, space_dim *dims)
{
    int ndims = 0, group_dim[FB_MAX_PARAMS * 4];
    for (int g = 0; g < FB_MAX_PARAMS * 4; ++g)
        group_dim[g] = -1;
    for (int p = 0; p < k->nparams; ++p) {
        const int *values;
        int n, group;
        axis_values(c, &k->params[p], &values, &n, &group);
        int d = group >= 0 && group < FB_MAX_PARAMS * 4 && group_dim[group] >= 0 ? group_dim[group] : ndims++;
        if (group >= 0 && group < FB_MAX_PARAMS * 4) group_dim[group] = d;
        dims[d].len = n;
        dims[d].axes[dims[d].naxes] = p;
        dims[d].values[dims[d].naxes++] = values;
    }
    return ndims;
}

/* At most FB_MAX_PARAMS dimensions of at most FB_SUITE_MAX_AXIS_VALUES
 * values: 256^6 = 2^48 fits in 64 bits, never in an int. */
int64_t fb_suite_point_count(const fb_suite_case *c, int kernel)
{
    space_dim dims[FB_MAX_PARAMS];
    int64_t total = 1;
    memset(dims, 0, sizeof dims);
    int ndims = build_dims(c, c->family->kernel(kernel), dims);
    for (int d = 0; d < ndims; ++d)
        total *= dims[d].len;
    return total;
}

fb_status fb_suite_points(const fb_suite_case *c, int kernel, fb_param_point **points, int *npoints)
{
    fb_status status = FB_OK;
    const fb_family_kernel *k = c->family->kernel(kernel);
    space_dim dims[FB_MAX_PARAMS];
    int idx[FB_MAX_PARAMS] = {0}, ndims;
    int64_t count = fb_suite_point_count(c, kernel);
    *points = NULL;
    if (count > FB_SUITE_MAX_POINTS_HARD)
        FB_FAIL(FB_ERR_INPUT, "case %s: kernel %s: %lld parameter points is too many (at most %d)", c->name, k->name,
                (long long)count, FB_SUITE_MAX_POINTS_HARD);
    int total = (int)count;
    memset(dims, 0, sizeof dims);
    ndims = build_dims(c, k, dims);
    FB_ALLOC(*points, total, "parameter points");
    for (int n = 0; n < total; ++n) {
        for (int d = 0; d < ndims; ++d)
            for (int a = 0; a < dims[d].naxes; ++a)
                (*points)[n].values[dims[d].axes[a]] = dims[d].values[a][idx[d]];
        for (int d = ndims - 1; d >= 0 && ++idx[d] == dims[d].len; --d)
            idx[d] = 0; /* last axis fastest */
    }
    *npoints = total;
fail:
    return status;
}
