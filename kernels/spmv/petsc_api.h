/* petsc_api.h - libpetsc_real opened at its first use, not linked, and the
 * PETSc functions flowbench calls through pointers looked up there: the
 * SpMV peer (peer_petsc.c: MatMult) and the solver's CG peer
 * (harness/solver/peers/petsc_cg.c: KSPCG with Jacobi). Linking it cost
 * every flowbench process 0.23 s at start (a hundred libraries). The
 * headers give the types; only files built with PETSc's include path
 * (FB_HAVE_PETSC, CMakeLists.txt) see this. */
#ifndef FB_SPMV_PETSC_API_H
#define FB_SPMV_PETSC_API_H

#include <stddef.h>

/* 1 when this build has PETSc and libpetsc opens (initialised: the first
 * call opens it); else 0 and why, in one phrase for a peer's message. */
int fb_petsc_available(char *why, size_t len);

#ifdef FB_HAVE_PETSC
#include <petscksp.h>

typedef struct fb_petsc_api {
    MPI_Comm self;  /* PETSC_COMM_SELF: Open MPI's is a libmpi symbol */
    MPI_Comm world; /* MPI_COMM_WORLD, the ranks mpirun started (the solver's peer on ranks) */
    PetscErrorCode (*mat_create)(MPI_Comm, PetscInt, PetscInt, PetscInt *, PetscInt *, PetscScalar *, Mat *);
    PetscErrorCode (*mat_create_mpi)(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[],
                                     const PetscInt[], const PetscScalar[], Mat *);
    PetscErrorCode (*mat_mult)(Mat, Vec, Vec);
    PetscErrorCode (*mat_destroy)(Mat *);
    PetscErrorCode (*vec_wrap)(MPI_Comm, PetscInt, PetscInt, const PetscScalar *, Vec *);
    PetscErrorCode (*vec_create)(MPI_Comm, PetscInt, Vec *);
    PetscErrorCode (*vec_wrap_mpi)(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscScalar[], Vec *);
    PetscErrorCode (*vec_create_mpi)(MPI_Comm, PetscInt, PetscInt, Vec *);
    PetscErrorCode (*vec_read)(Vec, const PetscScalar **);
    PetscErrorCode (*vec_unread)(Vec, const PetscScalar **);
    PetscErrorCode (*vec_destroy)(Vec *);
    PetscErrorCode (*ksp_create)(MPI_Comm, KSP *);
    PetscErrorCode (*ksp_set_operators)(KSP, Mat, Mat);
    PetscErrorCode (*ksp_set_type)(KSP, KSPType);
    PetscErrorCode (*ksp_get_pc)(KSP, PC *);
    PetscErrorCode (*pc_set_type)(PC, PCType);
    PetscErrorCode (*ksp_set_tolerances)(KSP, PetscReal, PetscReal, PetscReal, PetscInt);
    PetscErrorCode (*ksp_set_norm_type)(KSP, KSPNormType);
    PetscErrorCode (*ksp_set_up)(KSP);
    PetscErrorCode (*ksp_solve)(KSP, Vec, Vec);
    PetscErrorCode (*ksp_iterations)(KSP, PetscInt *);
    PetscErrorCode (*ksp_residual_norm)(KSP, PetscReal *);
    PetscErrorCode (*ksp_reason)(KSP, KSPConvergedReason *);
    PetscErrorCode (*ksp_destroy)(KSP *);
} fb_petsc_api;

/* The functions, PETSc initialised (MPI as a singleton when this process
 * did not start it; finalised at exit); NULL with why at the first failure,
 * and the same answer at every later call. */
const fb_petsc_api *fb_petsc_open(char *why, size_t len);
#endif

#endif
