/*
 * common.c - loading operands, the clock, and the work counts used for
 * GFLOP/s and effective GB/s.
 */
#include "config.h"
#include "common.h"
#include "sample_matrix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tool_fail(const char *what)
{
    const char *why = loom_last_error();
    fprintf(stderr, "loom: %s: %s\n", what, why && *why ? why : "unknown error");
    return TOOL_EXIT_RUNTIME;
}

const char *tool_matrix_label(const tool_options *o)
{
    static char label[128];
    if (o->matrix)
        return o->matrix;
    snprintf(label, sizeof label, "%s (embedded sample)", tool_sample_matrix_name);
    return label;
}

int tool_load_matrix(loom_context *ctx, const tool_options *o, loom_csr **A)
{
    loom_status st;
    if (o->matrix)
        st = loom_csr_read(ctx, o->matrix, o->dtype, A);
    else
        st = loom_csr_read_memory(ctx, tool_sample_matrix, tool_sample_matrix_size,
                                  tool_sample_matrix_name, o->dtype, A);
    if (st != LOOM_SUCCESS) {
        char what[256] = "reading A";
        if (!o->matrix)
            snprintf(what, sizeof what, "reading A, the embedded sample %s", tool_sample_matrix_name);
        return tool_fail(what);
    }
    return TOOL_EXIT_OK;
}

/* X from a file: read it, check its shape, repack it in o->layout. */
static int read_x(loom_context *ctx, const tool_options *o, int64_t k, loom_dense *X, int64_t *n)
{
    const char *what = "reading X";
    loom_dense file_x;
    if (loom_dense_read(ctx, o->x_path, o->dtype, o->layout, &file_x) != LOOM_SUCCESS)
        return tool_fail(what);
    int rc = TOOL_EXIT_OK;
    if (file_x.rows != k) {
        fprintf(stderr, "loom: %s: %s is %" PRId64 " x %" PRId64 " but A has %" PRId64
                " columns, so X needs %" PRId64 " rows\n", what, o->x_path, file_x.rows,
                file_x.cols, k, k);
        rc = TOOL_EXIT_RUNTIME;
    } else if (o->n_given && file_x.cols != o->n) {
        fprintf(stderr, "loom: %s: %s has %" PRId64 " columns but -n %" PRId64 " was given\n",
                what, o->x_path, file_x.cols, o->n);
        rc = TOOL_EXIT_RUNTIME;
    } else if (file_x.cols == 0) {
        fprintf(stderr, "loom: %s: %s has no columns\n", what, o->x_path);
        rc = TOOL_EXIT_RUNTIME;
    }
    if (rc == TOOL_EXIT_OK &&
        loom_dense_alloc(ctx, X, file_x.rows, file_x.cols, o->layout, o->dtype,
                         LOOM_MEMORY_HOST) != LOOM_SUCCESS)
        rc = tool_fail("allocating X");
    if (rc == TOOL_EXIT_OK && loom_dense_copy(ctx, &file_x, X) != LOOM_SUCCESS) {
        rc = tool_fail("copying X");
        loom_dense_free(ctx, X);
    }
    if (rc == TOOL_EXIT_OK)
        *n = X->cols;
    loom_dense_free(ctx, &file_x);
    return rc;
}

int tool_make_x(loom_context *ctx, const tool_options *o, int64_t k, loom_dense *X, int64_t *n)
{
    if (o->x_path)
        return read_x(ctx, o, k, X, n);
    if (loom_dense_alloc(ctx, X, k, o->n, o->layout, o->dtype, LOOM_MEMORY_HOST) != LOOM_SUCCESS)
        return tool_fail("allocating X");
    if (loom_dense_fill_random(X, o->seed) != LOOM_SUCCESS) {
        loom_dense_free(ctx, X);
        return tool_fail("filling X");
    }
    *n = o->n;
    return TOOL_EXIT_OK;
}

double tool_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tool_median(double *v, int count)
{
    if (count <= 0)
        return 0;
    qsort(v, (size_t)count, sizeof *v, compare_doubles);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

double tool_flops(int64_t nnz, int64_t n)
{
    return 2.0 * (double)nnz * (double)n;
}

double tool_bytes(int64_t m, int64_t k, int64_t nnz, int64_t n, loom_dtype dtype, bool reads_y)
{
    double es = (double)loom_dtype_size(dtype);
    double a = (double)(m + 1) * sizeof(int64_t) + (double)nnz * (sizeof(int32_t) + es);
    double x = (double)k * (double)n * es;
    double y = (double)m * (double)n * es * (reads_y ? 2 : 1);
    return a + x + y;
}

void tool_design_name(const loom_strategy *s, char *buf, size_t len)
{
    if (loom_strategy_format(s, buf, len) != LOOM_SUCCESS)
        snprintf(buf, len, "?");
}

int tool_run_command(int argc, char **argv, const char *command, unsigned accepted,
                     const char *usage, int (*body)(loom_context *ctx, const tool_options *o))
{
    tool_options o;
    int rc = tool_parse_options(argc, argv, command, accepted, &o);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (o.help) {
        fputs(usage, stdout);
        return TOOL_EXIT_OK;
    }
    loom_context *ctx;
    if (loom_context_create(&ctx) != LOOM_SUCCESS)
        return tool_fail("creating a context");
    if (loom_context_set_threads(ctx, o.threads) != LOOM_SUCCESS)
        rc = tool_fail("--threads");
    if (rc == TOOL_EXIT_OK)
        rc = body(ctx, &o);
    loom_context_destroy(&ctx);
    return rc;
}
