/* cmdline.h - a command's options declared once, in a table, and read from
 * its command line: the parser, the accessors by name, the typed value
 * readers and the arguments that run the same command again in a new
 * process. `--help` (cli/cli.h) prints the same table, so help cannot drift
 * from what is accepted. The prefix fb_cli_ says "command line"; every
 * command of harness/cli/ reads its options through here, and nothing
 * here knows a command.
 *
 * Errors are FB_ERR_USAGE with one line naming the option and the value:
 * "--size: 'ten' is not a non-negative integer". */
#ifndef FB_CORE_CMDLINE_H
#define FB_CORE_CMDLINE_H

#include <stddef.h>
#include <stdio.h>

#include "files.h"
#include "params.h"
#include "status.h"

#define FB_CLI_MAX_VALUES 64
#define FB_CLI_MAX_OPTIONS 64 /* per command: fb_cli_parse refuses a table with more */

typedef struct fb_option {
    const char *name;    /* long name without dashes: "size" */
    const char *metavar; /* "N" for an option with a value, NULL for a flag */
    const char *help;    /* one line; mention the default */
    int repeatable;      /* may be given more than once */
} fb_option;

typedef struct fb_parsed {
    const fb_option *options;
    int noptions;
    int count[FB_CLI_MAX_OPTIONS];                             /* how many times each option was given */
    const char *value[FB_CLI_MAX_OPTIONS];                     /* last value of each option */
    const char *values[FB_CLI_MAX_OPTIONS][FB_CLI_MAX_VALUES]; /* every value of a repeatable option */
    const char *positional[1024];                              /* merge takes a job array's files */
    int npositional;
} fb_parsed;

typedef struct fb_command {
    const char *name;
    const char *summary;      /* one line for `flowbench --help` */
    const char *usage;        /* "devices [--json]" */
    const char *description;  /* paragraph(s) for `flowbench devices --help` */
    const fb_option *options; /* terminated by a NULL name */
    int min_positional, max_positional;
    int (*run)(const fb_parsed *args); /* returns the exit code */
    int ranks;    /* 1: runs on several MPI ranks (core/comm.h); else refused under a launch of more than one */
    int measures; /* 1: times work on this host's CPUs: the OpenMP wait policy is decided before it starts */
    int guarded;  /* 1: runs kernels, a user's among them, in a guarded child process (core/guard.h) */
} fb_command;

/* Parses argv (after the command name). On error prints one line and
 * returns FB_ERR_USAGE; `--help` sets *help_requested. */
fb_status fb_cli_parse(const fb_command *cmd, int argc, char **argv, fb_parsed *out, int *help_requested);

/* Accessors by option name. */
int fb_cli_flag(const fb_parsed *p, const char *name);
/* The first of names (NULL-terminated; NULL itself: none) given on the
 * command line, or NULL: for refusing options that do not apply. */
const char *fb_cli_first_given(const fb_parsed *p, const char *const *names);
const char *fb_cli_value(const fb_parsed *p, const char *name); /* NULL if absent */
/* Whether the command's table declares the option (asking fb_cli_value
 * about one it does not is an internal error): for code that several
 * commands share. */
int fb_cli_declares(const fb_parsed *p, const char *name);
int fb_cli_values(const fb_parsed *p, const char *name, const char *const **values);

/* For a command's verbs (`history add`, `tune merge`), each of which takes
 * only some of the command's options: FB_ERR_USAGE "COMMAND VERB: --NAME
 * does not apply (see flowbench COMMAND --help)" for the first option
 * given that neither allowed nor common names (NULL-terminated lists;
 * common may be NULL); VERB is args->positional[0]. */
fb_status fb_cli_only_options(const fb_parsed *p, const char *command, const char *const *allowed,
                              const char *const *common);

/* The arguments that run this command again in a new process
 * (core/fresh.h): "flowbench", command, the positionals, every option
 * given but those in drop (NULL-terminated option names), then extra.
 * Free with fb_cli_child_argv_free. */
fb_status fb_cli_child_argv(const char *command, const fb_parsed *p, const char *const *drop, const char *const *extra,
                            char ***out);
void fb_cli_child_argv_free(char **argv);

/* Value parsers that print "flowbench: --NAME: ..." and return FB_ERR_USAGE:
 * "'ten' is not a non-negative integer", "'99999999999' is out of range
 * (at most 1000000000)", "'1e999' is not a finite number". Integers never
 * wrap around. */
#define FB_CLI_INT_MAX 1000000000 /* the largest count fb_cli_int takes */
/* A size of at least 1 (array lengths: "--NAME: must be at least 1"). */
fb_status fb_cli_count(const fb_parsed *p, const char *name, size_t dflt, size_t *out);
fb_status fb_cli_double(const fb_parsed *p, const char *name, double dflt, double *out);
fb_status fb_cli_int(const fb_parsed *p, const char *name, int dflt, int *out);

/* Where a command writes its text: FILE, written whole (a failed run or
 * write leaves what was there, core/files.h), or standard output (NULL). */
typedef struct fb_cli_out {
    FILE *f;
    const char *name; /* FILE, or "standard output" */
    fb_file_writer file;
} fb_cli_out;
fb_status fb_cli_out_open(const char *path, fb_cli_out *o);
/* Ends the output after a run that returned `status`: that status when it
 * failed (a file is then not written), else FB_ERR_IO "NAME: write failed:
 * reason" when a write failed. */
fb_status fb_cli_out_close(fb_cli_out *o, fb_status status);

/* One "--param NAME=VALUE" of kernel `kernel` (axes: its parameters) into
 * p; FB_ERR_USAGE naming the kernel, the name and `list_hint` (the command
 * that lists the parameters) when NAME is not an axis or VALUE not an integer. */
fb_status fb_cli_param(const char *kernel, const fb_param_axis *axes, int naxes, const char *text,
                       const char *list_hint, fb_param_point *p);

/* One "--param NAME=V1,V2,..." as a list: NAME into name, the values (the
 * rule of params.h: integers, none twice) into values (room for
 * FB_PARAM_MAX_LIST), their count into *n. FB_ERR_USAGE saying which value
 * is wrong. Whether NAME is a parameter is the caller's to check. */
fb_status fb_cli_param_list(const char *text, char *name, size_t name_len, int *values, int *n);

#endif
