/* case_run.c - see case_run.h. */
#include "solver/case_run.h"

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/comm.h"
#include "core/contention.h"
#include "core/energy.h"
#include "core/interrupt.h"
#include "solver/ns_device.h"

fb_status fb_case_run_init(fb_case_run *r, fb_solve_case *c)
{
    fb_status status = fb_ns_init(&r->ns, &c->mesh, &c->bnd, &c->cfg, &c->bc);
    if (status == FB_OK) fb_case_initial(c, &r->ns);
    return status;
}

fb_status fb_case_run_open(fb_case_run *r, fb_target *t, const fb_param_point *asked)
{
    fb_status status = FB_OK;
    const int device = fb_solve_on_device(fb_target_info(t));
    r->point = device ? *asked : fb_ns_openmp_point();
    FB_CHECK(
        fb_ns_device_open(&r->ns, t, &r->point, device ? &r->log.upload_s : NULL, device ? &r->log.setup_s : NULL));
    fb_ns_drop_upload_copies(&r->ns); /* the run stays on this backend */
    r->rss_setup = fb_rss_bytes();
fail:
    return status;
}

static void progress(const fb_case_loop *o, const fb_ns *ns, const fb_ns_step_info *info, double elapsed)
{
    double left = o->steps ? o->steps - ns->step : (o->t_end - ns->t) / info->dt;
    double eta = ns->step > 0 ? elapsed / ns->step * left : 0.0;
    if (o->steps)
        fprintf(stderr, "  step %d/%d", ns->step, o->steps);
    else
        fprintf(stderr, "  step %d/~%d", ns->step, ns->step + (int)(left + 0.999));
    fprintf(stderr, "  t %.5g  dt %.3g  CFL %.3g  CG %d its  %.1f s, ETA %.1f s\n", ns->t, info->dt, info->cfl,
            info->cg_its, elapsed, eta);
}

/* The CPUs the time loop keeps busy, for its contention window (as
 * fb_target_measure counts them): the OpenMP threads on openmp, a device
 * that is this host's CPU (PoCL) its compute units, a GPU its host thread;
 * under mpirun each rank on this host as many (the ranks are this run's
 * own work, not another's). */
static int loop_cpu_threads(const fb_target *t)
{
    const fb_device_info *d = fb_target_info(t);
    const int per_rank = !fb_solve_on_device(d) ? omp_get_max_threads() : d->host_cpu ? d->compute_units : 1;
    return per_rank * (fb_comm_size() > 1 ? fb_comm_local_size() : 1);
}

static int stop_asked(const fb_case_loop *o) { return o->interrupted ? o->interrupted() : fb_interrupted != 0; }

/* The loop: FB_OK, FB_ERR_CHECK (the watch; the message names the step),
 * FB_ERR_INTERRUPTED or another error. The energy meter (or NULL)
 * brackets it: the energy to solution, polled after each step for clocks
 * and throttle reasons; so does the contention window (its polls are
 * rate-limited and fall between steps, outside their times). */
static fb_status time_loop(const fb_case_loop *o, fb_ns *ns, fb_solve_log *log, fb_target *t)
{
    fb_energy_meter *meter = fb_target_energy(t);
    fb_status status = FB_OK;
    fb_ns_step_info info;
    const double t_end = o->steps ? 0.0 : o->t_end, start = fb_now();
    double last_print = start, busy = 0;
    const int nmax = o->steps ? o->steps : INT_MAX;
    fb_contention_begin(&log->env, loop_cpu_threads(t));
    fb_energy_start(meter);
    while (ns->step < nmax && (o->steps || ns->t < t_end * (1.0 - 1e-12))) {
        if (stop_asked(o)) FB_FAIL(FB_ERR_INTERRUPTED, "interrupted at step %d", ns->step + 1);
        FB_CHECK(fb_ns_step(ns, t_end, &info));
        FB_CHECK(fb_solve_log_add(log, &info));
        busy += info.t_step1 + info.t_step2 + info.t_step3;
        fb_energy_poll(meter);
        fb_contention_poll(&log->env);
        double now = fb_now();
        if (!o->quiet && (now - last_print > 2.0 || ns->step == 1)) {
            progress(o, ns, &info, now - start);
            last_print = now;
        }
    }
fail:
    log->wall_s = fb_now() - start;
    fb_energy_stop(meter, log->n, 0, busy, &log->energy);
    fb_contention_end(&log->env);
    return status;
}

fb_status fb_case_run_steps(fb_case_run *r, const fb_case_loop *o, fb_target *t)
{
    r->ended = time_loop(o, &r->ns, &r->log, t);
    if (r->ended != FB_OK && r->ended != FB_ERR_CHECK && r->ended != FB_ERR_INTERRUPTED) return r->ended;
    if (r->ended != FB_OK) snprintf(r->reason, sizeof r->reason, "%s", fb_error_message());
    return FB_OK;
}

fb_status fb_case_run_record(fb_case_run *r, fb_solve_case *c, const fb_ns *fields, fb_target *t, double stream_gbs)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_case_validate(c, fields, &r->validation));
    const char *verdict = r->ended == FB_OK ? "ok" : r->ended == FB_ERR_CHECK ? "failed" : "interrupted";
    r->rec = fb_solve_record(c, fields, &r->log, fb_target_info(t), stream_gbs, r->rss_setup, r->validation, verdict,
                             r->ended == FB_OK ? NULL : r->reason);
    if (!r->rec) FB_FAIL(FB_ERR_NOMEM, "out of host memory building the solve record");
fail:
    return status;
}

fb_status fb_case_run_finish(fb_case_run *r, fb_solve_case *c, fb_target *t, double stream_gbs)
{
    fb_status status = FB_OK;
    FB_CHECK(fb_ns_device_download(&r->ns, fb_solve_on_device(fb_target_info(t)) ? &r->log.download_s : NULL));
    FB_CHECK(fb_case_run_record(r, c, &r->ns, t, stream_gbs));
fail:
    return status;
}

void fb_case_run_free(fb_case_run *r)
{
    json_decref(r->rec);
    json_decref(r->validation);
    fb_solve_log_free(&r->log);
    fb_ns_free(&r->ns);
    memset(r, 0, sizeof *r);
}
