/* heat2d_omp.c - the OpenMP baseline of the heat2d family (Jacobi and
 * red-black Gauss-Seidel sweeps, the max-change reduction), instantiated in
 * double and single precision from heat2d_omp_template.h. Host twins take
 * the device kernels' arguments in the same order. */
#include <stddef.h>

#include "heat2d.h"

#define REAL double
#define SUFFIX d
#define ARG_REAL(arg) ((arg).f64)
#include "heat2d_omp_template.h"
#undef REAL
#undef SUFFIX
#undef ARG_REAL

#define REAL float
#define SUFFIX s
#define ARG_REAL(arg) ((arg).f32)
#include "heat2d_omp_template.h"
#undef REAL
#undef SUFFIX
#undef ARG_REAL

const fb_host_kernel fb_heat2d_host_kernels[] = {
    FB_HOST_BOTH("heat_jacobi", 11, heat_jacobi_omp_),
    FB_HOST_BOTH("heat_rbgs", 11, heat_rbgs_omp_),
    FB_HOST_BOTH("heat_max_reduce", 3, heat_max_reduce_omp_),
    FB_HOST_BOTH("heat_jacobi_halo", 11, heat_jacobi_halo_omp_),
    FB_HOST_BOTH("heat_halo_pack", 4, heat_halo_pack_omp_),
    FB_HOST_BOTH("heat_halo_unpack", 4, heat_halo_unpack_omp_),
    {NULL, NULL, 0, NULL},
};
