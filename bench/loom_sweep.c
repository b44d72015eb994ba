/*
 * loom_sweep.c - loom-sweep: time every candidate strategy of a backend on
 * every matrix and N, and write one CSV row per (matrix, N, candidate) with
 * the median time and the features selection sees.  Its output is what
 * tools/loom-train learns from and what bench/results/selection/ evaluates.
 *
 *   loom-sweep [--backend B] [--threads T] [--n 1,4,16,64,256] [--dtype f32]
 *              [--layout rm|cm] [--budget-ms MS] [--max-runs R] [--rounds R] [--out F.csv]
 *              [--select-out S.csv] [--selectors rules,auto,model,tune]
 *              [--select-only] [--no-header] A.mtx...
 *
 * Repeats adapt to a time budget per measurement: after one warm-up run,
 * min(max-runs, budget / warm-up time) runs, at least three (one when a run
 * takes over four budgets); the median is
 * recorded.  --rounds R instead prepares every candidate of a problem at
 * once and runs them in R rounds (more, up to max-runs, while a round fits
 * the budget), in rotating order, so that a busy moment of a shared
 * machine falls on all candidates alike; in each round a candidate runs
 * twice and the second run is kept (the first finds the previous
 * candidate's operands in the caches: 10-30% slower on small products,
 * depending on which candidate came before); the median of the rounds is
 * recorded.  At N = 1 a candidate that differs from an earlier one only
 * in its N-loop (RM or CM: the same product there) is left out, so the
 * best time is not the faster of two timings of one kernel.  The feature
 * columns come from lib/select_features.c, compiled
 * into this program, so they are exactly what the library computes.
 *
 * --select-out S.csv also plans each (matrix, N) with the rules, auto and
 * tune selectors and writes, without a header:
 *   matrix,backend,dtype,N,selector,strategy,plan_ms,chosen_ms,best_ms,best_strategy
 * (strategies in double quotes, as they hold commas; chosen_ms is the chosen candidate's time measured by the sweep, -1 when
 * it is not one of the candidates).  It clears the tune cache: point
 * LOOM_TUNE_CACHE at a scratch file.  --select-only skips the candidates
 * and times each selector's choice itself (best_ms is then -1): with
 * LOOM_MODEL_DIR pointing at a model trained without these matrices, this
 * measures the model and auto selectors on held-out matrices.
 */
#include "config.h"
#include "select.h"
#include "bench_args.h"

#include <loom.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_NS 32

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char usage_text[] =
    "usage: loom-sweep [--backend B] [--threads T] [--n 1,4,16,64,256] [--dtype f32|f64] [--layout rm|cm]\n"
    "                  [--budget-ms MS] [--max-runs R] [--rounds R] [--out F.csv] [--select-out S.csv]\n"
    "                  [--selectors rules,auto,model,tune] [--select-only] [--no-header] A.mtx...\n";

/* A usage error, after its message: the usage, and exit status 2. */
static int usage(void)
{
    fputs(usage_text, stderr);
    return 2;
}

/* Option opt's value v is not one of what it takes. */
static int bad_value(const char *opt, const char *v, const char *takes)
{
    fprintf(stderr, "loom-sweep: %s takes %s, not '%s'\n", opt, takes, v);
    return usage();
}

static int fail(const char *what)
{
    fprintf(stderr, "loom-sweep: %s: %s\n", what, loom_last_error());
    return 1;
}

/* The matrix's name: the file name without folders and .gz/.mtx/.smtx. */
static void matrix_name(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    snprintf(buf, len, "%s", base ? base + 1 : path);
    static const char *const exts[] = {".gz", ".mtx", ".smtx"};
    for (int e = 0; e < 3; e++) {
        size_t n = strlen(buf), l = strlen(exts[e]);
        if (n > l && strcmp(buf + n - l, exts[e]) == 0)
            buf[n - l] = '\0';
    }
}

typedef struct sweep {
    loom_context *ctx;
    loom_backend_id backend;
    loom_dtype dtype;
    loom_layout layout;
    int threads;
    int64_t ns[MAX_NS];
    int nns;
    double budget_ms;
    int max_runs;
    int rounds; /* --rounds: interleaved measurement (0: one candidate after another) */
    FILE *out;
    FILE *select_out; /* --select-out: what each selector chooses */
    bool select_only; /* --select-only: time only what the selectors choose */
    unsigned selectors; /* bit per loom_selector to record */
} sweep;

static double time_candidate(const sweep *sw, const loom_csr *A, const loom_strategy *s,
                             loom_dense *X, loom_dense *Y, int *runs, double *prep_ms);

/* A candidate's measured time, by its strategy text; < 0 when not measured. */
typedef struct measured {
    char strategy[96];
    double ms;
} measured;

/* Where the N-loop changes no code (N = 1; the OpenMP backend at any N,
 * loom__n_loop_matters) RM and CM twins are one product: timed once (as
 * tune does), and matched either way. */
static bool same_product(loom_backend_id backend, const loom_strategy *a, const loom_strategy *b,
                         int64_t n)
{
    char x[128], y[128];
    return loom__product_name(backend, a, n, x, sizeof x) &&
           loom__product_name(backend, b, n, y, sizeof y) && strcmp(x, y) == 0;
}

static double lookup(loom_backend_id backend, const measured *m, int count, const loom_strategy *s,
                     int64_t n)
{
    loom_strategy t;
    for (int i = 0; i < count; i++)
        if (loom_strategy_parse(m[i].strategy, &t) == LOOM_SUCCESS && same_product(backend, &t, s, n))
            return m[i].ms;
    return -1;
}

/* Plan with each selector; write its choice, the plan's cost and the chosen
 * candidate's measured time beside the best measured one.  The tune cache
 * is pointed at a scratch file and cleared, so tune really measures. */
static void record_selectors(const sweep *sw, const char *name, const loom_csr *A, int64_t n,
                             loom_dense *X, loom_dense *Y, const measured *m, int count)
{
    static const struct {
        loom_selector sel;
        const char *name;
    } sels[] = {{LOOM_SELECT_RULES, "rules"}, {LOOM_SELECT_AUTO, "auto"},
                {LOOM_SELECT_MODEL, "model"}, {LOOM_SELECT_TUNE, "tune"}};
    int best = 0;
    for (int i = 1; i < count; i++)
        if (m[i].ms < m[best].ms)
            best = i;
    for (size_t k = 0; k < sizeof sels / sizeof sels[0]; k++) {
        if (!(sw->selectors & (1u << sels[k].sel)))
            continue;
        if (sels[k].sel == LOOM_SELECT_TUNE)
            loom_tune_cache_clear();
        loom_plan_options o;
        loom_plan_options_init(&o);
        o.backend = sw->backend;
        o.selector = sels[k].sel;
        loom_plan *plan = NULL;
        double t0 = now_ms();
        if (loom_spmm_plan_create(sw->ctx, &plan, A, X, Y, &o) != LOOM_SUCCESS) {
            fprintf(stderr, "loom-sweep: %s N=%lld selector %s: %s\n", name, (long long)n,
                    sels[k].name, loom_last_error());
            continue;
        }
        double plan_ms = now_ms() - t0;
        loom_strategy s;
        loom_plan_strategy(plan, &s, NULL);
        loom_plan_destroy(&plan);
        double chosen_ms = lookup(sw->backend, m, count, &s, n);
        if (sw->select_only) { /* no sweep to look in: time the choice here */
            int runs;
            double prep;
            chosen_ms = time_candidate(sw, A, &s, X, Y, &runs, &prep);
        }
        char text[128];
        loom_strategy_format(&s, text, sizeof text);
        fprintf(sw->select_out, "%s,%s,%s,%lld,%s,\"%s\",%.6g,%.6g,%.6g,\"%s\"\n", name,
                loom_backend_name(sw->backend), loom_dtype_name(sw->dtype), (long long)n,
                sels[k].name, text, plan_ms, chosen_ms, count ? m[best].ms : -1.0,
                count ? m[best].strategy : "");
        fflush(sw->select_out);
    }
}

/* Median time of one candidate; < 0 when it cannot run here. */
static double time_candidate(const sweep *sw, const loom_csr *A, const loom_strategy *s,
                             loom_dense *X, loom_dense *Y, int *runs, double *prep_ms)
{
    loom_plan_options o;
    loom_plan_options_init(&o);
    o.backend = sw->backend;
    o.selector = LOOM_SELECT_FIXED;
    o.strategy = *s;
    loom_plan *plan = NULL;
    double t0 = now_ms();
    if (loom_spmm_plan_create(sw->ctx, &plan, A, X, Y, &o) != LOOM_SUCCESS)
        return -1;
    *prep_ms = now_ms() - t0;
    double warm0 = now_ms();
    if (loom_spmm_execute(plan, 1.0, X, 0.0, Y) != LOOM_SUCCESS) {
        loom_plan_destroy(&plan);
        return -1;
    }
    double warm = now_ms() - warm0;
    /* At least three runs (a median resists one preempted run) unless one
     * run alone is far over the budget. */
    int r = warm > 0 ? (int)(sw->budget_ms / warm) : sw->max_runs;
    r = r > sw->max_runs ? sw->max_runs : r < 3 ? (warm > 4 * sw->budget_ms ? 1 : 3) : r;
    double v[64];
    for (int i = 0; i < r; i++) {
        double a = now_ms();
        loom_spmm_execute(plan, 1.0, X, 0.0, Y);
        v[i] = now_ms() - a;
    }
    loom_plan_destroy(&plan);
    *runs = r;
    return median(v, r);
}

/* --rounds: every candidate's median over interleaved rounds (see the top
 * comment); ms[c] < 0 where candidate c cannot run here. */
static void time_interleaved(const sweep *sw, const loom_csr *A, const loom_strategy *s, int nc,
                             loom_dense *X, loom_dense *Y, double *ms, double *prep_ms, int *runs)
{
    loom_plan *plan[64] = {NULL};
    double v[64][64];
    for (int c = 0; c < nc; c++) {
        loom_plan_options o;
        loom_plan_options_init(&o);
        o.backend = sw->backend;
        o.selector = LOOM_SELECT_FIXED;
        o.strategy = s[c];
        double t0 = now_ms();
        ms[c] = -1;
        runs[c] = 0;
        if (loom_spmm_plan_create(sw->ctx, &plan[c], A, X, Y, &o) != LOOM_SUCCESS ||
            loom_spmm_execute(plan[c], 1.0, X, 0.0, Y) != LOOM_SUCCESS) { /* + warm-up */
            loom_plan_destroy(&plan[c]);
            continue;
        }
        prep_ms[c] = now_ms() - t0;
    }
    int rounds = sw->rounds < 64 ? sw->rounds : 64;
    for (int r = 0; r < rounds; r++) {
        double round0 = now_ms();
        for (int i = 0; i < nc; i++) {
            int c = (r + i) % nc;
            if (!plan[c])
                continue;
            loom_spmm_execute(plan[c], 1.0, X, 0.0, Y); /* warms the caches: not kept */
            double a = now_ms();
            loom_spmm_execute(plan[c], 1.0, X, 0.0, Y);
            v[c][runs[c]++] = now_ms() - a;
        }
        double round_ms = now_ms() - round0;
        if (r + 1 == rounds && rounds < sw->max_runs && round_ms * (rounds + 1) < sw->budget_ms)
            rounds++; /* fast problems get more rounds, within the budget */
    }
    for (int c = 0; c < nc; c++)
        if (plan[c]) {
            ms[c] = median(v[c], runs[c]);
            loom_plan_destroy(&plan[c]);
        }
}

static int sweep_matrix(const sweep *sw, const char *path, const loom__device_info *dev)
{
    loom_csr *A = NULL;
    if (loom_csr_read(sw->ctx, path, sw->dtype, &A) != LOOM_SUCCESS)
        return fail(path);
    char name[256];
    matrix_name(path, name, sizeof name);
    loom_features f;
    double f0 = now_ms();
    loom_csr_features(A, &f);
    double features_ms = now_ms() - f0;
    const char *const *cands;
    int nc = loom__candidate_names(sw->backend, &cands);
    for (int ni = 0; ni < sw->nns; ni++) {
        int64_t n = sw->ns[ni];
        loom_dense X, Y;
        if (loom_dense_alloc(sw->ctx, &X, f.cols, n, sw->layout, sw->dtype, LOOM_MEMORY_HOST) !=
                LOOM_SUCCESS ||
            loom_dense_alloc(sw->ctx, &Y, f.rows, n, sw->layout, sw->dtype, LOOM_MEMORY_HOST) !=
                LOOM_SUCCESS)
            return fail("allocating X and Y");
        loom_dense_fill_random(&X, 42);
        measured m[64];
        int count = 0;
        double x[LOOM__FEATURE_COUNT];
        loom__feature_vector(&f, n, sw->layout, sw->layout, sw->dtype, dev, x);
        loom_strategy strat[64];
        double times[64], preps[64];
        int nruns[64];
        const char *names[64];
        int kept = 0; /* the candidates, less those that repeat an earlier product at this N */
        for (int c = 0; c < nc && c < 64; c++) {
            if (loom_strategy_parse(cands[c], &strat[kept]) != LOOM_SUCCESS)
                return fail(cands[c]);
            bool repeat = false;
            for (int j = 0; j < kept && !repeat; j++)
                repeat = same_product(sw->backend, &strat[j], &strat[kept], n);
            if (!repeat)
                names[kept++] = cands[c];
        }
        if (sw->rounds > 0 && !sw->select_only)
            time_interleaved(sw, A, strat, kept, &X, &Y, times, preps, nruns);
        for (int c = 0; c < kept && !sw->select_only; c++) {
            const loom_strategy s = strat[c];
            int runs = nruns[c];
            double prep_ms = preps[c];
            double ms = sw->rounds > 0 ? times[c] : time_candidate(sw, A, &s, &X, &Y, &runs, &prep_ms);
            if (ms < 0) {
                fprintf(stderr, "loom-sweep: %s N=%lld %s skipped: %s\n", name, (long long)n,
                        names[c], loom_last_error());
                continue;
            }
            if (count < 64) {
                snprintf(m[count].strategy, sizeof m[count].strategy, "%s", names[c]);
                m[count++].ms = ms;
            }
            char design[16];
            snprintf(design, sizeof design, "%s-%s-%s", s.mloop == LOOM_M_RB ? "rb" : "eb",
                     s.nloop == LOOM_N_RM ? "rm" : "cm", s.kloop == LOOM_K_SR ? "sr" : "pr");
            fprintf(sw->out, "%s,%s,%s,%lld,%s,%d,%lld,\"%s\",%.6g,%d,%.4g,%.4g", name,
                    loom_backend_name(sw->backend), loom_dtype_name(sw->dtype), (long long)n,
                    design, s.kloop == LOOM_K_PR ? s.lanes : 0,
                    (long long)(s.mloop == LOOM_M_EB ? s.chunk : 0), names[c], ms, runs, prep_ms,
                    features_ms);
            for (int j = 0; j < LOOM__FEATURE_COUNT; j++)
                fprintf(sw->out, ",%.9g", x[j]);
            fputc('\n', sw->out);
            fflush(sw->out);
        }
        if (sw->select_out && (count > 0 || sw->select_only))
            record_selectors(sw, name, A, n, &X, &Y, m, count);
        loom_dense_free(sw->ctx, &X);
        loom_dense_free(sw->ctx, &Y);
    }
    loom_csr_destroy(&A);
    return 0;
}

int main(int argc, char **argv)
{
    sweep sw = {.backend = LOOM_BACKEND_OPENMP, .dtype = LOOM_F32, .layout = LOOM_ROW_MAJOR,
                .threads = 2, .ns = {1, 4, 16, 64, 256}, .nns = 5, .budget_ms = 100,
                .max_runs = 9, .out = stdout,
                .selectors = 1u << LOOM_SELECT_RULES | 1u << LOOM_SELECT_AUTO | 1u << LOOM_SELECT_TUNE};
    bool header = true;
    static const char *const with_value[] = {"--backend", "--threads", "--dtype", "--layout", "--rounds",
                                             "--budget-ms", "--max-runs", "--out", "--select-out",
                                             "--selectors", "--n", NULL};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            header = false;
            continue;
        }
        if (strcmp(a, "--select-only") == 0) {
            sw.select_only = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (lacks_value("loom-sweep", a, with_value, !v))
            return usage();
        i++;
        if (strcmp(a, "--backend") == 0) {
            if (loom_backend_from_name(v, &sw.backend) != LOOM_SUCCESS)
                return fail(v);
        } else if (strcmp(a, "--threads") == 0) {
            if ((sw.threads = count_arg("loom-sweep", a, v, 0, 1000000)) < 0)
                return usage();
        } else if (strcmp(a, "--dtype") == 0) {
            if (strcmp(v, "f32") && strcmp(v, "f64"))
                return bad_value(a, v, "f32 or f64");
            sw.dtype = strcmp(v, "f64") == 0 ? LOOM_F64 : LOOM_F32;
        } else if (strcmp(a, "--layout") == 0) {
            if (strcmp(v, "rm") && strcmp(v, "cm"))
                return bad_value(a, v, "rm or cm");
            sw.layout = strcmp(v, "cm") == 0 ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
        } else if (strcmp(a, "--rounds") == 0) {
            if ((sw.rounds = count_arg("loom-sweep", a, v, 1, 64)) < 0)
                return usage();
        } else if (strcmp(a, "--budget-ms") == 0) {
            if ((sw.budget_ms = number_arg("loom-sweep", a, v, 0.001, HUGE_VAL)) < 0)
                return usage();
        } else if (strcmp(a, "--max-runs") == 0) {
            if ((sw.max_runs = count_arg("loom-sweep", a, v, 1, 64)) < 0)
                return usage();
        } else if (strcmp(a, "--out") == 0) {
            sw.out = fopen(v, "a");
            if (!sw.out) {
                perror(v);
                return 1;
            }
        } else if (strcmp(a, "--select-out") == 0) {
            sw.select_out = fopen(v, "a");
            if (!sw.select_out) {
                perror(v);
                return 1;
            }
        } else if (strcmp(a, "--selectors") == 0) {
            sw.selectors = 0;
            for (char *t = strtok(argv[i], ","); t; t = strtok(NULL, ",")) {
                if (!strcmp(t, "rules"))
                    sw.selectors |= 1u << LOOM_SELECT_RULES;
                else if (!strcmp(t, "auto"))
                    sw.selectors |= 1u << LOOM_SELECT_AUTO;
                else if (!strcmp(t, "model"))
                    sw.selectors |= 1u << LOOM_SELECT_MODEL;
                else if (!strcmp(t, "tune"))
                    sw.selectors |= 1u << LOOM_SELECT_TUNE;
                else
                    return bad_value(a, t, "rules, auto, model and tune, comma-separated");
            }
        } else if (strcmp(a, "--n") == 0) {
            if ((sw.nns = count_list("loom-sweep", a, v, 1, INT32_MAX, sw.ns, MAX_NS)) < 0)
                return usage();
        } else {
            fprintf(stderr, "loom-sweep: unknown option '%s'\n", a);
            return usage();
        }
    }
    if (i == argc) {
        fprintf(stderr, "loom-sweep: no matrix file given\n");
        return usage();
    }
    if (loom_backend_available(sw.backend) != LOOM_SUCCESS)
        return fail("backend");
    if (loom_context_create(&sw.ctx) != LOOM_SUCCESS ||
        loom_context_set_threads(sw.ctx, sw.threads) != LOOM_SUCCESS)
        return fail("context");
    loom__device_info dev;
    loom__cpu_info(sw.backend == LOOM_BACKEND_REFERENCE ? 1 : sw.threads, &dev);
    if (header) {
        fprintf(sw.out, "matrix,backend,dtype,N,design,lanes,chunk,strategy,median_ms,runs,"
                        "prep_ms,features_ms");
        for (int j = 0; j < LOOM__FEATURE_COUNT; j++)
            fprintf(sw.out, ",%s", loom__feature_name(j));
        fputc('\n', sw.out);
    }
    int status = 0;
    for (; i < argc; i++)
        status |= sweep_matrix(&sw, argv[i], &dev);
    loom_context_destroy(&sw.ctx);
    if (sw.out != stdout)
        fclose(sw.out);
    if (sw.select_out)
        fclose(sw.select_out);
    return status;
}
