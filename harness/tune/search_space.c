/* search_space.c - a search space from "NAME=V1,V2" lists (search.h,
 * fb_search_space_from_lists). */
#include "search.h"

#include <stdlib.h>
#include <string.h>

#include "../core/cmdline.h"

static int axis_index(const fb_param_axis *axes, int naxes, const char *name)
{
    for (int a = 0; a < naxes; ++a)
        if (!strcmp(axes[a].name, name)) return a;
    return -1;
}

/* "NAME=V1,V2,..." into the space's list of its axis, under the rule spmv,
 * grid and suites share (fb_cli_param_list). */
static fb_status read_list(const char *text, const fb_param_axis *axes, int naxes, int declared, const char *owner,
                           const char *hint, fb_search_space *space, int *named)
{
    fb_status status = FB_OK;
    char name[64];
    int v[FB_PARAM_MAX_LIST], n = 0;
    FB_CHECK(fb_cli_param_list(text, name, sizeof name, v, &n));
    int a = axis_index(axes, naxes, name);
    if (a < 0) FB_FAIL(FB_ERR_USAGE, "--param: %s has no parameter %s (see %s)", owner, name, hint);
    for (int k = 0; k < n; ++k)
        if (declared && !fb_param_axis_has(&axes[a], v[k]))
            FB_FAIL(FB_ERR_USAGE, "--param: %s=%d is not one of the axis's values (see %s)", axes[a].name, v[k], hint);
    named[a] = 1;
    space->nvalues[a] = n;
    memcpy(space->values[a], v, (size_t)n * sizeof v[0]);
fail:
    return status;
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* An axis no --param names, then each axis sorted and its start chosen. */
static void finish_axis(const fb_param_axis *axis, int named, int whole, fb_search_space *space, int a)
{
    if (!named && whole) {
        space->nvalues[a] = axis->nvalues;
        memcpy(space->values[a], axis->values, (size_t)axis->nvalues * sizeof axis->values[0]);
    } else if (!named) {
        space->nvalues[a] = 1;
        space->values[a][0] = axis->def;
    }
    qsort(space->values[a], (size_t)space->nvalues[a], sizeof space->values[a][0], ascending);
    space->categorical[a] = fb_axis_role_is_categorical(axis->role);
    space->start.values[a] = space->values[a][0];
    for (int k = 0; k < space->nvalues[a]; ++k)
        if (space->values[a][k] == axis->def) space->start.values[a] = axis->def;
}

fb_status fb_search_space_from_lists(const char *const *lists, int nlists, const fb_param_axis *axes, int naxes,
                                     int whole, int declared, const char *owner, const char *hint,
                                     fb_search_space *space)
{
    fb_status status = FB_OK;
    int named[FB_MAX_PARAMS] = {0};
    memset(space, 0, sizeof *space);
    space->naxes = naxes;
    for (int i = 0; i < nlists; ++i)
        FB_CHECK(read_list(lists[i], axes, naxes, declared, owner, hint, space, named));
    for (int a = 0; a < naxes; ++a)
        finish_axis(&axes[a], named[a], whole, space, a);
fail:
    return status;
}
