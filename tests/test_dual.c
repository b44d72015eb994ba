/*
 * test_dual.c - dual-side sparsity: the bitmap format, the dual-side GEMM,
 * the tensor-core step counter, sparse convolution.
 *
 * Tier 1: hand-checked cases (the layout of a tiny bitmap, the step
 *         counter on tiles worked out by hand, malformed inputs).
 * Tier 2: every operation against an independent long double oracle on
 *         random patterns, odd shapes (not multiples of 32) and real DLMC
 *         weights, within a stated rounding bound.
 * Tier 3: bit-exact across backends (memcmp) and across im2col strategies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dual_util.h"


static loom_context *ctx;

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

static size_t dense_bytes(const loom_dense *d)
{
    int64_t outer = d->layout == LOOM_ROW_MAJOR ? d->rows : d->cols;
    return (size_t)(outer * d->ld) * loom_dtype_size(d->dtype);
}

static void dense_clone(const loom_dense *src, loom_dense *dst)
{
    CHECK(loom_dense_alloc(ctx, dst, src->rows, src->cols, src->layout, src->dtype,
                           LOOM_MEMORY_HOST));
    memcpy(dst->data, src->data, dense_bytes(src));
}

/* ------------------------------------------------------------ tier 1 */

/* A 2 x 3 matrix [[1 0 2] [0 3 4]] in both layouts. */
static void test_bitmap_layout_by_hand(void **state)
{
    (void)state;
    float data[6] = {1, 0, 2, 0, 3, 4};
    loom_dense d;
    CHECK(loom_dense_init(&d, 2, 3, 3, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, data));
    loom_bitmap *b = NULL;
    loom_bitmap_view v;

    CHECK(loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_ROWS, &b));
    CHECK(loom_bitmap_view_get(b, &v));
    assert_int_equal(v.nnz, 4);
    assert_int_equal(v.tile_rows, 1);
    assert_int_equal(v.tile_cols, 1);
    assert_int_equal(v.tile_bits[0], 1);
    assert_int_equal(v.masks[0], 0x5); /* row 0: columns 0 and 2 */
    assert_int_equal(v.masks[1], 0x6); /* row 1: columns 1 and 2 */
    const float *val = v.values;
    assert_true(val[0] == 1 && val[1] == 2 && val[2] == 3 && val[3] == 4);
    CHECK(loom_bitmap_destroy(&b));

    CHECK(loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_COLUMNS, &b));
    CHECK(loom_bitmap_view_get(b, &v));
    assert_int_equal(v.masks[0], 0x1); /* column 0: row 0 */
    assert_int_equal(v.masks[1], 0x2); /* column 1: row 1 */
    assert_int_equal(v.masks[2], 0x3); /* column 2: rows 0 and 1 */
    val = v.values;
    assert_true(val[0] == 1 && val[1] == 3 && val[2] == 2 && val[3] == 4);
    assert_int_equal(v.tile_offsets[1], 4);
    CHECK(loom_bitmap_destroy(&b));
}

static void test_bitmap_empty_tiles_skipped(void **state)
{
    (void)state;
    loom_dense d;
    CHECK(loom_dense_alloc(ctx, &d, 70, 40, LOOM_ROW_MAJOR, LOOM_F64, LOOM_MEMORY_HOST));
    memset(d.data, 0, dense_bytes(&d));
    dual_set(&d, 65, 33, 2.5); /* tile (2, 1) only */
    loom_bitmap *b = NULL;
    loom_bitmap_view v;
    CHECK(loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_COLUMNS, &b));
    CHECK(loom_bitmap_view_get(b, &v));
    assert_int_equal(v.tile_rows, 3);
    assert_int_equal(v.tile_cols, 2);
    assert_int_equal(v.tile_bits[0], 1u << 5); /* tile index 2*2 + 1 */
    assert_int_equal(v.masks[5 * 32 + 1], 1u << 1);
    CHECK(loom_bitmap_destroy(&b));
    CHECK(loom_dense_free(ctx, &d));
}

static loom_bitmap *bitmap_of(const float *data, int64_t rows, int64_t cols,
                              loom_bitmap_layout layout)
{
    loom_dense d;
    loom_bitmap *b = NULL;
    CHECK(loom_dense_init(&d, rows, cols, cols, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST,
                          (void *)data));
    CHECK(loom_bitmap_from_dense(ctx, &d, layout, &b));
    return b;
}

/* The step counter on cases worked out by hand. */
static void test_steps_by_hand(void **state)
{
    (void)state;
    static float a[32 * 32], bm[32 * 32];
    loom_dual_gemm_steps s;

    /* Dense 32x32 x 32x32: 32 k x (4 x 2) steps, all issued. */
    for (int e = 0; e < 32 * 32; e++)
        a[e] = bm[e] = 1;
    loom_bitmap *A = bitmap_of(a, 32, 32, LOOM_BITMAP_COLUMNS);
    loom_bitmap *B = bitmap_of(bm, 32, 32, LOOM_BITMAP_ROWS);
    CHECK(loom_dual_gemm_steps_count(A, B, &s));
    assert_int_equal(s.dense_steps, 256);
    assert_int_equal(s.issued_steps, 256);
    assert_int_equal(s.skipped_steps, 0);
    assert_true(s.speedup == 1.0);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);

    /* A: column 0 holds 9 non-zeros (rows 0..8) -> 2 groups of 8; B: row 0
     * holds 17 non-zeros -> 2 groups of 16; everything else zero.
     * Issued: 2*2 = 4 at k = 0 only; dense: 256. */
    memset(a, 0, sizeof a);
    memset(bm, 0, sizeof bm);
    for (int i = 0; i < 9; i++)
        a[i * 32 + 0] = 1;
    for (int j = 0; j < 17; j++)
        bm[0 * 32 + j] = 1;
    A = bitmap_of(a, 32, 32, LOOM_BITMAP_COLUMNS);
    B = bitmap_of(bm, 32, 32, LOOM_BITMAP_ROWS);
    CHECK(loom_dual_gemm_steps_count(A, B, &s));
    assert_int_equal(s.dense_steps, 256);
    assert_int_equal(s.issued_steps, 4);
    assert_int_equal(s.skipped_steps, 252);
    assert_true(s.speedup == 64.0);
    assert_int_equal(s.tile_pairs, 1);
    assert_int_equal(s.tile_pairs_skipped, 0);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);

    /* A 40 x 40 (2 x 2 tiles), only tile (0, 0) present; B 40 x 20.
     * Warp tiles of C: (0,0) 32x20 -> 4*2 = 8 per k; (1,0) 8x20 -> 1*2 = 2
     * per k; dense = (8 + 2) * 40 = 400.  Pairs: 2 C tiles x 2 k-tiles = 4,
     * skipped: A(0,1), A(1,0), A(1,1) -> 3.  Issued: A(0,0) column 3 has one
     * non-zero and B row 3 has 20 -> ceil(1/8)*ceil(20/16) = 2. */
    static float a2[40 * 40], b2[40 * 20];
    memset(a2, 0, sizeof a2);
    a2[5 * 40 + 3] = 1;
    for (int j = 0; j < 20; j++)
        b2[3 * 20 + j] = 1;
    A = bitmap_of(a2, 40, 40, LOOM_BITMAP_COLUMNS);
    B = bitmap_of(b2, 40, 20, LOOM_BITMAP_ROWS);
    CHECK(loom_dual_gemm_steps_count(A, B, &s));
    assert_int_equal(s.dense_steps, 400);
    assert_int_equal(s.issued_steps, 2);
    assert_int_equal(s.tile_pairs, 4);
    assert_int_equal(s.tile_pairs_skipped, 3);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
}

static void test_malformed_inputs(void **state)
{
    (void)state;
    static float a[8 * 8];
    a[3] = 1;
    loom_bitmap *A = bitmap_of(a, 8, 8, LOOM_BITMAP_COLUMNS);
    loom_bitmap *Brow = bitmap_of(a, 8, 8, LOOM_BITMAP_ROWS);
    loom_bitmap *Bwide = bitmap_of(a, 4, 16, LOOM_BITMAP_ROWS);
    loom_dense C;
    CHECK(loom_dense_alloc(ctx, &C, 8, 8, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    loom_dual_gemm_plan *p = NULL;

    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, A, A, &C, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_last_error(), "row-condensed"));
    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, Brow, Brow, &C, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_last_error(), "column-condensed"));
    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, A, Bwide, &C, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_DIMENSION_MISMATCH);
    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, NULL, Brow, &C, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_NULL_POINTER);
    assert_int_equal(loom_dual_gemm_plan_create(ctx, NULL, A, Brow, &C, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_NULL_POINTER);
    loom_dense C64;
    CHECK(loom_dense_alloc(ctx, &C64, 8, 8, LOOM_ROW_MAJOR, LOOM_F64, LOOM_MEMORY_HOST));
    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, A, Brow, &C64, LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_last_error(), "dtypes differ"));
    assert_int_equal(loom_dual_gemm_plan_create(ctx, &p, A, Brow, &C, (loom_backend_id)7),
                     LOOM_ERR_INVALID_ARGUMENT);

    /* A plan used with another C. */
    CHECK(loom_dual_gemm_plan_create(ctx, &p, A, Brow, &C, LOOM_BACKEND_REFERENCE));
    assert_int_equal(loom_dual_gemm_execute(p, 1, 0, &C64), LOOM_ERR_DIMENSION_MISMATCH);
    CHECK(loom_dual_gemm_plan_destroy(&p));
    assert_null(p);
    assert_int_equal(loom_dual_gemm_execute(p, 1, 0, &C), LOOM_ERR_NULL_POINTER);

    /* A freed bitmap is caught by its magic number. */
    loom_bitmap *gone = bitmap_of(a, 8, 8, LOOM_BITMAP_ROWS);
    loom_bitmap *alias = gone;
    CHECK(loom_bitmap_destroy(&gone));
    (void)alias; /* reading a freed handle is undefined; check only NULL and layouts */
    assert_int_equal(loom_bitmap_from_dense(ctx, &C, (loom_bitmap_layout)9, &gone),
                     LOOM_ERR_INVALID_ARGUMENT);
    assert_int_equal(loom_dual_gemm_steps_count(Brow, A, NULL), LOOM_ERR_NULL_POINTER);
    loom_dual_gemm_steps s;
    assert_int_equal(loom_dual_gemm_steps_count(Brow, A, &s), LOOM_ERR_INVALID_ARGUMENT);

    /* Convolution shapes. */
    loom_conv_shape sh = {1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1};
    int64_t oh, ow;
    CHECK(loom_conv_output_size(&sh, &oh, &ow));
    assert_int_equal(oh, 5);
    assert_int_equal(ow, 5);
    sh.stride_w = 0;
    assert_int_equal(loom_conv_output_size(&sh, &oh, &ow), LOOM_ERR_INVALID_ARGUMENT);
    sh.stride_w = 1;
    sh.pad_h = 0;
    sh.dilation_h = 3; /* dilated kernel 7 > 5 */
    assert_int_equal(loom_conv_output_size(&sh, &oh, &ow), LOOM_ERR_DIMENSION_MISMATCH);
    sh.dilation_h = 1;
    loom_conv_plan *cp = NULL;
    /* W must be F x (C*R*S) = 3 x 18. */
    assert_int_equal(loom_conv_plan_create(ctx, &cp, &sh, A, LOOM_IM2COL_BITMAP,
                                           LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_DIMENSION_MISMATCH);
    assert_int_equal(loom_conv_plan_create(ctx, &cp, &sh, A, (loom_im2col)5,
                                           LOOM_BACKEND_REFERENCE),
                     LOOM_ERR_INVALID_ARGUMENT);

    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&Brow);
    loom_bitmap_destroy(&Bwide);
    loom_dense_free(ctx, &C);
    loom_dense_free(ctx, &C64);
}

/* ------------------------------------------------------------ tier 2 / 3 */

/* dense -> bitmap -> dense, bitmap -> CSR -> bitmap: the same bits. */
static void test_bitmap_round_trips(void **state)
{
    (void)state;
    const int64_t shapes[][2] = {{1, 1}, {31, 33}, {64, 64}, {70, 45}, {5, 130}};
    const double dens[] = {0.0, 0.05, 0.5, 1.0};
    uint64_t seed = 11;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t di = 0; di < 4; di++)
            for (int dt = 0; dt < 2; dt++)
                for (int lay = 0; lay < 2; lay++)
                    for (int bl = 0; bl < 2; bl++) {
                        loom_dense d, back;
                        CHECK(dual_random_dense(ctx, &d, shapes[si][0], shapes[si][1], dens[di],
                                                (loom_dtype)dt, (loom_layout)lay, seed++));
                        loom_bitmap *b = NULL, *b2 = NULL;
                        CHECK(loom_bitmap_from_dense(ctx, &d, (loom_bitmap_layout)bl, &b));
                        CHECK(loom_dense_alloc(ctx, &back, d.rows, d.cols, (loom_layout)lay,
                                               (loom_dtype)dt, LOOM_MEMORY_HOST));
                        CHECK(loom_bitmap_to_dense(b, &back));
                        assert_memory_equal(d.data, back.data, dense_bytes(&d));
                        loom_csr *csr = NULL;
                        CHECK(loom_bitmap_to_csr(ctx, b, &csr));
                        CHECK(loom_bitmap_from_csr(ctx, csr, (loom_bitmap_layout)bl, &b2));
                        loom_bitmap_view v1, v2;
                        CHECK(loom_bitmap_view_get(b, &v1));
                        CHECK(loom_bitmap_view_get(b2, &v2));
                        int64_t tiles = v1.tile_rows * v1.tile_cols;
                        assert_int_equal(v1.nnz, v2.nnz);
                        assert_memory_equal(v1.masks, v2.masks, (size_t)tiles * 32 * 4);
                        assert_memory_equal(v1.tile_offsets, v2.tile_offsets,
                                            (size_t)(tiles + 1) * 8);
                        assert_memory_equal(v1.values, v2.values,
                                            (size_t)v1.nnz * loom_dtype_size(v1.dtype));
                        /* The CSR holds exactly the non-zeros of d. */
                        int64_t rows, cols, nnz;
                        loom_dtype dtype;
                        loom_memory mem;
                        CHECK(loom_csr_info(csr, &rows, &cols, &nnz, &dtype, &mem));
                        assert_int_equal(nnz, v1.nnz);
                        loom_csr_destroy(&csr);
                        loom_bitmap_destroy(&b);
                        loom_bitmap_destroy(&b2);
                        loom_dense_free(ctx, &d);
                        loom_dense_free(ctx, &back);
                    }
}

static bool backend_probe(loom_backend_id id)
{
    loom_dual_gemm_plan *p = NULL;
    static float one = 1;
    loom_dense d;
    loom_dense_init(&d, 1, 1, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, &one);
    loom_bitmap *A = NULL, *B = NULL;
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_COLUMNS, &A);
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_ROWS, &B);
    loom_dense C;
    loom_dense_alloc(ctx, &C, 1, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    bool ok = loom_dual_gemm_plan_create(ctx, &p, A, B, &C, id) == LOOM_SUCCESS;
    if (!ok)
        print_message("  [ info ] backend %s skipped: %s\n", loom_backend_name(id),
                      loom_last_error());
    loom_dual_gemm_plan_destroy(&p);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
    loom_dense_free(ctx, &C);
    return ok;
}

/* Probed once per backend; the reason for a skip is printed once. */
static bool backend_usable(loom_backend_id id)
{
    static int known[LOOM_BACKEND_COUNT]; /* 0 unknown, 1 usable, 2 not */
    if (!known[id])
        known[id] = backend_probe(id) ? 1 : 2;
    return known[id] == 1;
}

/* Run C = alpha*A*B + beta*C on one backend; C starts as C0. */
static void run_gemm(loom_backend_id id, const loom_bitmap *A, const loom_bitmap *B,
                     double alpha, double beta, const loom_dense *C0, loom_dense *C)
{
    dense_clone(C0, C);
    loom_dual_gemm_plan *p = NULL;
    CHECK(loom_dual_gemm_plan_create(ctx, &p, A, B, C, id));
    CHECK(loom_dual_gemm_execute(p, alpha, beta, C));
    CHECK(loom_dual_gemm_plan_destroy(&p));
}

/* The OpenMP GEMM's paths (LOOM_DUAL_OMP_PATH; NULL: its own choice). */
static const char *const omp_paths[] = {NULL, "tiles", "rows", "cols"};

/* memcmp of every backend other than the reference (every OpenMP path)
 * against Cref. */
static void check_backends(const loom_bitmap *A, const loom_bitmap *B, double alpha, double beta,
                           const loom_dense *C0, const loom_dense *Cref, const char *what)
{
    for (int id = LOOM_BACKEND_OPENMP; id < LOOM_BACKEND_COUNT; id++) {
        if (!backend_usable((loom_backend_id)id))
            continue;
        const int paths = id == LOOM_BACKEND_OPENMP ? 4 : 1;
        for (int p = 0; p < paths; p++) {
            if (omp_paths[p])
                setenv("LOOM_DUAL_OMP_PATH", omp_paths[p], 1);
            loom_dense C;
            run_gemm((loom_backend_id)id, A, B, alpha, beta, C0, &C);
            unsetenv("LOOM_DUAL_OMP_PATH");
            loom_compare_result r;
            CHECK(loom_dense_compare(Cref, &C, &r));
            if (r.differing)
                fail_msg("%s: backend %s (path %s) differs from the reference in %lld elements, "
                         "first (%lld, %lld): %.17g vs %.17g",
                         what, loom_backend_name((loom_backend_id)id),
                         omp_paths[p] ? omp_paths[p] : "auto", (long long)r.differing,
                         (long long)r.first_row, (long long)r.first_col, r.first_a, r.first_b);
            loom_dense_free(ctx, &C);
        }
    }
}

/* Oracle on the reference, then memcmp of every other backend. */
static void check_gemm_case(const loom_dense *Ad, const loom_dense *Bd, double alpha, double beta,
                            loom_layout c_layout, uint64_t seed, const char *what)
{
    loom_bitmap *A = NULL, *B = NULL;
    CHECK(loom_bitmap_from_dense(ctx, Ad, LOOM_BITMAP_COLUMNS, &A));
    CHECK(loom_bitmap_from_dense(ctx, Bd, LOOM_BITMAP_ROWS, &B));
    loom_dense C0, Cref;
    CHECK(dual_random_dense(ctx, &C0, Ad->rows, Bd->cols, 1.0, Ad->dtype, c_layout, seed));
    run_gemm(LOOM_BACKEND_REFERENCE, A, B, alpha, beta, &C0, &Cref);
    char msg[256];
    if (!dual_oracle_gemm(Ad, Bd, alpha, beta, &C0, &Cref, msg, sizeof msg))
        fail_msg("%s: reference: %s", what, msg);
    check_backends(A, B, alpha, beta, &C0, &Cref, what);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
    loom_dense_free(ctx, &C0);
    loom_dense_free(ctx, &Cref);
}

static void test_gemm_random(void **state)
{
    (void)state;
    const int64_t shapes[][3] = {{1, 1, 1}, {33, 65, 47}, {64, 32, 96}, {70, 31, 100}, {5, 200, 3}};
    const double dens[][2] = {{1.0, 1.0}, {0.5, 0.9}, {0.1, 0.1}, {0.02, 0.6}, {0.0, 0.5}};
    const double ab[][2] = {{1, 0}, {-0.75, 0.5}, {2, 1}};
    uint64_t seed = 101;
    char what[160];
    for (size_t si = 0; si < 5; si++)
        for (size_t di = 0; di < 5; di++)
            for (int dt = 0; dt < 2; dt++) {
                loom_dense Ad, Bd;
                const int64_t m = shapes[si][0], k = shapes[si][1], n = shapes[si][2];
                CHECK(dual_random_dense(ctx, &Ad, m, k, dens[di][0], (loom_dtype)dt,
                                        LOOM_ROW_MAJOR, seed++));
                CHECK(dual_random_dense(ctx, &Bd, k, n, dens[di][1], (loom_dtype)dt,
                                        LOOM_COL_MAJOR, seed++));
                for (size_t i = 0; i < 3; i++) {
                    snprintf(what, sizeof what, "%lldx%lldx%lld dens %.2f/%.2f %s alpha %g beta %g",
                             (long long)m, (long long)n, (long long)k, dens[di][0], dens[di][1],
                             dt ? "f64" : "f32", ab[i][0], ab[i][1]);
                    check_gemm_case(&Ad, &Bd, ab[i][0], ab[i][1],
                                    i == 1 ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, seed++, what);
                }
                loom_dense_free(ctx, &Ad);
                loom_dense_free(ctx, &Bd);
            }
}

/*
 * Values that are not zero-safe: an Inf in A where B has zeros (multiplying
 * absent elements would make NaN), and a product that rounds to -0
 * (-2^-100 * 2^-60; f64: -2^-600 * 2^-600) followed by products with absent elements (+0 + -0
 * would be +0).  Every path must still give the reference's bits: the
 * OpenMP line walk must not be taken.  Compared by memcmp only (the
 * oracle has no bound for Inf).
 */
static void test_gemm_not_zero_safe(void **state)
{
    (void)state;
    for (int dt = 0; dt < 2; dt++) {
        loom_dense Ad, Bd, C0, Cref;
        CHECK(dual_random_dense(ctx, &Ad, 40, 70, 0.6, (loom_dtype)dt, LOOM_ROW_MAJOR, 31 + dt));
        CHECK(dual_random_dense(ctx, &Bd, 70, 45, 0.4, (loom_dtype)dt, LOOM_ROW_MAJOR, 41 + dt));
        for (int64_t k = 0; k < 70; k++) { /* row 3 of A: k = 5 first, tiny */
            dual_set(&Ad, 3, k, k == 5 ? -ldexp(1, dt ? -600 : -100) : k > 5 && k < 60 ? 0.75 : 0);
            dual_set(&Ad, 7, k, k == 9 ? INFINITY : 0);
        }
        for (int64_t k = 0; k < 70; k++) /* column 2 of B: only k = 5 */
            dual_set(&Bd, k, 2, 0);
        for (int64_t j = 0; j < 45; j++) {
            dual_set(&Bd, 5, j, j == 2 ? ldexp(1, dt ? -600 : -60) : 0); /* (3, 2): -0 */
            dual_set(&Bd, 9, j, j % 2 ? 0.5 : 0);           /* (7, odd): Inf; even: absent */
        }
        CHECK(dual_random_dense(ctx, &C0, 40, 45, 1.0, (loom_dtype)dt, LOOM_ROW_MAJOR, 51 + dt));
        loom_bitmap *A = NULL, *B = NULL;
        CHECK(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &A));
        CHECK(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &B));
        run_gemm(LOOM_BACKEND_REFERENCE, A, B, 1, 0, &C0, &Cref);
        double c32 = dual_get(&Cref, 3, 2), c72 = dual_get(&Cref, 7, 2);
        if (!(c32 == 0 && signbit(c32)) || !isinf(dual_get(&Cref, 7, 1)) || isnan(c72))
            fail_msg("%s: the reference's C(3,2), C(7,1), C(7,2) are %g, %g, %g; the case "
                     "expects -0, Inf and a number",
                     dt ? "f64" : "f32", c32, dual_get(&Cref, 7, 1), c72);
        check_backends(A, B, 1, 0, &C0, &Cref, dt ? "not zero-safe f64" : "not zero-safe f32");
        loom_bitmap_destroy(&A);
        loom_bitmap_destroy(&B);
        loom_dense_free(ctx, &Ad);
        loom_dense_free(ctx, &Bd);
        loom_dense_free(ctx, &C0);
        loom_dense_free(ctx, &Cref);
    }
}

/* Real weights: DLMC ResNet-50 matrices (pattern files; values drawn at random). */
static void test_gemm_dlmc(void **state)
{
    (void)state;
    const char *files[] = {"rn50_mp0.98_bottleneck_1_block_group1_1_1.smtx.gz",
                           "rn50_mp0.98_bottleneck_2_block_group1_1_1.smtx.gz"};
    uint64_t seed = 7;
    for (size_t f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/data/dlmc/%s", LOOM_SRCDIR, files[f]);
        loom_csr *W = NULL;
        CHECK(loom_csr_read(ctx, path, LOOM_F32, &W));
        int64_t rows, cols, nnz;
        loom_dtype dt;
        loom_memory mem;
        CHECK(loom_csr_info(W, &rows, &cols, &nnz, &dt, &mem));
        const int64_t *rp;
        const int32_t *ci;
        const void *vals;
        CHECK(loom_csr_arrays(W, &rp, &ci, &vals));
        loom_dense Ad, Bd;
        CHECK(loom_dense_alloc(ctx, &Ad, rows, cols, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
        memset(Ad.data, 0, dense_bytes(&Ad));
        for (int64_t i = 0; i < rows; i++)
            for (int64_t e = rp[i]; e < rp[i + 1]; e++)
                dual_set(&Ad, i, ci[e], (double)((dual_rand(&seed) >> 40) + 1) / 16777216.0 - 0.5);
        /* Activations after a ReLU: about half zero; N = 56 (odd). */
        CHECK(dual_random_dense(ctx, &Bd, cols, 56, 0.5, LOOM_F32, LOOM_ROW_MAJOR, seed++));
        check_gemm_case(&Ad, &Bd, 1, 0, LOOM_ROW_MAJOR, seed++, files[f]);
        check_gemm_case(&Ad, &Bd, 0.5, -1, LOOM_ROW_MAJOR, seed++, files[f]);
        loom_dense_free(ctx, &Ad);
        loom_dense_free(ctx, &Bd);
        loom_csr_destroy(&W);
    }
}

/* The three im2col strategies give the same matrix on every backend, and
 * the same matrix as the reference's. */
static void check_im2col(const loom_conv_shape *sh, const loom_dense *X)
{
    int64_t oh, ow;
    CHECK(loom_conv_output_size(sh, &oh, &ow));
    int64_t crs = sh->channels * sh->kernel_h * sh->kernel_w;
    loom_bitmap *Xb = NULL;
    CHECK(loom_bitmap_from_dense(ctx, X, LOOM_BITMAP_ROWS, &Xb));
    loom_csr *Xc = NULL;
    CHECK(loom_bitmap_to_csr(ctx, Xb, &Xc));
    for (int64_t n = 0; n < sh->batch; n++) {
        loom_dense cd, from_csr, from_bm;
        CHECK(loom_dense_alloc(ctx, &cd, crs, oh * ow, LOOM_ROW_MAJOR, X->dtype, LOOM_MEMORY_HOST));
        CHECK(loom_dense_alloc(ctx, &from_csr, crs, oh * ow, LOOM_ROW_MAJOR, X->dtype,
                               LOOM_MEMORY_HOST));
        CHECK(loom_dense_alloc(ctx, &from_bm, crs, oh * ow, LOOM_ROW_MAJOR, X->dtype,
                               LOOM_MEMORY_HOST));
        CHECK(loom_conv_im2col_dense(sh, X, n, &cd));
        loom_csr *cc = NULL;
        CHECK(loom_conv_im2col_csr(ctx, sh, Xc, n, &cc));
        loom_bitmap *cb = NULL, *cc_bm = NULL;
        CHECK(loom_conv_im2col_bitmap(ctx, sh, Xb, n, &cb));
        CHECK(loom_bitmap_to_dense(cb, &from_bm));
        CHECK(loom_bitmap_from_csr(ctx, cc, LOOM_BITMAP_ROWS, &cc_bm));
        CHECK(loom_bitmap_to_dense(cc_bm, &from_csr));
        /* Direct definition. */
        for (int64_t row = 0; row < crs; row++)
            for (int64_t col = 0; col < oh * ow; col++) {
                int64_t c = row / (sh->kernel_h * sh->kernel_w), r = row / sh->kernel_w % sh->kernel_h,
                        s = row % sh->kernel_w, p = col / ow, q = col % ow;
                int64_t h = p * sh->stride_h - sh->pad_h + r * sh->dilation_h;
                int64_t w = q * sh->stride_w - sh->pad_w + s * sh->dilation_w;
                double want = (h < 0 || h >= sh->height || w < 0 || w >= sh->width)
                                  ? 0
                                  : dual_get(X, (n * sh->channels + c) * sh->height + h, w);
                if (dual_get(&cd, row, col) != want)
                    fail_msg("im2col dense (%lld, %lld): %g, want %g", (long long)row,
                             (long long)col, dual_get(&cd, row, col), want);
            }
        assert_memory_equal(cd.data, from_csr.data, dense_bytes(&cd));
        assert_memory_equal(cd.data, from_bm.data, dense_bytes(&cd));
        loom_csr_destroy(&cc);
        loom_bitmap_destroy(&cb);
        loom_bitmap_destroy(&cc_bm);
        loom_dense_free(ctx, &cd);
        loom_dense_free(ctx, &from_csr);
        loom_dense_free(ctx, &from_bm);
    }
    loom_bitmap_destroy(&Xb);
    loom_csr_destroy(&Xc);
}

static void check_conv(const loom_conv_shape *sh, double x_density, double w_density,
                       loom_dtype dtype, uint64_t seed, const loom_dense *W_given)
{
    int64_t oh, ow;
    CHECK(loom_conv_output_size(sh, &oh, &ow));
    loom_dense X, Wd, Y0;
    CHECK(dual_random_dense(ctx, &X, sh->batch * sh->channels * sh->height, sh->width, x_density,
                            dtype, LOOM_ROW_MAJOR, seed));
    if (W_given)
        Wd = *W_given;
    else
        CHECK(dual_random_dense(ctx, &Wd, sh->filters,
                                sh->channels * sh->kernel_h * sh->kernel_w, w_density, dtype,
                                LOOM_ROW_MAJOR, seed + 1));
    CHECK(dual_random_dense(ctx, &Y0, sh->batch * sh->filters * oh, ow, 1.0, dtype,
                            LOOM_ROW_MAJOR, seed + 2));
    check_im2col(sh, &X);
    loom_bitmap *W = NULL;
    CHECK(loom_bitmap_from_dense(ctx, &Wd, LOOM_BITMAP_COLUMNS, &W));
    const double ab[][2] = {{1, 0}, {0.5, -2}};
    for (int i = 0; i < 2; i++) {
        loom_dense first = {0};
        for (int id = 0; id < LOOM_BACKEND_COUNT; id++) {
            if (id && !backend_usable((loom_backend_id)id))
                continue;
            for (int strat = 0; strat < 3; strat++) {
                loom_conv_plan *p = NULL;
                loom_dense Y;
                dense_clone(&Y0, &Y);
                CHECK(loom_conv_plan_create(ctx, &p, sh, W, (loom_im2col)strat, (loom_backend_id)id));
                CHECK(loom_conv_execute(p, ab[i][0], &X, ab[i][1], &Y));
                CHECK(loom_conv_plan_destroy(&p));
                if (!first.data) {
                    char msg[256];
                    if (!dual_oracle_conv(sh, &X, &Wd, ab[i][0], ab[i][1], &Y0, &Y, msg,
                                          sizeof msg))
                        fail_msg("conv: %s", msg);
                    first = Y;
                } else {
                    if (memcmp(first.data, Y.data, dense_bytes(&Y)))
                        fail_msg("conv: backend %s, im2col %d differs from the reference's bits",
                                 loom_backend_name((loom_backend_id)id), strat);
                    loom_dense_free(ctx, &Y);
                }
            }
        }
        loom_dense_free(ctx, &first);
    }
    loom_bitmap_destroy(&W);
    loom_dense_free(ctx, &X);
    if (!W_given)
        loom_dense_free(ctx, &Wd);
    loom_dense_free(ctx, &Y0);
}

static void test_conv_random(void **state)
{
    (void)state;
    /* batch, C, H, W, F, R, S, stride h/w, pad h/w, dilation h/w */
    const loom_conv_shape shapes[] = {
        {1, 3, 7, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 5, 11, 37, 6, 3, 3, 1, 1, 1, 1, 1, 1},   /* width over a tile */
        {1, 4, 13, 70, 3, 3, 5, 2, 2, 1, 2, 1, 1},   /* strides */
        {2, 3, 9, 40, 5, 3, 3, 1, 1, 2, 2, 2, 2},    /* dilation */
        {1, 2, 6, 6, 2, 1, 1, 1, 1, 0, 0, 1, 1},     /* 1x1 */
        {1, 40, 5, 33, 35, 2, 2, 1, 1, 0, 3, 1, 1},  /* C*R*S over a tile, wide pad */
    };
    uint64_t seed = 1000;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int dt = 0; dt < 2; dt++) {
            check_conv(&shapes[i], 0.5, 0.4, (loom_dtype)dt, seed, NULL);
            check_conv(&shapes[i], 0.05, 1.0, (loom_dtype)dt, seed + 10, NULL);
            seed += 100;
        }
}

static void same_bitmap(const loom_bitmap *want, const loom_bitmap *got, const char *what)
{
    char msg[200];
    if (!dual_same_bitmap(want, got, msg, sizeof msg))
        fail_msg("%s: %s", what, msg);
}

/* The OpenMP bitmap im2col against the reference's, array by array (masks,
 * tile offsets, tile bits, values), on 1, 2 and 3 threads: shapes that
 * take each of its paths (stride, dilation, widths over 64 and 128,
 * kernel columns that clip or not, images that do not start on a tile
 * row, empty and full inputs; streams as shifts of a base stream, with
 * values left out at slot edges, and a stream per kernel column). */
static void test_im2col_bitmap_arrays(void **state)
{
    (void)state;
    /* batch, C, H, W, F, R, S, stride h/w, pad h/w, dilation h/w */
    const loom_conv_shape shapes[] = {
        {1, 128, 56, 56, 8, 3, 3, 1, 1, 1, 1, 1, 1},  /* the benchmark's layer */
        {3, 5, 11, 37, 2, 3, 3, 1, 1, 1, 1, 1, 1},    /* images off tile rows */
        {2, 3, 9, 70, 2, 3, 5, 1, 1, 2, 2, 1, 1},     /* width over 64, wide pad */
        {1, 2, 7, 150, 2, 2, 7, 1, 1, 0, 3, 1, 2},    /* width over 128, dilation w */
        {2, 4, 13, 33, 2, 3, 3, 2, 1, 1, 1, 1, 1},    /* stride h */
        {1, 4, 13, 33, 2, 3, 3, 1, 2, 1, 0, 1, 1},    /* stride w */
        {1, 3, 17, 40, 2, 3, 3, 3, 2, 2, 1, 2, 3},    /* both strides, dilations */
        {1, 6, 5, 5, 2, 5, 5, 1, 1, 2, 2, 1, 1},      /* kernel as large as the map */
        {2, 40, 6, 6, 2, 1, 1, 1, 1, 0, 0, 1, 1},     /* 1x1: C over a tile */
        {1, 3, 20, 9, 2, 2, 3, 1, 1, 0, 0, 1, 1},     /* no padding: columns clipped */
        {1, 2, 64, 64, 2, 3, 3, 1, 1, 1, 1, 1, 1},    /* width 64 exactly */
        {2, 3, 10, 40, 2, 3, 3, 1, 1, 2, 2, 2, 2},    /* dilation and pad 2: shifts -2, 0, 2 */
        {1, 3, 8, 20, 2, 3, 3, 1, 1, 2, 3, 1, 1},     /* pad past the reach: no shift 0 */
        {1, 4, 9, 7, 2, 3, 3, 1, 1, 1, 1, 1, 1},      /* out_w 7: slot edges in every mask */
        {1, 2, 3, 10, 2, 1, 3, 1, 1, 0, 70, 1, 1},    /* shifts past 63: a stream each */
    };
    const double dens[] = {1.0, 0.7, 0.25, 0.02, 0.0};
    loom_context *ref = NULL, *omp = NULL;
    CHECK(loom_context_create(&ref));
    CHECK(loom_context_set_backend(ref, LOOM_BACKEND_REFERENCE));
    CHECK(loom_context_create(&omp));
    if (loom_context_set_backend(omp, LOOM_BACKEND_OPENMP) != LOOM_SUCCESS ||
        !backend_usable(LOOM_BACKEND_OPENMP)) {
        loom_context_destroy(&ref);
        loom_context_destroy(&omp);
        skip();
    }
    uint64_t seed = 9000;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t d = 0; d < sizeof dens / sizeof dens[0]; d++)
            for (int dt = 0; dt < 2; dt++) {
                const loom_conv_shape *sh = &shapes[i];
                if (i == 0 && (d == 1 || dt == 1)) /* (large: fewer cases) */
                    continue;
                loom_dense X;
                CHECK(dual_random_dense(ctx, &X, sh->batch * sh->channels * sh->height, sh->width,
                                        dens[d], (loom_dtype)dt, LOOM_ROW_MAJOR, seed++));
                loom_bitmap *Xb = NULL;
                CHECK(loom_bitmap_from_dense(ctx, &X, LOOM_BITMAP_ROWS, &Xb));
                for (int64_t n = 0; n < sh->batch; n++) {
                    loom_bitmap *want = NULL;
                    CHECK(loom_conv_im2col_bitmap(ref, sh, Xb, n, &want));
                    for (int threads = 1; threads <= 3; threads++) {
                        char what[128];
                        snprintf(what, sizeof what,
                                 "bitmap im2col, shape %zu, density %g, %s, image %lld, %d threads",
                                 i, dens[d], dt ? "f64" : "f32", (long long)n, threads);
                        loom_bitmap *got = NULL;
                        CHECK(loom_context_set_threads(omp, threads));
                        CHECK(loom_conv_im2col_bitmap(omp, sh, Xb, n, &got));
                        same_bitmap(want, got, what);
                        loom_bitmap_destroy(&got);
                    }
                    loom_bitmap_destroy(&want);
                }
                loom_bitmap_destroy(&Xb);
                loom_dense_free(ctx, &X);
            }
    loom_context_destroy(&ref);
    loom_context_destroy(&omp);
}

/* A real 3x3 layer: DLMC ResNet-50 weights, 64 x (64*3*3), on a 14 x 14 map. */
static void test_conv_dlmc(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/data/dlmc/rn50_mp0.98_bottleneck_2_block_group1_1_1.smtx.gz",
             LOOM_SRCDIR);
    loom_csr *W = NULL;
    CHECK(loom_csr_read(ctx, path, LOOM_F32, &W));
    loom_bitmap *Wb = NULL;
    CHECK(loom_bitmap_from_csr(ctx, W, LOOM_BITMAP_COLUMNS, &Wb));
    loom_dense Wd;
    CHECK(loom_dense_alloc(ctx, &Wd, 64, 576, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_bitmap_to_dense(Wb, &Wd));
    uint64_t seed = 3;
    for (int64_t i = 0; i < 64; i++)
        for (int64_t j = 0; j < 576; j++)
            if (dual_get(&Wd, i, j) != 0)
                dual_set(&Wd, i, j, (double)((dual_rand(&seed) >> 40) + 1) / 16777216.0 - 0.5);
    loom_conv_shape sh = {1, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1};
    check_conv(&sh, 0.5, 0, LOOM_F32, 77, &Wd);
    loom_dense_free(ctx, &Wd);
    loom_bitmap_destroy(&Wb);
    loom_csr_destroy(&W);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitmap_layout_by_hand),
        cmocka_unit_test(test_bitmap_empty_tiles_skipped),
        cmocka_unit_test(test_steps_by_hand),
        cmocka_unit_test(test_malformed_inputs),
        cmocka_unit_test(test_bitmap_round_trips),
        cmocka_unit_test(test_gemm_random),
        cmocka_unit_test(test_gemm_not_zero_safe),
        cmocka_unit_test(test_gemm_dlmc),
        cmocka_unit_test(test_conv_random),
        cmocka_unit_test(test_conv_dlmc),
        cmocka_unit_test(test_im2col_bitmap_arrays),
    };
    return cmocka_run_group_tests_name("dual", tests, setup, teardown);
}
