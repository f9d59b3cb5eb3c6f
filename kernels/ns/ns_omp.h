/* ns_omp.h - the OpenMP hot loops of the edge-based fractional-step
 * Navier-Stokes solver (harness/solver/ns.c drives them). Each function is
 * one pass over the nodes, with the edges of node I gathered in the inner
 * loop (no scatter, so no races and no atomics); the OpenCL and CUDA ports
 * mirror them one kernel per function, one work-item per node.
 *
 * Operators are in difference form, sum over J != I of c_IJ (v_J - v_I)
 * (edge_ops.h). Velocities are interleaved, 3 per node (u0 v0 w0 u1 ...).
 * Every loop uses schedule(static) over the nodes, the same partition as
 * the first touch in ns.c, so each thread reads the pages it wrote.
 *
 * Bytes each pass moves are modelled in ns.c (fb_ns_bytes_per_step). */
#ifndef FB_KERNELS_NS_OMP_H
#define FB_KERNELS_NS_OMP_H

typedef struct fb_ns_edges {
    int n, nedges;
    const int *rowptr, *col;
    const double *nd; /* 3 per edge: int N_I grad N_J */
    const double *dn; /* 3 per edge: int grad N_I N_J */
    const double *ls; /* 6 per edge: symmetric part of Ld, xx xy xz yy yz zz (trace = stiffness K_IJ) */
} fb_ns_edges;

/* The largest local rate |u_I| / h_I + 2 nu / h_I^2, where a node with a
 * prescribed velocity (fixed[I] = 1) counts its convective part only: it
 * carries momentum into its neighbours (a lid starting a still cavity) but
 * is not integrated, so the viscous limit of its small boundary h does not
 * apply. A time step is cfl / rate. *conv = the largest |u_I| / h_I (dt *
 * conv is the CFL number); *bad = the lowest node whose velocity is not
 * finite, else -1. */
double fb_ns_omp_rate(int n, const double *u, const double *h, const unsigned char *fixed, double nu, double *conv,
                      int *bad);

/* Start of a step: tau_I = 1 / (1/dt + nu/h^2 + |u_I|/h), the nodal
 * projections of the convective term pic_I = M_I^-1 sum (u_I . nd)(u_J - u_I)
 * and of the pressure gradient pip_I = M_I^-1 sum nd (p_J - p_I). Returns
 * sum_I D_I^2 / M_I with D_I = sum nd . (u_J - u_I), the squared L2 norm
 * of the divergence of u (computed from the same edge data, for free). */
double fb_ns_omp_projections(const fb_ns_edges *E, const double *mass, const double *h, double nu, double dt,
                             const double *u, const double *p, double *tau, double *pic, double *pip);

/* One Runge-Kutta stage: r_I = M_I^-1 R_I(u_in) with R the momentum right-hand
 * side (convection, viscosity, pressure gradient of p, split-OSS
 * stabilisation). With acc_out: acc_out = (acc_in ? acc_in : u0) + w_dt r
 * and u_out = u0 + c_dt r. Without (the last stage): u_out = acc_in + w_dt r. */
void fb_ns_omp_rk_stage(const fb_ns_edges *E, const double *mass, const double *bnorm, double nu, const double *tau,
                        const double *pic, const double *p, const double *u_in, const double *u0, const double *acc_in,
                        double *acc_out, double *u_out, double c_dt, double w_dt);

/* Pressure system of step 2 on the edges: A_e = (dt + (tau_I + tau_J)/2) K_IJ,
 * invdiag_I = 1 / -sum_e A_e, and b_I = dt (K p)_I + tau_I int grad N_I . pip
 * - D_I(ut); rows with p_fixed get A = 0, invdiag = 0, b = 0. Returns
 * ||b||^2 over the free rows. */
double fb_ns_omp_pressure_setup(const fb_ns_edges *E, const unsigned char *p_fixed, const double *bnorm, double dt,
                                const double *tau, const double *p, const double *pip, const double *ut, double *A,
                                double *invdiag, double *b);

/* Jacobi-preconditioned conjugate gradients on sum_e A_e (x_J - x_I) = b_I,
 * from the x given (fixed rows, with A = 0 and invdiag = 0, keep their x).
 * Stops when ||r||^2 <= tol2. Returns the iterations done; *res2 = the
 * final ||r||^2 (NaN if the solve broke down). z, d, d2, q: work vectors.
 * Two barriers per iteration: the direction update d = z + beta d is folded
 * into the product (each row recomputes its neighbours' new direction from
 * z and the old direction, double-buffered in d and d2). One parallel
 * region; its reduction slots are static, so one solve at a time per
 * process. */
int fb_ns_omp_cg(int n, const int *rowptr, const int *col, const double *A, const double *invdiag, const double *b,
                 double *x, double *r, double *z, double *d, double *d2, double *q, double tol2, int maxit,
                 double *res2);

/* Step 3: u_out_I = ut_I - dt M_I^-1 sum nd (dp_J - dp_I), dp = p - p_old. */
void fb_ns_omp_correct(const fb_ns_edges *E, const double *mass, double dt, const double *p, const double *p_old,
                       const double *ut, double *u_out);

/* Boundary conditions on u: u[fixed[k]] = ubc[3k..3k+2]; the normal
 * component removed at slip nodes. */
void fb_ns_omp_apply_bc(int nfixed, const int *fixed, const double *ubc, int nslip, const int *slip,
                        const double *slip_normal, double *u);

/* Nodal divergence D_I = sum nd . (u_J - u_I) = int N_I div u_h. */
void fb_ns_omp_divergence(const fb_ns_edges *E, const double *u, double *div);

#endif
