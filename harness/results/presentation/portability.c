/* portability.c - the performance-portability metric over a report's
 * platforms (portability.h). */
#include "portability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../records/quality.h"

#define FLOWBENCH_ROW "flowbench (best own kernel)"

static void platform_of(const fb_record *r, char *buf, size_t len)
{
    const json_t *d = fb_record_device(r);
    const char *cpu = r->header ? fb_json_str(r->header, "host.cpu") : "";
    if (fb_device_is_host_cpu(fb_json_str(r->json, "backend"), d) && *cpu)
        snprintf(buf, len, "%s", cpu);
    else if (d && *fb_json_str(d, "name"))
        snprintf(buf, len, "%s", fb_json_str(d, "name"));
    else
        snprintf(buf, len, "%s", fb_json_str(r->json, "device"));
}

static int wanted(const fb_record *r)
{
    return fb_record_usable(r) && strcmp(fb_json_str(r->json, "benchmark"), "stream") &&
           !fb_quality_flagged(fb_json_quality(r->json, NULL)) && fb_record_problem(r->json);
}

/* The problem's identity: its hash (else its source or spec). */
static const char *problem_id(const fb_record *r)
{
    const json_t *m = fb_record_problem(r->json);
    const char *id = json_is_string(m) ? json_string_value(m) : fb_json_str(m, "hash");
    return *id ? id : fb_json_str(m, "source");
}

static fb_pp_problem *problem_of(fb_pp_problem **ps, int *n, const fb_record *r, char ids[][128])
{
    const char *bench = fb_json_str(r->json, "benchmark"), *prec = fb_json_str(r->json, "precision");
    for (int i = 0; i < *n; ++i)
        if (!strcmp(ids[i], problem_id(r)) && !strcmp((*ps)[i].benchmark, bench) && !strcmp((*ps)[i].precision, prec))
            return &(*ps)[i];
    fb_pp_problem *p = &(*ps)[(*n)++];
    memset(p, 0, sizeof *p);
    snprintf(ids[*n - 1], 128, "%s", problem_id(r));
    snprintf(p->benchmark, sizeof p->benchmark, "%s", bench);
    snprintf(p->precision, sizeof p->precision, "%s", prec);
    snprintf(p->problem, sizeof p->problem, "%s", fb_record_matrix(r));
    return p;
}

static int platform_slot(fb_pp_problem *p, const char *name)
{
    for (int i = 0; i < p->nplatforms; ++i)
        if (!strcmp(p->platforms[i], name)) return i;
    if (p->nplatforms == FB_PP_MAX_PLATFORMS) return -1;
    snprintf(p->platforms[p->nplatforms], sizeof p->platforms[0], "%s", name);
    return p->nplatforms++;
}

static fb_pp_kernel *kernel_slot(fb_pp_problem *p, const char *name)
{
    for (int i = 0; i < p->nkernels; ++i)
        if (!strcmp(p->kernels[i].name, name)) return &p->kernels[i];
    if (p->nkernels == FB_PP_MAX_KERNELS) return NULL;
    fb_pp_kernel *k = &p->kernels[p->nkernels++];
    snprintf(k->name, sizeof k->name, "%s", name);
    for (int i = 0; i < FB_PP_MAX_PLATFORMS; ++i)
        k->arch[i] = k->app[i] = NAN;
    return k;
}

/* Keeps the kernel's best time on the platform (app, for now in seconds)
 * and the fraction of the triad of that fastest record. */
static void take(const fb_results_set *set, fb_pp_problem *p, const fb_record *r)
{
    char platform[128];
    platform_of(r, platform, sizeof platform);
    const int j = platform_slot(p, platform);
    fb_pp_kernel *k = kernel_slot(p, fb_json_str(r->json, "kernel"));
    const double t = fb_record_median(r);
    if (j < 0 || !k || !(isnan(k->app[j]) || t < k->app[j])) return;
    k->app[j] = t;
    k->arch[j] = fb_record_fraction(set, r);
}

double fb_pp_score(const double *e, int n)
{
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        if (isnan(e[i])) return NAN;
        if (!(e[i] > 0)) return 0;
        sum += 1.0 / e[i];
    }
    return n > 0 ? n / sum : NAN;
}

/* The best own kernel on each platform (no peer library). */
static void add_flowbench_row(fb_pp_problem *p)
{
    const int n = p->nkernels;
    fb_pp_kernel *row = kernel_slot(p, FLOWBENCH_ROW);
    for (int j = 0; row && j < p->nplatforms; ++j)
        for (int i = 0; i < n; ++i)
            if (strncmp(p->kernels[i].name, "peer:", 5) && !isnan(p->kernels[i].app[j]) &&
                (isnan(row->app[j]) || p->kernels[i].app[j] < row->app[j]))
                row->app[j] = p->kernels[i].app[j], row->arch[j] = p->kernels[i].arch[j];
}

/* Times into application efficiencies, then the scores: a platform that
 * did not run the kernel counts 0; a triad unknown there leaves the
 * architectural score unknown. */
static void score(fb_pp_problem *p)
{
    for (int j = 0; j < p->nplatforms; ++j) {
        double best = INFINITY;
        for (int i = 0; i < p->nkernels; ++i)
            if (p->kernels[i].app[j] < best) best = p->kernels[i].app[j];
        for (int i = 0; i < p->nkernels; ++i)
            p->kernels[i].app[j] = best / p->kernels[i].app[j]; /* NAN stays NAN: not run there */
    }
    for (int i = 0; i < p->nkernels; ++i) {
        fb_pp_kernel *k = &p->kernels[i];
        double app[FB_PP_MAX_PLATFORMS], arch[FB_PP_MAX_PLATFORMS];
        for (int j = 0; j < p->nplatforms; ++j)
            app[j] = isnan(k->app[j]) ? 0 : k->app[j], arch[j] = isnan(k->app[j]) ? 0 : k->arch[j];
        k->pp_app = fb_pp_score(app, p->nplatforms);
        k->pp_arch = fb_pp_score(arch, p->nplatforms);
    }
}

static int by_score(const void *a, const void *b)
{
    const fb_pp_kernel *x = a, *y = b;
    if (x->pp_app != y->pp_app) return x->pp_app < y->pp_app ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Only problems seen on two platforms or more are kept (one platform has
 * no portability to speak of). */
static int keep_portable(fb_pp_problem *ps, int n)
{
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        if (ps[i].nplatforms < 2) continue;
        add_flowbench_row(&ps[i]);
        score(&ps[i]);
        qsort(ps[i].kernels, (size_t)ps[i].nkernels, sizeof ps[i].kernels[0], by_score);
        if (kept != i) ps[kept] = ps[i];
        ++kept;
    }
    return kept;
}

fb_status fb_portability(const fb_results_set *set, fb_pp_problem **out, int *n)
{
    fb_status status = FB_OK;
    fb_pp_problem *ps = NULL;
    char(*ids)[128] = NULL;
    *out = NULL, *n = 0;
    if (!set->nlatest) return FB_OK;
    FB_ALLOC(ps, set->nlatest, "the portability problems");
    FB_ALLOC(ids, set->nlatest, "the portability problems");
    for (int i = 0; i < set->nlatest; ++i) {
        const fb_record *r = &set->records[set->latest[i]];
        if (wanted(r)) take(set, problem_of(&ps, n, r, ids), r);
    }
    *n = keep_portable(ps, *n);
    *out = ps, ps = NULL;
fail:
    free(ps);
    free(ids);
    return status;
}

static void efficiency_cell(double e, FILE *out)
{
    if (isnan(e))
        fprintf(out, " - |");
    else
        fprintf(out, " %.2f |", e);
}

static void write_problem(const fb_pp_problem *p, FILE *out)
{
    fprintf(out, "\n### %s %s, %s: %d platforms\n\n| kernel |", p->benchmark, p->problem, p->precision, p->nplatforms);
    for (int j = 0; j < p->nplatforms; ++j)
        fprintf(out, " %c: arch | %c: app |", 'A' + j, 'A' + j);
    fprintf(out, " PP arch | PP app |\n|---|");
    for (int j = 0; j < 2 * p->nplatforms + 2; ++j)
        fprintf(out, "---:|");
    fputc('\n', out);
    for (int i = 0; i < p->nkernels; ++i) {
        const fb_pp_kernel *k = &p->kernels[i];
        fprintf(out, "| %s%s%s |", strcmp(k->name, FLOWBENCH_ROW) ? "" : "**", k->name,
                strcmp(k->name, FLOWBENCH_ROW) ? "" : "**");
        for (int j = 0; j < p->nplatforms; ++j)
            efficiency_cell(k->arch[j], out), efficiency_cell(k->app[j], out);
        efficiency_cell(k->pp_arch, out);
        efficiency_cell(k->pp_app, out);
        fputc('\n', out);
    }
    fputc('\n', out);
    for (int j = 0; j < p->nplatforms; ++j)
        fprintf(out, "%s%c: %s", j ? "; " : "Platforms: ", 'A' + j, p->platforms[j]);
    fprintf(out, ".\n");
}

fb_status fb_report_portability(const fb_results_set *set, FILE *out)
{
    fb_status status = FB_OK;
    fb_pp_problem *ps = NULL;
    int n = 0;
    FB_CHECK(fb_portability(set, &ps, &n));
    if (!n) goto fail;
    fprintf(out, "\n## Performance portability\n\n"
                 "Pennycook's score per problem: the harmonic mean of a kernel's efficiency over every platform "
                 "that ran the problem, 0 where one of them did not run the kernel (`-`). Architectural "
                 "efficiency (arch): its best GB/s over that platform's stream triad; application (app): the "
                 "best time of any kernel or peer there over its best time. A platform is one piece of hardware "
                 "(CUDA and OpenCL on one GPU, OpenMP and PoCL on one CPU model); stable records only. "
                 "**flowbench** is the best of its own kernels on each platform.\n");
    for (int i = 0; i < n; ++i)
        write_problem(&ps[i], out);
fail:
    free(ps);
    return status;
}
