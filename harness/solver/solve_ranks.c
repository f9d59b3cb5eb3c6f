/* solve_ranks.c - the part of a solve that only exists on several ranks (contracts in solve_ranks.h). */
#include "solve_ranks.h"

#include <omp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comm.h"
#include "../core/interrupt.h"
#include "../core/stats.h"
#include "../results/records/reader.h"
#include "ns_device.h"

fb_status fb_solve_ranks_check(const char *const *backends, int nbackends, int compare, int sweep, int tuned,
                               const char *peer, const fb_param_point *point)
{
    fb_status status = FB_OK;
    const int p = fb_comm_size();
    if (compare || nbackends > 1)
        FB_FAIL(FB_ERR_USAGE, "solve on %d ranks: give one --backend (each rank runs its part on it), not several", p);
    if (sweep || tuned)
        FB_FAIL(FB_ERR_USAGE, "solve on %d ranks: --param lists, --tune and --tuned run on one rank", p);
    if (peer && strcmp(peer, "petsc") != 0)
        FB_FAIL(FB_ERR_USAGE, "solve on %d ranks: --peer %s runs on one rank (--peer petsc runs on ranks)", p, peer);
    if (strcmp(backends[0], "openmp") != 0) FB_CHECK(fb_ns_device_check_ranks(point));
fail:
    return status;
}

void fb_solve_ranks_own(fb_status mine)
{
    int64_t first = mine == FB_OK ? INT64_MAX : fb_comm_rank();
    fb_comm_allreduce_i64(&first, 1, FB_COMM_MIN);
    fb_comm_stats_take(); /* bookkeeping, not a step's reduction */
    if (first == INT64_MAX) return;
    if (first == fb_comm_rank()) fb_comm_abort(fb_comm_report(mine));
    fb_comm_barrier(); /* `first` never joins: its abort ends this rank here */
    fb_comm_abort(1);
}

fb_status fb_solve_ranks_setup(fb_solve_case *c, fb_ns *ns, fb_ns_dist *d)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_ns_dist_split(d, &c->mesh, &c->bnd));
    FB_CHECK(fb_ns_init_part(ns, d, &c->cfg, &c->bc));
    fb_case_initial(c, ns);
fail:
    return status;
}

fb_status fb_solve_ranks_agree(fb_status mine)
{
    int64_t worst = mine;
    fb_comm_allreduce_i64(&worst, 1, FB_COMM_MAX);
    fb_comm_stats_take();
    if (mine != FB_OK || worst == FB_OK) return mine;
    return fb_error_set((fb_status)worst, __FILE__, __LINE__, "another rank failed (it says why)");
}

int fb_solve_ranks_exit(fb_status status)
{
    if (status == FB_OK) return 0;
    const int together =
        status == FB_ERR_USAGE || status == FB_ERR_INPUT || status == FB_ERR_CHECK || status == FB_ERR_INTERRUPTED;
    if (!together) fb_comm_abort(fb_comm_report(status));
    if (fb_comm_rank() == 0) return fb_comm_report(status);
    return status == FB_ERR_INTERRUPTED ? 130 : fb_status_exit_code(status);
}

int fb_solve_ranks_interrupted(void)
{
    double any = fb_interrupted ? 1.0 : 0.0;
    fb_comm_allreduce(&any, 1, FB_COMM_MAX);
    fb_comm_stats_take(); /* bookkeeping, not a step's reduction */
    return any > 0;
}

fb_status fb_solve_ranks_gather(fb_solve_case *c, const fb_ns *ns, fb_ns *whole)
{
    fb_status status = FB_OK;
    const int root = fb_comm_rank() == 0;
    double *u = NULL, *p = NULL;
    if (root) {
        FB_ALLOC(u, 3 * (size_t)c->mesh.nnodes, "the gathered velocity");
        FB_ALLOC(p, (size_t)c->mesh.nnodes, "the gathered pressure");
    }
    FB_CHECK(fb_ns_dist_gather(ns, u, p));
    if (!root) goto fail;
    FB_CHECK(fb_ns_init(whole, &c->mesh, &c->bnd, &c->cfg, &c->bc));
    memcpy(whole->u, u, 3 * sizeof *u * (size_t)c->mesh.nnodes);
    memcpy(whole->p, p, sizeof *p * (size_t)c->mesh.nnodes);
    whole->t = ns->t, whole->step = ns->step;
fail:
    free(u);
    free(p);
    return status;
}

/* Median and total of one per-step number. */
static json_t *per_step(const fb_solve_log *log, size_t offset)
{
    double *v = malloc(sizeof *v * (size_t)(log->n ? log->n : 1)), total = 0.0;
    if (!v) return json_null();
    for (int k = 0; k < log->n; ++k) {
        v[k] = *(const double *)((const char *)&log->steps[k] + offset);
        total += v[k];
    }
    json_t *j = json_pack("{s:f, s:f}", "median", fb_median(v, (size_t)log->n), "total", total);
    free(v);
    return j;
}

static json_t *imbalance(const fb_solve_log *log)
{
    json_t *j = json_object();
    static const char *const names[] = {"step1", "step2", "step3"};
    double *v = malloc(sizeof *v * (size_t)(log->n ? log->n : 1));
    for (int s = 0; v && s < 3; ++s) {
        for (int k = 0; k < log->n; ++k)
            v[k] = log->steps[k].imbalance[s];
        json_object_set_new(j, names[s], json_real(fb_median(v, (size_t)log->n)));
    }
    free(v);
    return j;
}

/* Every rank's host, in rank order. */
static json_t *hosts(void)
{
    char mine[64] = {0};
    char *all = NULL;
    snprintf(mine, sizeof mine, "%s", fb_comm_host());
    json_t *j = json_array();
    if (fb_comm_allgather(mine, sizeof mine, (void **)&all) != FB_OK) return j;
    for (int r = 0; r < fb_comm_size(); ++r)
        json_array_append_new(j, json_string(all + sizeof mine * (size_t)r));
    free(all);
    return j;
}

/* Owned and halo node counts over ranks. */
static json_t *partition_json(const fb_ns_dist *d)
{
    int64_t own[2] = {d->lp.nown, -(int64_t)d->lp.nown}, halo = d->lp.nlocal - d->lp.nown;
    fb_comm_allreduce_i64(own, 2, FB_COMM_MAX);
    fb_comm_allreduce_i64(&halo, 1, FB_COMM_SUM);
    fb_comm_stats_take();
    return json_pack("{s:s, s:I, s:I, s:I, s:I}", "method", "metis-kway", "nodes_min", (json_int_t)-own[1], "nodes_max",
                     (json_int_t)own[0], "halo_nodes", (json_int_t)halo, "edges_cut", (json_int_t)d->cut);
}

json_t *fb_solve_ranks_json(const fb_ns *ns, const fb_solve_log *log)
{
    json_t *mpi = json_object();
    double bytes = 0, messages = 0;
    for (int k = 0; k < log->n; ++k)
        bytes += (double)log->steps[k].halo_bytes, messages += (double)log->steps[k].halo_messages;
    json_object_set_new(mpi, "ranks", json_integer(fb_comm_size()));
    json_object_set_new(mpi, "hosts", hosts());
    json_object_set_new(mpi, "library", json_string(fb_comm_library()));
    json_object_set_new(mpi, "threads_per_rank", json_integer(omp_get_max_threads()));
    json_object_set_new(mpi, "partition", partition_json(ns->dist));
    json_object_set_new(mpi, "halo_s", per_step(log, offsetof(fb_ns_step_info, halo_s)));
    json_object_set_new(mpi, "allreduce_s", per_step(log, offsetof(fb_ns_step_info, allreduce_s)));
    json_object_set_new(mpi, "imbalance", imbalance(log));
    json_object_set_new(mpi, "halo_bytes_per_step", json_real(log->n ? bytes / log->n : 0.0));
    json_object_set_new(mpi, "halo_messages_per_step", json_real(log->n ? messages / log->n : 0.0));
    return mpi;
}

void fb_solve_ranks_print(FILE *f, const json_t *mpi)
{
    fprintf(f, "  ranks %d (%s), METIS parts of %.0f .. %.0f nodes, %.0f halo nodes, %.0f edges cut\n",
            (int)fb_json_num(mpi, "ranks"), fb_json_str(mpi, "library"), fb_json_num(mpi, "partition.nodes_min"),
            fb_json_num(mpi, "partition.nodes_max"), fb_json_num(mpi, "partition.halo_nodes"),
            fb_json_num(mpi, "partition.edges_cut"));
    fprintf(f, "  per step (median): halo exchange %.3g ms, allreduce %.3g ms, %.0f bytes in %.0f messages\n",
            1e3 * fb_json_num(mpi, "halo_s.median"), 1e3 * fb_json_num(mpi, "allreduce_s.median"),
            fb_json_num(mpi, "halo_bytes_per_step"), fb_json_num(mpi, "halo_messages_per_step"));
    fprintf(f, "  load balance (slowest / fastest rank, median over steps): step 1 %.2f, step 2 %.2f, step 3 %.2f\n",
            fb_json_num(mpi, "imbalance.step1"), fb_json_num(mpi, "imbalance.step2"),
            fb_json_num(mpi, "imbalance.step3"));
}
