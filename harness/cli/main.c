/* main.c - `flowbench COMMAND ...`: dispatches to the command table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/comm.h"
#include "core/contention.h"
#include "core/guard.h"
#include "core/interrupt.h"
#include "core/version.h"
#include "results/records/results.h"
#include "solver/ns_family_run.h"

static const fb_command *const commands[] = {
    &fb_cmd_devices, &fb_cmd_stream,  &fb_cmd_matrix, &fb_cmd_spmv,   &fb_cmd_grid,  &fb_cmd_sweep, &fb_cmd_tune,
    &fb_cmd_export,  &fb_cmd_compare, &fb_cmd_plot,   &fb_cmd_report, &fb_cmd_solve, &fb_cmd_merge, &fb_cmd_history,
};

#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void print_usage(FILE *f)
{
    fprintf(f, "flowbench %s - benchmark and autotune CFD kernels on OpenMP, OpenCL and CUDA\n\n", FB_VERSION);
    fprintf(f, "usage: flowbench COMMAND [OPTIONS]\n       flowbench COMMAND --help\n\ncommands:\n");
    for (int i = 0; i < NCOMMANDS; ++i)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nexit status: 0 success, 1 failed check or regression, 2 usage or input error,\n"
               "3 runtime failure (backend, kernel build or launch, memory, i/o), 130 interrupted\n");
}

static const fb_command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; ++i)
        if (strcmp(commands[i]->name, name) == 0) return commands[i];
    return NULL;
}

/* Runs cmd on the ranks a launcher started (one rank without one).
 * Commands that do not divide their work are refused on several ranks:
 * each would run the whole command and race for the same files. */
static int run_on_ranks(const fb_command *cmd, const fb_parsed *parsed, int *argc, char ***argv)
{
    fb_status status = fb_comm_init(argc, argv);
    if (status != FB_OK) return fb_comm_report(status);
    int rc;
    if (fb_comm_size() > 1 && !cmd->ranks) {
        if (fb_comm_rank() == 0)
            fprintf(stderr,
                    "flowbench: %s does not run on several ranks (launched as %d): run it without mpirun/srun; "
                    "solve, grid and sweep divide their work among ranks\n",
                    cmd->name, fb_comm_size());
        rc = 2;
    } else {
        rc = cmd->run(parsed);
    }
    fb_comm_finalize();
    return rc;
}

int main(int argc, char **argv)
{
    fb_ns_family_attach(); /* the solver's case run joins the registry: sweep and tune drive it */
    if (argc < 2) {
        fprintf(stderr, "flowbench: no command given\n\n");
        print_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        if (argc > 2 && find_command(argv[2])) {
            fb_cli_print_help(find_command(argv[2]));
            return 0;
        }
        print_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("flowbench %s (%s)\n", FB_VERSION, fb_git_revision());
        return 0;
    }
    const fb_command *cmd = find_command(argv[1]);
    if (!cmd) {
        fprintf(stderr, "flowbench: unknown command '%s' (see flowbench --help)\n", argv[1]);
        return 2;
    }
    fb_parsed parsed;
    int help = 0;
    fb_status status = fb_cli_parse(cmd, argc - 2, argv + 2, &parsed, &help);
    if (status != FB_OK) return fb_comm_report(status);
    if (help) {
        fb_cli_print_help(cmd);
        return 0;
    }
    fb_install_interrupt_handler();
    /* the guard only waits: the child decides the wait policy, at the moment its work starts */
    if (cmd->guarded && fb_guard_wanted()) return fb_guard_command(cmd->name, argv);
    if (cmd->measures) fb_wait_policy_decide(argv); /* may re-execute with passive waiting */
    fb_guard_child_init();
    fb_results_set_command_line(argc, argv);
    return run_on_ranks(cmd, &parsed, &argc, &argv);
}
