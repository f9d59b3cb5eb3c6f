/* test_families.c - every registered family's descriptor is whole: the
 * words --list prints, kernels with axes whose defaults are among their
 * values, a variant enumerator whose every device program has an OpenMP
 * twin in the family's host table (so the openmp backend can run whatever
 * a device runs), and the sweep interface complete where it has a run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "families.h"

static int has_text(const char *s) { return s && s[0]; }

static void test_registry(void **state)
{
    (void)state;
    assert_true(fb_family_count() >= 4);
    for (int i = 0; i < fb_family_count(); ++i) {
        const fb_family *f = fb_family_at(i);
        assert_ptr_equal(fb_family_find(f->name), f);
        for (int j = 0; j < i; ++j)
            assert_string_not_equal(fb_family_at(j)->name, f->name);
    }
    assert_null(fb_family_at(fb_family_count()));
    assert_null(fb_family_find("no-such-family"));
}

static void check_axes(const fb_family *f, const fb_family_kernel *k)
{
    for (int a = 0; a < k->nparams; ++a) {
        const fb_param_axis *ax = &k->params[a];
        int seen = 0;
        for (int v = 0; v < ax->nvalues; ++v)
            seen |= ax->values[v] == ax->def;
        if (!seen) fail_msg("%s/%s: %s's default %d is not among its values", f->name, k->name, ax->name, ax->def);
        if (!has_text(ax->help)) fail_msg("%s/%s: %s has no help", f->name, k->name, ax->name);
        assert_true(ax->role >= FB_ROLE_OTHER && ax->role < FB_ROLE_COUNT);
    }
}

static const fb_host_kernel *twin(const fb_family *f, const fb_variant *v)
{
    const char *real = v->defines[0].value; /* fb_variant_begin defines REAL first */
    for (const fb_host_kernel *h = f->host_kernels; h && h->name; ++h)
        if (!strcmp(h->name, v->spec.kernel_name) && !strcmp(h->real, real)) return h;
    return NULL;
}

/* Counts f's variants (and checks each has a twin) by walking the global
 * numbering the NVRTC test uses and keeping those from f's sources. */
static int family_variants(const fb_family *f)
{
    fb_variant_sink count = {.target = -1};
    f->variants(&count);
    for (int i = 0; i < count.seen; ++i) {
        fb_variant v;
        fb_variant_sink pick = {.target = i, .out = &v};
        f->variants(&pick);
        if (!v.spec.source_text) fail_msg("%s: variant %s has no embedded source", f->name, v.label);
        assert_string_equal(v.defines[0].name, "REAL");
        if (!twin(f, &v)) fail_msg("%s: %s has no OpenMP twin in the family's host table", f->name, v.label);
    }
    return count.seen;
}

static void test_descriptors(void **state)
{
    (void)state;
    int total = 0;
    for (int i = 0; i < fb_family_count(); ++i) {
        const fb_family *f = fb_family_at(i);
        assert_true(has_text(f->name) && has_text(f->summary) && has_text(f->model) && has_text(f->reference));
        assert_non_null(f->variants);
        assert_non_null(f->host_kernels);
        assert_true(f->kernel_count() > 0);
        for (int k = 0; k < f->kernel_count(); ++k) {
            const fb_family_kernel *fk = f->kernel(k);
            assert_true(has_text(fk->name) && has_text(fk->summary));
            assert_int_equal(fb_family_kernel_find(f, fk->name), k);
            check_axes(f, fk);
        }
        int n = family_variants(f);
        print_message("%s: %d kernels, %d device programs, each with an OpenMP twin\n", f->name, f->kernel_count(), n);
        assert_true(n > 0);
        total += n;
    }
    assert_int_equal(total, fb_variant_count());
}

static void test_sweep_interface(void **state)
{
    (void)state;
    int sweepable = 0;
    for (int i = 0; i < fb_family_count(); ++i) {
        const fb_family *f = fb_family_at(i);
        if (!fb_family_sweepable(f)) continue;
        ++sweepable;
        assert_true(has_text(f->problem_key));
        assert_non_null(f->problem_open);
        assert_non_null(f->problem_close);
        assert_non_null(f->problem_json);
        assert_non_null(f->check);
    }
    assert_int_equal(sweepable, fb_family_count() - 2); /* all but stream and the solver's kernels */
    assert_false(fb_family_sweepable(fb_family_find("stream")));
    assert_false(fb_family_sweepable(fb_family_find("ns")));
}

/* The roles figures read: heat2d's shape, fv-surface's layout. */
static void test_roles(void **state)
{
    (void)state;
    const fb_family *heat = fb_family_find("heat2d"), *fv = fb_family_find("fv-surface");
    assert_string_equal(fb_family_axis_with_role(heat, 0, FB_ROLE_GROUP_X)->name, "BLOCK_X");
    assert_string_equal(fb_family_axis_with_role(heat, 0, FB_ROLE_GROUP_Y)->name, "BLOCK_Y");
    assert_string_equal(fb_family_axis_with_role(heat, 1, FB_ROLE_ORDER)->name, "ORDER");
    assert_string_equal(fb_family_axis_with_role(fv, 0, FB_ROLE_LAYOUT)->name, "LAYOUT");
    assert_null(fb_family_axis_with_role(fv, 0, FB_ROLE_GROUP_X));
    assert_null(fb_family_axis_with_role(heat, -1, FB_ROLE_GROUP_X));
    assert_string_equal(fb_axis_role_name(FB_ROLE_GROUP_SIZE), "work-group size");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_sweep_interface),
        cmocka_unit_test(test_roles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
