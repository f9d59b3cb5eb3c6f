/* user_kernel_cli.h - a user's kernel file on the command line: the options
 * spmv, grid and tune share, and their reading into a registration
 * (bench/user_kernel.h; docs/kernels.md, "Your own kernel").
 *
 *   --kernel-file FILE --kernel NAME [--like K] [--param NAME=V1,V2,...]...
 *   [--constraint EXPR]... [--global-divisor NAME]
 *
 * With --kernel-file every --param declares an axis of the file's kernel
 * (the template's, with these values, or one of its own; the first value
 * is the default, which is what a single run uses).
 */
#ifndef FB_CLI_USER_KERNEL_H
#define FB_CLI_USER_KERNEL_H

#include "bench/family.h"
#include "cli.h"

#define FB_CLI_USER_KERNEL_OPTIONS                                                                                     \
    {"kernel-file", "FILE",                                                                                            \
     "your own kernel: an OpenCL C file whose __kernel --kernel NAME takes the argument list of --like; its "          \
     "--param NAME=V1,V2,... declare its parameters (docs/kernels.md)",                                                \
     0},                                                                                                               \
        {"like", "K",                                                                                                  \
         "with --kernel-file: the family's kernel whose argument list, launch and check it takes (default: the "       \
         "family's first)",                                                                                            \
         0},                                                                                                           \
        {"constraint", "EXPR", "with --kernel-file: run only the points where EXPR holds, e.g. 'WG_SIZE % ROWS == 0'", \
         1},                                                                                                           \
    {                                                                                                                  \
        "global-divisor", "NAME",                                                                                      \
            "with --kernel-file: divide the work-groups of dimension 0 by parameter NAME (items that do NAME rows "    \
            "each)",                                                                                                   \
            0                                                                                                          \
    }

/* Registers the kernel file the options name in family f, if there is one
 * (*kernel, when not NULL: its index in the family; -1 without
 * --kernel-file). FB_ERR_USAGE naming the option: --like, --constraint or
 * --global-divisor without --kernel-file (and --param, where params_need_file:
 * tune's --param only declares a file's axes), --kernel-file without
 * --kernel, a --param that is not NAME=V1,V2,...; and what the
 * registration refuses (FB_ERR_INPUT for a file that cannot be read). */
fb_status fb_cli_user_kernel(const fb_parsed *args, const fb_family *f, int params_need_file, int *kernel);

/* One run of a kernel (a user's, or a built-in: user NULL) on device begins, in a
 * guarded process (core/guard.h): should it crash or not return within a
 * minute plus four times the measurement's budget, the guard names it
 * ("kernel NAME of FILE (spmv on opencl:0.0)") and how it ended, exit 3.
 * fb_guard_done ends it. */
void fb_cli_guard_run(const char *command, const char *kernel, const struct fb_user_kernel *user, const char *device,
                      double budget_s);

#endif
