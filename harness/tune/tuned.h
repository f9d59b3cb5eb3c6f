/* tuned.h - `--tuned`: the parameters a kernel runs with when the tuning
 * cache is asked, shared by `flowbench spmv`, `grid`, `sweep`, `solve` and
 * `tune`. */
#ifndef FB_TUNE_TUNED_H
#define FB_TUNE_TUNED_H

#include <stdio.h>

#include <jansson.h>

#include "../core/params.h"
#include "cache.h"

/* Looks up (device, kernel, precision, the problem's signature: a matrix,
 * a grid or the solver's mesh, bench/signature.h) and sets *point: the cached parameters (axes the entry lacks keep
 * their default), or every default when nothing matches. *tuning (new reference) says which: {"source":
 * "exact"|"nearest"|"default", "signature": "matrix"|"grid"|"mesh", and from the entry its problem's name ("matrix" or
 * "grid", as the entry names it) and "params"}. FB_ERR_INPUT naming the
 * cache file when the entry holds a value outside the kernel's space (an
 * edited cache, or a kernel file declared with other values since). */
fb_status fb_tuned_point(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel,
                         const fb_param_axis *axes, int naxes, int is_double, const fb_signature *sig,
                         fb_param_point *point, json_t **tuning);

/* --tuned of a command that runs one configuration (`grid`): loads the
 * cache (cache_option, else the default path), fb_tuned_point, adds
 * "cache" to *tuning and says on `say` which point it took:
 * "--tuned: tuned for this grid signature (33x33): BLOCK_X=8 ... (cache PATH)". */
fb_status fb_tuned_lookup(const char *cache_option, const fb_device_info *dev, const char *kernel,
                          const fb_param_axis *axes, int naxes, int is_double, const fb_signature *sig,
                          fb_param_point *point, json_t **tuning, FILE *say);

/* "tuned for this matrix signature (gen:cube:29)" / "tuned for the nearest
 * grid signature in the cache (33x33)" / "no tuning cache entry fits: the
 * kernel's defaults" for messages. */
void fb_tuning_text(const json_t *tuning, char *buf, size_t len);

/* A --tuned record whose median falls outside the interval tune's
 * confirmation expected of a fresh process (its "tuning"'s expected_s: the
 * same device and problem only) is unstable, with that reason: one
 * process cannot tell its mode, the stored interval can. */
void fb_tuned_judge(json_t *rec);

#endif
