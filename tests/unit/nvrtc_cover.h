/* nvrtc_cover.h - which device programs the NVRTC compile test builds by
 * default: a covering set of the full list (every variant the families
 * enumerate, families.h, for every architecture), chosen per kernel.
 *
 * A kernel is one function of one source (spmv/csr_vector.cl's
 * spmv_csr_vector). Its axes are the architecture and the defines its
 * variants set (REAL, its parameters, BCSR's BLOCK_SIZE, ...), each with the
 * values the full list gives it. The set holds, for every kernel:
 *  - its default point (the program with the source's own #ifndef defaults,
 *    which test_kernel_defaults holds equal to the table's; or the nearest
 *    the list has) on every architecture: what a GPU run builds first;
 *  - every value of every axis at least once;
 *  - every pair of values of two axes that change code paths, as far as the
 *    full list holds that pair (a constraint may rule it out).
 * Which axes change code paths is decided from the parameter space the
 * kernel declares (cover_axis_changes_code, below). The full list is the
 * nightly test (label nightly: tests/CMakeLists.txt, docs/kernels.md).
 *
 * Greedy: after the default point, the variant that covers the most values
 * and pairs not yet covered, until none is left. The compiles chosen are
 * then grouped into programs (cover_programs, at the end): kernels of one
 * source at the same defines are one NVRTC compile. Both includers are
 * cmocka tests: a list that cannot be read this way fails the test naming
 * it. */
#ifndef NVRTC_COVER_H
#define NVRTC_COVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel_sources.h"
#include "families.h"

#define COVER_MAX_AXES (1 + FB_VARIANT_MAX_DEFINES) /* the architecture, then the defines */
#define COVER_MAX_VALUES 32
#define COVER_VALUE_LEN 32
#define COVER_ARCH_AXIS "ARCH"

/* The architectures every program is compiled for. */
static const int cover_archs[][2] = {{8, 0}, {9, 0}};
#define COVER_NARCHS ((int)(sizeof cover_archs / sizeof cover_archs[0]))

/* One compile: a variant (its number, fb_variant_get) for one
 * architecture (an index into cover_archs). */
typedef struct cover_compile {
    int variant, arch;
} cover_compile;

typedef struct cover_candidate {
    cover_compile what;
    unsigned char at[COVER_MAX_AXES]; /* the index of its value on each axis */
} cover_candidate;

/* One kernel's share of the full list. */
typedef struct cover_space {
    const char *source, *kernel;
    int naxes;
    const char *axis[COVER_MAX_AXES];
    int paired[COVER_MAX_AXES]; /* 1: changes code paths; its pairs are covered */
    int nvalues[COVER_MAX_AXES];
    char value[COVER_MAX_AXES][COVER_MAX_VALUES][COVER_VALUE_LEN];
    char def[COVER_MAX_AXES][COVER_VALUE_LEN]; /* the default point ("" for the architecture: all) */
    int ncand, cap;
    cover_candidate *cand;
} cover_space;

/* ---- which axes change code paths ---- */

/* The rule, from what a kernel's parameter space declares (params.h):
 *  - a work-group size or shape (FB_ROLE_GROUP_SIZE, _GROUP_SIZE_BITS,
 *    _GROUP_X, _GROUP_Y) and an occupancy reserve (FB_ROLE_OCCUPANCY) are
 *    sizes: they reach the code as __launch_bounds__ and as the length of a
 *    local array, not as a branch, so each of their values once suffices
 *    (fv-surface's `#if LOCAL_RESERVE > 0` only adds the reserved array: its
 *    two sides are two values, both compiled);
 *  - every other declared role (team, work per item, layout and its block,
 *    array order, other) selects code: `#if LAYOUT == 0`, `#if
 *    THREADS_PER_ROW > 1`, `#if defined(__CUDACC__) && VECTOR_SIZE <= 32`,
 *    loops unrolled by the value, so its pairs with the others are compiled;
 *  - a define no axis declares (REAL, BCSR's BLOCK_SIZE, heat2d's
 *    GROUP_ITEMS) and the architecture are paired too: the precision picks
 *    the atomics and the fp64 paths, the block size unrolls every loop, and
 *    a code generator may differ by architecture on any of them. */
static int cover_role_changes_code(fb_axis_role role)
{
    switch (role) {
    case FB_ROLE_GROUP_SIZE:
    case FB_ROLE_GROUP_SIZE_BITS:
    case FB_ROLE_GROUP_X:
    case FB_ROLE_GROUP_Y:
    case FB_ROLE_OCCUPANCY: return 0;
    default: return 1;
    }
}

/* The axis named `define` of the registered kernel built from `source`, or
 * NULL when no kernel declares one (the kernels of a source share its axes). */
static const fb_param_axis *cover_declared_axis(const char *source, const char *define)
{
    for (int f = 0; f < fb_family_count(); ++f) {
        const fb_family *fam = fb_family_at(f);
        for (int k = 0; k < fam->kernel_count(); ++k) {
            const fb_family_kernel *fk = fam->kernel(k);
            if (!fk->source || strcmp(fk->source, source) != 0) continue;
            for (int a = 0; a < fk->nparams; ++a)
                if (strcmp(fk->params[a].name, define) == 0) return &fk->params[a];
        }
    }
    return NULL;
}

static int cover_axis_changes_code(const char *source, const char *define)
{
    const fb_param_axis *ax = cover_declared_axis(source, define);
    return ax ? cover_role_changes_code(ax->role) : 1;
}

/* ---- the default point: the source's #ifndef defaults ---- */

/* The VALUE of "#ifndef NAME" followed by "#define NAME VALUE" in text, into
 * out ("" when there is none). */
static void cover_text_default(const char *text, const char *name, char *out, size_t len)
{
    char want[96];
    snprintf(want, sizeof want, "#ifndef %s\n#define %s ", name, name);
    const char *at = strstr(text, want);
    out[0] = '\0';
    if (!at) return;
    at += strlen(want);
    size_t n = strcspn(at, " \t\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), at);
}

/* ---- building the spaces ---- */

static int cover_value_index(cover_space *s, int axis, const char *value)
{
    for (int i = 0; i < s->nvalues[axis]; ++i)
        if (strcmp(s->value[axis][i], value) == 0) return i;
    if (s->nvalues[axis] == COVER_MAX_VALUES)
        fail_msg("%s: axis %s has over %d values", s->kernel, s->axis[axis], COVER_MAX_VALUES);
    snprintf(s->value[axis][s->nvalues[axis]], COVER_VALUE_LEN, "%s", value);
    return s->nvalues[axis]++;
}

/* A new space for v's kernel: the architecture, then v's defines as axes. */
static void cover_space_init(cover_space *s, const fb_variant *v)
{
    memset(s, 0, sizeof *s);
    s->source = v->spec.source_name;
    s->kernel = v->spec.kernel_name;
    s->naxes = 1 + v->spec.ndefines;
    s->axis[0] = COVER_ARCH_AXIS;
    s->paired[0] = 1;
    char *text = NULL;
    if (fb_kernel_program_text(NULL, v->spec.source_name, v->spec.source_text, &text) != FB_OK)
        fail_msg("%s: %s", v->label, fb_error_message());
    for (int d = 0; d < v->spec.ndefines; ++d) {
        s->axis[1 + d] = v->defines[d].name;
        s->paired[1 + d] = cover_axis_changes_code(s->source, v->defines[d].name);
        cover_text_default(text, v->defines[d].name, s->def[1 + d], COVER_VALUE_LEN);
    }
    free(text);
}

static void cover_space_add(cover_space *s, const fb_variant *v, int variant)
{
    if (v->spec.ndefines != s->naxes - 1) fail_msg("%s: not the defines of the kernel's other variants", v->label);
    for (int arch = 0; arch < COVER_NARCHS; ++arch) {
        if (s->ncand == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->cand = realloc(s->cand, (size_t)s->cap * sizeof *s->cand);
            assert_non_null(s->cand);
        }
        cover_candidate *c = &s->cand[s->ncand++];
        char name[COVER_VALUE_LEN];
        snprintf(name, sizeof name, "sm_%d%d", cover_archs[arch][0], cover_archs[arch][1]);
        c->what = (cover_compile){variant, arch};
        c->at[0] = (unsigned char)cover_value_index(s, 0, name);
        for (int d = 0; d < v->spec.ndefines; ++d) {
            if (strcmp(v->defines[d].name, s->axis[1 + d]) != 0)
                fail_msg("%s: define %d is %s, the kernel's others have %s", v->label, d, v->defines[d].name,
                         s->axis[1 + d]);
            c->at[1 + d] = (unsigned char)cover_value_index(s, 1 + d, v->defines[d].value);
        }
    }
}

/* Every variant of the registry into *all (malloc'd, each filled in place,
 * so its spec points into itself); returns how many. The registry hands
 * out one variant per call, by number (each call enumerates afresh): read
 * them once. */
static int cover_variants_load(fb_variant **all)
{
    int n = fb_variant_count();
    *all = malloc((size_t)n * sizeof **all);
    assert_non_null(*all);
    for (int i = 0; i < n; ++i)
        assert_int_equal(fb_variant_get(i, &(*all)[i]), FB_OK);
    return n;
}

/* The n variants of all, grouped by kernel into *spaces (malloc'd, free
 * with cover_spaces_free); returns how many kernels. */
static int cover_spaces_build(const fb_variant *all, int n, cover_space **spaces)
{
    int nspaces = 0, cap = 0;
    *spaces = NULL;
    for (int i = 0; i < n; ++i) {
        const fb_variant *v = &all[i];
        int s = 0;
        while (s < nspaces && !(strcmp((*spaces)[s].source, v->spec.source_name) == 0 &&
                                strcmp((*spaces)[s].kernel, v->spec.kernel_name) == 0))
            ++s;
        if (s == nspaces) {
            if (nspaces == cap) {
                cap = cap ? 2 * cap : 32;
                *spaces = realloc(*spaces, (size_t)cap * sizeof **spaces);
                assert_non_null(*spaces);
            }
            cover_space_init(&(*spaces)[nspaces++], v);
        }
        cover_space_add(&(*spaces)[s], v, i);
    }
    return nspaces;
}

static void cover_spaces_free(cover_space *spaces, int n)
{
    for (int s = 0; s < n; ++s)
        free(spaces[s].cand);
    free(spaces);
}

/* ---- choosing the set ---- */

/* What the chosen candidates cover so far. */
typedef struct cover_marks {
    unsigned char single[COVER_MAX_AXES][COVER_MAX_VALUES];
    unsigned char pair[COVER_MAX_AXES][COVER_MAX_AXES][COVER_MAX_VALUES][COVER_MAX_VALUES];
} cover_marks;

/* How many values and pairs c would add to m; with take, adds them. */
static int cover_visit(const cover_space *s, const cover_candidate *c, cover_marks *m, int take)
{
    int gain = 0;
    for (int a = 0; a < s->naxes; ++a) {
        unsigned char *one = &m->single[a][c->at[a]];
        gain += !*one;
        if (take) *one = 1;
        for (int b = a + 1; b < s->naxes && s->paired[a]; ++b) {
            if (!s->paired[b]) continue;
            unsigned char *two = &m->pair[a][b][c->at[a]][c->at[b]];
            gain += !*two;
            if (take) *two = 1;
        }
    }
    return gain;
}

/* How many of c's defines are at their source default. The default point
 * has them all; where the family lists one stand-in for values a kernel
 * ignores (fv_zero reads no cell: AoS stands for every layout), the
 * nearest variant has the most. */
static int cover_default_score(const cover_space *s, const cover_candidate *c)
{
    int score = 0;
    for (int a = 1; a < s->naxes; ++a)
        score += strcmp(s->value[a][c->at[a]], s->def[a]) == 0;
    return score;
}

/* The score of the kernel's default point, or of the nearest the list has. */
static int cover_default_best(const cover_space *s)
{
    int best = 0;
    for (int c = 0; c < s->ncand; ++c) {
        int score = cover_default_score(s, &s->cand[c]);
        best = score > best ? score : best;
    }
    return best;
}

/* chosen[c] = 1 for the candidates of s in its covering set; returns how many. */
static int cover_select(const cover_space *s, unsigned char *chosen)
{
    cover_marks *m = calloc(1, sizeof *m);
    assert_non_null(m);
    int n = 0;
    const int best_default = cover_default_best(s);
    memset(chosen, 0, (size_t)s->ncand);
    for (int c = 0; c < s->ncand; ++c)
        if (cover_default_score(s, &s->cand[c]) == best_default) {
            chosen[c] = 1, ++n;
            cover_visit(s, &s->cand[c], m, 1);
        }
    for (;;) {
        int best = -1, best_gain = 0;
        for (int c = 0; c < s->ncand; ++c) {
            int gain = chosen[c] ? 0 : cover_visit(s, &s->cand[c], m, 0);
            if (gain > best_gain) best = c, best_gain = gain;
        }
        if (best < 0) break;
        chosen[best] = 1, ++n;
        cover_visit(s, &s->cand[best], m, 1);
    }
    free(m);
    return n;
}

static int cover_compile_order(const void *a, const void *b)
{
    const cover_compile *x = a, *y = b;
    return x->variant != y->variant ? (x->variant > y->variant) - (x->variant < y->variant) : x->arch - y->arch;
}

/* The compiles of the covering set of every kernel of the n variants of
 * all (full 0) or of all of them (full 1), in variant order, into *out
 * (malloc'd); returns how many. */
static int cover_compiles(const fb_variant *all, int n, int full, cover_compile **out)
{
    cover_space *spaces;
    int nspaces = cover_spaces_build(all, n, &spaces), count = 0, cap = 0;
    *out = NULL;
    for (int s = 0; s < nspaces; ++s) {
        unsigned char *chosen = malloc((size_t)spaces[s].ncand);
        assert_non_null(chosen);
        if (full)
            memset(chosen, 1, (size_t)spaces[s].ncand);
        else
            cover_select(&spaces[s], chosen);
        for (int c = 0; c < spaces[s].ncand; ++c) {
            if (!chosen[c]) continue;
            if (count == cap) {
                cap = cap ? 2 * cap : 256;
                *out = realloc(*out, (size_t)cap * sizeof **out);
                assert_non_null(*out);
            }
            (*out)[count++] = spaces[s].cand[c].what;
        }
        free(chosen);
    }
    cover_spaces_free(spaces, nspaces);
    qsort(*out, (size_t)count, sizeof **out, cover_compile_order);
    return count;
}

/* ---- one compile per program ---- */

/* What NVRTC compiles: a source, its defines and an architecture. The
 * kernel's name only picks a symbol out of the image (fb_cuda_compile
 * names it in errors alone), so the kernels of one source at the same
 * defines (ns.cl's 28 at a point, fv_surface.cl's 5) are one compile,
 * whose image must hold each of their symbols. */
typedef struct cover_program {
    cover_compile what; /* the first of its compiles: the source, defines and architecture compiled */
    int nvariants;
    int *variants; /* every variant it stands for, whose kernel the image must name */
} cover_program;

static int cover_same_program(const fb_variant *a, const fb_variant *b)
{
    if (strcmp(a->spec.source_name, b->spec.source_name) != 0 || a->spec.ndefines != b->spec.ndefines) return 0;
    for (int d = 0; d < a->spec.ndefines; ++d)
        if (strcmp(a->defines[d].name, b->defines[d].name) != 0 ||
            strcmp(a->defines[d].value, b->defines[d].value) != 0)
            return 0;
    return 1;
}

/* The n compiles of list as programs, in the order of their first compile,
 * into *out (malloc'd, free with cover_programs_free); returns how many. */
static int cover_programs(const fb_variant *all, const cover_compile *list, int n, cover_program **out)
{
    int count = 0;
    *out = calloc((size_t)(n > 0 ? n : 1), sizeof **out);
    assert_non_null(*out);
    for (int i = 0; i < n; ++i) {
        int p = 0;
        while (p < count && !((*out)[p].what.arch == list[i].arch &&
                              cover_same_program(&all[(*out)[p].what.variant], &all[list[i].variant])))
            ++p;
        cover_program *prog = &(*out)[p];
        if (p == count) prog->what = list[i], ++count;
        prog->variants = realloc(prog->variants, (size_t)(prog->nvariants + 1) * sizeof *prog->variants);
        assert_non_null(prog->variants);
        prog->variants[prog->nvariants++] = list[i].variant;
    }
    return count;
}

static void cover_programs_free(cover_program *programs, int n)
{
    for (int p = 0; p < n; ++p)
        free(programs[p].variants);
    free(programs);
}

#endif
