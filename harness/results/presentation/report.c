/* report.c - the markdown report of a results file. Sections that have no
 * data say so in one line rather than disappear, so a reader can tell "not
 * measured" from "forgot to look". */
#include "report.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "portability.h"
#include "choice.h"
#include "figures.h"
#include "../records/quality.h"
#include "report_run.h"
#include "speedup.h"
#include "../../core/interrupt.h"
#include "../../core/json_index.h"

static const char *str(const json_t *o, const char *path) { return fb_json_str(o, path); }

static void bytes_text(double b, char *buf, size_t len)
{
    if (!(b > 0))
        snprintf(buf, len, "-");
    else if (b >= 1 << 30)
        snprintf(buf, len, "%.1f GiB", b / (1 << 30));
    else
        snprintf(buf, len, "%.1f MiB", b / (1 << 20));
}

/* Joules with a readable unit, "-" when the record has none. */
static void joules_text(double j, char *buf, size_t len)
{
    if (isnan(j))
        snprintf(buf, len, "-");
    else if (j >= 1 || j <= 0)
        snprintf(buf, len, "%.4g J", j);
    else if (j >= 1e-3)
        snprintf(buf, len, "%.4g mJ", j * 1e3);
    else
        snprintf(buf, len, "%.4g uJ", j * 1e6);
}

/* The fraction of the stream triad, flagged where it is no roofline
 * fraction: a cache-resident working set, or above 1 (docs/measurement.md). */
static void fraction_text(const fb_results_set *set, const fb_record *r, char *buf, size_t len)
{
    const double f = fb_record_fraction(set, r);
    const json_t *resident = json_object_get(r->json, "cache_resident");
    fb_md_number(f, "%.3f", buf, len);
    if (isnan(f)) return;
    if (json_is_true(resident))
        snprintf(buf + strlen(buf), len - strlen(buf), " (cache resident)");
    else if (f > 1)
        snprintf(buf + strlen(buf), len - strlen(buf), " (above 1: caches?)");
}

/* The record's own fraction of stream dot, where the report divides it by
 * the triad the record divided by: a dot measured beside another triad (a
 * sweep's own stream run, in cache) is not the ceiling of this table's
 * fraction of the triad, and the row would put the two side by side. */
static void read_text(const fb_results_set *set, const fb_record *r, char *buf, size_t len)
{
    const double triad = fb_record_triad(set, r), own = fb_json_num(r->json, "stream_gbs");
    const int same_triad = isnan(triad) || fabs(triad - own) <= 1e-9 * own; /* NAN: no triad picked, its own */
    fb_md_number(same_triad ? fb_json_num(r->json, "fraction_of_read") : NAN, "%.3f", buf, len);
}

static void write_device_row(const json_t *d, FILE *out)
{
    char mem[32], llc[32], cu[16];
    bytes_text(fb_json_num(d, "global_mem_bytes"), mem, sizeof mem);
    bytes_text(fb_json_num(d, "cache_bytes"), llc, sizeof llc);
    snprintf(cu, sizeof cu, "%.0f", fb_json_num(d, "compute_units"));
    const char *cells[] = {str(d, "id"),
                           str(d, "name"),
                           str(d, "vendor"),
                           str(d, "device_version"),
                           str(d, "driver_version"),
                           str(d, "runtime_version"),
                           cu,
                           mem,
                           llc};
    fb_md_row(out, cells, 9);
}

/* Every device any run of the file used, once each, latest run first: a
 * file of many runs (one `spmv` per header) names a different device in
 * each header. */
static void write_devices(const fb_results_set *set, FILE *out)
{
    json_t *seen = json_object(); /* ids written, as keys */
    fprintf(out,
            "\n| device | name | vendor | version | driver | runtime | compute units | memory | last-level cache |\n"
            "|---|---|---|---|---|---|---:|---:|---:|\n");
    for (int h = set->nheaders - 1; h >= 0; --h) {
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(set->headers[h], "devices"), i, d)
        {
            if (json_object_get(seen, str(d, "id"))) continue;
            json_object_set_new(seen, str(d, "id"), json_true());
            write_device_row(d, out);
        }
    }
    json_decref(seen);
}

/* The machine of the latest run by time, and the runs' time range over
 * every record read: file order is not time order (a folder is read in
 * name order, merged and hand-appended files in any). */
static void write_machine(const fb_results_set *set, FILE *out)
{
    const json_t *h = fb_results_latest_header(set);
    char mem[32], llc[32], first[32], last[32];
    fb_results_time_range(set, first, last, sizeof first);
    bytes_text(fb_json_num(h, "host.memory_bytes"), mem, sizeof mem);
    bytes_text(fb_json_num(h, "host.llc_bytes"), llc, sizeof llc);
    fprintf(out, "\n## Machine\n\n");
    fprintf(out, "- host: %s (%s)\n", str(h, "host.hostname"), str(h, "host.os"));
    fprintf(out, "- CPU: %s, %.0f logical CPUs, %s last-level cache, %s memory; %.0f OpenMP threads\n",
            str(h, "host.cpu"), fb_json_num(h, "host.logical_cpus"), llc, mem, fb_json_num(h, "host.omp_threads"));
    fprintf(out, "- flowbench %s (git %s), %s, flags `%s`\n", str(h, "build.flowbench_version"),
            str(h, "build.git_revision"), str(h, "build.compiler"), str(h, "build.flags"));
    fprintf(out, "- runs in %s: %d, started from %s to %s\n", set->nfiles > 1 ? "these files" : "this file",
            set->nheaders, *first ? first : "?", *last ? last : "?");
    for (int i = 0; i < set->nheaders; ++i)
        if (set->headers[i] != h && strcmp(str(set->headers[i], "host.cpu"), str(h, "host.cpu")) != 0)
            fprintf(out, "- note: run %s ran on another CPU (%s)\n", str(set->headers[i], "run_id"),
                    str(set->headers[i], "host.cpu"));
    write_devices(set, out);
}

/* At most this many configurations named under the files: a year of
 * nightly runs with a busy night or two would bury the report's head. */
#define CHOICE_ROWS_MAX 50

/* Which record of a configuration measured more than once the report
 * takes (choice.h), said where the loader's file order would have taken
 * another: a reader comparing with `plot` or `export --latest` must see
 * why the numbers differ. */
static void write_choices(const fb_results_set *set, FILE *out)
{
    char why[1200], label[1024];
    int several = 0, named = 0, first;
    for (int i = 0; i < set->nlatest; ++i)
        several += fb_results_find_all(set, set->records[set->latest[i]].key, &first) > 1;
    if (!several) return;
    fprintf(out,
            "\n%d configuration%s measured more than once: the report takes each one's latest stable record by "
            "time (its run's start), else its latest; a configuration whose latest record failed is reported "
            "failed.",
            several, several == 1 ? " is" : "s are");
    for (int i = 0; i < set->nlatest; ++i) {
        const fb_record *r = &set->records[set->latest[i]];
        if (!fb_results_choice_why(set, r, why, sizeof why)) continue;
        if (!named++) fprintf(out, " Where that is not the record read last:\n\n");
        if (named > CHOICE_ROWS_MAX) continue;
        fb_record_label(r, label, sizeof label);
        fprintf(out, "- %s: %s\n", label, why);
    }
    if (!named) fprintf(out, " For each, that is also the record read last.\n");
    if (named > CHOICE_ROWS_MAX) fprintf(out, "- ... and %d more\n", named - CHOICE_ROWS_MAX);
}

/* grid[r * ncols + c]: the index of the figure's last cell at row r and
 * column c, or -1; so that a table is written in time of its size, not
 * its size times its cells. */
static fb_status cell_grid(const fb_figure *f, int **grid)
{
    fb_status status = FB_OK;
    FB_ALLOC(*grid, (size_t)f->nrows * (size_t)f->ncols, "a report table");
    for (size_t i = 0; i < (size_t)f->nrows * (size_t)f->ncols; ++i)
        (*grid)[i] = -1;
    for (int i = 0; i < f->ncells; ++i)
        (*grid)[(size_t)f->cells[i].row * (size_t)f->ncols + (size_t)f->cells[i].col] = i;
fail:
    return status;
}

/* "DEVICE (line N)" and the record's verdict, as a side of a reason. */
static fb_speedup_side record_side(const fb_results_set *set, const fb_record *r, char *id, size_t len)
{
    fb_speedup_side side = {.id = id};
    char where[160];
    fb_record_where(set, r, where, sizeof where);
    snprintf(id, len, "%.64s (%s%.80s)", str(r->json, "device"), set->nfiles > 1 ? "" : "line ", where);
    side.quality = fb_json_quality(r->json, &side.why);
    return side;
}

/* Why a cell is no figure to trust: its records' verdicts, the OpenMP
 * baseline's first (results/presentation/speedup.h words them as solve --compare does). */
static void cell_why(const fb_results_set *set, const fb_cell *x, char *buf, size_t len)
{
    char a[160], b[160];
    buf[0] = '\0';
    if (x->base) {
        const fb_speedup_side side = record_side(set, x->base, a, sizeof a);
        fb_speedup_side_why(&side, buf, len);
    }
    if (x->rec) {
        const fb_speedup_side side = record_side(set, x->rec, b, sizeof b);
        fb_speedup_side_why(&side, buf, len);
    }
}

static int same_records(const fb_cell *a, const fb_cell *b) { return a->rec == b->rec && a->base == b->base; }

/* Under a table: each cell flagged FB_SPEEDUP_FLAG with the reason, once
 * per record (pair); named by its row alone where the row's other cells
 * rest on the same records (a backend's time split). */
static void write_cell_notes(const fb_results_set *set, const fb_figure *f, FILE *out)
{
    char why[1100];
    int n = 0;
    for (int i = 0; i < f->ncells; ++i) {
        const fb_cell *x = &f->cells[i];
        int before = 0, row_shares = 0;
        if (!fb_quality_flagged((fb_quality)x->quality)) continue;
        for (int j = 0; j < f->ncells; ++j) {
            before |= j < i && same_records(&f->cells[j], x) && fb_quality_flagged((fb_quality)f->cells[j].quality);
            row_shares |= j != i && f->cells[j].row == x->row && same_records(&f->cells[j], x);
        }
        if (before) continue;
        if (!n++)
            fprintf(out, "\n%s: not a figure to trust (samples spread, or other work took the CPUs):\n\n",
                    FB_SPEEDUP_FLAG);
        cell_why(set, x, why, sizeof why);
        fprintf(out, "- %s%s%s: %s\n", f->rows[x->row], row_shares ? "" : ", ", row_shares ? "" : f->cols[x->col], why);
    }
}

/* A figure's table as markdown: rows x columns, values with `fmt`, a
 * value resting on an unstable or contended record flagged
 * FB_SPEEDUP_FLAG, with the reasons under the table. */
static fb_status write_table(const fb_results_set *set, const fb_figure *f, const char *corner, const char *fmt,
                             FILE *out)
{
    fb_status status = FB_OK;
    int *grid = NULL;
    FB_CHECK(cell_grid(f, &grid));
    fprintf(out, "\n%s\n\n", f->title);
    fb_md_cell(out, corner);
    for (int c = 0; c < f->ncols; ++c)
        fb_md_cell(out, f->cols[c]);
    fputs("|\n|---", out);
    for (int c = 0; c < f->ncols; ++c)
        fputs("|---:", out);
    fputs("|\n", out);
    for (int r = 0; r < f->nrows; ++r) {
        fb_md_cell(out, f->rows[r]);
        for (int c = 0; c < f->ncols; ++c) {
            char v[32] = "-";
            int i = grid[(size_t)r * (size_t)f->ncols + (size_t)c];
            if (i >= 0) snprintf(v, sizeof v, fmt, f->cells[i].value);
            if (i >= 0 && fb_quality_flagged((fb_quality)f->cells[i].quality))
                snprintf(v + strlen(v), sizeof v - strlen(v), "%s", FB_SPEEDUP_FLAG);
            fb_md_cell(out, v);
        }
        fputs("|\n", out);
    }
    write_cell_notes(set, f, out);
fail:
    free(grid);
    return status;
}

/* figures.c does not poll fb_interrupted, and on a large file it works for
 * a while: a signal ends the process at once there (interrupt.h). */
static fb_status collect_figures(const fb_results_set *set, fb_figure_kind kind, fb_figure_list *list)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_interrupt_at_once_begin());
    status = fb_figures_collect(set, kind, list);
    fb_interrupt_at_once_end();
fail:
    return status;
}

static fb_status write_figure_tables(const fb_results_set *set, fb_figure_kind kind, const char *heading,
                                     const char *corner, const char *fmt, FILE *out)
{
    fb_status status = FB_OK;
    fb_figure_list list = {0};
    FB_CHECK(collect_figures(set, kind, &list));
    fprintf(out, "\n## %s\n", heading);
    if (kind == FB_FIG_SPEEDUP && list.n > 0)
        fprintf(out, "\nEach cell from the best records of both sides, stable ones first; a solver row's time is its "
                     "median time step (the per-step speedup: both definitions under \"Solver\" below).\n");
    if (list.n == 0) fprintf(out, "\nNone in this file (%s).\n", fb_figure_missing(kind));
    for (int i = 0; i < list.n; ++i)
        FB_CHECK(write_table(set, &list.f[i], corner, fmt, out));
fail:
    fb_figure_list_free(&list);
    return status;
}

/* The fastest record per (matrix, device id, precision), in the file
 * order of each one's first record. */
static fb_status best_per_matrix(const fb_results_set *set, const fb_record ***best, int *n)
{
    fb_status status = FB_OK;
    json_t *slots = json_object(); /* matrix, device, precision -> position in *best */
    if (!slots) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing the report");
    FB_ALLOC(*best, set->nrecords, "report");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (r->superseded || !fb_record_usable(r) || !*fb_record_matrix(r)) continue;
        if (strcmp(str(r->json, "benchmark"), "spmv") != 0) continue; /* grids and the solver have sections */
        const char *key[] = {fb_record_matrix(r), str(r->json, "device"), str(r->json, "precision")};
        long long k = fb_json_index_int(slots, key, 3);
        if (k < 0) {
            FB_CHECK(fb_json_index_set(slots, key, 3, json_integer(*n)));
            (*best)[(*n)++] = r;
        } else if (fb_record_median(r) < fb_record_median((*best)[k])) {
            (*best)[k] = r;
        }
    }
fail:
    json_decref(slots);
    return status;
}

/* The median's spread (its 95% CI half-width) where the samples can be
 * trusted; where they cannot, the verdict instead: a ±0.6% beside
 * samples that spread 14x would be a lie. Returns 1 when flagged. */
static int spread_text(const json_t *rec, char *buf, size_t len)
{
    const fb_quality q = fb_json_quality(rec, NULL);
    if (fb_quality_flagged(q)) {
        snprintf(buf, len, "%s", fb_quality_name(q));
        return 1;
    }
    fb_md_number(100 * fb_json_num(rec, "stats.median_spread"), "±%.2g%%", buf, len);
    return 0;
}

static fb_status write_best(const fb_results_set *set, FILE *out)
{
    fb_status status = FB_OK;
    const fb_record **best = NULL;
    int n = 0, flagged = 0;
    char params[512], v[8][64], device[256], kernel[160];
    FB_CHECK(best_per_matrix(set, &best, &n));
    fprintf(out, "\n## Best variant per matrix (SpMV)\n\n");
    if (n == 0)
        fprintf(out, "No SpMV records in this run (`flowbench spmv`, scripts/spmv-study.sh).\n");
    else
        fprintf(
            out,
            "| matrix | device | precision | kernel | settings | median time | spread | GFLOP/s | GB/s | fraction of "
            "triad | of read ceiling | energy per run | GFLOP/J |\n"
            "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < n; ++i) {
        const json_t *j = best[i]->json;
        fb_params_text(json_object_get(j, "params"), params, sizeof params);
        snprintf(v[0], sizeof v[0], "%.4g ms", 1e3 * fb_record_median(best[i]));
        flagged += spread_text(j, v[1], sizeof v[1]);
        fb_md_number(fb_json_num(j, "gflops"), "%.4g", v[2], sizeof v[2]);
        fb_md_number(fb_json_num(j, "gbs"), "%.4g", v[3], sizeof v[3]);
        fraction_text(set, best[i], v[4], sizeof v[4]);
        joules_text(fb_json_num(j, "energy.joules_per_run"), v[5], sizeof v[5]);
        fb_md_number(fb_json_num(j, "energy.gflop_per_j"), "%.4g", v[6], sizeof v[6]);
        read_text(set, best[i], v[7], sizeof v[7]);
        snprintf(device, sizeof device, "%s %s", str(j, "device"), str(j, "device_name"));
        /* a kernel that trades precision for bytes says so where it wins */
        snprintf(kernel, sizeof kernel, "%s%s%s", str(j, "kernel"),
                 json_is_number(fb_json_get(j, "check.error_vs_double_values")) ? " (single-precision values)" : "",
                 json_is_true(fb_json_get(j, "energy.throttled")) ? " (throttled)" : "");
        const char *cells[] = {fb_record_matrix(best[i]),
                               device,
                               str(j, "precision"),
                               kernel,
                               params,
                               v[0],
                               v[1],
                               v[2],
                               v[3],
                               v[4],
                               v[7],
                               v[5],
                               v[6]};
        fb_md_row(out, cells, 13);
    }
    if (flagged)
        fprintf(out, "\nA spread of `unstable` or `contended`: the samples spread or fell in two modes, or other work "
                     "took the run's CPUs, so its interval means nothing (why: \"Unstable or contended "
                     "measurements\" below).\n");
fail:
    free(best);
    return status;
}

static void write_record_row(const fb_results_set *set, const fb_record *r, const char *what, FILE *out)
{
    char label[1024], line[1100];
    fb_record_label(r, label, sizeof label);
    fb_record_where(set, r, line, sizeof line);
    const char *cells[] = {line, label, what};
    fb_md_row(out, cells, 3);
}

/* At most this many rows in the list of unstable or contended records: a
 * year of nightly sweeps on a busy machine would bury the rest. */
#define QUALITY_ROWS_MAX 200

/* The latest usable records whose samples cannot be trusted, with why. */
static void write_quality(const fb_results_set *set, FILE *out)
{
    char label[1024], line[1100];
    int n = 0;
    fprintf(out, "\n## Unstable or contended measurements\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const char *why;
        if (r->superseded || !fb_record_usable(r)) continue;
        const fb_quality q = fb_json_quality(r->json, &why);
        if (!fb_quality_flagged(q)) continue;
        if (!n++) fprintf(out, "| where | configuration | quality | why |\n|---:|---|---|---|\n");
        if (n > QUALITY_ROWS_MAX) continue;
        fb_record_label(r, label, sizeof label);
        fb_record_where(set, r, line, sizeof line);
        const char *cells[] = {line, label, fb_quality_name(q), *why ? why : "(no reason recorded)"};
        fb_md_row(out, cells, 4);
    }
    if (!n)
        fprintf(out, "None: every measurement's samples were stable and its CPUs its own (records written before "
                     "the verdict existed count as stable).\n");
    else if (n > QUALITY_ROWS_MAX)
        fprintf(out, "\n... and %d more (`flowbench export --csv`: the quality, quality_why and contended columns).\n",
                n - QUALITY_ROWS_MAX);
}

/* Real failures only: a pruned or abandoned configuration is the sweep
 * doing its job, and listing it here buried the ones that need a look. */
static void write_failures(const fb_results_set *set, FILE *out)
{
    char why[512];
    int n = 0;
    fprintf(out, "\n## Failures\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (r->superseded || fb_record_usable(r) || fb_record_expected(r)) continue;
        if (!n++) fprintf(out, "| where | configuration | status |\n|---:|---|---|\n");
        fb_record_failure(r, why, sizeof why);
        write_record_row(set, r, why, out);
    }
    if (!n) fprintf(out, "None: every measurement ran and passed its check.\n");
}

/* Expected outcomes, counted per status with the first reason seen: a
 * sweep prunes hundreds of points, so one row each would drown the page. */
static void write_expected(const fb_results_set *set, FILE *out)
{
    json_t *count = json_object(), *first = json_object();
    const char *st;
    json_t *v;
    fprintf(out, "\n## Expected outcomes (pruned, abandoned, skipped, timeout, unavailable)\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (r->superseded || fb_record_usable(r) || !fb_record_expected(r)) continue;
        st = str(r->json, "status");
        json_object_set_new(count, st, json_integer(json_integer_value(json_object_get(count, st)) + 1));
        if (!json_object_get(first, st)) json_object_set_new(first, st, json_string(str(r->json, "reason")));
    }
    if (json_object_size(count) == 0)
        fprintf(out, "None.\n");
    else
        fprintf(out, "| status | records | for example |\n|---|---:|---|\n");
    json_object_foreach(count, st, v)
    {
        char n[16];
        snprintf(n, sizeof n, "%lld", (long long)json_integer_value(v));
        const char *cells[] = {st, n, json_string_value(json_object_get(first, st))};
        fb_md_row(out, cells, 3);
    }
    json_decref(count);
    json_decref(first);
}

/* The solver's validation figures (divergence, errors against the exact
 * solution, drag): the check a solver record has instead of a reference. */
static void write_validation(const fb_results_set *set, FILE *out)
{
    int n = 0;
    fprintf(out, "\n## Solver validation\n\n");
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const json_t *val = json_object_get(r->json, "validation");
        char figures[1024] = "", num[32];
        const char *k;
        json_t *v;
        if (r->superseded || !json_is_object(val)) continue;
        if (!n++) fprintf(out, "| where | configuration | validation |\n|---:|---|---|\n");
        json_object_foreach((json_t *)val, k, v)
        {
            size_t len = strlen(figures);
            fb_md_number(json_is_number(v) ? json_number_value(v) : NAN, "%.4g", num, sizeof num);
            snprintf(figures + len, sizeof figures - len, "%s%s %s", len ? ", " : "", k, num);
        }
        write_record_row(set, r, figures, out);
    }
    if (!n) fprintf(out, "No solver records with validation figures in this file.\n");
}

/* The names of the PNG files in dir, without ".png", as the keys of
 * *stems (none when dir cannot be read). */
static fb_status png_stems(const char *dir, json_t **stems)
{
    fb_status status = FB_OK;
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!(*stems = json_object())) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing the report");
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".png") != 0) continue;
        e->d_name[len - 4] = '\0';
        json_object_set_new(*stems, e->d_name, json_true()); /* refuses a name that is not UTF-8: no figure's */
    }
fail:
    if (d) closedir(d);
    return status;
}

/* Whether a figure of this kind may be drawn in the folder: every figure's
 * file stem starts with its kind's script name ("heatmap-csr-multirow-..."),
 * so collecting the kinds that have none (heat maps take long on a large
 * file) is skipped. */
static int kind_drawn(const json_t *stems, fb_figure_kind kind)
{
    const char *script = fb_figure_script(kind), *stem;
    const size_t len = strlen(script);
    json_t *v;
    json_object_foreach((json_t *)stems, stem, v)
    {
        if (strncmp(stem, script, len) == 0 && (stem[len] == '-' || stem[len] == '\0')) return 1;
    }
    return 0;
}

static fb_status write_plots(const fb_results_set *set, const fb_report_options *opt, FILE *out)
{
    fb_status status = FB_OK;
    char path[2048];
    json_t *stems = NULL;
    int n = 0;
    fprintf(out, "\n## Figures\n\n");
    FB_CHECK(png_stems(opt->plots_dir, &stems));
    for (int k = 0; k < FB_FIG_NKINDS; ++k) {
        fb_figure_list list = {0};
        if (!kind_drawn(stems, (fb_figure_kind)k)) continue;
        FB_CHECK(collect_figures(set, (fb_figure_kind)k, &list));
        for (int i = 0; i < list.n; ++i) {
            snprintf(path, sizeof path, "%s/%s.png", opt->plots_dir, list.f[i].name);
            if (access(path, R_OK) != 0) continue;
            fprintf(out, "![%s](%s%s.png)\n\n", list.f[i].title, opt->link_prefix, list.f[i].name);
            n++;
        }
        fb_figure_list_free(&list);
    }
    if (!n)
        fprintf(out, "No figures in %s (draw them with `flowbench plot %s --out %s`).\n", opt->plots_dir, set->path,
                opt->plots_dir);
fail:
    json_decref(stems);
    return status;
}

/* Every section is linear in the records (milliseconds for 100k of them):
 * polling between sections answers a signal soon enough. */
static fb_status not_interrupted(void)
{
    return fb_interrupted ? fb_error_set(FB_ERR_INTERRUPTED, __FILE__, __LINE__, "interrupted") : FB_OK;
}

fb_status fb_report_write(fb_results_set *set, const fb_report_options *opt, FILE *out)
{
    fb_status status = FB_OK;
    fb_triads triads = {0};
    fb_results_choose_by_time(set);         /* before anything reads a configuration's record */
    FB_CHECK(fb_triads_pick(set, &triads)); /* before any fraction is written */
    fprintf(out, "# flowbench report: %s\n", set->path);
    fb_report_files(set, out);
    write_choices(set, out);
    if (set->nheaders)
        write_machine(set, out);
    else
        fprintf(out, "\nThis file has no header record: the machine is unknown.\n");
    fb_report_triads(set, &triads, out);
    FB_CHECK(not_interrupted());
    FB_CHECK(write_best(set, out));
    FB_CHECK(fb_report_portability(set, out));
    FB_CHECK(write_figure_tables(set, FB_FIG_SPEEDUP, "Speedup over OpenMP (OpenMP time / device time)", "problem",
                                 "%.2fx", out));
    fb_report_grids(set, out);
    FB_CHECK(fb_report_solver(set, out));
    FB_CHECK(fb_report_sweeps(set, out));
    fb_report_tuning(set, out);
    fb_report_environment(set, out);
    FB_CHECK(write_figure_tables(set, FB_FIG_ENERGY, "Energy: GB/s beside GFLOP/J per kernel (best settings each)",
                                 "kernel", "%.4g", out));
    FB_CHECK(write_figure_tables(set, FB_FIG_ENERGY_STEPS, "Solver energy per time step per backend (joules)",
                                 "backend", "%.4g", out));
    FB_CHECK(not_interrupted());
    write_validation(set, out);
    write_quality(set, out);
    write_failures(set, out);
    write_expected(set, out);
    FB_CHECK(not_interrupted());
    if (opt->plots_dir) FB_CHECK(write_plots(set, opt, out));
fail:
    fb_triads_free(&triads);
    return status;
}
