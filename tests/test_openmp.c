/*
 * test_openmp.c - the OpenMP backend against the reference, bit for bit.
 *
 * For every design, both dtypes, several N, lane widths, chunk sizes,
 * layouts (ld > cols too), beta == 0 (Y poisoned with NaN, which must never
 * be read) and beta != 0, each case runs once on the reference and then on
 * the OpenMP backend with 1 thread and with 2, 3 or 7 (in turn); the whole Y buffer,
 * padding included, must be memcmp-equal.  Matrices: the real unit-test
 * files of data/unittest, the generated shapes of test_matrices.c, and
 * larger random matrices of skewed row lengths (long rows across many EB
 * chunks, empty rows).
 *
 * The N = 1 RB+SR kernel on a sliced copy of A (rows in vector lanes) is
 * forced in place on a quarter of the cases (LOOM_OMP_SLICES_ALWAYS), the
 * sorted copy (empty rows left out) on another quarter
 * (LOOM_OMP_SLICES_SORTED) and sorted in windows of 128 rows on a third
 * (LOOM_OMP_SELL_WINDOW; otherwise the plan races them and keeps the
 * fastest), and test_powerlaw_spmv runs every mode on R-MAT-like inputs;
 * the persistent team of workers runs every other pair of cases
 * (LOOM_OMP_TEAM=1), and the one-thread shortcut for small products is off
 * (LOOM_OMP_SERIAL_WORK=0) so the thread counts are real.
 * test_relabel_spmv runs every N = 1 design with A's columns relabeled by
 * degree (LOOM_OMP_RELABEL=1) on inputs with skewed columns.
 * test_large_arrays_spmv takes an input whose plan arrays come from the
 * huge-page allocator.
 * test_special_values puts Inf, NaN and -0 in X and A around slices with
 * empty and short rows: padding must never reach an accumulator.
 *
 * The program runs once per instruction set the CPU has (it re-runs itself
 * with LOOM_OMP_ISA=avx512, =avx2 and =generic), so the portable path is
 * checked on an AVX machine too, and the 512-bit kernels at the small N
 * that by default run the AVX2 ones.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixed_plan.h"
#include "oracle.h"
#include "test_matrices.h"
#include "test_operands.h"

static loom_context *ctx;

static const int thread_counts[] = {1, 2, 3, 7};
static const int64_t n_values[] = {1, 2, 3, 4, 7, 8, 16, 17, 24, 33, 44, 63, 64, 100};
/* PR lane widths; past 32 (a row across warps) only under RB. */
static const int lane_values[] = {2, 4, 8, 16, 32, 64, 128, 256};
static const int64_t sr_chunks[] = {1, 7, 64, 256, 1000};
static const int64_t pr_chunk_multiples[] = {1, 3, 8, 37};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int lanes_for(const loom_strategy *s, size_t k)
{
    const size_t count = s->mloop == LOOM_M_RB ? COUNT(lane_values) : 5; /* 2..32 */
    return lane_values[k % count];
}

static int setup(void **state)
{
    (void)state;
    return loom_context_create(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return loom_context_destroy(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

static void run(loom_backend_id backend, int threads, const loom_csr *A, const loom_strategy *s,
                double alpha, const loom_dense *X, double beta, loom_dense *Y)
{
    CHECK(loom_context_set_threads(ctx, threads));
    CHECK(run_fixed(ctx, backend, A, s, alpha, X, beta, Y, beta == 0));
}

static long cases_run;
/* >= 0: the slices mode of every case (set_slices_mode); -1: in turn. */
static int force_slices = -1;

/* N = 1 RB+SR's sliced copies of A: 0 as the plan races them, 1 the
 * in-place copy forced (LOOM_OMP_SLICES_ALWAYS), 2 the sorted copy with
 * empty rows out of the slices forced (LOOM_OMP_SLICES_SORTED; these
 * matrices fit in one window of rows), 3 the same sorted in windows of 128
 * rows (LOOM_OMP_SELL_WINDOW), shared out to threads by whole windows
 * where there are at least two per thread. */
static void set_slices_mode(int mode)
{
    if (mode == 3)
        setenv("LOOM_OMP_SELL_WINDOW", "128", 1);
    else
        unsetenv("LOOM_OMP_SELL_WINDOW");
    if (mode == 1)
        setenv("LOOM_OMP_SLICES_ALWAYS", "1", 1);
    else
        unsetenv("LOOM_OMP_SLICES_ALWAYS");
    if (mode >= 2)
        setenv("LOOM_OMP_SLICES_SORTED", "1", 1);
    else
        unsetenv("LOOM_OMP_SLICES_SORTED");
}
/* When set, called on X after its random fill (special values). */
static void (*poke_x)(loom_dense *X);

/* One case: the reference once, then the OpenMP backend at every thread
 * count, all memcmp-equal (Y's padding included). */
static void check_case(const loom_csr *A, const loom_strategy *s, int64_t n, loom_layout xl,
                       loom_layout yl, int64_t pad, double alpha, double beta, uint64_t seed,
                       const char *what)
{
    int64_t rows, cols, nnz;
    loom_dtype dtype;
    CHECK(loom_csr_info(A, &rows, &cols, &nnz, &dtype, NULL));
    loom_dense X, Y0, Yref, Y;
    dense_make(&X, cols, n, xl, dtype, pad);
    dense_make(&Y0, rows, n, yl, dtype, pad);
    dense_make(&Yref, rows, n, yl, dtype, pad);
    dense_make(&Y, rows, n, yl, dtype, pad);
    CHECK(loom_dense_fill_random(&X, seed));
    if (poke_x)
        poke_x(&X);
    if (beta == 0)
        dense_poison(&Y0);
    else
        CHECK(loom_dense_fill_random(&Y0, seed + 1));
    memcpy(Yref.data, Y0.data, dense_bytes(&Y0));
    run(LOOM_BACKEND_REFERENCE, 1, A, s, alpha, &X, beta, &Yref);

    char name[128];
    loom_strategy_format(s, name, sizeof name);
    /* One thread, then one of the larger counts in turn (every count meets
     * every design over a sweep, at half the cost of all four each time). */
    static unsigned turn;
    /* The sliced copies: raced (0), in place forced (1), sorted forced (2),
     * sorted in windows (3); (turn / 3) so that every mode meets every
     * thread count. */
    set_slices_mode(force_slices >= 0 ? force_slices : (int)(turn / 3 % 4));
    /* The persistent team (LOOM_OMP_TEAM=1) on every other pair of turns. */
    if (turn % 4 >= 2)
        setenv("LOOM_OMP_TEAM", "1", 1);
    else
        unsetenv("LOOM_OMP_TEAM");
    const int counts[2] = {thread_counts[0], thread_counts[1 + turn++ % (COUNT(thread_counts) - 1)]};
    for (size_t t = 0; t < 2; t++) {
        memcpy(Y.data, Y0.data, dense_bytes(&Y0));
        run(LOOM_BACKEND_OPENMP, counts[t], A, s, alpha, &X, beta, &Y);
        if (memcmp(Y.data, Yref.data, dense_bytes(&Y)) != 0) {
            loom_compare_result cmp;
            loom_dense_compare(&Y, &Yref, &cmp);
            fail_msg("%s: %s %s N=%lld X %s Y %s pad %lld beta %g threads %d: %lld elements "
                     "differ, first (%lld, %lld): openmp %.17g reference %.17g",
                     what, name, loom_dtype_name(dtype), (long long)n,
                     xl == LOOM_ROW_MAJOR ? "RM" : "CM", yl == LOOM_ROW_MAJOR ? "RM" : "CM",
                     (long long)pad, beta, counts[t], (long long)cmp.differing,
                     (long long)cmp.first_row, (long long)cmp.first_col, cmp.first_a, cmp.first_b);
        }
        cases_run++;
    }
    free(X.data);
    free(Y0.data);
    free(Yref.data);
    free(Y.data);
}

/* Every design x every N, the other parameters rotating with a counter so
 * that each lane width, chunk, layout pair, padding and beta appear often. */
static void sweep(const loom_csr *A, const char *what, uint64_t seed)
{
    unsigned k = (unsigned)(seed % 7);
    for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
        for (size_t ni = 0; ni < COUNT(n_values); ni++, k++) {
            /* The re-runs for the lower instruction sets take every other N. */
            if (getenv("LOOM_OMP_ISA") && (ni + (size_t)design) % 2)
                continue;
            loom_strategy s;
            CHECK(loom_strategy_design(design, &s));
            s.lanes = lanes_for(&s, k);
            if (s.kloop == LOOM_K_PR)
                s.chunk = s.lanes * pr_chunk_multiples[(k / 2) % COUNT(pr_chunk_multiples)];
            else
                s.chunk = sr_chunks[(k / 2) % COUNT(sr_chunks)];
            loom_layout xl = (k & 1) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
            loom_layout yl = (k & 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
            int64_t pad = (k % 3 == 0) ? 3 : 0;
            double beta = (k % 4 < 2) ? 0.0 : 0.5;
            double alpha = (k % 5 == 0) ? -0.75 : 1.5;
            check_case(A, &s, n_values[ni], xl, yl, pad, alpha, beta, seed + k, what);
        }
    }
}

static void test_unittest_matrices(void **state)
{
    (void)state;
    for (int f = 0; test_unittest_files[f]; f++) {
        for (int d = 0; d < 2; d++) {
            loom_csr *A = test_matrix_read(ctx, test_unittest_files[f], (loom_dtype)d);
            if (!A)
                fail_msg("cannot read data/unittest/%s", test_unittest_files[f]);
            sweep(A, test_unittest_files[f], 100 + (uint64_t)f);
            loom_csr_destroy(&A);
        }
    }
}

static void test_generated_shapes(void **state)
{
    (void)state;
    for (int shape = 0; shape < SHAPE_COUNT; shape++) {
        for (int d = 0; d < 2; d++) {
            loom_csr *A = test_matrix_make(ctx, (test_shape)shape, (loom_dtype)d, 7 + shape);
            assert_non_null(A);
            sweep(A, test_shape_name((test_shape)shape), 200 + (uint64_t)shape);
            loom_csr_destroy(&A);
        }
    }
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Rows whose lengths follow a steep power law (a few rows of thousands of
 * non-zeros that cross many EB chunks, many of 0-3), runs of empty rows,
 * and values with full random mantissas, some exact zeros and -0. */
static loom_csr *steep_matrix(loom_dtype dtype, int64_t rows, int64_t cols, uint64_t seed)
{
    return skewed_matrix_capped(ctx, dtype, rows, cols, cols, -1, 0, 0, seed);
}

/* An R-MAT-like input (bench/cpu_bench's power-law graphs): about two
 * thirds of the rows empty, scattered one by one rather than in runs, a
 * power law of lengths among the others, and `longs` rows of nearly all
 * columns, so a slice of the globally sorted copy holds rows of many
 * lengths at its head and the in-place copy pads heavily. */
static loom_csr *powerlaw_matrix(loom_dtype dtype, int64_t rows, int64_t cols, int longs,
                                 uint64_t seed)
{
    uint64_t st = seed;
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    assert_non_null(ro);
    ro[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const uint64_t r = test_rand(&st);
        double u = (double)((r >> 11) + 1) * 0x1.0p-53;
        int64_t len = r % 3 != 0 ? 0 : 1 + (int64_t)(0.5 / (u * sqrt(u)));
        if (i % (rows / longs + 1) == rows / 3 % (rows / longs + 1))
            len = cols - (int64_t)(test_rand(&st) % 7);
        ro[i + 1] = ro[i] + (len < cols ? len : cols);
    }
    loom_csr *A = test_matrix_with_lengths(ctx, dtype, rows, cols, ro, &st);
    assert_non_null(A);
    return A;
}


static void test_skewed_random(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{1500, 1200}, {400, 3000}, {3000, 150}};
    for (size_t m = 0; m < COUNT(shapes); m++) {
        for (int d = 0; d < 2; d++) {
            loom_csr *A = steep_matrix((loom_dtype)d, shapes[m][0], shapes[m][1], 31 + m);
            char what[64];
            snprintf(what, sizeof what, "skewed %lldx%lld", (long long)shapes[m][0],
                     (long long)shapes[m][1]);
            sweep(A, what, 300 + m);
            loom_csr_destroy(&A);
        }
    }
}

/* RB + PR with lanes across warps (64, 128, 256): rows shorter and longer
 * than the width, every N class, both N-loops and layouts, both dtypes. */
static void test_pr_wide_lanes(void **state)
{
    (void)state;
    static const int widths[] = {64, 128, 256};
    static const int64_t ns[] = {1, 2, 3, 4, 8, 17, 33};
    for (int d = 0; d < 2; d++) {
        loom_csr *A = steep_matrix((loom_dtype)d, 700, 2500, 77 + (uint64_t)d);
        unsigned k = 0;
        for (size_t w = 0; w < COUNT(widths); w++)
            for (size_t ni = 0; ni < COUNT(ns); ni++, k++) {
                loom_strategy s;
                CHECK(loom_strategy_parse(k % 3 == 2 ? "rb-cm-pr" : "rb-rm-pr", &s));
                s.lanes = widths[w];
                check_case(A, &s, ns[ni], (k & 1) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR,
                           (k & 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, k % 3, 1.5,
                           k % 4 < 2 ? 0.0 : 0.5, 500 + k, "RB + PR, lanes across warps");
            }
        loom_csr_destroy(&A);
    }
}

/* N = 1 RB+SR on power-law inputs in every slices mode (raced, in place,
 * sorted with the empty rows out of the slices, in one window of rows and
 * in many), both dtypes,
 * beta 0 and not, unit and strided y (and strided x, which takes the CSR
 * kernel), 1, 2, 3 and 7 threads: every mode meets every thread count. */
static void test_powerlaw_spmv(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {{3000, 2500, 3}, {700, 5000, 1}, {5000, 300, 8}};
    static const struct {
        loom_layout xl, yl;
        int64_t pad;
        double alpha, beta;
    } uses[] = {
        {LOOM_COL_MAJOR, LOOM_COL_MAJOR, 0, 1.5, 0.0},  /* x, y unit stride */
        {LOOM_COL_MAJOR, LOOM_ROW_MAJOR, 3, -0.75, 0.5}, /* y stride 4 */
        {LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, 3, 1.5, 0.5},   /* x stride 4: CSR */
        {LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, 0, -0.75, 0.0},
    };
    loom_strategy s;
    CHECK(loom_strategy_parse("rb-rm-sr", &s));
    for (size_t m = 0; m < COUNT(shapes); m++)
        for (int d = 0; d < 2; d++) {
            loom_csr *A = powerlaw_matrix((loom_dtype)d, shapes[m][0], shapes[m][1],
                                          (int)shapes[m][2], 500 + m);
            for (force_slices = 0; force_slices < 4; force_slices++)
                for (size_t u = 0; u < COUNT(uses); u++)
                    check_case(A, &s, 1, uses[u].xl, uses[u].yl, uses[u].pad, uses[u].alpha,
                               uses[u].beta, 600 + 10 * m + u, "power law");
            force_slices = -1;
            loom_csr_destroy(&A);
        }
}

/* Power-law rows (as powerlaw_matrix) whose columns are skewed too: a
 * column's share falls as a power of its rank, the ranks scattered over
 * the columns (rank r is column r * 7919 mod cols), so the hot columns lie
 * apart as in R-MAT and many columns hold no non-zero.  Relabeled, a
 * row's columns are no longer in order. */
static loom_csr *skewed_columns_matrix(loom_dtype dtype, int64_t rows, int64_t cols, uint64_t seed)
{
    uint64_t st = seed;
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    assert_non_null(ro);
    ro[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        const uint64_t r = test_rand(&st);
        double u = (double)((r >> 11) + 1) * 0x1.0p-53;
        int64_t len = r % 3 != 0 ? 0 : 1 + (int64_t)(0.5 / (u * sqrt(u)));
        ro[i + 1] = ro[i] + (len < cols / 4 ? len : cols / 4);
    }
    const int64_t nnz = ro[rows];
    int32_t *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    void *v = malloc((size_t)(nnz ? nnz : 1) * 8);
    char *used = calloc((size_t)cols, 1);
    assert_true(ci && v && used && cols % 7919 != 0);
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = ro[i]; j < ro[i + 1];) {
            double u = (double)(test_rand(&st) >> 11) * 0x1.0p-53;
            const int64_t c = (int64_t)((double)cols * u * u * u * u) * 7919 % cols;
            if (!used[c]) {
                used[c] = 1;
                ci[j++] = (int32_t)c;
            }
        }
        for (int64_t j = ro[i]; j < ro[i + 1]; j++)
            used[ci[j]] = 0;
        qsort(ci + ro[i], (size_t)(ro[i + 1] - ro[i]), sizeof *ci, cmp_i32);
    }
    for (int64_t j = 0; j < nnz; j++) {
        double x = (double)(test_rand(&st) >> 11) * 0x1.0p-52 - 1.0;
        if (dtype == LOOM_F32)
            ((float *)v)[j] = (float)x;
        else
            ((double *)v)[j] = x;
    }
    loom_csr *A = NULL;
    CHECK(loom_csr_create(ctx, &A, rows, cols, nnz, dtype, ro, ci, v));
    free(ro);
    free(ci);
    free(v);
    free(used);
    return A;
}

/* Does the OpenMP plan for A (N = 1, design s) say `text`? */
static bool explain_says(const loom_csr *A, const char *design, const char *text)
{
    int64_t rows, cols;
    loom_dtype dtype;
    CHECK(loom_csr_info(A, &rows, &cols, NULL, &dtype, NULL));
    loom_dense X, Y;
    dense_make(&X, cols, 1, LOOM_ROW_MAJOR, dtype, 0);
    dense_make(&Y, rows, 1, LOOM_ROW_MAJOR, dtype, 0);
    loom_strategy s;
    CHECK(loom_strategy_parse(design, &s));
    loom_plan *plan = NULL;
    CHECK(fixed_plan(ctx, LOOM_BACKEND_OPENMP, A, &s, &X, &Y, &plan));
    const bool says = strstr(loom_plan_explain(plan), text) != NULL;
    if (!says)
        print_message("explain: %s\n", loom_plan_explain(plan));
    CHECK(loom_plan_destroy(&plan));
    free(X.data);
    free(Y.data);
    return says;
}

/* N = 1 with A's columns relabeled by degree and x gathered into that
 * order (LOOM_OMP_RELABEL=1 forces it; the plan's explain text must say
 * so), on inputs with skewed columns: every N = 1 design, each RB+SR
 * slices mode and the CSR kernel (LOOM_OMP_NO_SLICES), both dtypes, unit
 * and strided x and y, beta 0 and not, 1 thread and 2, 3 or 7 in turn.
 * The bits must be the reference's: relabeling moves where x's values are
 * read from, never the order they are added in. */
static void test_relabel_spmv(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{3000, 2500}, {700, 9001}, {5000, 300}};
    static const char *const designs[] = {"rb-rm-sr", "rb-rm-pr:lanes=8", "eb-rm-sr:chunk=64",
                                          "eb-rm-pr:chunk=32,lanes=4"};
    static const struct {
        loom_layout xl, yl;
        int64_t pad;
        double alpha, beta;
    } uses[] = {
        {LOOM_COL_MAJOR, LOOM_COL_MAJOR, 0, 1.5, 0.0},
        {LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, 3, -0.75, 0.5}, /* x and y stride 4 */
        {LOOM_COL_MAJOR, LOOM_ROW_MAJOR, 1, 1.5, 0.5},
    };
    setenv("LOOM_OMP_RELABEL", "1", 1);
    for (size_t m = 0; m < COUNT(shapes); m++)
        for (int d = 0; d < 2; d++) {
            loom_csr *A = skewed_columns_matrix((loom_dtype)d, shapes[m][0], shapes[m][1], 900 + m);
            assert_true(explain_says(A, "rb-rm-sr", "x: columns relabeled"));
            for (size_t k = 0; k < COUNT(designs); k++) {
                loom_strategy s;
                CHECK(loom_strategy_parse(designs[k], &s));
                /* RB+SR: raced, in place, sorted, sorted in windows, CSR. */
                const int modes = k == 0 ? 5 : 1;
                for (int mode = 0; mode < modes; mode++) {
                    force_slices = mode < 4 ? mode : 0;
                    if (mode == 4)
                        setenv("LOOM_OMP_NO_SLICES", "1", 1);
                    for (size_t u = 0; u < COUNT(uses); u++)
                        check_case(A, &s, 1, uses[u].xl, uses[u].yl, uses[u].pad, uses[u].alpha,
                                   uses[u].beta, 950 + 10 * m + u, "relabeled columns");
                    unsetenv("LOOM_OMP_NO_SLICES");
                }
            }
            force_slices = -1;
            loom_csr_destroy(&A);
        }
    /* Unforced, a small x stays as it lies (it fits in any L2). */
    unsetenv("LOOM_OMP_RELABEL");
    loom_csr *A = skewed_columns_matrix(LOOM_F32, 300, 301, 7);
    assert_true(explain_says(A, "rb-rm-sr", "x: columns as they lie"));
    loom_csr_destroy(&A);
}

/* A plan's large arrays (the sliced copies' columns, values, lengths and
 * row numbers, x' and the relabeled indices) come 2 MiB aligned and
 * advised for transparent huge pages from 2 MiB up: an input big enough
 * that they all take that path, relabeled (x' 2.7 MiB of floats), in
 * place and sorted, both dtypes.  The bits must not move. */
static void test_large_arrays_spmv(void **state)
{
    (void)state;
    const int64_t n = 700000;
    loom_strategy s;
    CHECK(loom_strategy_parse("rb-rm-sr", &s));
    setenv("LOOM_OMP_RELABEL", "1", 1);
    for (int d = 0; d < 2; d++) {
        uint64_t st = 77 + (uint64_t)d;
        int64_t *ro = malloc((size_t)(n + 1) * sizeof *ro);
        assert_non_null(ro);
        ro[0] = 0;
        for (int64_t i = 0; i < n; i++)
            ro[i + 1] = ro[i] + (int64_t)(test_rand(&st) % 13);
        loom_csr *A = test_matrix_with_lengths(ctx, (loom_dtype)d, n, n, ro, &st);
        assert_non_null(A);
        for (force_slices = 1; force_slices <= 2; force_slices++)
            check_case(A, &s, 1, LOOM_COL_MAJOR, LOOM_COL_MAJOR, 0, 1.5, 0.5, 990 + (uint64_t)d,
                       "large arrays");
        force_slices = -1;
        loom_csr_destroy(&A);
    }
    unsetenv("LOOM_OMP_RELABEL");
}

/* Threads chosen by the backend (0 = one per physical core), and N = 0
 * rows/cols edge: a matrix with no non-zeros under EB. */
static void test_auto_threads_and_empty(void **state)
{
    (void)state;
    int64_t ro[6] = {0, 0, 0, 0, 0, 0};
    int32_t ci[1] = {0};
    float v[1] = {0};
    loom_csr *A = NULL;
    CHECK(loom_csr_create(ctx, &A, 5, 4, 0, LOOM_F32, ro, ci, v));
    for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
        loom_strategy s;
        CHECK(loom_strategy_design(design, &s));
        check_case(A, &s, 3, LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, 0, 1.0, 0.0, 5, "empty");
        check_case(A, &s, 1, LOOM_COL_MAJOR, LOOM_ROW_MAJOR, 1, 2.0, -1.0, 6, "empty");
    }
    loom_csr_destroy(&A);

    A = steep_matrix(LOOM_F64, 500, 700, 77);
    loom_strategy s;
    CHECK(loom_strategy_design(5, &s));
    loom_dense X, Y, Yref;
    dense_make(&X, 700, 9, LOOM_ROW_MAJOR, LOOM_F64, 0);
    dense_make(&Y, 500, 9, LOOM_ROW_MAJOR, LOOM_F64, 0);
    dense_make(&Yref, 500, 9, LOOM_ROW_MAJOR, LOOM_F64, 0);
    CHECK(loom_dense_fill_random(&X, 1));
    dense_poison(&Y);
    dense_poison(&Yref);
    run(LOOM_BACKEND_REFERENCE, 1, A, &s, 1.0, &X, 0.0, &Yref);
    run(LOOM_BACKEND_OPENMP, 0, A, &s, 1.0, &X, 0.0, &Y);
    assert_memory_equal(Y.data, Yref.data, dense_bytes(&Y));
    free(X.data);
    free(Y.data);
    free(Yref.data);
    loom_csr_destroy(&A);
}

/* X's special values: +Inf in row 0 (the column the slices' padding
 * points at) or the x86 default NaN there (every NaN in these runs has the
 * same bits, so which operand a NaN comes from cannot matter), -0, -Inf
 * and NaN further on. */
static int special_kind;
static void set_x(loom_dense *X, int64_t r, int64_t c, double v)
{
    int64_t at = X->layout == LOOM_ROW_MAJOR ? r * X->ld + c : c * X->ld + r;
    if (X->dtype == LOOM_F32)
        ((float *)X->data)[at] = (float)v;
    else
        ((double *)X->data)[at] = v;
}

static double default_nan(void)
{
    volatile double inf = INFINITY, zero = 0.0;
    return inf * zero; /* the invalid-operation NaN of the hardware */
}

static void poke_special(loom_dense *X)
{
    for (int64_t c = 0; c < X->cols; c++) {
        set_x(X, 0, c, special_kind ? default_nan() : INFINITY);
        if (X->rows > 3)
            set_x(X, 3, c, -0.0);
        if (X->rows > 5 && c % 2 == 0)
            set_x(X, 5, c, -INFINITY);
        if (X->rows > 8 && c % 3 == 1)
            set_x(X, 8, c, default_nan());
    }
}

/* Row counts not a multiple of any slice height, empty rows inside slices,
 * rows of 1 to 12 non-zeros (mostly avoiding column 0), A holding -0, an
 * Inf and a NaN; every design, N = 1, 2, 4, 5, 8, both dtypes. */
static void test_special_values(void **state)
{
    (void)state;
    static const int64_t row_counts[] = {1, 7, 9, 23, 69};
    static const int64_t ns[] = {1, 2, 4, 5, 8};
    const int64_t cols = 13;
    poke_x = poke_special;
    for (size_t rc = 0; rc < COUNT(row_counts); rc++) {
        const int64_t rows = row_counts[rc];
        for (int d = 0; d < 2; d++) {
            int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
            int32_t *ci = malloc((size_t)(rows * cols) * sizeof *ci);
            double *v = malloc((size_t)(rows * cols) * sizeof *v);
            float *vf = malloc((size_t)(rows * cols) * sizeof *vf);
            assert_true(ro && ci && v && vf);
            uint64_t st = 900 + rc;
            ro[0] = 0;
            for (int64_t i = 0; i < rows; i++) {
                int64_t len = i % 5 == 2 ? 0 : 1 + (int64_t)(test_rand(&st) % (i % 7 == 0 ? 12 : 4));
                /* columns: 0 only in every ninth row, then a sorted run */
                int64_t k = 0, c = i % 9 == 4 ? 0 : 1 + (int64_t)(test_rand(&st) % 3);
                for (; k < len && c < cols; k++, c += 1 + (int64_t)(test_rand(&st) % 2))
                    ci[ro[i] + k] = (int32_t)c;
                ro[i + 1] = ro[i] + k;
            }
            for (int64_t j = 0; j < ro[rows]; j++) {
                double x = (double)(test_rand(&st) >> 11) * 0x1.0p-52 - 1.0;
                if (j % 11 == 3)
                    x = -0.0;
                else if (j == 17)
                    x = INFINITY;
                else if (j == 29)
                    x = default_nan();
                v[j] = x;
                vf[j] = (float)x;
            }
            loom_csr *A = NULL;
            CHECK(loom_csr_create(ctx, &A, rows, cols, ro[rows], (loom_dtype)d,
                                  ro, ci, d == LOOM_F32 ? (const void *)vf : (const void *)v));
            for (int design = 0; design < LOOM_DESIGN_COUNT; design++)
                for (size_t ni = 0; ni < COUNT(ns); ni++) {
                    loom_strategy s;
                    CHECK(loom_strategy_design(design, &s));
                    s.lanes = lanes_for(&s, ni + (size_t)design);
                    s.chunk = s.kloop == LOOM_K_PR ? s.lanes * 3 : 5;
                    for (special_kind = 0; special_kind < 2; special_kind++) {
                        const unsigned k = (unsigned)(ni + rc + (size_t)special_kind);
                        check_case(A, &s, ns[ni], (k & 1) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR,
                                   (k & 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, k % 3 == 0 ? 2 : 0,
                                   k % 5 == 0 ? -0.75 : 1.5, k % 4 < 2 ? 0.0 : 0.5, 40 + k,
                                   "special values");
                    }
                }
            loom_csr_destroy(&A);
            free(ro);
            free(ci);
            free(v);
            free(vf);
        }
    }
    poke_x = NULL;
}

/* Run this program again with LOOM_OMP_ISA set; the child's status. */
static int rerun_with_isa(const char *self, const char *isa)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        setenv("LOOM_OMP_ISA", isa, 1);
        execl(self, self, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    (void)argc;
    /* Thread counts above the core count (7 on a 2-core machine) crawl when
     * idle OpenMP threads spin; the runtime reads this only at start-up. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        execv("/proc/self/exe", argv);
    }
    setenv("LOOM_OMP_SERIAL_WORK", "0", 1);
    if (loom_backend_available(LOOM_BACKEND_OPENMP) != LOOM_SUCCESS) {
        printf("openmp backend not available: %s\n", loom_last_error());
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unittest_matrices),
        cmocka_unit_test(test_generated_shapes),
        cmocka_unit_test(test_skewed_random),
        cmocka_unit_test(test_pr_wide_lanes),
        cmocka_unit_test(test_powerlaw_spmv),
        cmocka_unit_test(test_relabel_spmv),
        cmocka_unit_test(test_large_arrays_spmv),
        cmocka_unit_test(test_auto_threads_and_empty),
        cmocka_unit_test(test_special_values),
    };
    const char *isa = getenv("LOOM_OMP_ISA");
    printf("# kernels: %s\n", isa ? isa : "best for this CPU");
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    printf("# %ld openmp runs compared with the reference\n", cases_run);
    if (!isa) {
        /* The lower paths this CPU can also run (the child's choice can only
         * go down from the best, see omp_topology.c). */
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) {
            /* by default a row of X that fits 256 bits runs the AVX2
             * kernels (omp_isa_for); forced, avx512 runs at every N */
            failed |= rerun_with_isa(argv[0], "avx512");
            failed |= rerun_with_isa(argv[0], "avx2");
        }
        failed |= rerun_with_isa(argv[0], "generic");
    }
    return failed ? 1 : 0;
}
