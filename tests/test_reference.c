/*
 * test_reference.c - the reference backend, the specification itself.
 *
 * Tier 1: hand-worked cases where the designs' summation orders give
 *         different floating-point results, checked bit for bit.
 * Tier 2: every design x dtype x N x matrix against an independent long
 *         double oracle within a stated rounding bound, output poisoned
 *         with NaN before each run.
 * Tier 3: what must not change bits does not: RM against CM, row- against
 *         column-major operands, padded leading dimensions.
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

#include "fixed_plan.h"
#include "oracle.h"
#include "test_matrices.h"


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

/* Run one strategy on the reference; Y must be allocated. */
static void run_reference(const loom_csr *A, const loom_strategy *s, double alpha,
                          const loom_dense *X, double beta, loom_dense *Y)
{
    CHECK(run_fixed(ctx, LOOM_BACKEND_REFERENCE, A, s, alpha, X, beta, Y, 0));
}

/* ---------------------------------------------------------------- tier 1 */

/* One row (big, 1, -big, 1) times x = 1: in float big + 1 rounds back to
 * big, so each order tells itself apart (see reference/order_*.h). */
typedef struct hand_case {
    const char *strategy;
    double expect; /* the exact result of the order */
} hand_case;

static const hand_case hand_cases[] = {
    {"rb-rm-sr", 1},                  /* ((big + 1) - big) + 1 = 0 + 1 */
    {"rb-rm-pr:lanes=2", 2},          /* lanes (big - big, 1 + 1), tree 0 + 2 */
    {"rb-rm-pr:lanes=4", 2},          /* (big + -big) + (1 + 1) */
    {"eb-rm-sr:chunk=1", 1},          /* pieces added left to right: as SR */
    {"eb-rm-sr:chunk=2", 0},          /* (big + 1) + (-big + 1) = big - big */
    {"eb-rm-sr:chunk=3", 1},          /* (big + 1 - big) + 1 */
    {"eb-rm-pr:chunk=2,lanes=2", 0},  /* tiles (big+1), (-big+1): big + -big */
    {"eb-rm-pr:chunk=4,lanes=2", 0},  /* (0 + (big+1)) + (-big+1) */
    {"eb-rm-pr:chunk=4,lanes=4", 0},  /* segmented network: (big+1) + (-big+1) */
    {"rb-cm-sr", 1},                  /* CM: same bits as RM */
    {"eb-cm-pr:chunk=4,lanes=4", 0},
};

static void test_hand_worked_orders(void **state)
{
    (void)state;
    for (int dt = 0; dt < 2; dt++) {
        loom_dtype dtype = dt ? LOOM_F64 : LOOM_F32;
        double big = dt ? 0x1.0p60 : 0x1.0p30; /* big + 1 == big in the dtype */
        int64_t ro[2] = {0, 4};
        int32_t ci[4] = {0, 1, 2, 3};
        float vf[4] = {(float)big, 1, (float)-big, 1};
        double vd[4] = {big, 1, -big, 1};
        float xf[4] = {1, 1, 1, 1};
        double xd[4] = {1, 1, 1, 1};
        float yf[1];
        double yd[1];
        loom_csr *A = NULL;
        loom_dense X, Y;
        CHECK(loom_csr_create(ctx, &A, 1, 4, 4, dtype, ro, ci, dt ? (void *)vd : (void *)vf));
        CHECK(loom_dense_init(&X, 4, 1, 1, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST,
                              dt ? (void *)xd : (void *)xf));
        CHECK(loom_dense_init(&Y, 1, 1, 1, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST,
                              dt ? (void *)yd : (void *)yf));
        for (size_t k = 0; k < sizeof hand_cases / sizeof hand_cases[0]; k++) {
            loom_strategy s;
            CHECK(loom_strategy_parse(hand_cases[k].strategy, &s));
            dense_poison(&Y);
            run_reference(A, &s, 1.0, &X, 0.0, &Y);
            double got = dense_get(&Y, 0, 0);
            if (got != hand_cases[k].expect || signbit(got))
                fail_msg("%s %s: got %.17g, the order gives %g", loom_dtype_name(dtype),
                         hand_cases[k].strategy, got, hand_cases[k].expect);
        }
        CHECK(loom_csr_destroy(&A));
    }
}

/* Two rows sharing an EB+PR tile must not mix: rows (1,2,3) and (4,5),
 * w = 4, chunk 4: tile 0 = lanes (1,2,3 | 4), tile 1 = (5).  The second
 * row crosses the chunk boundary and is finished by the fix-up: 4 + 5. */
static void test_hand_worked_segments(void **state)
{
    (void)state;
    int64_t ro[3] = {0, 3, 5};
    int32_t ci[5] = {0, 1, 2, 0, 1};
    double v[5] = {1, 2, 3, 4, 5};
    double x[3] = {1, 1, 1}, y[2], y0[2] = {10, 20};
    loom_csr *A = NULL;
    loom_dense X, Y;
    loom_strategy s;
    CHECK(loom_csr_create(ctx, &A, 2, 3, 5, LOOM_F64, ro, ci, v));
    CHECK(loom_dense_init(&X, 3, 1, 1, LOOM_ROW_MAJOR, LOOM_F64, LOOM_MEMORY_HOST, x));
    CHECK(loom_dense_init(&Y, 2, 1, 1, LOOM_ROW_MAJOR, LOOM_F64, LOOM_MEMORY_HOST, y));
    CHECK(loom_strategy_parse("eb-rm-pr:chunk=4,lanes=4", &s));
    dense_poison(&Y);
    run_reference(A, &s, 1.0, &X, 0.0, &Y);
    assert_true(y[0] == 6 && y[1] == 9);
    /* alpha and beta: y = fma(alpha, acc, beta * y_old) */
    memcpy(y, y0, sizeof y);
    run_reference(A, &s, 2.0, &X, 0.5, &Y);
    assert_true(y[0] == 2 * 6 + 5 && y[1] == 2 * 9 + 10);
    CHECK(loom_csr_destroy(&A));
}

/* ---------------------------------------------------------------- tier 2 */

static const int64_t n_values[] = {1, 2, 3, 4, 7, 32, 33, 128, 257};
/* LOOM_TEST_QUICK (set by make check-valgrind) keeps the first five. */
static size_t n_count(void)
{
    return getenv("LOOM_TEST_QUICK") ? 5 : sizeof n_values / sizeof n_values[0];
}
#define N_COUNT n_count()

/* Run all eight designs on A with N columns; check each against the oracle
 * (beta = 0 with Y poisoned, and beta != 0) and check RM and CM agree. */
static void check_all_designs(loom_csr *A, int64_t n, uint64_t seed, const char *what)
{
    int64_t m, k;
    loom_dtype dtype;
    CHECK(loom_csr_info(A, &m, &k, NULL, &dtype, NULL));
    loom_dense X, Y, Y0;
    CHECK(loom_dense_alloc(ctx, &X, k, n, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Y, m, n, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Y0, m, n, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST));
    CHECK(loom_dense_fill_random(&X, seed));
    CHECK(loom_dense_fill_random(&Y0, seed + 1));
    size_t bytes = (size_t)(m * n) * loom_dtype_size(dtype);
    /* The RM result of each M/K pair, to compare with its CM twin. */
    char *rm_result[LOOM_DESIGN_COUNT] = {0};
    char msg[512];
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++) {
        loom_strategy s;
        char name[64];
        CHECK(loom_strategy_design(d, &s));
        CHECK(loom_strategy_format(&s, name, sizeof name));
        dense_poison(&Y);
        run_reference(A, &s, 1.0, &X, 0.0, &Y);
        if (!oracle_check(A, 1.0, &X, 0.0, NULL, &Y, msg, sizeof msg))
            fail_msg("%s, N = %lld, %s, beta = 0: %s", what, (long long)n, name, msg);
        if (s.nloop == LOOM_N_RM) {
            rm_result[d] = malloc(bytes + 1);
            memcpy(rm_result[d], Y.data, bytes);
        } else if (memcmp(rm_result[d & ~2], Y.data, bytes) != 0)
            fail_msg("%s, N = %lld, %s: CM differs from RM in some bits", what, (long long)n, name);
        memcpy(Y.data, Y0.data, bytes);
        run_reference(A, &s, -0.75, &X, 1.5, &Y);
        if (!oracle_check(A, -0.75, &X, 1.5, &Y0, &Y, msg, sizeof msg))
            fail_msg("%s, N = %lld, %s, beta = 1.5: %s", what, (long long)n, name, msg);
    }
    loom_dense_free(ctx, &X);
    loom_dense_free(ctx, &Y);
    loom_dense_free(ctx, &Y0);
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++)
        free(rm_result[d]);
}

static void test_generated_against_oracle(void **state)
{
    (void)state;
    for (int dt = 0; dt < 2; dt++) {
        for (int shape = 0; shape < SHAPE_COUNT; shape++) {
            loom_dtype dtype = dt ? LOOM_F64 : LOOM_F32;
            loom_csr *A = test_matrix_make(ctx, (test_shape)shape, dtype, 42);
            assert_non_null(A);
            char what[128];
            snprintf(what, sizeof what, "%s %s", test_shape_name((test_shape)shape),
                     loom_dtype_name(dtype));
            for (size_t i = 0; i < N_COUNT; i++)
                check_all_designs(A, n_values[i], 1000 + i, what);
            CHECK(loom_csr_destroy(&A));
        }
    }
}

static void test_unittest_files_against_oracle(void **state)
{
    (void)state;
    for (int dt = 0; dt < 2; dt++) {
        for (int f = 0; test_unittest_files[f]; f++) {
            loom_dtype dtype = dt ? LOOM_F64 : LOOM_F32;
            loom_csr *A = test_matrix_read(ctx, test_unittest_files[f], dtype);
            assert_non_null(A);
            char what[128];
            snprintf(what, sizeof what, "%s %s", test_unittest_files[f], loom_dtype_name(dtype));
            for (size_t i = 0; i < N_COUNT; i++)
                check_all_designs(A, n_values[i], 2000 + i, what);
            CHECK(loom_csr_destroy(&A));
        }
    }
}

/* Strategy parameters that change the arithmetic, swept more widely. */
static void test_parameters_against_oracle(void **state)
{
    (void)state;
    static const int lanes[] = {2, 4, 8, 16, 32, 64, 128, 256}; /* past 32: RB only */
    static const int64_t chunks[] = {32, 64, 96, 512};
    loom_csr *A = test_matrix_make(ctx, SHAPE_POWER_LAW, LOOM_F32, 7);
    assert_non_null(A);
    int64_t m, k;
    CHECK(loom_csr_info(A, &m, &k, NULL, NULL, NULL));
    loom_dense X, Y;
    CHECK(loom_dense_alloc(ctx, &X, k, 5, LOOM_COL_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Y, m, 5, LOOM_COL_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_fill_random(&X, 99));
    char msg[512];
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++) {
        for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++) {
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                loom_strategy s;
                CHECK(loom_strategy_design(d, &s));
                if (s.mloop == LOOM_M_EB && lanes[l] > LOOM_EB_LANES_MAX)
                    continue;
                s.lanes = lanes[l];
                s.chunk = chunks[c];
                dense_poison(&Y);
                run_reference(A, &s, 1.0, &X, 0.0, &Y);
                if (!oracle_check(A, 1.0, &X, 0.0, NULL, &Y, msg, sizeof msg))
                    fail_msg("design %d lanes %d chunk %lld: %s", d, lanes[l], (long long)chunks[c], msg);
            }
        }
    }
    loom_dense_free(ctx, &X);
    loom_dense_free(ctx, &Y);
    CHECK(loom_csr_destroy(&A));
}

/* ---------------------------------------------------------------- tier 3 */

/* Layouts and padded leading dimensions never change bits. */
static void test_layouts_do_not_change_bits(void **state)
{
    (void)state;
    loom_csr *A = test_matrix_make(ctx, SHAPE_EMPTY_ROWS, LOOM_F64, 3);
    assert_non_null(A);
    int64_t m, k, n = 6;
    CHECK(loom_csr_info(A, &m, &k, NULL, NULL, NULL));
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++) {
        loom_strategy s;
        CHECK(loom_strategy_design(d, &s));
        loom_dense X[2], Y[2];
        for (int lay = 0; lay < 2; lay++) {
            loom_layout layout = lay ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR;
            int64_t xld = (lay ? k : n) + 3, yld = (lay ? m : n) + 5;
            int64_t xouter = lay ? n : k, youter = lay ? n : m;
            CHECK(loom_dense_init(&X[lay], k, n, xld, layout, LOOM_F64, LOOM_MEMORY_HOST,
                                  malloc(sizeof(double) * (size_t)(xouter * xld))));
            CHECK(loom_dense_init(&Y[lay], m, n, yld, layout, LOOM_F64, LOOM_MEMORY_HOST,
                                  malloc(sizeof(double) * (size_t)(youter * yld))));
            dense_poison(&X[lay]);
            uint64_t st = 5;
            for (int64_t i = 0; i < k; i++)
                for (int64_t j = 0; j < n; j++)
                    dense_set(&X[lay], i, j, (double)(test_rand(&st) >> 11) * 0x1.0p-53);
            dense_poison(&Y[lay]);
            run_reference(A, &s, 1.0, &X[lay], 0.0, &Y[lay]);
        }
        loom_compare_result r;
        CHECK(loom_dense_compare(&Y[0], &Y[1], &r));
        if (r.differing)
            fail_msg("design %d: row- and column-major results differ in %lld elements", d,
                     (long long)r.differing);
        /* padding stays untouched (still NaN) */
        double *pad = Y[0].data;
        assert_true(isnan(pad[n]));
        for (int lay = 0; lay < 2; lay++) {
            free(X[lay].data);
            free(Y[lay].data);
        }
    }
    CHECK(loom_csr_destroy(&A));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked_orders),
        cmocka_unit_test(test_hand_worked_segments),
        cmocka_unit_test(test_generated_against_oracle),
        cmocka_unit_test(test_unittest_files_against_oracle),
        cmocka_unit_test(test_parameters_against_oracle),
        cmocka_unit_test(test_layouts_do_not_change_bits),
    };
    return cmocka_run_group_tests_name("reference", tests, setup, teardown);
}
