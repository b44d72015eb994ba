/*
 * cmd_designs.c - `loom designs`: every design on every available backend,
 * timed, each checked bit for bit against the reference running the same
 * design; a table with the fastest marked, and what auto selection picks.
 */
#include "config.h"
#include "commands.h"
#include "check.h"
#include "common.h"
#include "run.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "Usage: loom designs [A.mtx] [options]\n"
    "Run all eight SpMM designs ({rb|eb}-{rm|cm}-{sr|pr}) on every available backend,\n"
    "check each result bit for bit against the reference running the same design,\n"
    "and print a table of time, GFLOP/s and effective GB/s with the fastest marked.\n"
    "Without A.mtx, runs on the embedded sample matrix (email-Eu-core).\n"
    "\n"
    "Options:\n"
    "  -n N                 columns of X and Y (default 32)\n"
    "  -b, --backend B      only this backend (default: all available)\n"
    "  -t, --dtype T        f32 or f64 (default f32)\n"
    "  -x, --x X.mtx        read X from a dense Matrix Market file (default random)\n"
    "  -r, --repeat R       timed runs per design after one warm-up (default 10)\n"
    "  -j, --threads T      threads for the openmp backend (default 0: automatic)\n"
    "  -l, --layout L       row or col: storage order of X and Y (default row)\n"
    "  -s, --seed S         seed of the random X (default 42)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 success, 1 usage error, 2 runtime error, 3 a result was not bit-exact.\n";

#define ACCEPTED (OPT_N | OPT_BACKEND | OPT_DTYPE | OPT_X | OPT_REPEAT | OPT_THREADS | \
                  OPT_LAYOUT | OPT_SEED)

enum row_state { ROW_OK, ROW_UNSUPPORTED, ROW_ERROR };

typedef struct row {
    char design[64];
    loom_backend_id backend;
    enum row_state state;
    double seconds;
    bool bit_exact;
    char note[512]; /* the check's verdict, or why the row did not run */
} row;

typedef struct table {
    row rows[LOOM_DESIGN_COUNT * LOOM_BACKEND_COUNT];
    int count;
    loom_backend_id backends[LOOM_BACKEND_COUNT];
    int backend_count;
} table;

static void run_cell(loom_context *ctx, tool_problem *p, int repeat, const loom_dense *ref_y,
                     row *r)
{
    tool_run run;
    tool_run_init(&run, r->backend, r->design, repeat);
    loom_status st = tool_run_spmm(ctx, p, &run);
    if (st != LOOM_SUCCESS) {
        r->state = st == LOOM_ERR_NOT_SUPPORTED ? ROW_UNSUPPORTED : ROW_ERROR;
        snprintf(r->note, sizeof r->note, "%s: %s", run.failed, loom_last_error());
        return;
    }
    r->seconds = run.seconds;
    tool_exact_check exact;
    if (tool_check_exact(&run.Y, ref_y, &exact) != LOOM_SUCCESS) {
        r->state = ROW_ERROR;
        snprintf(r->note, sizeof r->note, "comparing: %s", loom_last_error());
    } else {
        r->bit_exact = exact.bit_exact;
        tool_format_exact(&exact, r->note, sizeof r->note);
    }
    loom_dense_free(ctx, &run.Y);
}

/* One design: the reference result first, then every backend against it. */
static void run_design(loom_context *ctx, tool_problem *p, int repeat, int d, table *t)
{
    loom_strategy s;
    char name[64];
    loom_strategy_design(d, &s);
    tool_design_name(&s, name, sizeof name);
    tool_run ref;
    tool_run_init(&ref, LOOM_BACKEND_REFERENCE, name, 0);
    loom_status st = tool_run_spmm(ctx, p, &ref);
    for (int b = 0; b < t->backend_count; b++) {
        row *r = &t->rows[t->count++];
        memset(r, 0, sizeof *r);
        snprintf(r->design, sizeof r->design, "%s", name);
        r->backend = t->backends[b];
        if (st != LOOM_SUCCESS) {
            r->state = ROW_ERROR;
            snprintf(r->note, sizeof r->note, "the reference failed: %s: %s", ref.failed,
                     loom_last_error());
        } else {
            run_cell(ctx, p, repeat, &ref.Y, r);
        }
    }
    if (st == LOOM_SUCCESS)
        loom_dense_free(ctx, &ref.Y);
}

static const row *fastest(const table *t)
{
    const row *best = NULL;
    for (int i = 0; i < t->count; i++)
        if (t->rows[i].state == ROW_OK && t->rows[i].bit_exact &&
            (!best || t->rows[i].seconds < best->seconds))
            best = &t->rows[i];
    return best;
}

static void print_table(const tool_problem *p, const table *t)
{
    const row *best = fastest(t);
    double flops = tool_flops(p->nnz, p->n);
    double bytes = tool_bytes(p->m, p->k, p->nnz, p->n, p->dtype, p->beta != 0);
    printf("  %-28s %-10s %12s %10s %10s  %s\n", "design", "backend", "time (ms)", "GFLOP/s",
           "GB/s", "check against the reference");
    for (int i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        if (r->state != ROW_OK) {
            printf("  %-28s %-10s %12s %10s %10s  %s%s\n", r->design, loom_backend_name(r->backend),
                   "-", "-", "-", r->state == ROW_UNSUPPORTED ? "not supported: " : "ERROR: ",
                   r->note);
            continue;
        }
        double s = r->seconds > 0 ? r->seconds : 1e-12;
        printf("%c %-28s %-10s %12.4f %10.3f %10.3f  %s\n", r == best ? '*' : ' ', r->design,
               loom_backend_name(r->backend), 1e3 * r->seconds, flops / s * 1e-9, bytes / s * 1e-9,
               r->note);
    }
    if (best)
        printf("* fastest: %s on %s, %.4f ms\n", best->design, loom_backend_name(best->backend),
               1e3 * best->seconds);
}

/* Where the measured rank of `design` on `backend` is, 1 being the fastest. */
static int rank_of(const table *t, const char *design, loom_backend_id backend, int *of)
{
    const row *self = NULL;
    for (int i = 0; i < t->count; i++)
        if (t->rows[i].backend == backend && strcmp(t->rows[i].design, design) == 0)
            self = &t->rows[i];
    int rank = 1;
    *of = 0;
    for (int i = 0; i < t->count; i++) {
        const row *r = &t->rows[i];
        if (r->backend != backend || r->state != ROW_OK)
            continue;
        (*of)++;
        if (self && self->state == ROW_OK && r->seconds < self->seconds)
            rank++;
    }
    return self && self->state == ROW_OK ? rank : 0;
}

/* What automatic selection would pick on each backend, and how it measured. */
static void print_auto_choices(loom_context *ctx, tool_problem *p, const table *t)
{
    for (int b = 0; b < t->backend_count; b++) {
        tool_run run;
        tool_run_init(&run, t->backends[b], "auto", 0);
        if (tool_run_spmm(ctx, p, &run) != LOOM_SUCCESS) {
            printf("auto on %s: %s: %s\n", loom_backend_name(t->backends[b]), run.failed,
                   loom_last_error());
            continue;
        }
        loom_dense_free(ctx, &run.Y);
        char name[64];
        int of, rank;
        tool_design_name(&run.used_strategy, name, sizeof name);
        rank = rank_of(t, name, t->backends[b], &of);
        if (rank > 0)
            printf("auto on %s selects %s: measured %d of %d here\n",
                   loom_backend_name(t->backends[b]), name, rank, of);
        else
            printf("auto on %s selects %s (not among the designs measured above)\n",
                   loom_backend_name(t->backends[b]), name);
    }
}

static int choose_backends(const tool_options *o, table *t)
{
    if (o->backend != LOOM_BACKEND_AUTO) {
        if (loom_backend_available(o->backend) != LOOM_SUCCESS)
            return tool_fail("--backend");
        t->backends[t->backend_count++] = o->backend;
        return TOOL_EXIT_OK;
    }
    for (int b = 0; b < LOOM_BACKEND_COUNT; b++)
        if (loom_backend_available((loom_backend_id)b) == LOOM_SUCCESS)
            t->backends[t->backend_count++] = (loom_backend_id)b;
    return TOOL_EXIT_OK;
}

static int designs(loom_context *ctx, const tool_options *o)
{
    static table t; /* large: keep it off the stack */
    memset(&t, 0, sizeof t);
    tool_problem p = {.dtype = o->dtype, .layout = o->layout, .alpha = 1, .beta = 0};
    int rc = choose_backends(o, &t);
    if (rc == TOOL_EXIT_OK)
        rc = tool_load_matrix(ctx, o, &p.A);
    if (rc == TOOL_EXIT_OK) {
        loom_csr_info(p.A, &p.m, &p.k, &p.nnz, NULL, NULL);
        rc = tool_make_x(ctx, o, p.k, &p.X, &p.n);
    }
    if (rc == TOOL_EXIT_OK) {
        printf("matrix: %s: %" PRId64 " x %" PRId64 ", %" PRId64 " non-zeros; %s, N = %" PRId64
               ", %s; median of %d run%s after 1 warm-up\n",
               tool_matrix_label(o), p.m, p.k, p.nnz, loom_dtype_name(p.dtype), p.n,
               p.layout == LOOM_ROW_MAJOR ? "row-major" : "column-major", o->repeat,
               o->repeat == 1 ? "" : "s");
        for (int d = 0; d < LOOM_DESIGN_COUNT; d++)
            run_design(ctx, &p, o->repeat, d, &t);
        print_table(&p, &t);
        print_auto_choices(ctx, &p, &t);
        for (int i = 0; i < t.count; i++) {
            if (t.rows[i].state == ROW_ERROR)
                rc = TOOL_EXIT_RUNTIME;
            else if (rc == TOOL_EXIT_OK && t.rows[i].state == ROW_OK && !t.rows[i].bit_exact)
                rc = TOOL_EXIT_CHECK;
        }
    }
    tool_problem_release(ctx, &p);
    return rc;
}

int tool_cmd_designs(int argc, char **argv)
{
    return tool_run_command(argc, argv, "designs", ACCEPTED, usage, designs);
}
