/* ns_kernels.h - the device kernels of the Navier-Stokes solver (ns.cl) as
 * data: their names in launch-table order, their one parameter axis, and
 * the family descriptor that lists their programs for the NVRTC compile
 * test. The launch sequence is harness/solver/ns_device.c; the OpenMP
 * baseline is ns_omp.c, called directly by harness/solver/ns.c (a
 * multi-kernel pipeline whose state stays resident, not a host table). */
#ifndef FB_NS_KERNELS_H
#define FB_NS_KERNELS_H

#include "bench/family.h"

#define FB_NS_SOURCE "ns/ns.cl"

typedef enum fb_ns_kernel_id {
    FB_NS_REDUCE,
    FB_NS_RATE,
    FB_NS_PROJECTIONS,
    FB_NS_RK_STAGE,
    FB_NS_APPLY_FIXED,
    FB_NS_APPLY_SLIP,
    FB_NS_EXTRAPOLATE,
    FB_NS_SET_VALUES,
    FB_NS_PRESSURE_SETUP,
    FB_NS_SUM,
    FB_NS_REMOVE_MEAN,
    FB_NS_REFERENCE_SHIFT,
    FB_NS_ADD_SCALAR,
    FB_NS_CG_START,
    FB_NS_CG_DIRECTION,
    FB_NS_CG_UPDATE,
    FB_NS_CORRECT,
    FB_NS_NKERNELS
} fb_ns_kernel_id;

/* "ns_reduce", ...: the __kernel names, indexed by fb_ns_kernel_id. */
extern const char *const fb_ns_kernel_names[FB_NS_NKERNELS];

/* WG_SIZE: items per work-group of every solver kernel (the local arrays of
 * the reductions are that long). */
extern const fb_param_axis fb_ns_wg_axis;

extern const fb_family fb_family_ns;

#endif
