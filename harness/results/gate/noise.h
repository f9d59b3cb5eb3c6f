/* noise.h - a machine's A/A noise floor, learned and stored.
 *
 * Two runs of the same code on one machine do not give the same median:
 * clocks, caches, page placement, neighbours and thread placement change
 * between runs, and no run's own samples show it. `compare --learn-noise
 * BASE NEW`, given two such runs (A/A), stores per configuration the size
 * of the change it saw; later comparisons on the same machine read the
 * floor back and call a change inside it INCONCLUSIVE, not SLOWER.
 *
 * The size of a change is symmetric: max(new/base, base/new) - 1, so +25%
 * and -20% are the same distance. A configuration's floor is
 * FB_NOISE_MARGIN x the larger of the largest A/A change stored for it and
 * the upper decile of those of its device group (same benchmark, backend
 * and device: they share the machine's noise; in a group of 10 or fewer
 * the decile is the group's largest). The largest of k A/A changes is
 * exceeded by the next one with probability 1/(k + 1); the margin and the
 * group cover the part of the tail that k comparisons have not seen of one
 * configuration. Why the decile and not the median: on a machine whose
 * state flips between whole runs (the 2-core VM's OpenMP, docs/plots-and-
 * compare.md), a flip shows on any configuration, and the median of five
 * comparisons per configuration missed it for some, which then gave false
 * SLOWER verdicts.
 *
 * What the floor is used for is compare's to say (results/gate/compare.h): a
 * floor above FB_COMPARE_FLOOR_CAP does not gate ("cannot gate on this
 * machine"), and an A/A pair with a contended or unstable run is not
 * handed here at all, so a busy moment never teaches the floor.
 *
 * The store is one JSON file ($FLOWBENCH_NOISE_FILE, else
 * $FLOWBENCH_CACHE_DIR/noise.json, else $XDG_CACHE_HOME/flowbench/noise.json,
 * else ~/.cache/flowbench/noise.json):
 *   {"flowbench_noise": 1, "machines": {MACHINE: {"comparisons": k,
 *    "updated": ISO time, "configs": {KEY: {"n": k, "max": x, "rms": r}}}}}
 * MACHINE is the CPU model and the device names of a results file's
 * headers; KEY is compare's configuration key (what was measured).
 */
#ifndef FB_GATE_NOISE_H
#define FB_GATE_NOISE_H

#include <jansson.h>
#include <stddef.h>

#include "../records/reader.h"
#include "compare.h"

#define FB_NOISE_MARGIN 1.5
#define FB_NOISE_GROUP_QUANTILE 0.9

/* `given` (--noise-file) if not NULL, else the default path above. */
void fb_noise_path(const char *given, char *buf, size_t len);

/* "cpu model|backend:device|..." of the set's headers ("" without one). */
void fb_noise_machine(const fb_results_set *set, char *buf, size_t len);

/* The stored configurations of a machine (a new reference; an empty
 * object when the file or the machine is not there) and how many A/A
 * comparisons taught them. A file that is not a noise store is an error. */
fb_status fb_noise_load(const char *path, const char *machine, json_t **configs, int *comparisons);

/* KEY -> {"floor": x, "n": k} for every stored configuration (the rule
 * above): what compare's options.noise takes (a new reference). */
json_t *fb_noise_floors(const json_t *configs);

/* Adds one A/A comparison (changes: KEY -> symmetric change) to the
 * machine's entry, under the file's lock (re-read, merge, replace);
 * *stored (if not NULL): the configurations written. A machine entry that
 * is not as written here (no non-empty "configs" object, no count of
 * comparisons, a configuration without "n", "max", "rms") is an error
 * naming the file and the machine, in fb_noise_load too. */
fb_status fb_noise_learn(const char *path, const char *machine, const json_t *changes, size_t *stored);

/* The machine's floors from path into opt->noise (fb_noise_floors), and
 * one line on say: how many comparisons taught them and how many are above
 * the cap, or that none were learned here. */
fb_status fb_noise_use(const char *path, const char *machine, fb_compare_options *opt, FILE *say);

/* After a compare run with opt->learned: its quiet pairs' changes into the
 * machine's entry (fb_noise_learn) and one line on say; a pair with a
 * contended or unstable run teaches nothing (compare.c left it out), and
 * when every pair was such the store is not touched. */
fb_status fb_noise_learn_compared(const char *path, const char *machine, const fb_compare_options *opt,
                                  const fb_compare_summary *s, FILE *say);

#endif
