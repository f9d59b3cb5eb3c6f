/* ns_kernels.h - the device kernels of the Navier-Stokes solver (ns.cl) as
 * data: their names in launch-table order, their parameter axes, their
 * OpenMP twins, and the family descriptor that lists their programs for
 * the NVRTC compile test. The launch sequence is harness/solver/ns_step.c,
 * which runs on the openmp backend through the twins (ns_omp_twins.c);
 * harness/solver/ns_family_run.c gives the family its run. */
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
    FB_NS_CG1_MATVEC,
    FB_NS_CG1_UPDATE,
    FB_NS_CG2_START,
    FB_NS_CG2_ITERATE,
    FB_NS_CSR_VALUES, /* CG_SPMV != 0: the explicit CSR matrix and the product's dot products */
    FB_NS_CG1_DOTS,
    FB_NS_CORRECT,
    FB_NS_HALO_PACK, /* several ranks only: a device array's halo exchange, packed and unpacked on the device */
    FB_NS_HALO_UNPACK,
    FB_NS_REDUCE_GROUPS, /* many partials: folded by several groups first, then by ns_reduce */
    FB_NS_NKERNELS
} fb_ns_kernel_id;

/* "ns_reduce", ...: the __kernel names, indexed by fb_ns_kernel_id. */
extern const char *const fb_ns_kernel_names[FB_NS_NKERNELS];

/* The axes every solver kernel shares, in this order (fb_param_point.values):
 * WG_SIZE (items per work-group; the local arrays of the reductions are
 * that long), GROUP_REDUCE (0: one partial per item, folded by ns_reduce;
 * 1: reductions fold each group in local memory first) and CG_VARIANT (1:
 * the single-reduction CG, one reduction and three launches per iteration;
 * 0: the classic CG, two and four; 2: the pipelined CG, one and two; the
 * host's launch sequence only), EDGE_LAYOUT (0: the edge coefficients as
 * split arrays nd, dn, ls; 1: one packed 16-REAL record per edge),
 * RENUMBER (the node order the device holds: 0 the mesh's, 1 reverse
 * Cuthill-McKee, the default, fastest on PoCL; 2 by neighbour count; the
 * host's permutation only,
 * harness/solver/ns_order.c) and CG_SPMV (the product of the
 * single-reduction CG: 0 its own edge product fused with the dot products;
 * 1 csr-scalar, 2 csr-vector, 3 csr-multirow of kernels/spmv on the
 * pressure matrix as explicit CSR, the dots a pass of their own: 4
 * launches per iteration; the host's launch sequence only). The defaults
 * of GROUP_REDUCE and CG_VARIANT, 0 and 1, are the fastest measured (PoCL:
 * 2-3x faster CG than 1 and 0; the pipelined CG's fused kernel is slower
 * there than variant 1's two); a GPU may prefer the trees, which write
 * fewer partials, and fewer launches. */
enum {
    FB_NS_WG_SIZE_AXIS,
    FB_NS_GROUP_REDUCE_AXIS,
    FB_NS_CG_VARIANT_AXIS,
    FB_NS_EDGE_LAYOUT_AXIS,
    FB_NS_RENUMBER_AXIS,
    FB_NS_CG_SPMV_AXIS,
    FB_NS_NAXES
};
extern const fb_param_axis fb_ns_axes[FB_NS_NAXES];

/* 1 for the kernels that read the edge coefficients (nd, dn, ls), the
 * only ones EDGE_LAYOUT changes. */
int fb_ns_kernel_reads_edges(fb_ns_kernel_id k);

/* The point of every axis at its default. */
fb_param_point fb_ns_default_point(void);

/* The OpenMP twins of every kernel above, in double (ns_omp_twins.c:
 * their reduction convention is in its header). */
extern const fb_host_kernel fb_ns_host_kernels[];

extern const fb_family fb_family_ns;

#endif
