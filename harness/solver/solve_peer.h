/* solve_peer.h - `flowbench solve CASE --backend opencl[:P.D] --peer
 * viennacl`: after the run, the last step's pressure system is solved from
 * x = 0 by flowbench's device CG and by the peer's CG on the same OpenCL
 * device, at the case's tolerance, and compared (docs/solver.md, "The
 * ViennaCL peer"); `--backend openmp --peer petsc` the same with PETSc's
 * CG on the CPU, on one process or on every rank of an MPI launch. The
 * solve command calls the functions below after its run. */
#ifndef FB_SOLVER_SOLVE_PEER_H
#define FB_SOLVER_SOLVE_PEER_H

#include <jansson.h>
#include <stdio.h>

#include "../backends/target.h"
#include "ns.h"

/* --peer NAME against the run's backends, before anything runs: usage
 * errors first (an unknown peer; --compare or a backend other than opencl),
 * then whether this build has the peer (FB_ERR_UNAVAILABLE, "not built
 * (...)"). name NULL: no peer, FB_OK. */
fb_status fb_solve_peer_check(const char *name, const char *const *backends, int nbackends, int compare);

/* After the run ns (still open on t), in two halves.
 * fb_solve_peer_compare: the two CGs on the last step's system; on
 * several ranks (`mpirun -np P flowbench solve ... --peer petsc`, after
 * the run on the openmp backend) collective: flowbench's CG on each
 * rank's part and PETSc's MPIAIJ CG on the same rows, one rank per core
 * as a PETSc user runs it; *out NULL when name is. fb_solve_peer_report
 * (on rank 0 only): the table to f and the "peer" object into rec. */
typedef struct fb_solve_peer_outcome fb_solve_peer_outcome;
fb_status fb_solve_peer_compare(const char *name, fb_ns *ns, fb_target *t, fb_solve_peer_outcome **out);
fb_status fb_solve_peer_report(const fb_solve_peer_outcome *o, const fb_ns *ns, json_t *rec, FILE *f);
void fb_solve_peer_outcome_free(fb_solve_peer_outcome *o);

#endif
