/* figures.c - selects and groups records into the tables behind each plot
 * type, and writes those tables as the CSV files the scripts in plots/ read.
 * Only the latest record of each configuration is used (a file with several
 * runs shows its newest numbers), and only usable ones (status ok, samples). */
#include "figures.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/files.h"
#include "../../core/stats.h"
#include "../../bench/record.h"
#include "../records/export.h"
#include "families.h"
#include "portability.h"
#include "../records/quality.h"

/* ---- building tables ------------------------------------------------------ */

static fb_figure *figure_get(fb_figure_list *list, fb_figure_kind kind, const char *group, const fb_record *rep)
{
    for (int i = 0; i < list->n; ++i)
        if (list->f[i].kind == kind && strcmp(list->f[i].group, group) == 0) return &list->f[i];
    fb_figure *grown = realloc(list->f, (size_t)(list->n + 1) * sizeof *grown);
    if (!grown) return NULL;
    list->f = grown;
    fb_figure *f = memset(&list->f[list->n++], 0, sizeof *f);
    f->kind = kind;
    f->rep = rep;
    snprintf(f->group, sizeof f->group, "%s", group);
    return f;
}

/* A label as tables show it: control characters (a newline would split a
 * table's line) become spaces. */
static char *table_label(const char *label)
{
    char *copy = strdup(label);
    for (char *p = copy; p && *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    return copy;
}

/* Position of label in the list, appending it if new; -1 when out of memory. */
static int label_index(char ***labels, int *n, const char *label)
{
    char *clean = table_label(label);
    if (!clean) return -1;
    for (int i = 0; i < *n; ++i)
        if (strcmp((*labels)[i], clean) == 0) {
            free(clean);
            return i;
        }
    char **grown = realloc(*labels, (size_t)(*n + 1) * sizeof *grown);
    if (!grown) {
        free(clean);
        return -1;
    }
    *labels = grown;
    grown[*n] = clean;
    return (*n)++;
}

/* Whether cell a should replace b: a stable record's value beats an
 * unstable or contended one's whatever it is (a fast outlier is no best
 * setting), then the better value. */
static int cell_better(const fb_cell *a, const fb_cell *b, int higher_is_better)
{
    const int a_flagged = fb_quality_flagged((fb_quality)a->quality),
              b_flagged = fb_quality_flagged((fb_quality)b->quality);
    if (a_flagged != b_flagged) return !a_flagged;
    return higher_is_better ? a->value > b->value : a->value < b->value;
}

/* Keeps the better value per cell (cell_better), with its whiskers: the
 * best settings of a kernel there. */
static fb_status cell_put(fb_figure *f, const char *row, const char *col, fb_cell cell, int higher_is_better)
{
    fb_status status = FB_OK;
    int r = label_index(&f->rows, &f->nrows, row), c = label_index(&f->cols, &f->ncols, col);
    if (r < 0 || c < 0) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
    cell.row = r;
    cell.col = c;
    for (int i = 0; i < f->ncells; ++i) {
        fb_cell *x = &f->cells[i];
        if (x->row != r || x->col != c) continue;
        if (cell_better(&cell, x, higher_is_better)) *x = cell;
        return FB_OK;
    }
    fb_cell *grown = realloc(f->cells, (size_t)(f->ncells + 1) * sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
    f->cells = grown;
    f->cells[f->ncells++] = cell;
fail:
    return status;
}

static fb_status figure_put(fb_figure *f, const char *row, const char *col, double value, int higher_is_better)
{
    return cell_put(f, row, col, (fb_cell){.value = value, .lo = NAN, .hi = NAN}, higher_is_better);
}

/* A cell of one record's value, carrying the record and its verdict. */
static fb_cell record_cell(const fb_record *r, double value)
{
    return (fb_cell){.value = value, .lo = NAN, .hi = NAN, .rec = r, .quality = (int)fb_json_quality(r->json, NULL)};
}

/* A value derived from the record's median time, with whiskers: the same
 * formula applied to its fastest and slowest samples. A rate (higher is
 * better: GB/s, GFLOP/s, fraction of stream) scales as 1 / time, a time per
 * unit (ns per cell) as time. */
static fb_status figure_put_timed(fb_figure *f, const char *row, const char *col, const fb_record *r, double value,
                                  int higher_is_better)
{
    double median = fb_record_median(r), fast = INFINITY, slow = 0;
    for (int i = 0; i < r->nsamples; ++i) {
        fast = fmin(fast, r->samples[i]);
        slow = fmax(slow, r->samples[i]);
    }
    fb_cell cell = record_cell(r, value);
    if (median > 0 && fast > 0 && slow >= fast) {
        cell.lo = higher_is_better ? value * median / slow : value * fast / median;
        cell.hi = higher_is_better ? value * median / fast : value * slow / median;
    }
    return cell_put(f, row, col, cell, higher_is_better);
}

static void figure_free(fb_figure *f)
{
    for (int i = 0; i < f->nrows; ++i)
        free(f->rows[i]);
    for (int i = 0; i < f->ncols; ++i)
        free(f->cols[i]);
    free(f->rows);
    free(f->cols);
    free(f->cells);
}

void fb_figure_list_free(fb_figure_list *list)
{
    for (int i = 0; i < list->n; ++i)
        figure_free(&list->f[i]);
    for (int i = 0; i < list->nnotes; ++i)
        free(list->notes[i]);
    free(list->f);
    free(list->notes);
    memset(list, 0, sizeof *list);
}

static fb_status list_note(fb_figure_list *list, const char *text)
{
    fb_status status = FB_OK;
    char **grown = realloc(list->notes, (size_t)(list->nnotes + 1) * sizeof *grown);
    if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory noting a figure left out");
    list->notes = grown;
    if (!(grown[list->nnotes] = strdup(text))) FB_FAIL(FB_ERR_NOMEM, "out of host memory noting a figure left out");
    list->nnotes++;
fail:
    return status;
}

/* Runs finish() on each figure and drops those it refuses (too little data
 * to show anything). */
static void figure_filter(fb_figure_list *list, int (*finish)(fb_figure *))
{
    int n = 0;
    for (int i = 0; i < list->n; ++i) {
        if (finish(&list->f[i]))
            list->f[n++] = list->f[i];
        else
            figure_free(&list->f[i]);
    }
    list->n = n;
}

/* ---- record fields used for grouping ----------------------------------- */

static int latest_usable(const fb_record *r) { return !r->superseded && fb_record_usable(r); }

static const char *str(const fb_record *r, const char *path) { return fb_json_str(r->json, path); }

/* name in at most max characters, cut at a space or hyphen with "..."
 * added (a device name cut mid-word read as another device's). */
static void short_name(const char *name, size_t max, char *buf, size_t len)
{
    size_t n = strlen(name);
    if (n <= max) {
        snprintf(buf, len, "%s", name);
        return;
    }
    n = max;
    while (n > max / 2 && name[n] != ' ' && name[n] != '-')
        --n;
    if (n <= max / 2) n = max; /* one long word: cut it, the dots say so */
    snprintf(buf, len, "%.*s...", (int)n, name);
}

static void device_label(const fb_record *r, char *buf, size_t len)
{
    char name[64];
    short_name(str(r, "device_name"), 40, name, sizeof name);
    snprintf(buf, len, "%s %s", str(r, "device"), name);
}

/* The problem size of a record without a matrix (stream's n), as text. */
static void size_text(const fb_record *r, char *buf, size_t len)
{
    double n = fb_json_num(json_object_get(r->json, "params"), "n");
    if (isnan(n))
        buf[0] = '\0';
    else
        snprintf(buf, len, "%.0f", n);
}

static int is_peer(const fb_record *r) { return strncmp(str(r, "kernel"), "peer:", 5) == 0; }

/* What a record's problem is, for titles and axes: a grid family's grid is
 * no matrix ("matrix 101x101" was), nor is the solver's mesh. */
static const char *problem_kind(const fb_record *r)
{
    if (json_object_get(r->json, "grid")) return "grid";
    if (json_object_get(r->json, "mesh")) return "mesh";
    return "matrix";
}

/* The plural of problem_kind: "matrices", "grids", "meshes". */
static const char *problems_word(const fb_record *r)
{
    const char *kind = problem_kind(r);
    return !strcmp(kind, "grid") ? "grids" : !strcmp(kind, "mesh") ? "meshes" : "matrices";
}

/* ", grid " before the problem's name in a title, "" when it has none. */
static const char *problem_word(const fb_record *r)
{
    if (!*fb_record_matrix(r)) return "";
    return !strcmp(problem_kind(r), "grid") ? ", grid " : !strcmp(problem_kind(r), "mesh") ? ", mesh " : ", matrix ";
}

/* The group fields f's stem leaves out, most telling first (assign_names). */
static void set_qualifiers(fb_figure *f, const char *const *values, int n)
{
    for (int q = 0; q < n && q < FB_NAME_QUALIFIERS; ++q)
        snprintf(f->qualifier[q], sizeof f->qualifier[q], "%s", values[q]);
}

/* The case of a record drawn per matrix: it tells two sweeps of the same
 * matrix apart; for a record without a matrix the case is the stem's
 * problem already. */
static const char *case_beside_matrix(const fb_record *r)
{
    return *fb_record_matrix(r) && strcmp(str(r, "case"), fb_record_matrix(r)) != 0 ? str(r, "case") : "";
}

/* ---- stream bars and speedups -------------------------------------------- */

static int stream_record(const fb_record *r)
{
    return strcmp(str(r, "benchmark"), "stream") == 0 && fb_json_num(r->json, "gbs") > 0;
}

static void stream_group(const fb_record *r, char *buf, size_t len)
{
    char n[32];
    size_text(r, n, sizeof n);
    snprintf(buf, len, "%s|%s|%s%s", fb_record_host(r), str(r, "precision"), *n ? "n=" : "", n);
}

static void stream_describe(fb_figure *f, const fb_record *r)
{
    char n[32];
    size_text(r, n, sizeof n);
    snprintf(f->name, sizeof f->name, "stream %s n%s", str(r, "precision"), n);
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    snprintf(f->title, sizeof f->title, "Stream bandwidth (median) on %s, %s%s%s", fb_record_host(r),
             str(r, "precision"), *n ? ", n = " : "", n);
}

static fb_status stream_put(fb_figure *f, const fb_record *r)
{
    char dev[256];
    device_label(r, dev, sizeof dev);
    return figure_put_timed(f, str(r, "kernel"), dev, r, fb_json_num(r->json, "gbs"), 1);
}

/* Drops the rows no cell is in (a problem only OpenMP ran has no
 * speedup: it left an empty slot between the bars), keeping the order. */
static void drop_empty_rows(fb_figure *f)
{
    int kept = 0;
    for (int r = 0; r < f->nrows; ++r) {
        int used = 0;
        for (int i = 0; i < f->ncells && !used; ++i)
            used = f->cells[i].row == r;
        if (!used) {
            free(f->rows[r]);
            continue;
        }
        for (int i = 0; i < f->ncells; ++i)
            if (f->cells[i].row == r) f->cells[i].row = kept;
        f->rows[kept++] = f->rows[r];
    }
    f->nrows = kept;
}

/* Turns best times into OpenMP time / device time, dropping the OpenMP
 * column and the problems no device ran; 0 when the figure has no OpenMP
 * column or nothing else. A speedup is as trustworthy as the worse of its
 * two records. */
static int speedup_transform(fb_figure *f)
{
    int ref = -1, n = 0;
    for (int c = 0; c < f->ncols; ++c)
        if (fb_backend_is_baseline(f->cols[c])) ref = c;
    if (ref < 0) return 0;
    /* Read from a copy: compacting in place would overwrite the openmp
     * cells that later rows still need as their base. */
    fb_cell *orig = malloc((size_t)f->ncells * sizeof *orig);
    if (!orig) return 0;
    memcpy(orig, f->cells, (size_t)f->ncells * sizeof *orig);
    for (int i = 0; i < f->ncells; ++i) {
        fb_cell x = orig[i];
        const fb_cell *base = NULL;
        for (int j = 0; j < f->ncells; ++j)
            if (orig[j].row == x.row && orig[j].col == ref) base = &orig[j];
        if (x.col == ref || !base) continue;
        f->cells[n++] = (fb_cell){.row = x.row,
                                  .col = x.col > ref ? x.col - 1 : x.col,
                                  .value = base->value / x.value,
                                  .lo = NAN,
                                  .hi = NAN,
                                  .rec = x.rec,
                                  .base = base->rec,
                                  .quality = x.quality > base->quality ? x.quality : base->quality};
    }
    free(orig);
    free(f->cols[ref]);
    memmove(&f->cols[ref], &f->cols[ref + 1], (size_t)(f->ncols - ref - 1) * sizeof *f->cols);
    f->ncols--;
    f->ncells = n;
    drop_empty_rows(f);
    return n > 0;
}

static fb_status collect_speedup(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], n[32], dev[256];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const char *matrix = fb_record_matrix(r);
        int omp = fb_backend_is_baseline(str(r, "backend"));
        if (!latest_usable(r) || is_peer(r)) continue; /* peers are not flowbench's baseline */
        size_text(r, n, sizeof n);
        if (*matrix) n[0] = '\0';
        snprintf(group, sizeof group, "%s|%s|%s|%s", fb_record_host(r), str(r, "benchmark"), str(r, "precision"), n);
        fb_figure *f = figure_get(out, FB_FIG_SPEEDUP, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        if (omp) snprintf(f->ref, sizeof f->ref, "%.100s", str(r, "device_name"));
        snprintf(f->name, sizeof f->name, "speedup %s %s %s%s", str(r, "benchmark"), str(r, "precision"), *n ? "n" : "",
                 n);
        set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
        snprintf(f->title, sizeof f->title, "%s speedup over OpenMP (%s) on %s, %s%s%s", str(r, "benchmark"), f->ref,
                 fb_record_host(r), str(r, "precision"), *n ? ", n = " : "", n);
        device_label(r, dev, sizeof dev);
        FB_CHECK(cell_put(f, *matrix ? matrix : str(r, "kernel"), omp ? "openmp" : dev,
                          record_cell(r, fb_record_median(r)), 0));
    }
    figure_filter(out, speedup_transform);
fail:
    return status;
}

/* ---- matrices: variants, roofline fraction, performance profile ------- */

/* Group keys are compared, never shown: bounded parts keep them in 512 bytes. */
/* By device id, not name: the same GPU seen through cuda and opencl is two
 * sets of results that must not overwrite each other's columns. */
static void device_group(const fb_record *r, const char *extra, char *buf, size_t len)
{
    snprintf(buf, len, "%.64s|%.32s|%.128s|%.16s|%.250s", fb_record_host(r), str(r, "benchmark"), str(r, "device"),
             str(r, "precision"), extra);
}

/* Peer libraries measured on the same hardware through another backend
 * (same host, benchmark, precision and device name), added beside the
 * kernels ("peer:cusparse (cuda:0)" beside the opencl kernels of that
 * GPU). A peer of another device is no peer of these kernels: the OpenMP
 * GraphBLAS peer once stood in the OpenCL (PoCL) figure. */
static fb_status add_foreign_peers(const fb_results_set *set, fb_figure *f)
{
    fb_status status = FB_OK;
    char col[256];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !is_peer(r) || !*fb_record_matrix(r)) continue;
        if (strcmp(str(r, "device"), str(f->rep, "device")) == 0) continue;
        if (strcmp(str(r, "device_name"), str(f->rep, "device_name")) != 0) continue;
        if (strcmp(fb_record_host(r), fb_record_host(f->rep)) ||
            strcmp(str(r, "precision"), str(f->rep, "precision")) ||
            strcmp(str(r, "benchmark"), str(f->rep, "benchmark")))
            continue;
        snprintf(col, sizeof col, "%s (%s)", str(r, "kernel"), str(r, "device"));
        FB_CHECK(figure_put_timed(f, fb_record_matrix(r), col, r, fb_json_num(r->json, "gflops"), 1));
    }
fail:
    return status;
}

#define CACHE_MARK " (cache resident)"
#define UNSTABLE_MARK " (unstable)"
#define CONTENDED_MARK " (contended)"

/* Whether the record's working set fitted its device's last-level cache,
 * as the command that measured it judged (stream, spmv, grid, solve: a
 * sweep's records are not judged). */
static int record_resident(const fb_record *r) { return json_is_true(json_object_get(r->json, "cache_resident")); }

/* The roofline's row of a record: its matrix, marked when the working set
 * fitted the last-level cache (then the bar is no roofline fraction, and a
 * bar above 1 is no mystery), and when its samples were unstable or other
 * work contended for its CPUs (then the bar is no figure to trust). A
 * marked record gets a row of its own, beside its matrix's trusted bars. */
static const char *matrix_row(const fb_record *r, fb_figure_kind kind, char *buf, size_t len)
{
    const int roofline = kind == FB_FIG_FRACTION;
    const int resident = roofline && record_resident(r);
    const fb_quality q = roofline ? fb_json_quality(r->json, NULL) : FB_QUALITY_STABLE;
    snprintf(buf, len, "%s%s%s", fb_record_matrix(r), resident ? CACHE_MARK : "",
             q == FB_QUALITY_UNSTABLE    ? UNSTABLE_MARK
             : q == FB_QUALITY_CONTENDED ? CONTENDED_MARK
                                         : "");
    return buf;
}

static int has_row_marked(const fb_figure *f, const char *mark)
{
    for (int i = 0; i < f->nrows; ++i)
        if (strstr(f->rows[i], mark)) return 1;
    return 0;
}

/* The title says what the rows' marks mean. */
static void note_marked_rows(fb_figure *f)
{
    size_t n = strlen(f->title);
    if (has_row_marked(f, CACHE_MARK))
        snprintf(f->title + n, sizeof f->title - n, "; cache resident: the data fit the last-level cache");
    n = strlen(f->title);
    if (has_row_marked(f, UNSTABLE_MARK) || has_row_marked(f, CONTENDED_MARK))
        snprintf(f->title + n, sizeof f->title - n, "; unstable or contended: not a figure to trust");
}

static fb_status collect_per_matrix(const fb_results_set *set, fb_figure_kind kind, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], row[600];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        double v = kind == FB_FIG_VARIANTS ? fb_json_num(r->json, "gflops") : fb_record_fraction(set, r);
        if (!latest_usable(r) || !*fb_record_matrix(r) || isnan(v)) continue;
        /* block matrices apart: their kernels (bcsr-*) and the scalar ones'
         * (csr-*) never run on one matrix, and side by side each cluster of
         * bars was half empty slots */
        const double block = fb_json_num(r->json, "matrix.block.size");
        char blocks[32] = "";
        if (block > 1) snprintf(blocks, sizeof blocks, "blocks of %.0f", block);
        device_group(r, blocks, group, sizeof group);
        fb_figure *f = figure_get(out, kind, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "%s %s %s %s%s%s", kind == FB_FIG_VARIANTS ? "variants" : "fraction",
                 str(r, "benchmark"), str(r, "device"), str(r, "precision"), *blocks ? " " : "", blocks);
        set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
        snprintf(f->xlabel, sizeof f->xlabel, "%s", problem_kind(r));
        snprintf(f->title, sizeof f->title, "%s %s %s%s%s on %s %s (%s), %s", str(r, "benchmark"),
                 kind == FB_FIG_VARIANTS ? "kernel variants per" : "fraction of the stream triad per", problem_kind(r),
                 *blocks ? " in " : "", blocks, str(r, "device"), str(r, "device_name"), fb_record_host(r),
                 str(r, "precision"));
        FB_CHECK(figure_put_timed(f, matrix_row(r, kind, row, sizeof row), str(r, "kernel"), r, v, 1));
    }
    for (int i = 0; i < out->n && kind == FB_FIG_FRACTION; ++i)
        note_marked_rows(&out->f[i]);
    for (int i = 0; i < out->n && kind == FB_FIG_VARIANTS; ++i)
        FB_CHECK(add_foreign_peers(set, &out->f[i]));
fail:
    return status;
}

static fb_status collect_variants(const fb_results_set *set, fb_figure_list *out)
{
    return collect_per_matrix(set, FB_FIG_VARIANTS, out);
}

static fb_status collect_fraction(const fb_results_set *set, fb_figure_list *out)
{
    return collect_per_matrix(set, FB_FIG_FRACTION, out);
}

static int keep_profile(fb_figure *f) { return f->nrows >= 2 && f->ncols >= 2; }

/* Keeps the rows r with to[r] >= 0, as row to[r]. */
static void renumber_rows(fb_figure *f, const int *to)
{
    int n = 0, m = 0;
    for (int r = 0; r < f->nrows; ++r) {
        if (to[r] >= 0)
            f->rows[n++] = f->rows[r];
        else
            free(f->rows[r]);
    }
    for (int i = 0; i < f->ncells; ++i)
        if (to[f->cells[i].row] >= 0) {
            f->cells[m] = f->cells[i];
            f->cells[m++].row = to[f->cells[i].row];
        }
    f->nrows = n;
    f->ncells = m;
}

/* Drops the matrices some solver did not run: a profile counts such a
 * matrix as one the solver never reaches, which caps its curve (at 0.5 for
 * a solver that ran half of them) however fast it was where it ran. */
static fb_status drop_incomplete_rows(fb_figure *f)
{
    fb_status status = FB_OK;
    int *count = NULL, *to = NULL, n = 0;
    FB_ALLOC(count, f->nrows, "profile rows");
    FB_ALLOC(to, f->nrows, "profile rows");
    for (int i = 0; i < f->ncells; ++i)
        count[f->cells[i].row]++;
    for (int r = 0; r < f->nrows; ++r)
        to[r] = count[r] == f->ncols ? n++ : -1;
    renumber_rows(f, to);
fail:
    free(count);
    free(to);
    return status;
}

/* Each profile over the problems every solver ran, titled with how many;
 * a note for one left with fewer than two. */
static fb_status finish_profiles(fb_figure_list *out)
{
    fb_status status = FB_OK;
    char suite[160], note[640];
    for (int i = 0; i < out->n; ++i) {
        fb_figure *f = &out->f[i];
        const fb_record *r = f->rep;
        int measured = f->nrows;
        if (!keep_profile(f)) continue;
        FB_CHECK(drop_incomplete_rows(f));
        snprintf(suite, sizeof suite, *str(r, "suite") ? " (suite %.140s)" : "%s", str(r, "suite"));
        /* heat2d's and fv-surface's problems are grids: the axes say so */
        snprintf(f->xlabel, sizeof f->xlabel, "%s", problem_kind(r));
        snprintf(f->ylabel, sizeof f->ylabel, "%s", problems_word(r));
        snprintf(f->title, sizeof f->title, "%s performance profile over %d %s all %d solvers ran on%s; %s, %s",
                 str(r, "benchmark"), f->nrows, f->ylabel, f->ncols, suite, fb_record_host(r), str(r, "precision"));
        if (f->nrows >= 2) continue;
        snprintf(note, sizeof note,
                 "performance profile %s %s%s: only %d of its %d %s were run by all %d solvers; not drawn",
                 str(r, "benchmark"), str(r, "precision"), suite, f->nrows, measured, f->ylabel, f->ncols);
        FB_CHECK(list_note(out, note));
    }
    figure_filter(out, keep_profile);
fail:
    return status;
}

/* The profile group of a record (host, benchmark, precision, suite) and its
 * solver ("kernel @ device"); 0 for a record no profile draws. */
static int profile_record(const fb_record *r, char *group, size_t glen, char *solver, size_t slen)
{
    if (!latest_usable(r) || !*fb_record_matrix(r)) return 0;
    snprintf(group, glen, "%.64s|%.32s|%.16s|%.250s", fb_record_host(r), str(r, "benchmark"), str(r, "precision"),
             str(r, "suite"));
    snprintf(solver, slen, "%s @ %s", str(r, "kernel"), str(r, "device"));
    return 1;
}

static int column_of(const fb_figure *f, const char *label)
{
    for (int c = 0; c < f->ncols; ++c)
        if (strcmp(f->cols[c], label) == 0) return c;
    return -1;
}

/* comp[c]: which set of linked solvers column c is in (two solvers are
 * linked when they ran a common matrix), numbered 0, 1, ... in column
 * order. Labels spread along shared rows until nothing changes. */
static fb_status solver_components(const fb_figure *f, int *comp)
{
    fb_status status = FB_OK;
    int *row_min = NULL, *number = NULL, changed = 1, n = 0;
    FB_ALLOC(row_min, f->nrows, "profile solver sets");
    FB_ALLOC(number, f->ncols, "profile solver sets");
    for (int c = 0; c < f->ncols; ++c)
        comp[c] = c;
    while (changed) {
        changed = 0;
        for (int r = 0; r < f->nrows; ++r)
            row_min[r] = f->ncols;
        for (int i = 0; i < f->ncells; ++i)
            row_min[f->cells[i].row] =
                comp[f->cells[i].col] < row_min[f->cells[i].row] ? comp[f->cells[i].col] : row_min[f->cells[i].row];
        for (int i = 0; i < f->ncells; ++i) {
            int *c = &comp[f->cells[i].col];
            if (*c > row_min[f->cells[i].row]) *c = row_min[f->cells[i].row], changed = 1;
        }
    }
    for (int c = 0; c < f->ncols; ++c)
        number[c] = -1;
    for (int c = 0; c < f->ncols; ++c)
        comp[c] = number[comp[c]] >= 0 ? number[comp[c]] : (number[comp[c]] = n++);
fail:
    free(row_min);
    free(number);
    return status;
}

/* One profile figure per group and set of linked solvers: solvers with no
 * matrix in common (the CSR kernels on the CSR matrices, the BCSR kernels
 * on their block forms) cannot be compared, and together no matrix would
 * be one all of them ran. `whole` holds the groups undivided. */
static fb_status profile_by_solver_set(const fb_results_set *set, const fb_figure_list *whole, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], solver[256], key[600];
    int **comps = NULL;
    FB_ALLOC(comps, whole->n, "profile solver sets");
    for (int g = 0; g < whole->n; ++g) {
        FB_ALLOC(comps[g], whole->f[g].ncols, "profile solver sets");
        FB_CHECK(solver_components(&whole->f[g], comps[g]));
    }
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        int g = 0;
        if (!profile_record(r, group, sizeof group, solver, sizeof solver)) continue;
        while (strcmp(whole->f[g].group, group) != 0)
            ++g;
        snprintf(key, sizeof key, "%s|%d", group, comps[g][column_of(&whole->f[g], solver)]);
        fb_figure *f = figure_get(out, FB_FIG_PROFILE, key, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "profile %s %s", str(r, "benchmark"), str(r, "precision"));
        FB_CHECK(figure_put(f, fb_record_matrix(r), solver, fb_record_median(r), 0));
        set_qualifiers(f, (const char *[]){str(f->rep, "case"), f->rows[0], str(r, "suite"), fb_record_host(r)}, 4);
    }
fail:
    for (int g = 0; comps && g < whole->n; ++g)
        free(comps[g]);
    free(comps);
    return status;
}

static fb_status collect_profile(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    fb_figure_list whole = {0};
    char group[512], solver[256];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!profile_record(r, group, sizeof group, solver, sizeof solver)) continue;
        fb_figure *f = figure_get(&whole, FB_FIG_PROFILE, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        FB_CHECK(figure_put(f, fb_record_matrix(r), solver, 0, 0));
    }
    FB_CHECK(profile_by_solver_set(set, &whole, out));
    FB_CHECK(finish_profiles(out));
fail:
    fb_figure_list_free(&whole);
    return status;
}

/* ---- block shapes ---------------------------------------------------------- */

/* The value of the record's parameter that plays `role` in its family's
 * kernel (fb_param_axis.role), or NAN: figures know no define by name. */
static double param_with_role(const fb_record *r, fb_axis_role role)
{
    const fb_family *f = fb_family_find(str(r, "benchmark"));
    if (!f) return NAN;
    int k = fb_family_kernel_find(f, str(r, "kernel"));
    if (k < 0)
        k = fb_family_kernel_find(f, fb_json_str(r->json, "kernel_file.like")); /* a user's file: its template's */
    const fb_param_axis *a = fb_family_axis_with_role(f, k, role);
    return a ? fb_json_num(json_object_get(r->json, "params"), a->name) : NAN;
}

/* "XxY" from the work-group shape axes, or "KxK" from a block matrix's
 * block size; 0 if the record has neither. */
static int block_shape(const fb_record *r, char *buf, size_t len)
{
    double x = param_with_role(r, FB_ROLE_GROUP_X), y = param_with_role(r, FB_ROLE_GROUP_Y);
    double k = fb_json_num(r->json, "matrix.block");
    if (!isnan(x) && !isnan(y))
        snprintf(buf, len, "%gx%g", x, y);
    else if (k >= 1)
        snprintf(buf, len, "%gx%g", k, k);
    else
        return 0;
    return 1;
}

/* Bars or lines need two x values to compare anything. */
static int keep_two_rows(fb_figure *f) { return f->nrows >= 2; }

static fb_status collect_blockshape(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], shape[64], extra[256];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        double gbs = fb_json_num(r->json, "gbs");
        if (!latest_usable(r) || !(gbs > 0) || !block_shape(r, shape, sizeof shape)) continue;
        snprintf(extra, sizeof extra, "%s|%s|%s", fb_record_matrix(r), str(r, "suite"), str(r, "case"));
        device_group(r, extra, group, sizeof group);
        fb_figure *f = figure_get(out, FB_FIG_BLOCKSHAPE, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "blockshape %s %s %s %.40s", str(r, "benchmark"), str(r, "device"),
                 str(r, "precision"), *fb_record_matrix(r) ? fb_record_matrix(r) : str(r, "case"));
        set_qualifiers(f, (const char *[]){case_beside_matrix(r), str(r, "suite"), fb_record_host(r)}, 3);
        snprintf(f->title, sizeof f->title, "%s block shapes on %s%s%s, %s", str(r, "benchmark"), str(r, "device_name"),
                 problem_word(r), fb_record_matrix(r), str(r, "precision"));
        FB_CHECK(figure_put_timed(f, shape, str(r, "kernel"), r, gbs, 1));
    }
    figure_filter(out, keep_two_rows);
fail:
    return status;
}

/* ---- time per cell by block shape or layout (grid families) --------------- */

/* The x label of a grid record: its work-group shape ("32x4") or, without
 * one, its cell layout ("soa"); 0 if it has neither. */
static int shape_or_layout(const fb_record *r, char *buf, size_t len)
{
    const char *layout = str(r, "layout");
    if (block_shape(r, buf, len)) return 1;
    if (!*layout) return 0;
    snprintf(buf, len, "%s", layout);
    return 1;
}

/* The bar of a record: its kernel, and its array order where its kernel
 * has one (heat2d's ORDER), so row- and column-major stand side by side. */
static void percell_series(const fb_record *r, char *buf, size_t len)
{
    double order = param_with_role(r, FB_ROLE_ORDER);
    if (isnan(order))
        snprintf(buf, len, "%s", str(r, "kernel"));
    else
        snprintf(buf, len, "%s %s", str(r, "kernel"), order == 0 ? "row-major" : "column-major");
}

static int percell_record(const fb_record *r)
{
    char row[64];
    return fb_json_num(r->json, "ns_per_cell") > 0 && shape_or_layout(r, row, sizeof row);
}

static void percell_group(const fb_record *r, char *buf, size_t len) { device_group(r, fb_record_matrix(r), buf, len); }

static void percell_describe(fb_figure *f, const fb_record *r)
{
    snprintf(f->name, sizeof f->name, "percell %s %s %s %.40s", str(r, "benchmark"), str(r, "device"),
             str(r, "precision"), fb_record_matrix(r));
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    snprintf(f->title, sizeof f->title, "%s time per cell, %.40s, grid %s, %s", str(r, "benchmark"),
             str(r, "device_name"), fb_record_matrix(r), str(r, "precision"));
}

static fb_status percell_put(fb_figure *f, const fb_record *r)
{
    char row[64], col[160];
    shape_or_layout(r, row, sizeof row);
    percell_series(r, col, sizeof col);
    return figure_put_timed(f, row, col, r, fb_json_num(r->json, "ns_per_cell"), 0);
}

/* ---- the solver's time split per backend (the paper's Tables 5 and 6) ---- */

static int solve_record(const fb_record *r) { return strcmp(str(r, "benchmark"), "solve") == 0; }

static int steps_record(const fb_record *r)
{
    return solve_record(r) && fb_json_num(r->json, "timings.step1.total_s") > 0;
}

/* The solver's figures: one per host, precision and problem, a bar per backend. */
static void solve_group(const fb_record *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.64s|%.16s|%.250s", fb_record_host(r), str(r, "precision"), fb_record_matrix(r));
}

static void steps_describe(fb_figure *f, const fb_record *r)
{
    snprintf(f->name, sizeof f->name, "steps %s %.60s", str(r, "precision"), fb_record_matrix(r));
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    snprintf(f->title, sizeof f->title, "solve %s on %s: time split per backend, %g steps", fb_record_matrix(r),
             fb_record_host(r), fb_json_num(r->json, "steps"));
}

static fb_status steps_put(fb_figure *f, const fb_record *r)
{
    static const char *const parts[] = {"CPU->GPU", "step 1 (momentum)", "step 2 (pressure CG)", "step 3 (correction)",
                                        "GPU->CPU"};
    static const char *const fields[] = {"timings.cpu_to_gpu_s", "timings.step1.total_s", "timings.step2.total_s",
                                         "timings.step3.total_s", "timings.gpu_to_cpu_s"};
    fb_status status = FB_OK;
    char dev[256];
    device_label(r, dev, sizeof dev);
    const double ranks = fb_json_num(r->json, "mpi.ranks");
    if (ranks > 1) snprintf(dev + strlen(dev), sizeof dev - strlen(dev), " x %.0f ranks", ranks);
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k) {
        const double v = fb_json_num(r->json, fields[k]);
        FB_CHECK(cell_put(f, dev, parts[k], record_cell(r, isnan(v) ? 0.0 : v), 0));
    }
fail:
    return status;
}

/* ---- energy: GFLOP/J beside GB/s, the solver's joules per step ---------- */

static int throttled(const fb_record *r) { return json_is_true(fb_json_get(r->json, "energy.throttled")); }

static void note_throttled(fb_figure *f)
{
    size_t n = strlen(f->title);
    if (!strstr(f->title, "throttled"))
        snprintf(f->title + n, sizeof f->title - n, "; some measured while the device throttled");
}

/* One figure per host, benchmark, device, precision and problem: a row per
 * kernel (its best settings for each figure, as everywhere), GB/s and
 * GFLOP/J side by side (plots/energy.gp draws two panels). */
static int energy_record(const fb_record *r)
{
    return fb_json_num(r->json, "energy.gflop_per_j") > 0 && !isnan(fb_json_num(r->json, "gbs"));
}

static void energy_group(const fb_record *r, char *buf, size_t len) { device_group(r, fb_record_matrix(r), buf, len); }

static void energy_describe(fb_figure *f, const fb_record *r)
{
    snprintf(f->name, sizeof f->name, "energy %s %s %s %.60s", str(r, "benchmark"), str(r, "device"),
             str(r, "precision"), fb_record_matrix(r));
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    if (!f->title[0])
        snprintf(f->title, sizeof f->title, "%s %s on %s %.40s (%s), %s: GB/s and GFLOP/J (%s)", str(r, "benchmark"),
                 *fb_record_matrix(r) ? fb_record_matrix(r) : "", str(r, "device"), str(r, "device_name"),
                 fb_record_host(r), str(r, "precision"), fb_json_str(r->json, "energy.source"));
}

static fb_status energy_put(fb_figure *f, const fb_record *r)
{
    fb_status status = FB_OK;
    FB_CHECK(cell_put(f, str(r, "kernel"), "GB/s", record_cell(r, fb_json_num(r->json, "gbs")), 1));
    FB_CHECK(cell_put(f, str(r, "kernel"), "GFLOP/J", record_cell(r, fb_json_num(r->json, "energy.gflop_per_j")), 1));
    if (throttled(r)) note_throttled(f);
fail:
    return status;
}

/* One figure per host, precision and problem, as the time split: a bar per
 * backend (device), joules per time step over the time loop. */
static int energy_steps_record(const fb_record *r)
{
    return solve_record(r) && fb_json_num(r->json, "energy.joules_per_step") > 0;
}

static void energy_steps_describe(fb_figure *f, const fb_record *r)
{
    snprintf(f->name, sizeof f->name, "stepenergy %s %.60s", str(r, "precision"), fb_record_matrix(r));
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    snprintf(f->title, sizeof f->title, "solve %s on %s: energy per time step per backend, %g steps",
             fb_record_matrix(r), fb_record_host(r), fb_json_num(r->json, "steps"));
}

static fb_status energy_steps_put(fb_figure *f, const fb_record *r)
{
    char dev[256];
    device_label(r, dev, sizeof dev);
    fb_status status =
        cell_put(f, dev, "J per step", record_cell(r, fb_json_num(r->json, "energy.joules_per_step")), 0);
    if (status == FB_OK && throttled(r)) note_throttled(f);
    return status;
}

/* ---- scaling over ranks --------------------------------------------------- */

/* One figure per (host, benchmark, mode, backend and device): a line per
 * problem of its speedup against the study's first rank count; the script
 * draws the ideal line and the efficiency (speedup / (ranks / first)). */
static int scaling_record(const fb_record *r)
{
    return fb_json_num(r->json, "scaling.ranks") >= 1 && fb_json_num(r->json, "scaling.speedup") > 0;
}

static void scaling_group(const fb_record *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.64s|%.32s|%.16s|%.200s|%.128s", fb_record_host(r), str(r, "benchmark"),
             str(r, "scaling.mode"), str(r, "device"), str(r, "device_name"));
}

static void scaling_describe(fb_figure *f, const fb_record *r)
{
    const char *mode = str(r, "scaling.mode");
    snprintf(f->name, sizeof f->name, "scaling %s %s", mode, str(r, "benchmark"));
    set_qualifiers(f, (const char *[]){str(r, "backend"), fb_record_host(r)}, 2);
    snprintf(f->title, sizeof f->title, "%s scaling of %s on %s, %s: speedup and parallel efficiency", mode,
             str(r, "benchmark"), fb_record_host(r), str(r, "backend"));
    snprintf(f->xlabel, sizeof f->xlabel, "ranks");
}

static fb_status scaling_put(fb_figure *f, const fb_record *r)
{
    char ranks[32];
    snprintf(ranks, sizeof ranks, "%.0f", fb_json_num(r->json, "scaling.ranks"));
    /* weak scaling grows the mesh with the ranks: one line per case, not per mesh */
    const int weak = strcmp(str(r, "scaling.mode"), "weak") == 0;
    const char *line = weak && *str(r, "case") ? str(r, "case") : fb_record_matrix(r);
    return figure_put(f, ranks, line, fb_json_num(r->json, "scaling.speedup"), 1);
}

/* ---- heat maps over two swept parameters -------------------------------- */

static void value_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        snprintf(buf, len, "%g", json_number_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
}

static void sweep_group(const fb_record *r, char *buf, size_t len)
{
    char extra[512];
    snprintf(extra, sizeof extra, "%s|%s|%s|%s|%s", str(r, "kernel"), str(r, "device"), fb_record_matrix(r),
             str(r, "suite"), str(r, "case"));
    device_group(r, extra, buf, len);
}

/* How many distinct values parameter `name` takes over the records of f's
 * group; -1 when out of memory. */
static int distinct_values(const fb_results_set *set, const char *group, const char *name)
{
    char **seen = NULL, g[512], v[64];
    int n = 0, bad = 0;
    for (int i = 0; i < set->nrecords && !bad; ++i) {
        const fb_record *r = &set->records[i];
        const json_t *x = json_object_get(json_object_get(r->json, "params"), name);
        if (!latest_usable(r) || !x) continue;
        sweep_group(r, g, sizeof g);
        if (strcmp(g, group) != 0) continue;
        value_text(x, v, sizeof v);
        bad = label_index(&seen, &n, v) < 0;
    }
    for (int i = 0; i < n; ++i)
        free(seen[i]);
    free(seen);
    return bad ? -1 : n;
}

typedef struct axis {
    const char *name;
    int nvalues, order;
} axis;

/* More values first; on a tie the parameter the record lists first (the
 * kernel's declaration order: work-group size before rows per work-group). */
static int cmp_axis(const void *a, const void *b)
{
    const axis *x = a, *y = b;
    return x->nvalues != y->nvalues ? y->nvalues - x->nvalues : x->order - y->order;
}

/* Picks the two parameters with the most values (at least 2 each) as the
 * axes; any other swept parameter is maximised over and named in f->ref. */
static fb_status pick_axes(const fb_results_set *set, fb_figure *f, int *ok)
{
    fb_status status = FB_OK;
    const json_t *params = json_object_get(f->rep->json, "params");
    axis *axes = NULL;
    const char *k;
    json_t *v;
    int n = 0;
    FB_ALLOC(axes, json_object_size(params), "heat map axes");
    json_object_foreach((json_t *)params, k, v)
    {
        int count = distinct_values(set, f->group, k);
        if (count < 0) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a heat map");
        if (count >= 2) {
            axes[n] = (axis){k, count, n};
            n++;
        }
    }
    if (n > 1) qsort(axes, (size_t)n, sizeof *axes, cmp_axis);
    *ok = n >= 2;
    if (n >= 2) {
        snprintf(f->xlabel, sizeof f->xlabel, "%s", axes[0].name);
        snprintf(f->ylabel, sizeof f->ylabel, "%s", axes[1].name);
    }
    for (int i = 2; i < n; ++i)
        snprintf(f->ref + strlen(f->ref), sizeof f->ref - strlen(f->ref), "%s%s", i > 2 ? ", " : "", axes[i].name);
fail:
    free(axes);
    return status;
}

static fb_status fill_heatmap(const fb_results_set *set, fb_figure *f)
{
    fb_status status = FB_OK;
    char g[512], x[64], y[64];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const json_t *params = json_object_get(r->json, "params");
        const json_t *xv = json_object_get(params, f->xlabel), *yv = json_object_get(params, f->ylabel);
        double gbs = fb_json_num(r->json, "gbs");
        if (!latest_usable(r) || !xv || !yv || !(gbs > 0)) continue;
        sweep_group(r, g, sizeof g);
        if (strcmp(g, f->group) != 0) continue;
        value_text(xv, x, sizeof x);
        value_text(yv, y, sizeof y);
        FB_CHECK(cell_put(f, y, x, record_cell(r, gbs), 1)); /* a stable record first, as the bars */
    }
    snprintf(f->name, sizeof f->name, "heatmap %s %s %s %.40s", str(f->rep, "kernel"), str(f->rep, "device"),
             str(f->rep, "precision"), *fb_record_matrix(f->rep) ? fb_record_matrix(f->rep) : str(f->rep, "case"));
    set_qualifiers(f,
                   (const char *[]){case_beside_matrix(f->rep), str(f->rep, "suite"), str(f->rep, "benchmark"),
                                    fb_record_host(f->rep)},
                   4);
    snprintf(f->title, sizeof f->title, "%s %s on %s%s%s, %s: GB/s%s%s%s", str(f->rep, "benchmark"),
             str(f->rep, "kernel"), str(f->rep, "device_name"), problem_word(f->rep), fb_record_matrix(f->rep),
             str(f->rep, "precision"), *f->ref ? " (best over " : "", f->ref, *f->ref ? ")" : "");
fail:
    return status;
}

/* A grid mostly blank (three block shapes on a 3 x 3 grid) says nothing a
 * bar chart does not: heat maps need at least half their cells. */
static int keep_heatmap(fb_figure *f) { return f->ncells > 0 && 2 * f->ncells >= f->nrows * f->ncols; }

static fb_status collect_heatmap(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || json_object_size(json_object_get(r->json, "params")) < 2) continue;
        sweep_group(r, group, sizeof group);
        if (!figure_get(out, FB_FIG_HEATMAP, group, r)) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
    }
    for (int i = 0; i < out->n; ++i) {
        int ok = 0;
        FB_CHECK(pick_axes(set, &out->f[i], &ok));
        if (ok) FB_CHECK(fill_heatmap(set, &out->f[i]));
    }
    figure_filter(out, keep_heatmap);
fail:
    return status;
}

/* ---- the roofline: GFLOP/s against arithmetic intensity --------------------- */

/* The header's entry for the record's device, or NULL. An OpenCL device
 * says no compute capability: the CUDA entry of the same name (the same
 * GPU) stands in for it where the header has one. */
static const json_t *device_properties(const fb_record *r)
{
    size_t i;
    const json_t *d, *own = NULL;
    if (!r->header) return NULL;
    json_array_foreach(json_object_get(r->header, "devices"), i, d)
    {
        if (!strcmp(fb_json_str(d, "id"), str(r, "device"))) own = d;
    }
    json_array_foreach(json_object_get(r->header, "devices"), i, d)
    {
        if (own && !*fb_json_str(own, "compute_capability") && *fb_json_str(d, "compute_capability") &&
            !strcmp(fb_json_str(d, "name"), fb_json_str(own, "name")))
            return d;
    }
    return own;
}

/* A CPU's flops per cycle per core: two FMA units (as on every x86 core
 * since Haswell and most Arm server cores; an upper bound elsewhere) of
 * the vector width the CPU reports (the header's device "simd", from
 * /proc/cpuinfo: avx512f 512 bits, avx2 256, sse2 and NEON 128, SVE its
 * length), an FMA being two flops. A record without it (written before
 * flowbench read the ISA) is taken as AVX2, and the key says so. */
static double cpu_flops_per_cycle(const json_t *dev, int is_double, char *why, size_t len)
{
    const double bits = fb_json_num(dev, "simd.vector_bits");
    const int known = bits >= 64;
    const double lanes = (known ? bits : 256) / (is_double ? 64 : 32);
    if (known)
        snprintf(why, len, "%g flop/cycle per core (%s, %g-bit vectors: 2 FMA units x %g lanes assumed)", 4 * lanes,
                 fb_json_str(dev, "simd.isa"), bits, lanes);
    else
        snprintf(why, len, "%g flop/cycle per core (assumed AVX2: 2 FMA units x %g lanes; the record names no ISA)",
                 4 * lanes, lanes);
    return 4 * lanes;
}

/* Flops per cycle per compute unit that the device's properties imply, 0
 * when they do not say: NVIDIA by compute capability (FP64 and FP32 lanes
 * per SM, an FMA being two flops), a CPU (OpenMP, or an OpenCL CPU device)
 * by its vector ISA. */
static double flops_per_cycle(const json_t *dev, int is_double, char *why, size_t len)
{
    static const struct {
        const char *cc;
        double fp64, fp32;
    } nvidia[] = {{"7.0", 64, 128}, {"8.0", 64, 128}, {"9.0", 128, 256}, {"7.5", 4, 128},
                  {"8.6", 4, 256},  {"8.9", 4, 256},  {"12.0", 4, 256}};
    const char *cc = fb_json_str(dev, "compute_capability"), *backend = fb_json_str(dev, "backend");
    for (size_t i = 0; *cc && i < sizeof nvidia / sizeof *nvidia; ++i)
        if (!strcmp(cc, nvidia[i].cc)) {
            snprintf(why, len, "%g flop/cycle per SM (compute capability %s)",
                     is_double ? nvidia[i].fp64 : nvidia[i].fp32, cc);
            return is_double ? nvidia[i].fp64 : nvidia[i].fp32;
        }
    return fb_device_is_host_cpu(backend, dev) ? cpu_flops_per_cycle(dev, is_double, why, len) : 0;
}

/* The compute ceiling: from the device's properties (units x clock x flops
 * per cycle) where they imply one, else the best GFLOP/s measured on the
 * device here; *why says which, for the figure's key. */
static double peak_gflops(const fb_results_set *set, const fb_record *rep, char *why, size_t len)
{
    const json_t *dev = device_properties(rep);
    char per_cycle[160];
    const int is_double = strcmp(str(rep, "precision"), "single") != 0;
    const double units = fb_json_num(dev, "compute_units"), mhz = fb_json_num(dev, "clock_mhz");
    const double fpc = dev ? flops_per_cycle(dev, is_double, per_cycle, sizeof per_cycle) : 0;
    double best = 0;
    if (fpc > 0 && units > 0 && mhz > 0) {
        snprintf(why, len, "peak %.6g GFLOP/s from device properties: %.0f units x %.0f MHz x %s",
                 units * mhz * fpc / 1e3, units, mhz, per_cycle);
        return units * mhz * fpc / 1e3;
    }
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (latest_usable(r) && !strcmp(str(r, "device"), str(rep, "device")))
            best = fmax(best, fb_json_num(r->json, "gflops"));
    }
    snprintf(why, len, "peak %.6g GFLOP/s measured (the best record here; the properties give none)", best);
    return best;
}

/* The device's one triad (set->device_triad, else the record's own). */
static double triad_of(const fb_results_set *set, const fb_record *r)
{
    const double t = fb_record_triad(set, r);
    if (t > 0) return t;
    const double f = fb_record_fraction(set, r), gbs = fb_json_num(r->json, "gbs");
    return f > 0 ? gbs / f : NAN;
}

static fb_figure *roofline_figure(const fb_results_set *set, fb_figure_list *out, const fb_record *r)
{
    char group[512];
    snprintf(group, sizeof group, "%.64s|%.128s|%.16s", fb_record_host(r), str(r, "device"), str(r, "precision"));
    fb_figure *f = figure_get(out, FB_FIG_ROOFLINE, group, r);
    if (!f || f->title[0]) return f;
    snprintf(f->name, sizeof f->name, "roofline %s %s", str(r, "device"), str(r, "precision"));
    set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
    f->ceiling_gbs = triad_of(set, r);
    f->ceiling_gflops = peak_gflops(set, r, f->ceiling_why, sizeof f->ceiling_why);
    snprintf(f->title, sizeof f->title, "Roofline of %s %s (%s), %s", str(r, "device"), str(r, "device_name"),
             fb_record_host(r), str(r, "precision"));
    snprintf(f->xlabel, sizeof f->xlabel, "arithmetic intensity [flop / model byte]");
    snprintf(f->ylabel, sizeof f->ylabel, "GFLOP/s (median)");
    return f;
}

/* A point per problem and kernel; a problem whose working set fitted the
 * last-level cache is named so in the key (its point may sit above the
 * triad's roof). */
static fb_status roofline_point(fb_figure *f, const char *problem, const char *col, const fb_record *r, double flops,
                                double bytes, double gflops)
{
    char row[600];
    if (!(flops > 0 && bytes > 0 && gflops > 0)) return FB_OK;
    fb_cell cell = record_cell(r, gflops);
    cell.x = flops / bytes;
    snprintf(row, sizeof row, "%s%s", problem, record_resident(r) ? CACHE_MARK : "");
    return cell_put(f, row, col, cell, 1);
}

/* The solver's steps as points where its record counts their flops
 * (timings.stepN.flops; GFLOP/s from the step's time): each step a kernel
 * of its own ("solve step1"), the case its problem, so the cases of a run
 * take a point type each rather than three. */
static fb_status roofline_steps(fb_figure *f, const fb_record *r)
{
    static const char *const steps[] = {"step1", "step2", "step3"};
    fb_status status = FB_OK;
    char path[2][64], col[32];
    for (int s = 0; s < 3; ++s) {
        snprintf(path[0], sizeof path[0], "timings.%s.flops", steps[s]);
        snprintf(path[1], sizeof path[1], "timings.%s.bytes", steps[s]);
        const double flops = fb_json_num(r->json, path[0]), bytes = fb_json_num(r->json, path[1]);
        snprintf(col, sizeof col, "solve %s", steps[s]);
        snprintf(path[0], sizeof path[0], "timings.%s.total_s", steps[s]);
        const double seconds = fb_json_num(r->json, path[0]) / fb_json_num(r->json, "steps");
        FB_CHECK(roofline_point(f, fb_record_matrix(r), col, r, flops, bytes, flops / seconds / 1e9));
    }
fail:
    return status;
}

/* A roofline needs a point and both ceilings. */
static int keep_points(fb_figure *f) { return f->ncells > 0 && f->ceiling_gbs > 0 && f->ceiling_gflops > 0; }

static int is_stream_triad(const fb_record *r)
{
    return !strcmp(str(r, "benchmark"), "stream") && !strcmp(str(r, "kernel"), "triad") &&
           fb_json_num(r->json, "gbs") > 0;
}

/* A stream record's 3 arrays against its device's cache (records before
 * the fields: from working_set_bytes and device_cache_bytes): within it
 * (factor 1) or under 4x it (the figures include cache reuse). */
static int stream_within(const fb_record *r, const char *field, double factor)
{
    const json_t *v = json_object_get(r->json, field);
    const double ws = fb_json_num(r->json, "working_set_bytes"), cache = fb_json_num(r->json, "device_cache_bytes");
    if (json_is_boolean(v)) return json_is_true(v);
    return ws > 0 && cache > 0 && (factor > 1 ? ws < factor * cache : ws <= cache);
}

/* Whether r is the device's stream triad record the figure's roof is. */
static int is_ceiling_triad(const fb_record *r, const fb_figure *f)
{
    return is_stream_triad(r) && fb_json_num(r->json, "gbs") == f->ceiling_gbs;
}

/* The next record, from *i on, that the figure's triad came from: the
 * stream triad record of that GB/s, or a record that carried it as its
 * stream_gbs (whose stream_reference says more); NULL past the last. */
static const fb_record *ceiling_source(const fb_results_set *set, const fb_figure *f, int *i)
{
    for (; *i < set->nrecords; ++*i) {
        const fb_record *r = &set->records[*i];
        if (strcmp(str(r, "device"), str(f->rep, "device"))) continue;
        if (is_ceiling_triad(r, f) || fb_json_num(r->json, "stream_gbs") == f->ceiling_gbs)
            return &set->records[(*i)++];
    }
    return NULL;
}

/* Whether the figure's triad roof includes cache reuse: the stream record
 * it was taken from, or the stream reference of a record that carried it. */
static int triad_reuse(const fb_results_set *set, const fb_figure *f)
{
    int i = 0;
    const fb_record *r = ceiling_source(set, f, &i);
    if (!r) return 0;
    if (is_ceiling_triad(r, f)) return stream_within(r, "cache_reuse", 4);
    return json_is_true(json_object_get(json_object_get(r->json, "stream_reference"), "cache_reuse"));
}

/* The cache's roof of a figure with a cache-resident point: the best
 * stream triad of its host, device and precision measured within the
 * last-level cache (a stream run with a small --size), else none (the
 * key names the points cache resident). */
static void cache_roof(const fb_results_set *set, fb_figure *f)
{
    const fb_record *best = NULL;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !is_stream_triad(r) || !stream_within(r, "cache_resident", 1)) continue;
        if (strcmp(str(r, "device"), str(f->rep, "device")) || strcmp(str(r, "precision"), str(f->rep, "precision")) ||
            strcmp(fb_record_host(r), fb_record_host(f->rep)))
            continue;
        if (!best || fb_json_num(r->json, "gbs") > fb_json_num(best->json, "gbs")) best = r;
    }
    if (!best) return;
    f->cache_gbs = fb_json_num(best->json, "gbs");
    snprintf(f->cache_why, sizeof f->cache_why, "%.1f MiB last-level cache: stream triad, n = %.0f",
             fb_json_num(best->json, "device_cache_bytes") / (1024.0 * 1024.0), fb_json_num(best->json, "params.n"));
}

/* The GB/s of the dot of triad's stream run (the same run, device,
 * precision and length); 0 when it has none. */
static double dot_of_run(const fb_results_set *set, const fb_record *triad)
{
    double read = 0;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!strcmp(str(r, "benchmark"), "stream") && !strcmp(str(r, "kernel"), "dot") &&
            !strcmp(str(r, "run_id"), str(triad, "run_id")) && !strcmp(str(r, "device"), str(triad, "device")) &&
            !strcmp(str(r, "precision"), str(triad, "precision")) &&
            fb_json_num(r->json, "params.n") == fb_json_num(triad->json, "params.n") && latest_usable(r))
            read = fb_json_num(r->json, "gbs");
    }
    return read;
}

/* The read ceiling of the figure's triad: the dot of its stream run, or
 * the read_gbs of the stream reference a record carried with it; kept
 * only where it is a ceiling of memory, not of the dot kernel. */
static void read_roof(const fb_results_set *set, fb_figure *f)
{
    int i = 0;
    double read = 0;
    const fb_record *r;
    while (!(read > 0) && (r = ceiling_source(set, f, &i))) {
        if (is_ceiling_triad(r, f)) {
            read = dot_of_run(set, r);
            break;
        }
        read = fb_json_num(r->json, "stream_reference.read_gbs");
    }
    f->read_gbs = fb_read_is_ceiling(read, f->ceiling_gbs) ? read : 0.0;
}

static void roofline_roofs(const fb_results_set *set, fb_figure_list *out)
{
    for (int i = 0; i < out->n; ++i) {
        out->f[i].ceiling_reuse = triad_reuse(set, &out->f[i]);
        if (has_row_marked(&out->f[i], CACHE_MARK)) cache_roof(set, &out->f[i]);
        read_roof(set, &out->f[i]);
    }
}

/* One figure per host, device and precision: a point per problem and
 * kernel (its best GFLOP/s), the solver's steps where they count flops. */
static fb_status collect_roofline(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const int solve = !strcmp(str(r, "benchmark"), "solve");
        const double flops = fb_json_num(r->json, "flops"), bytes = fb_json_num(r->json, "bytes");
        if (!latest_usable(r) || !(triad_of(set, r) > 0)) continue;
        if (!solve && !(flops > 0 && bytes > 0)) continue;
        if (solve && !(fb_json_num(r->json, "timings.step1.flops") > 0)) continue;
        fb_figure *f = roofline_figure(set, out, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        if (solve)
            FB_CHECK(roofline_steps(f, r));
        else
            FB_CHECK(roofline_point(f, *fb_record_matrix(r) ? fb_record_matrix(r) : str(r, "benchmark"),
                                    str(r, "kernel"), r, flops, bytes, fb_json_num(r->json, "gflops")));
    }
    figure_filter(out, keep_points);
    roofline_roofs(set, out);
fail:
    return status;
}

/* ---- throughput against problem size -------------------------------------- */

/* The problem's size as a number: a matrix's rows, a grid's cells, a
 * mesh's nodes, stream's n; NAN when the record says none. */
static double problem_size(const fb_record *r, const char **unit)
{
    static const struct {
        const char *path, *unit;
    } sizes[] = {{"mesh.nodes", "mesh nodes"},
                 {"grid.cells", "grid cells"},
                 {"matrix.rows", "matrix rows"},
                 {"params.n", "array length n"}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        const double v = fb_json_num(r->json, sizes[i].path);
        if (v > 0) {
            *unit = sizes[i].unit;
            return v;
        }
    }
    return NAN;
}

/* One figure per host, benchmark, device and precision (a block matrix is
 * another problem than its scalar form: its figure apart): GB/s against
 * the problem's size, a line per kernel, best settings at each size. */
static fb_status collect_sizes(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], size[32];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        const char *unit = "";
        const double n = problem_size(r, &unit), gbs = fb_json_num(r->json, "gbs");
        if (!latest_usable(r) || isnan(n) || !(gbs > 0)) continue;
        device_group(r, fb_json_num(r->json, "matrix.block") > 1 ? "block" : "", group, sizeof group);
        fb_figure *f = figure_get(out, FB_FIG_SIZES, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "sizes %s %s %s", str(r, "benchmark"), str(r, "device"), str(r, "precision"));
        set_qualifiers(f, (const char *[]){fb_record_host(r)}, 1);
        snprintf(f->title, sizeof f->title, "%s throughput against problem size on %s %s (%s), %s", str(r, "benchmark"),
                 str(r, "device"), str(r, "device_name"), fb_record_host(r), str(r, "precision"));
        snprintf(f->xlabel, sizeof f->xlabel, "%s", unit);
        snprintf(f->ylabel, sizeof f->ylabel, "GB/s (best settings at each size)");
        snprintf(size, sizeof size, "%.0f", n);
        /* the solver's levels of one case are a line; another case's mesh is another problem */
        const int solve = !strcmp(str(r, "benchmark"), "solve") && *str(r, "case");
        FB_CHECK(figure_put_timed(f, size, solve ? str(r, "case") : str(r, "kernel"), r, gbs, 1));
    }
    figure_filter(out, keep_two_rows);
fail:
    return status;
}

/* ---- names and entry point ---------------------------------------------- */

/* File stems: each collector wrote a readable one into name ("heatmap
 * csr-multirow opencl:0.0 ahmed"); made safe for file names and unique. */
static void assign_names(fb_figure_list *list);

/* ---- GB/s beside a counter or resource field (plot --beside) ---------- */

fb_status fb_figures_collect_beside(const fb_results_set *set, const char *field, fb_figure_list *out)
{
    fb_status status = FB_OK;
    char group[512], value[64];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        double x = fb_json_num(r->json, field), gbs = fb_json_num(r->json, "gbs");
        if (!latest_usable(r) || !*fb_record_matrix(r) || isnan(x) || isnan(gbs)) continue;
        device_group(r, fb_record_matrix(r), group, sizeof group);
        fb_figure *f = figure_get(out, FB_FIG_BESIDE, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "beside %s %s %s %s", field, str(r, "device"), str(r, "precision"),
                 fb_record_matrix(r));
        set_qualifiers(f, (const char *[]){str(r, "benchmark"), fb_record_host(r)}, 2);
        snprintf(f->title, sizeof f->title, "%s: GB/s against %s on %s %s (%s), %s", fb_record_matrix(r), field,
                 str(r, "device"), str(r, "device_name"), fb_record_host(r), str(r, "precision"));
        snprintf(f->xlabel, sizeof f->xlabel, "%s", field);
        snprintf(value, sizeof value, "%.6g", x);
        FB_CHECK(figure_put(f, value, str(r, "kernel"), gbs, 1));
    }
    figure_filter(out, keep_two_rows);
    assign_names(out);
fail:
    return status;
}

/* text as a file-name part: letters lowered, digits and '.' kept, every
 * other run of characters one '-', none at either end. */
static void safe_part(const char *text, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < len; ++p) {
        if (isalnum((unsigned char)*p) || *p == '.')
            out[n++] = (char)tolower((unsigned char)*p);
        else if (n && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n && out[n - 1] == '-')
        --n;
    out[n] = '\0';
}

static int same_name_before(const fb_figure_list *list, int i)
{
    for (int j = 0; j < i; ++j)
        if (strcmp(list->f[j].name, list->f[i].name) == 0) return 1;
    return 0;
}

/* Qualifier q of the figures named as figure i: whether it tells them
 * apart (is not the same for all), and whether there are two of them. */
static int qualifier_separates(const fb_figure_list *list, int i, int q)
{
    int others = 0, differs = 0;
    for (int j = 0; j < list->n; ++j) {
        if (j == i || strcmp(list->f[j].name, list->f[i].name) != 0) continue;
        others = 1;
        differs |= strcmp(list->f[j].qualifier[q], list->f[i].qualifier[q]) != 0;
    }
    return others && differs;
}

static void append_part(fb_figure *f, const char *text)
{
    char part[128];
    safe_part(text, part, sizeof part);
    size_t n = strlen(f->name);
    if (*part) snprintf(f->name + n, sizeof f->name - n, "-%s", part);
}

/* The figures named as the first of them, i, get qualifier q appended. */
static void qualify_group(fb_figure_list *list, int i, int q)
{
    char name[sizeof list->f[i].name];
    snprintf(name, sizeof name, "%s", list->f[i].name);
    for (int j = i; j < list->n; ++j)
        if (strcmp(list->f[j].name, name) == 0) append_part(&list->f[j], list->f[j].qualifier[q]);
}

/* Stems say what a figure shows (kind, benchmark or kernel, device,
 * precision, problem). Where two would be equal, the group fields that
 * tell them apart (case, suite, host, ...) are added; a number only when
 * even those are equal (names cut at their length). */
static void assign_names(fb_figure_list *list)
{
    for (int i = 0; i < list->n; ++i) {
        char stem[sizeof list->f[i].name];
        safe_part(list->f[i].name, stem, sizeof stem);
        snprintf(list->f[i].name, sizeof list->f[i].name, "%s", stem);
    }
    for (int q = 0; q < FB_NAME_QUALIFIERS; ++q)
        for (int i = 0; i < list->n; ++i)
            if (!same_name_before(list, i) && qualifier_separates(list, i, q)) qualify_group(list, i, q);
    for (int i = 0; i < list->n; ++i) {
        fb_figure *f = &list->f[i];
        size_t n = strlen(f->name);
        if (n + 8 > sizeof f->name) n = sizeof f->name - 8;
        while (n > 1 && f->name[n - 1] == '-') /* a cut at a separator */
            --n;
        for (int k = 2; same_name_before(list, i); ++k)
            snprintf(f->name + n, sizeof f->name - n, "-%d", k);
    }
}

/* ---- performance portability's cascade ----------------------------------- */

enum { CASCADE_KERNELS = 6 }; /* the best by PP; more lines are not read */

/* The platforms in the order of the best kernel's application efficiency,
 * highest first (p3's cascade plot orders them so); into order[]. */
static void cascade_order(const fb_pp_problem *p, int *order)
{
    const double *e = p->kernels[0].app;
    for (int i = 0; i < p->nplatforms; ++i)
        order[i] = i;
    for (int i = 1; i < p->nplatforms; ++i)
        for (int j = i; j > 0 && !(e[order[j - 1]] >= e[order[j]]); --j) {
            const int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
}

/* One kernel's line: its efficiency on each platform in order, and beside
 * it PP over the platforms so far (0 from the first it did not run on). */
static fb_status cascade_kernel(fb_figure *f, const fb_pp_problem *p, const fb_pp_kernel *k, const int *order)
{
    fb_status status = FB_OK;
    double seen[FB_PP_MAX_PLATFORMS];
    char pp[96];
    snprintf(pp, sizeof pp, "%s PP", k->name);
    /* the kernel's column first, then its PP, whichever platform it ran on first */
    if (label_index(&f->cols, &f->ncols, k->name) < 0 || label_index(&f->cols, &f->ncols, pp) < 0)
        FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
    for (int i = 0; i < p->nplatforms; ++i) {
        const double e = k->app[order[i]];
        seen[i] = isnan(e) ? 0.0 : e;
        if (!isnan(e)) FB_CHECK(figure_put(f, p->platforms[order[i]], k->name, e, 1));
        FB_CHECK(figure_put(f, p->platforms[order[i]], pp, fb_pp_score(seen, i + 1), 1));
    }
fail:
    return status;
}

static fb_status collect_cascade(const fb_results_set *set, fb_figure_list *out)
{
    fb_status status = FB_OK;
    fb_pp_problem *ps = NULL;
    int n = 0, order[FB_PP_MAX_PLATFORMS];
    char group[512];
    FB_CHECK(fb_portability(set, &ps, &n));
    for (int i = 0; i < n; ++i) {
        const fb_pp_problem *p = &ps[i];
        snprintf(group, sizeof group, "%.32s|%.128s|%.8s", p->benchmark, p->problem, p->precision);
        fb_figure *f = figure_get(out, FB_FIG_CASCADE, group, NULL);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        snprintf(f->name, sizeof f->name, "cascade %s %s %.60s", p->benchmark, p->precision, p->problem);
        snprintf(f->title, sizeof f->title,
                 "%s %s, %s: application efficiency per platform (best first) and performance portability so far",
                 p->benchmark, p->problem, p->precision);
        snprintf(f->xlabel, sizeof f->xlabel, "platform");
        cascade_order(p, order);
        for (int k = 0; k < p->nkernels && k < CASCADE_KERNELS; ++k)
            FB_CHECK(cascade_kernel(f, p, &p->kernels[k], order));
    }
fail:
    free(ps);
    return status;
}

/* ---- the figure kinds: one row each ------------------------------------------ */

/* A kind of figure. Most are made one record at a time: the records it
 * selects (latest and usable), one figure per group key, described by the
 * record that opens it (its name, qualifiers and title), the record's
 * cells put in, and the figures kept after. A kind whose figures need
 * more than one record at a time (a ratio, a profile, a heat map's axes)
 * collects itself. Adding a kind is an enum value and a row. */
typedef struct figure_spec {
    const char *script;  /* plots/SCRIPT.gp */
    const char *missing; /* why a run has none of it */
    int whiskers;        /* its cells carry the samples' spread */
    int hatches;         /* bars: a cell resting on an unstable or contended record goes in a hatched column */
    int (*select)(const fb_record *r);
    void (*group)(const fb_record *r, char *buf, size_t len);
    void (*describe)(fb_figure *f, const fb_record *r);
    fb_status (*put)(fb_figure *f, const fb_record *r);
    int (*keep)(fb_figure *f); /* NULL: every figure */
    fb_status (*collect)(const fb_results_set *set, fb_figure_list *out);
} figure_spec;

static const figure_spec specs[FB_FIG_NKINDS] = {
    [FB_FIG_STREAM] = {"stream", "stream bars: no stream records with status ok", .whiskers = 1, .hatches = 1,
                       .select = stream_record, .group = stream_group, .describe = stream_describe, .put = stream_put},
    [FB_FIG_SPEEDUP] = {"speedup", "speedup bars: no problem measured both on openmp and on another backend",
                        .hatches = 1, .collect = collect_speedup},
    [FB_FIG_HEATMAP] = {"heatmap", "heat map: no sweep records with two swept parameters", .collect = collect_heatmap},
    [FB_FIG_BLOCKSHAPE] = {"blockshape", "block-shape bars: no kernel measured with two or more block shapes",
                           .whiskers = 1, .hatches = 1, .collect = collect_blockshape},
    [FB_FIG_VARIANTS] = {"variants", "variants per matrix: no records with a matrix", .whiskers = 1, .hatches = 1,
                         .collect = collect_variants},
    [FB_FIG_FRACTION] = {"fraction",
                         "fraction of the triad: no matrix records with a measured stream bandwidth "
                         "(run stream in the same run, on the same device)",
                         .whiskers = 1, .collect = collect_fraction},
    [FB_FIG_PROFILE] = {"profile", "performance profile: no two matrices that two or more solvers all ran on",
                        .collect = collect_profile},
    [FB_FIG_BESIDE] = {"beside", "GB/s beside a field: no matrix records with two or more values of it"},
    [FB_FIG_PERCELL] = {"percell",
                        "time per cell: no grid records (ns_per_cell) with two or more block shapes "
                        "or layouts",
                        .whiskers = 1, .hatches = 1, .select = percell_record, .group = percell_group,
                        .describe = percell_describe, .put = percell_put, .keep = keep_two_rows},
    [FB_FIG_STEPS] = {"steps", "solver time split: no solve records with step timings", .hatches = 1,
                      .select = steps_record, .group = solve_group, .describe = steps_describe, .put = steps_put},
    [FB_FIG_SCALING] = {"scaling",
                        "scaling over ranks: no records of a scaling study (solve --scaling, "
                        "scripts/heat2d-scaling.sh)",
                        .select = scaling_record, .group = scaling_group, .describe = scaling_describe,
                        .put = scaling_put},
    [FB_FIG_ENERGY] = {"energy",
                       "GFLOP/J beside GB/s: no records with measured energy and flops (energy.gflop_per_j; "
                       "the energy unavailable here?)",
                       .hatches = 1, .select = energy_record, .group = energy_group, .describe = energy_describe,
                       .put = energy_put},
    [FB_FIG_ENERGY_STEPS] = {"stepenergy", "solver energy per step: no solve records with measured energy",
                             .hatches = 1, .select = energy_steps_record, .group = solve_group,
                             .describe = energy_steps_describe, .put = energy_steps_put},
    [FB_FIG_ROOFLINE] = {"roofline",
                         "roofline: no records with flops and model bytes on a device with a stream "
                         "triad (run stream in the same run)",
                         .collect = collect_roofline},
    [FB_FIG_CASCADE] = {"cascade",
                        "performance-portability cascade: no problem with stable records on two or more platforms",
                        .collect = collect_cascade},
    [FB_FIG_SIZES] = {"sizes", "throughput against size: no kernel measured on two or more problem sizes",
                      .collect = collect_sizes},
};

const char *fb_figure_script(fb_figure_kind kind) { return specs[kind].script; }

const char *fb_figure_missing(fb_figure_kind kind) { return specs[kind].missing; }

int fb_figure_has_whiskers(fb_figure_kind kind) { return specs[kind].whiskers; }

/* A kind made one record at a time (figure_spec). */
static fb_status collect_records(const fb_results_set *set, fb_figure_kind kind, fb_figure_list *out)
{
    fb_status status = FB_OK;
    const figure_spec *spec = &specs[kind];
    char group[512];
    for (int i = 0; i < set->nrecords; ++i) {
        const fb_record *r = &set->records[i];
        if (!latest_usable(r) || !spec->select(r)) continue;
        spec->group(r, group, sizeof group);
        fb_figure *f = figure_get(out, kind, group, r);
        if (!f) FB_FAIL(FB_ERR_NOMEM, "out of host memory building a figure");
        spec->describe(f, r);
        FB_CHECK(spec->put(f, r));
    }
    if (spec->keep) figure_filter(out, spec->keep);
fail:
    return status;
}

fb_status fb_figures_collect(const fb_results_set *set, fb_figure_kind kind, fb_figure_list *out)
{
    fb_status status = FB_OK;
    memset(out, 0, sizeof *out);
    if (specs[kind].collect)
        FB_CHECK(specs[kind].collect(set, out));
    else if (specs[kind].select)
        FB_CHECK(collect_records(set, kind, out));
    assign_names(out);
    return FB_OK;
fail:
    fb_figure_list_free(out);
    return status;
}

/* ---- data files -------------------------------------------------------------- */

static const fb_cell *cell_at(const fb_figure *f, int row, int col)
{
    for (int i = 0; i < f->ncells; ++i)
        if (f->cells[i].row == row && f->cells[i].col == col) return &f->cells[i];
    return NULL;
}

static double cell_value(const fb_figure *f, int row, int col)
{
    const fb_cell *x = cell_at(f, row, col);
    return x ? x->value : NAN;
}

static void write_number(FILE *out, double v)
{
    if (isnan(v))
        fputs(",NaN", out);
    else
        fprintf(out, ",%.6g", v);
}

/* ",NAME" or, with whiskers, ",NAME,NAME lo,NAME hi". */
static void write_series_header(FILE *out, const char *name, int whiskers)
{
    char part[320];
    fputc(',', out);
    fb_csv_field(out, name);
    for (int k = 0; whiskers && k < 2; ++k) {
        snprintf(part, sizeof part, "%s %s", name, k ? "hi" : "lo");
        fputc(',', out);
        fb_csv_field(out, part);
    }
}

int fb_figure_flagged(const fb_figure *fig)
{
    int n = 0;
    for (int i = 0; i < fig->ncells; ++i)
        n += fb_quality_flagged((fb_quality)fig->cells[i].quality);
    return n;
}

int fb_figure_hatched(const fb_figure *f) { return specs[f->kind].hatches ? fb_figure_flagged(f) : 0; }

/* A bar figure's bars are drawn solid only when their records were
 * stable: where some were not, each series gets a second column, "NAME
 * (unstable or contended)", holding the values of those cells (NaN in the
 * first), which its script draws as hatched boxes in the same place. The
 * fraction figure marks a row instead ("MATRIX (contended)", matrix_row),
 * and fraction.gp hatches that row's bars. */
static int split_untrusted(const fb_figure *f) { return fb_figure_hatched(f) > 0; }

/* The cell's value in the trusted (untrusted = 0) or the untrusted column. */
static double bar_value(const fb_cell *x, int split, int untrusted)
{
    if (!x) return NAN;
    if (!split) return x->value;
    return fb_quality_flagged((fb_quality)x->quality) == untrusted ? x->value : NAN;
}

/* "label,COL1,COL2,..." (with whiskers "label,COL1,COL1 lo,COL1 hi,...";
 * a speedup with untrusted cells "label,COL1,...,COL1 (unstable or
 * contended),...") then one row per row label; NaN marks a gap. */
static void write_bars(const fb_figure *f, FILE *out)
{
    const int whiskers = fb_figure_has_whiskers(f->kind), split = split_untrusted(f);
    char name[320];
    fb_csv_field(out, "label");
    for (int c = 0; c < f->ncols; ++c)
        write_series_header(out, f->cols[c], whiskers);
    for (int c = 0; split && c < f->ncols; ++c) {
        snprintf(name, sizeof name, "%s%s", f->cols[c], FB_FIGURE_UNTRUSTED_SUFFIX);
        write_series_header(out, name, 0);
    }
    fputc('\n', out);
    for (int r = 0; r < f->nrows; ++r) {
        fb_csv_field(out, f->rows[r]);
        for (int c = 0; c < f->ncols; ++c) {
            const fb_cell *x = cell_at(f, r, c);
            write_number(out, bar_value(x, split, 0));
            if (whiskers) {
                write_number(out, x ? x->lo : NAN);
                write_number(out, x ? x->hi : NAN);
            }
        }
        for (int c = 0; split && c < f->ncols; ++c)
            write_number(out, bar_value(cell_at(f, r, c), split, 1));
        fputc('\n', out);
    }
}

static char **sort_labels;

/* Numeric order when both labels are numbers (parameter values), else text. */
static int cmp_label(const void *a, const void *b)
{
    const char *x = sort_labels[*(const int *)a], *y = sort_labels[*(const int *)b];
    char *ex, *ey;
    double dx = strtod(x, &ex), dy = strtod(y, &ey);
    if (*x && *y && !*ex && !*ey) return (dx > dy) - (dx < dy);
    return strcmp(x, y);
}

/* positions[i]: the place of label i in sorted order. */
static fb_status label_positions(char **labels, int n, int **positions)
{
    fb_status status = FB_OK;
    int *order = NULL;
    FB_ALLOC(order, n, "label order");
    FB_ALLOC(*positions, n, "label order");
    for (int i = 0; i < n; ++i)
        order[i] = i;
    sort_labels = labels;
    qsort(order, (size_t)n, sizeof *order, cmp_label);
    for (int i = 0; i < n; ++i)
        (*positions)[order[i]] = i;
fail:
    free(order);
    return status;
}

/* "xi,yi,x,y,gbs,untrusted": one line per measured cell, xi/yi the places
 * of the values on each axis in numeric order (the plot draws cells
 * there), untrusted 1 where the cell rests on an unstable or contended
 * record (heatmap.gp hatches it over its colour). */
static fb_status write_heatmap(const fb_figure *f, FILE *out)
{
    fb_status status = FB_OK;
    int *xpos = NULL, *ypos = NULL;
    FB_CHECK(label_positions(f->cols, f->ncols, &xpos));
    FB_CHECK(label_positions(f->rows, f->nrows, &ypos));
    fputs("xi,yi,", out);
    fb_csv_field(out, f->xlabel);
    fputc(',', out);
    fb_csv_field(out, f->ylabel);
    fputs(",gbs,untrusted\n", out);
    for (int i = 0; i < f->ncells; ++i) {
        const fb_cell *c = &f->cells[i];
        fprintf(out, "%d,%d,", xpos[c->col], ypos[c->row]);
        fb_csv_field(out, f->cols[c->col]);
        fputc(',', out);
        fb_csv_field(out, f->rows[c->row]);
        fprintf(out, ",%.6g,%d\n", c->value, fb_quality_flagged((fb_quality)c->quality));
    }
fail:
    free(xpos);
    free(ypos);
    return status;
}

/* "FIELD,KERNEL1,..." then one row per field value in numeric order: the
 * x of a line plot; NaN where a kernel has no record at that value. */
static fb_status write_lines(const fb_figure *f, FILE *out)
{
    fb_status status = FB_OK;
    int *pos = NULL, *row_at = NULL;
    FB_CHECK(label_positions(f->rows, f->nrows, &pos));
    FB_ALLOC(row_at, f->nrows, "row order");
    for (int r = 0; r < f->nrows; ++r)
        row_at[pos[r]] = r;
    fb_csv_field(out, f->xlabel);
    for (int c = 0; c < f->ncols; ++c)
        write_series_header(out, f->cols[c], 0);
    fputc('\n', out);
    for (int i = 0; i < f->nrows; ++i) {
        fputs(f->rows[row_at[i]], out);
        for (int c = 0; c < f->ncols; ++c)
            write_number(out, cell_value(f, row_at[i], c));
        fputc('\n', out);
    }
fail:
    free(pos);
    free(row_at);
    return status;
}

/* "label,KERNEL1,KERNEL1 gflops,..." then a row per problem: each kernel's
 * point as its intensity (x) and GFLOP/s (y); NaN where it has none. */
static void write_points(const fb_figure *f, FILE *out)
{
    char name[320];
    fb_csv_field(out, "label");
    for (int c = 0; c < f->ncols; ++c) {
        write_series_header(out, f->cols[c], 0);
        snprintf(name, sizeof name, "%s gflops", f->cols[c]);
        write_series_header(out, name, 0);
    }
    fputc('\n', out);
    for (int r = 0; r < f->nrows; ++r) {
        fb_csv_field(out, f->rows[r]);
        for (int c = 0; c < f->ncols; ++c) {
            const fb_cell *x = cell_at(f, r, c);
            write_number(out, x ? x->x : NAN);
            write_number(out, x ? x->value : NAN);
        }
        fputc('\n', out);
    }
}

/* The ratios time / best time of solver c over the matrices it ran, sorted;
 * returns how many. */
static int solver_ratios(const fb_figure *f, int c, const double *best, double *ratios)
{
    int n = 0;
    for (int r = 0; r < f->nrows; ++r) {
        double t = cell_value(f, r, c);
        if (!isnan(t)) ratios[n++] = t / best[r];
    }
    fb_sort_doubles(ratios, (size_t)n);
    return n;
}

/* One block per solver ("ratio,SOLVER" then "tau,fraction" rows: its sorted
 * ratios time / best time per matrix and the fraction of matrices reached),
 * blocks separated by two blank lines (gnuplot's `index`). Every curve
 * starts at (1, 0) and runs on to the largest ratio of all, so a solver
 * that is always fastest still shows; a matrix it did not run never counts. */
static fb_status write_profile(const fb_figure *f, FILE *out)
{
    fb_status status = FB_OK;
    double *best = NULL, *ratios = NULL, end = 2;
    FB_ALLOC(best, f->nrows, "profile");
    FB_ALLOC(ratios, f->nrows, "profile");
    for (int r = 0; r < f->nrows; ++r)
        best[r] = INFINITY;
    for (int i = 0; i < f->ncells; ++i)
        best[f->cells[i].row] = fmin(best[f->cells[i].row], f->cells[i].value);
    for (int i = 0; i < f->ncells; ++i)
        end = fmax(end, 1.1 * f->cells[i].value / best[f->cells[i].row]);
    for (int c = 0; c < f->ncols; ++c) {
        int n = solver_ratios(f, c, best, ratios);
        fprintf(out, "%sratio,", c ? "\n\n" : "");
        fb_csv_field(out, f->cols[c]);
        fprintf(out, "\n1,0\n");
        for (int k = 0; k < n; ++k)
            fprintf(out, "%.6g,%.6g\n", ratios[k], (double)(k + 1) / f->nrows);
        fprintf(out, "%.6g,%.6g\n", end, (double)n / f->nrows);
    }
fail:
    free(best);
    free(ratios);
    return status;
}

fb_status fb_figure_write(const fb_figure *fig, const char *path)
{
    fb_status status = FB_OK;
    fb_file_writer w = {0};
    FB_CHECK(fb_file_writer_open(path, &w));
    FILE *out = w.f;
    if (fig->kind == FB_FIG_HEATMAP)
        FB_CHECK(write_heatmap(fig, out));
    else if (fig->kind == FB_FIG_BESIDE || fig->kind == FB_FIG_SCALING || fig->kind == FB_FIG_SIZES)
        FB_CHECK(write_lines(fig, out));
    else if (fig->kind == FB_FIG_ROOFLINE)
        write_points(fig, out);
    else if (fig->kind == FB_FIG_PROFILE)
        FB_CHECK(write_profile(fig, out));
    else
        write_bars(fig, out);
fail:
    if (w.f) {
        fb_status closed = fb_file_writer_close(&w, status == FB_OK);
        if (status == FB_OK) status = closed;
    }
    return status;
}
