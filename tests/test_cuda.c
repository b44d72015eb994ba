/*
 * test_cuda.c - the CUDA backend against the reference, bit for bit.
 *
 * Every case runs once on the reference (host) and once on the CUDA
 * backend (operands copied to the device with loom_csr_copy and
 * loom_dense_copy, plan with LOOM_SELECT_FIXED, Y copied back); the whole Y
 * buffer, padding included, must be memcmp-equal.  Y is poisoned with NaN
 * when beta == 0 (it must never be read).  Every design, f32 and f64, N in
 * {1,2,3,4,7,8,16,17,32,33,64,128,257}, both layouts of X and Y, ld > the
 * inner size, PR lane widths 2..32, several EB chunk sizes (rows across
 * many chunks), VDL, CSC and coarsening, on the unit-test matrices, the
 * generated shapes and random skewed matrices (one row of 5000 non-zeros,
 * many empty rows), and the plan-dependent walks each on inputs made to
 * take them (deep PR, lanes across warps, tile-major, EB + SR in narrow
 * slabs over an X of 600000 rows, EB + SR's segments in column order), and
 * chains of four calls on one stream with no host wait, each reading what
 * the one before wrote (test_chained: the kernels overlap by programmatic
 * dependent launch).  Streams, graphs, errors and device memory exhaustion
 * are test_cuda_api.c's.
 *
 * No device (CI, a machine without a driver): exits 77 (SKIP) and says why.
 * LOOM_CUDA_TEST_QUICK=1 runs a subset (for compute-sanitizer, which is slow).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "test_operands.h"
#include "fixed_plan.h"
#include "oracle.h"
#include "test_matrices.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static loom_context *ctx;
static int quick;
static long cases_run;

static const int64_t n_all[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 32, 33, 64, 128, 257};
static const int64_t n_quick[] = {1, 2, 3, 4, 8, 33};
/* PR lane widths; past 32 (a row across warps) only under RB. */
static const int lane_values[] = {2, 4, 8, 16, 32, 64, 128, 256};

static int lanes_for(const loom_strategy *s, size_t k)
{
    const size_t count = s->mloop == LOOM_M_RB ? COUNT(lane_values) : 5; /* 2..32 */
    return lane_values[k % count];
}
static const int64_t sr_chunks[] = {1, 7, 64, 256, 1000};
static const int64_t pr_chunk_multiples[] = {1, 3, 8, 37};

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

static void run(loom_backend_id backend, const loom_csr *A, const loom_strategy *s, double alpha,
                const loom_dense *X, double beta, loom_dense *Y, int twice)
{
    CHECK(run_fixed(ctx, backend, A, s, alpha, X, beta, Y, twice));
}

/* One case: reference on the host, CUDA on the device, memcmp of all of Y. */
static void check_case(const loom_csr *A, const loom_csr *dA, const loom_strategy *s, int64_t n,
                       loom_layout xl, loom_layout yl, int64_t pad, double alpha, double beta,
                       uint64_t seed, const char *what)
{
    int64_t rows, cols, nnz;
    loom_dtype dtype;
    CHECK(loom_csr_info(A, &rows, &cols, &nnz, &dtype, NULL));
    loom_dense X, Y0, Yref, Y, dX, dY;
    dense_make(&X, cols, n, xl, dtype, pad);
    dense_make(&Y0, rows, n, yl, dtype, pad);
    dense_make(&Yref, rows, n, yl, dtype, pad);
    dense_make(&Y, rows, n, yl, dtype, pad);
    dense_poison(&X); /* padding of X is NaN: reading it would show */
    CHECK(loom_dense_fill_random(&X, seed));
    if (beta == 0)
        dense_poison(&Y0);
    else
        CHECK(loom_dense_fill_random(&Y0, seed + 1));
    memcpy(Yref.data, Y0.data, dense_bytes(&Y0));
    run(LOOM_BACKEND_REFERENCE, A, s, alpha, &X, beta, &Yref, 0);

    dense_to_device(ctx, &X, &dX);
    dense_to_device(ctx, &Y0, &dY);
    run(LOOM_BACKEND_CUDA, dA, s, alpha, &dX, beta, &dY, beta == 0);
    dense_to_host(ctx, &dY, &Y);
    CHECK(loom_dense_free(ctx, &dX));
    CHECK(loom_dense_free(ctx, &dY));

    if (memcmp(Y.data, Yref.data, dense_bytes(&Y)) != 0) {
        char name[128];
        loom_strategy_format(s, name, sizeof name);
        loom_compare_result cmp;
        loom_dense_compare(&Y, &Yref, &cmp);
        fail_msg("%s: %s %s N=%lld X %s Y %s pad %lld alpha %g beta %g: %lld elements differ "
                 "(max %llu ulp), first (%lld, %lld): cuda %.17g reference %.17g",
                 what, name, loom_dtype_name(dtype), (long long)n,
                 xl == LOOM_ROW_MAJOR ? "RM" : "CM", yl == LOOM_ROW_MAJOR ? "RM" : "CM",
                 (long long)pad, alpha, beta, (long long)cmp.differing,
                 (unsigned long long)cmp.max_ulp, (long long)cmp.first_row,
                 (long long)cmp.first_col, cmp.first_a, cmp.first_b);
    }
    cases_run++;
    free(X.data);
    free(Y0.data);
    free(Yref.data);
    free(Y.data);
}

/* Design `design` with case k's arithmetic parameters and techniques: lane
 * width, chunk, VDL/CSC/tile-major and coarsening rotate with k. */
static void rotated_strategy(int design, unsigned k, loom_strategy *s)
{
    CHECK(loom_strategy_design(design, s));
    s->lanes = lanes_for(s, k);
    if (s->kloop == LOOM_K_PR)
        s->chunk = s->lanes * pr_chunk_multiples[(k / 2) % COUNT(pr_chunk_multiples)];
    else
        s->chunk = sr_chunks[(k / 2) % COUNT(sr_chunks)];
    static const unsigned techs[] = {0, LOOM_TECH_VDL, LOOM_TECH_CSC, LOOM_TECH_VDL | LOOM_TECH_CSC,
                                     LOOM_TECH_VDL | LOOM_TECH_CSC | LOOM_TECH_TILE_MAJOR};
    s->techniques = techs[(k / 3) % COUNT(techs)];
    s->coarsen = (k % 7 == 3) ? (int)(1 + k % 4) : 0;
}

/* Every design x every N; the strategy's parameters (rotated_strategy),
 * layouts, padding and alpha/beta rotate with a counter. */
static void sweep(const loom_csr *A, const char *what, uint64_t seed)
{
    loom_csr *dA = NULL;
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    const int64_t *ns = quick ? n_quick : n_all;
    size_t n_count = quick ? COUNT(n_quick) : COUNT(n_all);
    unsigned k = (unsigned)(seed % 7);
    for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
        for (size_t ni = 0; ni < n_count; ni++, k++) {
            loom_strategy s;
            rotated_strategy(design, k, &s);
            loom_layout xl = (k & 1) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
            loom_layout yl = (k & 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
            int64_t pad = (k % 3 == 0) ? 3 : (k % 3 == 1) ? 1 : 0;
            double beta = (k % 4 < 2) ? 0.0 : 0.5;
            double alpha = (k % 5 == 0) ? -0.75 : 1.5;
            check_case(A, dA, &s, ns[ni], xl, yl, pad, alpha, beta, seed + k, what);
        }
    }
    CHECK(loom_csr_destroy(&dA));
}

static void test_unittest_matrices(void **state)
{
    (void)state;
    int read = 0;
    for (int f = 0; test_unittest_files[f]; f++) {
        for (int d = 0; d < 2; d++) {
            loom_csr *A = test_matrix_read(ctx, test_unittest_files[f], (loom_dtype)d);
            if (!A)
                fail_msg("cannot read data/unittest/%s: %s", test_unittest_files[f],
                         loom_last_error());
            sweep(A, test_unittest_files[f], 100 + (uint64_t)f);
            loom_csr_destroy(&A);
            read++;
            if (quick)
                break;
        }
        if (quick && f >= 2)
            break;
    }
    printf("# %d unit-test matrix/dtype pairs\n", read);
}

static void test_generated_shapes(void **state)
{
    (void)state;
    for (int shape = 0; shape < SHAPE_COUNT; shape++) {
        for (int d = 0; d < 2; d++) {
            if (quick && (shape + d) % 2)
                continue;
            loom_csr *A = test_matrix_make(ctx, (test_shape)shape, (loom_dtype)d, 7 + shape);
            assert_non_null(A);
            sweep(A, test_shape_name((test_shape)shape), 200 + (uint64_t)shape);
            loom_csr_destroy(&A);
        }
    }
}

/* The dtypes of the one-matrix tests: f32 (d = 0), and f64 unless quick. */
static int dtypes_to_run(void)
{
    return quick ? 1 : 2;
}

/* A skewed matrix (skewed_matrix's arguments) and its copy on the device,
 * for the tests that run many cases on one matrix; *dA receives the copy. */
static loom_csr *skewed_on_device(loom_dtype dtype, int64_t rows, int64_t cols, int64_t long_row,
                                  int64_t long_len, int empty_percent, uint64_t seed, loom_csr **dA)
{
    loom_csr *A = skewed_matrix(ctx, dtype, rows, cols, long_row, long_len, empty_percent, seed);
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, dA));
    return A;
}

static void destroy_both(loom_csr **A, loom_csr **dA)
{
    CHECK(loom_csr_destroy(dA));
    loom_csr_destroy(A);
}

static void test_skewed_random(void **state)
{
    (void)state;
    /* rows, cols, long row, its length, % empty rows */
    static const int64_t shapes[][5] = {
        {2000, 6000, 17, 5000, 60}, {1500, 1200, 1499, 1200, 20}, {3000, 150, 0, 150, 40}};
    for (size_t m = 0; m < COUNT(shapes); m++) {
        for (int d = 0; d < 2; d++) {
            if (quick && d != (int)(m % 2))
                continue;
            loom_csr *A = skewed_matrix(ctx, (loom_dtype)d, shapes[m][0], shapes[m][1], shapes[m][2],
                                        shapes[m][3], (int)shapes[m][4], 31 + m);
            char what[96];
            snprintf(what, sizeof what, "skewed %lldx%lld (row %lld: %lld non-zeros)",
                     (long long)shapes[m][0], (long long)shapes[m][1], (long long)shapes[m][2],
                     (long long)shapes[m][3]);
            sweep(A, what, 300 + m);
            loom_csr_destroy(&A);
        }
    }
}

/* RB + PR at each lane width and N: both N-loops (CM every third case),
 * X and Y in both layouts, padding, beta 0 and not, rotating with k. */
static void pr_sweep(const loom_csr *A, const loom_csr *dA, const int *widths, size_t n_widths,
                     const int64_t *ns, size_t n_ns, uint64_t seed, const char *what)
{
    unsigned k = 0;
    for (size_t w = 0; w < n_widths; w++)
        for (size_t ni = 0; ni < n_ns; ni++, k++) {
            loom_strategy s;
            CHECK(loom_strategy_parse(k % 3 == 2 ? "rb-cm-pr" : "rb-rm-pr:vdl", &s));
            s.lanes = widths[w];
            check_case(A, dA, &s, ns[ni], (k & 1) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR,
                       (k & 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, k % 3, 1.5,
                       k % 4 < 2 ? 0.0 : 0.5, seed + k, what);
        }
}

/* RB + PR on few rows with some long ones takes the deep walk at N = 2 to
 * 4 (cuda_plan.c wants_pr_deep): every lane count, N values with and
 * without vector loads (and N = 8, 33 past the rule), rows below and above
 * the deep length (LOOMCU_PR_DEEP x lanes) in one launch. */
static void test_pr_deep(void **state)
{
    (void)state;
    static const int64_t ns[] = {2, 3, 4, 8, 33};
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *dA = NULL;
        loom_csr *A = skewed_on_device((loom_dtype)d, 3000, 4000, 5, 3000, 20, 55 + d, &dA);
        pr_sweep(A, dA, lane_values, COUNT(lane_values), ns, COUNT(ns), 700,
                 "RB + PR deep walk (3000 rows, one of 3000 non-zeros)");
        destroy_both(&A, &dA);
    }
}

/* RB + PR with lanes across warps (rb_pr_warps_kernel, 64-256 lanes):
 * rows empty, shorter than a warp and of thousands of non-zeros, with rows
 * of a block past the matrix's end (701 rows, 1-4 a block), every N class
 * with and without vector loads. */
static void test_pr_wide_lanes(void **state)
{
    (void)state;
    static const int widths[] = {64, 128, 256};
    static const int64_t ns[] = {1, 2, 3, 4, 8, 17, 33};
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *dA = NULL;
        loom_csr *A = skewed_on_device((loom_dtype)d, 701, 2500, 5, 2400, 20, 77 + d, &dA);
        pr_sweep(A, dA, widths, COUNT(widths), ns, COUNT(ns), 900, "RB + PR, lanes across warps");
        destroy_both(&A, &dA);
    }
}

/* SR at N = 5..7 with the columns per lane left to the launcher walks the
 * N = 8 tile (2 columns a lane, 4 lanes) with idle columns: EB as segments,
 * RB by row bins (loomcu_wide_n).  Both, with and without vector loads
 * (VDL, and a padded X that forbids them), beside N = 8, on skewed rows
 * long and short, with chunks that split the long row. */
static void test_wide_small_n(void **state)
{
    (void)state;
    static const char *const designs[] = {"eb-rm-sr:chunk=128,vdl,csc", "eb-rm-sr:chunk=32,csc",
                                          "eb-rm-sr:chunk=1000,vdl", "rb-rm-sr:vdl,csc",
                                          "rb-rm-sr:csc"};
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *dA = NULL;
        loom_csr *A = skewed_on_device((loom_dtype)d, 2500, 3000, 11, 2900, 30, 91 + d, &dA);
        unsigned k = 0;
        for (size_t i = 0; i < COUNT(designs); i++)
            for (int64_t n = 5; n <= 8; n++, k++) {
                loom_strategy s;
                CHECK(loom_strategy_parse(designs[i], &s));
                check_case(A, dA, &s, n, LOOM_ROW_MAJOR, (k % 3 == 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR,
                           k % 2, (k % 5 == 0) ? -0.75 : 1.5, (k % 4 < 2) ? 0.0 : 0.5, 1100 + k,
                           "SR wide walk at N = 5..8 (2500 rows, one of 2900 non-zeros)");
            }
        destroy_both(&A, &dA);
    }
}

/* TILE_MAJOR orders the short rows' (segments') blocks tile by tile in
 * the binned and segments walks: rows past the last block's slice, long
 * rows beside short ones, N with one and many tiles and a partial last
 * tile, wide enough for several EB slabs; both orders must give the
 * reference's bits. */
static void test_tile_major(void **state)
{
    (void)state;
    static const char *const designs[] = {"rb-rm-sr:vdl,csc,tile-major", "rb-rm-sr:csc,tile-major",
                                          "eb-rm-sr:chunk=128,vdl,csc,tile-major",
                                          "eb-rm-sr:chunk=32,csc,tile-major"};
    static const int64_t ns[] = {5, 16, 33, 100, 129, 300};
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *dA = NULL;
        loom_csr *A = skewed_on_device((loom_dtype)d, 1301, 1500, 7, 1400, 20, 131 + d, &dA);
        unsigned k = 0;
        for (size_t i = 0; i < COUNT(designs); i++)
            for (size_t ni = 0; ni < COUNT(ns); ni++, k++) {
                loom_strategy s;
                CHECK(loom_strategy_parse(designs[i], &s));
                check_case(A, dA, &s, ns[ni], LOOM_ROW_MAJOR,
                           (k % 3 == 2) ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, k % 2,
                           (k % 5 == 0) ? -0.75 : 1.5, (k % 4 < 2) ? 0.0 : 0.5, 1300 + k,
                           "tile-major short blocks (1301 rows, one of 1400 non-zeros)");
            }
        destroy_both(&A, &dA);
    }
}

/* EB+SR at N = 1 walks long segments with 16-lane groups from 4e6
 * non-zeros on in f32 (LOOMCU_NARROW_WIDE_NNZ, spmm_eb_segments.cuh) and
 * at every size in f64, 8-lane ones otherwise: a matrix past that size,
 * both chunk sizes the rules use, N = 1 (the wide groups) and 2 (the deep
 * ones), both dtypes.  (The narrow sweep runs the small sizes.) */
static void test_large_narrow(void **state)
{
    (void)state;
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *dA = NULL;
        loom_csr *A = skewed_on_device((loom_dtype)d, 48000, 40000, 0, 30000, 10, 77, &dA);
        int64_t nnz; /* 4.23e6: past LOOMCU_NARROW_WIDE_NNZ, and A's pairs (34 MB in f32)
                      * past half an L2 of up to 68 MB, so the short rows' pairs are
                      * streamed (cuda_plan.c pairs_fit_l2); the smaller tests read
                      * them through L1 */
        CHECK(loom_csr_info(A, NULL, NULL, &nnz, NULL, NULL));
        assert_true(nnz >= 4000000);
        int dev = 0, l2 = 0;
        assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
        assert_int_equal(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), cudaSuccess);
        assert_true((double)nnz * 8.0 > 0.5 * (double)l2);
        static const int64_t chunks[] = {128, 1024};
        for (size_t c = 0; c < COUNT(chunks); c++)
            for (int64_t n = 1; n <= 2; n++) {
                loom_strategy s;
                CHECK(loom_strategy_parse("eb-rm-sr:vdl,csc", &s));
                s.chunk = chunks[c];
                check_case(A, dA, &s, n, LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, n == 2 ? 1 : 0, 1.5,
                           c ? 0.5 : 0.0, 900 + c, "large skewed (4e6+ non-zeros)");
            }
        destroy_both(&A, &dA);
    }
}

static void explain_plan(const loom_csr *dA, const char *design, int64_t n, char *buf, size_t len);

/* The narrow EB + SR walk (N <= 4) sweeps the rows that are one piece of
 * at most 16 non-zeros, or empty, and lists the rest (cuda_plan.c
 * swept_row): rows of every length from 0 to 20, and some of 40, so that
 * with these chunks (a power of two or not) short rows fall inside a
 * chunk, end on its boundary and cross it, and rows of 16 and 17 sit on
 * either side of the long threshold. */
static void test_narrow_sweep(void **state)
{
    (void)state;
    const int64_t rows = 700, cols = 300;
    for (int d = 0; d < dtypes_to_run(); d++) {
        uint64_t st = 4242 + (uint64_t)d;
        int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
        assert_non_null(ro);
        ro[0] = 0;
        for (int64_t i = 0; i < rows; i++)
            ro[i + 1] = ro[i] + (i % 23 == 22 ? 40 : (i * 7) % 21);
        loom_csr *A = test_matrix_with_lengths(ctx, (loom_dtype)d, rows, cols, ro, &st);
        assert_non_null(A);
        loom_csr *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        static const int64_t chunks[] = {16, 17, 32, 100};
        unsigned c = 0;
        for (size_t ci = 0; ci < COUNT(chunks); ci++)
            for (int64_t n = 1; n <= 4; n++, c++) {
                loom_strategy s;
                CHECK(loom_strategy_parse("eb-rm-sr:vdl,csc", &s));
                s.chunk = chunks[ci];
                check_case(A, dA, &s, n, c % 3 ? LOOM_ROW_MAJOR : LOOM_COL_MAJOR,
                           c % 2 ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, c % 4 == 1 ? 1 : 0,
                           c % 5 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 2100 + c,
                           "narrow sweep (rows of 0 to 20 and 40)");
            }
        /* the explanation names the sweep, the pairs' path and, at N = 1,
         * the exchange (cuda_backend.c explain_segments) */
        char ex[2048];
        explain_plan(dA, "eb-rm-sr:chunk=32,vdl,csc", 1, ex, sizeof ex);
        if (!strstr(ex, "the 700 rows swept") || !strstr(ex, "short pairs read through L1") ||
            !strstr(ex, "through shared memory"))
            fail_msg("narrow sweep: the explanation does not describe the walk:\n%s", ex);
        destroy_both(&A, &dA);
    }
}

/* Where X dwarfs the L2 (a 128-column slab of X at least 4 times it), EB +
 * SR walks its segments 64 columns at a time with the lanes shrunk to the
 * slab (cuda_plan.c segment_slab): X of 600000 rows (the condition holds
 * on GPUs of up to 76 MB of L2; checked first, so the test cannot pass
 * without taking the path), N with one full and one partial slab and with
 * two and a partial one, V = 4, 2 and 1 (tiles of 64, 64 and 32 columns),
 * chunks splitting long rows.  Not under LOOM_CUDA_TEST_QUICK: its X of
 * 300 MB is slow under the sanitizers. */
static void test_narrow_slabs(void **state)
{
    (void)state;
    if (quick) {
        printf("# narrow slabs: skipped in the quick suite (X of 300 MB)\n");
        return;
    }
    const int64_t k = 600000;
    int dev = 0, l2 = 0;
    assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
    assert_int_equal(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), cudaSuccess);
    assert_true((double)k * 128.0 * 4.0 >= 4.0 * (double)l2);
    static const char *const designs[] = {"eb-rm-sr:chunk=128,vdl,csc", "eb-rm-sr:chunk=32,vdl,csc",
                                          "eb-rm-sr:chunk=256,coarsen=2,csc",
                                          "eb-rm-sr:chunk=64,coarsen=1,csc"};
    static const int64_t ns[] = {72, 130};
    loom_csr *dA = NULL;
    loom_csr *A = skewed_on_device(LOOM_F32, 3000, k, 7, 20000, 20, 313, &dA);
    unsigned c = 0;
    for (size_t i = 0; i < COUNT(designs); i++)
        for (size_t ni = 0; ni < COUNT(ns); ni++, c++) {
            loom_strategy s;
            CHECK(loom_strategy_parse(designs[i], &s));
            check_case(A, dA, &s, ns[ni], LOOM_ROW_MAJOR, c % 2 ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR,
                       0, c % 3 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 1700 + c,
                       "EB + SR in 64-column slabs (X of 600000 rows)");
        }
    destroy_both(&A, &dA);
}

/* The explanation of a plan of `design` at N = n (X and Y row-major) on
 * device A. */
static void explain_plan(const loom_csr *dA, const char *design, int64_t n, char *buf, size_t len)
{
    int64_t rows, cols;
    loom_dtype dtype;
    CHECK(loom_csr_info(dA, &rows, &cols, NULL, &dtype, NULL));
    loom_dense X, Y;
    CHECK(loom_dense_alloc(ctx, &X, cols, n, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_DEVICE));
    CHECK(loom_dense_alloc(ctx, &Y, rows, n, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_DEVICE));
    loom_strategy s;
    loom_plan *plan = NULL;
    CHECK(loom_strategy_parse(design, &s));
    CHECK(fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, &s, &X, &Y, &plan));
    snprintf(buf, len, "%s", loom_plan_explain(plan));
    CHECK(loom_plan_destroy(&plan));
    CHECK(loom_dense_free(ctx, &X));
    CHECK(loom_dense_free(ctx, &Y));
}

/* That plan's explanation holds `words` (said true) or not (said false);
 * else the test fails with the explanation and `why`. */
static void plan_says(const loom_csr *dA, const char *design, int64_t n, const char *words, bool said,
                      const char *why)
{
    char text[4096];
    explain_plan(dA, design, n, text, sizeof text);
    if ((strstr(text, words) != NULL) != said)
        fail_msg("%s at N = %lld (%s): the plan %s \"%s\":\n%s", design, (long long)n, why,
                 said ? "does not say" : "says", words, text);
}

/* A rows x cols matrix of rows about `density` full: lengths spread
 * +-25% round it, two empty rows, one full row and one of a single
 * non-zero (test_matrix_with_lengths: sorted columns, values with +-0). */
static loom_csr *dense_ish_matrix(loom_dtype dtype, int64_t rows, int64_t cols, double density,
                                  uint64_t seed)
{
    uint64_t st = seed;
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    assert_non_null(ro);
    ro[0] = 0;
    const int64_t mean = (int64_t)(density * (double)cols);
    for (int64_t i = 0; i < rows; i++) {
        int64_t len = mean * 3 / 4 + (int64_t)(test_rand(&st) % (uint64_t)(mean / 2 + 1));
        if (i == 5 || i == rows - 2)
            len = 0;
        else if (i == 40)
            len = cols;
        else if (i == 41)
            len = 1;
        ro[i + 1] = ro[i] + len;
    }
    loom_csr *A = test_matrix_with_lengths(ctx, dtype, rows, cols, ro, &st);
    assert_non_null(A);
    return A;
}

/* RB + SR in K-tiles (spmm_rb_ktile.cuh), the plan's choice at N >= 512
 * on dense-ish rows (cuda_plan.c wants_ktile): 300 rows (a partial last
 * block) of 1500 columns (a partial last K-tile) at 25%; N a whole number
 * of column tiles and not (600: a partial tile); X with 16-byte rows (the
 * K-tiles) and with padded rows of odd length (the wide walk instead);
 * both Y layouts, alpha and beta.  The explanation must show the choice,
 * and a 5% matrix must not take it. */
static void test_ktile(void **state)
{
    (void)state;
    static const int64_t ns[] = {512, 600};
    unsigned c = 0;
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *A = dense_ish_matrix((loom_dtype)d, 300, 1500, 0.25, 71 + d), *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        plan_says(dA, "rb-rm-sr:vdl,csc", 512, "K-tiles", true, "a 25% matrix");
        plan_says(dA, "rb-rm-sr:vdl,csc", 256, "K-tiles", false, "N below 512");
        for (size_t ni = 0; ni < COUNT(ns); ni++)
            for (int pad = 0; pad <= 1; pad++, c++) {
                loom_strategy s;
                CHECK(loom_strategy_parse(c % 2 ? "rb-rm-sr:csc" : "rb-rm-sr:vdl,csc,tile-major", &s));
                check_case(A, dA, &s, ns[ni], LOOM_ROW_MAJOR, c % 3 ? LOOM_ROW_MAJOR : LOOM_COL_MAJOR,
                           pad, c % 2 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 2300 + c,
                           "RB + SR in K-tiles (25% rows)");
            }
        destroy_both(&A, &dA);
    }
    loom_csr *B = dense_ish_matrix(LOOM_F32, 200, 4000, 0.05, 79), *dB = NULL;
    CHECK(loom_csr_copy(ctx, B, LOOM_MEMORY_DEVICE, &dB));
    plan_says(dB, "rb-rm-sr:vdl,csc", 512, "K-tiles", false, "a 5% matrix");
    destroy_both(&B, &dB);
}

/* EB + SR's short segments in the order of their first column, the
 * plan's choice at N >= 256 on rows of several chunks (cuda_plan.c
 * column_order): 300 rows of 1500 columns at 25% (about three chunks of
 * 128 a row; two empty rows, a full one, one of a single non-zero),
 * chunks of 128 and 100, N = 256 and 300 (a partial tile), item- and
 * tile-major, both Y layouts, alpha and beta.  The explanation must show
 * the choice there, and not at N = 128 nor with chunks of 1024. */
static void test_column_order(void **state)
{
    (void)state;
    static const int64_t ns[] = {256, 300};
    static const int64_t chunks[] = {128, 100};
    unsigned c = 0;
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *A = dense_ish_matrix((loom_dtype)d, 300, 1500, 0.25, 171 + d), *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        const char *order = "order of their first column";
        plan_says(dA, "eb-rm-sr:chunk=128,vdl,csc", 256, order, true, "rows of three chunks");
        plan_says(dA, "eb-rm-sr:chunk=128,vdl,csc", 128, order, false, "N below 256");
        plan_says(dA, "eb-rm-sr:chunk=1024,vdl,csc", 256, order, false, "rows under a chunk");
        for (size_t ni = 0; ni < COUNT(ns); ni++)
            for (size_t ci = 0; ci < COUNT(chunks); ci++)
                for (int tile_major = 0; tile_major <= 1; tile_major++, c++) {
                    loom_strategy s;
                    CHECK(loom_strategy_parse(tile_major ? "eb-rm-sr:vdl,csc,tile-major" : "eb-rm-sr:vdl,csc",
                                              &s));
                    s.chunk = chunks[ci];
                    check_case(A, dA, &s, ns[ni], LOOM_ROW_MAJOR, c % 3 ? LOOM_ROW_MAJOR : LOOM_COL_MAJOR,
                               c % 2, c % 2 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 2500 + c,
                               "EB + SR, short segments in column order");
                }
        destroy_both(&A, &dA);
    }
}

/* EB + SR's long segments walked first in the short ones' vector shape,
 * the plan's choice at N >= 32 where chunks x N >= 3e5 (cuda_plan.c
 * long_segments_vector): 3000 x 3000 at 10% (about 900K non-zeros, rows
 * of 225-375 and two empty, a full one, one of a single non-zero), chunks
 * of 256 and 128 (pieces past the long threshold of 16 and 128), N = 48,
 * 100 and 130 (a partial tile), both Y layouts, alpha and beta; the
 * explanation must show the choice there and not with chunks of 1024 or
 * at N = 24.  Not under LOOM_CUDA_TEST_QUICK (the reference's 1e8 fmas a
 * case are slow under the sanitizers). */
static void test_long_vector(void **state)
{
    (void)state;
    if (quick) {
        printf("# long segments in the vector shape: skipped in the quick suite\n");
        return;
    }
    static const struct {
        int64_t chunk, n;
    } cases[] = {{256, 100}, {256, 130}, {128, 48}, {128, 24}};
    unsigned c = 0;
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *A = dense_ish_matrix((loom_dtype)d, 3000, 3000, 0.10, 271 + d), *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        const char *shape = "in the short ones' vector shape";
        plan_says(dA, "eb-rm-sr:chunk=256,vdl,csc", 100, shape, true, "3500 chunks x 100 columns");
        plan_says(dA, "eb-rm-sr:chunk=1024,vdl,csc", 100, shape, false, "880 chunks x 100 columns");
        plan_says(dA, "eb-rm-sr:chunk=128,vdl,csc", 24, shape, false, "N below 32");
        plan_says(dA, "eb-rm-sr:chunk=256,vdl,csc", 100, "32 bytes of columns a lane", false,
                  "rows of 300 (test_vector32)");
        for (size_t i = 0; i < COUNT(cases); i++, c++) {
            loom_strategy s;
            CHECK(loom_strategy_parse(c % 2 ? "eb-rm-sr:vdl,csc" : "eb-rm-sr:vdl,csc,tile-major", &s));
            s.chunk = cases[i].chunk;
            check_case(A, dA, &s, cases[i].n, LOOM_ROW_MAJOR, c % 3 ? LOOM_ROW_MAJOR : LOOM_COL_MAJOR,
                       0, c % 2 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 2700 + c,
                       "EB + SR, long segments in the vector shape");
        }
        destroy_both(&A, &dA);
    }
}

/* EB + SR's wide walk with 32 bytes of columns a lane, the plan's choice
 * at N >= 32 on large matrices of short rows (cuda_plan.c
 * segments_vector32): 30000 x 20000 with rows of 0 to 16 non-zeros (a
 * mean of 8) and one of 3000, about 243K non-zeros; chunks of 64, 256 and
 * 1000 (rows crossing chunks: carries stored as vectors where the slab's
 * width allows, one by one at N = 100), N = 32 (8-column tiles of 4 lanes),
 * 40, 64 and 100 (partial tiles), both Y layouts, padded X, alpha and beta.
 * The explanation must show the choice at N = 64 and not at N = 24. */
static void test_vector32(void **state)
{
    (void)state;
    static const struct {
        int64_t chunk, n, pad;
    } cases[] = {{256, 64, 0}, {1000, 100, 0}, {256, 40, 4}, {64, 32, 0}};
    const int64_t rows = 30000, cols = 20000;
    unsigned c = 0;
    for (int d = 0; d < dtypes_to_run(); d++) {
        int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
        assert_non_null(ro);
        ro[0] = 0;
        for (int64_t i = 0; i < rows; i++)
            ro[i + 1] = ro[i] + (i == 5 ? 3000 : (i * 7) % 17);
        uint64_t seed = 3100 + d;
        loom_csr *A = test_matrix_with_lengths(ctx, (loom_dtype)d, rows, cols, ro, &seed), *dA = NULL;
        assert_non_null(A);
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        const char *shape = "32 bytes of columns a lane";
        plan_says(dA, "eb-rm-sr:chunk=256,vdl,csc", 64, shape, true, "rows of 8, 243K non-zeros");
        plan_says(dA, "eb-rm-sr:chunk=256,vdl,csc", 24, shape, false, "N below 32");
        for (size_t i = 0; i < COUNT(cases); i++, c++) {
            loom_strategy s;
            CHECK(loom_strategy_parse(c % 2 ? "eb-rm-sr:vdl,csc" : "eb-rm-sr:vdl,csc,tile-major", &s));
            s.chunk = cases[i].chunk;
            check_case(A, dA, &s, cases[i].n, LOOM_ROW_MAJOR, c % 3 ? LOOM_ROW_MAJOR : LOOM_COL_MAJOR,
                       cases[i].pad, c % 2 ? 1.5 : -0.75, c % 4 < 2 ? 0.0 : 0.5, 3200 + c,
                       "EB + SR, 32 bytes of columns a lane");
        }
        destroy_both(&A, &dA);
    }
}

/* Four calls in a row on one stream with no host wait between them, each
 * reading what the call before wrote (Y with beta != 0, Y as the next X)
 * or overwriting what it read: Y = A X; Y = A X + Y; Z = A Y;
 * Y = -0.75 A Z + 0.5 Y.  Every kernel may be placed on the GPU while the
 * one before it ends (programmatic dependent launch, spmm_common.cuh), and
 * must wait for it before it touches memory: a read too early or a write
 * too soon shows here as differing bits.  The four steps run four designs
 * (first_design and the next three, with rotated parameters), so kernels
 * of different families follow each other.  Against the same chain on the
 * reference, memcmp of Y and Z. */
static void chain_case(const loom_csr *A, const loom_csr *dA, int64_t n, int first_design, uint64_t seed)
{
    int64_t m, cols, nnz;
    loom_dtype dtype;
    CHECK(loom_csr_info(A, &m, &cols, &nnz, &dtype, NULL));
    assert_int_equal(m, cols); /* Y is the next call's X */
    loom_dense X, Y, Z, Yref, Zref, dX, dY, dZ;
    dense_make(&X, m, n, LOOM_ROW_MAJOR, dtype, 1);
    dense_make(&Y, m, n, LOOM_ROW_MAJOR, dtype, 1);
    dense_make(&Z, m, n, LOOM_ROW_MAJOR, dtype, 1);
    dense_make(&Yref, m, n, LOOM_ROW_MAJOR, dtype, 1);
    dense_make(&Zref, m, n, LOOM_ROW_MAJOR, dtype, 1);
    dense_poison(&X);
    CHECK(loom_dense_fill_random(&X, seed));
    dense_poison(&Yref); /* the first and third steps must not read Y or Z */
    dense_poison(&Zref);
    dense_to_device(ctx, &X, &dX);
    dense_to_device(ctx, &Yref, &dY);
    dense_to_device(ctx, &Zref, &dZ);

    const struct {
        const loom_dense *hin, *din;
        loom_dense *hout, *dout;
        double alpha, beta;
    } step[4] = {{&X, &dX, &Yref, &dY, 1.0, 0.0},
                 {&X, &dX, &Yref, &dY, 1.0, 1.0},
                 {&Yref, &dY, &Zref, &dZ, 1.0, 0.0},
                 {&Zref, &dZ, &Yref, &dY, -0.75, 0.5}};
    loom_strategy s[4];
    for (int i = 0; i < 4; i++)
        rotated_strategy((first_design + i) % LOOM_DESIGN_COUNT, (unsigned)(seed + i), &s[i]);

    /* The device chain first (its plans made before any call, so that the
     * calls follow each other with no host wait), then the reference's on
     * the host buffers, which the device steps read from their copies. */
    cudaStream_t st;
    assert_int_equal(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
    CHECK(loom_context_set_stream(ctx, st));
    loom_plan *plan[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        CHECK(fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, &s[i], step[i].din, step[i].dout, &plan[i]));
    for (int i = 0; i < 4; i++)
        CHECK(loom_spmm_execute(plan[i], step[i].alpha, step[i].din, step[i].beta, step[i].dout));
    assert_int_equal(cudaStreamSynchronize(st), cudaSuccess);
    for (int i = 0; i < 4; i++)
        CHECK(loom_plan_destroy(&plan[i]));
    CHECK(loom_context_set_stream(ctx, NULL));
    assert_int_equal(cudaStreamDestroy(st), cudaSuccess);
    dense_to_host(ctx, &dY, &Y);
    dense_to_host(ctx, &dZ, &Z);
    for (int i = 0; i < 4; i++)
        run(LOOM_BACKEND_REFERENCE, A, &s[i], step[i].alpha, step[i].hin, step[i].beta, step[i].hout, 0);

    const loom_dense *got[2] = {&Y, &Z}, *want[2] = {&Yref, &Zref};
    for (int o = 0; o < 2; o++)
        if (memcmp(got[o]->data, want[o]->data, dense_bytes(got[o])) != 0) {
            char names[4][64];
            for (int i = 0; i < 4; i++)
                loom_strategy_format(&s[i], names[i], sizeof names[i]);
            loom_compare_result cmp;
            loom_dense_compare(got[o], want[o], &cmp);
            fail_msg("chain of 4 calls (%s; %s; %s; %s) %s N=%lld: %s differs in %lld elements, first "
                     "(%lld, %lld): cuda %.17g reference %.17g",
                     names[0], names[1], names[2], names[3], loom_dtype_name(dtype), (long long)n,
                     o ? "Z" : "Y", (long long)cmp.differing, (long long)cmp.first_row,
                     (long long)cmp.first_col, cmp.first_a, cmp.first_b);
        }
    cases_run += 4;
    CHECK(loom_dense_free(ctx, &dX));
    CHECK(loom_dense_free(ctx, &dY));
    CHECK(loom_dense_free(ctx, &dZ));
    free(X.data);
    free(Y.data);
    free(Z.data);
    free(Yref.data);
    free(Zref.data);
}

static void test_chained(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 3, 4, 64, 257};
    for (int d = 0; d < 2; d++) {
        /* square; one row of 1800 non-zeros across many EB chunks; 30% empty rows */
        loom_csr *A = skewed_matrix(ctx, (loom_dtype)d, 2400, 2400, 5, 1800, 30, 77 + d);
        loom_csr *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        for (size_t ni = 0; ni < COUNT(ns); ni++)
            for (int first = 0; first < LOOM_DESIGN_COUNT; first += quick ? 4 : 1)
                chain_case(A, dA, ns[ni], first, 900 + 37 * ni + first);
        destroy_both(&A, &dA);
    }
}

/* No non-zeros at all, under every design. */
static void test_empty_matrix(void **state)
{
    (void)state;
    int64_t ro[6] = {0, 0, 0, 0, 0, 0};
    int32_t ci[1] = {0};
    float v[1] = {0};
    loom_csr *A = NULL, *dA = NULL;
    CHECK(loom_csr_create(ctx, &A, 5, 4, 0, LOOM_F32, ro, ci, v));
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
        loom_strategy s;
        CHECK(loom_strategy_design(design, &s));
        check_case(A, dA, &s, 3, LOOM_ROW_MAJOR, LOOM_ROW_MAJOR, 0, 1.0, 0.0, 5, "empty");
        check_case(A, dA, &s, 1, LOOM_COL_MAJOR, LOOM_ROW_MAJOR, 1, 2.0, -1.0, 6, "empty");
    }
    loom_csr_destroy(&dA);
    loom_csr_destroy(&A);
}

int main(void)
{
    if (loom_backend_available(LOOM_BACKEND_CUDA) != LOOM_SUCCESS) {
        printf("SKIP: no CUDA device: %s\n", loom_last_error());
        return 77;
    }
    quick = getenv("LOOM_CUDA_TEST_QUICK") && atoi(getenv("LOOM_CUDA_TEST_QUICK")) != 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_matrix),
        cmocka_unit_test(test_chained),
        cmocka_unit_test(test_skewed_random),
        cmocka_unit_test(test_large_narrow),
        cmocka_unit_test(test_narrow_sweep),
        cmocka_unit_test(test_narrow_slabs),
        cmocka_unit_test(test_ktile),
        cmocka_unit_test(test_column_order),
        cmocka_unit_test(test_long_vector),
        cmocka_unit_test(test_vector32),
        cmocka_unit_test(test_pr_deep),
        cmocka_unit_test(test_pr_wide_lanes),
        cmocka_unit_test(test_wide_small_n),
        cmocka_unit_test(test_tile_major),
        cmocka_unit_test(test_generated_shapes),
        cmocka_unit_test(test_unittest_matrices),
    };
    printf("# cuda backend against the reference%s\n", quick ? " (quick subset)" : "");
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    printf("# %ld cuda runs compared with the reference bit for bit\n", cases_run);
    return failed ? 1 : 0;
}
