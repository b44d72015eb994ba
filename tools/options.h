/*
 * options.h - the command line of the loom program: one table of options,
 * each subcommand naming the ones it accepts.
 */
#ifndef TOOL_OPTIONS_H
#define TOOL_OPTIONS_H

#include <loom.h>

#include <stdbool.h>
#include <stdint.h>

/* Exit statuses (documented in loom(1)). */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_USAGE 1   /* bad command line */
#define TOOL_EXIT_RUNTIME 2 /* a library call or a file failed */
#define TOOL_EXIT_CHECK 3   /* a result did not pass its check */

/* Which options a subcommand accepts (bits of tool_parse_options' `accepted`). */
#define OPT_N 0x001u
#define OPT_BACKEND 0x002u
#define OPT_DESIGN 0x004u
#define OPT_DTYPE 0x008u
#define OPT_X 0x010u
#define OPT_OUTPUT 0x020u
#define OPT_REPEAT 0x040u
#define OPT_THREADS 0x080u
#define OPT_LAYOUT 0x100u
#define OPT_SEED 0x200u
#define OPT_HARDWARE 0x400u
#define OPT_SAVE 0x800u

#define TOOL_DEFAULT_N 32
#define TOOL_DEFAULT_REPEAT 10
#define TOOL_DEFAULT_SEED 42

typedef struct tool_options {
    const char *command; /* "spmm", "info", "designs": for messages */
    const char *matrix;  /* NULL: the embedded sample matrix */
    int64_t n;
    bool n_given;
    loom_backend_id backend; /* LOOM_BACKEND_AUTO unless --backend */
    const char *design;      /* a selector ("auto", "tune", ...) or a design such as "eb-rm-pr:chunk=128" */
    loom_dtype dtype;
    loom_layout layout;
    const char *x_path;      /* NULL: X is random */
    const char *output_path; /* NULL: Y is not written */
    const char *save_path;   /* NULL: no cross-check record (loom verify) */
    int repeat;
    int threads; /* 0: the backend decides */
    uint64_t seed;
    bool hardware;
    bool help;
} tool_options;

/* Parse argv (after the subcommand's name).  Returns TOOL_EXIT_OK, or
 * TOOL_EXIT_USAGE after printing what is wrong and a hint to stderr. */
int tool_parse_options(int argc, char **argv, const char *command, unsigned accepted,
                       tool_options *o);

/* The selectors --design accepts besides a design name: auto, rules, model,
 * tune.  False when `name` is none of them. */
bool tool_selector_from_name(const char *name, loom_selector *selector);

/* Print "loom: COMMAND: message" and the --help hint to stderr; returns
 * TOOL_EXIT_USAGE. */
int tool_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* TOOL_OPTIONS_H */
