/* plot.c - runs the gnuplot scripts of plots/ on the figure tables and
 * checks what they wrote. */
#include "plot.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/files.h"
#include "figures.h"

static int has_scripts(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/stream.gp", dir);
    return access(path, R_OK) == 0;
}

/* Candidates relative to the executable: build/flowbench -> ../plots. */
static int beside_executable(char *dir, size_t len)
{
    static const char *const rel[] = {"plots", "../plots", "../../plots", NULL};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    for (int i = 0; rel[i]; ++i) {
        snprintf(dir, len, "%s/%s", exe, rel[i]);
        if (has_scripts(dir)) return 1;
    }
    return 0;
}

/* ./plots (the repository root), beside the executable, then the source
 * tree this file was compiled in: __FILE__ is .../harness/results/plot.c. */
static int search_scripts(char *dir, size_t len)
{
    char source[PATH_MAX];
    snprintf(source, sizeof source, "%s", __FILE__);
    char *cut = strstr(source, "harness/results/plot.c");
    snprintf(dir, len, "plots");
    if (has_scripts(dir) || beside_executable(dir, len)) return 1;
    if (!cut) return 0;
    strcpy(cut, "plots");
    snprintf(dir, len, "%s", source);
    return has_scripts(dir);
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
    } else if (!search_scripts(dir, len)) {
        FB_FAIL(FB_ERR_INPUT, "plot: cannot find the gnuplot scripts (plots/stream.gp); pass --scripts DIR");
    }
fail:
    return status;
}

int fb_plot_file_valid(const char *path)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    int ok = 0;
    if (f) fclose(f);
    buf[n] = '\0';
    if (strstr(path, ".png"))
        ok = n > 64 && memcmp(buf, png, sizeof png) == 0;
    else if (strstr(path, ".svg"))
        ok = strstr(buf, "<svg") && strstr(buf, "</svg>");
    return ok;
}

/* Appends name="value"; to vars, escaped for a gnuplot double-quoted string
 * (double quotes keep replot.sh readable inside the shell's single quotes). */
static void add_var(char *vars, size_t len, const char *name, const char *value)
{
    size_t n = strlen(vars);
    n += (size_t)snprintf(vars + n, n < len ? len - n : 0, "%s=\"", name);
    for (const char *p = value; *p && n + 4 < len; ++p) {
        if (*p == '"' || *p == '\\') vars[n++] = '\\';
        vars[n++] = (*p == '\n') ? ' ' : *p;
    }
    if (n + 4 < len) snprintf(vars + n, len - n, "\"; ");
}

static void figure_vars(const fb_figure *f, const char *term, char *vars, size_t len)
{
    char file[256], counts[96];
    vars[0] = '\0';
    snprintf(file, sizeof file, "%s.csv", f->name);
    add_var(vars, len, "datafile", file);
    snprintf(file, sizeof file, "%s.%s", f->name, term);
    add_var(vars, len, "outfile", file);
    add_var(vars, len, "term", term);
    add_var(vars, len, "plottitle", f->title);
    add_var(vars, len, "xname", f->xlabel);
    add_var(vars, len, "yname", f->ylabel);
    snprintf(counts, sizeof counts, "ncols=%d; nrows=%d", f->ncols, f->nrows);
    snprintf(vars + strlen(vars), len - strlen(vars), "%s", counts);
}

/* gnuplot -e VARS SCRIPT, run inside dir so the tables' names are short. */
static fb_status run_gnuplot(const char *gnuplot, const char *dir, const char *vars, const char *script)
{
    fb_status status = FB_OK;
    int wstatus = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) FB_FAIL(FB_ERR_IO, "plot: cannot start %s (%s)", gnuplot, strerror(errno));
    if (pid == 0) {
        char *argv[] = {(char *)gnuplot, "-e", (char *)vars, (char *)script, NULL};
        if (chdir(dir) == 0) execvp(gnuplot, argv);
        _exit(127);
    }
    if (waitpid(pid, &wstatus, 0) < 0) FB_FAIL(FB_ERR_IO, "plot: lost %s (%s)", gnuplot, strerror(errno));
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127)
        FB_FAIL(FB_ERR_UNAVAILABLE, "plot: cannot run '%s' (Debian: apt-get install gnuplot-nox)", gnuplot);
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        FB_FAIL(FB_ERR_BACKEND, "plot: %s failed on %s (its message is above)", gnuplot, script);
fail:
    return status;
}

static fb_status make_dir(const char *dir)
{
    fb_status status = FB_OK;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            FB_FAIL(FB_ERR_IO, "%s: cannot create (%s)", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) FB_FAIL(FB_ERR_IO, "%s: cannot create (%s)", path, strerror(errno));
fail:
    return status;
}

/* 'text' for sh: every ' becomes '\'' */
static void shell_quoted(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *p = text; *p; ++p) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

typedef struct plot_ctx {
    const fb_plot_options *opt;
    char scripts[PATH_MAX];
    FILE *replot, *log;
} plot_ctx;

static fb_status draw(plot_ctx *ctx, const fb_figure *f)
{
    fb_status status = FB_OK;
    static const char *const terms[] = {"png", "svg"};
    const char *gnuplot = ctx->opt->gnuplot ? ctx->opt->gnuplot : "gnuplot";
    char path[PATH_MAX + 256], script[PATH_MAX + 64], vars[4096];
    snprintf(path, sizeof path, "%s/%s.csv", ctx->opt->out_dir, f->name);
    FB_CHECK(fb_figure_write(f, path));
    snprintf(script, sizeof script, "%s/%s.gp", ctx->scripts, fb_figure_script(f->kind));
    for (int t = 0; t < 2; ++t) {
        figure_vars(f, terms[t], vars, sizeof vars);
        FB_CHECK(run_gnuplot(gnuplot, ctx->opt->out_dir, vars, script));
        fputs("gnuplot -e ", ctx->replot);
        shell_quoted(ctx->replot, vars);
        fprintf(ctx->replot, " \"$scripts/%s.gp\"\n", fb_figure_script(f->kind));
        snprintf(path, sizeof path, "%s/%s.%s", ctx->opt->out_dir, f->name, terms[t]);
        if (!fb_plot_file_valid(path))
            FB_FAIL(FB_ERR_BACKEND, "plot: %s was not written or is not a valid %s", path, terms[t]);
    }
    fprintf(ctx->log, "%s: %s/%s.png, .svg (%s)\n", fb_figure_script(f->kind), ctx->opt->out_dir, f->name, f->title);
fail:
    return status;
}

static fb_status draw_kind(plot_ctx *ctx, const fb_results_set *set, fb_figure_kind kind, fb_plot_summary *s)
{
    fb_status status = FB_OK;
    fb_figure_list list = {0};
    if (kind == FB_FIG_BESIDE && !ctx->opt->beside) return FB_OK; /* only on request */
    if (kind == FB_FIG_BESIDE)
        FB_CHECK(fb_figures_collect_beside(set, ctx->opt->beside, &list));
    else
        FB_CHECK(fb_figures_collect(set, kind, &list));
    if (list.n == 0) {
        fprintf(ctx->log, "%s\n", fb_figure_missing(kind));
        s->skipped++;
    }
    for (int i = 0; i < list.n; ++i, s->figures++)
        FB_CHECK(draw(ctx, &list.f[i]));
fail:
    fb_figure_list_free(&list);
    return status;
}

static fb_status open_replot(plot_ctx *ctx)
{
    fb_status status = FB_OK;
    char path[PATH_MAX + 32], scripts[PATH_MAX];
    snprintf(path, sizeof path, "%s/replot.sh", ctx->opt->out_dir);
    if (!realpath(ctx->scripts, scripts)) FB_FAIL(FB_ERR_IO, "%s: %s", ctx->scripts, strerror(errno));
    snprintf(ctx->scripts, sizeof ctx->scripts, "%s", scripts);
    if (!(ctx->replot = fopen(path, "w"))) FB_FAIL(FB_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    fprintf(ctx->replot,
            "#!/bin/sh\n# replot.sh - redraws every figure here from its .csv table; restyle a script\n"
            "# in $scripts (or point scripts= at a copy) and run this again.\nset -e\n"
            "cd \"$(dirname \"$0\")\"\nscripts=${scripts:-%s}\n",
            scripts);
    chmod(path, 0755);
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
    plot_ctx ctx = {opt, "", NULL, log};
    memset(s, 0, sizeof *s);
    if (!usable_count(set))
        FB_FAIL(FB_ERR_INPUT, "plot: %s has no measurement with status ok and samples: nothing to plot", set->path);
    FB_CHECK(fb_plot_find_scripts(opt->scripts_dir, ctx.scripts, sizeof ctx.scripts));
    FB_CHECK(make_dir(opt->out_dir));
    FB_CHECK(open_replot(&ctx));
    for (int k = 0; k < FB_FIG_NKINDS; ++k)
        FB_CHECK(draw_kind(&ctx, set, (fb_figure_kind)k, s));
fail:
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
