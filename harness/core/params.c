/* params.c - names of the parameter-axis roles, and the one rule for the
 * values a parameter may be given. */
#include "params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fb_axis_role_name(fb_axis_role role)
{
    static const char *const names[FB_ROLE_COUNT] = {
        [FB_ROLE_OTHER] = "other",
        [FB_ROLE_GROUP_SIZE] = "work-group size",
        [FB_ROLE_GROUP_SIZE_BITS] = "log2 work-group size",
        [FB_ROLE_GROUP_X] = "work-group x",
        [FB_ROLE_GROUP_Y] = "work-group y",
        [FB_ROLE_TEAM] = "items per row",
        [FB_ROLE_WORK_PER_ITEM] = "work per item",
        [FB_ROLE_LAYOUT] = "layout",
        [FB_ROLE_LAYOUT_BLOCK] = "layout block",
        [FB_ROLE_ORDER] = "array order",
        [FB_ROLE_OCCUPANCY] = "occupancy cap",
    };
    return role >= 0 && role < FB_ROLE_COUNT ? names[role] : "other";
}

int fb_axis_role_is_categorical(fb_axis_role role) { return role == FB_ROLE_LAYOUT || role == FB_ROLE_ORDER; }

int fb_param_value_parse(const char *text, size_t len, int *value, char *why, size_t why_len)
{
    char buf[64], *end = NULL;
    long long v;
    if (len == 0 || len >= sizeof buf) {
        snprintf(why, why_len, "'%.*s' is not an integer", (int)(len < 40 ? len : 40), text);
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = 0;
    errno = 0;
    v = strtoll(buf, &end, 10);
    if (end == buf || *end) {
        snprintf(why, why_len, "'%s' is not an integer", buf);
        return -1;
    }
    if (errno == ERANGE || v < -FB_PARAM_VALUE_MAX ||
        v > FB_PARAM_VALUE_MAX) { /* no wraparound: 4294967360 is not 64 */
        snprintf(why, why_len, "'%s' is out of range (%d..%d)", buf, -FB_PARAM_VALUE_MAX, FB_PARAM_VALUE_MAX);
        return -1;
    }
    *value = (int)v;
    return 0;
}

int fb_param_list_add(int *list, int *n, int value, char *why, size_t why_len)
{
    for (int i = 0; i < *n; ++i)
        if (list[i] == value) {
            snprintf(why, why_len, "the value %d is listed twice", value);
            return -1;
        }
    if (*n >= FB_PARAM_MAX_LIST) {
        snprintf(why, why_len, "more than %d values", FB_PARAM_MAX_LIST);
        return -1;
    }
    list[(*n)++] = value;
    return 0;
}

fb_param_point fb_param_default_point(const fb_param_axis *axes, int naxes)
{
    fb_param_point p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < naxes; ++i)
        p.values[i] = axes[i].def;
    return p;
}

int fb_param_axis_has(const fb_param_axis *axis, int value)
{
    for (int v = 0; v < axis->nvalues; ++v)
        if (axis->values[v] == value) return 1;
    return 0;
}

static int axis_named(const fb_param_axis *axes, int naxes, const char *name, size_t len)
{
    for (int i = 0; i < naxes; ++i)
        if (strlen(axes[i].name) == len && !strncmp(axes[i].name, name, len)) return i;
    return -1;
}

int fb_param_point_parse(const fb_param_axis *axes, int naxes, const char *text, fb_param_point *p, char *why,
                         size_t why_len)
{
    char value_why[160];
    *p = fb_param_default_point(axes, naxes);
    for (const char *at = text; *at;) {
        const size_t len = strcspn(at, ","), name_len = strcspn(at, "=,");
        const int axis = axis_named(axes, naxes, at, name_len);
        if (axis < 0 || at[name_len] != '=') {
            snprintf(why, why_len, "'%.*s' is not NAME=V of an axis", (int)len, at);
            return -1;
        }
        if (fb_param_value_parse(at + name_len + 1, len - name_len - 1, &p->values[axis], value_why,
                                 sizeof value_why) != 0) {
            snprintf(why, why_len, "%s: %s", axes[axis].name, value_why);
            return -1;
        }
        at += len + (at[len] == ',');
    }
    return 0;
}

void fb_param_point_format(const fb_param_axis *axes, int naxes, const fb_param_point *p, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < naxes && at < len; ++i)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%d", i ? "," : "", axes[i].name, p->values[i]);
}
