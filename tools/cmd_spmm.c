/*
 * cmd_spmm.c - `loom spmm`: run one SpMM, say which design ran and why, time
 * it, and check the result twice (bit-exact against the reference, and
 * within a bound of a float64 loop).
 */
#include "config.h"
#include "commands.h"
#include "check.h"
#include "common.h"
#include "run.h"
#include "run_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: loom spmm [A.mtx] [options]\n"
    "Compute Y = A*X with A sparse (M x K, Matrix Market or DLMC .smtx, gzip or not)\n"
    "and X dense (K x N); print the design used and why, the time, GFLOP/s and\n"
    "effective GB/s, and check Y against the reference backend (bit for bit) and\n"
    "against a float64 computation (within a rounding-error bound).\n"
    "Without A.mtx, runs on the embedded sample matrix (email-Eu-core).\n"
    "\n"
    "Options:\n"
    "  -n N                 columns of X and Y (default 32)\n"
    "  -b, --backend B      auto, reference, openmp or cuda (default auto)\n"
    "  -d, --design D       a design {rb|eb}-{rm|cm}-{sr|pr}[:chunk=C,lanes=W], or how\n"
    "                       the library selects one: auto (default: the trained model\n"
    "                       if any, else the rules), rules, model, or tune (time the\n"
    "                       candidates once and cache the winner)\n"
    "  -t, --dtype T        f32 or f64 (default f32)\n"
    "  -x, --x X.mtx        read X from a dense Matrix Market file (default random)\n"
    "  -o, --output Y.mtx   write Y as a dense Matrix Market file\n"
    "      --save RUN.loom  record A, X, the design and Y, so that 'loom verify RUN.loom'\n"
    "                       can recompute Y with the reference on any machine\n"
    "  -r, --repeat R       timed runs after one warm-up; the median is shown (default 10)\n"
    "  -j, --threads T      threads for the openmp backend (default 0: automatic)\n"
    "  -l, --layout L       row or col: storage order of X and Y (default row)\n"
    "  -s, --seed S         seed of the random X (default 42)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 success, 1 usage error, 2 runtime error, 3 a check failed.\n";

#define ACCEPTED (OPT_N | OPT_BACKEND | OPT_DESIGN | OPT_DTYPE | OPT_X | OPT_OUTPUT | OPT_SAVE | \
                  OPT_REPEAT | OPT_THREADS | OPT_LAYOUT | OPT_SEED)

/* The plan's explanation, one line after another under a label. */
static void print_indented(const char *label, const char *text)
{
    const char *line = text;
    bool first = true;
    while (*line) {
        size_t len = strcspn(line, "\n");
        printf("%s%.*s\n", first ? label : "             ", (int)len, line);
        first = false;
        line += len + (line[len] == '\n');
    }
}

static void print_timing(const tool_problem *p, const tool_run *run)
{
    double flops = tool_flops(p->nnz, p->n);
    double bytes = tool_bytes(p->m, p->k, p->nnz, p->n, p->dtype, p->beta != 0);
    printf("time:        %.6f ms (median of %d run%s after 1 warm-up)\n", 1e3 * run->seconds,
           run->repeat, run->repeat == 1 ? "" : "s");
    if (run->seconds > 0)
        printf("performance: %.3f GFLOP/s (2*nnz*N = %.0f flop), %.3f GB/s effective "
               "(%.0f compulsory bytes)\n",
               flops / run->seconds * 1e-9, flops, bytes / run->seconds * 1e-9, bytes);
    else
        printf("performance: too fast to time with this clock\n");
}

/* The same design on the reference backend; true when Y matches it bit for bit. */
static int check_against_reference(loom_context *ctx, tool_problem *p, const tool_run *run,
                                   bool *passed)
{
    char design[256], text[512];
    tool_design_name(&run->used_strategy, design, sizeof design);
    if (run->used_strategy.kloop == LOOM_K_TC && run->used_backend != LOOM_BACKEND_REFERENCE) {
        /* The reference models the MMA unit's addition, but no model has
         * matched a GPU's bits yet (loom-designs(7), TENSOR CORES). */
        printf("reference:   not compared bit for bit (tensor cores: the bound below is the check)\n");
        *passed = true;
        return TOOL_EXIT_OK;
    }
    tool_run ref;
    tool_run_init(&ref, LOOM_BACKEND_REFERENCE, design, 0);
    ref.strategy = run->used_strategy; /* exactly, techniques and all */
    if (tool_run_spmm(ctx, p, &ref) != LOOM_SUCCESS)
        return tool_fail("running the reference for the check");
    tool_exact_check exact;
    loom_status st = tool_check_exact(&run->Y, &ref.Y, &exact);
    loom_dense_free(ctx, &ref.Y);
    if (st != LOOM_SUCCESS)
        return tool_fail("comparing with the reference");
    tool_format_exact(&exact, text, sizeof text);
    printf("reference:   %s (%s on the reference backend%s)\n", text, design,
           run->used_backend == LOOM_BACKEND_REFERENCE ? ", a second run: checks determinism" : "");
    *passed = exact.bit_exact;
    return TOOL_EXIT_OK;
}

static int check_against_f64(tool_problem *p, const tool_run *run, bool *passed)
{
    tool_f64_check f64;
    char text[512];
    loom_status st = tool_check_f64(p, &run->used_strategy, &run->Y, &f64);
    if (st != LOOM_SUCCESS) {
        fprintf(stderr, "loom: the float64 check: %s\n",
                st == LOOM_ERR_OUT_OF_MEMORY
                    ? "out of memory"
                    : "the tensor-core bound needs f32 values and row-major X and Y");
        return TOOL_EXIT_RUNTIME;
    }
    tool_format_f64(&f64, text, sizeof text);
    printf("float64:     %s (%s)\n", text,
           run->used_strategy.kloop == LOOM_K_TC
               ? "the exact product in double, from the stored operands"
               : "an independent double loop in this program");
    printf("             bound: %s\n", tool_f64_bound_text(p->dtype, &run->used_strategy));
    *passed = f64.exceeding == 0;
    return TOOL_EXIT_OK;
}

static int report(loom_context *ctx, const tool_options *o, tool_problem *p, tool_run *run)
{
    printf("input:       %s; X and Y %s; X ", tool_matrix_label(o),
           p->layout == LOOM_ROW_MAJOR ? "row-major" : "column-major");
    if (o->x_path)
        printf("from %s\n", o->x_path);
    else
        printf("random (seed %" PRIu64 ")\n", o->seed);
    print_indented("plan:        ", run->explain);
    print_timing(p, run);
    bool exact = false, within = false;
    int rc = check_against_reference(ctx, p, run, &exact);
    if (rc == TOOL_EXIT_OK)
        rc = check_against_f64(p, run, &within);
    if (rc == TOOL_EXIT_OK && o->output_path) {
        if (loom_dense_write(&run->Y, o->output_path) != LOOM_SUCCESS)
            return tool_fail("writing Y");
        printf("output:      Y written to %s\n", o->output_path);
    }
    if ((rc == TOOL_EXIT_OK || rc == TOOL_EXIT_CHECK) && o->save_path) {
        int saved = tool_record_save(ctx, o->save_path, p->A, &p->X, NULL, &run->Y,
                                     &run->used_strategy, run->used_backend, p->alpha, p->beta);
        if (saved != TOOL_EXIT_OK)
            return saved;
        printf("saved:       %s (check it anywhere with: loom verify %s)\n", o->save_path,
               o->save_path);
    }
    if (rc == TOOL_EXIT_OK && !(exact && within))
        rc = TOOL_EXIT_CHECK;
    return rc;
}

static int spmm(loom_context *ctx, const tool_options *o)
{
    tool_problem p = {.dtype = o->dtype, .layout = o->layout, .alpha = 1, .beta = 0};
    /* An unusable backend is known before A is read. */
    if (o->backend != LOOM_BACKEND_AUTO && loom_backend_available(o->backend) != LOOM_SUCCESS)
        return tool_fail("--backend");
    int rc = tool_load_matrix(ctx, o, &p.A);
    if (rc == TOOL_EXIT_OK) {
        loom_csr_info(p.A, &p.m, &p.k, &p.nnz, NULL, NULL);
        rc = tool_make_x(ctx, o, p.k, &p.X, &p.n);
    }
    tool_run run;
    if (rc == TOOL_EXIT_OK && tool_run_init(&run, o->backend, o->design, o->repeat) != LOOM_SUCCESS)
        rc = tool_fail("--design");
    if (rc == TOOL_EXIT_OK) {
        if (tool_run_spmm(ctx, &p, &run) != LOOM_SUCCESS)
            rc = tool_fail(run.failed);
        else {
            rc = report(ctx, o, &p, &run);
            loom_dense_free(ctx, &run.Y);
        }
    }
    tool_problem_release(ctx, &p);
    return rc;
}

int tool_cmd_spmm(int argc, char **argv)
{
    return tool_run_command(argc, argv, "spmm", ACCEPTED, usage, spmm);
}
