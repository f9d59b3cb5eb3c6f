/* cli.c - option parsing and help text generated from fb_option tables. */
#include "cli.h"

#include "bench/family.h"
#include "core/comm.h"
#include "bench/record.h"
#include "stream/stream.h"
#include "../results/records/reader.h"
#include "../results/records/results.h"
#include "../tune/cache.h"
#include "../results/records/stream_ref.h"
#include "../results/records/stream_used.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_option(const fb_command *cmd, const char *name, size_t len)
{
    for (int i = 0; cmd->options && cmd->options[i].name; ++i)
        if (strlen(cmd->options[i].name) == len && strncmp(cmd->options[i].name, name, len) == 0) return i;
    return -1;
}

static fb_status store(const fb_command *cmd, fb_parsed *out, int i, const char *value)
{
    fb_status status = FB_OK;
    const fb_option *o = &cmd->options[i];
    if (out->count[i] > 0 && !o->repeatable) FB_FAIL(FB_ERR_USAGE, "%s: --%s given twice", cmd->name, o->name);
    if (out->count[i] >= FB_CLI_MAX_VALUES)
        FB_FAIL(FB_ERR_USAGE, "%s: --%s given more than %d times", cmd->name, o->name, FB_CLI_MAX_VALUES);
    out->values[i][out->count[i]++] = value;
    out->value[i] = value;
fail:
    return status;
}

static fb_status parse_long(const fb_command *cmd, int argc, char **argv, int *k, fb_parsed *out)
{
    fb_status status = FB_OK;
    const char *arg = argv[*k] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    int i = find_option(cmd, arg, len);
    if (i < 0)
        FB_FAIL(FB_ERR_USAGE, "%s: unknown option --%.*s (see flowbench %s --help)", cmd->name, (int)len, arg,
                cmd->name);
    const fb_option *o = &cmd->options[i];
    if (!o->metavar) {
        if (eq) FB_FAIL(FB_ERR_USAGE, "%s: --%s takes no value", cmd->name, o->name);
        FB_CHECK(store(cmd, out, i, "1"));
    } else if (eq) {
        FB_CHECK(store(cmd, out, i, eq + 1));
    } else {
        if (*k + 1 >= argc) FB_FAIL(FB_ERR_USAGE, "%s: --%s needs a value %s", cmd->name, o->name, o->metavar);
        FB_CHECK(store(cmd, out, i, argv[++*k]));
    }
fail:
    return status;
}

fb_status fb_cli_parse(const fb_command *cmd, int argc, char **argv, fb_parsed *out, int *help_requested)
{
    fb_status status = FB_OK;
    int only_positional = 0;
    memset(out, 0, sizeof *out);
    out->options = cmd->options;
    for (int i = 0; cmd->options && cmd->options[i].name; ++i) {
        /* a programming error, not the user's: the tables are static */
        if (++out->noptions > FB_CLI_MAX_OPTIONS) {
            fprintf(stderr, "flowbench: internal error: %s declares more than %d options\n", cmd->name,
                    FB_CLI_MAX_OPTIONS);
            abort();
        }
        for (int j = 0; j < i; ++j)
            if (!strcmp(cmd->options[j].name, cmd->options[i].name)) {
                fprintf(stderr, "flowbench: internal error: %s declares --%s twice\n", cmd->name, cmd->options[i].name);
                abort();
            }
    }
    *help_requested = 0;
    for (int k = 0; k < argc; ++k) {
        const char *a = argv[k];
        if (!only_positional && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            *help_requested = 1;
            return FB_OK;
        }
        if (!only_positional && strcmp(a, "--") == 0) {
            only_positional = 1;
        } else if (!only_positional && strncmp(a, "--", 2) == 0) {
            FB_CHECK(parse_long(cmd, argc, argv, &k, out));
        } else if (!only_positional && a[0] == '-' && a[1] != '\0') {
            FB_FAIL(FB_ERR_USAGE, "%s: unknown option %s (options are long: --name)", cmd->name, a);
        } else {
            if (out->npositional >= (int)(sizeof out->positional / sizeof out->positional[0]))
                FB_FAIL(FB_ERR_USAGE, "%s: too many arguments", cmd->name);
            out->positional[out->npositional++] = a;
        }
    }
    if (out->npositional < cmd->min_positional)
        FB_FAIL(FB_ERR_USAGE, "%s: missing argument (usage: flowbench %s)", cmd->name, cmd->usage);
    if (out->npositional > cmd->max_positional)
        FB_FAIL(FB_ERR_USAGE, "%s: unexpected argument '%s' (usage: flowbench %s)", cmd->name,
                out->positional[cmd->max_positional], cmd->usage);
fail:
    return status;
}

void fb_cli_print_help(const fb_command *cmd)
{
    printf("usage: flowbench %s\n\n%s\n", cmd->usage, cmd->description);
    if (cmd->options && cmd->options[0].name) printf("\noptions:\n");
    for (int i = 0; cmd->options && cmd->options[i].name; ++i) {
        const fb_option *o = &cmd->options[i];
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        printf("  %-24s %s%s\n", left, o->help, o->repeatable ? " (repeatable)" : "");
    }
    printf("  %-24s %s\n", "--help", "show this help and exit");
    printf("\nexit status: 0 success, 1 failed check, 2 usage or input error, 3 runtime failure, "
           "130 interrupted\n");
}

/* The option's place in the command's table, -1 when it has none. */
static int parsed_option(const fb_parsed *p, const char *name)
{
    for (int i = 0; i < p->noptions; ++i)
        if (strcmp(p->options[i].name, name) == 0) return i;
    return -1;
}

static int index_of(const fb_parsed *p, const char *name)
{
    const int i = parsed_option(p, name);
    if (i >= 0) return i;
    fprintf(stderr, "flowbench: internal error: option --%s is not declared\n", name);
    abort();
}

int fb_cli_flag(const fb_parsed *p, const char *name) { return p->count[index_of(p, name)] > 0; }

const char *fb_cli_first_given(const fb_parsed *p, const char *const *names)
{
    for (; names && *names; ++names)
        if (fb_cli_flag(p, *names)) return *names;
    return NULL;
}

const char *fb_cli_value(const fb_parsed *p, const char *name) { return p->value[index_of(p, name)]; }

static int dropped(const char *name, const char *const *drop)
{
    for (; drop && *drop; ++drop)
        if (!strcmp(name, *drop)) return 1;
    return 0;
}

/* argv[*n] = a copy of "PREFIXtext". */
static fb_status push(char **argv, int *n, const char *prefix, const char *text)
{
    fb_status status = FB_OK;
    char *s = malloc(strlen(prefix) + strlen(text) + 1);
    if (!s) FB_FAIL(FB_ERR_NOMEM, "out of host memory for a new process's arguments");
    sprintf(s, "%s%s", prefix, text);
    argv[(*n)++] = s;
fail:
    return status;
}

fb_status fb_cli_child_argv(const char *command, const fb_parsed *p, const char *const *drop, const char *const *extra,
                            char ***out)
{
    fb_status status = FB_OK;
    int n = 0, cap = 3 + p->npositional;
    char **argv = NULL;
    for (int i = 0; i < p->noptions; ++i)
        cap += 2 * p->count[i];
    for (const char *const *e = extra; e && *e; ++e)
        cap++;
    FB_ALLOC(argv, (size_t)cap + 1, "a new process's arguments");
    FB_CHECK(push(argv, &n, "", "flowbench"));
    FB_CHECK(push(argv, &n, "", command));
    for (int i = 0; i < p->npositional; ++i)
        FB_CHECK(push(argv, &n, "", p->positional[i]));
    for (int i = 0; i < p->noptions; ++i) {
        const fb_option *o = &p->options[i];
        if (p->count[i] == 0 || dropped(o->name, drop)) continue;
        for (int k = 0; k < (o->repeatable ? p->count[i] : 1); ++k) {
            FB_CHECK(push(argv, &n, "--", o->name));
            if (o->metavar) FB_CHECK(push(argv, &n, "", o->repeatable ? p->values[i][k] : p->value[i]));
        }
    }
    for (const char *const *e = extra; e && *e; ++e)
        FB_CHECK(push(argv, &n, "", *e));
    *out = argv;
    return FB_OK;
fail:
    fb_cli_child_argv_free(argv);
    return status;
}

void fb_cli_child_argv_free(char **argv)
{
    for (int i = 0; argv && argv[i]; ++i)
        free(argv[i]);
    free(argv);
}

int fb_cli_values(const fb_parsed *p, const char *name, const char *const **values)
{
    int i = index_of(p, name);
    *values = p->values[i];
    return p->count[i];
}

/* --NAME's text v as a non-negative integer of at most max: "not a
 * non-negative integer" is said of text that is not one, "out of range"
 * of one that is too large. */
static fb_status parse_unsigned(const char *name, const char *v, unsigned long long max, unsigned long long *out)
{
    fb_status status = FB_OK;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end != '\0' || v[0] == '-')
        FB_FAIL(FB_ERR_USAGE, "--%s: '%s' is not a non-negative integer", name, v);
    if (errno == ERANGE || x > max) FB_FAIL(FB_ERR_USAGE, "--%s: '%s' is out of range (at most %llu)", name, v, max);
    *out = x;
fail:
    return status;
}

fb_status fb_cli_count(const fb_parsed *p, const char *name, size_t dflt, size_t *out)
{
    fb_status status = FB_OK;
    const char *v = fb_cli_value(p, name);
    unsigned long long x = 0;
    *out = dflt;
    if (v) {
        FB_CHECK(parse_unsigned(name, v, SIZE_MAX, &x));
        *out = (size_t)x;
    }
    if (*out == 0) FB_FAIL(FB_ERR_USAGE, "--%s: must be at least 1", name);
fail:
    return status;
}

fb_status fb_cli_double(const fb_parsed *p, const char *name, double dflt, double *out)
{
    fb_status status = FB_OK;
    const char *v = fb_cli_value(p, name);
    char *end = NULL;
    *out = dflt;
    if (!v) return FB_OK;
    double x = strtod(v, &end);
    if (end == v || *end != '\0') FB_FAIL(FB_ERR_USAGE, "--%s: '%s' is not a number", name, v);
    if (!isfinite(x)) FB_FAIL(FB_ERR_USAGE, "--%s: '%s' is not a finite number", name, v);
    *out = x;
fail:
    return status;
}

fb_status fb_cli_int(const fb_parsed *p, const char *name, int dflt, int *out)
{
    fb_status status = FB_OK;
    const char *v = fb_cli_value(p, name);
    unsigned long long x = 0;
    *out = dflt;
    if (!v) return FB_OK;
    FB_CHECK(parse_unsigned(name, v, FB_CLI_INT_MAX, &x));
    *out = (int)x;
fail:
    return status;
}

fb_status fb_cli_precision(const fb_parsed *p, int *is_double)
{
    const char *v = fb_cli_value(p, "precision");
    *is_double = !v || strcmp(v, "double") == 0;
    if (v && !*is_double && strcmp(v, "single") != 0)
        return fb_error_set(FB_ERR_USAGE, __FILE__, __LINE__, "--precision: '%s' is not double or single", v);
    return FB_OK;
}

fb_status fb_cli_out_open(const char *path, fb_cli_out *o)
{
    memset(o, 0, sizeof *o);
    o->f = stdout;
    o->name = "standard output";
    if (!path) return FB_OK;
    o->name = path;
    fb_status status = fb_file_writer_open(path, &o->file);
    o->f = o->file.f;
    return status;
}

fb_status fb_cli_out_close(fb_cli_out *o, fb_status status)
{
    if (o->f == stdout) return status != FB_OK ? status : fb_file_check_written(stdout, o->name);
    fb_status closed = fb_file_writer_close(&o->file, status == FB_OK);
    o->f = NULL;
    return status != FB_OK ? status : closed;
}

fb_status fb_cli_param(const char *kernel, const fb_param_axis *axes, int naxes, const char *text,
                       const char *list_hint, fb_param_point *p)
{
    fb_status status = FB_OK;
    const char *eq = strchr(text, '=');
    char why[160];
    if (!eq) FB_FAIL(FB_ERR_USAGE, "--param: '%s' is not NAME=VALUE", text);
    for (int i = 0; i < naxes; ++i) {
        if (strlen(axes[i].name) != (size_t)(eq - text) || strncmp(axes[i].name, text, (size_t)(eq - text))) continue;
        if (fb_param_value_parse(eq + 1, strlen(eq + 1), &p->values[i], why, sizeof why))
            FB_FAIL(FB_ERR_USAGE, "--param: %s: %s", axes[i].name, why);
        return FB_OK;
    }
    FB_FAIL(FB_ERR_USAGE, "--param: %s has no parameter %.*s (see %s)", kernel, (int)(eq - text), text, list_hint);
fail:
    return status;
}

fb_status fb_cli_param_list(const char *text, char *name, size_t name_len, int *values, int *n)
{
    fb_status status = FB_OK;
    const char *eq = strchr(text, '=');
    char why[160];
    *n = 0;
    if (!eq || eq == text) FB_FAIL(FB_ERR_USAGE, "--param: '%s' is not NAME=V1[,V2...]", text);
    if ((size_t)(eq - text) >= name_len)
        FB_FAIL(FB_ERR_USAGE, "--param: '%.*s' is too long a name", (int)(eq - text), text);
    snprintf(name, name_len, "%.*s", (int)(eq - text), text);
    for (const char *v = eq + 1;; ++v) {
        size_t len = strcspn(v, ",");
        int value = 0;
        if (fb_param_value_parse(v, len, &value, why, sizeof why) ||
            fb_param_list_add(values, n, value, why, sizeof why))
            FB_FAIL(FB_ERR_USAGE, "--param: %s: %s", name, why);
        v += len;
        if (!*v) break;
    }
fail:
    return status;
}

int fb_cli_declares(const fb_parsed *p, const char *name)
{
    for (int i = 0; i < p->noptions; ++i)
        if (strcmp(p->options[i].name, name) == 0) return 1;
    return 0;
}

fb_status fb_cli_measure(const fb_parsed *args, double budget_s, double spread_pct, fb_measure_config *m)
{
    fb_status status = FB_OK;
    *m = fb_measure_defaults();
    /* not every measuring command offers --cold and --warmups (grid and tune do not) */
    if (fb_cli_declares(args, "warmups")) FB_CHECK(fb_cli_int(args, "warmups", m->warmups, &m->warmups));
    FB_CHECK(fb_cli_int(args, "min-samples", m->min_samples, &m->min_samples));
    FB_CHECK(fb_cli_int(args, "max-samples", m->max_samples, &m->max_samples));
    FB_CHECK(fb_cli_double(args, "spread", spread_pct, &spread_pct));
    FB_CHECK(fb_cli_double(args, "budget", budget_s, &m->budget_s));
    m->target_spread = spread_pct / 100.0;
    m->cold = fb_cli_declares(args, "cold") && fb_cli_flag(args, "cold");
    if (m->min_samples < 1 || m->max_samples < m->min_samples)
        FB_FAIL(FB_ERR_USAGE, "--min-samples/--max-samples: need 1 <= min <= max");
    if (!(m->target_spread > 0)) FB_FAIL(FB_ERR_USAGE, "--spread: must be positive");
    if (!(m->budget_s > 0)) FB_FAIL(FB_ERR_USAGE, "--budget: must be positive");
fail:
    return status;
}

/* The reference's note on stderr when the fraction is not a roofline
 * fraction. */
static void judge_roofline(const fb_device_info *d, json_t *rec)
{
    const char *note = fb_stream_used_judge(d, rec);
    if (note)
        fprintf(stderr, "note: %.1f%% of the stream triad on %s: %s\n",
                100.0 * json_number_value(json_object_get(rec, "fraction_of_stream")), d->id, note);
}

fb_status fb_cli_emit_record(const fb_parsed *args, const char *command, const fb_device_info *d, json_t *rec)
{
    fb_status status = FB_OK;
    fb_results *out = NULL;
    judge_roofline(d, rec);
    if (fb_cli_value(args, "out")) {
        FB_CHECK(fb_results_open(fb_cli_value(args, "out"), command, d, 1, &out));
        FB_CHECK(fb_results_append(out, rec));
    }
    if (fb_cli_flag(args, "json")) {
        json_dumpf(rec, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        printf("\n");
    }
fail:
    fb_results_close(out);
    return status;
}

/* Which triad the fractions divide by, and why that one. */
static void say_reference(const fb_stream_ref *ref, const char *path)
{
    const fb_stream_triad *t = &ref->triad, *p = &ref->passed_over;
    if (ref->has_passed_over)
        fprintf(stderr, "  measured %.2f GB/s, %s (%s): not stored, and passed over for the stored stable one\n",
                p->gbs, fb_quality_name(p->quality), p->quality_why);
    char ago[64] = "";
    if (ref->stored) snprintf(ago, sizeof ago, ", measured %.0f s ago", ref->age_s);
    fprintf(stderr, "  %s %.2f GB/s (%.2f-%.2f over %d samples%s), %s\n", ref->stored ? "stored" : "measured", t->gbs,
            t->gbs_min, t->gbs_max, t->samples, ago, path);
    if (t->quality != FB_QUALITY_STABLE)
        fprintf(stderr,
                "  note: this triad is %s (%s) and nothing stable is stored: it was not stored, and the fractions "
                "below that divide by it are flagged\n",
                fb_quality_name(t->quality), t->quality_why);
}

fb_status fb_cli_stream_size(const fb_parsed *args, const char *name, size_t *n)
{
    *n = 0; /* the device's default (stream.h), decided once the device is open */
    return fb_cli_value(args, name) ? fb_cli_count(args, name, 0, n) : FB_OK;
}

fb_status fb_cli_stream_triad(const fb_parsed *args, fb_target *t, const char *label, int is_double, double *gbs)
{
    fb_status status = FB_OK;
    size_t n = 0;
    *gbs = 0;
    double max_age = fb_stream_ref_max_age();
    char path[4096];
    fb_stream_ref ref;
    char note[512];
    FB_CHECK(fb_cli_stream_size(args, "stream-size", &n));
    if (fb_cli_flag(args, "no-stream")) return FB_OK;
    FB_CHECK(fb_cli_double(args, "stream-max-age", max_age, &max_age));
    if (!(max_age >= 0)) FB_FAIL(FB_ERR_USAGE, "--stream-max-age: must be 0 or more seconds");
    fb_stream_ref_default_path(path, sizeof path);
    fprintf(stderr,
            "the stream triad on %s: a stored one younger than %.0f s, else measured now "
            "(--no-stream skips it)...\n",
            label, max_age);
    FB_CHECK(fb_stream_ref_get(t, n, is_double, path, max_age, &ref));
    *gbs = ref.triad.gbs;
    say_reference(&ref, path);
    fb_stream_size_note(fb_target_info(t), &ref.size, note, sizeof note);
    if (*note) fprintf(stderr, "  note: %s\n", note);
    fb_stream_used_keep(fb_target_info(t)->id, fb_stream_ref_json(&ref, path));
fail:
    return status;
}

void fb_cli_print_axes(const fb_param_axis *axes, int naxes, const char *indent)
{
    for (int p = 0; p < naxes; ++p) {
        const fb_param_axis *a = &axes[p];
        printf("%s%s = {", indent, a->name);
        for (int v = 0; v < a->nvalues; ++v)
            printf("%s%d", v ? ", " : "", a->values[v]);
        printf("}, default %d: %s%s", a->def, a->help ? a->help : "",
               a->launch_only ? " (host side: the same programs)" : "");
        printf(a->role != FB_ROLE_OTHER ? " [%s]\n" : "\n", fb_axis_role_name(a->role));
    }
}

void fb_cli_print_family(const fb_family *f)
{
    printf("family %s: %s\n", f->name, f->summary);
    printf("  model: %s\n", f->model);
    printf("  checked against: %s\n", f->reference);
}

static fb_status gather_extra(fb_named_file **files, int *n, const fb_named_file *f)
{
    fb_named_file *grown = realloc(*files, (size_t)(*n + 1) * sizeof *grown);
    if (!grown) return fb_error_set(FB_ERR_NOMEM, __FILE__, __LINE__, "out of host memory checking the files");
    *files = grown;
    (*files)[(*n)++] = *f;
    return FB_OK;
}

/* The values of the options named (those the table declares and the line
 * gives), appended to files as "--NAME" and path. */
static fb_status gather_files(const fb_parsed *args, const char *const *options, fb_named_file **files, char **names,
                              int *n)
{
    fb_status status = FB_OK;
    for (int o = 0; options && options[o]; ++o) {
        const char *const *values = NULL;
        int nv = fb_cli_declares(args, options[o]) ? fb_cli_values(args, options[o], &values) : 0;
        for (int v = 0; v < nv; ++v) {
            fb_named_file *grown = realloc(*files, (size_t)(*n + 1) * sizeof *grown);
            if (!grown) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
            *files = grown;
            names[o] = names[o] ? names[o] : malloc(strlen(options[o]) + 3);
            if (!names[o]) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
            sprintf(names[o], "--%s", options[o]);
            (*files)[(*n)++] = (fb_named_file){names[o], values[v]};
        }
    }
fail:
    return status;
}

static int count_names(const char *const *options)
{
    int n = 0;
    while (options && options[n])
        n++;
    return n;
}

static int declared(const fb_parsed *p, const char *name) { return parsed_option(p, name) >= 0; }

/* --tuned reads the tuning cache, --cache's or the default one: an input
 * whichever way it is named, and whether it is there yet or not (--out
 * naming it would append records to it, or make it of records). path NULL
 * without --tuned. */
static fb_named_file tuned_cache(const fb_parsed *args, char *path, size_t len)
{
    const char *given = declared(args, "cache") ? fb_cli_value(args, "cache") : NULL;
    if (!declared(args, "tuned") || !fb_cli_flag(args, "tuned")) return (fb_named_file){"tuning cache", NULL};
    fb_cache_path(given, path, len);
    return (fb_named_file){given ? "--cache" : "tuning cache", path};
}

fb_status fb_cli_check_files(const fb_parsed *args, const char *command, const char *const *inputs,
                             const char *const *outputs, const fb_named_file *extra_in, int nextra_in,
                             const fb_named_file *extra_out, int nextra_out)
{
    fb_status status = FB_OK;
    fb_named_file *in = NULL, *out = NULL;
    int nin = 0, nout = 0, nnames = count_names(inputs) + count_names(outputs);
    char **names = calloc((size_t)nnames + 1, sizeof *names), cache[1024];
    const fb_named_file store = tuned_cache(args, cache, sizeof cache);
    if (!names) FB_FAIL(FB_ERR_NOMEM, "out of host memory checking the files of the command line");
    for (int i = 0; i < nextra_in; ++i)
        FB_CHECK(gather_extra(&in, &nin, &extra_in[i]));
    for (int i = 0; i < nextra_out; ++i)
        FB_CHECK(gather_extra(&out, &nout, &extra_out[i]));
    FB_CHECK(gather_files(args, inputs, &in, names, &nin));
    FB_CHECK(gather_files(args, outputs, &out, names + count_names(inputs), &nout));
    if (nout) FB_CHECK(fb_files_check_distinct(command, in, nin, out, nout));
    if (nout && store.path) FB_CHECK(fb_files_check_stores(command, &store, 1, out, nout));
fail:
    for (int i = 0; names && i < nnames; ++i)
        free(names[i]);
    free(names);
    free(in);
    free(out);
    return status;
}
