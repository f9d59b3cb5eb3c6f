/* comm.h - flowbench on several processes: the MPI ranks a launcher
 * (mpirun, srun) started, and the one place that calls MPI.
 *
 * Built with FLOWBENCH_MPI (FB_HAVE_MPI), MPI is initialised only when the
 * process was started by an MPI launcher (Open MPI's, Slurm's PMI/PMIx, or
 * MPICH's Hydra: their environment variables); a plain `flowbench ...`
 * never touches MPI, so it starts as fast as before and runs where the MPI
 * runtime is broken or absent. Without FB_HAVE_MPI every function below is
 * the one-rank answer, and fb_comm_init refuses a launch of several ranks
 * (each would run the whole command and race for the same files).
 *
 * Collectives must be called by every rank in the same order. A rank that
 * fails where the others may be waiting in a collective calls
 * fb_comm_abort, which ends every rank (never a hang).
 */
#ifndef FB_CORE_COMM_H
#define FB_CORE_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Initialises MPI when a launcher started this process (argc/argv are
 * MPI_Init's). FB_ERR_UNAVAILABLE when several ranks were launched and
 * this binary has no MPI. Call once, before any other fb_comm_. */
fb_status fb_comm_init(int *argc, char ***argv);

/* MPI_Finalize when fb_comm_init initialised MPI; harmless otherwise. */
void fb_comm_finalize(void);

/* The number of ranks a launcher (mpirun, srun) started, read from the
 * variables it sets (1 when it does not say how many); 0 without one.
 * Valid before fb_comm_init. */
int fb_comm_launched(void);
int fb_comm_rank(void);
int fb_comm_size(void);
/* Rank and number of ranks on this host: which device a rank takes. */
int fb_comm_local_rank(void);
int fb_comm_local_size(void);
/* This host's name. */
const char *fb_comm_host(void);
/* The MPI library's own version line ("Open MPI v4.1.4, ..."), or "none". */
const char *fb_comm_library(void);

/* Prints "flowbench: MESSAGE" for the last error (on several ranks with
 * this rank and host: each rank's stderr ends in one stream) and returns
 * the status's exit code; 0 for FB_OK, 130 for Ctrl-C. */
int fb_comm_report(fb_status status);

typedef enum fb_comm_op { FB_COMM_SUM, FB_COMM_MAX, FB_COMM_MIN } fb_comm_op;

/* In place over all ranks, n values; seconds spent (wait included) are
 * added to fb_comm_stats. */
void fb_comm_allreduce(double *v, int n, fb_comm_op op);
void fb_comm_allreduce_i64(int64_t *v, int n, fb_comm_op op);
void fb_comm_bcast(void *buf, size_t bytes, int root);
void fb_comm_barrier(void);

/* Every rank's `bytes` bytes (the same count on every rank) into *all
 * (size x bytes, rank order; malloc'd; the caller frees), on every rank. */
fb_status fb_comm_allgather(const void *mine, size_t bytes, void **all);

/* Concatenates every rank's buffer on root, in rank order: *out
 * (malloc'd, root only; NULL elsewhere) and counts[r] (root only, size
 * entries, may be NULL). */
fb_status fb_comm_gather(const void *mine, size_t bytes, int root, void **out, size_t *counts);

/* Ends every rank with this exit code (MPI_Abort under MPI, exit otherwise). */
_Noreturn void fb_comm_abort(int code);

/* Time spent in reductions since the last reset (every rank its own). */
typedef struct fb_comm_stats {
    double allreduce_s;
    int64_t allreduces;
} fb_comm_stats;
fb_comm_stats fb_comm_stats_take(void); /* returns and resets */

/* ---- the halo: values a rank owns that its neighbours read ----
 *
 * One exchange pattern: for each neighbour k, the values at
 * send_idx[send_start[k] .. send_start[k+1]) go to rank[k], and what rank[k]
 * sends lands at recv_idx[recv_start[k] .. recv_start[k+1]). Indices count
 * items of ncomp doubles (3 for an interleaved velocity). Both sides list
 * the shared items in the same order (each builds the lists from the same
 * global numbering), so no index travels at run time. */
typedef struct fb_halo {
    int nneighbours;
    int *rank;
    int *send_start, *send_idx;
    int *recv_start, *recv_idx;
    /* counters since fb_halo_stats_reset */
    double seconds;    /* in start + finish, waits included */
    int64_t bytes;     /* sent by this rank */
    int64_t messages;  /* sent by this rank */
    int64_t exchanges; /* start/finish pairs */
    /* private: packing buffers and requests of the exchange in flight */
    double *sendbuf, *recvbuf;
    int capacity_ncomp;
    void *requests;
    int in_flight_ncomp;
} fb_halo;

/* Allocates the buffers for exchanges of up to max_ncomp doubles per item
 * (the lists must be set). */
fb_status fb_halo_prepare(fb_halo *h, int max_ncomp);

/* Posts the receives and sends of v's shared items (non-blocking: interior
 * work can run before fb_halo_finish). */
void fb_halo_start(fb_halo *h, double *v, int ncomp);
/* Waits and writes the received values into v. */
void fb_halo_finish(fb_halo *h, double *v, int ncomp);
/* start + finish. */
void fb_halo_exchange(fb_halo *h, double *v, int ncomp);

void fb_halo_stats_reset(fb_halo *h);
void fb_halo_free(fb_halo *h);

/* ---- the halo from packed host buffers (a device's exchange) ----
 *
 * A device solver packs the values its neighbours read on the device (in
 * send_idx order), copies them to the host, exchanges them here, and
 * copies what arrived back to unpack it there (in recv_idx order): the
 * host moves bytes only, the device holds the index lists. */

/* send: send_start[nneighbours] items of ncomp doubles, neighbour after
 * neighbour as send_start says; recv: recv_start[nneighbours] items, filled
 * as recv_start says. Blocking. Counts seconds (the exchange's own; the
 * caller adds its copies), bytes, messages and an exchange as
 * fb_halo_start + fb_halo_finish do. fb_halo_prepare first (any
 * max_ncomp: the buffers are the caller's). */
void fb_halo_exchange_packed(fb_halo *h, const double *send, double *recv, int ncomp);

#endif
