/* exact.h - closed-form solutions of the incompressible Navier-Stokes
 * equations, to verify the edge-based solver: the error of a computed field
 * against the exact one, and exact boundary and initial values.
 *
 * Ethier-Steinman (C. R. Ethier and D. A. Steinman, "Exact fully 3D
 * Navier-Stokes solutions for benchmarking", Int. J. Numer. Meth. Fluids 19
 * (1994) 369-375, eqs. 11-12), density 1, kinematic viscosity nu:
 *
 *   u = -a [e^{ax} sin(ay + dz) + e^{az} cos(ax + dy)] e^{-nu d^2 t}
 *   v = -a [e^{ay} sin(az + dx) + e^{ax} cos(ay + dz)] e^{-nu d^2 t}
 *   w = -a [e^{az} sin(ax + dy) + e^{ay} cos(az + dx)] e^{-nu d^2 t}
 *   p = -a^2/2 [e^{2ax} + e^{2ay} + e^{2az}
 *               + 2 sin(ax + dy) cos(az + dx) e^{a(y + z)}
 *               + 2 sin(ay + dz) cos(ax + dy) e^{a(z + x)}
 *               + 2 sin(az + dx) cos(ay + dz) e^{a(x + y)}] e^{-2 nu d^2 t}
 *
 * It satisfies div u = 0 and du/dt + (u.grad)u + grad p - nu lap u = 0
 * everywhere, for any a, d, nu (the velocity is a Beltrami field, so the
 * convective term is balanced by the pressure alone). The paper's choice,
 * used on the cube [-1, 1]^3, is a = pi/4, d = pi/2. The pressure is fixed
 * only up to a constant: compare pressures after removing their means. */
#ifndef FB_SOLVER_EXACT_H
#define FB_SOLVER_EXACT_H

typedef struct fb_ethier_steinman {
    double a, d, nu;
} fb_ethier_steinman;

/* The paper's parameters a = pi/4, d = pi/2 with the given viscosity. */
fb_ethier_steinman fb_ethier_steinman_standard(double nu);

/* Velocity u[3] and kinematic pressure *p (pressure / density) at point x,
 * time t. Either output may be NULL. */
void fb_ethier_steinman_eval(const fb_ethier_steinman *es, const double x[3], double t, double u[3], double *p);

/* Velocity gradient at x, t, row-major: g[3 * i + j] = d u_i / d x_j. Its
 * trace is 0 (to rounding). */
void fb_ethier_steinman_grad(const fb_ethier_steinman *es, const double x[3], double t, double g[9]);

#endif
