/* user_kernel.h - a user's own kernel file, benchmarked like the built-ins
 * (docs/kernels.md, "Your own kernel").
 *
 * A user kernel is a __kernel function in an OpenCL C file of the user's
 * that takes the argument list of one of its family's kernels, its
 * template ("like"). The family runs it exactly as it runs the template:
 * the same data, launch geometry, constraint check, reference check and
 * byte/flop model; only the program is the user's file. Registered (by
 * the command line's --kernel-file or a suite's kernel_file:), it is an
 * extra kernel of its family for the rest of the process, after the
 * built-ins and the peers, so the sweep, the tuner, the records, plot and
 * compare treat it as any kernel. Its records say which file it was
 * ("kernel_file": path, content hash, template).
 *
 * Its parameter axes are the template's, in the template's order (their
 * meaning to the geometry and the constraints stays; a value list the user
 * gives replaces the declared one), then the user's own: -D defines whose
 * first value is the default. Optional: constraints, tiny expressions over
 * the axes and the device (grammar below), and a global divisor: the
 * template's number of work-groups in dimension 0 divided by one
 * parameter's value, rounded up, for a kernel whose work-items handle
 * that many rows or cells each.
 *
 * Constraint grammar (one comparison; integers in 64 bits):
 *   constraint := sum OP sum            OP: == != < <= > >=
 *   sum        := product (('+' | '-') product)*
 *   product    := atom (('*' | '/' | '%') atom)*
 *   atom       := INTEGER | NAME | '(' sum ')'
 *   NAME       := a parameter of the kernel, or a fact of the device:
 *                 max_work_group_size, local_mem_bytes, compute_units,
 *                 subgroup_size, real_bytes (8 double, 4 single)
 * A device fact the device does not report (0) makes the constraint hold,
 * as the built-ins skip a limit they cannot read, even as a divisor. Any
 * other division by zero fails the point. A constraint that does not hold prunes the point, with the
 * constraint and the values in the reason.
 *
 * OpenCL C has no OpenMP twin: on the openmp backend a user kernel is
 * refused by the check (a usage error alone, pruned in a sweep).
 */
#ifndef FB_BENCH_USER_KERNEL_H
#define FB_BENCH_USER_KERNEL_H

#include <jansson.h>
#include <string.h> /* FB_USER_KERNEL_ROW */

#include "family.h"

#define FB_USER_KERNEL_MAX 16     /* per process, all families */
#define FB_USER_MAX_CONSTRAINTS 8 /* per kernel */
#define FB_USER_NAME_LEN 64

typedef struct fb_user_kernel {
    const fb_family *family;
    char name[FB_USER_NAME_LEN]; /* the __kernel function, and the records' kernel name */
    char like[FB_USER_NAME_LEN]; /* the template's name */
    int like_kernel;             /* the template's index in the family */
    char path[1024];             /* as given (relative to a suite: joined): the #line name */
    char *text;                  /* the file, whole */
    char hash[24];               /* 16 hex digits of the text's FNV-1a */
    char summary[1300];
    char where[600];        /* where it was declared first: "--kernel-file", "x.suite: line 12" */
    int nparams, ntemplate; /* params[0 .. ntemplate) are the template's */
    fb_param_axis params[FB_MAX_PARAMS];
    char names[FB_MAX_PARAMS][FB_USER_NAME_LEN]; /* storage of the user's axis names */
    int divisor;                                 /* axis index of the global divisor, or -1 */
    int nconstraints;
    char constraints[FB_USER_MAX_CONSTRAINTS][160];
} fb_user_kernel;

/* One item of a declaration and where it was given, for messages: what is
 * wrong with it is said as "WHERE: ..." ("--param: ...", "cases/x.suite:
 * line 14: ..."). */
typedef struct fb_user_param_decl {
    const char *name;
    const int *values;
    int nvalues;
    const char *where;
} fb_user_param_decl;

typedef struct fb_user_text_decl {
    const char *text, *where;
} fb_user_text_decl;

typedef struct fb_user_kernel_decl {
    fb_user_text_decl file, name, like; /* like.text NULL: the family's first kernel */
    int nparams;
    fb_user_param_decl params[FB_MAX_PARAMS];
    int nconstraints;
    fb_user_text_decl constraints[FB_USER_MAX_CONSTRAINTS];
    fb_user_text_decl divisor; /* text NULL: none */
} fb_user_kernel_decl;

/* Reads the file, checks the declaration and adds the kernel to family f;
 * *kernel is its index in the family. A second declaration of the same
 * name with the same file content, template, axes, constraints and
 * divisor is the same kernel (a suite's cases may share one); any other is
 * refused. FB_ERR_INPUT naming the file when it cannot be read;
 * FB_ERR_USAGE "WHERE: why" for a family that takes no user kernels, an
 * unknown or unfit template, a name that is no C identifier, collides
 * with a built-in kernel or is not a __kernel of the file, an axis name
 * the build passes itself (REAL, BLOCK_SIZE, GROUP_ITEMS), too many axes
 * or values, a constraint that does not parse, a divisor that is no axis. */
fb_status fb_user_kernel_register(const fb_family *f, const fb_user_kernel_decl *d, int *kernel);

/* How many user kernels family f has, and the i-th (0 <= i < count). */
int fb_user_kernel_count(const fb_family *f);
const fb_user_kernel *fb_user_kernel_at(const fb_family *f, int i);

/* The family's view of a user kernel (name, summary, axes, source path). */
fb_family_kernel fb_user_kernel_view(const fb_user_kernel *uk);

/* Whether point p of uk can run on dev, before the template's own check:
 * FB_ERR_USAGE on the openmp backend and when a constraint does not hold
 * (or divides by zero), naming the kernel and the constraint. */
fb_status fb_user_kernel_check(const fb_user_kernel *uk, const fb_param_point *p, const fb_device_info *dev,
                               int is_double);

/* Applies the global divisor (if any) to the template's launch l: the
 * work-groups of dimension 0 divided by the divisor's value, rounded up. */
void fb_user_kernel_divide(const fb_user_kernel *uk, const fb_param_point *p, fb_launch *l);

/* The -D defines of the user's own axes (not the template's: the family
 * passes those as it does for the template), values printed into
 * values[i]; returns how many (at most FB_MAX_PARAMS). */
int fb_user_kernel_defines(const fb_user_kernel *uk, const fb_param_point *p, fb_define *out, char (*values)[16]);

/* The record's "kernel_file": {"path", "hash", "like"[, "global_divisor"]}. */
json_t *fb_user_kernel_json(const fb_user_kernel *uk);

/* A family's kernel row for uk, over a copy of its template's row *d: the
 * fields every family's row has (name, summary, source, source_text,
 * nparams, params, user) become uk's. A macro because each family has its
 * own row struct (spmv_kernels.h, heat2d.h, fv_surface.h). */
#define FB_USER_KERNEL_ROW(d, uk)                                                                                      \
    do {                                                                                                               \
        (d)->name = (uk)->name;                                                                                        \
        (d)->summary = (uk)->summary;                                                                                  \
        (d)->source = (uk)->path;                                                                                      \
        (d)->source_text = (uk)->text;                                                                                 \
        (d)->nparams = (uk)->nparams;                                                                                  \
        memcpy((d)->params, (uk)->params, sizeof(d)->params);                                                          \
        (d)->user = (uk);                                                                                              \
    } while (0)

/* Forgets every user kernel (tests). */
void fb_user_kernel_forget_all(void);

#endif
