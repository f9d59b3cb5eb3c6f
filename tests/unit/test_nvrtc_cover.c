/* test_nvrtc_cover.c - the covering set the NVRTC compile test builds by
 * default (nvrtc_cover.h) holds, for every kernel of every family, its
 * default point on every architecture, every value of every axis and every
 * pair of values of the axes that change code paths that the full list
 * holds; and it is a small part of that list. Needs no NVRTC, so it runs
 * where CUDA is off too: a change to a family's variants or axes that the
 * covering set would miss fails here, before any GPU node.
 *
 * The check below is written apart from the selection: it asks, for each
 * program of the full list, whether the chosen ones have its every value
 * and pair, instead of trusting the marks the greedy choice keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_cover.h"

/* The registry's variants, read once for the program (a second or two). */
static fb_variant *variants;
static int nvariants;

static int load_variants(void **state)
{
    (void)state;
    nvariants = cover_variants_load(&variants);
    return 0;
}

static int free_variants(void **state)
{
    (void)state;
    free(variants);
    return 0;
}

/* ---- the independent check ---- */

/* 1 when a chosen candidate has value va on axis a and, if b >= 0, vb on b. */
static int chosen_has(const cover_space *s, const unsigned char *chosen, int a, int va, int b, int vb)
{
    for (int c = 0; c < s->ncand; ++c)
        if (chosen[c] && s->cand[c].at[a] == va && (b < 0 || s->cand[c].at[b] == vb)) return 1;
    return 0;
}

/* Every value, and every pair of paired axes, that a candidate of s has is
 * had by a chosen one; the chosen include the default point on every
 * architecture. */
static void check_cover(const cover_space *s, const unsigned char *chosen)
{
    for (int c = 0; c < s->ncand; ++c) {
        const unsigned char *at = s->cand[c].at;
        for (int a = 0; a < s->naxes; ++a) {
            if (!chosen_has(s, chosen, a, at[a], -1, 0))
                fail_msg("%s/%s: %s=%s is never compiled", s->source, s->kernel, s->axis[a], s->value[a][at[a]]);
            for (int b = a + 1; b < s->naxes; ++b)
                if (s->paired[a] && s->paired[b] && !chosen_has(s, chosen, a, at[a], b, at[b]))
                    fail_msg("%s/%s: %s=%s with %s=%s is never compiled", s->source, s->kernel, s->axis[a],
                             s->value[a][at[a]], s->axis[b], s->value[b][at[b]]);
        }
    }
    int defaults = 0, best = cover_default_best(s);
    for (int c = 0; c < s->ncand; ++c)
        defaults += chosen[c] && cover_default_score(s, &s->cand[c]) == best;
    if (defaults != COVER_NARCHS)
        fail_msg("%s/%s: %d compiles of the default point, expected one per architecture (%d)", s->source, s->kernel,
                 defaults, COVER_NARCHS);
}

/* "ARCH REAL VECTOR_SIZE" (paired 1) or "WG_SIZE" (paired 0) into out. */
static void axes_named(const cover_space *s, int paired, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int a = 0; a < s->naxes && n < len; ++a)
        if (s->paired[a] == paired) n += (size_t)snprintf(out + n, len - n, " %s", s->axis[a]);
    if (!out[0]) snprintf(out, len, " -");
}

/* ---- a made-up space: what the choice does, with numbers known ---- */

static void add_axis(cover_space *s, const char *name, int paired, int nvalues)
{
    int a = s->naxes++;
    s->axis[a] = name;
    s->paired[a] = paired;
    s->nvalues[a] = nvalues;
    for (int v = 0; v < nvalues; ++v)
        snprintf(s->value[a][v], COVER_VALUE_LEN, "%d", v);
    snprintf(s->def[a], COVER_VALUE_LEN, "%s", a == 0 ? "" : "0"); /* axis 0 plays the architecture */
}

/* ARCH (2) x P x Q x R (3 each, all paired) x S (4, a size), less the
 * points P=2, Q=2 (a constraint): 192 candidates, 44 pairs to cover. */
static void made_up_space(cover_space *s)
{
    memset(s, 0, sizeof *s);
    s->source = "made/up.cl", s->kernel = "made_up";
    add_axis(s, "ARCH", 1, 2);
    add_axis(s, "P", 1, 3);
    add_axis(s, "Q", 1, 3);
    add_axis(s, "R", 1, 3);
    add_axis(s, "S", 0, 4);
    s->cap = 2 * 3 * 3 * 3 * 4;
    s->cand = calloc((size_t)s->cap, sizeof *s->cand);
    assert_non_null(s->cand);
    for (int i = 0; i < s->cap; ++i) {
        unsigned char at[5] = {i % 2, i / 2 % 3, i / 6 % 3, i / 18 % 3, i / 54 % 4};
        if (at[1] == 2 && at[2] == 2) continue;
        memcpy(s->cand[s->ncand].at, at, sizeof at);
        s->cand[s->ncand++].what = (cover_compile){i, at[0]};
    }
}

static void test_made_up_space_is_covered_by_few(void **state)
{
    (void)state;
    cover_space s;
    made_up_space(&s);
    assert_int_equal(s.ncand, 192);
    unsigned char chosen[192];
    int n = cover_select(&s, chosen);
    print_message("made-up space: %d of %d candidates cover its 44 pairs\n", n, s.ncand);
    check_cover(&s, chosen);
    /* 9 is the least that can hold the 9 pairs of P and R; the full product
     * would be 192. The ruled-out pair (P=2, Q=2) is in no candidate: the
     * choice ended without it, and check_cover asks only what exists. */
    assert_in_range(n, 9, 16);
    free(s.cand);
}

/* A size axis is compiled at each of its values, not in each pair. */
static void test_sizes_are_not_paired(void **state)
{
    (void)state;
    cover_space s;
    made_up_space(&s);
    unsigned char chosen[192];
    cover_select(&s, chosen);
    int seen_with_arch1 = 0;
    for (int v = 0; v < 4; ++v)
        seen_with_arch1 += chosen_has(&s, chosen, 0, 1, 4, v);
    assert_true(chosen_has(&s, chosen, 4, 3, -1, 0));
    print_message("S's 4 values: %d of them compiled for the second architecture (not required)\n", seen_with_arch1);
    /* Pairing S too demands all 8 (ARCH, S) pairs. */
    s.paired[4] = 1;
    cover_select(&s, chosen);
    check_cover(&s, chosen);
    for (int v = 0; v < 4; ++v)
        assert_true(chosen_has(&s, chosen, 0, 1, 4, v));
    free(s.cand);
}

/* ---- the rule on the declared axes ---- */

static void test_rule_reads_the_declared_roles(void **state)
{
    (void)state;
    assert_false(cover_role_changes_code(FB_ROLE_GROUP_SIZE));
    assert_false(cover_role_changes_code(FB_ROLE_GROUP_SIZE_BITS));
    assert_false(cover_role_changes_code(FB_ROLE_GROUP_X));
    assert_false(cover_role_changes_code(FB_ROLE_GROUP_Y));
    assert_false(cover_role_changes_code(FB_ROLE_OCCUPANCY));
    assert_true(cover_role_changes_code(FB_ROLE_TEAM));
    assert_true(cover_role_changes_code(FB_ROLE_LAYOUT));
    assert_true(cover_role_changes_code(FB_ROLE_ORDER));
    assert_true(cover_role_changes_code(FB_ROLE_WORK_PER_ITEM));
    assert_true(cover_role_changes_code(FB_ROLE_OTHER));
    /* through the registry: csr-vector's team is paired, its group size not,
     * and REAL, which no table declares, is */
    assert_true(cover_axis_changes_code("spmv/csr_vector.cl", "VECTOR_SIZE"));
    assert_false(cover_axis_changes_code("spmv/csr_vector.cl", "WG_SIZE"));
    assert_true(cover_axis_changes_code("spmv/csr_vector.cl", "REAL"));
    assert_false(cover_axis_changes_code("grid/fv_surface.cl", "LOCAL_RESERVE"));
    assert_true(cover_axis_changes_code("grid/fv_surface.cl", "LAYOUT"));
}

/* ---- every kernel of the registry ---- */

/* Every define of s has a source default, so the default point is one
 * program, not a family of them. */
static void check_defaults_known(const cover_space *s)
{
    for (int a = 1; a < s->naxes; ++a)
        if (!s->def[a][0])
            fail_msg("%s/%s: no '#ifndef %s' default in the program text", s->source, s->kernel, s->axis[a]);
}

static void test_every_kernel_is_covered(void **state)
{
    (void)state;
    cover_space *spaces;
    int nspaces = cover_spaces_build(variants, nvariants, &spaces), total = 0, chosen_total = 0;
    assert_true(nspaces > 10);
    for (int s = 0; s < nspaces; ++s) {
        const cover_space *sp = &spaces[s];
        unsigned char *chosen = malloc((size_t)sp->ncand);
        assert_non_null(chosen);
        int n = cover_select(sp, chosen);
        check_defaults_known(sp);
        check_cover(sp, chosen);
        char paired[256], once[256];
        axes_named(sp, 1, paired, sizeof paired);
        axes_named(sp, 0, once, sizeof once);
        print_message("%-22s %-24s %3d of %3d; paired:%s; once:%s\n", sp->source, sp->kernel, n, sp->ncand, paired,
                      once);
        total += sp->ncand, chosen_total += n;
        free(chosen);
    }
    print_message("%d kernels: %d of %d compiles\n", nspaces, chosen_total, total);
    /* Nothing of the full list is lost to the grouping, and the set is the
     * small part of it that makes the default test fast. */
    assert_int_equal(total, nvariants * COVER_NARCHS);
    assert_true(chosen_total * 3 < total);
    cover_spaces_free(spaces, nspaces);
}

/* The lists the compile test shards: in order, no program twice, the full
 * one every variant on every architecture. */
static void test_compile_lists(void **state)
{
    (void)state;
    cover_compile *cover, *every;
    int ncover = cover_compiles(variants, nvariants, 0, &cover),
        nevery = cover_compiles(variants, nvariants, 1, &every);
    assert_int_equal(nevery, nvariants * COVER_NARCHS);
    for (int i = 0; i < nevery; ++i) {
        assert_int_equal(every[i].variant, i / COVER_NARCHS);
        assert_int_equal(every[i].arch, i % COVER_NARCHS);
    }
    assert_true(ncover > 0 && ncover < nevery);
    for (int i = 1; i < ncover; ++i)
        assert_true(cover_compile_order(&cover[i - 1], &cover[i]) < 0);
    free(cover);
    free(every);
}

/* Grouped into programs, the compiles lose nothing and merge only what
 * NVRTC would compile alike: each compile in exactly one program, every
 * variant of a program at its source, defines and architecture, no two
 * programs the same. */
static void check_programs(const fb_variant *all, const cover_compile *list, int n, const cover_program *programs,
                           int nprograms)
{
    int members = 0;
    for (int p = 0; p < nprograms; ++p) {
        const cover_program *prog = &programs[p];
        members += prog->nvariants;
        for (int i = 0; i < prog->nvariants; ++i)
            assert_true(cover_same_program(&all[prog->variants[i]], &all[prog->what.variant]));
        for (int q = p + 1; q < nprograms; ++q)
            assert_false(programs[q].what.arch == prog->what.arch &&
                         cover_same_program(&all[programs[q].what.variant], &all[prog->what.variant]));
    }
    assert_int_equal(members, n);
    for (int i = 0; i < n; ++i) {
        int found = 0;
        for (int p = 0; p < nprograms; ++p)
            for (int k = 0; k < programs[p].nvariants && programs[p].what.arch == list[i].arch; ++k)
                found += programs[p].variants[k] == list[i].variant;
        assert_int_equal(found, 1);
    }
}

static void test_one_compile_per_program(void **state)
{
    (void)state;
    cover_compile *list;
    cover_program *programs;
    for (int full = 0; full <= 1; ++full) {
        int n = cover_compiles(variants, nvariants, full, &list),
            nprograms = cover_programs(variants, list, n, &programs);
        print_message("%s: %d compiles of variants, %d programs\n", full ? "full list" : "covering set", n, nprograms);
        check_programs(variants, list, n, programs, nprograms);
        /* the kernels of ns.cl, fv_surface.cl, heat2d.cl and stream.cl share programs */
        assert_true(nprograms < n);
        cover_programs_free(programs, nprograms);
        free(list);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_made_up_space_is_covered_by_few),
        cmocka_unit_test(test_sizes_are_not_paired),
        cmocka_unit_test(test_rule_reads_the_declared_roles),
        cmocka_unit_test(test_every_kernel_is_covered),
        cmocka_unit_test(test_compile_lists),
        cmocka_unit_test(test_one_compile_per_program),
    };
    return cmocka_run_group_tests(tests, load_variants, free_variants);
}
