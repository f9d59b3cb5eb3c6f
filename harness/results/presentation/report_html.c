/* report_html.c - the report as one self-contained HTML page
 * (report_html.h). The markdown report is written into memory and turned
 * into HTML line by line: it uses headings, paragraphs, "- " lists, tables
 * and image lines only, so a small converter of those is enough. */
#include "report_html.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "../../core/files.h"

// clang-format off
static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>flowbench report</title>\n<style>\n"
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}\n"
    "table{border-collapse:collapse;margin:.8em 0;font-size:.85em}\n"
    "th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}\n"
    "th{background:#eef;cursor:pointer;user-select:none}th:after{content:' \\2195';color:#99a}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.flag{background:#fde2c8;font-weight:600}td.flag:before{content:'\\26A0 ';}\n"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}\n"
    "figcaption{font-size:.85em;color:#555}code{background:#f4f4f4;padding:0 .2em}\n"
    "#fb-check,.legend{font-size:.8em;color:#555}span.flag{background:#fde2c8;font-weight:600;padding:0 .3em}\n"
    "span.flag:before{content:'\\26A0 ';}\n"
    "</style>\n</head>\n";

/* Sorting: a click on a head sorts by that column, numbers as numbers,
 * again the other way. The check: each figure and table must have a box. */
static const char page_script[] =
    "<script>\n"
    "(function(){\n"
    "function key(td){var t=td.textContent.trim(),n=parseFloat(t.replace(/^[^0-9.+-]+/,''));"
    "return isNaN(n)?t.toLowerCase():n;}\n"
    "function cmp(a,b){return typeof a==typeof b?(a<b?-1:a>b?1:0):(typeof a=='number'?-1:1);}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " t.querySelectorAll('th').forEach(function(th,c){th.addEventListener('click',function(){\n"
    "  var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),up=th.dataset.dir!='up';\n"
    "  rows.sort(function(x,y){var r=cmp(key(x.cells[c]||x),key(y.cells[c]||y));return up?r:-r;});\n"
    "  th.dataset.dir=up?'up':'down';rows.forEach(function(r){body.appendChild(r);});});});});\n"
    "function shown(e){var b=e.getBoundingClientRect();return b.width>0&&b.height>0;}\n"
    "var want=document.body.dataset,figs=0,tabs=0;\n"
    "document.querySelectorAll('figure svg').forEach(function(s){if(shown(s)&&s.querySelector('*'))figs++;});\n"
    "document.querySelectorAll('table').forEach(function(t){if(shown(t)&&t.rows.length>1)tabs++;});\n"
    "var ok=figs==+want.figures&&tabs==+want.tables;\n"
    "var text=(ok?'OK: ':'FAIL: ')+figs+' of '+want.figures+' figures, '+tabs+' of '+want.tables+' tables rendered';\n"
    "document.getElementById('fb-check').textContent=text;document.title=text+' - '+document.title;\n"
    "})();\n"
    "</script>\n";
// clang-format on

#define HTML_MAX_COLUMNS 64

typedef struct html_state {
    FILE *out;
    const char *plots_dir;
    int in_table, table_row, in_list, figures, tables;
    char right[HTML_MAX_COLUMNS]; /* the table's columns aligned right ("---:"): numbers */
} html_state;

static void escape(FILE *out, const char *text, size_t n)
{
    for (size_t i = 0; i < n && text[i]; ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < n && text[i + 1] == '`') continue; /* "\`": a backtick, printed next */
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else
            fputc(c, out);
    }
}

/* The next backtick from i that is not escaped ("\`"), n if none. */
static size_t next_tick(const char *text, size_t i, size_t n)
{
    while (i < n && !(text[i] == '`' && (i == 0 || text[i - 1] != '\\')))
        ++i;
    return i;
}

/* Inline markdown: `code` only (the report uses nothing else). A backtick
 * from a record's text (a kernel's name, a note) that has no partner on
 * its line, or is escaped, is printed as itself: the markup stays
 * balanced whatever the records hold. */
static void inline_text(FILE *out, const char *text, size_t n)
{
    size_t from = 0;
    for (size_t open = next_tick(text, 0, n); open < n; open = next_tick(text, from, n)) {
        size_t close = next_tick(text, open + 1, n);
        if (close >= n) break;
        escape(out, text + from, open - from);
        fputs("<code>", out);
        escape(out, text + open + 1, close - open - 1);
        fputs("</code>", out);
        from = close + 1;
    }
    escape(out, text + from, n - from);
}

static void close_blocks(html_state *h)
{
    if (h->in_table) fputs("</tbody></table>\n", h->out);
    if (h->in_list) fputs("</ul>\n", h->out);
    h->in_table = h->in_list = 0;
}

/* A cell is flagged when its figure is no figure to trust: the report's
 * "?" after a number, or the verdict's words. */
static int flagged(const char *cell, size_t n)
{
    char text[256];
    size_t len;
    snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text - 1 ? n : sizeof text - 1), cell);
    len = strlen(text);
    while (len > 0 && text[len - 1] == ' ')
        text[--len] = '\0';
    if (strstr(text, "unstable") || strstr(text, "contended")) return 1;
    return len > 1 && text[len - 1] == '?' && strchr("0123456789x", text[len - 2]) != NULL;
}

/* The alignment line "|---|---:|" says which columns hold numbers. */
static void read_alignment(html_state *h, const char *line)
{
    int c = -1;
    memset(h->right, 0, sizeof h->right);
    for (const char *p = line; *p; ++p) {
        if (*p == '|') ++c;
        if (*p == ':' && p[1] == '|' && c >= 0 && c < HTML_MAX_COLUMNS) h->right[c] = 1;
    }
}

/* One "| a | b |" line as a row; '\|' is a '|' inside a cell. */
static void table_row(html_state *h, const char *line, const char *tag)
{
    const char *p = line + 1;
    int column = 0;
    fputs("<tr>", h->out);
    while (*p) {
        const char *end = p;
        while (*end && !(*end == '|' && end[-1] != '\\'))
            ++end;
        if (!*end) break;
        const size_t n = (size_t)(end - p);
        const int td = !strcmp(tag, "td"), flag = td && flagged(p, n);
        const int num = td && column < HTML_MAX_COLUMNS && h->right[column];
        ++column;
        fprintf(h->out, "<%s%s>", tag, flag ? " class=\"flag\"" : num ? " class=\"num\"" : "");
        for (const char *q = p; q < end; ++q) {
            if (*q == '\\' && q[1] == '|') continue;
            inline_text(h->out, q, 1);
        }
        fprintf(h->out, "</%s>", tag);
        p = end + 1;
    }
    fputs("</tr>\n", h->out);
}

static void table_line(html_state *h, const char *line)
{
    if (!h->in_table) {
        close_blocks(h);
        fputs("<table class=\"sortable\"><thead>", h->out);
        table_row(h, line, "th");
        fputs("</thead><tbody>\n", h->out);
        h->in_table = 1;
        h->table_row = 0;
        h->tables++;
        return;
    }
    if (h->table_row++ == 0 && strspn(line, "|-: ") == strlen(line)) {
        read_alignment(h, line);
        return;
    }
    table_row(h, line, "td");
}

/* The figure's SVG, its ids prefixed with "fN-" so that the page's
 * figures do not share definitions (gnuplot names them alike). */
static int inline_svg(html_state *h, const char *stem)
{
    char path[2048], *text = NULL, *start;
    size_t len = 0;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.svg", h->plots_dir, stem);
    if (!(f = fopen(path, "r"))) return 0;
    FILE *mem = open_memstream(&text, &len);
    for (int c; mem && (c = fgetc(f)) != EOF;)
        fputc(c, mem);
    fclose(f);
    if (!mem) return 0;
    fclose(mem);
    start = strstr(text, "<svg");
    for (const char *p = start; p && *p; ++p) {
        static const char *const refs[] = {" id=\"", " id='", "url(#", "href=\"#", "href='#"};
        fputc(*p, h->out);
        for (size_t r = 0; r < sizeof refs / sizeof *refs; ++r) {
            const size_t n = strlen(refs[r]);
            if (strncmp(p, refs[r], n) != 0) continue;
            fprintf(h->out, "%.*sf%d-", (int)n - 1, p + 1, h->figures);
            p += n - 1;
            break;
        }
    }
    free(text);
    return start != NULL;
}

/* "![TITLE](NAME.png)": the figure inline, its title as the caption. */
static void image_line(html_state *h, const char *line)
{
    const char *title = line + 2, *close = strstr(line, "]("), *file, *dot;
    char stem[1024];
    if (!close) return;
    file = close + 2;
    dot = strstr(file, ".png)");
    if (!dot) return;
    snprintf(stem, sizeof stem, "%.*s", (int)(dot - file), file);
    close_blocks(h);
    fputs("<figure>\n", h->out);
    h->figures++;
    if (!inline_svg(h, stem)) {
        h->figures--;
        fputs("<p>(no SVG of this figure)</p>", h->out);
    }
    fputs("<figcaption>", h->out);
    escape(h->out, title, (size_t)(close - title));
    fputs("</figcaption>\n</figure>\n", h->out);
}

static void text_line(html_state *h, const char *line)
{
    const size_t hashes = strspn(line, "#");
    if (hashes && line[hashes] == ' ') {
        close_blocks(h);
        fprintf(h->out, "<h%zu>", hashes);
        inline_text(h->out, line + hashes + 1, strlen(line + hashes + 1));
        fprintf(h->out, "</h%zu>\n", hashes);
    } else if (!strncmp(line, "- ", 2)) {
        if (h->in_table) close_blocks(h);
        if (!h->in_list) fputs("<ul>\n", h->out);
        h->in_list = 1;
        fputs("<li>", h->out);
        inline_text(h->out, line + 2, strlen(line + 2));
        fputs("</li>\n", h->out);
    } else if (!strncmp(line, "    ", 4)) {
        close_blocks(h);
        fputs("<pre>", h->out);
        escape(h->out, line + 4, strlen(line + 4));
        fputs("</pre>\n", h->out);
    } else {
        close_blocks(h);
        fputs("<p>", h->out);
        inline_text(h->out, line, strlen(line));
        fputs("</p>\n", h->out);
    }
}

static void convert_line(html_state *h, const char *line)
{
    if (line[0] == '|')
        table_line(h, line);
    else if (!strncmp(line, "![", 2))
        image_line(h, line);
    else if (line[0] == '\0')
        close_blocks(h);
    else
        text_line(h, line);
}

/* Writes the page of set to out; the figures are read from plots_dir
 * (NAME.svg beside each NAME.png the report links). */
static fb_status report_html_write(fb_results_set *set, const char *plots_dir, FILE *out)
{
    fb_status status = FB_OK;
    char *md = NULL, *body = NULL;
    size_t md_len = 0, body_len = 0;
    FILE *mem = open_memstream(&md, &md_len), *page = NULL;
    const fb_report_options opt = {plots_dir, ""};
    html_state h = {.plots_dir = plots_dir};
    if (!mem) FB_FAIL(FB_ERR_NOMEM, "out of host memory writing the HTML report");
    status = fb_report_write(set, &opt, mem);
    fclose(mem);
    FB_CHECK(status);
    if (!(page = h.out = open_memstream(&body, &body_len))) FB_FAIL(FB_ERR_NOMEM, "out of host memory");
    for (char *line = md, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        convert_line(&h, line);
    }
    close_blocks(&h);
    fclose(page);
    fputs(page_head, out);
    fprintf(out, "<body data-figures=\"%d\" data-tables=\"%d\">\n<p id=\"fb-check\">not checked (scripts off?)</p>\n",
            h.figures, h.tables);
    fputs("<p class=\"legend\"><span class=\"flag\">shaded, marked</span>: a number resting on an unstable or "
          "contended measurement, no figure to trust (why: &quot;Unstable or contended measurements&quot;). A click "
          "on a column's head sorts the table.</p>\n",
          out);
    fwrite(body, 1, body_len, out);
    fputs(page_script, out);
    fputs("</body>\n</html>\n", out);
fail:
    free(md);
    free(body);
    return status;
}

fb_status fb_report_html_file(fb_results_set *set, const char *plots_dir, const char *path)
{
    fb_status status = FB_OK;
    fb_file_writer w = {0};
    FB_CHECK(fb_file_writer_open(path, &w));
    status = report_html_write(set, plots_dir, w.f);
    FB_CHECK(fb_file_writer_close(&w, status == FB_OK));
fail:
    return status;
}
