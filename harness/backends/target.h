/* target.h - an opened backend device, the handle every command works with.
 *
 * fb_target wraps a backend's function table: it resolves "--backend"
 * specs ("openmp", "opencl", "opencl:0.1", "cuda:1"), fails loudly with the
 * backend's name when a method is missing, keeps the device properties, and
 * caches kernel builds by (device, source hash, kernel name, defines).
 */
#ifndef FB_TARGET_H
#define FB_TARGET_H

#include "backend.h"
#include "../core/measure.h"

typedef struct fb_target fb_target;

/* Registered backends, in the order `devices` lists them. */
int fb_backend_count(void);
const fb_backend_ops *fb_backend_at(int i);
const fb_backend_ops *fb_backend_find(const char *name); /* NULL if unknown */

/* FB_ERR_UNAVAILABLE naming the backend and the first missing method. */
fb_status fb_backend_check_methods(const fb_backend_ops *ops);

/* Opens the device a spec names. NAME alone is device 0; NAME:K is the K-th
 * device of that backend; NAME:ID matches the id devices prints (opencl:0.1).
 * Unknown name: FB_ERR_USAGE. Backend absent or without that device:
 * FB_ERR_UNAVAILABLE with the backend's own reason. */
fb_status fb_target_open(const char *spec, fb_target **out);

/* The spec a rank of several on one host opens (core/comm.h), so that the
 * ranks of a node spread over its devices: a backend named alone ("cuda",
 * "opencl") with more than one device becomes "NAME:K", K = the rank's
 * host-local number modulo the device count (local rank 0 keeps NAME: the
 * same device 0). Any other spec is kept as given (a device named, so
 * ranks may share one; one device; an unknown name, which fb_target_open
 * then refuses). */
void fb_target_rank_spec(const char *spec, char *buf, size_t len);

/* fb_target_open of fb_target_rank_spec(spec). */
fb_status fb_target_open_for_rank(const char *spec, fb_target **out);

void fb_target_close(fb_target *t);

const fb_device_info *fb_target_info(const fb_target *t);
const fb_backend_ops *fb_target_ops(const fb_target *t);

fb_status fb_target_alloc(fb_target *t, size_t bytes, fb_buffer **out);
void fb_target_release(fb_target *t, fb_buffer *buffer);
fb_status fb_target_copy_in(fb_target *t, fb_buffer *dst, const void *src, size_t bytes);
fb_status fb_target_copy_out(fb_target *t, void *dst, fb_buffer *src, size_t bytes);

/* A new buffer of `bytes` holding src. */
fb_status fb_target_upload(fb_target *t, const void *src, size_t bytes, fb_buffer **out);

/* Arrays of REALs (double, or float when !is_double) moved from and to
 * host doubles, rounded to float on the way in for single precision. */
size_t fb_real_size(int is_double);
fb_status fb_target_write_reals(fb_target *t, int is_double, fb_buffer *dst, const double *src, size_t n);
fb_status fb_target_read_reals(fb_target *t, int is_double, fb_buffer *src, size_t n, double *dst);
/* A new buffer of n REALs holding src. */
fb_status fb_target_upload_reals(fb_target *t, int is_double, const double *src, size_t n, fb_buffer **out);
/* n REALs of NaN: an output no work-item writes then fails its check
 * instead of keeping what the memory held (a freed buffer of the previous
 * configuration may hold a right answer). */
fb_status fb_target_fill_nan(fb_target *t, int is_double, fb_buffer *dst, size_t n);

/* Builds (or returns the cached build of) one kernel. The kernel belongs to
 * the target and lives until fb_target_close. A spec without source text
 * (fb_kernel_source found none) fails: "kernel source NAME is not embedded". */
fb_status fb_target_build(fb_target *t, const fb_program_spec *spec, fb_kernel **out);

/* Number of builds served from the cache / compiled, for tests and logs. */
void fb_target_build_counts(const fb_target *t, int *cached, int *compiled);

fb_status fb_target_launch(fb_target *t, fb_kernel *k, const fb_launch *launch, const fb_arg *args, int nargs,
                           double *seconds);
fb_status fb_target_finish(fb_target *t);
fb_status fb_target_flush_cache(fb_target *t);
/* fb_target_flush_cache as a measurement's flush callback (fb_flush_fn),
 * its context the target: fb_target_measure(t, ..., fb_target_flush_callback, t, ...). */
fb_status fb_target_flush_callback(void *target);

/* Registers, private memory, local memory and occupancy of a built kernel
 * at group_items per work-group; FB_ERR_UNAVAILABLE on backends that cannot
 * say (openmp). */
fb_status fb_target_kernel_resources(fb_target *t, fb_kernel *k, size_t group_items, fb_kernel_resources *out);

/* The device's energy meter (core/energy.h), opened at its first use and
 * closed with the target: RAPL for this host's CPU (openmp, an OpenCL CPU
 * device), NVML for an NVIDIA GPU found by its PCI bus id, else a meter that
 * says why there is none. When it reads no joules, one line says so on
 * stderr ("energy unavailable on openmp:0: ..."), once per target, and
 * once per run of many commands when FLOWBENCH_NOTICES names the run's
 * notice file (core/notice.h). NULL only when out of memory (then nothing
 * is metered). */
struct fb_energy_meter *fb_target_energy(fb_target *t);

/* fb_measure (core/measure.h) with the target's energy meter in cfg, so
 * every family's measurement carries energy (m->energy). */
fb_status fb_target_measure(fb_target *t, const fb_measure_config *cfg, fb_sample_fn sample, void *ctx,
                            fb_flush_fn flush, void *flush_ctx, fb_measurement *out);

/* Argument constructors. fb_arg_real picks f32 or f64 by precision. */
fb_arg fb_arg_buffer(fb_buffer *b);
fb_arg fb_arg_i32(int32_t v);
fb_arg fb_arg_real(int is_double, double v);

/* 1D launch: local = wg, global = n rounded up to a multiple of wg.
 * Kernels guard the tail with `if (i < n)`. */
fb_launch fb_launch_1d(size_t n, size_t wg);

/* The device's fingerprint: backend, name, vendor, driver version and
 * compute units, joined by '|'. Two devices with equal fingerprints are
 * assumed to tune alike. */
void fb_device_fingerprint(const fb_device_info *d, char *buf, size_t len);

#endif
