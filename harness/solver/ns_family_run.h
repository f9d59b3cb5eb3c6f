/* ns_family_run.h - the solver as a family run, so that one engine sweeps
 * and tunes it like any family: `sweep` takes solver cases in a suite
 * (`family: ns`, `solver: [cavity:level=1:steps=5]`), `tune --family ns`
 * searches its axes with tune/search.c, and `solve --param/--tune` runs
 * its points through the same search (docs/solver.md, "Sweeping and
 * tuning the device kernels").
 *
 * The family's one kernel, "ns", is the time step: every kernel of ns.cl
 * at one point of fb_ns_axes. A problem is a case with its run length
 * (spec CASE[:level=L|:cube=N][:steps=N][:mesh=FILE]; without steps=,
 * to the case's end time); a configuration is a whole run of it at one point, timed per
 * step (its cost: the median step), and checked against the OpenMP
 * baseline's u and p after the same steps, to the device tests'
 * tolerances (relative L2 1e-6 and 1e-4). On openmp only the baseline's
 * own point runs (fb_ns_openmp_point); the others are pruned.
 *
 * kernels/ may not call the solver, so kernels/ns lists the kernels and
 * this file fills the descriptor's sweep slots and puts it in the
 * registry in place of that one (fb_family_replace): a program that
 * sweeps solver cases calls fb_ns_family_attach once at start. */
#ifndef FB_SOLVER_NS_FAMILY_RUN_H
#define FB_SOLVER_NS_FAMILY_RUN_H

#include <stddef.h>

#include "bench/signature.h"
#include "solver/case_run.h"

void fb_ns_family_attach(void);

/* The spec of a case as solve's and tune's options give it (level < 0,
 * cube 0, steps 0, mesh NULL: not given). */
void fb_ns_problem_spec(char *buf, size_t len, const char *name, int level, int cube, int steps, const char *mesh);

/* A problem over a case the caller opened with its own options (solve's
 * --re, --cfl, ...) and keeps open while the problem lives; the runs last
 * as *loop says. Closed with the family's problem_close. */
fb_status fb_ns_problem_of_case(fb_solve_case *c, const fb_case_loop *loop, void **problem);

/* What tuned parameters depend on in the solver's mesh (bench/signature.h),
 * from a state whose edges are built (fb_ns_init). */
void fb_ns_mesh_signature(const fb_ns *ns, fb_signature *out);

#endif
