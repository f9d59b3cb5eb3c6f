/* plot.c - runs the gnuplot scripts of plots/ on the figure tables and
 * checks what they wrote. */
#include "plot.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "colours.h"
#include "../../core/datadir.h"
#include "../../core/files.h"
#include "figures.h"

static int has_scripts(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/stream.gp", dir);
    return access(path, R_OK) == 0;
}

fb_status fb_plot_find_scripts(const char *given, char *dir, size_t len)
{
    fb_status status = FB_OK;
    const char *env = getenv("FLOWBENCH_PLOT_SCRIPTS");
    if (given) {
        snprintf(dir, len, "%s", given);
        if (!has_scripts(dir))
            FB_FAIL(FB_ERR_USAGE, "--scripts: %s has no stream.gp (not a flowbench plots/ folder)", given);
    } else if (env && *env) {
        snprintf(dir, len, "%s", env);
        if (!has_scripts(dir)) FB_FAIL(FB_ERR_INPUT, "FLOWBENCH_PLOT_SCRIPTS=%s has no stream.gp", env);
    } else if (fb_data_find("plots/stream.gp", dir, len) == FB_OK) {
        *strrchr(dir, '/') = '\0'; /* the folder of the scripts */
    } else {
        FB_FAIL(FB_ERR_INPUT, "plot: cannot find the gnuplot scripts (%s); pass --scripts DIR", fb_error_message());
    }
fail:
    return status;
}

/* The last bytes of the file (an SVG ends with </svg> and a newline or two,
 * however large its body). */
static size_t read_tail(FILE *f, char *buf, size_t len)
{
    long size;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) return 0;
    if (fseek(f, size > (long)len ? size - (long)len : 0, SEEK_SET) != 0) return 0;
    return fread(buf, 1, len, f);
}

int fb_plot_file_valid(const char *path)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    char head[4096], tail[256];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0, m = f ? read_tail(f, tail, sizeof tail - 1) : 0;
    int ok = 0;
    if (f) fclose(f);
    head[n] = '\0';
    tail[m] = '\0';
    if (strstr(path, ".png"))
        ok = n > 64 && memcmp(head, png, sizeof png) == 0;
    else if (strstr(path, ".svg"))
        ok = strstr(head, "<svg") && strstr(tail, "</svg>");
    return ok;
}

/* name = 'value' as gnuplot single-quoted strings: inside single quotes
 * gnuplot expands neither backticks nor @macros. A ' in the value closes
 * the string and is joined in as apos (sprintf('%c', 39), set at the top
 * of the file): gnuplot misreads its own escape '' where several follow
 * each other (four quotes in a row end the string). Control characters
 * become spaces: a newline would end the string and start a command. Text
 * from a results file reaches gnuplot only this way. */
void fb_plot_string_var(FILE *out, const char *name, const char *value)
{
    fprintf(out, "%s = '", name);
    for (const unsigned char *p = (const unsigned char *)value; *p; ++p) {
        if (*p == '\'')
            fputs("'.apos.'", out);
        else
            fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
    }
    fputs("'\n", out);
}

/* plottitle as lines of at most TITLE_LINE characters (the 900-pixel heat
 * map holds about 95 at its font), broken at spaces
 * and joined with "\n" (a double-quoted newline between single-quoted
 * parts), and titlelines = how many: a title wider than the canvas was
 * cut at both ends ("rface fv-gather ..."). */
#define TITLE_LINE 80
/* Where to break text longer than TITLE_LINE: after the last ", " or "; "
 * that leaves a line of at least half the width (a device name stays
 * whole), else at the last space, else at TITLE_LINE. */
static size_t title_break(const char *text)
{
    size_t space = 0;
    for (size_t n = TITLE_LINE; n > TITLE_LINE / 2; --n) {
        if (text[n] == ' ' && (text[n - 1] == ',' || text[n - 1] == ';')) return n;
        if (text[n] == ' ' && !space) space = n;
    }
    return space ? space : TITLE_LINE;
}

static void write_title_var(FILE *out, const char *title)
{
    char part[TITLE_LINE + 1], name[32];
    int lines = 0;
    const char *p = title;
    while (*p) {
        size_t n = strlen(p);
        if (n > TITLE_LINE) n = title_break(p);
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        snprintf(name, sizeof name, "titlepart%d", ++lines);
        fb_plot_string_var(out, name, part);
        p += n;
        while (*p == ' ')
            ++p;
    }
    fputs("plottitle = ''", out);
    for (int i = 1; i <= lines; ++i)
        fprintf(out, "%s.titlepart%d", i > 1 ? ".\"\\n\"" : "", i);
    fprintf(out, "\ntitlelines = %d\n", lines ? lines : 1);
}

/* colours = '#rrggbb ...': the colour of each series, in column order. */
static void write_colours(FILE *out, const fb_figure *f, const fb_colour_map *map)
{
    char hex[8];
    fputs("colours = '", out);
    for (int c = 0; c < f->ncols; ++c)
        fprintf(out, "%s%s", c ? " " : "", fb_colour_of(map, f->cols[c], hex));
    fputs("'\n", out);
}

/* The roofline's axes: decades around the points and the ridge, so that
 * both ceilings show. */
typedef struct roof_axes {
    double xmin, xmax, ymin, ymax;
} roof_axes;

static roof_axes roofline_axes(const fb_figure *f)
{
    const double ridge = f->ceiling_gflops / f->ceiling_gbs;
    double xlo = ridge, xhi = ridge, ylo = f->ceiling_gflops, yhi = f->ceiling_gflops;
    for (int i = 0; i < f->ncells; ++i) {
        xlo = fmin(xlo, f->cells[i].x);
        xhi = fmax(xhi, f->cells[i].x);
        ylo = fmin(ylo, f->cells[i].value);
        yhi = fmax(yhi, f->cells[i].value);
    }
    return (roof_axes){pow(10, floor(log10(xlo))), pow(10, ceil(log10(xhi * 1.5))), pow(10, floor(log10(ylo))),
                       pow(10, ceil(log10(yhi * 1.5)))};
}

/* The graph's size in pixels on the 1280x720 canvas with the key below it
 * (roofline.gp), and a label's: 6 px a character at font 8, 13 px high. */
#define ROOF_PLOT_W 1100.0
#define ROOF_PLOT_H 430.0

/* Whether kernel c's label at its best point (x, y) would overlap one
 * already placed (placed[k]: 1 when kernel k's label is drawn). */
static int label_collides(const fb_figure *f, const roof_axes *a, const double *bx, const double *by, const int *placed,
                          int c)
{
    const double px = ROOF_PLOT_W / log10(a->xmax / a->xmin), py = ROOF_PLOT_H / log10(a->ymax / a->ymin);
    const double w = 6.0 * (double)strlen(f->cols[c]) + 10, h = 13;
    for (int k = 0; k < f->ncols; ++k) {
        if (!placed[k]) continue;
        double dx = px * log10(bx[c] / bx[k]), dy = py * log10(by[c] / by[k]);
        double wk = 6.0 * (double)strlen(f->cols[k]) + 10;
        if (dx > -w && dx < wk && fabs(dy) < h) return 1;
    }
    return 0;
}

/* labely = 'Y1 Y2 ...': per kernel, the GFLOP/s of its best point (as the
 * table writes it), the point its name labels, or NaN where that name
 * would overlap another's (placed from the fastest kernel down): names
 * stacked on one spot were unreadable; the key below the graph names
 * every colour. */
static void write_label_points(FILE *out, const fb_figure *f)
{
    const roof_axes a = roofline_axes(f);
    double *bx = calloc((size_t)f->ncols + 1, sizeof *bx), *by = calloc((size_t)f->ncols + 1, sizeof *by);
    int *placed = calloc((size_t)f->ncols + 1, sizeof *placed);
    for (int c = 0; bx && by && c < f->ncols; ++c) {
        by[c] = NAN;
        for (int i = 0; i < f->ncells; ++i)
            if (f->cells[i].col == c && !(f->cells[i].value <= by[c])) by[c] = f->cells[i].value, bx[c] = f->cells[i].x;
    }
    for (int round = 0; bx && by && placed && round < f->ncols; ++round) {
        int best = -1; /* the fastest kernel not yet considered */
        for (int c = 0; c < f->ncols; ++c)
            if (placed[c] == 0 && isfinite(by[c]) && (best < 0 || by[c] > by[best])) best = c;
        if (best < 0) break;
        placed[best] = label_collides(f, &a, bx, by, placed, best) ? -1 : 1;
    }
    fputs("labely = '", out);
    for (int c = 0; c < f->ncols; ++c)
        fprintf(out, "%s%.6g", c ? " " : "", placed && placed[c] == 1 && by ? by[c] : NAN);
    fputs("'\n", out);
    free(bx), free(by), free(placed);
}

/* The roofline's ceilings, its axes' ranges (decades around the points and
 * the ridge, so that both ceilings show) and its problems' names
 * (problem1, problem2, ...: a point type each). */
static void write_roofline_vars(FILE *out, const fb_figure *f)
{
    char name[32];
    const roof_axes a = roofline_axes(f);
    fprintf(out, "triad = %.6g\npeak = %.6g\n", f->ceiling_gbs, f->ceiling_gflops);
    fprintf(out, "xmin = %.6g\nxmax = %.6g\nymin = %.6g\nymax = %.6g\n", a.xmin, a.xmax, a.ymin, a.ymax);
    fb_plot_string_var(out, "peakwhy", f->ceiling_why);
    fprintf(out, "triadreuse = %d\n", f->ceiling_reuse);
    if (f->cache_gbs > 0) {
        fprintf(out, "cachebw = %.6g\n", f->cache_gbs);
        fb_plot_string_var(out, "cachewhy", f->cache_why);
    }
    if (f->read_gbs > 0) fprintf(out, "readbw = %.6g\n", f->read_gbs);
    write_label_points(out, f);
    for (int r = 0; r < f->nrows; ++r) {
        snprintf(name, sizeof name, "problem%d", r + 1);
        fb_plot_string_var(out, name, f->rows[r]);
    }
}

/* NAME.vars: what the script needs to know about the figure, loaded by the
 * gnuplot command line (figure_command). */
static fb_status write_vars(const fb_figure *f, const fb_colour_map *colours, const char *dir)
{
    fb_status status = FB_OK;
    char path[PATH_MAX + 160], file[160];
    snprintf(path, sizeof path, "%s/%s.vars", dir, f->name);
    FILE *out = fopen(path, "w");
    if (!out) FB_FAIL(FB_ERR_IO, "%s: cannot open for writing (%s)", path, strerror(errno));
    fputs("# written by flowbench plot: the figure's title, labels, sizes and series colours, loaded before its "
          "script\n" FB_PLOT_APOS_LINE,
          out);
    snprintf(file, sizeof file, "%s.csv", f->name);
    fb_plot_string_var(out, "datafile", file);
    write_title_var(out, f->title);
    fb_plot_string_var(out, "xname", f->xlabel);
    fb_plot_string_var(out, "yname", f->ylabel);
    fprintf(out, "ncols = %d\nnrows = %d\n", f->ncols, f->nrows);
    /* cells resting on an unstable or contended record, in their own columns: drawn hatched */
    fprintf(out, "flagged = %d\n", fb_figure_hatched(f));
    fprintf(out, "cells = %d\n", f->ncells);
    if (fb_figure_has_series(f->kind)) write_colours(out, f, colours);
    if (f->kind == FB_FIG_ROOFLINE) write_roofline_vars(out, f);
    if (f->kind == FB_FIG_HEATMAP)
        fprintf(out, "blanks = %d\nuntrusted = %d\n", f->nrows * f->ncols - f->ncells, fb_figure_flagged(f));
    if (ferror(out)) FB_FAIL(FB_ERR_IO, "%s: write failed", path);
fail:
    if (out && fclose(out) != 0 && status == FB_OK)
        status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "%s: write failed", path);
    return status;
}

/* File stems are made of [a-z0-9._-] (figures.c); checked again here
 * because they are the one part of a gnuplot command line that comes
 * from the results file. */
static int safe_name(const char *name)
{
    if (!*name || *name == '.') return 0;
    for (const char *p = name; *p; ++p)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || strchr("._-", *p))) return 0;
    return 1;
}

/* The -e argument: the terminal, the output file and the vars file. Only
 * flowbench's own words and the checked file stem; every text of the
 * results file is in NAME.vars. */
static void figure_command(const fb_figure *f, const char *term, char *cmd, size_t len)
{
    snprintf(cmd, len, "term='%s'; outfile='%s.%s'; load '%s.vars'", term, f->name, term, f->name);
}

/* Run inside dir so the tables' names are short. The second pass starts
 * from gnuplot's defaults again (reset keeps the variables the vars file
 * set, which is what both passes read). */
fb_status fb_plot_run_gnuplot(const char *who, const char *gnuplot, const char *dir, const char *png_cmd,
                              const char *svg_cmd, const char *script)
{
    fb_status status = FB_OK;
    int wstatus = 0;
    char second[600];
    snprintf(second, sizeof second, "reset; %s", svg_cmd);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) FB_FAIL(FB_ERR_IO, "%s: cannot start %s (%s)", who, gnuplot, strerror(errno));
    if (pid == 0) {
        char *argv[] = {(char *)gnuplot, "-e", (char *)png_cmd, (char *)script, "-e", second, (char *)script, NULL};
        if (chdir(dir) == 0) execvp(gnuplot, argv);
        _exit(127);
    }
    if (waitpid(pid, &wstatus, 0) < 0) FB_FAIL(FB_ERR_IO, "%s: lost %s (%s)", who, gnuplot, strerror(errno));
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127)
        FB_FAIL(FB_ERR_UNAVAILABLE, "%s: cannot run '%s' (Debian: apt-get install gnuplot-nox)", who, gnuplot);
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        FB_FAIL(FB_ERR_BACKEND, "%s: %s failed on %s (its message is above)", who, gnuplot, script);
fail:
    return status;
}

typedef struct plot_ctx {
    const fb_plot_options *opt;
    char scripts[PATH_MAX];
    FILE *replot, *log;
    fb_figure_list lists[FB_FIG_NKINDS];
    fb_colour_map colours;
} plot_ctx;

/* replot.sh names no absolute path: it runs in its own folder and takes the
 * scripts from scripts/ there (copy_script), so the folder can be moved or
 * shared and still redrawn. */
static fb_status open_replot(plot_ctx *ctx)
{
    fb_status status = FB_OK;
    char path[PATH_MAX + 32], scripts[PATH_MAX];
    snprintf(path, sizeof path, "%s/replot.sh", ctx->opt->out_dir);
    if (!realpath(ctx->scripts, scripts)) FB_FAIL(FB_ERR_IO, "%s: %s", ctx->scripts, strerror(errno));
    snprintf(ctx->scripts, sizeof ctx->scripts, "%s", scripts); /* gnuplot runs in out_dir */
    if (!(ctx->replot = fopen(path, "w")))
        FB_FAIL(FB_ERR_IO, "%s: cannot open for writing (%s)", path, strerror(errno));
    fputs("#!/bin/sh\n"
          "# replot.sh - redraws every figure here from its NAME.csv table and NAME.vars\n"
          "# (title, labels, colours) with the gnuplot scripts in scripts/: restyle one\n"
          "# there, or point scripts= at another folder (relative to this one), and run\n"
          "# this again. It names no absolute path: move or share the folder freely.\n"
          "set -e\ncd \"$(dirname \"$0\")\"\nscripts=${scripts:-./scripts}\n",
          ctx->replot);
    chmod(path, 0755);
fail:
    return status;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static fb_status copy_file(const char *from, const char *to)
{
    fb_status status = FB_OK;
    char buf[8192];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = NULL;
    if (!in) FB_FAIL(FB_ERR_IO, "%s: cannot open (%s)", from, strerror(errno));
    if (!(out = fopen(to, "wb"))) FB_FAIL(FB_ERR_IO, "%s: cannot open for writing (%s)", to, strerror(errno));
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) break;
    if (ferror(in)) FB_FAIL(FB_ERR_IO, "%s: read failed", from);
    if (ferror(out)) FB_FAIL(FB_ERR_IO, "%s: write failed", to);
fail:
    if (in) fclose(in);
    if (out && fclose(out) != 0 && status == FB_OK)
        status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "%s: write failed", to);
    return status;
}

/* OUT_DIR/scripts/NAME.gp from the scripts folder; left alone when it is
 * the very file plot ran (plot --scripts OUT_DIR/scripts after a restyle). */
static fb_status copy_script_file(const plot_ctx *ctx, const char *name)
{
    fb_status status = FB_OK;
    char from[PATH_MAX + 64], dir[PATH_MAX + 16], to[PATH_MAX + 80];
    snprintf(from, sizeof from, "%s/%s.gp", ctx->scripts, name);
    snprintf(dir, sizeof dir, "%s/scripts", ctx->opt->out_dir);
    snprintf(to, sizeof to, "%s/%s.gp", dir, name);
    FB_CHECK(fb_make_dirs(dir));
    if (!same_file(from, to)) FB_CHECK(copy_file(from, to));
fail:
    return status;
}

/* The script replot.sh runs for kind, with the file the whiskered bar
 * figures' scripts load (whisker-bars.gp). */
static fb_status copy_script(const plot_ctx *ctx, fb_figure_kind kind)
{
    fb_status status = FB_OK;
    FB_CHECK(copy_script_file(ctx, fb_figure_script(kind)));
    if (fb_figure_has_whiskers(kind)) FB_CHECK(copy_script_file(ctx, "whisker-bars"));
fail:
    return status;
}

static fb_status draw(plot_ctx *ctx, const fb_figure *f)
{
    fb_status status = FB_OK;
    static const char *const terms[] = {"png", "svg"};
    const char *gnuplot = ctx->opt->gnuplot ? ctx->opt->gnuplot : "gnuplot";
    char path[PATH_MAX + 256], script[PATH_MAX + 64], cmd[2][512];
    if (!safe_name(f->name)) FB_FAIL(FB_ERR_INPUT, "plot: figure name '%s' is not a safe file name", f->name);
    snprintf(path, sizeof path, "%s/%s.csv", ctx->opt->out_dir, f->name);
    FB_CHECK(fb_figure_write(f, path));
    FB_CHECK(write_vars(f, &ctx->colours, ctx->opt->out_dir));
    snprintf(script, sizeof script, "%s/%s.gp", ctx->scripts, fb_figure_script(f->kind));
    for (int t = 0; t < 2; ++t) {
        figure_command(f, terms[t], cmd[t], sizeof cmd[t]);
        fprintf(ctx->replot, "gnuplot -e \"%s\" \"$scripts/%s.gp\"\n", cmd[t], fb_figure_script(f->kind));
    }
    FB_CHECK(fb_plot_run_gnuplot("plot", gnuplot, ctx->opt->out_dir, cmd[0], cmd[1], script));
    for (int t = 0; t < 2; ++t) {
        snprintf(path, sizeof path, "%s/%s.%s", ctx->opt->out_dir, f->name, terms[t]);
        if (!fb_plot_file_valid(path))
            FB_FAIL(FB_ERR_BACKEND, "plot: %s was not written or is not a valid %s", path, terms[t]);
    }
    fprintf(ctx->log, "%s: %s/%s.png, .svg (%s)\n", fb_figure_script(f->kind), ctx->opt->out_dir, f->name, f->title);
fail:
    return status;
}

/* Every figure of every kind before any is drawn: one colour map over all
 * of them keeps a label's colour from figure to figure. */
static fb_status collect_all(plot_ctx *ctx, const fb_results_set *set)
{
    fb_status status = FB_OK;
    for (int k = 0; k < FB_FIG_NKINDS; ++k) {
        if (k != FB_FIG_BESIDE)
            FB_CHECK(fb_figures_collect(set, (fb_figure_kind)k, &ctx->lists[k]));
        else if (ctx->opt->beside) /* only on request */
            FB_CHECK(fb_figures_collect_beside(set, ctx->opt->beside, &ctx->lists[k]));
    }
    FB_CHECK(fb_colour_map_build(ctx->lists, FB_FIG_NKINDS, &ctx->colours));
fail:
    return status;
}

static fb_status draw_kind(plot_ctx *ctx, fb_figure_kind kind, fb_plot_summary *s)
{
    fb_status status = FB_OK;
    const fb_figure_list *list = &ctx->lists[kind];
    if (kind == FB_FIG_BESIDE && !ctx->opt->beside) return FB_OK;
    for (int i = 0; i < list->nnotes; ++i)
        fprintf(ctx->log, "%s\n", list->notes[i]);
    if (list->n == 0) {
        fprintf(ctx->log, "%s\n", fb_figure_missing(kind));
        s->skipped++;
    }
    if (list->n > 0) FB_CHECK(copy_script(ctx, kind));
    for (int i = 0; i < list->n; ++i, s->figures++)
        FB_CHECK(draw(ctx, &list->f[i]));
fail:
    return status;
}

static int usable_count(const fb_results_set *set)
{
    int n = 0;
    for (int i = 0; i < set->nrecords; ++i)
        n += fb_record_usable(&set->records[i]);
    return n;
}

fb_status fb_plot_results(const fb_results_set *set, const fb_plot_options *opt, FILE *log, fb_plot_summary *s)
{
    fb_status status = FB_OK;
    plot_ctx ctx = {.opt = opt, .log = log};
    memset(s, 0, sizeof *s);
    if (!usable_count(set))
        FB_FAIL(FB_ERR_INPUT, "plot: %s has no measurement with status ok and samples: nothing to plot", set->path);
    FB_CHECK(fb_plot_find_scripts(opt->scripts_dir, ctx.scripts, sizeof ctx.scripts));
    FB_CHECK(fb_make_dirs(opt->out_dir));
    FB_CHECK(open_replot(&ctx));
    FB_CHECK(collect_all(&ctx, set));
    for (int k = 0; k < FB_FIG_NKINDS; ++k)
        FB_CHECK(draw_kind(&ctx, (fb_figure_kind)k, s));
fail:
    for (int k = 0; k < FB_FIG_NKINDS; ++k)
        fb_figure_list_free(&ctx.lists[k]);
    fb_colour_map_free(&ctx.colours);
    if (ctx.replot && status == FB_OK) {
        char name[PATH_MAX + 32];
        snprintf(name, sizeof name, "%s/replot.sh", opt->out_dir);
        status = fb_file_check_written(ctx.replot, name);
    }
    if (ctx.replot && fclose(ctx.replot) != 0 && status == FB_OK)
        status = fb_error_set(FB_ERR_IO, __FILE__, __LINE__, "%s/replot.sh: write failed: %s", opt->out_dir,
                              strerror(errno));
    return status;
}
