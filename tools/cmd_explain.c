/*
 * cmd_explain.c - `loom explain`: how each selector decides for one input.
 * Prints the features selection sees, what rules, model, auto and tune
 * choose (and why), then every candidate's predicted time (from the
 * backend's model, when it has one) against its measured time.
 */
#include "config.h"
#include "commands.h"
#include "common.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: loom explain [A.mtx] [options]\n"
    "Show how loom chooses a design for A and N: the features, the choice of each\n"
    "selector (rules, model, auto, tune) with its reasons, and for every candidate\n"
    "the time the model predicts against the time measured here.  Without A.mtx,\n"
    "uses the embedded sample matrix (email-Eu-core).\n"
    "\n"
    "Options:\n"
    "  -n N                 columns of X and Y (default 32)\n"
    "  -b, --backend B      backend (default: the best available)\n"
    "  -t, --dtype T        f32 or f64 (default f32)\n"
    "  -r, --repeat R       timed runs per candidate after one warm-up (default 10)\n"
    "  -j, --threads T      threads for the openmp backend (default 0: automatic)\n"
    "  -l, --layout L       row or col: storage order of X and Y (default row)\n"
    "  -s, --seed S         seed of the random X (default 42)\n"
    "  -h, --help           show this help\n"
    "\n"
    "The model is BACKEND.model in $LOOM_MODEL_DIR or loom's data directory\n"
    "(loom-model(5)); tune uses and fills the cache of loom_tune_cache_path(3).\n"
    "\n"
    "Exit status: 0 success, 1 usage error, 2 runtime error.\n";

#define ACCEPTED (OPT_N | OPT_BACKEND | OPT_DTYPE | OPT_REPEAT | OPT_THREADS | OPT_LAYOUT | OPT_SEED)
#define MAX_CANDIDATES 64

typedef struct candidate {
    char name[96];
    double predicted_ms; /* < 0: no model */
    double measured_ms;  /* < 0: could not run */
} candidate;

typedef struct problem {
    loom_context *ctx;
    const loom_csr *A;
    loom_dense X, Y;
    loom_backend_id backend;
} problem;

static loom_status make_plan(problem *p, loom_selector sel, const loom_strategy *s, loom_plan **plan)
{
    loom_plan_options o;
    loom_plan_options_init(&o);
    o.backend = p->backend;
    o.selector = sel;
    if (s)
        o.strategy = *s;
    return loom_spmm_plan_create(p->ctx, plan, p->A, &p->X, &p->Y, &o);
}

/* The text after "why: " in a plan's explanation. */
static const char *why_of(const char *explain)
{
    const char *w = strstr(explain, "why: ");
    return w ? w + 5 : explain;
}

/* Candidates and their predictions from the model selector's explanation
 * ("predicted: NAME MS ms; NAME MS ms; ..."); the eight designs when the
 * backend has no model. */
static int read_candidates(const char *why, candidate *c)
{
    int n = 0;
    const char *list = why ? strstr(why, "predicted: ") : NULL;
    if (list) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", list + 11);
        for (char *save = NULL, *item = strtok_r(buf, ";", &save); item && n < MAX_CANDIDATES;
             item = strtok_r(NULL, ";", &save)) {
            double ms;
            char name[96];
            if (sscanf(item, " %95s %lf ms", name, &ms) == 2) {
                snprintf(c[n].name, sizeof c[n].name, "%s", name);
                c[n].predicted_ms = ms;
                c[n++].measured_ms = -1;
            }
        }
    }
    if (n > 0)
        return n;
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++) {
        loom_strategy s;
        loom_strategy_design(d, &s);
        loom_strategy_format(&s, c[n].name, sizeof c[n].name);
        c[n].predicted_ms = -1;
        c[n++].measured_ms = -1;
    }
    return n;
}

static double measure(problem *p, const char *name, int repeat)
{
    loom_strategy s;
    loom_plan *plan = NULL;
    if (loom_strategy_parse(name, &s) != LOOM_SUCCESS ||
        make_plan(p, LOOM_SELECT_FIXED, &s, &plan) != LOOM_SUCCESS)
        return -1;
    double v[1000];
    int r = repeat < 1 ? 1 : repeat > 1000 ? 1000 : repeat;
    loom_status st = loom_spmm_execute(plan, 1.0, &p->X, 0.0, &p->Y); /* warm-up */
    for (int i = 0; i < r && st == LOOM_SUCCESS; i++) {
        double t0 = tool_seconds();
        st = loom_spmm_execute(plan, 1.0, &p->X, 0.0, &p->Y);
        v[i] = tool_seconds() - t0;
    }
    loom_plan_destroy(&plan);
    return st == LOOM_SUCCESS ? tool_median(v, r) * 1e3 : -1;
}

static void print_features(const tool_options *o, const loom_features *f, int64_t n,
                           const char *backend)
{
    printf("matrix:   %s\n", tool_matrix_label(o));
    printf("features: M %" PRId64 ", K %" PRId64 ", nnz %" PRId64 ", density %.3g\n", f->rows,
           f->cols, f->nnz, f->density);
    printf("          row length mean %.3f, std %.3f, max %.0f, min %.0f; std/mean %.3f, "
           "max/mean %.1f; %" PRId64 " empty rows\n",
           f->row_mean, f->row_std, f->row_max, f->row_min, f->row_cv, f->max_over_mean,
           f->empty_rows);
    printf("problem:  N %" PRId64 ", %s, X and Y %s, backend %s\n", n, loom_dtype_name(o->dtype),
           o->layout == LOOM_ROW_MAJOR ? "row-major" : "column-major", backend);
}

int tool_cmd_explain(int argc, char **argv)
{
    tool_options o;
    int rc = tool_parse_options(argc, argv, "explain", ACCEPTED, &o);
    if (rc != TOOL_EXIT_OK || o.help) {
        if (o.help)
            fputs(usage, stdout);
        return rc;
    }
    loom_context *ctx = NULL;
    if (loom_context_create(&ctx) != LOOM_SUCCESS)
        return tool_fail("creating a context");
    if (o.threads > 0)
        loom_context_set_threads(ctx, o.threads);
    loom_csr *A = NULL;
    problem p = {.ctx = ctx, .backend = o.backend};
    int64_t m, k, n = 0;
    rc = tool_load_matrix(ctx, &o, &A);
    if (rc == TOOL_EXIT_OK) {
        p.A = A;
        loom_csr_info(A, &m, &k, NULL, NULL, NULL);
        rc = tool_make_x(ctx, &o, k, &p.X, &n);
    }
    if (rc == TOOL_EXIT_OK &&
        loom_dense_alloc(ctx, &p.Y, m, n, o.layout, o.dtype, LOOM_MEMORY_HOST) != LOOM_SUCCESS)
        rc = tool_fail("allocating Y");
    if (rc != TOOL_EXIT_OK)
        goto done;

    loom_features f;
    loom_csr_features(A, &f);
    /* Which backend auto planning lands on, named in the header. */
    loom_plan *plan = NULL;
    if (make_plan(&p, LOOM_SELECT_RULES, NULL, &plan) != LOOM_SUCCESS) {
        rc = tool_fail("planning");
        goto done;
    }
    loom_backend_id used;
    loom_plan_strategy(plan, NULL, &used);
    loom_plan_destroy(&plan);
    p.backend = used;
    print_features(&o, &f, n, loom_backend_name(used));

    static const struct {
        loom_selector sel;
        const char *name;
    } sels[] = {{LOOM_SELECT_RULES, "rules"}, {LOOM_SELECT_MODEL, "model"},
                {LOOM_SELECT_AUTO, "auto"}, {LOOM_SELECT_TUNE, "tune"}};
    char chosen[4][96] = {"", "", "", ""};
    char model_why[2048] = "";
    printf("\nselectors:\n");
    for (int s = 0; s < 4; s++) {
        double t0 = tool_seconds();
        if (make_plan(&p, sels[s].sel, NULL, &plan) != LOOM_SUCCESS) {
            printf("  %-6s (none): %s\n", sels[s].name, loom_last_error());
            continue;
        }
        double plan_ms = (tool_seconds() - t0) * 1e3;
        loom_strategy st;
        loom_plan_strategy(plan, &st, NULL);
        loom_strategy_format(&st, chosen[s], sizeof chosen[s]);
        const char *why = why_of(loom_plan_explain(plan));
        if (sels[s].sel == LOOM_SELECT_MODEL)
            snprintf(model_why, sizeof model_why, "%s", why);
        /* The model's list of predictions goes into the table below. */
        const char *cut = strstr(why, "; predicted: ");
        printf("  %-6s %-28s (planned in %.3g ms)\n         %.*s\n", sels[s].name, chosen[s],
               plan_ms, cut ? (int)(cut - why) : (int)strlen(why), why);
        loom_plan_destroy(&plan);
    }

    candidate c[MAX_CANDIDATES];
    int count = read_candidates(model_why[0] ? model_why : NULL, c);
    double best = INFINITY;
    for (int i = 0; i < count; i++) {
        c[i].measured_ms = measure(&p, c[i].name, o.repeat);
        if (c[i].measured_ms >= 0 && c[i].measured_ms < best)
            best = c[i].measured_ms;
    }
    printf("\n%-30s %12s %12s %9s  %s\n", "candidate", "predicted ms", "measured ms", "vs best",
           "chosen by");
    for (int i = 0; i < count; i++) {
        char pred[32] = "-", meas[32] = "failed", ratio[32] = "-", by[64] = "";
        if (c[i].predicted_ms >= 0)
            snprintf(pred, sizeof pred, "%.4g", c[i].predicted_ms);
        if (c[i].measured_ms >= 0) {
            snprintf(meas, sizeof meas, "%.4g", c[i].measured_ms);
            snprintf(ratio, sizeof ratio, "%.2fx", c[i].measured_ms / best);
        }
        loom_strategy a, b;
        for (int s = 0; s < 4; s++)
            if (chosen[s][0] && loom_strategy_parse(chosen[s], &a) == LOOM_SUCCESS &&
                loom_strategy_parse(c[i].name, &b) == LOOM_SUCCESS &&
                memcmp(&a, &b, sizeof a) == 0)
                snprintf(by + strlen(by), sizeof by - strlen(by), "%s%s", by[0] ? " " : "",
                         sels[s].name);
        printf("%-30s %12s %12s %9s  %s%s\n", c[i].name, pred, meas, ratio, by,
               c[i].measured_ms == best ? (by[0] ? " (fastest)" : "fastest") : "");
    }
    if (!model_why[0])
        printf("(no model for backend %s: predictions need BACKEND.model, see loom-model(5))\n",
               loom_backend_name(used));

done:
    if (p.X.data)
        loom_dense_free(ctx, &p.X);
    if (p.Y.data)
        loom_dense_free(ctx, &p.Y);
    loom_csr_destroy(&A);
    loom_context_destroy(&ctx);
    return rc;
}
