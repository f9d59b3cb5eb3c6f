/* grow.h - the one growth rule of the arrays appended to one element at a
 * time (results, plans, logs, caches). */
#ifndef FB_CORE_GROW_H
#define FB_CORE_GROW_H

#include <stdlib.h>

/* array with room for `need` elements of `size` bytes, its length doubled
 * (from 64) until it has, so that appending n elements copies O(n) of
 * them; NULL, with array and *cap unchanged, when out of memory. */
static inline void *fb_grow(void *array, int *cap, int need, size_t size)
{
    if (need <= *cap) return array;
    int longer = *cap > 0 ? 2 * *cap : 64;
    while (longer < need)
        longer *= 2;
    void *grown = realloc(array, (size_t)longer * size);
    if (grown) *cap = longer;
    return grown;
}

#endif
