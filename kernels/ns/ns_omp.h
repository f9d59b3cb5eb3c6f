/* ns_omp.h - the edge structure of the edge-based fractional-step
 * Navier-Stokes solver as its host code views it, and the two passes it
 * makes on the host: the boundary values of the initial state and the
 * nodal divergence for output. The time step runs on a backend
 * (harness/solver/ns_step.c): ns.cl's kernels on a device, their OpenMP
 * twins (ns_omp_twins.c, the bodies in ns_omp_node.h) on openmp.
 *
 * Operators are in difference form, sum over J != I of c_IJ (v_J - v_I)
 * (edge_ops.h). Velocities are interleaved, 3 per node (u0 v0 w0 u1 ...).
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

/* Boundary conditions on u: u[fixed[k]] = ubc[3k..3k+2]; the normal
 * component removed at slip nodes. */
void fb_ns_omp_apply_bc(int nfixed, const int *fixed, const double *ubc, int nslip, const int *slip,
                        const double *slip_normal, double *u);

/* Nodal divergence D_I = sum nd . (u_J - u_I) = int N_I div u_h. */
void fb_ns_omp_divergence(const fb_ns_edges *E, const double *u, double *div);

#endif
