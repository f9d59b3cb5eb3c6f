/* ns_family.c - the solver's device kernels (ns.cl) as a family: their
 * names, their axes, every program a GPU run can build (for the NVRTC
 * compile test) and their OpenMP twins. Its one kernel, "ns", is the time
 * step: every kernel of ns.cl at one point. Its problems and its run (a
 * whole run of a case per point) belong to the solver, which kernels/ may
 * not call: harness/solver/ns_family_run.c fills those slots and
 * registers the result in this descriptor's place. */
#include <stdio.h>

#include "ns_kernels.h"

const char *const fb_ns_kernel_names[FB_NS_NKERNELS] = {
    [FB_NS_REDUCE] = "ns_reduce",
    [FB_NS_RATE] = "ns_rate",
    [FB_NS_PROJECTIONS] = "ns_projections",
    [FB_NS_RK_STAGE] = "ns_rk_stage",
    [FB_NS_APPLY_FIXED] = "ns_apply_fixed",
    [FB_NS_APPLY_SLIP] = "ns_apply_slip",
    [FB_NS_EXTRAPOLATE] = "ns_extrapolate",
    [FB_NS_SET_VALUES] = "ns_set_values",
    [FB_NS_PRESSURE_SETUP] = "ns_pressure_setup",
    [FB_NS_SUM] = "ns_sum",
    [FB_NS_REMOVE_MEAN] = "ns_remove_mean",
    [FB_NS_REFERENCE_SHIFT] = "ns_reference_shift",
    [FB_NS_ADD_SCALAR] = "ns_add_scalar",
    [FB_NS_CG_START] = "ns_cg_start",
    [FB_NS_CG_DIRECTION] = "ns_cg_direction",
    [FB_NS_CG_UPDATE] = "ns_cg_update",
    [FB_NS_CG1_MATVEC] = "ns_cg1_matvec",
    [FB_NS_CG1_UPDATE] = "ns_cg1_update",
    [FB_NS_CG2_START] = "ns_cg2_start",
    [FB_NS_CG2_ITERATE] = "ns_cg2_iterate",
    [FB_NS_CSR_VALUES] = "ns_csr_values",
    [FB_NS_CG1_DOTS] = "ns_cg1_dots",
    [FB_NS_CORRECT] = "ns_correct",
    [FB_NS_HALO_PACK] = "ns_halo_pack",
    [FB_NS_HALO_UNPACK] = "ns_halo_unpack",
    [FB_NS_REDUCE_GROUPS] = "ns_reduce_groups",
};

// clang-format off
const fb_param_axis fb_ns_axes[FB_NS_NAXES] = {
    {"WG_SIZE", 128, {32, 64, 128, 256, 512, 1024}, 6, "work-group size of every solver kernel", 0, FB_ROLE_GROUP_SIZE},
    {"GROUP_REDUCE", 0, {0, 1}, 2, "reductions: 0 a partial per item, 1 a tree per work-group in local memory", 0,
     FB_ROLE_OTHER},
    {"CG_VARIANT", 1, {0, 1, 2}, 3,
     "pressure CG: 1 single reduction (1 reduction, 3 launches), 0 classic (2, 4), 2 pipelined (1, 2)", 1,
     FB_ROLE_OTHER},
    {"EDGE_LAYOUT", 0, {0, 1}, 2, "edge coefficients: 0 split arrays (nd, dn, ls), 1 packed 16-REAL record per edge", 0,
     FB_ROLE_LAYOUT},
    {"RENUMBER", 1, {0, 1, 2}, 3, "node order on the device: 0 the mesh's, 1 reverse Cuthill-McKee, 2 by neighbour count",
     1, FB_ROLE_OTHER},
    {"CG_SPMV", 0, {0, 1, 2, 3}, 4, "single-reduction CG's product: 0 its fused edge product, 1 csr-scalar, 2 csr-vector, "
     "3 csr-multirow (kernels/spmv) on the matrix as CSR", 1, FB_ROLE_OTHER},
};
// clang-format on

int fb_ns_kernel_reads_edges(fb_ns_kernel_id k)
{
    return k == FB_NS_PROJECTIONS || k == FB_NS_RK_STAGE || k == FB_NS_PRESSURE_SETUP || k == FB_NS_CORRECT;
}

fb_param_point fb_ns_default_point(void)
{
    fb_param_point p = {{0}};
    for (int i = 0; i < FB_NS_NAXES; ++i)
        p.values[i] = fb_ns_axes[i].def;
    return p;
}

static const fb_family_kernel time_step = {
    "ns",         "the time step: every kernel of ns.cl (solve --list names them) at one point, a work-item per node",
    FB_NS_NAXES,  fb_ns_axes,
    FB_NS_SOURCE, NULL};

static int kernel_count(void) { return 1; }

static const fb_family_kernel *kernel_at(int i) { return i == 0 ? &time_step : NULL; }

/* Every kernel at every point, in double (the solver's precision); the
 * packed edge layout only for the kernels that read edge coefficients
 * (the others would be the same program under another name). */
static int variants(fb_variant_sink *sink)
{
    int pos[FB_MAX_PARAMS];
    fb_param_point p;
    for (int k = 0; k < FB_NS_NKERNELS; ++k)
        for (int more = fb_variant_first_point(fb_ns_axes, FB_NS_NAXES, pos, &p); more;
             more = fb_variant_next_point(fb_ns_axes, FB_NS_NAXES, pos, &p)) {
            if (p.values[FB_NS_EDGE_LAYOUT_AXIS] && !fb_ns_kernel_reads_edges(k)) continue;
            fb_variant v;
            fb_variant_begin(&v, FB_NS_SOURCE, fb_ns_kernel_names[k], "double");
            fb_variant_define_point(&v, fb_ns_axes, FB_NS_NAXES, &p);
            if (fb_variant_emit(sink, &v)) return 1;
        }
    return 0;
}

const fb_family fb_family_ns = {
    .name = "ns",
    .summary = "the Navier-Stokes solver's device kernels: every loop of the OpenMP baseline, gather form, one "
               "work-item per node",
    .model = "the bytes each pass moves, fb_ns_bytes_split (harness/solver/ns.c), the same passes as the OpenMP "
             "baseline",
    .reference = "the OpenMP baseline (the same driver on the kernels' twins) after the same steps: u and p within "
                 "relative L2 1e-6 and 1e-4 (docs/solver.md)",
    .kernel_count = kernel_count,
    .kernel = kernel_at,
    .variants = variants,
    .host_kernels = fb_ns_host_kernels,
    .problem_key = "matrix", /* the solve record's problem object: the mesh as its pressure matrix */
};
