/* solve_ranks.h - `mpirun -np P flowbench solve CASE`: the solver on P
 * ranks (ns_dist.h), each rank its METIS part of the mesh on its own
 * OpenMP threads, or (--backend opencl|cuda) on its own device, one per
 * rank by local rank (ns_device.h). The solve command calls these: the checks of what runs on several ranks, the
 * device each rank takes, the setup, the fields brought together on rank
 * 0 for validation and output, and the record's and the table's "mpi"
 * part (docs/scaling.md). */
#ifndef FB_SOLVER_SOLVE_RANKS_H
#define FB_SOLVER_SOLVE_RANKS_H

#include <jansson.h>
#include <stdio.h>

#include "../backends/target.h"
#include "../core/params.h"
#include "cases.h"
#include "ns_dist.h"
#include "output.h"

/* FB_ERR_USAGE naming what does not run on several ranks: more than one
 * backend or --compare, a --param sweep, --tune or --tuned, --peer, and
 * on a device backend the kernel parameters the decomposed device solver
 * lacks (point: fb_ns_device_check_ranks). The same answer on every rank. */
fb_status fb_solve_ranks_check(const char *const *backends, int nbackends, int compare, int sweep, int tuned,
                               const char *peer, const fb_param_point *point);

/* Collective, after work each rank does on its own (opening its device):
 * returns when every rank's status is FB_OK; else the lowest rank that
 * failed reports why (its rank and host named) and ends every rank, the
 * others waiting for that (no rank is left in a collective). */
void fb_solve_ranks_own(fb_status mine);

/* Collective: this rank's part of the case in ns (d holds the part),
 * initial state set. */
fb_status fb_solve_ranks_setup(fb_solve_case *c, fb_ns *ns, fb_ns_dist *d);

/* Collective: the worst of every rank's status; a rank that was fine
 * gets the other's status with "another rank failed" (that rank says why). */
fb_status fb_solve_ranks_agree(fb_status mine);

/* The exit code of a run on several ranks. A status every rank reaches
 * together (usage, input, a failed check, Ctrl-C) is reported once, by
 * rank 0; any other failure is one rank's own: reported with its rank and
 * host, then every rank is ended (the others may be waiting on it). */
int fb_solve_ranks_exit(fb_status status);

/* Collective: every rank has the same answer to "did any rank see Ctrl-C". */
int fb_solve_ranks_interrupted(void);

/* Collective: on rank 0, *whole set up on the whole mesh and given the
 * gathered fields, time and step count of ns (for validation, VTK,
 * profiles and the record); other ranks leave it untouched. */
fb_status fb_solve_ranks_gather(fb_solve_case *c, const fb_ns *ns, fb_ns *whole);

/* Collective: the record's "mpi" object (ranks, hosts, library, the
 * partition, halo and reduction time, imbalance, traffic per step). Every
 * rank gets it; rank 0 writes it. */
json_t *fb_solve_ranks_json(const fb_ns *ns, const fb_solve_log *log);

/* The table's lines for the same. */
void fb_solve_ranks_print(FILE *f, const json_t *mpi);

#endif
