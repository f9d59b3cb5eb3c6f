/* params.h - kernel parameter spaces: named integer axes passed to kernels
 * as -D defines, each with a default, the list of values a sweep or the
 * tuner may try, and a role. Constraints that involve several axes, the
 * device or the problem are functions beside each kernel (see
 * kernels/spmv/spmv_kernels.c). */
#ifndef FB_PARAMS_H
#define FB_PARAMS_H

#include <stddef.h>

#define FB_MAX_PARAMS 6
#define FB_MAX_PARAM_VALUES 16

/* What an axis means to code that knows no family by name: figures draw a
 * work-group shape from the GROUP_X and GROUP_Y axes and a series per
 * ORDER, whatever the define is called. */
typedef enum fb_axis_role {
    FB_ROLE_OTHER = 0,
    FB_ROLE_GROUP_SIZE,      /* work-items per (1D) work-group */
    FB_ROLE_GROUP_SIZE_BITS, /* log2 of the work-group size */
    FB_ROLE_GROUP_X,         /* work-group width: NDRange dimension 0 */
    FB_ROLE_GROUP_Y,         /* work-group height: NDRange dimension 1 */
    FB_ROLE_TEAM,            /* work-items sharing one row or block row */
    FB_ROLE_WORK_PER_ITEM,   /* unrolling: rows, steps or blocks per item or group */
    FB_ROLE_LAYOUT,          /* data layout (AoS, SoA, AoSoA) */
    FB_ROLE_LAYOUT_BLOCK,    /* the block of a blocked layout */
    FB_ROLE_ORDER,           /* array order: 0 row-major, 1 column-major */
    FB_ROLE_OCCUPANCY,       /* resources reserved to cap occupancy */
    FB_ROLE_COUNT
} fb_axis_role;

/* "work-group size", ...: for --list. */
const char *fb_axis_role_name(fb_axis_role role);

typedef struct fb_param_axis {
    const char *name; /* the -D define: "WORKGROUP_SIZE_BITS" */
    int def;          /* default value */
    int values[FB_MAX_PARAM_VALUES];
    int nvalues;
    const char *help;
    int launch_only; /* 1: changes only the launch geometry, not the code */
    fb_axis_role role;
} fb_param_axis;

/* One point of a kernel's space: values[i] belongs to axis i. */
typedef struct fb_param_point {
    int values[FB_MAX_PARAMS];
} fb_param_point;

#endif
