/* case_run.h - one run of a case on one backend: the state opened at a
 * point (the asked one on a device, the OpenMP baseline's on openmp), the
 * time loop (watches, Ctrl-C, progress, the energy and contention
 * windows), the fields brought back and validated, and the record. It is
 * what `flowbench solve` runs on each backend and what the ns family runs
 * for each point of a sweep or a search (ns_family_run.c). */
#ifndef FB_SOLVER_CASE_RUN_H
#define FB_SOLVER_CASE_RUN_H

#include <jansson.h>

#include "backends/target.h"
#include "core/params.h"
#include "solver/cases.h"
#include "solver/output.h"

/* How long the time loop runs and what it says. */
typedef struct fb_case_loop {
    int steps;                /* > 0: this many steps; 0: to t_end */
    double t_end;             /* the end time when steps is 0 */
    int quiet;                /* no progress lines on stderr */
    int (*interrupted)(void); /* whether to stop now; NULL: this process's Ctrl-C (several ranks agree on theirs) */
} fb_case_loop;

typedef struct fb_case_run {
    fb_ns ns;
    fb_solve_log log;
    fb_param_point point; /* what the state runs at */
    double rss_setup;     /* the process's resident bytes once set up */
    fb_status ended;      /* the loop's end: FB_OK, FB_ERR_CHECK (a watch stopped it) or FB_ERR_INTERRUPTED */
    char reason[1024];    /* why, when it did not end FB_OK */
    json_t *validation, *rec;
} fb_case_run;

/* The state of case c set up on the host (its edges: what the mesh's
 * signature is taken of, fb_ns_mesh_signature) at its initial values. */
fb_status fb_case_run_init(fb_case_run *r, fb_solve_case *c);

/* Then on t's backend at *asked (a device) or at fb_ns_openmp_point()
 * (openmp; asked may be NULL); a device's copies and set-up timed into
 * r->log. */
fb_status fb_case_run_open(fb_case_run *r, fb_target *t, const fb_param_point *asked);

/* The time loop of an opened state: r->ended and r->reason say how it
 * ended; the return is FB_OK unless something else failed (a launch, the
 * host's memory), which ends the run without a record. */
fb_status fb_case_run_steps(fb_case_run *r, const fb_case_loop *o, fb_target *t);

/* The fields brought back, validated, and r->rec built (status ok, failed
 * or interrupted as the loop ended); stream_gbs < 0 when no triad is known. */
fb_status fb_case_run_finish(fb_case_run *r, fb_solve_case *c, fb_target *t, double stream_gbs);

/* The validation and r->rec of fields (r's own state, or on several ranks
 * the whole mesh gathered on rank 0) after r's loop. */
fb_status fb_case_run_record(fb_case_run *r, fb_solve_case *c, const fb_ns *fields, fb_target *t, double stream_gbs);

void fb_case_run_free(fb_case_run *r);

#endif
