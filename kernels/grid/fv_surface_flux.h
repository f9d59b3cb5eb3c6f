/* fv_surface_flux.h - the Rusanov flux of grid/rusanov.h (the code the
 * device kernel fv_surface.cl includes) instantiated for host C, for the
 * OpenMP twins (fv_surface_omp.c, both precisions) and the serial reference
 * (fv_surface_ref.c, double). One precision per inclusion: the includer
 * defines REAL and FV_FN(name); the function is FV_FN(fv_rusanov_). The
 * square root is picked by REAL's type (common_host.h's FB_SQRT).
 */
#include "../common_host.h"

#define FV_RUSANOV FV_FN(fv_rusanov_)
#include "rusanov.h"
#undef FV_RUSANOV
