/* cmdline.c - option tables read from a command line (cmdline.h). */
#include "cmdline.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
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

/* Whether name is one of list's (NULL-terminated; NULL: none). */
static int listed(const char *name, const char *const *list)
{
    for (; list && *list; ++list)
        if (!strcmp(name, *list)) return 1;
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
        if (p->count[i] == 0 || listed(o->name, drop)) continue;
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

fb_status fb_cli_only_options(const fb_parsed *p, const char *command, const char *const *allowed,
                              const char *const *common)
{
    fb_status status = FB_OK;
    for (int i = 0; i < p->noptions; ++i)
        if (p->count[i] && !listed(p->options[i].name, allowed) && !listed(p->options[i].name, common))
            FB_FAIL(FB_ERR_USAGE, "%s %s: --%s does not apply (see flowbench %s --help)", command, p->positional[0],
                    p->options[i].name, command);
fail:
    return status;
}
