/*
 * cpu_bench.c - loom's OpenMP backend against the CPU SpMM libraries people
 * use (librsb, SuiteSparse:GraphBLAS, Eigen; each when built in), side by
 * side in one run, on the real matrices of ../shared/data/bench, plus
 * generated inputs larger than the LLC for the SpMV bandwidth check (a band
 * and two seeded R-MAT matrices, N <= 4 only, not in the geometric means;
 * --no-synthetic leaves them out).
 *
 * For each matrix and N it prints two loom times.  "loom": the fastest of a
 * fixed list of designs, each timed on this input (an oracle over that
 * list, not something a user gets), with its GFLOP/s, the bytes-moved floor
 * (compulsory bytes over the stream bandwidth measured here, at start) and
 * each peer's time as a ratio to it.  "auto": the plan loom's default
 * options make (LOOM_SELECT_AUTO: the trained model, else the rules), its
 * design and time.  It writes a CSV and an SVG plot (gnuplot), and ends
 * with the geometric means per N over the real matrices, of best-peer time
 * over loom time and over auto time.
 * Every library gets the same thread count, float data, row-major X and Y,
 * beta = 0; plan / matrix set-up time is not counted (inspector-executor).
 *
 *   bench/cpu_bench [--data DIR] [--out DIR] [--threads T] [--n 1,4,16]
 *                   [--filter TEXT] [--min-time SECONDS] [--no-synthetic]
 *                   [--rounds R]
 *
 * --rounds R (default 1) times every library R times over for each input
 * and N, in turn (loom's designs, auto, the peers, then again), keeps each
 * one's best, and measures the stream bandwidth again after each round,
 * the floor check at the end using the highest: on a shared machine a
 * neighbour's build can hold up one library's whole timing window, and
 * rounds spread every library over the same stretch of time.
 */
#include "config.h"

#include <loom.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_args.h"
#include "synthetic_inputs.h"

#ifdef LOOM_HAVE_HWLOC
#include <hwloc.h>
#endif
#ifdef LOOM_HAVE_LIBRSB
#include <rsb.h>
#endif
#ifdef LOOM_HAVE_GRAPHBLAS
#if __has_include(<suitesparse/GraphBLAS.h>)
#include <suitesparse/GraphBLAS.h>
#else
#include <GraphBLAS.h>
#endif
#endif
#ifdef LOOM_HAVE_EIGEN
#include "eigen_peer.h"
#endif

enum { PEER_RSB, PEER_GRAPHBLAS, PEER_EIGEN, PEERS };
static const char *const peer_names[PEERS] = {"librsb", "GraphBLAS", "Eigen"};
static const int peer_built[PEERS] = {
#ifdef LOOM_HAVE_LIBRSB
    1,
#else
    0,
#endif
#ifdef LOOM_HAVE_GRAPHBLAS
    1,
#else
    0,
#endif
#ifdef LOOM_HAVE_EIGEN
    1,
#else
    0,
#endif
};

#define MAX_N 16
#define MAX_MATRICES 256

typedef struct options {
    const char *data, *out, *filter;
    int threads;
    int64_t n[MAX_N];
    int n_count;
    double min_time;
    int synthetic;
    int rounds;
} options;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define DIE(...)                                                                                 \
    do {                                                                                         \
        fprintf(stderr, "cpu_bench: " __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                                     \
        exit(1);                                                                                 \
    } while (0)
#define CHECK(call)                                                                              \
    do {                                                                                         \
        loom_status st_ = (call);                                                                \
        if (st_ != LOOM_SUCCESS)                                                                 \
            DIE("%s: %s", #call, loom_last_error());                                             \
    } while (0)

/* ----------------------------------------------------------- machine */

/* STREAM-style triad a = b + s*c over arrays far larger than the LLC, with
 * the benchmark's threads; bytes counted as STREAM does (3 arrays). */
static double stream_bandwidth(int threads, size_t llc)
{
    size_t n = (llc * 4 > ((size_t)96 << 20) ? llc * 4 : ((size_t)96 << 20)) / sizeof(double);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    /* (best of 10 passes: a pass is held up whenever the host is busy) */
    if (!a || !b || !c)
        DIE("out of memory for the stream arrays");
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
    }
    double best = 1e30;
    for (int rep = 0; rep < 10; rep++) {
        double t0 = now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + 0.5 * c[i];
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    double check = a[n / 2];
    free(a);
    free(b);
    free(c);
    if (check != 2.0)
        DIE("stream triad check failed");
    return 3.0 * (double)(n * sizeof(double)) / best;
}

/* The machine's load average now (the run's numbers depend on it: this
 * machine is shared), as /proc/loadavg has it; "?" elsewhere. */
static void load_average(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
}

static size_t llc_bytes(void)
{
    size_t size = 0;
#ifdef LOOM_HAVE_HWLOC
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
        static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE};
        for (int l = 0; l < 2 && !size; l++) {
            hwloc_obj_t o = hwloc_get_next_obj_by_type(t, levels[l], NULL);
            if (o && o->attr)
                size = (size_t)o->attr->cache.size;
        }
        hwloc_topology_destroy(t);
    }
#endif
    return size ? size : (size_t)32 << 20;
}

/* The last-level cache this process can use, measured: the largest
 * buffer (doubling from 4 MiB) that one thread still reads at least 1.5
 * times as fast as a buffer far larger than any cache.  On the 2-core
 * build VM the processor reports the host's whole L3 (508 MiB) while the
 * two cores read at memory speed from 32 MiB on, so which inputs are
 * "larger than the LLC" is judged by the smaller of the two. */
static size_t measured_llc(size_t reported)
{
    const size_t top = (size_t)1 << 30;
    float *a = malloc(top);
    if (!a)
        return reported;
    for (size_t i = 0; i < top / sizeof *a; i++)
        a[i] = (float)(i & 1023);
    double rate[16];
    int sizes = 0;
    float sink = 0;
    for (size_t bytes = (size_t)4 << 20; bytes <= top; bytes *= 2, sizes++) {
        const size_t n = bytes / sizeof *a;
        double best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
            double t0 = now();
            for (size_t i = 0; i < n; i += 16) /* one float per 64-byte line */
                sink += a[i];
            double t = now() - t0;
            if (rep > 0 && t < best)
                best = t;
        }
        rate[sizes] = (double)bytes / best;
    }
    free(a);
    size_t llc = (size_t)2 << 20;
    for (int k = 0; k < sizes && rate[k] >= 1.5 * rate[sizes - 1]; k++)
        llc = (size_t)4 << (20 + k);
    if (sink == -1.0f) /* keeps the reads */
        printf("#\n");
    return llc < reported ? llc : reported;
}

/* ------------------------------------------------------------ timing */

typedef void (*run_fn)(void *state);

/* Best of repeated runs, after one warm-up run: at least min_time seconds
 * and at least 15 runs (or 3 once a second has gone by).  On a shared
 * machine a 2-thread run is often held up a whole scheduler tick or more
 * (times of 4, 8, 12, 20 ms instead of 0.1); the best of 15 is rarely
 * caught by that where the best of 3 often was.  Every library gets the
 * same rule. */
static double best_time(run_fn fn, void *state, double min_time)
{
    fn(state);
    double best = 1e30, total = 0;
    for (int rep = 0; rep < 3 || ((total < min_time || (rep < 15 && total < 1.0)) && rep < 2000);
         rep++) {
        double t0 = now();
        fn(state);
        double t = now() - t0;
        total += t;
        if (t < best)
            best = t;
    }
    return best;
}

/* -------------------------------------------------------------- loom */

typedef struct loom_run {
    loom_plan *plan;
    loom_dense *X, *Y;
} loom_run;

static void run_loom(void *s)
{
    loom_run *r = s;
    loom_spmm_execute(r->plan, 1.0, r->X, 0.0, r->Y);
}

/* The fixed designs tried per input; the fastest is reported as "loom"
 * (what the selectors are measured against, beside the AUTO plan). */
static const char *const designs_spmv[] = {"rb-rm-sr", "rb-rm-pr:lanes=4", "rb-rm-pr:lanes=8",
                                           "eb-rm-sr:chunk=2048", NULL};
static const char *const designs_spmm[] = {"rb-rm-sr", "eb-rm-sr:chunk=4096", NULL};

static double time_loom(loom_context *ctx, loom_csr *A, loom_dense *X, loom_dense *Y, int64_t n,
                        double min_time, char *design, size_t len)
{
    const char *const *list = n == 1 ? designs_spmv : designs_spmm;
    double best = 1e30;
    for (int d = 0; list[d]; d++) {
        loom_plan_options opts;
        CHECK(loom_plan_options_init(&opts));
        opts.backend = LOOM_BACKEND_OPENMP;
        opts.selector = LOOM_SELECT_FIXED;
        CHECK(loom_strategy_parse(list[d], &opts.strategy));
        loom_run r = {NULL, X, Y};
        CHECK(loom_spmm_plan_create(ctx, &r.plan, A, X, Y, &opts));
        double t = best_time(run_loom, &r, min_time);
        if (t < best) {
            best = t;
            snprintf(design, len, "%s", list[d]);
        }
        loom_plan_destroy(&r.plan);
    }
    return best;
}

/* What a user gets by default: loom_plan_options_init's selector
 * (LOOM_SELECT_AUTO: the backend's trained model when one is found, else
 * the rules) on the OpenMP backend, timed like the fixed designs. */
static double time_auto(loom_context *ctx, loom_csr *A, loom_dense *X, loom_dense *Y,
                        double min_time, char *design, size_t len)
{
    loom_plan_options opts;
    CHECK(loom_plan_options_init(&opts));
    opts.backend = LOOM_BACKEND_OPENMP;
    loom_run r = {NULL, X, Y};
    CHECK(loom_spmm_plan_create(ctx, &r.plan, A, X, Y, &opts));
    loom_strategy s;
    CHECK(loom_plan_strategy(r.plan, &s, NULL));
    CHECK(loom_strategy_format(&s, design, len));
    double t = best_time(run_loom, &r, min_time);
    loom_plan_destroy(&r.plan);
    return t;
}

/* Where the AUTO selector's choices come from in this process (the model
 * file it found, or the rules), from a plan's explanation on a tiny input. */
static void auto_source(loom_context *ctx, char *buf, size_t len)
{
    const int64_t ro[3] = {0, 1, 2};
    const int32_t ci[2] = {0, 1};
    const float v[2] = {1, 1};
    loom_csr *A = NULL;
    loom_dense X, Y;
    CHECK(loom_csr_create(ctx, &A, 2, 2, 2, LOOM_F32, ro, ci, v));
    CHECK(loom_dense_alloc(ctx, &X, 2, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Y, 2, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    loom_plan_options opts;
    CHECK(loom_plan_options_init(&opts));
    opts.backend = LOOM_BACKEND_OPENMP;
    loom_plan *plan = NULL;
    CHECK(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts));
    /* "why: auto: model: 12 candidates ranked by the trees of PATH; ..." */
    const char *why = strstr(loom_plan_explain(plan), "why: auto: model:");
    const char *model = why ? strstr(why, "trees of ") : NULL;
    if (model)
        snprintf(buf, len, "the trained model %.*s", (int)strcspn(model + 9, ";"), model + 9);
    else
        snprintf(buf, len, "the rules (no trained model was found for the OpenMP backend)");
    loom_plan_destroy(&plan);
    loom_dense_free(ctx, &X);
    loom_dense_free(ctx, &Y);
    loom_csr_destroy(&A);
}

/* ------------------------------------------------------------- peers */

typedef struct peer_run {
    int64_t rows, cols, n;
    const float *x;
    float *y;
#ifdef LOOM_HAVE_LIBRSB
    struct rsb_mtx_t *rsb;
#endif
#ifdef LOOM_HAVE_GRAPHBLAS
    GrB_Matrix gA, gX, gY;
    GrB_Vector gx, gy;
#endif
#ifdef LOOM_HAVE_EIGEN
    eigen_peer *eigen;
#endif
} peer_run;

#ifdef LOOM_HAVE_LIBRSB
static void run_rsb(void *s)
{
    peer_run *p = s;
    const float alpha = 1, beta = 0;
    if (p->n == 1)
        rsb_spmv(RSB_TRANSPOSITION_N, &alpha, p->rsb, p->x, 1, &beta, p->y, 1);
    else
        rsb_spmm(RSB_TRANSPOSITION_N, &alpha, p->rsb, (rsb_coo_idx_t)p->n,
                 RSB_FLAG_WANT_ROW_MAJOR_ORDER, p->x, (rsb_nnz_idx_t)p->n, &beta, p->y,
                 (rsb_nnz_idx_t)p->n);
}
#endif

#ifdef LOOM_HAVE_GRAPHBLAS
static void run_graphblas(void *s)
{
    peer_run *p = s;
    if (p->n == 1) {
        GrB_mxv(p->gy, NULL, NULL, GxB_PLUS_TIMES_FP32, p->gA, p->gx, NULL);
        GrB_Vector_wait(p->gy, GrB_MATERIALIZE);
    } else {
        GrB_mxm(p->gY, NULL, NULL, GxB_PLUS_TIMES_FP32, p->gA, p->gX, NULL);
        GrB_Matrix_wait(p->gY, GrB_MATERIALIZE);
    }
}
#endif

#ifdef LOOM_HAVE_EIGEN
static void run_eigen(void *s)
{
    peer_run *p = s;
    eigen_peer_spmm(p->eigen, p->x, p->n, p->y);
}
#endif

/* Each peer's time for this matrix and N (NAN when not built). */
static void time_peers(const loom_csr *A, const float *x, float *y, int64_t n, int threads,
                       double min_time, double t[PEERS])
{
    int64_t rows, cols, nnz;
    const int64_t *ro;
    const int32_t *ci;
    const void *vals;
    CHECK(loom_csr_info(A, &rows, &cols, &nnz, NULL, NULL));
    CHECK(loom_csr_arrays(A, &ro, &ci, &vals));
    const float *v = vals;
    peer_run p;
    memset(&p, 0, sizeof p);
    p.rows = rows;
    p.cols = cols;
    p.n = n;
    p.x = x;
    p.y = y;
    for (int k = 0; k < PEERS; k++)
        t[k] = NAN;
    (void)threads; /* each is unused where no peer is built */
    (void)v;
    (void)min_time;
#ifdef LOOM_HAVE_LIBRSB
    {
        rsb_coo_idx_t *rp = malloc((size_t)(rows + 1) * sizeof *rp);
        for (int64_t i = 0; i <= rows; i++)
            rp[i] = (rsb_coo_idx_t)ro[i];
        rsb_err_t err = RSB_ERR_NO_ERROR;
        p.rsb = rsb_mtx_alloc_from_csr_const(v, rp, ci, (rsb_nnz_idx_t)nnz, RSB_NUMERICAL_TYPE_FLOAT,
                                             (rsb_coo_idx_t)rows, (rsb_coo_idx_t)cols, 1, 1,
                                             RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS, &err);
        free(rp);
        if (p.rsb) {
            t[PEER_RSB] = best_time(run_rsb, &p, min_time);
            rsb_mtx_free(p.rsb);
        }
    }
#endif
#ifdef LOOM_HAVE_GRAPHBLAS
    {
        GrB_Index *I = malloc((size_t)(nnz ? nnz : 1) * sizeof *I);
        GrB_Index *J = malloc((size_t)(nnz ? nnz : 1) * sizeof *J);
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = ro[i]; j < ro[i + 1]; j++) {
                I[j] = (GrB_Index)i;
                J[j] = (GrB_Index)ci[j];
            }
        GrB_Matrix_new(&p.gA, GrB_FP32, (GrB_Index)rows, (GrB_Index)cols);
        GrB_Matrix_build_FP32(p.gA, I, J, v, (GrB_Index)nnz, GrB_PLUS_FP32);
        GrB_Matrix_wait(p.gA, GrB_MATERIALIZE);
        free(I);
        free(J);
        size_t xbytes = (size_t)(cols * n) * sizeof(float);
        void *xc = malloc(xbytes ? xbytes : 4);
        memcpy(xc, x, xbytes);
        if (n == 1) {
            GxB_Vector_import_Full(&p.gx, GrB_FP32, (GrB_Index)cols, &xc, xbytes, false, NULL);
            GrB_Vector_new(&p.gy, GrB_FP32, (GrB_Index)rows);
        } else {
            GxB_Matrix_import_FullR(&p.gX, GrB_FP32, (GrB_Index)cols, (GrB_Index)n, &xc, xbytes,
                                    false, NULL);
            GrB_Matrix_new(&p.gY, GrB_FP32, (GrB_Index)rows, (GrB_Index)n);
        }
        t[PEER_GRAPHBLAS] = best_time(run_graphblas, &p, min_time);
        GrB_Matrix_free(&p.gA);
        GrB_Matrix_free(&p.gX);
        GrB_Matrix_free(&p.gY);
        GrB_Vector_free(&p.gx);
        GrB_Vector_free(&p.gy);
    }
#endif
#ifdef LOOM_HAVE_EIGEN
    p.eigen = eigen_peer_create(rows, cols, nnz, ro, ci, v, threads);
    t[PEER_EIGEN] = best_time(run_eigen, &p, min_time);
    eigen_peer_free(p.eigen);
#endif
}

/* ------------------------------------------------------------ inputs */

/* Where an input comes from: a file of the data folder, or generated here
 * (the generated ones are larger than the LLC and run at N <= 4 only). */
typedef enum input_kind { INPUT_FILE, INPUT_BAND, INPUT_RMAT } input_kind;

typedef struct matrix_entry {
    char name[256];
    char path[4096]; /* INPUT_FILE only */
    input_kind kind;
    int scale, edge_factor; /* INPUT_RMAT: 2^scale rows, edge_factor * 2^scale edges drawn */
} matrix_entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const matrix_entry *)a)->name, ((const matrix_entry *)b)->name);
}

static int list_matrices(const options *o, matrix_entry *list)
{
    DIR *d = opendir(o->data);
    if (!d)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < MAX_MATRICES) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".mtx.gz") != 0)
            continue; /* the .smtx twins of DLMC files hold the same pattern */
        if (o->filter && !strstr(e->d_name, o->filter))
            continue;
        snprintf(list[count].name, sizeof list[count].name, "%.*s", (int)(len - 7), e->d_name);
        snprintf(list[count].path, sizeof list[count].path, "%s/%s", o->data, e->d_name);
        list[count].kind = INPUT_FILE;
        count++;
    }
    closedir(d);
    qsort(list, (size_t)count, sizeof *list, cmp_entry);
    return count;
}

/* The generated inputs (--no-synthetic: none): the band, and R-MAT at 2^21
 * rows / 8.4M edges drawn and 2^22 rows / 16.8M: 8.29M and 16.61M
 * non-zeros after repeats are dropped, CSR of 83 and 166 MB (100 and 200 MB
 * with x and y at N = 1). */
static const struct generated_input {
    const char *name;
    input_kind kind;
    int scale, edge_factor;
} generated[] = {{"synthetic_band_1M_x8", INPUT_BAND, 0, 0},
                 {"synthetic_rmat_s21_ef4", INPUT_RMAT, 21, 4},
                 {"synthetic_rmat_s22_ef4", INPUT_RMAT, 22, 4}};
#define GENERATED_COUNT ((int)(sizeof generated / sizeof generated[0]))

/* ---------------------------------------------------------- results */

typedef struct result {
    int matrix;
    int64_t n;
    int synthetic; /* a generated input: not in the geometric means */
    double bytes, loom, floor, peer[PEERS];
    char design[64];      /* loom: the fastest of the fixed designs */
    double auto_time;     /* the AUTO selector's plan */
    char auto_design[64];
} result;

static const char usage[] = "usage: cpu_bench [--data DIR] [--out DIR] [--threads T] [--n 1,4,16,64,256]\n"
                            "                 [--filter TEXT] [--min-time SECONDS] [--no-synthetic]\n"
                            "                 [--rounds R]\n";

/* A usage error, after its message: the usage, and exit status 2. */
static void usage_error(void)
{
    fputs(usage, stderr);
    exit(2);
}

/* An option's whole-number value (bench_args.h); a bad one is a usage error. */
static int count_or_exit(const char *opt, const char *text, int lo, int hi)
{
    const int x = count_arg("cpu_bench", opt, text, lo, hi);
    if (x < 0)
        usage_error();
    return x;
}

static void parse_args(int argc, char **argv, options *o)
{
    static char data[4096];
    snprintf(data, sizeof data, "%s/../shared/data/bench", LOOM_SRCDIR);
    o->data = data;
    o->out = LOOM_SRCDIR "/bench/results";
    o->filter = NULL;
    o->threads = 2;
    const int64_t def[] = {1, 4, 16, 64, 256};
    o->n_count = 5;
    memcpy(o->n, def, sizeof def);
    o->min_time = 0.05;
    o->synthetic = 1;
    o->rounds = 1;
    static const char *const with_value[] = {"--data", "--out", "--filter", "--threads", "--min-time",
                                             "--rounds", "--n", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (lacks_value("cpu_bench", a, with_value, !v))
            usage_error();
        if (!strcmp(a, "--data"))
            o->data = argv[++i];
        else if (!strcmp(a, "--out"))
            o->out = argv[++i];
        else if (!strcmp(a, "--filter"))
            o->filter = argv[++i];
        else if (!strcmp(a, "--threads"))
            o->threads = count_or_exit("--threads", argv[++i], 1, 1000000);
        else if (!strcmp(a, "--min-time")) {
            o->min_time = number_arg("cpu_bench", "--min-time", argv[++i], 1e-6, 3600);
            if (o->min_time < 0)
                usage_error();
        } else if (!strcmp(a, "--no-synthetic"))
            o->synthetic = 0;
        else if (!strcmp(a, "--rounds"))
            o->rounds = count_or_exit("--rounds", argv[++i], 1, 1000000);
        else if (!strcmp(a, "--n")) {
            if ((o->n_count = count_list("cpu_bench", "--n", argv[++i], 1, INT32_MAX, o->n, MAX_N)) < 0)
                usage_error();
        } else {
            /* --help and -h: the usage on stdout; anything else is an error */
            if (strcmp(a, "--help") && strcmp(a, "-h")) {
                fprintf(stderr, "cpu_bench: unknown option '%s'\n", a);
                usage_error();
            }
            fputs(usage, stdout);
            exit(0);
        }
    }
}

/* Geometric means over the real matrices per N of best-peer time and each
 * peer's time over loom's (the best fixed design) or, with use_auto, over
 * the AUTO plan's, which also gets the mean of its time over loom's. */
static void summary_table(const result *res, int nres, const options *o, int use_auto)
{
    printf("%6s %14s", "N", use_auto ? "best-peer/auto" : "best-peer/loom");
    for (int p = 0; p < PEERS; p++)
        if (peer_built[p])
            printf(" %14s", peer_names[p]);
    if (use_auto)
        printf(" %14s", "auto/loom");
    printf("   target >= 1.3\n");
    for (int k = 0; k < o->n_count; k++) {
        double lsum = 0, psum[PEERS] = {0}, asum = 0;
        int cnt = 0, pcnt[PEERS] = {0}, acnt = 0;
        for (int i = 0; i < nres; i++) {
            const result *r = &res[i];
            if (r->n != o->n[k] || r->synthetic)
                continue;
            double t = use_auto ? r->auto_time : r->loom;
            double best = INFINITY;
            for (int p = 0; p < PEERS; p++)
                if (!isnan(r->peer[p])) {
                    best = fmin(best, r->peer[p]);
                    psum[p] += log(r->peer[p] / t);
                    pcnt[p]++;
                }
            if (isfinite(best)) {
                lsum += log(best / t);
                cnt++;
            }
            asum += log(r->auto_time / r->loom);
            acnt++;
        }
        printf("%6lld %14.2f", (long long)o->n[k], cnt ? exp(lsum / cnt) : NAN);
        for (int p = 0; p < PEERS; p++)
            if (peer_built[p])
                printf(" %14.2f", pcnt[p] ? exp(psum[p] / pcnt[p]) : NAN);
        if (use_auto)
            printf(" %14.2f", acnt ? exp(asum / acnt) : NAN);
        printf("   %s\n", cnt && exp(lsum / cnt) >= 1.3 ? "met" : "NOT met");
    }
}

static void write_plot(const options *o, const char *csv, int n_count, const int64_t *ns)
{
    char script[4096], svg[4096];
    snprintf(script, sizeof script, "%s/cpu_bench.gp", o->out);
    snprintf(svg, sizeof svg, "%s/cpu_bench.svg", o->out);
    FILE *f = fopen(script, "w");
    if (!f)
        return;
    fprintf(f,
            "# cpu_bench.gp - written by cpu_bench: best peer time / loom time per matrix and N\n"
            "set terminal svg size 1400,700 dynamic font 'sans,11'\n"
            "set output '%s'\n"
            "set datafile separator ','\n"
            "set title 'loom (OpenMP backend, best fixed design per input) vs the best of librsb, "
            "GraphBLAS, Eigen (%d threads, float)'\n"
            "set ylabel 'best peer time / loom time (> 1: loom faster)'\n"
            "set logscale y 2\n"
            "set grid ytics\n"
            "set xtics rotate by -60 font ',8'\n"
            "set key outside right\n"
            "plot 1 notitle lc rgb 'black' dt 2",
            svg, o->threads);
    for (int k = 0; k < n_count; k++)
        fprintf(f,
                ", '%s' using ($6==%lld && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 "
                "title 'N = %lld'",
                csv, (long long)ns[k], (long long)ns[k]);
    fprintf(f, "\n");
    fclose(f);
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", script);
    if (system(cmd) != 0)
        fprintf(stderr, "cpu_bench: gnuplot failed or is absent; the CSV and %s remain\n", script);
}

int main(int argc, char **argv)
{
    options o;
    parse_args(argc, argv, &o);
    matrix_entry *list = calloc(MAX_MATRICES + GENERATED_COUNT, sizeof *list);
    int count = list_matrices(&o, list);
    if (count < 0) {
        printf("cpu_bench: the benchmark matrices are ABSENT: cannot open %s (%s).\n"
               "Point --data at a folder of .mtx.gz files (see ../shared/data/MANIFEST.md).\n",
               o.data, strerror(errno));
        if (!o.synthetic)
            return 77;
        count = 0;
    } else if (count == 0) {
        printf("cpu_bench: no .mtx.gz files%s in %s: the benchmark matrices are ABSENT.\n",
               o.filter ? " matching the filter" : "", o.data);
    }
    int real_count = count;
    if (o.synthetic) {
        for (int g = 0; g < GENERATED_COUNT; g++) {
            snprintf(list[count].name, sizeof list[count].name, "%s", generated[g].name);
            list[count].path[0] = '\0';
            list[count].kind = generated[g].kind;
            list[count].scale = generated[g].scale;
            list[count].edge_factor = generated[g].edge_factor;
            count++;
        }
    }
#ifdef LOOM_HAVE_LIBRSB
    if (rsb_lib_init(RSB_NULL_INIT_OPTIONS) != RSB_ERR_NO_ERROR)
        DIE("rsb_lib_init failed");
    {
        rsb_int_t nt = o.threads;
        rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &nt);
    }
#endif
#ifdef LOOM_HAVE_GRAPHBLAS
    GrB_init(GrB_NONBLOCKING);
    GxB_set(GxB_NTHREADS, o.threads);
#endif
    loom_context *ctx;
    CHECK(loom_context_create(&ctx));
    CHECK(loom_context_set_threads(ctx, o.threads));

    const size_t llc_reported = llc_bytes();
    const size_t llc = measured_llc(llc_reported);
    double bw = stream_bandwidth(o.threads, llc_reported), bw_max = bw;
    char peers[128] = "";
    for (int k = 0; k < PEERS; k++)
        if (peer_built[k]) {
            strcat(peers, " ");
            strcat(peers, peer_names[k]);
        }
    printf("# loom cpu_bench: %d matrices from %s", real_count, o.data);
    if (count > real_count)
        printf(" + %d generated (band, R-MAT; N <= 4 only)", count - real_count);
    printf(", N in {");
    for (int k = 0; k < o.n_count; k++)
        printf("%s%lld", k ? "," : "", (long long)o.n[k]);
    printf("}, float, %d threads for everyone", o.threads);
    if (o.rounds > 1)
        printf(", best of %d rounds", o.rounds);
    printf("\n");
    printf("# peers built in:%s\n", peers[0] ? peers : " none");
    {
        char la[64];
        time_t t0 = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&t0));
        load_average(la, sizeof la);
        printf("# started %s, load average (1, 5, 15 min) %s\n", when, la);
    }
    printf("# stream triad bandwidth (measured now, %d threads): %.2f GB/s; LLC %zu KiB "
           "(reported %zu KiB, read speed falls to memory speed beyond %zu KiB)\n",
           o.threads, bw / 1e9, llc >> 10, llc_reported >> 10, llc >> 10);
    {
        char source[512];
        auto_source(ctx, source, sizeof source);
        printf("# loom = the fastest of loom's fixed designs, each timed on this input (N = 1:");
        for (int d = 0; designs_spmv[d]; d++)
            printf(" %s", designs_spmv[d]);
        printf("; N > 1:");
        for (int d = 0; designs_spmm[d]; d++)
            printf(" %s", designs_spmm[d]);
        printf("): an oracle over that list, not a selector; loom ms, GFLOP/s, %%floor and the "
               "peer columns use its time\n");
        printf("# auto = the plan loom's default options make (LOOM_SELECT_AUTO, OpenMP backend; "
               "here %s), timed the same way; its design and time are shown\n",
               source);
    }
    printf("# floor = compulsory bytes (A as CSR with 64-bit offsets, X read once, Y written "
           "once) / stream bandwidth; %%floor = floor / loom time\n");
    printf("# peer columns: peer time / loom time (> 1 means loom is faster)\n\n");
    printf("%-44s %4s %-22s %9s %7s %9s %6s %-22s %9s", "matrix", "N", "loom design", "loom ms",
           "GFLOP/s", "floor ms", "%floor", "auto design", "auto ms");
    for (int k = 0; k < PEERS; k++)
        if (peer_built[k])
            printf(" %9s", peer_names[k]);
    printf("\n");

    char csv[4096];
    mkdir(o.out, 0755);
    snprintf(csv, sizeof csv, "%s/cpu_bench.csv", o.out);
    FILE *out = fopen(csv, "w");
    if (!out)
        DIE("cannot write %s: %s", csv, strerror(errno));
    fprintf(out, "matrix,rows,cols,nnz,footprint_mb,N,loom_design,loom_ms,loom_gflops,floor_ms,"
                 "floor_frac,librsb_ms,graphblas_ms,eigen_ms,best_peer,best_peer_over_loom,"
                 "auto_design,auto_ms,best_peer_over_auto\n");

    result *res = calloc((size_t)count * (size_t)o.n_count, sizeof *res);
    int nres = 0, total_steps = count * o.n_count, step = 0;
    double t_start = now();
    for (int m = 0; m < count; m++) {
        loom_csr *A = NULL;
        if (list[m].path[0]) {
            if (loom_csr_read(ctx, list[m].path, LOOM_F32, &A) != LOOM_SUCCESS) {
                fprintf(stderr, "cpu_bench: skipping %s: %s\n", list[m].name, loom_last_error());
                step += o.n_count;
                continue;
            }
        } else if (list[m].kind == INPUT_BAND) {
            A = bench_band_matrix(ctx, 1 << 20, 8);
        } else {
            fprintf(stderr, "\r[%3d/%3d %5.0fs] generating %-33s", step + 1, total_steps,
                    now() - t_start, list[m].name);
            A = bench_rmat_matrix(ctx, list[m].scale, list[m].edge_factor, o.threads);
        }
        int64_t rows, cols, nnz;
        CHECK(loom_csr_info(A, &rows, &cols, &nnz, NULL, NULL));
        for (int k = 0; k < o.n_count; k++) {
            int64_t n = o.n[k];
            step++;
            if (list[m].kind != INPUT_FILE && n > 4)
                continue;
            fprintf(stderr, "\r[%3d/%3d %5.0fs] %-44s N=%-4lld", step, total_steps, now() - t_start,
                    list[m].name, (long long)n);
            loom_dense X, Y;
            CHECK(loom_dense_alloc(ctx, &X, cols, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
            CHECK(loom_dense_alloc(ctx, &Y, rows, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
            CHECK(loom_dense_fill_random(&X, 42));
            /* First touch of Y by the same static split of rows the kernels use. */
            float *yd = Y.data;
#pragma omp parallel for schedule(static) num_threads(o.threads)
            for (int64_t i = 0; i < rows * n; i++)
                yd[i] = 0;
            result *r = &res[nres++];
            r->matrix = m;
            r->n = n;
            r->synthetic = list[m].kind != INPUT_FILE;
            r->loom = r->auto_time = INFINITY;
            for (int k = 0; k < PEERS; k++)
                r->peer[k] = NAN;
            for (int round = 0; round < o.rounds; round++) {
                char design[64], auto_design[64];
                double peer[PEERS];
                const double tl = time_loom(ctx, A, &X, &Y, n, o.min_time, design, sizeof design);
                const double ta = time_auto(ctx, A, &X, &Y, o.min_time, auto_design,
                                            sizeof auto_design);
                time_peers(A, X.data, Y.data, n, o.threads, o.min_time, peer);
                if (tl < r->loom) {
                    r->loom = tl;
                    snprintf(r->design, sizeof r->design, "%s", design);
                }
                if (ta < r->auto_time) {
                    r->auto_time = ta;
                    snprintf(r->auto_design, sizeof r->auto_design, "%s", auto_design);
                }
                for (int k = 0; k < PEERS; k++)
                    if (!isnan(peer[k]) && !(peer[k] >= r->peer[k]))
                        r->peer[k] = peer[k];
                if (o.rounds > 1) {
                    const double b = stream_bandwidth(o.threads, llc_reported);
                    bw_max = b > bw_max ? b : bw_max;
                }
            }
            r->bytes = (double)nnz * (4 + 4) + (double)(rows + 1) * 8 + (double)(cols * n) * 4 +
                       (double)(rows * n) * 4;
            r->floor = r->bytes / bw;
            double best_peer = INFINITY;
            int best_k = -1;
            for (int p = 0; p < PEERS; p++)
                if (!isnan(r->peer[p]) && r->peer[p] < best_peer) {
                    best_peer = r->peer[p];
                    best_k = p;
                }
            fprintf(stderr, "\r%*s\r", 80, "");
            printf("%-44s %4lld %-22s %9.4f %7.2f %9.4f %5.0f%% %-22s %9.4f", list[m].name,
                   (long long)n, r->design, r->loom * 1e3,
                   2.0 * (double)nnz * (double)n / r->loom / 1e9, r->floor * 1e3,
                   100 * r->floor / r->loom, r->auto_design, r->auto_time * 1e3);
            for (int p = 0; p < PEERS; p++)
                if (peer_built[p])
                    printf(" %8.2fx", r->peer[p] / r->loom);
            printf("\n");
            fflush(stdout);
            fprintf(out, "%s,%lld,%lld,%lld,%.3f,%lld,%s,%.6f,%.3f,%.6f,%.3f", list[m].name,
                    (long long)rows, (long long)cols, (long long)nnz, r->bytes / 1e6, (long long)n,
                    r->design, r->loom * 1e3, 2.0 * (double)nnz * (double)n / r->loom / 1e9,
                    r->floor * 1e3, r->floor / r->loom);
            for (int p = 0; p < PEERS; p++) {
                if (isnan(r->peer[p]))
                    fprintf(out, ",");
                else
                    fprintf(out, ",%.6f", r->peer[p] * 1e3);
            }
            fprintf(out, ",%s,%.4f,%s,%.6f,%.4f\n", best_k >= 0 ? peer_names[best_k] : "",
                    best_k >= 0 ? best_peer / r->loom : 0.0, r->auto_design, r->auto_time * 1e3,
                    best_k >= 0 ? best_peer / r->auto_time : 0.0);
            loom_dense_free(ctx, &X);
            loom_dense_free(ctx, &Y);
        }
        loom_csr_destroy(&A);
    }
    fclose(out);

    printf("\n# summary over the %d real matrices (geometric means; > 1 means loom is faster)\n",
           real_count);
    summary_table(res, nres, &o, 0);
    printf("\n# the same for auto (peer time / auto time; auto/loom: auto time / loom time, "
           "> 1 means auto is slower than the best fixed design)\n");
    summary_table(res, nres, &o, 1);
    /* The host's memory bandwidth moves between runs (other machines share
     * it): measured again now, the floor here uses the higher of the two. */
    const double bw_end = stream_bandwidth(o.threads, llc_reported);
    const double bw_check = bw_end > bw_max ? bw_end : bw_max;
    printf("\n# SpMV (N = 1) against the bandwidth floor, inputs larger than the LLC (%zu KiB);\n"
           "# stream triad %.2f GB/s at the start, %.2f GB/s now",
           llc >> 10, bw / 1e9, bw_end / 1e9);
    if (o.rounds > 1)
        printf(", %.2f GB/s the highest after a round", bw_max / 1e9);
    printf(": the floor here uses %.2f GB/s\n", bw_check / 1e9);
    int big = 0;
    for (int i = 0; i < nres; i++) {
        const result *r = &res[i];
        if (r->n != 1 || r->bytes <= (double)llc)
            continue;
        big++;
        const double floor = r->bytes / bw_check;
        printf("#   %-40s %6.1f MB: loom %3.0f%%, auto %3.0f%% (%s) of the floor (target >= "
               "60%%)\n",
               list[r->matrix].name, r->bytes / 1e6, 100 * floor / r->loom,
               100 * floor / r->auto_time, r->auto_design);
    }
    if (!big)
        printf("#   none of the inputs is larger than the LLC\n");
    write_plot(&o, csv, o.n_count, o.n);
    {
        char la[64];
        load_average(la, sizeof la);
        printf("\n# load average at the end: %s\n", la);
    }
    printf("# wrote %s and %s/cpu_bench.svg (%.0f s in all)\n", csv, o.out, now() - t_start);
    free(res);
    free(list);
    loom_context_destroy(&ctx);
#ifdef LOOM_HAVE_GRAPHBLAS
    GrB_finalize();
#endif
#ifdef LOOM_HAVE_LIBRSB
    rsb_lib_exit(RSB_NULL_INIT_OPTIONS);
#endif
    return 0;
}
