/*
 * dual_bench.c - dual-side sparsity on the CPU (the OpenMP dual backend).
 *
 *   im2col:  the paper's Table III: im2col time of dense explicit, CSR and
 *            bitmap implicit im2col for a ResNet-18 layer (56 x 56 map,
 *            3 x 3 kernel, 128 channels, pad 1) at input sparsity 0, 25, 50,
 *            75, 99, 99.9 %, normalized to dense im2col at the same
 *            sparsity.  Each strategy starts from the input in its own
 *            format (dense, CSR, row-condensed bitmap), prepared untimed;
 *            the dense output buffer is allocated once, untimed (the API
 *            writes into the caller's buffer), while CSR and bitmap return
 *            a new matrix each call, allocated and freed inside the timing.
 *            Each strategy runs its own loop (a warm-up, then the timed
 *            runs), as a pipeline calling it image after image would.
 *            --interleaved runs the three in turn in each repetition (the
 *            order before 2026-11-25): there one strategy's large frees
 *            (CSR's 29 MB at 0 %) shrink the heap, so the next one's new
 *            output page-faults on every call, and dense's output buffer is
 *            evicted from the cache by the others.
 *   spgemm:  C = A*B, n x n x n (default 4096), A and B with the same
 *            sparsity from 0 to 99.9 %, loom's dual-side GEMM against
 *            OpenBLAS sgemm on the dense matrices; with the step counter's
 *            theoretical speedup of a dual-side sparse tensor core.
 *
 * Prints where each method starts to win.  Usage:
 *   dual_bench [im2col|spgemm|all] [--size N] [--reps R] [--threads T] [--interleaved]
 */
#include <loom.h>
#include <loom/bitmap.h>

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"

#define TRY(call)                                                                              \
    do {                                                                                       \
        loom_status st_ = (call);                                                              \
        if (st_ != LOOM_SUCCESS) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, loom_last_error()); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint64_t rng = 0x1234567;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A row-major float matrix with `sparsity` of its elements zero. */
static void fill_sparse(float *m, int64_t count, double sparsity)
{
    for (int64_t e = 0; e < count; e++)
        m[e] = uniform() < sparsity ? 0.0f : (float)(uniform() + 0.5);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The best of n runs: on a shared machine the minimum is the run least
 * disturbed by others. */
static double best(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[0];
}

static loom_context *ctx;
static int reps = 5;
static int interleaved = 0;

/* ---------------------------------------------------------------- im2col */

/* One im2col by strategy w (0 dense into cols, 1 CSR into *cc, 2 bitmap
 * into *cb, left for the caller to free): its seconds. */
static double im2col_once(int w, const loom_conv_shape *sh, const loom_dense *X,
                          const loom_csr *Xc, const loom_bitmap *Xb, loom_dense *cols,
                          loom_csr **cc, loom_bitmap **cb)
{
    double t0 = now();
    if (w == 0)
        TRY(loom_conv_im2col_dense(sh, X, 0, cols));
    else if (w == 1)
        TRY(loom_conv_im2col_csr(ctx, sh, Xc, 0, cc));
    else
        TRY(loom_conv_im2col_bitmap(ctx, sh, Xb, 0, cb));
    return now() - t0;
}

static void bench_im2col(FILE *csv)
{
    const double sparsity[] = {0, 0.25, 0.5, 0.75, 0.99, 0.999};
    const int ns = 6;
    loom_conv_shape sh = {1, 128, 56, 56, 128, 3, 3, 1, 1, 1, 1, 1, 1};
    int64_t oh, ow;
    TRY(loom_conv_output_size(&sh, &oh, &ow));
    const int64_t crs = sh.channels * 9, pq = oh * ow;
    printf("\nTable III: im2col of a ResNet-18 layer (H = W = 56, 3x3, 128 channels, pad 1), "
           "%d threads, best of %d, %s\n",
           omp_get_max_threads(), reps,
           interleaved ? "strategies in turn in each repetition" : "a loop per strategy");
    printf("%9s | %12s %12s %12s | %9s %9s %9s\n", "sparsity", "dense ms", "csr ms", "bitmap ms",
           "dense", "csr", "bitmap");
    fprintf(csv, "im2col,sparsity,dense_ms,csr_ms,bitmap_ms\n");
    int bitmap_beats_csr_everywhere = 1, first_beats_dense = -1;
    for (int si = 0; si < ns; si++) {
        loom_dense X, cols;
        TRY(loom_dense_alloc(ctx, &X, sh.channels * sh.height, sh.width, LOOM_ROW_MAJOR, LOOM_F32,
                             LOOM_MEMORY_HOST));
        fill_sparse(X.data, X.rows * X.cols, sparsity[si]);
        TRY(loom_dense_alloc(ctx, &cols, crs, pq, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
        loom_bitmap *Xb = NULL;
        loom_csr *Xc = NULL;
        TRY(loom_bitmap_from_dense(ctx, &X, LOOM_BITMAP_ROWS, &Xb));
        TRY(loom_bitmap_to_csr(ctx, Xb, &Xc));
        double td[64], tc[64], tb[64], *t[3] = {td, tc, tb};
        loom_csr *cc = NULL;
        loom_bitmap *cb = NULL;
        /* The first run of each strategy warms up.  Interleaved, the
         * outputs of a repetition are freed after all three ran. */
        for (int w = 0; w < 3 && !interleaved; w++)
            for (int r = 0; r < reps + 1; r++) {
                double dt = im2col_once(w, &sh, &X, Xc, Xb, &cols, &cc, &cb);
                loom_csr_destroy(&cc);
                loom_bitmap_destroy(&cb);
                if (r)
                    t[w][r - 1] = dt;
            }
        for (int r = 0; r < reps + 1 && interleaved; r++) {
            double dt[3];
            for (int w = 0; w < 3; w++)
                dt[w] = im2col_once(w, &sh, &X, Xc, Xb, &cols, &cc, &cb);
            loom_csr_destroy(&cc);
            loom_bitmap_destroy(&cb);
            for (int w = 0; w < 3 && r; w++)
                t[w][r - 1] = dt[w];
        }
        double d = best(td, reps), c = best(tc, reps), b = best(tb, reps);
        printf("%8.1f%% | %12.3f %12.3f %12.3f | %9.3f %9.3f %9.3f\n", 100 * sparsity[si], 1e3 * d,
               1e3 * c, 1e3 * b, 1.0, c / d, b / d);
        fprintf(csv, "im2col,%g,%.6f,%.6f,%.6f\n", sparsity[si], 1e3 * d, 1e3 * c, 1e3 * b);
        if (b >= c)
            bitmap_beats_csr_everywhere = 0;
        if (b < d && first_beats_dense < 0)
            first_beats_dense = si;
        if (b >= d)
            first_beats_dense = -1;
        loom_bitmap_destroy(&Xb);
        loom_csr_destroy(&Xc);
        loom_dense_free(ctx, &X);
        loom_dense_free(ctx, &cols);
    }
    printf("bitmap im2col faster than CSR im2col at every sparsity: %s\n",
           bitmap_beats_csr_everywhere ? "yes" : "no");
    if (first_beats_dense >= 0)
        printf("bitmap im2col faster than dense im2col from %.1f%% sparsity up\n",
               100 * sparsity[first_beats_dense]);
    else
        printf("bitmap im2col is not faster than dense im2col at the highest sparsities\n");
}

/* ---------------------------------------------------------------- spgemm */

static void bench_spgemm(FILE *csv, int64_t n)
{
    const double sparsity[] = {0, 0.5, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999};
    const int ns = 8;
    printf("\nSpGEMM %lld x %lld x %lld, sparsity of A = sparsity of B, f32, %d threads, "
           "best of %d\n",
           (long long)n, (long long)n, (long long)n, omp_get_max_threads(), reps);
    printf("%9s %10s | %12s %12s %9s | %14s\n", "sparsity", "dA*dB", "openblas ms", "dual ms",
           "speedup", "DSTC steps x");
    fprintf(csv, "spgemm,n,sparsity,density_product,openblas_ms,dual_ms,dstc_speedup\n");
    float *A = malloc((size_t)(n * n) * sizeof(float));
    float *B = malloc((size_t)(n * n) * sizeof(float));
    float *C = malloc((size_t)(n * n) * sizeof(float));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    int first_win = -1;
    double win_product = 0;
    for (int si = 0; si < ns; si++) {
        fill_sparse(A, n * n, sparsity[si]);
        fill_sparse(B, n * n, sparsity[si]);
        double t[64], tb[64];
        int r_blas = reps < 3 ? reps : 3; /* dense GEMM does not depend on sparsity */
        for (int r = 0; r < r_blas; r++) {
            double t0 = now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, A,
                        (int)n, B, (int)n, 0.0f, C, (int)n);
            tb[r] = now() - t0;
        }
        loom_dense Ad, Bd, Cd;
        TRY(loom_dense_init(&Ad, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, A));
        TRY(loom_dense_init(&Bd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, B));
        TRY(loom_dense_init(&Cd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, C));
        loom_bitmap *Ab = NULL, *Bb = NULL;
        TRY(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &Ab));
        TRY(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &Bb));
        loom_bitmap_view va, vb;
        TRY(loom_bitmap_view_get(Ab, &va));
        TRY(loom_bitmap_view_get(Bb, &vb));
        double prod = ((double)va.nnz / (double)(n * n)) * ((double)vb.nnz / (double)(n * n));
        loom_dual_gemm_steps steps;
        TRY(loom_dual_gemm_steps_count(Ab, Bb, &steps));
        loom_dual_gemm_plan *p = NULL;
        TRY(loom_dual_gemm_plan_create(ctx, &p, Ab, Bb, &Cd, LOOM_BACKEND_OPENMP));
        /* Dense operands are slow on this path: time them once. */
        int r_dual = sparsity[si] < 0.7 ? 1 : reps;
        for (int r = 0; r < r_dual; r++) {
            double t0 = now();
            TRY(loom_dual_gemm_execute(p, 1.0, 0.0, &Cd));
            t[r] = now() - t0;
        }
        loom_dual_gemm_plan_destroy(&p);
        double tblas = best(tb, r_blas), tdual = best(t, r_dual);
        printf("%8.1f%% %10.3g | %12.1f %12.1f %9.2f | %14.1f\n", 100 * sparsity[si], prod,
               1e3 * tblas, 1e3 * tdual, tblas / tdual, steps.speedup);
        fprintf(csv, "spgemm,%lld,%g,%g,%.3f,%.3f,%.3f\n", (long long)n, sparsity[si], prod,
                1e3 * tblas, 1e3 * tdual, steps.speedup);
        fflush(stdout);
        if (tdual < tblas && first_win < 0) {
            first_win = si;
            win_product = prod;
        }
        if (tdual >= tblas)
            first_win = -1;
        loom_bitmap_destroy(&Ab);
        loom_bitmap_destroy(&Bb);
    }
    if (first_win >= 0)
        printf("dual-side GEMM faster than OpenBLAS sgemm from %.1f%% sparsity of both up "
               "(density product %.3g)\n",
               100 * sparsity[first_win], win_product);
    else
        printf("dual-side GEMM is not faster than OpenBLAS sgemm at the highest sparsities\n");
    free(A);
    free(B);
    free(C);
}

static const char usage[] =
    "usage: dual_bench [im2col|spgemm|all] [--size N] [--reps R] [--threads T] [--interleaved]   (see dual_bench(1))\n";

int main(int argc, char **argv)
{
    const char *what = "all";
    int64_t n = 4096;
    static const char *const with_value[] = {"--size", "--reps", "--threads", NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0; /* an unknown argument, a missing value, or a value that is not one */
        if (lacks_value("dual_bench", a, with_value, !v))
            bad = 1;
        else if (!strcmp(a, "--size")) /* the cblas call takes int sizes, and n * n fits one */
            bad = (n = count_arg("dual_bench", "--size", argv[++i], 1, 46340)) < 0;
        else if (!strcmp(a, "--interleaved"))
            interleaved = 1;
        else if (!strcmp(a, "--reps"))
            bad = (reps = count_arg("dual_bench", "--reps", argv[++i], 1, 64)) < 0;
        else if (!strcmp(a, "--threads")) {
            const int t = count_arg("dual_bench", "--threads", argv[++i], 1, 1000000);
            bad = t < 0;
            if (!bad) {
                omp_set_num_threads(t);
                openblas_set_num_threads(t);
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "im2col") || !strcmp(a, "spgemm") || !strcmp(a, "all"))
            what = a;
        else {
            fprintf(stderr, "dual_bench: unknown argument '%s'\n", a);
            bad = 1;
        }
        if (bad) {
            fputs(usage, stderr);
            return 2;
        }
    }
    TRY(loom_context_create(&ctx));
    FILE *csv = stdout == NULL ? NULL : fopen("/dev/null", "w");
    const char *out = getenv("DUAL_BENCH_CSV");
    if (out) {
        fclose(csv);
        csv = fopen(out, "w");
        if (!csv) {
            perror(out);
            return 1;
        }
    }
    if (!strcmp(what, "im2col") || !strcmp(what, "all"))
        bench_im2col(csv);
    if (!strcmp(what, "spgemm") || !strcmp(what, "all"))
        bench_spgemm(csv, n);
    fclose(csv);
    loom_context_destroy(&ctx);
    return 0;
}
