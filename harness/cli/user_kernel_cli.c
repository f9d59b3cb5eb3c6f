/* user_kernel_cli.c - the kernel-file options into a declaration
 * (user_kernel_cli.h). */
#include "user_kernel_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/user_kernel.h"
#include "core/guard.h"

/* "NAME=V1,V2,..." into name and values (at most FB_MAX_PARAM_VALUES + 1,
 * so that the registration can say there are too many). */
static fb_status read_param(const char *text, char *name, size_t name_len, int *values, int *n)
{
    fb_status status = FB_OK;
    const char *eq = strchr(text, '='), *at;
    *n = 0;
    if (!eq || eq == text) FB_FAIL(FB_ERR_USAGE, "--param: '%s' is not NAME=V1,V2,...", text);
    snprintf(name, name_len, "%.*s", (int)(eq - text), text);
    for (at = eq + 1;; ++at) {
        size_t len = strcspn(at, ",");
        int v;
        char why[160];
        /* the one rule for a value (params.h), a single one as a list's */
        if (fb_param_value_parse(at, len, &v, why, sizeof why)) FB_FAIL(FB_ERR_USAGE, "--param: %s: %s", name, why);
        for (int i = 0; i < *n; ++i)
            if (values[i] == v) FB_FAIL(FB_ERR_USAGE, "--param: %s: the value %d is listed twice", name, v);
        if (*n <= FB_MAX_PARAM_VALUES) values[(*n)++] = v;
        at += len;
        if (!*at) break;
    }
fail:
    return status;
}

static fb_status refuse_alone(const fb_parsed *args, int params_need_file)
{
    fb_status status = FB_OK;
    static const char *const needs_file[] = {"like", "constraint", "global-divisor", "param", NULL};
    for (int i = 0; needs_file[i]; ++i)
        if (fb_cli_value(args, needs_file[i]) && (params_need_file || strcmp(needs_file[i], "param")))
            FB_FAIL(FB_ERR_USAGE, "--%s describes a kernel file: give --kernel-file FILE --kernel NAME too",
                    needs_file[i]);
fail:
    return status;
}

fb_status fb_cli_user_kernel(const fb_parsed *args, const fb_family *f, int params_need_file, int *kernel)
{
    fb_status status = FB_OK;
    fb_user_kernel_decl d;
    const char *const *params, *const *constraints;
    char names[FB_MAX_PARAMS][128];
    int values[FB_MAX_PARAMS][FB_MAX_PARAM_VALUES + 1], index = -1;
    int nparams = fb_cli_values(args, "param", &params), nconstraints = fb_cli_values(args, "constraint", &constraints);
    memset(&d, 0, sizeof d);
    if (!fb_cli_value(args, "kernel-file")) {
        FB_CHECK(refuse_alone(args, params_need_file));
        goto fail;
    }
    if (!fb_cli_value(args, "kernel"))
        FB_FAIL(FB_ERR_USAGE, "--kernel-file: give --kernel NAME, the __kernel function of %s to run",
                fb_cli_value(args, "kernel-file"));
    if (nparams > FB_MAX_PARAMS) FB_FAIL(FB_ERR_USAGE, "--param: a kernel has at most %d parameters", FB_MAX_PARAMS);
    if (nconstraints > FB_USER_MAX_CONSTRAINTS)
        FB_FAIL(FB_ERR_USAGE, "--constraint: at most %d", FB_USER_MAX_CONSTRAINTS);
    d.file = (fb_user_text_decl){fb_cli_value(args, "kernel-file"), "--kernel-file"};
    d.name = (fb_user_text_decl){fb_cli_value(args, "kernel"), "--kernel"};
    d.like = (fb_user_text_decl){fb_cli_value(args, "like"), "--like"};
    d.divisor = (fb_user_text_decl){fb_cli_value(args, "global-divisor"), "--global-divisor"};
    for (int i = 0; i < nparams; ++i) {
        FB_CHECK(read_param(params[i], names[i], sizeof names[i], values[i], &d.params[i].nvalues));
        d.params[i] = (fb_user_param_decl){names[i], values[i], d.params[i].nvalues, "--param"};
    }
    d.nparams = nparams;
    for (int i = 0; i < nconstraints; ++i)
        d.constraints[i] = (fb_user_text_decl){constraints[i], "--constraint"};
    d.nconstraints = nconstraints;
    FB_CHECK(fb_user_kernel_register(f, &d, &index));
fail:
    if (kernel) *kernel = index;
    return status;
}

void fb_cli_guard_run(const char *command, const char *kernel, const struct fb_user_kernel *user, const char *device,
                      double budget_s)
{
    char work[1600];
    if (user)
        snprintf(work, sizeof work, "kernel %s of %s (%s on %s)", kernel, user->path, command, device);
    else
        snprintf(work, sizeof work, "kernel %s (%s on %s)", kernel, command, device);
    fb_guard_begin(work, 60.0 + 4.0 * budget_s, NULL);
}
