/* petsc_cg.h - PETSc's CG (KSPCG with the Jacobi preconditioner) on the
 * solver's pressure system, on the CPU: the peer of the OpenMP baseline's
 * CG (`solve --peer petsc`, docs/solver.md "The CG peers"). Debian builds
 * PETSc without OpenMP, so it runs on one core per process: in this one
 * process, or on every rank of `mpirun -np P flowbench solve ... --peer
 * petsc`, one rank per core as a PETSc user runs it. Built with FLOWBENCH_PETSC;
 * libpetsc_real is opened at the first call, and whether it opens is
 * fb_petsc_available (kernels/spmv/petsc_api.h). */
#ifndef FB_SOLVER_PETSC_CG_H
#define FB_SOLVER_PETSC_CG_H

#include <stddef.h>

#include "core/status.h"

typedef struct fb_petsc_cg_result {
    int its;          /* CG iterations */
    double est_res;   /* PETSc's own ||r|| / ||b|| (the unpreconditioned norm it stops on) */
    double setup_s;   /* KSPSetUp: the Jacobi diagonal */
    double solve_s;   /* KSPSolve from x = 0 (on ranks: this rank's; the caller takes the maximum) */
    double spmv_s;    /* median of MatMult over the repeats (likewise) */
    double true_res;  /* on ranks: ||b - A x|| / ||b|| of PETSc's x by MatMult, over all ranks (NaN on one) */
    double other_res; /* on ranks: the same of the x_other given (NaN on one, or none given) */
    char version[32]; /* PETSc's version at configure time */
} fb_petsc_cg_result;

/* One process's rows of the system. On one process (ranks 1) they are the
 * whole system and PETSc wraps them (sequential AIJ, no copy). On ranks
 * (ranks > 1, every rank calling: collective over MPI_COMM_WORLD) they are
 * rows [first, first + n) of nglobal in PETSc's numbering, columns in that
 * numbering, and PETSc copies them into its MPIAIJ matrix, as a PETSc
 * user's assembly would. */
typedef struct fb_petsc_rows {
    int n, nglobal, ranks;
    const int *rowptr, *col;
    const double *val, *b;
} fb_petsc_rows;

/* Solves the rows from x = 0 by KSPCG + PCJACOBI, stopping at ||r|| <= tol
 * ||b|| (the unpreconditioned residual, flowbench's test; ||b|| the whole
 * system's) or max_its; x (n values) gets the solution. MatMult is timed
 * spmv_repeats times. On ranks, x_other (n values, may be NULL) is another
 * solver's solution whose true residual is wanted too. FB_ERR_CHECK when
 * PETSc's CG diverges or stops short of the tolerance. */
fb_status fb_petsc_cg(const fb_petsc_rows *rows, double tol, int max_its, int spmv_repeats, const double *x_other,
                      double *x, fb_petsc_cg_result *out);

#endif
