/* solve_scaling.h - `flowbench solve CASE --scaling strong|weak --ranks
 * 1,2,4`: the case run under an MPI launcher once per rank count, each run
 * a whole `flowbench solve` of its own (its record, its checks), then the
 * speedup and parallel efficiency against the first count, printed and
 * added to each record as its "scaling" part (docs/scaling.md).
 *
 * Strong scaling keeps the mesh; weak scaling grows the cube with the
 * ranks (N_P = round(N_1 (P / P_1)^(1/3)) nodes per side, so nodes per
 * rank stay near constant) and its efficiency is T_1 / T_P per step. Kept
 * apart from cmd_solve.c, which calls the two functions below. */
#ifndef FB_CLI_SOLVE_SCALING_H
#define FB_CLI_SOLVE_SCALING_H

#include "cli.h"
#include "../solver/cases.h"

/* 1 when --scaling was given. */
int fb_solve_scaling_wanted(const fb_parsed *args);

/* Runs the study for case c (opened for the first count) on the one
 * backend given. FB_ERR_USAGE for options it cannot take (under a
 * launcher itself, --json, --vtk, --profiles, a sweep, several
 * backends, weak scaling of a case with a mesh file); FB_ERR_CHECK when a
 * run failed (its own message is above); FB_ERR_INTERRUPTED on Ctrl-C
 * (records of the counts done are kept). */
fb_status fb_solve_scaling_run(const fb_parsed *args, const fb_solve_case *c, const char *backend);

#endif
