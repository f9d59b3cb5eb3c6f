/* params.c - names of the parameter-axis roles. */
#include "params.h"

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
