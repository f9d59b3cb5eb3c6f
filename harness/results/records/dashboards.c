/* dashboards.c - Bencher's BMF and github-action-benchmark's custom JSON
 * (dashboards.h). */
#include "dashboards.h"

#include <math.h>
#include <string.h>

#include "quality.h"
#include "../../core/hash.h"

#define BENCHER_NAME_MAX 1024 /* Bencher's longest benchmark name */

/* The records a dashboard gets: each configuration's latest, measured and
 * checked (status ok, samples), and stable. */
static int wanted(const fb_record *r, int *left_out)
{
    if (!fb_record_usable(r) || strcmp(fb_json_str(r->json, "type"), "measurement")) return 0;
    if (fb_quality_flagged(fb_json_quality(r->json, NULL))) {
        ++*left_out;
        return 0;
    }
    return 1;
}

/* A configuration's name a person reads on a dashboard: what, where, on
 * what and how ("spmv csr-scalar opencl:0.0 double cube12 WG_SIZE=128
 * quick/csr"); two configurations that read alike (their keys differ in
 * what the name leaves out) are told apart by the key's hash, as is a name
 * longer than Bencher takes. */
static void bench_name(const fb_record *r, const json_t *taken, char *buf, size_t len)
{
    char params[512];
    const char *suite = fb_json_str(r->json, "suite"), *kase = fb_json_str(r->json, "case");
    fb_params_text(json_object_get(r->json, "params"), params, sizeof params);
    snprintf(buf, len, "%s %s %s %s %s%s%s%s%s%s%s%s", fb_json_str(r->json, "benchmark"),
             fb_json_str(r->json, "kernel"), fb_json_str(r->json, "device"), fb_json_str(r->json, "precision"),
             fb_record_matrix(r), *params ? " " : "", params, *suite ? " " : "", suite, *kase ? "/" : "", kase,
             json_is_true(json_object_get(r->json, "cold")) ? " cold" : "");
    if (strlen(buf) < BENCHER_NAME_MAX - 20 && !json_object_get(taken, buf)) return;
    size_t n = strlen(buf) < BENCHER_NAME_MAX - 20 ? strlen(buf) : BENCHER_NAME_MAX - 20;
    snprintf(buf + n, len - n, " #%016llx", (unsigned long long)fb_hash_str(FB_HASH_SEED, r->key));
}

/* The median's 95% interval half-width, seconds (0 when not recorded). */
static double half_width(const fb_record *r)
{
    const double spread = fb_json_num(r->json, "stats.median_spread");
    return isfinite(spread) && spread > 0 ? spread * fb_record_median(r) : 0.0;
}

static int add_measure(json_t *bench, const char *slug, double value, double lo, double hi)
{
    if (!isfinite(value)) return 0;
    json_t *m = json_pack("{s:f}", "value", value);
    if (m && isfinite(lo) && isfinite(hi) && lo < hi)
        json_object_set_new(m, "lower_value", json_real(lo)), json_object_set_new(m, "upper_value", json_real(hi));
    return json_object_set_new(bench, slug, m);
}

/* GB/s and GFLOP/s at the interval's ends: the rate at the slowest time
 * is the lower bound. */
static json_t *bmf_benchmark(const fb_results_set *set, const fb_record *r)
{
    const double t = fb_record_median(r), h = half_width(r), lo_t = t - h > 0 ? t - h : t, hi_t = t + h;
    const double gbs = fb_json_num(r->json, "gbs"), gflops = fb_json_num(r->json, "gflops");
    json_t *b = json_object();
    int bad = !b;
    bad |= add_measure(b, "latency", 1e9 * t, 1e9 * lo_t, 1e9 * hi_t);
    bad |= add_measure(b, "gb-per-s", gbs, gbs * t / hi_t, gbs * t / lo_t);
    bad |= add_measure(b, "gflop-per-s", gflops, gflops * t / hi_t, gflops * t / lo_t);
    bad |= add_measure(b, "fraction-of-triad", fb_record_fraction(set, r), NAN, NAN);
    bad |= add_measure(b, "joules-per-run", fb_json_num(r->json, "energy.joules_per_run"), NAN, NAN);
    if (!bad) return b;
    json_decref(b);
    return NULL;
}

static fb_status dump(json_t *doc, FILE *out)
{
    if (json_dumpf(doc, out, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) != 0 || fputc('\n', out) == EOF)
        return fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "writing the export failed");
    return FB_OK;
}

fb_status fb_export_bmf(const fb_results_set *set, FILE *out, int *left_out)
{
    fb_status status = FB_OK;
    json_t *doc = json_object();
    char name[BENCHER_NAME_MAX + 32];
    *left_out = 0;
    if (!doc) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the BMF export");
    for (int i = 0; i < set->nlatest; ++i) {
        const fb_record *r = &set->records[set->latest[i]];
        if (!wanted(r, left_out)) continue;
        json_t *b = bmf_benchmark(set, r);
        bench_name(r, doc, name, sizeof name);
        if (!b || json_object_set_new(doc, name, b)) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the export");
    }
    FB_CHECK(dump(doc, out));
fail:
    json_decref(doc);
    return status;
}

/* What the entry's one number does not say: the other figures, where and
 * how it was measured. */
static void extra_text(const fb_results_set *set, const fb_record *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.4g GB/s, %.4g GFLOP/s, %.3g of the triad; %s on %s, %d samples", fb_json_num(r->json, "gbs"),
             fb_json_num(r->json, "gflops"), fb_record_fraction(set, r), fb_json_str(r->json, "precision"),
             fb_json_str(r->json, "device"), r->nsamples);
}

static json_t *github_entry(const fb_results_set *set, const fb_record *r, fb_github_measure measure, json_t *taken)
{
    char name[BENCHER_NAME_MAX + 32], range[64], extra[400];
    const double t = fb_record_median(r), h = half_width(r), gbs = fb_json_num(r->json, "gbs");
    double value = 1e3 * t, plus_minus = 1e3 * h;
    if (measure == FB_GITHUB_GBS) {
        if (!isfinite(gbs) || gbs <= 0) return json_null(); /* no byte model: no GB/s to plot */
        value = gbs, plus_minus = gbs * h / t;
    }
    bench_name(r, taken, name, sizeof name);
    json_object_set_new(taken, name, json_true());
    snprintf(range, sizeof range, "± %.3g", plus_minus);
    extra_text(set, r, extra, sizeof extra);
    return json_pack("{s:s, s:s, s:f, s:s, s:s}", "name", name, "unit", measure == FB_GITHUB_GBS ? "GB/s" : "ms",
                     "value", value, "range", range, "extra", extra);
}

fb_status fb_export_github_benchmark(const fb_results_set *set, fb_github_measure measure, FILE *out, int *left_out)
{
    fb_status status = FB_OK;
    json_t *doc = json_array(), *taken = json_object();
    *left_out = 0;
    if (!doc || !taken) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the export");
    for (int i = 0; i < set->nlatest; ++i) {
        const fb_record *r = &set->records[set->latest[i]];
        if (!wanted(r, left_out)) continue;
        json_t *e = github_entry(set, r, measure, taken);
        if (!e) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the export");
        if (json_is_null(e)) continue;
        json_array_append_new(doc, e);
    }
    FB_CHECK(dump(doc, out));
fail:
    json_decref(doc);
    json_decref(taken);
    return status;
}
