/* json_index.h - look records up by several strings at once in constant
 * time: an index is a tree of jansson objects, one level per key, so no
 * separator can make two keys collide and no key is too long. Readers of
 * large inputs (results records, suite cases, cache entries) index by
 * their keys with it instead of scanning what they have read so far.
 *
 *     const char *key[] = {run_id, device, precision};
 *     if (!fb_json_index_get(refs, key, 3)) FB_CHECK(fb_json_index_set(refs, key, 3, json_integer(i)));
 */
#ifndef FB_JSON_INDEX_H
#define FB_JSON_INDEX_H

#include <jansson.h>

#include "status.h"

/* The value stored under keys[0..n-1], or NULL. */
json_t *fb_json_index_get(const json_t *index, const char *const *keys, int n);

/* Stores value (stealing the reference, as json_object_set_new does; NULL
 * counts as out of memory) under keys[0..n-1], replacing what was there.
 * FB_ERR_NOMEM. */
fb_status fb_json_index_set(json_t *index, const char *const *keys, int n, json_t *value);

/* The integer under keys, or -1 when there is none. */
long long fb_json_index_int(const json_t *index, const char *const *keys, int n);

#endif
