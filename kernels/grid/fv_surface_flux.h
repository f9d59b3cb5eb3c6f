/* fv_surface_flux.h - the Rusanov flux of kernels/grid/fv_surface.cl in C,
 * for the OpenMP twins (fv_surface_omp.c, both precisions) and the serial
 * reference (harness/bench/fv_surface.c, double). One precision per
 * inclusion: the includer defines REAL, FV_SQRT and FV_FN(name).
 *
 * The operations and their order are those of fv_flux in the .cl file, so
 * that, with floating-point contraction off (ISO C, and FP_CONTRACT OFF in
 * the OpenCL source), every backend computes the same bits per face.
 */

/* Flux x area through a face of normal d (0 x, 1 y, 2 z), left state uL,
 * right state uR; f gets 5 values. */
static inline void FV_FN(fv_rusanov_)(const int d, const REAL *uL, const REAL *uR, const REAL area, REAL *f)
{
    const REAL half = (REAL)0.5, gm1 = (REAL)0.4, gamma = (REAL)1.4;
    const REAL iL = 1 / uL[0], iR = 1 / uR[0]; /* one division per state */
    const REAL mL = d == 0 ? uL[1] : d == 1 ? uL[2] : uL[3], mR = d == 0 ? uR[1] : d == 1 ? uR[2] : uR[3];
    const REAL unL = mL * iL, unR = mR * iR;
    const REAL keL = half * (uL[1] * uL[1] + uL[2] * uL[2] + uL[3] * uL[3]) * iL;
    const REAL keR = half * (uR[1] * uR[1] + uR[2] * uR[2] + uR[3] * uR[3]) * iR;
    const REAL pL = gm1 * (uL[4] - keL), pR = gm1 * (uR[4] - keR);
    const REAL cL = FV_SQRT(gamma * pL * iL), cR = FV_SQRT(gamma * pR * iR);
    const REAL sL = (unL < 0 ? -unL : unL) + cL, sR = (unR < 0 ? -unR : unR) + cR;
    const REAL hs = half * (sL > sR ? sL : sR);
    for (int v = 0; v < 5; ++v) {
        REAL fl = uL[v] * unL, fr = uR[v] * unR;
        if (v == 1 + d) {
            fl = fl + pL;
            fr = fr + pR;
        }
        if (v == 4) {
            fl = fl + pL * unL;
            fr = fr + pR * unR;
        }
        f[v] = area * (half * (fl + fr) - hs * (uR[v] - uL[v]));
    }
}
