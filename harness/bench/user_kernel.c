/* user_kernel.c - the table of user kernels, their declarations, their
 * constraints and their geometry (user_kernel.h). */
#include "user_kernel.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hash.h"
#include "../core/kernel_sources.h"

static fb_user_kernel table[FB_USER_KERNEL_MAX];
static int ntable;

/* Defines the families' builds pass themselves: an axis of that name
 * would be given twice. */
static const char *const reserved[] = {"REAL", "BLOCK_SIZE", "GROUP_ITEMS", NULL};

int fb_user_kernel_count(const fb_family *f)
{
    int n = 0;
    for (int i = 0; i < ntable; ++i)
        n += table[i].family == f;
    return n;
}

const fb_user_kernel *fb_user_kernel_at(const fb_family *f, int i)
{
    for (int k = 0; k < ntable; ++k)
        if (table[k].family == f && i-- == 0) return &table[k];
    return NULL;
}

void fb_user_kernel_forget_all(void)
{
    for (int i = 0; i < ntable; ++i)
        free(table[i].text);
    memset(table, 0, sizeof table);
    ntable = 0;
}

fb_family_kernel fb_user_kernel_view(const fb_user_kernel *uk)
{
    fb_family_kernel k = {uk->name, uk->summary, uk->nparams, uk->params, uk->path, uk};
    return k;
}

/* ---- names ---- */

static int is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (++s; *s; ++s)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The text with comments blanked (newlines kept), so that a word in a
 * comment is not taken for code. malloc'd; NULL when out of memory. */
static char *without_comments(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; p && *p; ++p) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
            if (!*p) break;
        } else if (p[0] == '/' && p[1] == '*') {
            char *end = strstr(p + 2, "*/");
            char *stop = end ? end + 2 : p + strlen(p);
            for (; p < stop; ++p)
                if (*p != '\n') *p = ' ';
            --p;
        }
    }
    return s;
}

/* The name a kernel declaration starting at p (just after its keyword)
 * declares: the last identifier before a '(' at depth 0 ahead of its body
 * or ';', so that FB_LAUNCH_BOUNDS(N) or __attribute__((...)) before the
 * name is skipped. Into name (empty if none); returns where it stopped. */
static const char *declared_name(const char *p, char *name, size_t len)
{
    const char *after_keyword = p; /* the scans back stop here: `kernel(` names nothing */
    int depth = 0;
    name[0] = '\0';
    for (; *p && !(depth == 0 && (*p == '{' || *p == ';')); ++p) {
        if (*p == ')') --depth;
        if (*p != '(') continue;
        if (depth++ > 0) continue;
        const char *end = p, *start;
        while (end > after_keyword && isspace((unsigned char)end[-1]))
            --end;
        for (start = end; start > after_keyword && ident_char(start[-1]); --start)
            ;
        if (start < end) snprintf(name, len, "%.*s", (int)(end - start), start);
    }
    return p;
}

/* Whether the file declares a `__kernel` (or `kernel`) function `name`.
 * The kernels it does declare go to found (", "-separated), for the
 * message. */
static int declares_kernel(const char *text, const char *name, char *found, size_t found_len)
{
    char *code = without_comments(text), kernel[FB_USER_NAME_LEN * 2];
    int yes = 0;
    found[0] = '\0';
    for (const char *p = code; p && *p;) {
        if (!ident_char(*p) || (p > code && ident_char(p[-1]))) {
            ++p;
            continue;
        }
        const char *word = p;
        while (ident_char(*p))
            ++p;
        size_t n = (size_t)(p - word);
        if (!((n == 8 && !strncmp(word, "__kernel", 8)) || (n == 6 && !strncmp(word, "kernel", 6)))) continue;
        p = declared_name(p, kernel, sizeof kernel);
        if (!kernel[0]) continue;
        yes |= !strcmp(kernel, name);
        size_t used = strlen(found);
        if (used + strlen(kernel) + 3 < found_len)
            snprintf(found + used, found_len - used, "%s%s", used ? ", " : "", kernel);
    }
    free(code);
    return yes;
}

/* ---- constraints: a recursive descent over the text, evaluated on a
 * point (or on the defaults with no device, to check the syntax) ---- */

typedef struct expr {
    const char *s;
    const fb_user_kernel *uk;
    const fb_param_point *p;   /* NULL: the defaults (syntax check) */
    const fb_device_info *dev; /* NULL: the syntax check, facts read 1 */
    int is_double;
    int unknown; /* read a device fact the device does not report */
    char err[160];
} expr;

static void skip(expr *e)
{
    while (isspace((unsigned char)*e->s))
        ++e->s;
}

static void expr_error(expr *e, const char *what)
{
    if (!e->err[0]) snprintf(e->err, sizeof e->err, "%s at '%.24s'", what, *e->s ? e->s : "(the end)");
}

static long long device_fact(expr *e, const char *name, int *known)
{
    const fb_device_info *d = e->dev;
    long long v = -1;
    *known = 1;
    if (!strcmp(name, "real_bytes")) return e->is_double ? 8 : 4;
    if (!strcmp(name, "max_work_group_size")) v = d ? (long long)d->max_work_group_size : 1;
    if (!strcmp(name, "local_mem_bytes")) v = d ? (long long)d->local_mem_bytes : 1;
    if (!strcmp(name, "compute_units")) v = d ? d->compute_units : 1;
    if (!strcmp(name, "subgroup_size")) v = d ? d->subgroup_size : 1;
    if (v < 0) *known = 0;
    if (v == 0) e->unknown = 1;
    return v;
}

static long long name_value(expr *e, const char *name)
{
    int known;
    for (int i = 0; i < e->uk->nparams; ++i)
        if (!strcmp(e->uk->params[i].name, name)) return e->p ? e->p->values[i] : e->uk->params[i].def;
    long long v = device_fact(e, name, &known);
    if (!known) {
        char what[120];
        snprintf(what, sizeof what, "'%s' is no parameter of the kernel and no device fact", name);
        if (!e->err[0]) snprintf(e->err, sizeof e->err, "%s", what);
    }
    return v;
}

static long long sum(expr *e);

static long long atom(expr *e)
{
    char name[FB_USER_NAME_LEN];
    size_t n = 0;
    skip(e);
    if (*e->s == '(') {
        ++e->s;
        long long v = sum(e);
        skip(e);
        if (*e->s != ')')
            expr_error(e, "expected ')'");
        else
            ++e->s;
        return v;
    }
    if (isdigit((unsigned char)*e->s)) {
        char *end;
        long long v = strtoll(e->s, &end, 10);
        if (v > 1000000000000LL) expr_error(e, "a number over 10^12");
        e->s = end;
        return v;
    }
    while (ident_char(e->s[n]) && n + 1 < sizeof name)
        ++n;
    if (n == 0 || isdigit((unsigned char)*e->s)) {
        expr_error(e, "expected a number, a name or '('");
        return 0;
    }
    snprintf(name, sizeof name, "%.*s", (int)n, e->s);
    e->s += n;
    return name_value(e, name);
}

static long long apply(expr *e, char op, long long a, long long b)
{
    long long r = 0;
    int over = 0;
    if (op == '+') over = __builtin_add_overflow(a, b, &r);
    if (op == '-') over = __builtin_sub_overflow(a, b, &r);
    if (op == '*') over = __builtin_mul_overflow(a, b, &r);
    if (op == '/' || op == '%') {
        if (b == 0) {
            if (e->dev && !e->err[0]) snprintf(e->err, sizeof e->err, "divides by zero");
            return 0;
        }
        if (a == LLONG_MIN && b == -1)
            over = 1; /* the one quotient that does not fit */
        else
            r = op == '/' ? a / b : a % b;
    }
    if (over && !e->err[0]) snprintf(e->err, sizeof e->err, "overflows 64 bits");
    return r;
}

static long long product(expr *e)
{
    long long v = atom(e);
    for (skip(e); *e->s == '*' || *e->s == '/' || *e->s == '%'; skip(e)) {
        char op = *e->s++;
        v = apply(e, op, v, atom(e));
    }
    return v;
}

static long long sum(expr *e)
{
    long long v = product(e);
    for (skip(e); *e->s == '+' || *e->s == '-'; skip(e)) {
        char op = *e->s++;
        v = apply(e, op, v, product(e));
    }
    return v;
}

/* The comparison operator at e->s: its length (0: none) and code. */
static int comparison(const char *s, char *code)
{
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (int i = 0; i < 6; ++i)
        if (!strncmp(s, ops[i], strlen(ops[i]))) {
            *code = (char)i;
            return (int)strlen(ops[i]);
        }
    return 0;
}

/* 1 if it holds, 0 if not; -1 with e->err set when it cannot be read. */
static int evaluate(expr *e, const char *text)
{
    char op = 0;
    int len;
    long long b = 0;
    e->s = text;
    long long a = sum(e);
    skip(e);
    if (!(len = comparison(e->s, &op))) expr_error(e, "expected a comparison (== != < <= > >=)");
    if (!e->err[0]) {
        e->s += len;
        b = sum(e);
        skip(e);
        if (*e->s) expr_error(e, "expected the end");
    }
    /* A fact the device does not report reads 0: the constraint holds
     * (user_kernel.h), whatever that 0 did to the arithmetic (a division).
     * Only the device's check reads facts; the syntax was checked before. */
    if (e->unknown) return 1;
    if (e->err[0]) return -1;
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a <= b;
    case 3: return a >= b;
    case 4: return a < b;
    default: return a > b;
    }
}

/* ---- declarations ---- */

static const char *where_of(const fb_user_text_decl *t, const char *dflt) { return t->where ? t->where : dflt; }

static fb_status find_template(const fb_family *f, const fb_user_kernel_decl *d, fb_user_kernel *uk)
{
    fb_status status = FB_OK;
    const char *where = where_of(&d->like, "--like");
    int builtins = f->kernel_count() - fb_user_kernel_count(f);
    uk->like_kernel = d->like.text ? fb_family_kernel_find(f, d->like.text) : 0;
    if (uk->like_kernel < 0 || uk->like_kernel >= builtins)
        FB_FAIL(FB_ERR_USAGE, "%s: %s has no kernel '%s' to take the argument list of (see flowbench %s --list)", where,
                f->name, d->like.text, strcmp(f->name, "spmv") ? "grid" : "spmv");
    const fb_family_kernel *t = f->kernel(uk->like_kernel);
    if (!t->source)
        FB_FAIL(FB_ERR_USAGE, "%s: %s is a library peer, not a kernel with an argument list a file can take", where,
                t->name);
    snprintf(uk->like, sizeof uk->like, "%s", t->name);
    uk->ntemplate = uk->nparams = t->nparams;
    for (int i = 0; i < t->nparams; ++i)
        uk->params[i] = t->params[i];
fail:
    return status;
}

static fb_status check_name(const fb_family *f, const fb_user_kernel_decl *d, fb_user_kernel *uk)
{
    fb_status status = FB_OK;
    const char *where = where_of(&d->name, "--kernel"), *name = d->name.text;
    int k = name ? fb_family_kernel_find(f, name) : -1;
    char found[512];
    if (k >= 0 && k < f->kernel_count() - fb_user_kernel_count(f))
        FB_FAIL(FB_ERR_USAGE, "%s: '%s' is a built-in %s kernel; give yours another name", where, name, f->name);
    if (!is_identifier(name) || strlen(name) >= sizeof uk->name)
        FB_FAIL(FB_ERR_USAGE,
                "%s: '%s' is not the name of a __kernel function (a C identifier of at most %d characters)", where,
                name ? name : "", FB_USER_NAME_LEN - 1);
    if (!declares_kernel(uk->text, name, found, sizeof found))
        FB_FAIL(FB_ERR_USAGE, "%s: %s declares no __kernel %s (%s%s)", where, uk->path, name,
                found[0] ? "its kernels: " : "it declares none", found);
    snprintf(uk->name, sizeof uk->name, "%s", name);
fail:
    return status;
}

static int axis_index(const fb_user_kernel *uk, const char *name)
{
    for (int i = 0; i < uk->nparams; ++i)
        if (!strcmp(uk->params[i].name, name)) return i;
    return -1;
}

static fb_status add_param(fb_user_kernel *uk, const fb_user_param_decl *p)
{
    fb_status status = FB_OK;
    const char *where = p->where ? p->where : "--param";
    int i = axis_index(uk, p->name ? p->name : "");
    for (int r = 0; reserved[r]; ++r)
        if (p->name && !strcmp(p->name, reserved[r]))
            FB_FAIL(FB_ERR_USAGE, "%s: %s is a define the build passes itself; name your parameter otherwise", where,
                    p->name);
    if (!is_identifier(p->name) || strlen(p->name) >= FB_USER_NAME_LEN)
        FB_FAIL(FB_ERR_USAGE, "%s: '%s' is not a -D name (a C identifier of at most %d characters)", where,
                p->name ? p->name : "", FB_USER_NAME_LEN - 1);
    if (p->nvalues < 1 || p->nvalues > FB_MAX_PARAM_VALUES)
        FB_FAIL(FB_ERR_USAGE, "%s: %s needs 1 to %d values, not %d", where, p->name, FB_MAX_PARAM_VALUES, p->nvalues);
    if (i >= uk->ntemplate) FB_FAIL(FB_ERR_USAGE, "%s: %s is declared twice", where, p->name);
    for (int v = 0; v < p->nvalues; ++v) /* the one rule of params.h, whoever declares */
        if (p->values[v] < -FB_PARAM_VALUE_MAX || p->values[v] > FB_PARAM_VALUE_MAX)
            FB_FAIL(FB_ERR_USAGE, "%s: %s: %d is out of range (%d..%d)", where, p->name, p->values[v],
                    -FB_PARAM_VALUE_MAX, FB_PARAM_VALUE_MAX);
    if (i < 0) {
        if (uk->nparams == FB_MAX_PARAMS)
            FB_FAIL(FB_ERR_USAGE, "%s: %s: a kernel has at most %d parameters (%s's %d included)", where, p->name,
                    FB_MAX_PARAMS, uk->like, uk->ntemplate);
        i = uk->nparams++;
        snprintf(uk->names[i], sizeof uk->names[i], "%s", p->name);
        uk->params[i] = (fb_param_axis){.name = uk->names[i], .help = "declared with the kernel file"};
    }
    uk->params[i].nvalues = p->nvalues;
    for (int v = 0; v < p->nvalues; ++v)
        uk->params[i].values[v] = p->values[v];
    uk->params[i].def = p->values[0];
fail:
    return status;
}

static fb_status add_constraints(fb_user_kernel *uk, const fb_user_kernel_decl *d)
{
    fb_status status = FB_OK;
    for (int c = 0; c < d->nconstraints; ++c) {
        const fb_user_text_decl *t = &d->constraints[c];
        const char *where = t->where ? t->where : "--constraint";
        expr e = {.uk = uk, .is_double = 1};
        if (!t->text || strlen(t->text) >= sizeof uk->constraints[0])
            FB_FAIL(FB_ERR_USAGE, "%s: a constraint is empty or longer than %zu characters", where,
                    sizeof uk->constraints[0] - 1);
        if (evaluate(&e, t->text) < 0) FB_FAIL(FB_ERR_USAGE, "%s: '%s': %s", where, t->text, e.err);
        snprintf(uk->constraints[uk->nconstraints++], sizeof uk->constraints[0], "%s", t->text);
    }
fail:
    return status;
}

static fb_status set_divisor(fb_user_kernel *uk, const fb_user_kernel_decl *d)
{
    fb_status status = FB_OK;
    const char *where = where_of(&d->divisor, "--global-divisor");
    uk->divisor = -1;
    if (!d->divisor.text) return FB_OK;
    if ((uk->divisor = axis_index(uk, d->divisor.text)) < 0)
        FB_FAIL(FB_ERR_USAGE, "%s: '%s' is not a parameter of %s", where, d->divisor.text, uk->name);
    for (int v = 0; v < uk->params[uk->divisor].nvalues; ++v)
        if (uk->params[uk->divisor].values[v] < 1)
            FB_FAIL(FB_ERR_USAGE, "%s: %s divides the global size: its values must be at least 1, not %d", where,
                    d->divisor.text, uk->params[uk->divisor].values[v]);
fail:
    return status;
}

/* Everything that makes two declarations the same kernel. */
static int same_kernel(const fb_user_kernel *a, const fb_user_kernel *b)
{
    if (strcmp(a->hash, b->hash) || strcmp(a->like, b->like) || a->nparams != b->nparams || a->divisor != b->divisor ||
        a->nconstraints != b->nconstraints)
        return 0;
    for (int i = 0; i < a->nparams; ++i)
        if (strcmp(a->params[i].name, b->params[i].name) || a->params[i].nvalues != b->params[i].nvalues ||
            memcmp(a->params[i].values, b->params[i].values, sizeof(int) * (size_t)a->params[i].nvalues))
            return 0;
    for (int c = 0; c < a->nconstraints; ++c)
        if (strcmp(a->constraints[c], b->constraints[c])) return 0;
    return 1;
}

static fb_status read_declaration(const fb_family *f, const fb_user_kernel_decl *d, fb_user_kernel *uk)
{
    fb_status status = FB_OK;
    size_t len;
    const char *where = where_of(&d->file, "--kernel-file");
    if (!f->user_kernels)
        FB_FAIL(FB_ERR_USAGE, "%s: the %s family takes no kernel files (spmv, heat2d and fv-surface do)", where,
                f->name);
    if (!d->file.text || !*d->file.text) FB_FAIL(FB_ERR_USAGE, "%s: no file given", where);
    if (strlen(d->file.text) >= sizeof uk->path) FB_FAIL(FB_ERR_USAGE, "%s: the path is too long", where);
    for (const char *c = d->file.text; *c; ++c) /* every message names the path on one line */
        if (iscntrl((unsigned char)*c))
            FB_FAIL(FB_ERR_USAGE, "%s: the path holds a control character (0x%02x); rename the file", where,
                    (unsigned)*c);
    uk->family = f;
    snprintf(uk->path, sizeof uk->path, "%s", d->file.text);
    snprintf(uk->where, sizeof uk->where, "%s", where);
    if ((status = fb_kernel_file_read(uk->path, &uk->text, &len)) != FB_OK) {
        char why[1400];
        snprintf(why, sizeof why, "%s", fb_error_message()); /* FB_FAIL sets a new message */
        FB_FAIL(status, "%s: %s", where, why);
    }
    snprintf(uk->hash, sizeof uk->hash, "%016llx", (unsigned long long)fb_hash_bytes(FB_HASH_SEED, uk->text, len));
    FB_CHECK(find_template(f, d, uk));
    FB_CHECK(check_name(f, d, uk));
    for (int i = 0; i < d->nparams; ++i)
        FB_CHECK(add_param(uk, &d->params[i]));
    if (d->nconstraints > FB_USER_MAX_CONSTRAINTS)
        FB_FAIL(FB_ERR_USAGE, "%s: at most %d constraints", where_of(&d->constraints[0], "--constraint"),
                FB_USER_MAX_CONSTRAINTS);
    FB_CHECK(add_constraints(uk, d));
    FB_CHECK(set_divisor(uk, d));
    snprintf(uk->summary, sizeof uk->summary, "user kernel %s in %s (hash %s), argument list and launch of %s",
             uk->name, uk->path, uk->hash, uk->like);
fail:
    return status;
}

fb_status fb_user_kernel_register(const fb_family *f, const fb_user_kernel_decl *d, int *kernel)
{
    fb_status status = FB_OK;
    fb_user_kernel uk;
    memset(&uk, 0, sizeof uk);
    FB_CHECK(read_declaration(f, d, &uk));
    int builtins = f->kernel_count() - fb_user_kernel_count(f);
    for (int i = 0; i < fb_user_kernel_count(f); ++i) {
        const fb_user_kernel *old = fb_user_kernel_at(f, i);
        if (strcmp(old->name, uk.name)) continue;
        if (!same_kernel(old, &uk))
            FB_FAIL(FB_ERR_USAGE,
                    "%s: kernel %s is declared already (%s) with another file content, template, parameters, "
                    "constraints or divisor",
                    where_of(&d->name, "--kernel"), uk.name, old->where);
        *kernel = builtins + i;
        free(uk.text);
        return FB_OK;
    }
    if (ntable == FB_USER_KERNEL_MAX)
        FB_FAIL(FB_ERR_USAGE, "%s: at most %d kernel files in one run", where_of(&d->file, "--kernel-file"),
                FB_USER_KERNEL_MAX);
    *kernel = builtins + fb_user_kernel_count(f);
    table[ntable] = uk;
    for (int i = uk.ntemplate; i < uk.nparams; ++i) /* the names live in the entry: point at the table's copy */
        table[ntable].params[i].name = table[ntable].names[i];
    ntable++;
    return FB_OK;
fail:
    free(uk.text);
    return status;
}

/* ---- running ---- */

fb_status fb_user_kernel_check(const fb_user_kernel *uk, const fb_param_point *p, const fb_device_info *dev,
                               int is_double)
{
    fb_status status = FB_OK;
    char point[512];
    fb_family_kernel view = fb_user_kernel_view(uk);
    if (dev->in_process)
        FB_FAIL(FB_ERR_USAGE,
                "%s: a kernel file is OpenCL C (%s) and the openmp backend has no twin of it; run it on opencl or "
                "cuda",
                uk->name, uk->path);
    for (int c = 0; c < uk->nconstraints; ++c) {
        expr e = {.uk = uk, .p = p, .dev = dev, .is_double = is_double};
        int holds = evaluate(&e, uk->constraints[c]);
        if (holds == 1) continue;
        fb_family_point_text(&view, p, point, sizeof point);
        FB_FAIL(FB_ERR_USAGE, "%s: constraint '%s' %s (%s)", uk->name, uk->constraints[c],
                holds < 0 ? e.err : "does not hold", point);
    }
fail:
    return status;
}

void fb_user_kernel_divide(const fb_user_kernel *uk, const fb_param_point *p, fb_launch *l)
{
    if (uk->divisor < 0 || l->local[0] == 0) return;
    size_t by = (size_t)p->values[uk->divisor];
    size_t groups = l->global[0] / l->local[0];
    groups = (groups + by - 1) / by;
    l->global[0] = (groups ? groups : 1) * l->local[0];
}

int fb_user_kernel_defines(const fb_user_kernel *uk, const fb_param_point *p, fb_define *out, char (*values)[16])
{
    int n = 0;
    for (int i = uk->ntemplate; i < uk->nparams; ++i, ++n) {
        snprintf(values[n], sizeof values[n], "%d", p->values[i]);
        out[n] = (fb_define){uk->params[i].name, values[n]};
    }
    return n;
}

json_t *fb_user_kernel_json(const fb_user_kernel *uk)
{
    json_t *j = json_pack("{s:s, s:s, s:s}", "path", uk->path, "hash", uk->hash, "like", uk->like);
    if (j && uk->divisor >= 0) json_object_set_new(j, "global_divisor", json_string(uk->params[uk->divisor].name));
    return j;
}
