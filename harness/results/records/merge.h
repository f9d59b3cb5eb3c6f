/* merge.h - joins results files: the shares of one sweep (`sweep --shard
 * I/N` in a job array, the ranks of an MPI sweep) into one file.
 *
 * Every input is read and checked before anything is written, so a refused
 * merge writes nothing:
 *  - each header must describe the same sweep as the first one read: the
 *    same "command", "suite" and "sweep" options (its "shard" aside, which
 *    is what tells the shares apart); FB_ERR_INPUT naming both files and
 *    the field that differs;
 *  - no "sweep_key" may be recorded twice, in one input or in two:
 *    FB_ERR_INPUT naming both places and the key (a share run twice, or
 *    two shares of different splits, would otherwise count twice);
 *  - a line that is not JSON at all (a cut write) is skipped with a warning,
 *    as the readers do; a JSON record that breaks the schema refuses its
 *    file (reader.h's rules and message);
 *  - an input a flowbench is still writing is refused (results.h).
 * Lines are copied as they are, so every record keeps its run_id, host,
 * rank or shard; a header is written once per run id. A record with no
 * "sweep_key" (spmv --out, solve --out) is written once however many
 * inputs hold it: two are the same record when they say the same thing,
 * every field and value (run_id and timestamp included) alike, in any
 * order; two measurements, even of one configuration in one run, differ
 * in their samples and times, so only a copy is dropped.
 */
#ifndef FB_RESULTS_MERGE_H
#define FB_RESULTS_MERGE_H

#include "results.h"

typedef struct fb_merge_summary {
    int inputs;
    int headers;    /* written */
    int records;    /* written */
    int present;    /* fb_merge_into: records the destination held already */
    int duplicates; /* records without a sweep_key held by more than one input (or twice): written once */
} fb_merge_summary;

/* `flowbench merge OUT IN...`: OUT is written whole (core/files.h: a
 * temporary file renamed over it when complete). OUT may be one of the
 * inputs (to add shares to it); an OUT that exists and is not an input is
 * refused (FB_ERR_USAGE), as replacing it would lose what it holds. Says
 * on stderr which shares of an I/N split no input holds. */
fb_status fb_merge_files(const char *out, const char *const *inputs, int n, fb_merge_summary *sum);

/* The end of an MPI sweep (and the start of the next, for shares a killed
 * run left): appends to dest, the open results file dest_path, the lines
 * of inputs it does not hold yet. A record counts as held when dest has a
 * record of the same run_id and sweep_key, so finishing a merge that was
 * cut short appends the rest, never a copy; the duplicate check is among
 * the records appended. Every line of an input must be of a run whose
 * header dest holds (the ranks of an MPI sweep write in rank 0's run):
 * FB_ERR_INPUT for a file of another run, as one an earlier sweep left
 * beside dest. One fsync at the end. */
fb_status fb_merge_into(fb_results *dest, const char *dest_path, const char *const *inputs, int n,
                        fb_merge_summary *sum);

#endif
