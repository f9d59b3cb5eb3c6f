/* solve_peer.h - `flowbench solve CASE --backend opencl[:P.D] --peer
 * viennacl`: after the run, the last step's pressure system is solved from
 * x = 0 by flowbench's device CG and by the peer's CG on the same OpenCL
 * device, at the case's tolerance, and compared (docs/solver.md, "The
 * ViennaCL peer"). Kept apart from cmd_solve.c, which calls the two
 * functions below. */
#ifndef FB_CLI_SOLVE_PEER_H
#define FB_CLI_SOLVE_PEER_H

#include <jansson.h>
#include <stdio.h>

#include "../backends/target.h"
#include "../solver/cases.h"
#include "../solver/ns.h"

/* --peer NAME against the run's backends, before anything runs: usage
 * errors first (an unknown peer; --compare or a backend other than opencl),
 * then whether this build has the peer (FB_ERR_UNAVAILABLE, "not built
 * (...)"). name NULL: no peer, FB_OK. */
fb_status fb_solve_peer_check(const char *name, const char *const *backends, int nbackends, int compare);

/* Runs the comparison on the device run ns (still open on t), prints its
 * table to f and adds the "peer" object to rec. */
fb_status fb_solve_peer_run(const char *name, const fb_solve_case *c, fb_ns *ns, fb_target *t, json_t *rec, FILE *f);

#endif
