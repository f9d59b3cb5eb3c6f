/* families.h - every benchmark family compiled in: the one registry the
 * commands, the sweep, the figures, the openmp backend's callers and the
 * NVRTC compile test read. A new family adds one line to families.c. */
#ifndef FB_FAMILIES_H
#define FB_FAMILIES_H

#include "bench/family.h"

int fb_family_count(void);
const fb_family *fb_family_at(int i);              /* NULL outside 0..count-1 */
const fb_family *fb_family_find(const char *name); /* NULL if unknown */

/* A family whose run lives in a layer above kernels/ (the solver's case
 * run, harness/solver/ns_family_run.c, which kernels/ may not call) takes
 * the place of the registered family of its name: the same descriptor
 * with its sweep slots filled. Called once at start, before any lookup;
 * returns -1 when no family has that name. */
int fb_family_replace(const fb_family *f);

/* Every device program of every family, in registry order, so variant
 * numbers are stable within a build (the NVRTC test shards by number). */
int fb_variant_count(void);
/* Fills v with variant i (0 <= i < fb_variant_count()); v->spec points into v. */
fb_status fb_variant_get(int i, fb_variant *v);

#endif
