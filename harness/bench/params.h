/* params.h - kernel parameter spaces: named integer axes passed to kernels
 * as -D defines, each with a default and the list of values a sweep or the
 * tuner may try. Constraints that involve several axes, the device or the
 * problem are functions beside each kernel (see kernels/spmv/spmv_kernels.c). */
#ifndef FB_PARAMS_H
#define FB_PARAMS_H

#include <stddef.h>

#define FB_MAX_PARAMS 6
#define FB_MAX_PARAM_VALUES 16

typedef struct fb_param_axis {
    const char *name;  /* the -D define: "WORKGROUP_SIZE_BITS" */
    int def;           /* default value */
    int values[FB_MAX_PARAM_VALUES];
    int nvalues;
    const char *help;
    int launch_only;   /* 1: changes only the launch geometry, not the code */
} fb_param_axis;

/* One point of a kernel's space: values[i] belongs to axis i. */
typedef struct fb_param_point {
    int values[FB_MAX_PARAMS];
} fb_param_point;

#endif
