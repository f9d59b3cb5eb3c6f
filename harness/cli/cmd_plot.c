/* cmd_plot.c - `flowbench plot RESULTS [--out DIR]`: PNG and SVG figures of
 * a results file with the gnuplot scripts of plots/. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "../results/presentation/plot.h"
#include "../results/records/triads.h"

static const fb_option options[] = {
    {"out", "DIR", "write the figures, their .csv tables and replot.sh here (default: RESULTS's folder)", 0},
    {"scripts", "DIR", "the gnuplot scripts (default: ./plots, or plots/ of the source tree)", 0},
    {"gnuplot", "PROG", "the gnuplot program (default gnuplot)", 0},
    {"beside", "FIELD", "also plot GB/s against this numeric field (kernel_resources.occupancy, counters.derived.ipc)",
     0},
    {NULL, NULL, NULL, 0},
};

/* The folder of path ("." when it has none). */
static void folder_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static int run_plot(const fb_parsed *args)
{
    fb_status status = FB_OK;
    fb_results_set *set = NULL;
    fb_plot_summary summary;
    fb_triads triads = {0};
    struct stat st;
    char dir[PATH_MAX];
    fb_plot_options opt = {fb_cli_value(args, "out"), fb_cli_value(args, "scripts"), fb_cli_value(args, "gnuplot"),
                           fb_cli_value(args, "beside")};
    if (!opt.out_dir && stat(args->positional[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", args->positional[0]); /* a run folder holds its figures */
        opt.out_dir = dir;
    } else if (!opt.out_dir) {
        folder_of(args->positional[0], dir, sizeof dir);
        opt.out_dir = dir;
    }
    FB_CHECK(fb_results_load_run(args->positional, args->npositional, &set));
    FB_CHECK(fb_triads_pick(set, &triads)); /* every fraction and roofline of the run divides by one triad */
    FB_CHECK(fb_interrupt_at_once_begin()); /* plot.c and figures.c poll no signal: one ends the plot at once */
    status = fb_plot_results(set, &opt, stdout, &summary);
    fb_interrupt_at_once_end();
    FB_CHECK(status);
    printf("%d figure%s (PNG and SVG) in %s; %d plot type%s without data; redraw with %s/replot.sh\n", summary.figures,
           summary.figures == 1 ? "" : "s", opt.out_dir, summary.skipped, summary.skipped == 1 ? "" : "s", opt.out_dir);
fail:
    fb_triads_free(&triads);
    fb_results_set_free(set);
    return fb_comm_report(status);
}

const fb_command fb_cmd_plot = {
    .name = "plot",
    .summary = "draw PNG and SVG figures of a run's results files with gnuplot",
    .usage = "plot RESULTS... [--out DIR] [--scripts DIR] [--gnuplot PROG]",
    .description = "Draws every figure the results have data for, each as PNG and SVG. RESULTS\n"
                   "are results files of one run, or a folder standing for every *.jsonl in\n"
                   "it (the default suite's run folder; the figures then go there). Every\n"
                   "fraction and roofline divides by one stream triad per device (as report):\n"
                   "  stream      GB/s per stream kernel and device\n"
                   "  speedup     OpenMP time / device time per problem (matrix, or stream kernel)\n"
                   "  heatmap     GB/s over the two swept parameters of a sweep\n"
                   "  blockshape  GB/s per block shape (thread block XxY or BCSR KxK)\n"
                   "  variants    GFLOP/s of each kernel variant per matrix, peer libraries beside\n"
                   "  roofline    GFLOP/s against flops per model byte (log-log) per device: a\n"
                   "              point per kernel and problem under the triad and the peak\n"
                   "              GFLOP/s (device properties, or the best measured: the key\n"
                   "              says which); the solver's steps where they count flops\n"
                   "  fraction    fraction of the device's stream triad per matrix (bars)\n"
                   "  sizes       GB/s against problem size (matrix rows, grid cells, mesh\n"
                   "              nodes, n) per kernel, where it ran two or more sizes\n"
                   "  profile     performance profile of the kernels over the matrices they all ran\n"
                   "  beside      with --beside FIELD: GB/s of each kernel against a counter or\n"
                   "              resource field per device and matrix (e.g. occupancy)\n"
                   "  percell     time per cell per work-group shape or layout (grid families)\n"
                   "  steps       the solver's time split per backend\n"
                   "  scaling     speedup and parallel efficiency against MPI ranks, ideal line\n"
                   "              beside (solve --scaling, scripts/heat2d-scaling.sh)\n"
                   "A type the file has no data for is skipped with one line saying what it needs.\n"
                   "Bars carry whiskers, the value by the fastest and the slowest sample (each\n"
                   "such figure says so); a kernel has one colour in all\n"
                   "figures. Each figure's table (NAME.csv) and its title, labels and colours\n"
                   "(NAME.vars) are written beside it, with copies of the scripts used in\n"
                   "DIR/scripts/; the scripts read nothing else: restyle one, then run\n"
                   "DIR/replot.sh (no absolute paths: the folder can be moved). No text of the\n"
                   "results file reaches a shell or gnuplot command substitution. For the whole\n"
                   "file as one table use `flowbench export`. See docs/plots-and-compare.md.",
    .options = options,
    .min_positional = 1,
    .max_positional = 1024,
    .run = run_plot,
};
