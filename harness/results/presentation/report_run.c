/* report_run.c - the report's sections over a whole run (report_run.h). */
#include "report_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../records/export.h"
#include "../records/quality.h"
#include "speedup.h"
#include "../../core/json_index.h"

static const char *str(const json_t *o, const char *path) { return fb_json_str(o, path); }

void fb_md_cell(FILE *out, const char *text)
{
    fputs("| ", out);
    fb_md_text(out, text);
    fputc(' ', out);
}

void fb_md_row(FILE *out, const char *const *cells, int n)
{
    for (int c = 0; c < n; ++c)
        fb_md_cell(out, cells[c]);
    fputs("|\n", out);
}

void fb_md_number(double x, const char *fmt, char *buf, size_t len)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, x);
}

/* The record's verdict as a table cell: "stable", or "unstable: WHY" /
 * "contended: WHY". The reason's first clause is enough in a table ("CV
 * 45%"); the list of unstable or contended measurements has it whole. */
static void md_quality(const json_t *rec, char *buf, size_t len)
{
    const char *why = "";
    const fb_quality q = fb_json_quality(rec, &why);
    if (!fb_quality_flagged(q))
        snprintf(buf, len, "stable");
    else
        snprintf(buf, len, "%s: %.*s", fb_quality_name(q), (int)strcspn(why, ":,"), why);
}

static int is_solve(const fb_record *r) { return !strcmp(str(r->json, "benchmark"), "solve"); }

static int latest_usable(const fb_record *r) { return !r->superseded && fb_record_usable(r); }

/* ---- files and triads ------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The commands of the runs with records in file f ("stream", "spmv x12"). */
static void file_commands(const fb_results_set *set, int f, char *buf, size_t len)
{
    json_t *count = json_object(), *runs = json_object(), *v;
    const char *k;
    buf[0] = '\0';
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const char *run = str(r->json, "run_id"), *cmd = r->header ? str(r->header, "command") : "";
        if (r->file != f || json_object_get(runs, run)) continue;
        json_object_set_new(runs, run, json_true());
        json_object_set_new(count, *cmd ? cmd : "?", json_integer(json_integer_value(json_object_get(count, cmd)) + 1));
    }
    json_object_foreach(count, k, v)
    {
        const size_t used = strlen(buf);
        if (json_integer_value(v) > 1)
            snprintf(buf + used, len - used, "%s%s x%lld", used ? ", " : "", k, (long long)json_integer_value(v));
        else
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", k);
    }
    json_decref(count);
    json_decref(runs);
}

void fb_report_files(const fb_results_set *set, FILE *out)
{
    const int nfiles = set->nfiles ? set->nfiles : 1;
    char n[16], commands[512];
    fprintf(out, "\n## Files of this run\n\n| file | records | commands (runs) |\n|---|---:|---|\n");
    for (int f = 0; f < nfiles; ++f) {
        int records = 0;
        for (int i = 0; i < set->nrecords; ++i)
            records += set->records[i].file == f;
        snprintf(n, sizeof n, "%d", records);
        file_commands(set, f, commands, sizeof commands);
        const char *cells[] = {set->nfiles ? base_name(set->files[f]) : base_name(set->path), n, commands};
        fb_md_row(out, cells, 3);
    }
}

/* The record of kernel `kernel` measured with the triad (same run, device,
 * precision and array length), or NULL. */
static const fb_record *stream_sibling(const fb_results_set *set, const fb_record *triad, const char *kernel)
{
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!fb_record_usable(r) || strcmp(str(r->json, "benchmark"), "stream") != 0 ||
            strcmp(str(r->json, "kernel"), kernel) != 0)
            continue;
        if (!strcmp(str(r->json, "run_id"), str(triad->json, "run_id")) &&
            !strcmp(str(r->json, "device"), str(triad->json, "device")) &&
            !strcmp(str(r->json, "precision"), str(triad->json, "precision")) &&
            fb_json_num(r->json, "params.n") == fb_json_num(triad->json, "params.n"))
            return r;
    }
    return NULL;
}

static void write_stream_kernels(const fb_results_set *set, const fb_triads *triads, FILE *out)
{
    static const char *const kernels[] = {"copy", "mul", "add", "triad"};
    char v[4][48], q[256];
    int rows = 0;
    for (int i = 0; i < triads->n; ++i) {
        const fb_device_triad *t = &triads->t[i];
        if (!t->rec) continue;
        if (!rows++)
            fprintf(out,
                    "\n| device | copy | mul | add | triad | quality of the triad |\n|---|---:|---:|---:|---:|---|\n");
        for (int k = 0; k < 4; ++k) {
            const fb_record *r = stream_sibling(set, t->rec, kernels[k]);
            fb_md_number(r ? fb_json_num(r->json, "gbs") : NAN, "%.2f", v[k], sizeof v[k]);
        }
        md_quality(t->rec->json, q, sizeof q);
        const char *cells[] = {t->device, v[0], v[1], v[2], v[3], q};
        fb_md_row(out, cells, 6);
    }
}

void fb_report_triads(const fb_results_set *set, const fb_triads *triads, FILE *out)
{
    char gbs[32], others[160];
    fprintf(out, "\n## Devices and their stream triad\n\n");
    if (!triads->n) {
        fprintf(out, "No stream triad in this run: no fraction of the triad can be given (`flowbench stream`).\n");
        return;
    }
    fprintf(out, "Every fraction of the stream triad in this report divides by the one triad of its device "
                 "below: a run measures it several times (`stream`, each sweep, each `spmv`), and dividing "
                 "each record by its own made figures of one run disagree.\n\n"
                 "| device | name | triad GB/s | from | other triads in this run (not used) |\n"
                 "|---|---|---:|---|---|\n");
    for (int i = 0; i < triads->n; ++i) {
        const fb_device_triad *t = &triads->t[i];
        snprintf(gbs, sizeof gbs, "%.2f", t->gbs);
        if (t->others)
            snprintf(others, sizeof others, "%d: %.2f to %.2f GB/s", t->others, t->others_min, t->others_max);
        else
            snprintf(others, sizeof others, "none");
        const char *cells[] = {t->device, t->device_name, gbs, t->source, others};
        fb_md_row(out, cells, 5);
    }
    fprintf(out, "\n## Stream bandwidth (GB/s, median, of each device's triad measurement)\n");
    write_stream_kernels(set, triads, out);
}

/* ---- the solver ------------------------------------------------------------ */

/* "openmp:0 AMD EPYC" and " x P ranks" where there were several. */
static void solver_backend(const fb_record *r, char *buf, size_t len)
{
    const double ranks = fb_json_num(r->json, "mpi.ranks");
    snprintf(buf, len, "%s %s", str(r->json, "device"), str(r->json, "device_name"));
    if (ranks > 1) snprintf(buf + strlen(buf), len - strlen(buf), " x %.0f ranks", ranks);
}

static void solver_problem(const fb_record *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.64s|%.16s|%.250s", fb_record_host(r), str(r->json, "precision"), fb_record_matrix(r));
}

static int solver_record_better(const fb_record *a, const fb_record *b)
{
    const int fa = fb_quality_flagged(fb_json_quality(a->json, NULL));
    const int fb = fb_quality_flagged(fb_json_quality(b->json, NULL));
    if (fa != fb) return !fa;
    return fb_record_median(a) < fb_record_median(b);
}

/* Per problem (host, precision, mesh) and backend, the best record (stable
 * first, then the fastest step): best[problem][backend] = index; problems
 * and their backends in the order first seen. */
static fb_status solver_index(const fb_results_set *set, json_t *best)
{
    fb_status status = FB_OK;
    char problem[512], backend[256];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !is_solve(r)) continue;
        solver_problem(r, problem, sizeof problem);
        solver_backend(r, backend, sizeof backend);
        const char *key[] = {problem, backend};
        const long long k = fb_json_index_int(best, key, 2);
        if (k >= 0 && !solver_record_better(r, &set->records[k])) continue;
        FB_CHECK(fb_json_index_set(best, key, 2, json_integer(i)));
    }
fail:
    return status;
}

/* The problem's OpenMP baseline on one rank, or NULL. */
static const fb_record *solver_baseline(const fb_results_set *set, json_t *backends)
{
    const char *name;
    json_t *v;
    json_object_foreach(backends, name, v)
    {
        const fb_record *r = &set->records[json_integer_value(v)];
        if (fb_backend_is_baseline(str(r->json, "backend")) && !(fb_json_num(r->json, "mpi.ranks") > 1)) return r;
    }
    return NULL;
}

/* The speedup of r over base (NAN both ways without a base). Returns
 * whether there was one to compute. */
static int solver_speedup(const fb_record *base, const fb_record *r, fb_speedup_side *rs, fb_speedup *sp)
{
    fb_speedup_side bs;
    *sp = (fb_speedup){.per_step = NAN, .total = NAN, .trusted = 1};
    fb_speedup_side_of_record(r->json, rs);
    if (!base || !fb_speedup_side_of_record(base->json, &bs)) return 0;
    fb_speedup_of(&bs, rs, sp);
    return 1;
}

/* Under the table: why each backend's speedup is not to be trusted
 * (results/presentation/speedup.h words it as solve --compare does), and a throttled
 * side. */
static void write_solver_notes(const fb_results_set *set, const fb_record *base, json_t *backends, FILE *out)
{
    const char *name;
    json_t *v;
    int untrusted = 0, throttled = 0;
    json_object_foreach(backends, name, v)
    {
        const fb_record *r = &set->records[json_integer_value(v)];
        fb_speedup_side rs;
        fb_speedup sp;
        const int compared = solver_speedup(base, r, &rs, &sp);
        throttled |= sp.throttled;
        if (!compared || r == base || sp.trusted) continue;
        if (!untrusted++) fprintf(out, "\n%s: no speedup to trust:\n\n", FB_SPEEDUP_FLAG);
        fprintf(out, "- %s, %s: %s\n", fb_record_matrix(r), name, sp.why);
    }
    if (throttled) fprintf(out, "\n%s: a side ran throttled (its energy.throttle_why says how).\n", FB_THROTTLED_FLAG);
}

/* Tables 4 and 7: time and speedup over OpenMP, both definitions. */
static void write_solver_times(const fb_results_set *set, const fb_record *base, json_t *backends, FILE *out)
{
    const char *name;
    json_t *v;
    fprintf(out, "\n| backend | steps | step ms | run s | per step | total | quality |\n"
                 "|---|---:|---:|---:|---:|---:|---|\n");
    json_object_foreach(backends, name, v)
    {
        const fb_record *r = &set->records[json_integer_value(v)];
        fb_speedup_side rs;
        fb_speedup sp;
        char c[6][64], q[256];
        solver_speedup(base, r, &rs, &sp);
        fb_md_number(fb_json_num(r->json, "steps"), "%.0f", c[0], sizeof c[0]);
        fb_md_number(1e3 * rs.step_s, "%.4g", c[1], sizeof c[1]);
        fb_md_number(rs.total_s, "%.4g", c[2], sizeof c[2]);
        fb_speedup_text(sp.per_step, sp.trusted, sp.throttled, c[3], sizeof c[3]);
        fb_speedup_text(sp.total, sp.trusted, sp.throttled, c[4], sizeof c[4]);
        md_quality(r->json, q, sizeof q);
        const char *cells[] = {name, c[0], c[1], c[2], c[3], c[4], q};
        fb_md_row(out, cells, 7);
    }
    write_solver_notes(set, base, backends, out);
}

/* "0.0123 (45%)": a part's seconds and its share of the run. */
static void part_text(double s, double whole, char *buf, size_t len)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.4g (%.0f%%)", s, whole > 0 ? 100 * s / whole : 0.0);
}

/* "5.9 (0.81)": a step's GB/s by the byte model and its fraction of the
 * device's triad (the report's one). */
static void step_gbs_text(const fb_results_set *set, const fb_record *r, const char *step, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "timings.%s.gbs", step);
    const double gbs = fb_json_num(r->json, path);
    const double triad = fb_record_triad(set, r);
    fb_md_number(gbs, "%.3g", buf, len);
    if (!isnan(gbs) && triad > 0) snprintf(buf + strlen(buf), len - strlen(buf), " (%.2f)", gbs / triad);
}

/* Tables 5 and 6: the time split per step. */
static void write_solver_split(const fb_results_set *set, json_t *backends, FILE *out)
{
    static const char *const parts[] = {"timings.cpu_to_gpu_s", "timings.step1.total_s", "timings.step2.total_s",
                                        "timings.step3.total_s", "timings.gpu_to_cpu_s"};
    static const char *const steps[] = {"step1", "step2", "step3"};
    const char *name;
    json_t *v;
    fprintf(out, "\n| backend | CPU->GPU s | step 1 s | step 2 s | step 3 s | GPU->CPU s | CG its (mean) | step 1 GB/s "
                 "(of triad) | step 2 GB/s | step 3 GB/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    json_object_foreach(backends, name, v)
    {
        const fb_record *r = &set->records[json_integer_value(v)];
        char c[9][64];
        double whole = 0;
        for (int p = 0; p < 5; ++p)
            whole += isnan(fb_json_num(r->json, parts[p])) ? 0 : fb_json_num(r->json, parts[p]);
        /* a split resting on an unstable or contended run is marked as its speedup is */
        const char *flag = fb_quality_flagged(fb_json_quality(r->json, NULL)) ? FB_SPEEDUP_FLAG : "";
        for (int p = 0; p < 5; ++p) {
            part_text(fb_json_num(r->json, parts[p]), whole, c[p], sizeof c[p]);
            snprintf(c[p] + strlen(c[p]), sizeof c[p] - strlen(c[p]), "%s", flag);
        }
        fb_md_number(fb_json_num(r->json, "cg.its_mean"), "%.1f", c[5], sizeof c[5]);
        for (int s = 0; s < 3; ++s)
            step_gbs_text(set, r, steps[s], c[6 + s], sizeof c[6 + s]);
        const char *cells[] = {name, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]};
        fb_md_row(out, cells, 10);
    }
}

fb_status fb_report_solver(const fb_results_set *set, FILE *out)
{
    fb_status status = FB_OK;
    json_t *best = json_object(), *backends;
    const char *problem;
    if (!best) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing the report");
    FB_CHECK(solver_index(set, best));
    fprintf(out, "\n## Solver (the paper's Tables 4-7)\n\n");
    if (!json_object_size(best)) {
        fprintf(out, "No solver records in this run (`flowbench solve`).\n");
        goto fail;
    }
    fprintf(out,
            "Per problem: time and speedup over OpenMP per backend (Tables 4 and 7; per step = %s; total = "
            "%s), then the split of the run per step (Tables 5 and 6; GB/s by the byte model, in brackets its "
            "fraction of the device's triad above).\n",
            FB_SPEEDUP_PER_STEP_DEF, FB_SPEEDUP_TOTAL_DEF);
    json_object_foreach(best, problem, backends)
    {
        const fb_record *base = solver_baseline(set, backends);
        const fb_record *any = &set->records[json_integer_value(json_object_iter_value(json_object_iter(backends)))];
        fprintf(out, "\n### %s (%s, %s)\n", fb_record_matrix(any), str(any->json, "precision"), fb_record_host(any));
        if (!base) fprintf(out, "\nNo OpenMP run of this problem: no speedup.\n");
        fprintf(out, "\nTime and speedup over OpenMP (Tables 4 and 7):\n");
        write_solver_times(set, base, backends, out);
        fprintf(out, "\nSplit per step (Tables 5 and 6):\n");
        write_solver_split(set, backends, out);
    }
fail:
    json_decref(best);
    return status;
}

/* ---- grid studies ---------------------------------------------------------- */

static int is_grid(const fb_record *r) { return json_object_get(r->json, "grid") != NULL; }

void fb_report_grids(const fb_results_set *set, FILE *out)
{
    json_t *best = json_object();
    char key[768], params[512], c[6][64], q[256], device[256];
    const char *k;
    json_t *v;
    fprintf(out, "\n## Grid studies (fastest settings per grid, kernel and device)\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !is_grid(r)) continue;
        snprintf(key, sizeof key, "%s|%s|%s|%s|%s", str(r->json, "benchmark"), fb_record_matrix(r),
                 str(r->json, "precision"), str(r->json, "kernel"), str(r->json, "device"));
        const json_t *had = json_object_get(best, key);
        if (had && fb_record_median(&set->records[json_integer_value(had)]) <= fb_record_median(r)) continue;
        json_object_set_new(best, key, json_integer(i));
    }
    if (!json_object_size(best))
        fprintf(out, "No grid records in this run (`flowbench grid`, or a sweep of cases/grid-quick.suite).\n");
    else
        fprintf(out, "| family | grid | precision | kernel | device | settings | ns per cell | GB/s | GFLOP/s | "
                     "of triad | quality |\n|---|---|---|---|---|---|---:|---:|---:|---:|---|\n");
    json_object_foreach(best, k, v)
    {
        const fb_record *r = &set->records[json_integer_value(v)];
        fb_params_text(json_object_get(r->json, "params"), params, sizeof params);
        snprintf(device, sizeof device, "%s %s", str(r->json, "device"), str(r->json, "device_name"));
        fb_md_number(fb_json_num(r->json, "ns_per_cell"), "%.4g", c[0], sizeof c[0]);
        fb_md_number(fb_json_num(r->json, "gbs"), "%.4g", c[1], sizeof c[1]);
        fb_md_number(fb_json_num(r->json, "gflops"), "%.4g", c[2], sizeof c[2]);
        fb_md_number(fb_record_fraction(set, r), "%.3f", c[3], sizeof c[3]);
        md_quality(r->json, q, sizeof q);
        const char *cells[] = {str(r->json, "benchmark"),
                               fb_record_matrix(r),
                               str(r->json, "precision"),
                               str(r->json, "kernel"),
                               device,
                               params,
                               c[0],
                               c[1],
                               c[2],
                               c[3],
                               q};
        fb_md_row(out, cells, 11);
    }
    json_decref(best);
}

/* ---- sweeps ---------------------------------------------------------------- */

typedef struct sweep_count {
    int ok, expected, failed;
} sweep_count;

static void write_sweep_row(const fb_results_set *set, const char *suite_case, const sweep_count *n,
                            const fb_record *fastest, FILE *out)
{
    char c[3][16], best[1400] = "-", params[512], q[256] = "-", gbs[32] = "-";
    snprintf(c[0], sizeof c[0], "%d", n->ok);
    snprintf(c[1], sizeof c[1], "%d", n->expected);
    snprintf(c[2], sizeof c[2], "%d", n->failed);
    if (fastest) {
        fb_params_text(json_object_get(fastest->json, "params"), params, sizeof params);
        snprintf(best, sizeof best, "%s on %s, %s %s", str(fastest->json, "kernel"), str(fastest->json, "device"),
                 fb_record_matrix(fastest), params);
        fb_md_number(fb_json_num(fastest->json, "gbs"), "%.4g", gbs, sizeof gbs);
        if (fb_record_fraction(set, fastest) > 0)
            snprintf(gbs + strlen(gbs), sizeof gbs - strlen(gbs), " (%.2f)", fb_record_fraction(set, fastest));
        md_quality(fastest->json, q, sizeof q);
    }
    const char *cells[] = {suite_case, c[0], c[1], c[2], best, gbs, q};
    fb_md_row(out, cells, 7);
}

fb_status fb_report_sweeps(const fb_results_set *set, FILE *out)
{
    fb_status status = FB_OK;
    json_t *order = json_object(), *v;
    sweep_count *counts = NULL;
    const fb_record **fastest = NULL;
    char key[512];
    const char *k;
    FB_ALLOC(counts, set->nrecords + 1, "the report");
    FB_ALLOC(fastest, set->nrecords + 1, "the report");
    if (!order) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing the report");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (r->superseded || !json_object_get(r->json, "suite")) continue;
        snprintf(key, sizeof key, "%s / %s", str(r->json, "suite"), str(r->json, "case"));
        if (!json_object_get(order, key)) json_object_set_new(order, key, json_integer(json_object_size(order)));
        const long long s = json_integer_value(json_object_get(order, key));
        if (fb_record_usable(r)) {
            counts[s].ok++;
            if (!fastest[s] || fb_json_num(r->json, "gbs") > fb_json_num(fastest[s]->json, "gbs")) fastest[s] = r;
        } else if (fb_record_expected(r)) {
            counts[s].expected++;
        } else {
            counts[s].failed++;
        }
    }
    fprintf(out, "\n## Sweeps\n\n");
    if (!json_object_size(order))
        fprintf(out, "No sweep records in this run (`flowbench sweep SUITE`).\n");
    else
        fprintf(out, "Configurations per suite and case: measured, ended as a sweep expects (pruned, abandoned, "
                     "skipped, timeout, unavailable), failed; and the one with the most GB/s (in brackets its "
                     "fraction of the device's triad).\n\n| suite / case | measured | expected | failed | most GB/s | "
                     "GB/s | quality |\n|---|---:|---:|---:|---|---:|---|\n");
    json_object_foreach(order, k, v)
    {
        const long long s = json_integer_value(v);
        write_sweep_row(set, k, &counts[s], fastest[s], out);
    }
fail:
    json_decref(order);
    free(counts);
    free(fastest);
    return status;
}

/* ---- tuning ---------------------------------------------------------------- */

/* What tuned the record: a --tuned run's cache lookup, or tune's search. */
static int tuning_text(const fb_record *r, char *buf, size_t len)
{
    const json_t *tuning = json_object_get(r->json, "tuning");
    if (json_is_object(tuning)) {
        snprintf(buf, len, "--tuned: %s (%s)", str(tuning, "source"), str(tuning, "signature"));
        return 1;
    }
    if (json_is_true(fb_json_get(r->json, "search.best"))) {
        snprintf(buf, len, "tune: %s, best of %.0f evaluations (space %.0f)", str(r->json, "search.strategy"),
                 fb_json_num(r->json, "evaluations"), fb_json_num(r->json, "space_size"));
        return 1;
    }
    return 0;
}

void fb_report_tuning(const fb_results_set *set, FILE *out)
{
    char how[256], params[512], c[2][64], q[256];
    int n = 0;
    fprintf(out, "\n## Tuning results\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !tuning_text(r, how, sizeof how)) continue;
        if (!n++)
            fprintf(out, "| benchmark | kernel | device | problem | tuned by | settings | GB/s | of triad | quality |\n"
                         "|---|---|---|---|---|---|---:|---:|---|\n");
        fb_params_text(json_object_get(r->json, "params"), params, sizeof params);
        fb_md_number(fb_json_num(r->json, "gbs"), "%.4g", c[0], sizeof c[0]);
        fb_md_number(fb_record_fraction(set, r), "%.3f", c[1], sizeof c[1]);
        md_quality(r->json, q, sizeof q);
        const char *cells[] = {str(r->json, "benchmark"),
                               str(r->json, "kernel"),
                               str(r->json, "device"),
                               fb_record_matrix(r),
                               how,
                               params,
                               c[0],
                               c[1],
                               q};
        fb_md_row(out, cells, 9);
    }
    if (!n)
        fprintf(out, "None in this run (records of `--tuned` runs carry \"tuning\"; `tune --out` writes its best "
                     "point with search.best).\n");
}

/* ---- environment and energy ------------------------------------------------- */

/* Counts of each distinct text, written as "TEXT (N)" items. */
static void count_text(json_t *counts, const char *text)
{
    if (!*text) return;
    json_object_set_new(counts, text, json_integer(json_integer_value(json_object_get(counts, text)) + 1));
}

static void write_counts(FILE *out, const char *what, json_t *counts)
{
    const char *k;
    json_t *v;
    if (!json_object_size(counts)) return;
    fprintf(out, "- %s:", what);
    json_object_foreach(counts, k, v) fprintf(out, " `%s` (%lld records);", k, (long long)json_integer_value(v));
    fputc('\n', out);
}

static void environment_of(const fb_record *r, char *buf, size_t len)
{
    const double threads = fb_json_num(r->json, "environment.openmp.threads");
    if (isnan(threads)) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%.0f OpenMP threads, proc_bind %s, wait %s", threads,
             str(r->json, "environment.openmp.proc_bind"), str(r->json, "environment.openmp.wait.policy"));
}

void fb_report_environment(const fb_results_set *set, FILE *out)
{
    /* the lists in the order they are written */
    enum { VERDICT, OPENMP, GOVERNOR, ENERGY, UNAVAILABLE, THROTTLE, NLISTS };
    // clang-format off
    static const char *const what[NLISTS] = {
        "verdict on the samples (stats.quality, environment.contended)", "OpenMP", "CPU frequency governor",
        "energy meter", "energy unavailable", "throttling"};
    // clang-format on
    json_t *counts[NLISTS];
    char text[512];
    for (int k = 0; k < NLISTS; ++k)
        counts[k] = json_object();
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r)) continue;
        environment_of(r, text, sizeof text);
        count_text(counts[OPENMP], text);
        count_text(counts[GOVERNOR], str(r->json, "environment.governor"));
        count_text(counts[VERDICT], fb_quality_name(fb_json_quality(r->json, NULL)));
        count_text(counts[ENERGY], str(r->json, "energy.source"));
        count_text(counts[UNAVAILABLE], str(r->json, "energy.unavailable"));
        count_text(counts[THROTTLE], json_is_true(fb_json_get(r->json, "energy.throttled"))    ? "throttled"
                                     : json_is_false(fb_json_get(r->json, "energy.throttled")) ? "not throttled"
                                                                                               : "not checked");
    }
    fprintf(out, "\n## Environment, stability and energy\n\n");
    if (!json_object_size(counts[VERDICT])) fprintf(out, "No measurement in this run.\n");
    for (int k = 0; k < NLISTS; ++k) {
        write_counts(out, what[k], counts[k]);
        json_decref(counts[k]);
    }
}
