/* petsc_api.c - libpetsc_real opened once and its functions looked up
 * (contracts in petsc_api.h); without FLOWBENCH_PETSC only the answer
 * that it is not built. */
#include "petsc_api.h"

#include <stdio.h>

#ifdef FB_HAVE_PETSC
#include <dlfcn.h>
#include <stdlib.h>

#include "backends/dynlib.h"

static fb_petsc_api api;
static int tried, ok;
static char failure[512];
static PetscErrorCode (*initialize)(void), (*finalize)(void);
static int (*mpi_finalized)(int *);

/* PetscFinalize ends MPI when PETSc began it (a singleton). Under mpirun
 * flowbench ends MPI itself before the exit handlers run, and a PETSc call
 * after MPI_Finalize aborts the job: then there is nothing left to end. */
static void finalize_at_exit(void)
{
    int done = 0;
    if (mpi_finalized && mpi_finalized(&done) == 0 && done) return;
    finalize();
}

/* Open MPI's MPI_COMM_SELF and MPI_COMM_WORLD are the addresses of these
 * objects. Where flowbench itself calls MPI (core/comm.c names
 * MPI_COMM_WORLD), the executable holds a copy of the object that libmpi
 * then uses, and the one in libmpi's own data is never initialised: the
 * process's global scope (RTLD_DEFAULT) finds the copy first; the
 * library's scope is for a build without MPI of its own. */
static MPI_Comm mpi_object(void *lib, const char *name)
{
    void *object = dlsym(RTLD_DEFAULT, name);
    if (!object) object = fb_dynlib_symbol(lib, FB_PETSC_LIBRARY, name, failure, sizeof failure);
    return (MPI_Comm)object;
}

/* Every pointer, or 0 with failure said. */
static int look_up(void *lib)
{
    const char *so = FB_PETSC_LIBRARY;
    struct {
        void **slot;
        const char *name;
    } const syms[] = {
        {(void **)&api.mat_create, "MatCreateSeqAIJWithArrays"},
        {(void **)&api.mat_create_mpi, "MatCreateMPIAIJWithArrays"},
        {(void **)&api.mat_mult, "MatMult"},
        {(void **)&api.mat_destroy, "MatDestroy"},
        {(void **)&api.vec_wrap, "VecCreateSeqWithArray"},
        {(void **)&api.vec_create, "VecCreateSeq"},
        {(void **)&api.vec_wrap_mpi, "VecCreateMPIWithArray"},
        {(void **)&api.vec_create_mpi, "VecCreateMPI"},
        {(void **)&api.vec_read, "VecGetArrayRead"},
        {(void **)&api.vec_unread, "VecRestoreArrayRead"},
        {(void **)&api.vec_destroy, "VecDestroy"},
        {(void **)&api.ksp_create, "KSPCreate"},
        {(void **)&api.ksp_set_operators, "KSPSetOperators"},
        {(void **)&api.ksp_set_type, "KSPSetType"},
        {(void **)&api.ksp_get_pc, "KSPGetPC"},
        {(void **)&api.pc_set_type, "PCSetType"},
        {(void **)&api.ksp_set_tolerances, "KSPSetTolerances"},
        {(void **)&api.ksp_set_norm_type, "KSPSetNormType"},
        {(void **)&api.ksp_set_up, "KSPSetUp"},
        {(void **)&api.ksp_solve, "KSPSolve"},
        {(void **)&api.ksp_iterations, "KSPGetIterationNumber"},
        {(void **)&api.ksp_residual_norm, "KSPGetResidualNorm"},
        {(void **)&api.ksp_reason, "KSPGetConvergedReason"},
        {(void **)&api.ksp_destroy, "KSPDestroy"},
        {(void **)&initialize, "PetscInitializeNoArguments"},
        {(void **)&finalize, "PetscFinalize"},
        {(void **)&mpi_finalized, "MPI_Finalized"},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i)
        if (!(*syms[i].slot = fb_dynlib_symbol(lib, so, syms[i].name, failure, sizeof failure))) return 0;
    api.self = mpi_object(lib, "ompi_mpi_comm_self");
    api.world = mpi_object(lib, "ompi_mpi_comm_world");
    return api.self != NULL && api.world != NULL;
}

/* The library and every function, no PETSc call yet. */
static int load_once(void)
{
    static int tried_load, loaded;
    if (tried_load) return loaded;
    tried_load = 1;
    void *lib = fb_dynlib_open(FB_PETSC_LIBRARY, failure, sizeof failure);
    return loaded = lib && look_up(lib);
}

static int open_once(void)
{
    if (!load_once()) return 0;
    if (initialize() != 0) {
        snprintf(failure, sizeof failure, "PetscInitializeNoArguments failed");
        return 0;
    }
    atexit(finalize_at_exit);
    return 1;
}

const fb_petsc_api *fb_petsc_open(char *why, size_t len)
{
    if (!tried) tried = 1, ok = open_once();
    if (!ok) snprintf(why, len, "%s", failure);
    return ok ? &api : NULL;
}

/* Loaded, not initialized: PetscInitialize starts MPI as a singleton, half
 * a second that `spmv --list` and every check of a suite's peers paid. */
int fb_petsc_available(char *why, size_t len)
{
    if (load_once()) return 1;
    snprintf(why, len, "PETSc %s could not be opened: %s", FB_PETSC_VERSION, failure);
    return 0;
}
#else
int fb_petsc_available(char *why, size_t len)
{
    snprintf(why, len, "not built (PETSc not found at configure time; Debian: libpetsc-real-dev)");
    return 0;
}
#endif
