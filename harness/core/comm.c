/* comm.c - the ranks of a launch and their collectives (contracts in
 * comm.h). Every MPI call of flowbench is in this file. */
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#ifdef FB_HAVE_MPI
#include <mpi.h>
#endif

static struct {
    int active, rank, size, local_rank, local_size;
    char host[256];
    char library[256];
    fb_comm_stats stats;
} comm = {.size = 1, .local_size = 1, .library = "none"};

/* The variables each launcher sets in the processes it starts. */
int fb_comm_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; ++k) {
        const char *v = getenv(vars[k]);
        if (v && *v) return atoi(v) > 0 ? atoi(v) : 1;
    }
    if (getenv("PMIX_RANK") || getenv("PMI_RANK")) return 1; /* a launcher, size unknown here */
    return 0;
}

static void set_host(void)
{
    if (gethostname(comm.host, sizeof comm.host) != 0) snprintf(comm.host, sizeof comm.host, "unknown");
    comm.host[sizeof comm.host - 1] = '\0';
}

#ifdef FB_HAVE_MPI
static void find_local_rank(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &comm.local_rank);
    MPI_Comm_size(node, &comm.local_size);
    MPI_Comm_free(&node);
}
#endif

fb_status fb_comm_init(int *argc, char ***argv)
{
    fb_status status = FB_OK;
    set_host();
    int launched = fb_comm_launched();
#ifdef FB_HAVE_MPI
    if (launched > 0 && !getenv("FLOWBENCH_NO_MPI")) {
        int provided;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            FB_FAIL(FB_ERR_UNAVAILABLE, "MPI_Init failed on %s", comm.host);
        comm.active = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &comm.size);
        int len = 0;
        MPI_Get_library_version(comm.library, &len);
        comm.library[strcspn(comm.library, "\n,")] = '\0'; /* "Open MPI v4.1.4" of "Open MPI v4.1.4, package: ..." */
        find_local_rank();
    }
#else
    (void)argc, (void)argv;
    if (launched > 1)
        FB_FAIL(FB_ERR_UNAVAILABLE,
                "launched as %d ranks, but this flowbench was built without MPI (FLOWBENCH_MPI=OFF: Debian "
                "libopenmpi-dev and libmetis-dev, then reconfigure); each rank would run the whole command",
                launched);
#endif
fail:
    return status;
}

void fb_comm_finalize(void)
{
#ifdef FB_HAVE_MPI
    if (comm.active) MPI_Finalize();
#endif
    comm.active = 0;
}

int fb_comm_rank(void) { return comm.rank; }
int fb_comm_size(void) { return comm.size; }
int fb_comm_local_rank(void) { return comm.local_rank; }
int fb_comm_local_size(void) { return comm.local_size; }
const char *fb_comm_host(void)
{
    if (!comm.host[0]) set_host();
    return comm.host;
}
const char *fb_comm_library(void) { return comm.library; }

#ifdef FB_HAVE_MPI
static MPI_Op mpi_op(fb_comm_op op) { return op == FB_COMM_SUM ? MPI_SUM : op == FB_COMM_MAX ? MPI_MAX : MPI_MIN; }
#endif

#ifdef FB_HAVE_MPI
/* In place over all ranks, timed into the reduction statistics. */
static void allreduce(void *v, int n, MPI_Datatype type, fb_comm_op op)
{
    if (!comm.active || comm.size == 1) return;
    double t0 = fb_now();
    MPI_Allreduce(MPI_IN_PLACE, v, n, type, mpi_op(op), MPI_COMM_WORLD);
    comm.stats.allreduce_s += fb_now() - t0;
    comm.stats.allreduces++;
}
#endif

void fb_comm_allreduce(double *v, int n, fb_comm_op op)
{
#ifdef FB_HAVE_MPI
    allreduce(v, n, MPI_DOUBLE, op);
#else
    (void)v, (void)n, (void)op;
#endif
}

void fb_comm_allreduce_i64(int64_t *v, int n, fb_comm_op op)
{
#ifdef FB_HAVE_MPI
    allreduce(v, n, MPI_INT64_T, op);
#else
    (void)v, (void)n, (void)op;
#endif
}

void fb_comm_bcast(void *buf, size_t bytes, int root)
{
#ifdef FB_HAVE_MPI
    if (comm.active && comm.size > 1) MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
#else
    (void)buf, (void)bytes, (void)root;
#endif
}

void fb_comm_barrier(void)
{
#ifdef FB_HAVE_MPI
    if (comm.active && comm.size > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

fb_status fb_comm_allgather(const void *mine, size_t bytes, void **all)
{
    fb_status status = FB_OK;
    char *buf = NULL;
    FB_ALLOC(buf, bytes * (size_t)comm.size, "the ranks' values");
#ifdef FB_HAVE_MPI
    if (comm.active && comm.size > 1) {
        MPI_Allgather(mine, (int)bytes, MPI_BYTE, buf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        *all = buf;
        return FB_OK;
    }
#endif
    memcpy(buf, mine, bytes);
    *all = buf;
fail:
    return status;
}

fb_status fb_comm_gather(const void *mine, size_t bytes, int root, void **out, size_t *counts)
{
    fb_status status = FB_OK;
    char *buf = NULL;
    int64_t *sizes = NULL;
    *out = NULL;
    int64_t my = (int64_t)bytes;
    FB_CHECK(fb_comm_allgather(&my, sizeof my, (void **)&sizes));
    size_t total = 0;
    for (int r = 0; r < comm.size; ++r)
        total += (size_t)sizes[r];
    if (comm.rank == root) {
        FB_ALLOC(buf, total, "the ranks' results");
        if (counts)
            for (int r = 0; r < comm.size; ++r)
                counts[r] = (size_t)sizes[r];
    }
#ifdef FB_HAVE_MPI
    if (comm.active && comm.size > 1) {
        int *cnt = NULL, *disp = NULL;
        if (comm.rank == root) {
            FB_ALLOC(cnt, comm.size, "gather counts");
            FB_ALLOC(disp, comm.size, "gather offsets");
            for (int r = 0, off = 0; r < comm.size; off += (int)sizes[r], ++r)
                cnt[r] = (int)sizes[r], disp[r] = off;
        }
        MPI_Gatherv(mine, (int)bytes, MPI_BYTE, buf, cnt, disp, MPI_BYTE, root, MPI_COMM_WORLD);
        free(cnt);
        free(disp);
        *out = buf, buf = NULL;
        goto fail;
    }
#endif
    if (buf) memcpy(buf, mine, bytes);
    *out = buf, buf = NULL;
fail:
    free(buf);
    free(sizes);
    return status;
}

_Noreturn void fb_comm_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
#ifdef FB_HAVE_MPI
    if (comm.active) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    exit(code);
}

fb_comm_stats fb_comm_stats_take(void)
{
    fb_comm_stats s = comm.stats;
    memset(&comm.stats, 0, sizeof comm.stats);
    return s;
}

/* ---- halo ---- */

fb_status fb_halo_prepare(fb_halo *h, int max_ncomp)
{
    fb_status status = FB_OK;
    const int nk = h->nneighbours;
    free(h->sendbuf), free(h->recvbuf), free(h->requests);
    h->sendbuf = h->recvbuf = NULL, h->requests = NULL;
    FB_ALLOC(h->sendbuf, (size_t)max_ncomp * (nk ? h->send_start[nk] : 0), "halo send buffer");
    FB_ALLOC(h->recvbuf, (size_t)max_ncomp * (nk ? h->recv_start[nk] : 0), "halo receive buffer");
#ifdef FB_HAVE_MPI
    h->requests = calloc(2 * (size_t)nk + 1, sizeof(MPI_Request));
    if (!h->requests) FB_FAIL(FB_ERR_NOMEM, "out of host memory allocating halo requests");
#endif
    h->capacity_ncomp = max_ncomp;
fail:
    return status;
}

#ifdef FB_HAVE_MPI
/* Posts the receives into recv and the sends from send, both packed
 * neighbour after neighbour as recv_start and send_start say. */
static void post(fb_halo *h, const double *send, double *recv, int ncomp)
{
    MPI_Request *req = h->requests;
    for (int k = 0; k < h->nneighbours; ++k) {
        int n = h->recv_start[k + 1] - h->recv_start[k];
        MPI_Irecv(recv + (size_t)ncomp * h->recv_start[k], n * ncomp, MPI_DOUBLE, h->rank[k], 7, MPI_COMM_WORLD,
                  &req[k]);
    }
    for (int k = 0; k < h->nneighbours; ++k) {
        int n = h->send_start[k + 1] - h->send_start[k];
        MPI_Isend(send + (size_t)ncomp * h->send_start[k], n * ncomp, MPI_DOUBLE, h->rank[k], 7, MPI_COMM_WORLD,
                  &req[h->nneighbours + k]);
        h->bytes += (int64_t)n * ncomp * (int64_t)sizeof(double);
        h->messages++;
    }
}
#endif

void fb_halo_start(fb_halo *h, double *v, int ncomp)
{
    if (h->nneighbours == 0) return;
    if (ncomp > h->capacity_ncomp) {
        fprintf(stderr, "flowbench: internal error: halo exchange of %d values per item, prepared for %d\n", ncomp,
                h->capacity_ncomp);
        fb_comm_abort(3);
    }
#ifdef FB_HAVE_MPI
    double t0 = fb_now();
    const int total = h->send_start[h->nneighbours];
    for (int i = 0; i < total; ++i)
        for (int c = 0; c < ncomp; ++c)
            h->sendbuf[(size_t)ncomp * i + c] = v[(size_t)ncomp * h->send_idx[i] + c];
    post(h, h->sendbuf, h->recvbuf, ncomp);
    h->in_flight_ncomp = ncomp;
    h->seconds += fb_now() - t0;
#else
    (void)v, (void)ncomp;
#endif
}

void fb_halo_finish(fb_halo *h, double *v, int ncomp)
{
    if (h->nneighbours == 0) return;
#ifdef FB_HAVE_MPI
    double t0 = fb_now();
    MPI_Waitall(2 * h->nneighbours, h->requests, MPI_STATUSES_IGNORE);
    const int total = h->recv_start[h->nneighbours];
    for (int i = 0; i < total; ++i)
        for (int c = 0; c < ncomp; ++c)
            v[(size_t)ncomp * h->recv_idx[i] + c] = h->recvbuf[(size_t)ncomp * i + c];
    h->exchanges++;
    h->in_flight_ncomp = 0;
    h->seconds += fb_now() - t0;
#else
    (void)v, (void)ncomp;
#endif
}

void fb_halo_exchange(fb_halo *h, double *v, int ncomp)
{
    fb_halo_start(h, v, ncomp);
    fb_halo_finish(h, v, ncomp);
}

void fb_halo_stats_reset(fb_halo *h) { h->seconds = 0, h->bytes = h->messages = h->exchanges = 0; }

void fb_halo_free(fb_halo *h)
{
    void *arrays[] = {h->rank,     h->send_start, h->send_idx, h->recv_start,
                      h->recv_idx, h->sendbuf,    h->recvbuf,  h->requests};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; ++k)
        free(arrays[k]);
    memset(h, 0, sizeof *h);
}

/* ---- the halo from packed host buffers (a device's exchange) ---- */

void fb_halo_exchange_packed(fb_halo *h, const double *send, double *recv, int ncomp)
{
    if (h->nneighbours == 0) return;
#ifdef FB_HAVE_MPI
    double t0 = fb_now();
    post(h, send, recv, ncomp);
    MPI_Waitall(2 * h->nneighbours, h->requests, MPI_STATUSES_IGNORE);
    h->exchanges++;
    h->seconds += fb_now() - t0;
#else
    (void)send, (void)recv, (void)ncomp;
#endif
}

/* ---- the one report of a failure ---- */

int fb_comm_report(fb_status status)
{
    if (status == FB_OK) return 0;
    if (status == FB_ERR_INTERRUPTED) {
        fprintf(stderr, "flowbench: interrupted\n");
        return 130;
    }
    if (fb_comm_size() > 1)
        fprintf(stderr, "flowbench: rank %d of %d (%s): %s\n", fb_comm_rank(), fb_comm_size(), fb_comm_host(),
                fb_error_message());
    else
        fprintf(stderr, "flowbench: %s\n", fb_error_message());
    if (getenv("FLOWBENCH_TRACE")) fprintf(stderr, "flowbench: (detected at %s)\n", fb_error_origin());
    return fb_status_exit_code(status);
}
