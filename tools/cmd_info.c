/*
 * cmd_info.c - `loom info`: the features of a matrix that selection uses,
 * and (--hardware) which backends this libloom can run now.
 */
#include "config.h"
#include "commands.h"
#include "common.h"

#include <inttypes.h>
#include <stdio.h>

static const char usage[] =
    "Usage: loom info [A.mtx]\n"
    "       loom info --hardware [A.mtx]\n"
    "Print the features of a sparse matrix that design selection uses: M, K,\n"
    "non-zeros, density, row length mean/std/min/max and empty rows.  Without\n"
    "A.mtx, describes the embedded sample matrix (email-Eu-core).\n"
    "\n"
    "Options:\n"
    "  --hardware   list the backends and whether each is available (and why not);\n"
    "               with A.mtx also describes A\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 success, 1 usage error, 2 runtime error.\n";

/* The backend's description, each line indented under its name. */
static const char *indent(const char *text)
{
    static char out[2048];
    size_t o = 0;
    for (const char *p = text; *p && o + 16 < sizeof out; p++) {
        if (p == text || p[-1] == '\n')
            o += (size_t)snprintf(out + o, sizeof out - o, "             ");
        out[o++] = *p == '\n' && !p[1] ? '\0' : *p;
    }
    out[o] = '\0';
    return out;
}

static void print_hardware(void)
{
    printf("backends:\n");
    for (int b = 0; b < LOOM_BACKEND_COUNT; b++) {
        loom_backend_id id = (loom_backend_id)b;
        char hardware[2048];
        if (loom_backend_describe_hardware(id, hardware, sizeof hardware) == LOOM_SUCCESS)
            printf("  %-10s available\n%s%s", loom_backend_name(id), indent(hardware),
                   hardware[0] ? "\n" : "");
        else
            printf("  %-10s unavailable: %s\n", loom_backend_name(id), loom_last_error());
    }
}

static int print_features(loom_context *ctx, const tool_options *o)
{
    loom_csr *A;
    int rc = tool_load_matrix(ctx, o, &A);
    if (rc != TOOL_EXIT_OK)
        return rc;
    loom_features f;
    if (loom_csr_features(A, &f) != LOOM_SUCCESS) {
        rc = tool_fail("computing the features");
    } else {
        printf("matrix:             %s\n", tool_matrix_label(o));
        printf("rows (M):           %" PRId64 "\n", f.rows);
        printf("columns (K):        %" PRId64 "\n", f.cols);
        printf("non-zeros:          %" PRId64 "\n", f.nnz);
        printf("density:            %.6g\n", f.density);
        printf("row length mean:    %.3f\n", f.row_mean);
        printf("row length std:     %.3f\n", f.row_std);
        printf("row length min:     %.0f\n", f.row_min);
        printf("row length max:     %.0f\n", f.row_max);
        printf("std / mean:         %.3f\n", f.row_cv);
        printf("max / mean:         %.3f\n", f.max_over_mean);
        printf("empty rows:         %" PRId64 "\n", f.empty_rows);
    }
    loom_csr_destroy(&A);
    return rc;
}

int tool_cmd_info(int argc, char **argv)
{
    tool_options o;
    int rc = tool_parse_options(argc, argv, "info", OPT_HARDWARE, &o);
    if (rc != TOOL_EXIT_OK)
        return rc;
    if (o.help) {
        fputs(usage, stdout);
        return TOOL_EXIT_OK;
    }
    if (o.hardware) {
        print_hardware();
        if (!o.matrix)
            return TOOL_EXIT_OK;
        printf("\n");
    }
    loom_context *ctx;
    if (loom_context_create(&ctx) != LOOM_SUCCESS)
        return tool_fail("creating a context");
    /* Features do not depend on the value type; f64 reads every file exactly. */
    o.dtype = LOOM_F64;
    rc = print_features(ctx, &o);
    loom_context_destroy(&ctx);
    return rc;
}
