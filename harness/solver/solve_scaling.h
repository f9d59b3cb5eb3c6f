/* solve_scaling.h - `flowbench solve CASE --scaling strong|weak --ranks
 * 1,2,4`: the case run under an MPI launcher once per rank count, each run
 * a whole `flowbench solve` of its own (its record, its checks), then the
 * speedup and parallel efficiency against the first count, printed and
 * added to each record as its "scaling" part (docs/scaling.md).
 *
 * Strong scaling keeps the mesh; weak scaling grows the cube with the
 * ranks (N_P = round(N_1 (P / P_1)^(1/3)) nodes per side, so nodes per
 * rank stay near constant) and its efficiency is T_1 / T_P per step. The
 * solve command turns its options into a request and calls
 * fb_solve_scaling_run. */
#ifndef FB_SOLVER_SOLVE_SCALING_H
#define FB_SOLVER_SOLVE_SCALING_H

#include "cases.h"

enum { FB_SCALING_MAX_PASSED = 16 };

/* A study as the command line gave it. */
typedef struct fb_scaling_request {
    const char *mode;     /* "strong" or "weak" */
    const char *ranks;    /* the counts, "1,2,4" (NULL: that) */
    const char *launcher; /* with {P} (NULL: $FLOWBENCH_LAUNCHER, else "mpirun -np {P}") */
    const char *out;      /* the records file, NULL: none */
    const char *refused;  /* an option of a single run that was given (json, vtk, ...): the usage error */
    /* options each run is given as --NAME VALUE (a weak study drops level) */
    const char *passed[FB_SCALING_MAX_PASSED][2];
    int npassed;
    int no_stream;  /* each run: --no-stream */
    int cube_given; /* a strong study keeps the case's --cube */
} fb_scaling_request;

/* Runs the study for case c (opened for the first count) on the one
 * backend given. FB_ERR_USAGE for what it cannot take (under a launcher
 * itself, rq->refused, a bad mode, counts or launcher, weak scaling of a
 * case with a mesh file); FB_ERR_CHECK when a run failed (its own message
 * is above); FB_ERR_INTERRUPTED on Ctrl-C (records of the counts done are
 * kept). */
fb_status fb_solve_scaling_run(const fb_scaling_request *rq, const fb_solve_case *c, const char *backend);

#endif
