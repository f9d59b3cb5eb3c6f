/* history_plot.c - trend figures and the HTML trend page (history_plot.h). */
#include "history_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/files.h"
#include "../../core/sysinfo.h"
#include "../gate/compare_history.h"
#include "plot.h"

/* One configuration's trend: the points with a stable run, their change
 * points and the gate's limit, in the unit shown. */
typedef struct trend {
    const fb_history_series *s;
    double *t; /* seconds per plotted point */
    int *idx;  /* the series point of each */
    int n;
    fb_change_point *cp;
    int ncp;
    int gbs;      /* shown as GB/s (the records give their bytes), else ms */
    double limit; /* the gate's limit in seconds (NAN: too few commits for a baseline) */
} trend;

static double shown(const trend *tr, int point, double seconds)
{
    double bytes = tr->s->points[point].bytes;
    return tr->gbs ? bytes / seconds / 1e9 : seconds * 1e3;
}

static const char *unit_name(const trend *tr) { return tr->gbs ? "GB/s" : "time (ms)"; }

static void trend_free(trend *tr)
{
    free(tr->t);
    free(tr->idx);
    free(tr->cp);
    memset(tr, 0, sizeof *tr);
}

static fb_status trend_build(const fb_history_series *s, const fb_history_plot_options *opt, trend *tr)
{
    fb_status status = FB_OK;
    double *scratch = NULL;
    memset(tr, 0, sizeof *tr);
    tr->s = s;
    FB_ALLOC(tr->t, s->npoints + 1, "a trend");
    FB_ALLOC(tr->idx, s->npoints + 1, "a trend");
    FB_ALLOC(tr->cp, s->npoints + 1, "a trend");
    tr->n = fb_history_series_values(s, tr->t, tr->idx);
    FB_CHECK(fb_detect_steps(tr->t, tr->n, &opt->detect, tr->cp, &tr->ncp));
    tr->gbs = tr->n > 0;
    for (int k = 0; k < tr->n; ++k)
        tr->gbs &= s->points[tr->idx[k]].bytes > 0;
    tr->limit = NAN;
    int base = tr->n < FB_HISTORY_LOOKBACK ? tr->n : FB_HISTORY_LOOKBACK;
    if (base >= FB_HISTORY_MIN_BASELINE) {
        double centre;
        FB_ALLOC(scratch, base, "a trend");
        tr->limit = fb_history_gate_limit(tr->t + tr->n - base, base, opt->threshold, &centre, scratch);
    }
fail:
    free(scratch);
    return status;
}

/* A commit as a label: at most 12 characters, nothing but [A-Za-z0-9._/-]
 * (it goes into a gnuplot data column and an SVG text). */
static void commit_label(const char *commit, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *c = commit; *c && k + 1 < len && k < 12; ++c)
        buf[k++] = strchr("._/-", *c) || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z') ? *c : '_';
    buf[k] = '\0';
}

/* ---- gnuplot --------------------------------------------------------------- */

static const char *const script_text =
    "# written by flowbench history plot: one configuration's trend; its NAME.vars is loaded first\n"
    "if (term eq 'svg') { set terminal svg size 1000,420 dynamic noenhanced background rgb 'white' } \\\n"
    "else { set terminal pngcairo size 1000,420 noenhanced }\n"
    "set output outfile\n"
    "set title title_text\n"
    "set xlabel 'commit (oldest left)'\n"
    "set ylabel ylabel_text\n"
    "set grid ytics\n"
    "set key outside top center horizontal\n"
    "set xtics rotate by -45 font ',8'\n"
    "do for [i=1:words(changes)] {\n"
    "  c = word(changes, i) + 0\n"
    "  set arrow from c, graph 0 to c, graph 1 nohead dt 2 lw 1.5 lc rgb '#d62728'\n"
    "}\n"
    "set style line 1 lc rgb '#1f77b4' pt 7 ps 0.6\n"
    "gate_part = gate == gate ? sprintf(\", %g with lines dt 3 lw 1.5 lc rgb '#2ca02c' title gate_title\", gate) : ''\n"
    "xt = labels ? ':xtic(5)' : ''\n"
    "eval 'plot datafile using 1:2:3:4'.xt.\" with yerrorbars ls 1 title 'median (spread)', '' using 1:2 with lines ls "
    "1 notitle\".gate_part\n";

/* Each file of a figure written whole (core/files.h): a failed write
 * leaves the one before, never half a file. */
static fb_status write_text_file(const char *path, const char *text)
{
    fb_file_writer w = {0};
    fb_status status = fb_file_writer_open(path, &w);
    if (status == FB_OK) fputs(text, w.f);
    return status == FB_OK ? fb_file_writer_close(&w, 1) : status;
}

static fb_status write_data(const trend *tr, const char *dir, int no)
{
    fb_status status = FB_OK;
    char path[1200], label[16];
    fb_file_writer w = {0};
    snprintf(path, sizeof path, "%s/history-%d.dat", dir, no);
    FB_CHECK(fb_file_writer_open(path, &w));
    FILE *f = w.f;
    fputs("# commit-index value low high commit\n", f);
    for (int k = 0; k < tr->n; ++k) {
        const fb_history_point *p = &tr->s->points[tr->idx[k]];
        double a = shown(tr, tr->idx[k], p->lo_s), b = shown(tr, tr->idx[k], p->hi_s);
        commit_label(p->commit, label, sizeof label);
        fprintf(f, "%d %.9g %.9g %.9g %s\n", k, shown(tr, tr->idx[k], p->median_s), fmin(a, b), fmax(a, b),
                *label ? label : "_");
    }
    FB_CHECK(fb_file_writer_close(&w, 1));
fail:
    return status;
}

static fb_status write_vars(const trend *tr, const char *dir, int no)
{
    fb_status status = FB_OK;
    char path[1200], file[64];
    fb_file_writer w = {0};
    snprintf(path, sizeof path, "%s/history-%d.vars", dir, no);
    FB_CHECK(fb_file_writer_open(path, &w));
    FILE *f = w.f;
    fputs(FB_PLOT_APOS_LINE, f); /* fb_plot_string_var joins a ' in as apos */
    snprintf(file, sizeof file, "history-%d.dat", no);
    fb_plot_string_var(f, "datafile", file);
    fb_plot_string_var(f, "title_text", tr->s->label);
    fb_plot_string_var(f, "ylabel_text", unit_name(tr));
    fb_plot_string_var(f, "gate_title", tr->gbs ? "gate: below is SLOWER" : "gate: above is SLOWER");
    if (isnan(tr->limit))
        fputs("gate = NaN\n", f);
    else
        fprintf(f, "gate = %.9g\n", shown(tr, tr->idx[tr->n - 1], tr->limit));
    fprintf(f, "labels = %d\nchanges = '", tr->n <= 40);
    for (int c = 0; c < tr->ncp; ++c)
        fprintf(f, "%s%g", c ? " " : "", tr->cp[c].at - 0.5);
    fputs("'\n", f);
    FB_CHECK(fb_file_writer_close(&w, 1));
fail:
    return status;
}

/* gnuplot -e "term=...; outfile=...; load 'history-N.vars'" history.gp in dir,
 * for the PNG and the SVG. */
static fb_status run_gnuplot(const char *gnuplot, const char *dir, int no)
{
    char cmd[2][200];
    for (int t = 0; t < 2; ++t) {
        const char *term = t ? "svg" : "png";
        snprintf(cmd[t], sizeof cmd[t], "term='%s'; outfile='history-%d.%s'; load 'history-%d.vars'", term, no, term,
                 no);
    }
    return fb_plot_run_gnuplot("history plot", gnuplot, dir, cmd[0], cmd[1], "history.gp");
}

static fb_status draw_figure(const trend *tr, const fb_history_plot_options *opt, int no)
{
    fb_status status = FB_OK;
    FB_CHECK(write_data(tr, opt->out_dir, no));
    FB_CHECK(write_vars(tr, opt->out_dir, no));
    FB_CHECK(run_gnuplot(opt->gnuplot, opt->out_dir, no));
fail:
    return status;
}

/* ---- HTML ---------------------------------------------------------------------- */

/* Text in the page: the HTML special characters escaped, control
 * characters dropped (compare's JUnit escaper does exactly that). */
static void html_text(FILE *f, const char *s) { fb_compare_xml_text(s, f); }

enum { SVG_W = 860, SVG_H = 300, SVG_L = 70, SVG_R = 20, SVG_T = 16, SVG_B = 84 };

typedef struct frame {
    double lo, hi; /* the value axis */
    int n;
} frame;

static double fx(const frame *fr, double k)
{
    return SVG_L + (fr->n > 1 ? k / (fr->n - 1) : 0.5) * (SVG_W - SVG_L - SVG_R);
}

static double fy(const frame *fr, double v)
{
    return SVG_T + (fr->hi - v) / (fr->hi - fr->lo) * (SVG_H - SVG_T - SVG_B);
}

static frame frame_of(const trend *tr, double gate)
{
    frame fr = {INFINITY, -INFINITY, tr->n};
    for (int k = 0; k < tr->n; ++k) {
        const fb_history_point *p = &tr->s->points[tr->idx[k]];
        double a = shown(tr, tr->idx[k], p->lo_s), b = shown(tr, tr->idx[k], p->hi_s);
        fr.lo = fmin(fr.lo, fmin(a, b));
        fr.hi = fmax(fr.hi, fmax(a, b));
    }
    if (!isnan(gate)) fr.lo = fmin(fr.lo, gate), fr.hi = fmax(fr.hi, gate);
    double pad = 0.08 * (fr.hi - fr.lo) + 1e-12 * fabs(fr.hi);
    fr.lo = fr.lo >= 0 ? fmax(fr.lo - pad, 0) : fr.lo - pad; /* times and GB/s are never below 0 */
    fr.hi += pad;
    return fr;
}

/* A round tick step: 1, 2 or 5 times a power of ten, about four to a range
 * (ticks of 9.468 and 21.84 read as noise). */
static double nice_step(double range)
{
    double raw = range / 4, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* The commits under the axis: every one when they fit, else every k-th
 * (and the last), rotated; each point's label is its tooltip too. */
static void svg_commit_ticks(FILE *f, const trend *tr, const frame *fr)
{
    const int every = tr->n <= 24 ? 1 : (tr->n + 23) / 24;
    char label[16];
    for (int k = 0; k < tr->n; ++k) {
        if (k % every && k != tr->n - 1) continue;
        commit_label(tr->s->points[tr->idx[k]].commit, label, sizeof label);
        fprintf(f,
                "<text x=\"%.1f\" y=\"%d\" class=\"tick commit\" text-anchor=\"end\" "
                "transform=\"rotate(-45 %.1f %d)\">%s</text>\n",
                fx(fr, k), SVG_H - SVG_B + 12, fx(fr, k), SVG_H - SVG_B + 12, label);
    }
}

static void svg_axes(FILE *f, const trend *tr, const frame *fr)
{
    const double step = nice_step(fr->hi - fr->lo);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", SVG_L, SVG_H - SVG_B, SVG_W - SVG_R,
            SVG_H - SVG_B);
    for (double v = ceil(fr->lo / step) * step; v <= fr->hi + 1e-9 * step; v += step)
        fprintf(f,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/><text x=\"%d\" y=\"%.1f\" "
                "class=\"tick\" text-anchor=\"end\">%.6g</text>\n",
                SVG_L, fy(fr, v), SVG_W - SVG_R, fy(fr, v), SVG_L - 6, fy(fr, v) + 4, fabs(v) < 1e-9 * step ? 0 : v);
    svg_commit_ticks(f, tr, fr);
    fprintf(f,
            "<text x=\"14\" y=\"%d\" class=\"tick\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>\n",
            (SVG_H - SVG_B) / 2, (SVG_H - SVG_B) / 2, unit_name(tr));
}

static void svg_changes(FILE *f, const trend *tr, const frame *fr)
{
    char label[16];
    for (int c = 0; c < tr->ncp; ++c) {
        double x = fx(fr, tr->cp[c].at - 0.5);
        commit_label(tr->s->points[tr->idx[tr->cp[c].at]].commit, label, sizeof label);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"change\"/><text x=\"%.1f\" y=\"%d\" "
                "class=\"tick change-label\">%s %+.1f%%</text>\n",
                x, SVG_T, x, SVG_H - SVG_B, x + 3, SVG_T + 10, label, 100 * tr->cp[c].change);
    }
}

static void svg_points(FILE *f, const trend *tr, const frame *fr)
{
    fputs("<polyline class=\"series\" points=\"", f);
    for (int k = 0; k < tr->n; ++k)
        fprintf(f, "%.1f,%.1f ", fx(fr, k), fy(fr, shown(tr, tr->idx[k], tr->s->points[tr->idx[k]].median_s)));
    fputs("\"/>\n", f);
    for (int k = 0; k < tr->n; ++k) {
        const fb_history_point *p = &tr->s->points[tr->idx[k]];
        char label[16];
        commit_label(p->commit, label, sizeof label);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"spread\"/>", fx(fr, k),
                fy(fr, shown(tr, tr->idx[k], p->lo_s)), fx(fr, k), fy(fr, shown(tr, tr->idx[k], p->hi_s)));
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"point\"><title>%s: %.4g</title></circle>\n",
                fx(fr, k), fy(fr, shown(tr, tr->idx[k], p->median_s)), label, shown(tr, tr->idx[k], p->median_s));
    }
}

static void svg_trend(FILE *f, const trend *tr)
{
    double gate = isnan(tr->limit) ? NAN : shown(tr, tr->idx[tr->n - 1], tr->limit);
    frame fr = frame_of(tr, gate);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", SVG_W,
            SVG_H, SVG_W, SVG_H);
    svg_axes(f, tr, &fr);
    /* the gate judges the next run against the last runs only: drawn over
     * that window and on to the right edge, not across the history */
    const int window = tr->n < FB_HISTORY_LOOKBACK ? tr->n : FB_HISTORY_LOOKBACK;
    if (!isnan(gate))
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"gate\"><title>gate: the limit the "
                "next run is judged at, from the last %d commits</title></line>\n",
                fx(&fr, tr->n - window), fy(&fr, gate), SVG_W - SVG_R, fy(&fr, gate), window);
    svg_changes(f, tr, &fr);
    svg_points(f, tr, &fr);
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"tick\">commits, oldest left (%d)</text>\n</svg>\n", SVG_L, SVG_H - 4,
            tr->n);
}

static void html_changes(FILE *f, const trend *tr)
{
    char before[32], after[32];
    if (!tr->ncp) return;
    fputs("<table><tr><th>commit</th><th>the commit before</th><th>change</th><th>p (Welch)</th><th>median before</th>"
          "<th>median after</th></tr>\n",
          f);
    for (int c = 0; c < tr->ncp; ++c) {
        const fb_change_point *cp = &tr->cp[c];
        fb_compare_format_time(cp->before, before, sizeof before);
        fb_compare_format_time(cp->after, after, sizeof after);
        fputs("<tr><td><code>", f);
        html_text(f, tr->s->points[tr->idx[cp->at]].commit);
        fputs("</code></td><td><code>", f);
        html_text(f, tr->s->points[tr->idx[cp->at - 1]].commit);
        fprintf(f,
                "</code></td><td class=\"num %s\">%+.1f%%</td><td class=\"num\">%.2g</td><td class=\"num\">%s</td>"
                "<td class=\"num\">%s</td></tr>\n",
                cp->change > 0 ? "slower" : "faster", 100 * cp->change, cp->p, before, after);
    }
    fputs("</table>\n", f);
}

static void html_section(FILE *f, const trend *tr, int figure)
{
    fputs("<section>\n<h2>", f);
    html_text(f, tr->s->label);
    fputs("</h2>\n<p class=\"key\">", f);
    html_text(f, tr->s->key);
    fputs(" &middot; ", f);
    html_text(f, tr->s->machine);
    fputs("</p>\n", f);
    if (figure) fprintf(f, "<p><a href=\"history-%d.svg\">figure</a></p>\n", figure);
    svg_trend(f, tr);
    html_changes(f, tr);
    fputs("</section>\n", f);
}

static const char *const html_head =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>flowbench history</title>\n"
    "<style>\n"
    /* the look of `report --html`'s page (report_html.c) */
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1000px;padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em;font-size:1.15em}\n"
    ".key{font-family:monospace;font-size:.8em;color:#666;margin-top:.3em}\n"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.85em}td,th{border:1px solid #ccc;padding:.2em .6em;"
    "text-align:left}\nth{background:#eef}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{background:#f4f4f4;padding:0 .2em}svg{max-width:100%;height:auto;border:1px solid #eee}\n"
    ".slower{color:#d62728;font-weight:bold}.faster{color:#2ca02c;font-weight:bold}\n"
    "svg .axis{stroke:#444}svg .grid{stroke:#e5e5e5}svg .tick{font-size:11px;fill:#444}\n"
    "svg .series{fill:none;stroke:#1f77b4;stroke-width:1.2}svg .point{fill:#1f77b4}\n"
    "svg .spread{stroke:#1f77b4;stroke-opacity:.45}svg .change{stroke:#d62728;stroke-dasharray:5 4;stroke-width:1.5}\n"
    "svg .change-label{fill:#d62728}svg .gate{stroke:#2ca02c;stroke-dasharray:2 3;stroke-width:1.5}\n"
    "</style>\n</head>\n<body>\n";

static fb_status open_html(const fb_history_plot_options *opt, fb_file_writer *w, char *path, size_t len)
{
    if (opt->html)
        snprintf(path, len, "%s", opt->html);
    else
        snprintf(path, len, "%s/index.html", opt->out_dir);
    return fb_file_writer_open(path, w);
}

static void html_intro(FILE *f, int n, const fb_history_plot_options *opt)
{
    fputs(html_head, f);
    fprintf(f,
            "<h1>flowbench throughput history</h1>\n<p>%d configuration(s). %s Dashed red: a change point (penalised "
            "step fit, Welch p &le; %g, at least %.3g%%); dotted green: the limit <code>compare --history</code> "
            "would gate the next run at; bars: the spread of each commit's runs.</p>\n",
            n, opt->all ? "Every configuration is shown." : "Only the configurations with a change point are shown.",
            opt->detect.alpha, 100 * opt->detect.min_change);
}

fb_status fb_history_plot(const fb_history_series *s, int n, const fb_history_plot_options *opt, FILE *log,
                          fb_history_plot_summary *sum)
{
    fb_status status = FB_OK;
    fb_file_writer w = {0};
    char path[1200], script[1200];
    int open = 0;
    memset(sum, 0, sizeof *sum);
    FB_CHECK(fb_make_dirs(opt->out_dir));
    snprintf(script, sizeof script, "%s/history.gp", opt->out_dir);
    if (opt->gnuplot && *opt->gnuplot) FB_CHECK(write_text_file(script, script_text));
    FB_CHECK(open_html(opt, &w, path, sizeof path));
    open = 1;
    html_intro(w.f, n, opt);
    for (int i = 0; i < n; ++i) {
        trend tr;
        FB_CHECK(trend_build(&s[i], opt, &tr));
        sum->changed += tr.ncp > 0;
        if (tr.n > 0 && (opt->all || tr.ncp > 0)) {
            int figure = 0;
            if (opt->gnuplot && *opt->gnuplot) {
                status = draw_figure(&tr, opt, figure = ++sum->figures);
                if (status == FB_OK && log)
                    fprintf(log, "history plot: %s/history-%d.png, .svg: %s\n", opt->out_dir, figure, s[i].label);
            }
            /* the page links its figures only where it sits beside them */
            if (status == FB_OK) html_section(w.f, &tr, opt->html ? 0 : figure);
            sum->sections += status == FB_OK;
        }
        trend_free(&tr);
        FB_CHECK(status);
    }
    fputs("</body>\n</html>\n", w.f);
    open = 0;
    FB_CHECK(fb_file_writer_close(&w, 1));
    if (log) fprintf(log, "history plot: %s: %d section(s)\n", path, sum->sections);
fail:
    if (open) fb_file_writer_close(&w, 0);
    return status;
}

/* ---- the series as a table (history show) ---- */

void fb_history_print_series(FILE *f, const fb_history_series *s)
{
    char med[32], lo[32], hi[32], when[32];
    fprintf(f, "%s\n  key: %s\n  machine: %s\n  %-14s %-20s %10s  %-21s %4s %s\n", s->label, s->key, s->machine,
            "commit", "when", "median", "spread", "runs", "flagged");
    for (int i = 0; i < s->npoints; ++i) {
        const fb_history_point *p = &s->points[i];
        fb_utc_text((long long)p->when, when, sizeof when);
        if (p->runs) {
            fb_compare_format_time(p->median_s, med, sizeof med);
            fb_compare_format_time(p->lo_s, lo, sizeof lo);
            fb_compare_format_time(p->hi_s, hi, sizeof hi);
        } else {
            snprintf(med, sizeof med, "-");
            snprintf(lo, sizeof lo, "-");
            snprintf(hi, sizeof hi, "-");
        }
        fprintf(f, "  %-14.14s %-20s %10s  %9s..%-10s %4d %d%s\n", p->commit, when, med, lo, hi, p->runs, p->flagged,
                p->flagged ? " unstable or contended" : "");
    }
}
