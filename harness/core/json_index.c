/* json_index.c - nested jansson objects as a multi-key index (json_index.h). */
#include "json_index.h"

json_t *fb_json_index_get(const json_t *index, const char *const *keys, int n)
{
    const json_t *at = index;
    for (int i = 0; i < n && at; ++i)
        at = json_object_get(at, keys[i]);
    return (json_t *)at;
}

/* The object under key in obj, made if there is none; NULL if out of memory. */
static json_t *level(json_t *obj, const char *key)
{
    json_t *next = json_object_get(obj, key);
    if (next) return next;
    next = json_object();
    return next && json_object_set_new(obj, key, next) == 0 ? next : NULL;
}

fb_status fb_json_index_set(json_t *index, const char *const *keys, int n, json_t *value)
{
    fb_status status = FB_OK;
    json_t *at = index;
    for (int i = 0; i + 1 < n && at; ++i)
        at = level(at, keys[i]);
    if (!value || !at) FB_FAIL(FB_ERR_NOMEM, "out of host memory indexing");
    if (json_object_set_new(at, keys[n - 1], value) != 0) {
        value = NULL; /* json_object_set_new released it */
        FB_FAIL(FB_ERR_NOMEM, "out of host memory indexing");
    }
    return FB_OK;
fail:
    json_decref(value);
    return status;
}

long long fb_json_index_int(const json_t *index, const char *const *keys, int n)
{
    const json_t *v = fb_json_index_get(index, keys, n);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}
