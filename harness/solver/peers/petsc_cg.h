/* petsc_cg.h - PETSc's CG (KSPCG with the Jacobi preconditioner) on the
 * solver's pressure system, on the CPU: the peer of the OpenMP baseline's
 * CG (`solve --peer petsc`, docs/solver.md "The CG peers"). PETSc runs in
 * this one process on one core, as Debian builds it (no OpenMP; a PETSc
 * user would run one MPI rank per core). Built with FLOWBENCH_PETSC;
 * libpetsc_real is opened at the first call, and whether it opens is
 * fb_petsc_available (kernels/spmv/petsc_api.h). */
#ifndef FB_SOLVER_PETSC_CG_H
#define FB_SOLVER_PETSC_CG_H

#include <stddef.h>

#include "core/status.h"
#include "solver/ns_pressure.h"

typedef struct fb_petsc_cg_result {
    int its;          /* CG iterations */
    double est_res;   /* PETSc's own ||r|| / ||b|| (the unpreconditioned norm it stops on) */
    double setup_s;   /* KSPSetUp: the Jacobi diagonal */
    double solve_s;   /* KSPSolve from x = 0 */
    double spmv_s;    /* median of MatMult over the repeats */
    char version[32]; /* PETSc's version at configure time */
} fb_petsc_cg_result;

/* Solves m from x = 0 by KSPCG + PCJACOBI, stopping at ||r|| <= tol ||b||
 * (the unpreconditioned residual, flowbench's test) or max_its; x (m->n
 * values) gets the solution. The matrix wraps m's arrays (no copy).
 * MatMult is timed spmv_repeats times. FB_ERR_CHECK when PETSc's CG
 * diverges or stops short of the tolerance. */
fb_status fb_petsc_cg(const fb_pressure_csr *m, double tol, int max_its, int spmv_repeats, double *x,
                      fb_petsc_cg_result *out);

#endif
