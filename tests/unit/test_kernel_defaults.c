/* test_kernel_defaults.c - the #ifndef defaults in every kernel's .cl agree
 * with the parameter tables. The tables are what sweeps and the CLI use; the
 * .cl default is what someone compiling a kernel by hand gets, so a value
 * that drifted (csr_vector.cl once said VECTOR_SIZE 32, the table 8) makes
 * hand-built kernels measure a different point than the one reported.
 *
 * For every kernel of every family below and every axis of its table, the
 * embedded source must hold "#ifndef AXIS" then "#define AXIS VALUE" with
 * VALUE the axis default. An axis the .cl has no default for is named in
 * no_default with the reason, never passed over; a define computed from
 * several axes is checked through derived. Every registered family
 * (kernels/families.c) is checked, so a new family needs nothing here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "families.h"

/* One kernel as this test needs it: the registry's (bench/family.h). */
typedef fb_family_kernel kernel_view;

/* Kernel i of family f into *out; 0 past the last one. */
static int kernel_at(const fb_family *f, int i, kernel_view *out)
{
    if (i >= f->kernel_count()) return 0;
    *out = *f->kernel(i);
    return 1;
}

/* Axes with no #ifndef default of their own in the .cl, and why. kernel
 * NULL: every kernel of the family. */
typedef struct no_default {
    const char *family, *kernel, *axis, *why;
} no_default;

static const no_default no_defaults[] = {
    {"spmv", "csr-scalar", "WG_SIZE", "launch only: the kernel never reads it"},
    {"spmv", "csr-merge", "WG_SIZE", "launch only: the kernel never reads it"},
    {"spmv", "bcsr", "WG_SIZE", "launch only: the kernel never reads it"},
    {"spmv", "bcsr-soa", "WG_SIZE", "launch only: the kernel never reads it"},
    {"spmv", "bcsr-warp", "WG_SIZE", "launch only: the local array is sized for GROUP_MAX items"},
    {"spmv", "sell", "WG_SIZE", "launch only: the local array is sized for GROUP_MAX items"},
    {"spmv", "sell", "SIGMA", "the host's sort window (sell_matrix.c): it changes the data, no kernel reads it"},
    {"spmv", "sell16", "WG_SIZE", "launch only: the local array is sized for GROUP_MAX items"},
    {"spmv", "sell16", "SIGMA", "the host's sort window (sell_matrix.c): it changes the data, no kernel reads it"},
    {"spmv", "sss", "WG_SIZE", "launch only: the kernel never reads it"},
    {"spmv", "sss", "CHUNKS", "the host's chunks (sss_matrix.c) and the item count: the kernel reads nchunks"},
    {"spmv", "sss-atomic", "WG_SIZE", "launch only: the kernel never reads it"},
    {"ns", NULL, "CG_VARIANT", "the host's choice of launch sequence: no kernel reads it"},
    {"ns", NULL, "RENUMBER", "the host's node order on the device (ns_order.c): no kernel reads it"},
    {"ns", NULL, "CG_SPMV", "the host's choice of the CG's product (ns_device.c): no ns kernel reads it"},
    {"heat2d", NULL, "BLOCK_X", "compiled in only through GROUP_ITEMS = BLOCK_X * BLOCK_Y (in deriveds)"},
    {"heat2d", NULL, "BLOCK_Y", "compiled in only through GROUP_ITEMS = BLOCK_X * BLOCK_Y (in deriveds)"},
};

/* A define whose default is the product of two axes' defaults. */
typedef struct derived {
    const char *family, *define;
    const char *axes[2];
} derived;

static const derived deriveds[] = {
    {"heat2d", "GROUP_ITEMS", {"BLOCK_X", "BLOCK_Y"}},
};

/* ---- reading the source ---- */

/* After optional blanks, the preprocessor directive `word` then
 * `name` as a whole identifier: the text after it, else NULL. */
static const char *directive(const char *line, const char *word, const char *name)
{
    size_t w = strlen(word), n = strlen(name);
    while (*line == ' ' || *line == '\t')
        ++line;
    if (*line++ != '#') return NULL;
    while (*line == ' ' || *line == '\t')
        ++line;
    if (strncmp(line, word, w) != 0 || (line[w] != ' ' && line[w] != '\t')) return NULL;
    line += w;
    while (*line == ' ' || *line == '\t')
        ++line;
    if (strncmp(line, name, n) != 0 || isalnum((unsigned char)line[n]) || line[n] == '_') return NULL;
    return line + n;
}

static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/* ---- the checks ---- */

/* What one family's check found; every disagreement is printed before the
 * test fails, so one run lists them all. */
typedef struct tally {
    int compared, exempt, wrong;
} tally;

static const no_default *exemption(const char *family, const char *kernel, const char *axis)
{
    for (size_t i = 0; i < sizeof no_defaults / sizeof no_defaults[0]; ++i) {
        const no_default *e = &no_defaults[i];
        if (strcmp(e->family, family) == 0 && (!e->kernel || strcmp(e->kernel, kernel) == 0) &&
            strcmp(e->axis, axis) == 0)
            return e;
    }
    return NULL;
}

static const fb_param_axis *axis_named(const kernel_view *k, const char *name)
{
    for (int a = 0; a < k->nparams; ++a)
        if (strcmp(k->params[a].name, name) == 0) return &k->params[a];
    return NULL;
}

/* Every "#ifndef DEFINE" / "#define DEFINE VALUE" pair in k's source text
 * against want. Returns how many there are (0: no default there). */
static int compare_default(const kernel_view *k, const char *text, const char *define, long want, tally *t)
{
    int found = 0;
    for (const char *line = text; line; line = next_line(line)) {
        if (!directive(line, "ifndef", define)) continue;
        const char *def = next_line(line), *rest = def ? directive(def, "define", define) : NULL;
        if (!rest) fail_msg("%s: '#ifndef %s' is not followed by '#define %s VALUE'", k->source, define, define);
        char *end = NULL;
        long got = strtol(rest, &end, 10);
        if (end == rest || (*end && !isspace((unsigned char)*end)))
            fail_msg("%s: the default of %s is not an integer", k->source, define);
        if (got != want) {
            print_error("%s (%s): #define %s %ld, the table's default is %ld\n", k->source, k->name, define, got, want);
            ++t->wrong;
        }
        ++found;
    }
    t->compared += found;
    return found;
}

/* One axis of one kernel: its .cl default, or its exemption (which must
 * still be needed). */
static void check_axis(const char *family, const kernel_view *k, const char *text, const fb_param_axis *ax, tally *t)
{
    const no_default *e = exemption(family, k->name, ax->name);
    const int wrong = t->wrong, found = compare_default(k, text, ax->name, ax->def, t);
    if (found && e) {
        print_error("%s (%s): %s has a default now; drop it from no_default\n", k->source, k->name, ax->name);
        ++t->wrong;
    } else if (!found && !e) {
        print_error("%s (%s): no '#ifndef %s' default (the table's is %d); add one, or list the axis in no_default "
                    "with the reason\n",
                    k->source, k->name, ax->name, ax->def);
        ++t->wrong;
    } else if (e) {
        print_message("  %s %s: no .cl default: %s\n", k->name, ax->name, e->why);
        ++t->exempt;
    } else if (t->wrong == wrong) {
        print_message("  %s %s = %d (%s)\n", k->name, ax->name, ax->def, k->source);
    }
}

/* The family's derived defines in one kernel's source. */
static void check_derived(const char *family, const kernel_view *k, const char *text, tally *t)
{
    for (size_t d = 0; d < sizeof deriveds / sizeof deriveds[0]; ++d) {
        const derived *dv = &deriveds[d];
        if (strcmp(dv->family, family) != 0) continue;
        long want = 1;
        for (int i = 0; i < 2; ++i) {
            const fb_param_axis *ax = axis_named(k, dv->axes[i]);
            if (!ax) fail_msg("%s has no axis %s (derived %s)", k->name, dv->axes[i], dv->define);
            want *= ax->def;
        }
        const int wrong = t->wrong;
        if (!compare_default(k, text, dv->define, want, t)) {
            print_error("%s (%s): no '#ifndef %s' default\n", k->source, k->name, dv->define);
            ++t->wrong;
        }
        if (t->wrong == wrong)
            print_message("  %s %s = %ld = %s * %s (%s)\n", k->name, dv->define, want, dv->axes[0], dv->axes[1],
                          k->source);
    }
}

/* A kernel with axes has a source to hold their defaults; library peers
 * (no source) and stream (no axes) have nothing to compare. */
static void test_family_defaults(void **state)
{
    const fb_family *f = *state;
    tally t = {0, 0, 0};
    int nkernels = 0, with_axes = 0;
    kernel_view k;
    for (; kernel_at(f, nkernels, &k); ++nkernels) {
        if (k.nparams == 0) continue;
        ++with_axes;
        const char *text = k.source ? fb_kernel_source(k.source) : NULL;
        if (!text) fail_msg("%s (%s): no embedded source", k.source ? k.source : "(none)", k.name);
        for (int a = 0; a < k.nparams; ++a)
            check_axis(f->name, &k, text, &k.params[a], &t);
        check_derived(f->name, &k, text, &t);
    }
    print_message("%s: %d kernels, %d with axes, %d .cl defaults compared with the table, %d axes without one "
                  "(listed)\n",
                  f->name, nkernels, with_axes, t.compared, t.exempt);
    assert_true(nkernels > 0);
    assert_true(with_axes == 0 || t.compared > 0);
    assert_int_equal(t.wrong, 0);
}

/* The reader itself: whole identifiers only, blanks inside directives,
 * every occurrence, and a wrong value counted. */
static void test_reader(void **state)
{
    (void)state;
    const char *text = "#ifndef WG_SIZE_X\n#define WG_SIZE_X 7\n"
                       "  #  ifndef WG_SIZE\n  #define\tWG_SIZE 64 /* comment */\n"
                       "#if WG_SIZE > 2\n#ifndef WG_SIZE\n#define WG_SIZE 32\n#endif\n";
    const kernel_view k = {"fake", "", 0, NULL, "test/fake.cl", NULL};
    tally t = {0, 0, 0};
    print_message("the reader on a made-up source (one wrong value expected):\n");
    assert_int_equal(compare_default(&k, text, "WG_SIZE", 64, &t), 2);
    assert_int_equal(t.compared, 2);
    assert_int_equal(t.wrong, 1); /* the second says 32 */
    assert_int_equal(compare_default(&k, text, "WG_SIZE_X", 7, &t), 1);
    assert_int_equal(compare_default(&k, text, "WG", 7, &t), 0);
    assert_int_equal(t.wrong, 1);
}

/* Every no_default entry names a family, kernel and axis that exist, so a
 * renamed axis cannot leave a stale entry behind (the family test above
 * refuses entries whose axis has gained a default). */
static void test_exemptions_name_real_axes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof no_defaults / sizeof no_defaults[0]; ++i) {
        const no_default *e = &no_defaults[i];
        int matched = 0;
        kernel_view k;
        const fb_family *f = fb_family_find(e->family);
        for (int j = 0; f && kernel_at(f, j, &k); ++j)
            if ((!e->kernel || strcmp(e->kernel, k.name) == 0) && axis_named(&k, e->axis)) ++matched;
        if (!matched)
            fail_msg("no_default %s/%s/%s matches no kernel axis", e->family, e->kernel ? e->kernel : "*", e->axis);
        assert_true(e->why && e->why[0]);
    }
}

int main(void)
{
    /* the reader, the exemptions, then one test per registered family, named after it */
    enum { MAX_FAMILIES = 32 };
    struct CMUnitTest tests[MAX_FAMILIES + 2] = {cmocka_unit_test(test_reader),
                                                 cmocka_unit_test(test_exemptions_name_real_axes)};
    int n = 2;
    for (int i = 0; i < fb_family_count() && n < MAX_FAMILIES + 2; ++i)
        tests[n++] =
            (struct CMUnitTest){fb_family_at(i)->name, test_family_defaults, NULL, NULL, (void *)fb_family_at(i)};
    return _cmocka_run_group_tests("test_kernel_defaults", tests, (size_t)n, NULL, NULL);
}
