/*
 * select_tune.c - the tune selector: time the candidate strategies on the
 * actual input once, keep the fastest, and remember it in a cache file
 * keyed by the matrix's structure, N, layouts, dtype, backend, threads and
 * device, so the next plan for the same problem costs one file read.
 *
 * Cost bound: each candidate runs twice (a clearly slow one once), then
 * the FINALISTS best, less those already clearly slower than the fastest
 * (FINALIST_WITHIN), run FINAL_ROUNDS more rounds, interleaved, of two runs
 * each (the first warms the caches for the second, the one kept) on the
 * host clock (DEVICE_FINAL_RUNS in one batch on a device clock); a lone
 * finalist needs no more rounds.  At most 2C + 24 runs on the host, 2C + 6
 * on a device, plus each candidate's preprocessing.  C is the model's best
 * TOP_BY_MODEL (TOP_BY_MODEL_DEVICE) when the backend has a model (32 runs
 * on the host, 12 on a GPU): the
 * model keeps the slow candidates, which dominate the cost, away; else the
 * backend's list (12 for OpenMP: 48 runs).  A finalist is judged by the
 * median of its interleaved rounds on the host, by its fastest run on a
 * device clock (time_spmm); the model's own choice stays unless measured
 * more than PRIOR_MARGIN slower than the best.  The plan's explanation
 * reports the cost in runs of the winner.
 *
 * The cache is a text file, one entry a line (loom_tune_cache_path(3)):
 *   FINGERPRINT BACKEND DTYPE N XLAYOUT,YLAYOUT THREADS DEVICE STRATEGY BEST_MS RUNS
 * '#' starts a comment; a malformed line is skipped, never fatal; a later
 * line for the same key wins.
 */
#include "config.h"
#include "loom_internal.h"
#include "select.h"
#include "select_plan.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FINALISTS 3
#define PRUNE 2.0      /* a first run this many times the best so far: no second */
/* A candidate whose best run is this many times the fastest one's is no
 * finalist: in the OpenMP sweeps no design that far behind after two runs
 * won, and its final rounds would cost more than the winner's own (a run
 * of a 2.5x slower finalist costs 2.5 runs of the winner). */
#define FINALIST_WITHIN 1.5
#define FINAL_ROUNDS 4 /* interleaved rounds over the finalists, two runs each */
#define DEVICE_FINAL_RUNS 2 /* on a device clock, one batch per finalist instead */
/* The model's best this many (host / device clock).  Held out on the H200
 * sweep the oracle is among the model's best 3 for 0.997 of the oracle's
 * speed, best 4 0.999, best 6 0.9996; on a GPU each one costs a plan's
 * device arrays and a wait, which for small matrices outweighs the runs. */
#define TOP_BY_MODEL 4
#define TOP_BY_MODEL_DEVICE 3
#define PRIOR_MARGIN 0.03 /* the model's choice stays unless 3% slower */
#define MAX_CANDIDATES 32

/* ------------------------------------------------------- fingerprint */

static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The structure in four independent lanes: one chain of multiplies cost
 * 4 ns a word (50 us for a matrix of 10k non-zeros, more than its SpMM). */
uint64_t loom__tune_fingerprint(const loom_csr *A)
{
    uint64_t h = 0x6c6f6f6d74756e65ull;
    h = mix(h, (uint64_t)A->rows);
    h = mix(h, (uint64_t)A->cols);
    h = mix(h, (uint64_t)A->nnz);
    uint64_t l0 = h, l1 = h + 1, l2 = h + 2, l3 = h + 3; /* four registers */
    const int64_t *ro = A->memory == LOOM_MEMORY_HOST ? A->row_offsets : A->host_row_offsets;
    int64_t i = 0;
    for (; i + 4 <= A->rows + 1; i += 4) {
        l0 = mix(l0, (uint64_t)ro[i]);
        l1 = mix(l1, (uint64_t)ro[i + 1]);
        l2 = mix(l2, (uint64_t)ro[i + 2]);
        l3 = mix(l3, (uint64_t)ro[i + 3]);
    }
    for (; i <= A->rows; i++)
        l0 = mix(l0, (uint64_t)ro[i]);
    if (A->memory == LOOM_MEMORY_HOST) { /* column indices two to a word */
        const uint32_t *ci = (const uint32_t *)A->col_indices;
        for (i = 0; i + 8 <= A->nnz; i += 8) {
            l0 = mix(l0, ci[i] | (uint64_t)ci[i + 1] << 32);
            l1 = mix(l1, ci[i + 2] | (uint64_t)ci[i + 3] << 32);
            l2 = mix(l2, ci[i + 4] | (uint64_t)ci[i + 5] << 32);
            l3 = mix(l3, ci[i + 6] | (uint64_t)ci[i + 7] << 32);
        }
        for (; i < A->nnz; i++)
            l1 = mix(l1, ci[i]);
    }
    h = mix(mix(mix(mix(h, l0), l1), l2), l3);
    return h;
}

/* ------------------------------------------------------------ the file */

loom_status loom_tune_cache_path(char *buf, size_t len)
{
    if (!buf)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_tune_cache_path: buf is NULL");
    const char *env = getenv("LOOM_TUNE_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(buf, len, "%s/loom/tune.txt", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.cache/loom/tune.txt", home);
    else
        return loom__error(LOOM_ERR_IO, "loom_tune_cache_path: none of LOOM_TUNE_CACHE, "
                                        "XDG_CACHE_HOME and HOME is set");
    if (n < 0 || (size_t)n >= len)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "loom_tune_cache_path: a buffer of %zu bytes is too small", len);
    return LOOM_SUCCESS;
}

loom_status loom_tune_cache_clear(void)
{
    char path[1024];
    loom_status st = loom_tune_cache_path(path, sizeof path);
    if (st != LOOM_SUCCESS)
        return st;
    if (remove(path) != 0 && errno != ENOENT)
        return loom__error(LOOM_ERR_IO, "loom_tune_cache_clear: cannot remove %s: %s", path,
                           strerror(errno));
    return LOOM_SUCCESS;
}

/* mkdir -p of the folder that holds path. */
static void make_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
}

static void format_key(const loom_plan *p, const loom__device_info *dev, uint64_t fp, char *key,
                       size_t len)
{
    snprintf(key, len, "%016" PRIx64 " %s %s %" PRId64 " %s,%s %d %s", fp, p->backend->name,
             loom_dtype_name(p->dtype), p->n, p->x_layout == LOOM_ROW_MAJOR ? "rm" : "cm",
             p->y_layout == LOOM_ROW_MAJOR ? "rm" : "cm", dev->threads, dev->id);
}

/* Looks key up; the last valid line wins.  Counts malformed lines. */
static bool cache_lookup(const char *path, const char *key, loom_strategy *s, double *ms,
                         int *bad_lines)
{
    FILE *f = fopen(path, "r");
    *bad_lines = 0;
    if (!f)
        return false;
    bool found = false;
    char line[1024];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char fpx[32], be[32], dt[16], lay[16], devid[128], strat[256];
        long long n;
        int threads, runs;
        double t;
        if (sscanf(line, "%31s %31s %15s %lld %15s %d %127s %255s %lf %d", fpx, be, dt, &n, lay,
                   &threads, devid, strat, &t, &runs) != 10 || !(t >= 0)) {
            (*bad_lines)++;
            continue;
        }
        loom_strategy parsed;
        if (loom_strategy_parse(strat, &parsed) != LOOM_SUCCESS) {
            (*bad_lines)++;
            continue;
        }
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            *s = parsed;
            *ms = t;
            found = true;
        }
    }
    fclose(f);
    loom__clear_error();
    return found;
}

static void cache_append(const char *path, const char *key, const loom_strategy *s, double ms,
                         int runs)
{
    char name[128];
    if (loom_strategy_format(s, name, sizeof name) != LOOM_SUCCESS)
        return;
    make_parent(path);
    bool fresh = access(path, F_OK) != 0;
    FILE *f = fopen(path, "a");
    if (!f)
        return; /* a cache that cannot be written only costs time */
    if (fresh)
        fprintf(f, "# loom tune cache (loom_tune_cache_path(3)); delete freely.\n"
                   "# FINGERPRINT BACKEND DTYPE N XLAYOUT,YLAYOUT THREADS DEVICE STRATEGY "
                   "BEST_MS RUNS\n");
    fprintf(f, "%s %s %.6g %d\n", key, name, ms, runs);
    fclose(f);
}

/* ------------------------------------------------------------ timing */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The operands tune runs on, of the plan's shapes, where the plan's
 * operands live.  Y is always scratch (the caller's Y may hold values that
 * beta will read later).  X is scratch random values, except on a device
 * when the caller's X has data: that one is only read, and filling a
 * scratch X on the host and copying it over costs more than every timed
 * run together once N is large. */
typedef struct scratch {
    loom_dense X, Y;
    const loom_backend *mem; /* device backend, or NULL for host */
    bool x_borrowed;         /* X is the caller's */
} scratch;

static void scratch_free(scratch *s)
{
    void *x = s->x_borrowed ? NULL : s->X.data;
    if (s->mem) {
        if (x)
            s->mem->mem_free(x);
        if (s->Y.data)
            s->mem->mem_free(s->Y.data);
    } else {
        loom__free(x);
        loom__free(s->Y.data);
    }
    s->X.data = s->Y.data = NULL;
}

static loom_status scratch_alloc(const loom_plan *p, const loom_dense *caller_x, scratch *s)
{
    memset(s, 0, sizeof *s);
    int64_t m = p->A->rows, k = p->A->cols, n = p->n;
    size_t es = loom_dtype_size(p->dtype), xb, yb;
    if (!loom__mul_size((size_t)(k ? k : 1) * es, (size_t)(n ? n : 1), &xb) ||
        !loom__mul_size((size_t)(m ? m : 1) * es, (size_t)(n ? n : 1), &yb))
        return loom__error(LOOM_ERR_OVERFLOW, "tune: operands too large");
    loom_memory mem = p->A->memory;
    s->X = (loom_dense){k, n, p->x_layout == LOOM_ROW_MAJOR ? n : k, p->x_layout, p->dtype, mem, NULL};
    s->Y = (loom_dense){m, n, p->y_layout == LOOM_ROW_MAJOR ? n : m, p->y_layout, p->dtype, mem, NULL};
    if (s->X.ld == 0)
        s->X.ld = 1;
    if (s->Y.ld == 0)
        s->Y.ld = 1;
    if (mem == LOOM_MEMORY_DEVICE) {
        s->mem = p->backend;
        loom_status st = s->mem->mem_alloc(&s->Y.data, yb);
        if (st == LOOM_SUCCESS && caller_x && caller_x->data) {
            s->X = *caller_x;
            s->x_borrowed = true;
        }
        if (st != LOOM_SUCCESS || s->x_borrowed)
            return st;
    }
    loom_dense hx = s->X;
    hx.memory = LOOM_MEMORY_HOST;
    hx.data = loom__malloc(xb);
    if (!hx.data)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "tune: out of memory for a scratch X");
    loom_dense_fill_random(&hx, 12345);
    if (mem == LOOM_MEMORY_HOST) {
        s->X.data = hx.data;
        s->Y.data = loom__calloc(1, yb);
        if (!s->Y.data)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY, "tune: out of memory for a scratch Y");
        return LOOM_SUCCESS;
    }
    loom_status st = s->mem->mem_alloc(&s->X.data, xb);
    if (st == LOOM_SUCCESS)
        st = s->mem->mem_copy(s->X.data, LOOM_MEMORY_DEVICE, hx.data, LOOM_MEMORY_HOST, xb,
                              p->ctx.stream);
    loom__free(hx.data);
    return st;
}

/* A plan that differs from p only in its strategy, prepared to run. */
static loom_status trial_prepare(const loom_plan *p, const loom_strategy *s, loom_plan *t)
{
    *t = *p;
    t->strategy = *s;
    t->chunk_first_row = NULL;
    t->chunks = 0;
    t->backend_data = NULL;
    loom_status st = p->backend->supports(s, p->dtype, p->A->memory);
    if (st == LOOM_SUCCESS && s->mloop == LOOM_M_EB) {
        const int64_t *ro = p->A->memory == LOOM_MEMORY_HOST ? p->A->row_offsets : p->A->host_row_offsets;
        st = loom__eb_chunk_rows(ro, p->A->rows, p->A->nnz, s->chunk, &t->chunk_first_row, &t->chunks);
    }
    if (st == LOOM_SUCCESS && p->backend->plan_prepare)
        st = p->backend->plan_prepare(t);
    return st;
}

static void trial_release(loom_plan *t)
{
    if (t->backend->plan_release)
        t->backend->plan_release(t);
    loom__free(t->chunk_first_row);
    t->chunk_first_row = NULL;
}

/* `runs` timed executions of a prepared trial plan, one time per run in
 * ms[]: by the backend's own clock where it has one (device events), else
 * by the host clock around each run; a device run without a clock of its
 * own ends with a one-element copy back, which waits for the kernel. */
static loom_status time_runs(loom_plan *t, scratch *s, int runs, double *ms)
{
    if (t->backend->time_spmm)
        return t->backend->time_spmm(t, &s->X, &s->Y, runs, ms);
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        loom_status st = t->backend->spmm(t, 1.0, &s->X, 0.0, &s->Y);
        if (st == LOOM_SUCCESS && s->mem) {
            char one[8];
            st = s->mem->mem_copy(one, LOOM_MEMORY_HOST, s->Y.data, LOOM_MEMORY_DEVICE,
                                  loom_dtype_size(t->dtype), t->ctx.stream);
        }
        if (st != LOOM_SUCCESS)
            return st;
        ms[i] = now_ms() - t0;
    }
    return LOOM_SUCCESS;
}

/* One candidate: its prepared plan while it is a finalist, the fastest of
 * its timed runs (interference only ever adds time, so that is the best
 * estimate of the kernel's own time from a few runs), and for a finalist on
 * the host clock its interleaved rounds (trial_estimate). */
typedef struct trial {
    loom_strategy s;
    loom_plan plan;
    bool live; /* plan prepared, not yet released */
    int rank;  /* place in the candidate list (0: the model's choice) */
    double best;
    int runs;
    double final_ms[FINAL_ROUNDS]; /* a finalist's interleaved rounds (host clock) */
    int finals;
    double estimate; /* what the winner is chosen by */
} trial;

static void trial_drop(trial *t)
{
    if (t->live)
        trial_release(&t->plan);
    t->live = false;
}

/* Time `runs` runs of t and keep the fastest; in a final round the last
 * run is also kept among the finalist's rounds. */
static loom_status trial_time(trial *t, scratch *sc, int runs, bool final_round, int *total)
{
    double ms[LOOM__TIME_RUNS_MAX];
    loom_status st = time_runs(&t->plan, sc, runs, ms);
    for (int i = 0; i < runs && st == LOOM_SUCCESS; i++, t->runs++, (*total)++) {
        if (ms[i] < t->best)
            t->best = ms[i];
        if (final_round && i == runs - 1 && t->finals < FINAL_ROUNDS)
            t->final_ms[t->finals++] = ms[i];
    }
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A finalist on the host clock is judged by the median of its interleaved
 * rounds, as a sweep judges a candidate (the fastest run favours whichever
 * candidate had one lucky run); otherwise by its fastest run. */
static void trial_estimate(trial *t)
{
    t->estimate = t->best;
    if (t->finals < 3)
        return;
    double v[FINAL_ROUNDS];
    memcpy(v, t->final_ms, (size_t)t->finals * sizeof v[0]);
    qsort(v, (size_t)t->finals, sizeof v[0], cmp_double);
    t->estimate = t->finals % 2 ? v[t->finals / 2] : 0.5 * (v[t->finals / 2 - 1] + v[t->finals / 2]);
}

static int cmp_trial(const void *a, const void *b)
{
    return cmp_double(&((const trial *)a)->estimate, &((const trial *)b)->estimate);
}

/* Index of the slowest live trial among t[0..n), or -1. */
static int slowest_live(const trial *t, int n)
{
    int w = -1;
    for (int i = 0; i < n; i++)
        if (t[i].live && (w < 0 || t[i].best > t[w].best))
            w = i;
    return w;
}

/*
 * Time the candidates; t[0] is the winner on return, still prepared
 * (live) when it was a finalist, the others released.
 * Round 1: each candidate is prepared and timed twice (on the host clock
 * once when its first run is over PRUNE times the best so far); only the
 * FINALISTS fastest so far stay prepared.  Round 2: on the host clock
 * FINAL_ROUNDS rounds of two runs of each finalist (the second kept),
 * interleaved so that a slow moment of the machine falls on all of them
 * alike; on a device clock DEVICE_FINAL_RUNS in one batch.
 */
static loom_status tune_run(loom_plan *p, const loom_dense *caller_x, const loom_strategy *cand, int c,
                            bool by_model, trial *t, int *count, int *runs, double *prep_ms,
                            double *run_ms)
{
    scratch sc;
    loom_status st = scratch_alloc(p, caller_x, &sc);
    int n = 0, live = 0;
    double fastest = HUGE_VAL;
    *runs = 0;
    /* On a device clock every call waits once (10-20 us, as long as a
     * small SpMM).  With no more candidates than finalists each one is a
     * finalist anyway: its first and final runs go in one batch. */
    const bool device_clock = p->backend->time_spmm != NULL;
    const bool one_batch = device_clock && c <= FINALISTS;
    for (int i = 0; i < c && n < MAX_CANDIDATES && st == LOOM_SUCCESS; i++) {
        trial *x = &t[n];
        *x = (trial){.s = cand[i], .rank = i, .best = HUGE_VAL};
        double t0 = now_ms();
        loom_status prep = trial_prepare(p, &x->s, &x->plan);
        double t1 = now_ms();
        *prep_ms += t1 - t0;
        if (prep != LOOM_SUCCESS) {
            trial_release(&x->plan); /* not supported here: not a candidate */
            loom__clear_error();
            continue;
        }
        x->live = true;
        /* The first run pays for first touches and the kernel's lazy
         * loading; it still counts, as the minimum discards it when a
         * later run is faster.  A candidate already twice as slow as the
         * best so far gets no second run. */
        if (device_clock) { /* one wait for both runs (and the final ones) */
            st = trial_time(x, &sc, one_batch ? 2 + DEVICE_FINAL_RUNS : 2, false, runs);
        } else {
            st = trial_time(x, &sc, 1, false, runs);
            if (st == LOOM_SUCCESS && !(n > 0 && x->best > PRUNE * fastest))
                st = trial_time(x, &sc, 1, false, runs);
        }
        *run_ms += now_ms() - t1;
        if (x->best < fastest)
            fastest = x->best;
        n++;
        if (++live > FINALISTS) {
            trial_drop(&t[slowest_live(t, n)]);
            live--;
        }
    }
    if (st == LOOM_SUCCESS && n == 0)
        st = loom__error(LOOM_ERR_NOT_SUPPORTED, "tune: backend %s runs none of the candidates",
                         p->backend->name);
    int fin[FINALISTS], nf = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].live && t[i].best > FINALIST_WITHIN * fastest)
            trial_drop(&t[i]);
        if (t[i].live && nf < FINALISTS)
            fin[nf++] = i;
    }
    /* The host clock is at the mercy of other processes: interleave.  A
     * device clock is not (repeated runs agree to about 2%), and each call
     * waits once: one short batch.  One finalist has nothing to beat. */
    const int rounds = one_batch || nf < 2 ? 0 : device_clock ? 1 : FINAL_ROUNDS;
    const double final_t0 = now_ms();
    /* A run that follows another plan's finds that plan's operands in the
     * caches: on small products it measured 10-30% slower after an EB plan
     * than after an RB one, while a plan called again and again (what tune
     * chooses for) runs warm.  So on the host each round runs a finalist
     * twice and keeps the second, and the rounds take the finalists in
     * varying order (rotations, every other one reversed). */
    for (int r = 0; r < rounds && st == LOOM_SUCCESS; r++)
        for (int j = 0; j < nf && st == LOOM_SUCCESS; j++) {
            const int k = r % 2 ? nf - 1 - j : j;
            trial *x = &t[fin[(k + r / 2) % nf]];
            st = device_clock ? trial_time(x, &sc, DEVICE_FINAL_RUNS, false, runs)
                              : trial_time(x, &sc, 2, true, runs);
        }
    *run_ms += now_ms() - final_t0;
    for (int i = 0; i < n; i++)
        trial_estimate(&t[i]);
    if (st == LOOM_SUCCESS)
        qsort(t, (size_t)n, sizeof *t, cmp_trial);
    /* With a model, its own choice stays unless measured clearly slower:
     * the model has seen many timings of many matrices, tune a few here. */
    for (int i = 1; by_model && st == LOOM_SUCCESS && i < n; i++) {
        /* (on the host only a finalist's median compares with the winner's) */
        const bool comparable = device_clock || t[i].finals > 0;
        if (t[i].rank != 0 || !comparable)
            continue;
        if (t[i].estimate <= t[0].estimate * (1.0 + PRIOR_MARGIN)) {
            const trial model_choice = t[i];
            memmove(&t[1], &t[0], (size_t)i * sizeof *t);
            t[0] = model_choice;
        }
        break;
    }
    /* The winner stays prepared (when it was a finalist) for the plan. */
    for (int i = st == LOOM_SUCCESS ? 1 : 0; i < n; i++)
        trial_drop(&t[i]);
    scratch_free(&sc);
    *count = n;
    return st;
}

/* The first `limit` candidates that compute different products at this N
 * (loom__product_name), order kept; each is formatted once (formatting
 * every pair cost 150 us for the GPU's 21 candidates). */
static int distinct_at_n(loom_backend_id backend, loom_strategy *s, int count, int64_t n,
                         int limit)
{
    char name[MAX_CANDIDATES][128];
    int kept = 0;
    for (int i = 0; i < count && kept < limit; i++) {
        if (!loom__product_name(backend, &s[i], n, name[kept], sizeof name[kept]))
            continue;
        bool repeat = false;
        for (int j = 0; j < kept && !repeat; j++)
            repeat = strcmp(name[j], name[kept]) == 0;
        if (!repeat)
            s[kept++] = s[i];
    }
    return kept;
}

/* The candidates to time, best first by the backend's model when it has
 * one (then only the TOP_BY_MODEL best), else the backend's list. */
static int tune_candidates(const loom_plan *p, const loom__device_info *dev, loom_strategy *out,
                           bool *by_model)
{
    const loom__model *m = loom__model_acquire(p->backend->id, NULL, 0);
    int n = 0;
    *by_model = false;
    if (m) {
        double x[LOOM__FEATURE_COUNT], all[LOOM__MODEL_MAX_CANDIDATES], pred[MAX_CANDIDATES];
        loom__feature_vector(&p->features, p->n, p->x_layout, p->y_layout, p->dtype, dev, x);
        loom__model_predict_all(m, x, all);
        int c = loom__model_candidates(m);
        for (int i = 0; i < c && n < MAX_CANDIDATES; i++) {
            if (!loom__candidate_fits(&p->features, loom__model_candidate(m, i)))
                continue;
            out[n] = *loom__model_candidate(m, i);
            pred[n] = all[i];
            for (int j = n; j > 0 && pred[j] < pred[j - 1]; j--) { /* insertion sort */
                double tp = pred[j];
                pred[j] = pred[j - 1];
                pred[j - 1] = tp;
                loom_strategy ts = out[j];
                out[j] = out[j - 1];
                out[j - 1] = ts;
            }
            n++;
        }
        loom__model_release(m);
        n = distinct_at_n(p->backend->id, out, n, p->n,
                          p->backend->time_spmm ? TOP_BY_MODEL_DEVICE : TOP_BY_MODEL);
        *by_model = n > 0;
    }
    if (n == 0) {
        const char *const *names;
        int c = loom__candidate_names(p->backend->id, &names);
        for (int i = 0; i < c && n < MAX_CANDIDATES; i++)
            if (loom_strategy_parse(names[i], &out[n]) == LOOM_SUCCESS &&
                loom__candidate_fits(&p->features, &out[n]))
                n++;
        loom__clear_error();
        n = distinct_at_n(p->backend->id, out, n, p->n, MAX_CANDIDATES);
    }
    return n;
}

loom_status loom__select_tune(loom_plan *p, const loom__device_info *dev, const loom_dense *X,
                              char *why, size_t len)
{
    if (p->dtype != LOOM_F32 && p->dtype != LOOM_F64)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "tune: %s values need a tensor-core strategy, which tune does not time "
                           "yet; give one with the fixed selector",
                           loom_dtype_name(p->dtype));
    double t0 = now_ms();
    char path[1024] = "";
    bool have_path = loom_tune_cache_path(path, sizeof path) == LOOM_SUCCESS;
    loom__clear_error();
    uint64_t fp = loom__tune_fingerprint(p->A);
    char key[512];
    format_key(p, dev, fp, key, sizeof key);
    int bad = 0;
    double cached_ms;
    if (have_path && cache_lookup(path, key, &p->strategy, &cached_ms, &bad) &&
        p->backend->supports(&p->strategy, p->dtype, p->A->memory) == LOOM_SUCCESS) {
        snprintf(why, len, "tune: cached in %s (key %.16s..., measured %.4g ms); lookup took %.3g ms%s",
                 path, key, cached_ms, now_ms() - t0,
                 bad ? "; skipped malformed lines in the cache" : "");
        return LOOM_SUCCESS;
    }
    loom__clear_error();
    trial t[MAX_CANDIDATES];
    loom_strategy cand[MAX_CANDIDATES];
    bool by_model;
    int c = tune_candidates(p, dev, cand, &by_model);
    int count = 0, runs = 0;
    double prep_ms = 0, run_ms = 0;
    loom_status st = tune_run(p, X, cand, c, by_model, t, &count, &runs, &prep_ms, &run_ms);
    if (st != LOOM_SUCCESS)
        return st;
    p->strategy = t[0].s;
    if (t[0].live) { /* its preparation becomes the plan's */
        p->chunk_first_row = t[0].plan.chunk_first_row;
        p->chunks = t[0].plan.chunks;
        p->backend_data = t[0].plan.backend_data;
        p->prepared = true;
        t[0].live = false;
    }
    double total = now_ms() - t0;
    if (have_path)
        cache_append(path, key, &t[0].s, t[0].best, runs);
    char second[128] = "none";
    if (count > 1)
        loom_strategy_format(&t[1].s, second, sizeof second);
    snprintf(why, len,
             "tune: timed %d candidates (%s) on this input, %d SpMM runs, %s clock; chose %.4g ms, "
             "runner-up %s at %.4g ms; tuning took %.4g ms = %.1f runs of the winner (preparing "
             "the candidates %.3g ms, timing them %.3g ms); saved to %s",
             count, by_model ? "the model's best" : "the backend's list", runs,
             p->backend->time_spmm ? "the device's" : "the host's", t[0].estimate, second,
             count > 1 ? t[1].estimate : 0.0, total, t[0].best > 0 ? total / t[0].best : 0.0,
             prep_ms, run_ms, have_path ? path : "(no cache path)");
    return LOOM_SUCCESS;
}
