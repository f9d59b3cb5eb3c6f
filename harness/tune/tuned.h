/* tuned.h - `--tuned`: the parameters a kernel runs with when the tuning
 * cache is asked, shared by `flowbench spmv`, `sweep` and `tune`. */
#ifndef FB_TUNE_TUNED_H
#define FB_TUNE_TUNED_H

#include <jansson.h>

#include "../core/params.h"
#include "cache.h"

/* Looks up (device, kernel, precision, the matrix record's signature) and
 * sets *point: the cached parameters (axes the entry lacks keep their
 * default), or every default when nothing matches. *tuning (new reference)
 * says which: {"source": "exact"|"nearest"|"default", "matrix": the entry's
 * matrix, "params": the entry's params}. FB_ERR_INPUT if the matrix record
 * has no signature. */
fb_status fb_tuned_point(const fb_tuning_cache *c, const fb_device_info *dev, const char *kernel,
                         const fb_param_axis *axes, int naxes, int is_double, const json_t *matrix,
                         fb_param_point *point, json_t **tuning);

/* "exact match from gen:cube:29" / "nearest signature (gen:cube:57)" /
 * "no cache entry: the defaults" for messages. */
void fb_tuning_text(const json_t *tuning, char *buf, size_t len);

#endif
