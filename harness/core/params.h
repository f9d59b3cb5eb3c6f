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

/* 1 when an axis of this role names choices (a layout, an array order)
 * rather than amounts: its values have no order a search could follow. */
int fb_axis_role_is_categorical(fb_axis_role role);

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

/* The one rule for a parameter's values, on the command line (`--param
 * NAME=V1,V2`) and in suites (`params:`): integers within
 * +-FB_PARAM_VALUE_MAX, none listed twice, at most FB_PARAM_MAX_LIST of
 * them. A value need not be one the axis declares: whether a kernel can
 * run it is its constraint check's to say (the point is then refused, or
 * pruned in a sweep, with the reason), so a value a suite runs is one the
 * command line runs, and the other way round. */
#define FB_PARAM_VALUE_MAX 1000000000
#define FB_PARAM_MAX_LIST 256

/* Parses one value of text[0..len): 0, or -1 with the reason in why
 * ("'abc' is not an integer", "'5000000000' is out of range (...)"). */
int fb_param_value_parse(const char *text, size_t len, int *value, char *why, size_t why_len);

/* Appends value to list[0..*n) (room for FB_PARAM_MAX_LIST): 0, or -1 with
 * the reason in why (listed twice, too many). */
int fb_param_list_add(int *list, int *n, int value, char *why, size_t why_len);

/* 1 when value is one of the axis's values: the point is in the kernel's
 * space along this axis. */
int fb_param_axis_has(const fb_param_axis *axis, int value);

/* The point of every axis's default (values past naxes 0). */
fb_param_point fb_param_default_point(const fb_param_axis *axes, int naxes);

/* "NAME=V,NAME=V" (text[0..]) as a point: the default, with each axis named
 * set to its value. 0, or -1 with why ("'X' is not NAME=V of an axis",
 * "VECTOR_SIZE: 'abc' is not an integer"). */
int fb_param_point_parse(const fb_param_axis *axes, int naxes, const char *text, fb_param_point *p, char *why,
                         size_t why_len);

/* The point as "NAME=V,NAME=V", every axis, into buf. */
void fb_param_point_format(const fb_param_axis *axes, int naxes, const fb_param_point *p, char *buf, size_t len);

#endif
