/* record.h - the JSON of one measurement: the fields every family's record
 * shares (benchmark, kernel, device, precision, params, launch, resources,
 * model, statistics, rates), the parameter and statistics objects, and the
 * roofline fields. A family adds its problem, its check and its status. */
#ifndef FB_RECORD_H
#define FB_RECORD_H

#include <jansson.h>

#include "../backends/backend.h"
#include "../core/measure.h"
#include "../core/params.h"

/* {"NAME": value} of a parameter point over its axes. */
json_t *fb_json_params(const fb_param_axis *axes, int naxes, const fb_param_point *p);

struct fb_user_kernel;

/* What every kernel measurement record holds (docs/results.md); a family
 * adds its problem, its check, its status and its own figures. */
typedef struct fb_kernel_record {
    const char *benchmark, *kernel;
    int is_double, cold;
    json_t *params;                       /* taken over by the record */
    const fb_launch *launch;              /* NULL or dims 0: not recorded */
    const fb_kernel_resources *resources; /* NULL: the backend did not say */
    double flops, bytes, gflops, gbs;     /* the model and its rates at the median */
    const fb_measurement *m;
    const struct fb_user_kernel *user; /* a user's kernel file: "kernel_file" (user_kernel.h); else NULL */
} fb_kernel_record;

json_t *fb_json_kernel_record(const fb_device_info *d, const fb_kernel_record *k);

/* samples (seconds), median_s, min_s, max_s, mean_s, stddev_s, spread, stop,
 * cv, q1_s, q3_s, quality and quality_why (docs/results.md). */
json_t *fb_json_measurement(const fb_measurement *m);

/* Sets "energy" (core/energy.h, docs/results.md) from the measurement's
 * energy window, gflop_per_j from the flops of one run; leaves the record
 * alone when no meter took part. fb_json_kernel_record calls it. */
void fb_json_set_energy(json_t *record, const fb_measurement *m, double flops_per_run);

/* Sets "environment" (core/contention.h: the OpenMP settings, the load,
 * the other runnable work and steal over the samples, the calibration, and
 * whether the run was contended) where the measurement watched the
 * machine; fb_json_kernel_record calls it. */
void fb_json_set_environment(json_t *record, const fb_measurement *m);

/* Sets the roofline fields of a measurement record: "stream_gbs" (the stream
 * triad GB/s measured in the same run on the same device) and
 * "fraction_of_stream" = gbs / stream_gbs. Both are null when stream_gbs is
 * unknown (<= 0), so a reader can tell "not measured" from zero. */
void fb_json_set_fraction_of_stream(json_t *record, double gbs, double stream_gbs);

/* The read ceiling's fields of a read-dominated kernel's record (SpMV:
 * docs/measurement.md), after fb_json_set_fraction_of_stream: "read_gbs"
 * (stream dot's GB/s, same device, same reference) and "fraction_of_read"
 * = gbs / read_gbs; null when unknown, and null with a "read_note" where
 * dot runs below FB_READ_CEILING_MIN_OF_TRIAD of the triad (then the dot
 * kernel, not memory, binds it: PoCL's dot was a third of its triad before
 * its items summed contiguous runs, and in cache it is 0.65 of it still). */
#define FB_READ_CEILING_MIN_OF_TRIAD 0.8
void fb_json_set_fraction_of_read(json_t *record, double gbs, double read_gbs);

/* Whether a dot of read_gbs is a read ceiling beside a triad of triad_gbs
 * (the rule above; the roofline's read roof follows it too). */
int fb_read_is_ceiling(double read_gbs, double triad_gbs);

/* After the fraction and the stream_reference are set: "cache_resident"
 * (working_set_bytes, else the model's bytes, within cache_bytes; null
 * when either is unknown) and a "roofline_note" when the working set is
 * cache resident, the reference triad includes cache reuse
 * (stream_reference.cache_reuse: its 3 arrays under 4x the cache; then
 * the fraction is no roofline fraction, and the note never calls the
 * triad a DRAM triad) or the fraction is above 1. */
void fb_json_judge_roofline(json_t *record, size_t cache_bytes);

#endif
