/* viennacl_cg_stub.c - the ViennaCL peer when this build has none
 * (FLOWBENCH_VIENNACL=OFF): it says why, and runs nothing. */
#include "solver/peers/viennacl_cg.h"

#ifndef FB_HAVE_VIENNACL
#include <stdio.h>

int fb_viennacl_available(char *why, size_t len)
{
    snprintf(why, len, "not built (FLOWBENCH_VIENNACL=OFF: needs libviennacl-dev and OpenCL; scripts/setup.sh)");
    return 0;
}

fb_status fb_viennacl_cg(int platform, int device, const fb_viennacl_system *A, double tol, int max_its,
                         int spmv_repeats, double *x, fb_viennacl_result *out)
{
    char why[160];
    (void)platform, (void)device, (void)A, (void)tol, (void)max_its, (void)spmv_repeats, (void)x, (void)out;
    fb_viennacl_available(why, sizeof why);
    return fb_error_set(FB_ERR_UNAVAILABLE, __FILE__, __LINE__, "viennacl: %s", why);
}
#else
/* ISO C forbids an empty translation unit. */
typedef int fb_viennacl_built;
#endif
