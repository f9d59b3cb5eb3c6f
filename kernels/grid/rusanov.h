/* rusanov.h - the Rusanov (local Lax-Friedrichs) flux of the 3D Euler
 * equations, gamma = 1.4, written once for the device kernel
 * (grid/fv_surface.cl: #include "grid/rusanov.h", expanded by the build
 * path), the OpenMP twins and the serial reference (through
 * fv_surface_flux.h, which instantiates it per precision). Same source, so
 * the same operations in the same order: with floating-point contraction
 * off (FP_CONTRACT OFF in fv_surface.cl, ISO C on the host) every backend
 * computes the same bits per face, which is what lets fv-passes and
 * fv-gather equal the reference bit for bit.
 *
 * In the C subset of kernels/common_host.h, whose FB_FABS and FB_FMAX on
 * the host are the comparisons the reference has always made: equal to the
 * device's fabs and fmax but for NaN and the sign of zero, which states
 * with positive density and pressure never produce. No include guard: the
 * host includes it once per precision, naming the function by FV_RUSANOV.
 */
#ifndef FV_RUSANOV
#define FV_RUSANOV fv_rusanov
#endif

/* Flux x area through a face of normal direction d (0 x, 1 y, 2 z) from
 * left state uL to right state uR (5 conservative variables each: rho,
 * rho u, rho v, rho w, E); f gets 5 values:
 *   f = area (1/2 (f(uL) + f(uR)) - 1/2 smax (uR - uL)),
 *   smax = max(|unL| + cL, |unR| + cR),  c = sqrt(gamma p / rho). */
FB_INLINE void FV_RUSANOV(const int d, const REAL *uL, const REAL *uR, const REAL area, REAL *f)
{
    const REAL one_half = (REAL)0.5, gm1 = (REAL)0.4, gamma = (REAL)1.4;
    const REAL iL = 1 / uL[0], iR = 1 / uR[0]; /* one division per state */
    /* a select, not uL[1 + d]: a run-time index would put the arrays in
     * local memory on CUDA (an 80-byte stack frame per thread) */
    const REAL mL = d == 0 ? uL[1] : d == 1 ? uL[2] : uL[3], mR = d == 0 ? uR[1] : d == 1 ? uR[2] : uR[3];
    const REAL unL = mL * iL, unR = mR * iR;
    const REAL keL = one_half * (uL[1] * uL[1] + uL[2] * uL[2] + uL[3] * uL[3]) * iL;
    const REAL keR = one_half * (uR[1] * uR[1] + uR[2] * uR[2] + uR[3] * uR[3]) * iR;
    const REAL pL = gm1 * (uL[4] - keL), pR = gm1 * (uR[4] - keR);
    const REAL cL = FB_SQRT(gamma * pL * iL), cR = FB_SQRT(gamma * pR * iR);
    const REAL sL = FB_FABS(unL) + cL, sR = FB_FABS(unR) + cR;
    const REAL hs = one_half * FB_FMAX(sL, sR);
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
        f[v] = area * (one_half * (fl + fr) - hs * (uR[v] - uL[v]));
    }
}
