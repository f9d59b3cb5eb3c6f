/* cache.h - the tuning cache: the best parameters found by `flowbench tune`
 * (or `solve --tune`), keyed by device fingerprint, kernel, precision and
 * the signature of the problem tuned on, stored as one JSON file users can
 * read, diff and ship.
 *
 * A signature (bench/signature.h; a family's fb_family.signature) is of
 * one kind, the kind of problem its family runs on: matrix, grid or mesh.
 * Signatures of different kinds are never equal and never near.
 *
 * Lookup falls back in a fixed order and says which it used:
 *   FB_CACHE_EXACT    same device, kernel, precision and signature
 *   FB_CACHE_NEAREST  same device, kernel and precision; the entry whose
 *                     signature (of the same kind) is nearest
 *                     (fb_signature_distance; for matrices, of the same
 *                     block size)
 *   FB_CACHE_NONE     nothing usable: the caller uses the kernel's default
 *
 * File format (docs/tuning.md): {"flowbench_tuning_cache": 1, "entries": [
 *   {"device": FINGERPRINT, "kernel": "csr-vector", "precision": "double",
 *    "signature": {"kind": "matrix", "rows", "nnz", "nnz_per_row_mean",
 *                  "nnz_per_row_stddev", "nnz_per_row_max", "block"},
 *    "params": {"WG_SIZE": 128, ...}, "median_s", "gbs", "matrix": NAME,
 *    "strategy", "evaluations", "date"} ...]}
 * with {"kind": "grid", "nx", "ny", "nz", "stretch"} or {"kind": "mesh",
 * "nodes", "edges", "degree_mean", "degree_stddev", "degree_max"} for the
 * other kinds. A signature without "kind" (files written before kinds) is
 * a matrix signature, except in an entry of kernel "ns", where `solve
 * --tune` stored its mesh as its pressure matrix's signature: that one is
 * read as the mesh signature it describes (rows = nodes, nnz = edges +
 * nodes, entries per row = neighbours + 1).
 */
#ifndef FB_TUNE_CACHE_H
#define FB_TUNE_CACHE_H

#include <jansson.h>
#include <stdio.h>

#include "../backends/backend.h"
#include "../bench/signature.h"
#include "../backends/target.h"
#include "../core/json_file.h"
#include "../core/status.h"

typedef enum fb_cache_match { FB_CACHE_NONE, FB_CACHE_NEAREST, FB_CACHE_EXACT } fb_cache_match;

typedef struct fb_tuning_cache fb_tuning_cache;

/* 0 for equal signatures, INFINITY for signatures of different kinds (and
 * matrices of different block sizes); else grows with
 *   matrix: |log| ratios of rows, nnz and row_mean, and the difference of
 *           the coefficients of variation (stddev / mean);
 *   grid:   |log| ratios of nx, ny, nz and stretch;
 *   mesh:   |log| ratios of nodes, edges and degree_mean, and the
 *           difference of the degrees' coefficients of variation.
 * docs/tuning.md says why. */
double fb_signature_distance(const fb_signature *a, const fb_signature *b);

/* "matrix", "grid", "mesh". */
const char *fb_signature_kind_name(fb_signature_kind kind);

/* Loads path; a missing file is an empty cache. FB_ERR_INPUT naming the
 * file (and the entry index) when it is not a tuning cache, or when a
 * cached parameter value breaks the rule of core/params.h (an integer
 * within +-FB_PARAM_VALUE_MAX), naming the parameter and the value. */
fb_status fb_cache_load(const char *path, fb_tuning_cache **out);

/* Loads path and forgets it: a command that stores into the cache after
 * its search refuses a corrupt cache before the search, not after it. */
fb_status fb_cache_check(const char *path);

/* The file a cache was loaded from, for messages ("the tuning cache" for
 * one built in memory). */
const char *fb_cache_source(const fb_tuning_cache *c);

/* Adds an entry, replacing one with the same device, kernel, precision
 * and equal signature. `entry` must hold "device", "kernel", "precision",
 * "signature" (as written by fb_signature_json) and "params"; the cache
 * takes a reference of its own. FB_ERR_USAGE if a field is missing. */
fb_status fb_cache_put(fb_tuning_cache *c, json_t *entry);

/* The best entry for the key (borrowed, valid until the next put/free),
 * with how it matched; NULL and FB_CACHE_NONE if nothing fits. */
const json_t *fb_cache_lookup(const fb_tuning_cache *c, const char *device, const char *kernel, int is_double,
                              const fb_signature *sig, fb_cache_match *match);

/* How near an entry's device is to the device asked for, best last. A
 * driver upgrade must not throw the tuning away, nor a second node of the
 * same kind make it start from the defaults (CLBlast's database falls back
 * the same way, device to architecture to vendor and type):
 *   FB_DEVICE_EXACT   the same fingerprint: device, vendor, driver, units
 *   FB_DEVICE_SAME    the same device (backend, name, vendor, compute
 *                     units) under another driver
 *   FB_DEVICE_ARCH    the same backend and architecture (CUDA: sm_XY;
 *                     elsewhere the device name stands for it)
 *   FB_DEVICE_VENDOR  the same backend, vendor and device type (cpu, gpu)
 * Entries written before the architecture and type were stored
 * ("device_arch", "device_type") match EXACT and SAME, and VENDOR on the
 * host (openmp: a cpu). */
typedef enum fb_device_match {
    FB_DEVICE_NONE,
    FB_DEVICE_VENDOR,
    FB_DEVICE_ARCH,
    FB_DEVICE_SAME,
    FB_DEVICE_EXACT
} fb_device_match;

typedef struct fb_cache_hit {
    const json_t *entry; /* borrowed (valid until the next put/free); NULL: nothing fits */
    fb_device_match device;
    fb_cache_match match; /* of the signature, among the entries of that device level */
    double distance;      /* fb_signature_distance from the query to the entry's signature */
} fb_cache_hit;

/* The entry of kernel and precision on the nearest device level, and
 * within it of the nearest signature (an equal one first). */
fb_cache_hit fb_cache_find(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel, int is_double,
                           const fb_signature *sig);

/* Sets the entry's "device" (the fingerprint), "device_arch" and
 * "device_type": what fb_cache_find falls back on. */
fb_status fb_cache_set_device(json_t *entry, const fb_device_info *d);

/* "exact", "device", "architecture", "vendor", "none". */
const char *fb_device_match_name(fb_device_match m);

/* An entry's device as fb_cache_find compares it: the fingerprint's
 * fields, and the architecture and type ("" where an older entry lacks
 * them; type "cpu" for the host backend). */
typedef struct fb_cache_device {
    char backend[16], name[FB_TEXT_LEN], vendor[FB_TEXT_LEN], driver[FB_TEXT_LEN], units[16];
    char arch[FB_TEXT_LEN], type[8];
} fb_cache_device;

/* Entries in the cache. */
int fb_cache_size(const fb_tuning_cache *c);

/* Writes the cache to path atomically (temporary file, then rename), so an
 * interrupted save never leaves a half-written cache. Creates the parent
 * directory if missing. */
fb_status fb_cache_save(const fb_tuning_cache *c, const char *path);

/* Puts one entry into the cache file at path as it is now: under the
 * file's lock it is read again, the entry put in (replacing one of the
 * same key) and the file replaced, so tune runs storing into one cache at
 * once keep every entry. *size (if not NULL): entries afterwards. */
fb_status fb_cache_store(const char *path, json_t *entry, int *size);

void fb_cache_free(fb_tuning_cache *c);

json_t *fb_signature_json(const fb_signature *s);
const char *fb_cache_match_name(fb_cache_match m); /* "exact", "nearest", "none" */

/* ---- the cache as something to ship: merge the caches of many nodes
 * into one, and export it for an application (a C header with its own
 * lookup, or a versioned JSON database with a schema,
 * docs/tuning-db.schema.json). docs/tuning.md, "Shipping your settings". */

typedef struct fb_cache_merge_counts {
    int added;    /* keys only an input had */
    int replaced; /* keys an input had faster than the output */
    int kept;     /* keys where the output's point stayed (faster, or as fast) */
} fb_cache_merge_counts;

/* Merges the caches at inputs into the cache file at out (created when
 * missing), under out's lock as fb_cache_store: for each key (device,
 * kernel, precision, signature) the point of smallest median_s stays,
 * with "from" naming the file it came from; each disagreement (another
 * point for the same key) is said on `say`. An input that is not a
 * tuning cache of this version is refused, naming it, before anything
 * is written. */
fb_status fb_cache_merge_files(const char *out, const char *const *inputs, int ninputs, FILE *say,
                               fb_cache_merge_counts *counts);

/* The cache as a C header (C11 and C++17, no dependency): static tables
 * and flowbench_tuned(device, arch, vendor, type, kernel, precision,
 * size), which returns the -D defines for the nearest device level and
 * problem size, or NULL for the kernel's defaults. */
fb_status fb_cache_export_header(const fb_tuning_cache *c, const char *path);

/* The cache as the versioned JSON database ({"flowbench_tuning_db": 1}). */
fb_status fb_cache_export_json(const fb_tuning_cache *c, const char *path);

#endif
