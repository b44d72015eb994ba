/*
 * common.h - what the subcommands share: reporting a failed library call,
 * loading A (a file or the embedded sample), making X, the clock and the
 * FLOP and byte counts.
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <loom.h>

#include <stdbool.h>

#include "options.h"

/* Print "loom: WHAT: <loom_last_error()>" to stderr; returns TOOL_EXIT_RUNTIME. */
int tool_fail(const char *what);

/* A's source as shown to the user: the path, or the embedded sample's name. */
const char *tool_matrix_label(const tool_options *o);

/* Read A from o->matrix, or from the embedded sample when it is NULL.
 * On failure prints the message and returns TOOL_EXIT_RUNTIME. */
int tool_load_matrix(loom_context *ctx, const tool_options *o, loom_csr **A);

/* X (K x N, o->layout, host, packed): read from o->x_path, else random from
 * o->seed.  Sets *n to X's column count.  Prints and returns non-zero on failure. */
int tool_make_x(loom_context *ctx, const tool_options *o, int64_t k, loom_dense *X, int64_t *n);

/* A monotonic clock in seconds, and the median of v[0..count-1] (sorts v). */
double tool_seconds(void);
double tool_median(double *v, int count);

/* SpMM work: 2*nnz*N floating-point operations, and the compulsory bytes:
 * A's three arrays once, X once, Y written once (and read once if beta != 0). */
double tool_flops(int64_t nnz, int64_t n);
double tool_bytes(int64_t m, int64_t k, int64_t nnz, int64_t n, loom_dtype dtype, bool reads_y);

/* What every measuring subcommand does around its work: parse the options
 * (`accepted` bits), answer --help with `usage`, make a context with the
 * requested thread count, run `body`, destroy the context.  Returns the
 * exit status. */
int tool_run_command(int argc, char **argv, const char *command, unsigned accepted,
                     const char *usage, int (*body)(loom_context *ctx, const tool_options *o));

/* The design's printable name ("eb-rm-pr:chunk=256,lanes=8"). */
void tool_design_name(const loom_strategy *s, char *buf, size_t len);

#endif /* TOOL_COMMON_H */
