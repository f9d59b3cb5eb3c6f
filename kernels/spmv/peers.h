/* peers.h - vendor and library SpMV implementations measured beside
 * flowbench's kernels, on the same matrix, with the same measurement policy
 * and the same check (`--kernel peer:NAME`). A peer that was not built or
 * cannot run here says so in one line. */
#ifndef FB_PEERS_H
#define FB_PEERS_H

#include "spmv.h"

typedef struct fb_peer {
    fb_spmv_kernel_def def; /* name "peer:...", format; no parameters */
    const char *backend;    /* the backend whose device it runs on */
    int double_only;        /* computes in double only (PETSc's real build): single is refused */
    /* 1 if usable; else 0 and why ("not built: libgraphblas-dev missing"). */
    int (*available)(char *why, size_t len);
    /* Measures y = A x with cfg->measure and fills out (m, y); the caller
     * checks y with fb_spmv_finish. NULL where not built (only called when
     * available). */
    fb_status (*run)(fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg, const double *x,
                     fb_spmv_result *out);
} fb_peer;

extern const fb_peer fb_peer_graphblas;
extern const fb_peer fb_peer_petsc;
extern const fb_peer fb_peer_cusparse;
extern const fb_peer fb_peer_cusparse_bsr;

const fb_peer *fb_peer_find(const char *name); /* "peer:graphblas" */
int fb_peer_count(void);
const fb_peer *fb_peer_at(int i);

/* Runs a peer end to end: availability, backend match, measure, check. */
fb_status fb_peer_run(const fb_peer *p, fb_target *t, const fb_spmv_matrix *A, const fb_spmv_config *cfg,
                      fb_spmv_result *out);

#endif
