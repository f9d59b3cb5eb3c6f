/* cmd_merge.c - `flowbench merge OUT IN...`: the results files of one
 * sweep's shares (sweep --shard I/N, a job array) joined into one
 * (results/records/merge.h). */
#include <stdio.h>

#include "cli.h"
#include "../results/records/merge.h"

static const fb_option options[] = {
    {NULL, NULL, NULL, 0},
};

static int run_merge(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_merge_summary sum;
    const char *out = args->positional[0];
    char copies[64] = "";
    FB_CHECK(fb_merge_files(out, args->positional + 1, args->npositional - 1, &sum));
    if (sum.duplicates) snprintf(copies, sizeof copies, "; %d duplicate record(s) written once", sum.duplicates);
    fprintf(stderr, "merge: %s: %d record(s) and %d header(s) from %d file(s)%s\n", out, sum.records, sum.headers,
            sum.inputs, copies);
fail:
    return fb_comm_report(status);
}

const fb_command fb_cmd_merge = {
    .name = "merge",
    .summary = "join the results files of a sweep's shares (sweep --shard I/N) into one, refusing duplicates",
    .usage = "merge OUT IN...",
    .description = "Joins results files, as the shares of one sweep leave them (sweep --shard I/N in\n"
                   "a job array; the .rank-R files of an MPI sweep that was killed, though sweep\n"
                   "--resume joins those itself), into OUT. Lines are copied as they are: every\n"
                   "record keeps its host, shard or rank, and run; a run's header is written once.\n"
                   "Everything is checked before OUT is written (written whole: a refused merge\n"
                   "leaves OUT as it was), and refused with one line (exit 2):\n"
                   "  - a sweep_key recorded twice (in one file or in two), naming both places;\n"
                   "  - a file whose header belongs to another sweep (another suite, command, or\n"
                   "    --backend/--tuned/--cache/--counters/--repeat), naming the field;\n"
                   "  - a file a flowbench is still writing;\n"
                   "  - an OUT that exists and is not among the inputs (name it among them to add\n"
                   "    to it) and a file given twice.\n"
                   "A record with no sweep_key (spmv --out, solve --out) that several inputs hold,\n"
                   "the same in every field (run id and time included), is written once.\n"
                   "Lines that are not JSON at all (a cut write) are skipped with a warning. The\n"
                   "shares of an I/N split that no input holds are named on stderr. At most 1023\n"
                   "inputs (merge the merged files for more). See docs/scaling.md.",
    .options = options,
    .min_positional = 2,
    .max_positional = 1024,
    .run = run_merge,
};
