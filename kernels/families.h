/* families.h - every benchmark family compiled in: the one registry the
 * commands, the sweep, the figures, the openmp backend's callers and the
 * NVRTC compile test read. A new family adds one line to families.c. */
#ifndef FB_FAMILIES_H
#define FB_FAMILIES_H

#include "bench/family.h"

int fb_family_count(void);
const fb_family *fb_family_at(int i);              /* NULL outside 0..count-1 */
const fb_family *fb_family_find(const char *name); /* NULL if unknown */

/* Every device program of every family, in registry order, so variant
 * numbers are stable within a build (the NVRTC test shards by number). */
int fb_variant_count(void);
/* Fills v with variant i (0 <= i < fb_variant_count()); v->spec points into v. */
fb_status fb_variant_get(int i, fb_variant *v);

#endif
