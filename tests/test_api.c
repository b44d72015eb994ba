/*
 * test_api.c - every error path of the public API gives the documented
 * status and a message naming what is wrong, and leaves the caller's data
 * alone; allocation failures (injected) never crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom.h>

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

/* The call fails with `status` and the message mentions `needle`. */
static void expect_error(loom_status got, loom_status status, const char *needle, const char *call)
{
    if (got != status)
        fail_msg("%s: got %s (%s), expected %s", call, loom_strerror(got), loom_last_error(),
                 loom_strerror(status));
    if (needle && !strstr(loom_last_error(), needle))
        fail_msg("%s: message \"%s\" does not mention \"%s\"", call, loom_last_error(), needle);
}
#define EXPECT(call, status, needle) expect_error((call), (status), (needle), #call)

/* A valid 3 x 4 matrix to break in different ways. */
static int64_t ro[4] = {0, 2, 2, 5};
static int32_t ci[5] = {0, 3, 1, 2, 3};
static float vals[5] = {1, 2, 3, 4, 5};

static void test_status_strings(void **state)
{
    (void)state;
    for (int s = LOOM_SUCCESS; s >= LOOM_ERR_INTERNAL; s--)
        assert_true(strlen(loom_strerror((loom_status)s)) > 3);
    assert_string_equal(loom_strerror((loom_status)-999), "unknown status");
    int major = -1;
    loom_version(&major, NULL, NULL);
    assert_int_equal(major, LOOM_VERSION_MAJOR);
}

static void test_csr_create_rejects_invalid_structure(void **state)
{
    (void)state;
    loom_csr *A = (loom_csr *)0x1;
    int64_t bad_first[4] = {1, 2, 2, 5};
    int64_t decreasing[4] = {0, 3, 2, 5};
    int64_t bad_last[4] = {0, 2, 2, 4};
    int32_t out_of_range[5] = {0, 4, 1, 2, 3};
    int32_t negative[5] = {0, 3, -1, 2, 3};
    int32_t unsorted[5] = {0, 3, 2, 1, 3};
    int32_t duplicate[5] = {0, 3, 1, 3, 3};

    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, bad_first, ci, vals), LOOM_ERR_INVALID_MATRIX, "row_offsets[0]");
    assert_null(A);
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, decreasing, ci, vals), LOOM_ERR_INVALID_MATRIX, "row 1");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, bad_last, ci, vals), LOOM_ERR_INVALID_MATRIX, "nnz 5");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, out_of_range, vals), LOOM_ERR_INVALID_MATRIX, "column index 4 out of range");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, negative, vals), LOOM_ERR_INVALID_MATRIX, "column index -1");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, unsorted, vals), LOOM_ERR_INVALID_MATRIX, "row 2, non-zero 3");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, duplicate, vals), LOOM_ERR_INVALID_MATRIX, "duplicates");
    EXPECT(loom_csr_create(ctx, &A, -3, 4, 5, LOOM_F32, ro, ci, vals), LOOM_ERR_INVALID_ARGUMENT, "negative");
    EXPECT(loom_csr_create(ctx, &A, 3, (int64_t)1 << 33, 5, LOOM_F32, ro, ci, vals), LOOM_ERR_OVERFLOW, "32-bit");
    EXPECT(loom_csr_create(ctx, &A, INT64_MAX, 4, 5, LOOM_F32, ro, ci, vals), LOOM_ERR_OVERFLOW, "overflow");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, (loom_dtype)7, ro, ci, vals), LOOM_ERR_INVALID_ARGUMENT, "dtype");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, NULL, ci, vals), LOOM_ERR_NULL_POINTER, "row_offsets");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, NULL, vals), LOOM_ERR_NULL_POINTER, "col_indices");
    EXPECT(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, ci, NULL), LOOM_ERR_NULL_POINTER, "values");
    EXPECT(loom_csr_create(NULL, &A, 3, 4, 5, LOOM_F32, ro, ci, vals), LOOM_ERR_NULL_POINTER, "context");
    EXPECT(loom_csr_create(ctx, NULL, 3, 4, 5, LOOM_F32, ro, ci, vals), LOOM_ERR_NULL_POINTER, "A is NULL");
    /* the caller's arrays are untouched */
    assert_int_equal(ci[2], 1);
    assert_int_equal(ro[3], 5);
}

static void test_freed_handles_are_caught(void **state)
{
    (void)state;
    loom_context *c = NULL;
    assert_int_equal(loom_context_create(&c), LOOM_SUCCESS);
    assert_int_equal(loom_context_destroy(&c), LOOM_SUCCESS);
    assert_null(c);
    assert_int_equal(loom_context_destroy(&c), LOOM_SUCCESS); /* NULL handle: no-op */

    loom_csr *A = NULL;
    assert_int_equal(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, ci, vals), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);
    assert_null(A);
    char garbage[256];
    memset(garbage, 0x5a, sizeof garbage);
    EXPECT(loom_csr_info((loom_csr *)garbage, NULL, NULL, NULL, NULL, NULL), LOOM_ERR_INVALID_OBJECT, "loom_csr");
    EXPECT(loom_context_set_threads((loom_context *)garbage, 2), LOOM_ERR_INVALID_OBJECT, "context");
    EXPECT(loom_plan_destroy((loom_plan **)&(void *){garbage}), LOOM_ERR_INVALID_OBJECT, "plan");
}

static void test_context_settings(void **state)
{
    (void)state;
    EXPECT(loom_context_set_threads(ctx, -2), LOOM_ERR_INVALID_ARGUMENT, "-2");
    assert_int_equal(loom_context_set_threads(ctx, 0), LOOM_SUCCESS);
    EXPECT(loom_context_set_backend(ctx, (loom_backend_id)42), LOOM_ERR_INVALID_ARGUMENT, "42");
    loom_backend_id id;
    assert_int_equal(loom_backend_from_name("reference", &id), LOOM_SUCCESS);
    assert_int_equal(id, LOOM_BACKEND_REFERENCE);
    EXPECT(loom_backend_from_name("vulkan", &id), LOOM_ERR_INVALID_ARGUMENT, "vulkan");
    assert_int_equal(loom_backend_available(LOOM_BACKEND_REFERENCE), LOOM_SUCCESS);
    /* The CUDA backend answers, available or not, with a reason. */
    loom_status st = loom_backend_available(LOOM_BACKEND_CUDA);
    if (st != LOOM_SUCCESS) {
        assert_int_equal(st, LOOM_ERR_BACKEND_UNAVAILABLE);
        assert_non_null(strstr(loom_last_error(), "cuda"));
        EXPECT(loom_context_set_backend(ctx, LOOM_BACKEND_CUDA), LOOM_ERR_BACKEND_UNAVAILABLE, "cuda");
    }
}

static void test_dense_descriptors(void **state)
{
    (void)state;
    loom_dense d;
    float buf[12];
    EXPECT(loom_dense_init(&d, 3, 4, 3, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_ERR_INVALID_ARGUMENT, "leading dimension 3");
    EXPECT(loom_dense_init(&d, 3, 4, 2, LOOM_COL_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_ERR_INVALID_ARGUMENT, "column-major");
    EXPECT(loom_dense_init(&d, -1, 4, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_ERR_INVALID_ARGUMENT, "negative");
    EXPECT(loom_dense_init(&d, 3, 4, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL), LOOM_ERR_NULL_POINTER, "no data");
    EXPECT(loom_dense_init(&d, 3, 4, 4, (loom_layout)5, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_ERR_INVALID_ARGUMENT, "layout");
    EXPECT(loom_dense_init(&d, INT64_MAX / 2, 4, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_ERR_OVERFLOW, "overflow");
    assert_int_equal(loom_dense_init(&d, 0, 4, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_dense_init(&d, 3, 4, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, buf), LOOM_SUCCESS);
    if (loom_backend_available(LOOM_BACKEND_CUDA) != LOOM_SUCCESS)
        EXPECT(loom_dense_alloc(ctx, &d, 3, 4, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE), LOOM_ERR_BACKEND_UNAVAILABLE, NULL);
}

static void test_strategy_text(void **state)
{
    (void)state;
    loom_strategy s;
    char buf[128];
    assert_int_equal(loom_strategy_parse("EB-cm-PR:chunk=64,lanes=16,vdl", &s), LOOM_SUCCESS);
    assert_int_equal(s.mloop, LOOM_M_EB);
    assert_int_equal(s.nloop, LOOM_N_CM);
    assert_int_equal(s.kloop, LOOM_K_PR);
    assert_int_equal(loom_strategy_format(&s, buf, sizeof buf), LOOM_SUCCESS);
    assert_string_equal(buf, "eb-cm-pr:chunk=64,lanes=16,vdl");
    assert_int_equal(loom_strategy_parse("eb-rm-sr:chunk=128,vdl,csc,tile-major", &s), LOOM_SUCCESS);
    assert_int_equal(loom_strategy_format(&s, buf, sizeof buf), LOOM_SUCCESS);
    assert_string_equal(buf, "eb-rm-sr:chunk=128,vdl,csc,tile-major");
    EXPECT(loom_strategy_parse("rb-xx-sr", &s), LOOM_ERR_INVALID_ARGUMENT, "rb-xx-sr");
    EXPECT(loom_strategy_parse("rb-rm-pr:lanes=3", &s), LOOM_ERR_INVALID_ARGUMENT, "lane width 3");
    /* Lanes across warps: up to 256 under RB, a warp's 32 under EB. */
    assert_int_equal(loom_strategy_parse("rb-cm-pr:lanes=256", &s), LOOM_SUCCESS);
    assert_int_equal(s.lanes, 256);
    EXPECT(loom_strategy_parse("rb-rm-pr:lanes=512", &s), LOOM_ERR_INVALID_ARGUMENT, "2..256");
    EXPECT(loom_strategy_parse("eb-rm-pr:chunk=256,lanes=64", &s), LOOM_ERR_INVALID_ARGUMENT,
           "the limit under EB");
    EXPECT(loom_strategy_parse("eb-rm-pr:chunk=100,lanes=8", &s), LOOM_ERR_INVALID_ARGUMENT, "multiple");
    EXPECT(loom_strategy_parse("eb-rm-sr:chunk=0", &s), LOOM_ERR_INVALID_ARGUMENT, "chunk 0");
    EXPECT(loom_strategy_parse("eb-rm-sr:chunk=abc", &s), LOOM_ERR_INVALID_ARGUMENT, "integer");
    EXPECT(loom_strategy_parse("eb-rm-sr:speed=11", &s), LOOM_ERR_INVALID_ARGUMENT, "speed");
    EXPECT(loom_strategy_design(8, &s), LOOM_ERR_INVALID_ARGUMENT, "8");
    EXPECT(loom_strategy_format(&s, buf, 4), LOOM_ERR_INVALID_ARGUMENT, "small");
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++) {
        loom_strategy t, u;
        assert_int_equal(loom_strategy_design(d, &t), LOOM_SUCCESS);
        assert_int_equal(loom_strategy_format(&t, buf, sizeof buf), LOOM_SUCCESS);
        assert_int_equal(loom_strategy_parse(buf, &u), LOOM_SUCCESS);
        assert_memory_equal(&t, &u, sizeof t);
    }
}

/* A plan over the valid 3 x 4 matrix with N = 2. */
static void make_operands(loom_csr **A, loom_dense *X, loom_dense *Y, float *x, float *y)
{
    assert_int_equal(loom_csr_create(ctx, A, 3, 4, 5, LOOM_F32, ro, ci, vals), LOOM_SUCCESS);
    assert_int_equal(loom_dense_init(X, 4, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x), LOOM_SUCCESS);
    assert_int_equal(loom_dense_init(Y, 3, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, y), LOOM_SUCCESS);
}

static void test_plan_errors(void **state)
{
    (void)state;
    loom_csr *A;
    loom_dense X, Y, bad;
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[6], big[64];
    make_operands(&A, &X, &Y, x, y);
    loom_plan *plan = NULL;
    loom_plan_options opts;
    loom_plan_options_init(&opts);

    bad = X;
    bad.rows = 5;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &bad, &Y, NULL), LOOM_ERR_DIMENSION_MISMATCH, "X has 5 rows");
    bad = Y;
    bad.rows = 2;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &bad, NULL), LOOM_ERR_DIMENSION_MISMATCH, "Y has 2 rows");
    bad = Y;
    bad.cols = 1;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &bad, NULL), LOOM_ERR_DIMENSION_MISMATCH, "columns");
    bad = Y;
    bad.dtype = LOOM_F64;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &bad, NULL), LOOM_ERR_INVALID_ARGUMENT, "f64");
    opts.selector = LOOM_SELECT_FIXED;
    opts.strategy.kloop = LOOM_K_PR;
    opts.strategy.lanes = 5;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_ERR_INVALID_ARGUMENT, "lane width 5");
    opts.selector = (loom_selector)17;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_ERR_INVALID_ARGUMENT, "selector");
    loom_plan_options_init(&opts);
    opts.backend = (loom_backend_id)9;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_ERR_INVALID_ARGUMENT, "9");
    assert_null(plan);

    /* a good plan, then executions that do not fit it */
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, NULL), LOOM_SUCCESS);
    assert_non_null(strstr(loom_plan_explain(plan), "why:"));
    loom_dense X3 = X;
    X3.cols = 3;
    X3.ld = 3;
    X3.data = big;
    loom_dense Y3 = Y;
    Y3.cols = 3;
    Y3.ld = 3;
    Y3.data = big + 20;
    EXPECT(loom_spmm_execute(plan, 1, &X3, 0, &Y3), LOOM_ERR_DIMENSION_MISMATCH, "N = 2");
    /* Y overlapping X */
    loom_dense alias;
    loom_dense_init(&alias, 3, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x + 2);
    EXPECT(loom_spmm_execute(plan, 1, &X, 0, &alias), LOOM_ERR_INVALID_ARGUMENT, "overlap");
    assert_true(x[2] == 3 && x[7] == 8); /* untouched */
    EXPECT(loom_spmm_execute(NULL, 1, &X, 0, &Y), LOOM_ERR_NULL_POINTER, "plan");
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_null(plan);
    assert_string_equal(loom_plan_explain(NULL), "(not a valid plan)");
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);
}

/* beta == 0 never reads Y (NaN there does not leak); empty shapes are no-ops;
 * NaN and Inf in A propagate as IEEE arithmetic says. */
static void test_special_values(void **state)
{
    (void)state;
    loom_csr *A;
    loom_dense X, Y;
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[6];
    make_operands(&A, &X, &Y, x, y);
    for (int k = 0; k < 6; k++)
        y[k] = NAN;
    loom_plan *plan;
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1, &X, 0, &Y), LOOM_SUCCESS);
    /* row 0 = 1*x[0] + 2*x[3]; row 1 empty; row 2 = 3*x[1] + 4*x[2] + 5*x[3] */
    assert_true(y[0] == 1 * 1 + 2 * 7 && y[1] == 1 * 2 + 2 * 8);
    assert_true(y[2] == 0 && y[3] == 0 && !signbit(y[2]));
    assert_true(y[4] == 3 * 3 + 4 * 5 + 5 * 7);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);

    float special[5] = {INFINITY, 1, NAN, 1, 1};
    assert_int_equal(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, ci, special), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1, &X, 0, &Y), LOOM_SUCCESS);
    assert_true(isinf(y[0]) && isnan(y[4]) && y[2] == 0);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);

    /* M = 0, N = 0, K = 0 */
    int64_t ro0[1] = {0};
    assert_int_equal(loom_csr_create(ctx, &A, 0, 4, 0, LOOM_F32, ro0, NULL, NULL), LOOM_SUCCESS);
    loom_dense X0, Y0;
    loom_dense_init(&X0, 4, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x);
    loom_dense_init(&Y0, 0, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL);
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X0, &Y0, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1, &X0, 0, &Y0), LOOM_SUCCESS);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);

    int64_t ro3[4] = {0, 0, 0, 0};
    assert_int_equal(loom_csr_create(ctx, &A, 3, 0, 0, LOOM_F32, ro3, NULL, NULL), LOOM_SUCCESS);
    loom_dense_init(&X0, 0, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL);
    for (int k = 0; k < 6; k++)
        y[k] = 2;
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X0, &Y, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1, &X0, 0.5, &Y), LOOM_SUCCESS);
    for (int k = 0; k < 6; k++)
        assert_true(y[k] == 1);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);
}

/* Fail the k-th allocation for every k along create -> plan -> execute:
 * each call either succeeds or reports out of memory, and nothing leaks
 * (run under valgrind or ASan to see the leaks). */
static void test_allocation_failures(void **state)
{
    (void)state;
    int failures_seen = 0;
    for (int k = 1; k <= 40; k++) {
        char value[16];
        snprintf(value, sizeof value, "%d", k);
        setenv("LOOM_FAIL_ALLOC", value, 1);
        loom_csr *A = NULL;
        loom_plan *plan = NULL;
        float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[6];
        loom_dense X, Y;
        loom_dense_init(&X, 4, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x);
        loom_dense_init(&Y, 3, 2, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, y);
        loom_plan_options opts;
        loom_plan_options_init(&opts);
        opts.selector = LOOM_SELECT_FIXED;
        loom_strategy_parse("eb-rm-sr:chunk=2", &opts.strategy);
        loom_status st = loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F32, ro, ci, vals);
        if (st == LOOM_SUCCESS)
            st = loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts);
        if (st == LOOM_SUCCESS)
            st = loom_spmm_execute(plan, 1, &X, 0, &Y);
        if (st != LOOM_SUCCESS) {
            failures_seen++;
            assert_int_equal(st, LOOM_ERR_OUT_OF_MEMORY);
            assert_non_null(strstr(loom_last_error(), "memory"));
        }
        loom_plan_destroy(&plan);
        loom_csr_destroy(&A);
    }
    unsetenv("LOOM_FAIL_ALLOC");
    assert_true(failures_seen >= 4); /* the handle, three arrays, the plan... */
}

/* Tensor-core strategies: text form, where they run, which values they take. */
/* The tensor-core form (and in *k the MMA depth) the rules selector picks
 * for an M x K bf16 layer of per_row non-zeros a row, at N columns; -1 if
 * the plan fails. */
static int rules_tc_form(loom_context *ctx, int M, int K, int N, int per_row, int *k)
{
    int64_t *ro = malloc(sizeof(int64_t) * (size_t)(M + 1));
    int32_t *ci = malloc(sizeof(int32_t) * (size_t)M * per_row);
    uint16_t *v = malloc(sizeof(uint16_t) * (size_t)M * per_row);
    uint16_t *x = calloc((size_t)K * N, sizeof *x), *y = calloc((size_t)M * N, sizeof *y);
    assert_true(ro && ci && v && x && y);
    for (int i = 0; i <= M; i++)
        ro[i] = (int64_t)i * per_row;
    for (int i = 0; i < M * per_row; i++) {
        ci[i] = (i % per_row) * (K / per_row) + (i / per_row) % (K / per_row);
        v[i] = 0x3c00;
    }
    loom_csr *A = NULL;
    loom_dense X, Y;
    assert_int_equal(loom_csr_create(ctx, &A, M, K, (int64_t)M * per_row, LOOM_BF16, ro, ci, v), LOOM_SUCCESS);
    assert_int_equal(loom_dense_init(&X, K, N, N, LOOM_ROW_MAJOR, LOOM_BF16, LOOM_MEMORY_HOST, x), LOOM_SUCCESS);
    assert_int_equal(loom_dense_init(&Y, M, N, N, LOOM_ROW_MAJOR, LOOM_BF16, LOOM_MEMORY_HOST, y), LOOM_SUCCESS);
    loom_plan_options opts;
    loom_plan_options_init(&opts);
    opts.selector = LOOM_SELECT_RULES;
    opts.backend = LOOM_BACKEND_REFERENCE;
    loom_plan *plan = NULL;
    int form = -1;
    loom_strategy got;
    if (loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts) == LOOM_SUCCESS &&
        loom_plan_strategy(plan, &got, NULL) == LOOM_SUCCESS && got.kloop == LOOM_K_TC &&
        got.tc_precision == LOOM_TC_BF16) {
        form = (int)got.tc_form;
        *k = got.tc_k;
        /* the explanation names the form picked */
        assert_non_null(strstr(loom_plan_explain(plan), form == LOOM_TC_TILES ? "tiles form" : "rows form"));
    }
    loom_plan_destroy(&plan);
    loom_csr_destroy(&A);
    free(ro);
    free(ci);
    free(v);
    free(x);
    free(y);
    return form;
}

static void test_tensor_core_rules(void **state)
{
    (void)state;
    loom_strategy s;
    char buf[128];
    assert_int_equal(loom_strategy_parse("rb-rm-tc:bf16,k=8", &s), LOOM_SUCCESS);
    assert_int_equal(s.kloop, LOOM_K_TC);
    assert_int_equal(s.tc_precision, LOOM_TC_BF16);
    assert_int_equal(loom_strategy_format(&s, buf, sizeof buf), LOOM_SUCCESS);
    assert_string_equal(buf, "rb-rm-tc:bf16,k=8");
    EXPECT(loom_strategy_parse("rb-rm-tc:tf32,k=16", &s), LOOM_ERR_INVALID_ARGUMENT, "k = 16");
    /* k not given: the precision's deeper MMA, whatever the order of the options */
    assert_int_equal(loom_strategy_parse("rb-rm-tc:tf32", &s), LOOM_SUCCESS);
    assert_int_equal(s.tc_k, 8);
    assert_int_equal(loom_strategy_parse("rb-rm-tc:bf16", &s), LOOM_SUCCESS);
    assert_int_equal(s.tc_k, 16);
    assert_int_equal(loom_strategy_parse("rb-rm-tc:k=4,tf32", &s), LOOM_SUCCESS);
    assert_int_equal(s.tc_k, 4);
    EXPECT(loom_strategy_parse("rb-rm-tc:k=0", &s), LOOM_ERR_INVALID_ARGUMENT, "'k=0' is out of range");
    s.mloop = LOOM_M_EB;
    EXPECT(loom_strategy_check(&s), LOOM_ERR_INVALID_ARGUMENT, "row-balanced");
    assert_int_equal(loom_dtype_size(LOOM_F16), 2);
    assert_string_equal(loom_dtype_name(LOOM_BF16), "bf16");
    /* the tiles form: its own text, only on the TC K-loop */
    assert_int_equal(loom_strategy_parse("rb-rm-tc:f16,k=16,tiles", &s), LOOM_SUCCESS);
    assert_int_equal(s.tc_form, LOOM_TC_TILES);
    assert_int_equal(loom_strategy_format(&s, buf, sizeof buf), LOOM_SUCCESS);
    assert_string_equal(buf, "rb-rm-tc:f16,k=16,tiles");
    EXPECT(loom_strategy_parse("rb-rm-sr:tiles", &s), LOOM_ERR_INVALID_ARGUMENT, "tensor-core designs");
    EXPECT(loom_strategy_parse("rb-rm-sr:rows", &s), LOOM_ERR_INVALID_ARGUMENT, "tensor-core designs");
    EXPECT(loom_strategy_parse("eb-rm-pr:k=16", &s), LOOM_ERR_INVALID_ARGUMENT, "tensor-core designs");
    loom_strategy_design(0, &s);
    s.tc_k = 16;
    EXPECT(loom_strategy_check(&s), LOOM_ERR_INVALID_ARGUMENT, "non-TC");

    /* f16 values: the reference runs a TC strategy; SR is refused */
    uint16_t v[5] = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500}; /* 1 2 3 4 5 */
    uint16_t x[8] = {0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00}, y[6];
    loom_csr *A;
    loom_dense X, Y;
    assert_int_equal(loom_csr_create(ctx, &A, 3, 4, 5, LOOM_F16, ro, ci, v), LOOM_SUCCESS);
    loom_dense_init(&X, 4, 2, 2, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_HOST, x);
    loom_dense_init(&Y, 3, 2, 2, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_HOST, y);
    loom_plan_options opts;
    loom_plan_options_init(&opts);
    opts.selector = LOOM_SELECT_FIXED;
    opts.backend = LOOM_BACKEND_REFERENCE;
    loom_plan *plan = NULL;
    EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_ERR_NOT_SUPPORTED, "tensor-core");
    assert_int_equal(loom_strategy_parse("rb-rm-tc:f16,k=16", &opts.strategy), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1, &X, 0, &Y), LOOM_SUCCESS);
    /* rows: 1+2 = 3, empty = 0, 3+4+5 = 12 (exact in f16) */
    assert_true(y[0] == 0x4200 && y[1] == 0x4200 && y[2] == 0 && y[4] == 0x4a00);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    /* the tiles form: the same sums here (exact) */
    assert_int_equal(loom_strategy_parse("rb-rm-tc:f16,k=16,tiles", &opts.strategy), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_SUCCESS);
    memset(y, 0xff, sizeof y); /* NaN: an unwritten element shows */
    assert_int_equal(loom_spmm_execute(plan, 1, &X, 0, &Y), LOOM_SUCCESS);
    assert_true(y[0] == 0x4200 && y[1] == 0x4200 && y[2] == 0 && y[3] == 0 && y[4] == 0x4a00 && y[5] == 0x4a00);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    /* auto and rules pick a tensor-core strategy for f16 values: rows at N = 2;
     * with the backend left to loom, host f16 values go to the reference */
    opts.selector = LOOM_SELECT_AUTO;
    opts.backend = LOOM_BACKEND_AUTO;
    assert_int_equal(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_SUCCESS);
    loom_strategy got;
    assert_int_equal(loom_plan_strategy(plan, &got, NULL), LOOM_SUCCESS);
    loom_backend_id bid;
    assert_int_equal(loom_plan_strategy(plan, &got, &bid), LOOM_SUCCESS);
    assert_int_equal(bid, LOOM_BACKEND_REFERENCE);
    assert_true(got.kloop == LOOM_K_TC && got.tc_precision == LOOM_TC_F16 && got.tc_form == LOOM_TC_ROWS);
    assert_int_equal(got.tc_k, 8); /* rows of under 8 non-zeros */
    assert_non_null(strstr(loom_plan_explain(plan), "rows form"));
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    opts.selector = LOOM_SELECT_FIXED;
    opts.backend = LOOM_BACKEND_REFERENCE;
    if (loom_backend_available(LOOM_BACKEND_OPENMP) == LOOM_SUCCESS) {
        opts.backend = LOOM_BACKEND_OPENMP;
        EXPECT(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), LOOM_ERR_NOT_SUPPORTED, "openmp");
    }
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);

    /* the form and depth the rules pick for bf16 layers of one value a non-zero */
    struct {
        int m, k, n, per_row;
        loom_tc_form form;
        int depth;
    } layers[] = {
        {400, 2000, 256, 100, LOOM_TC_TILES, 16}, /* density 0.05, nnz * N = 1.0e7 >= 8e6 */
        {1024, 512, 512, 50, LOOM_TC_ROWS, 16},   /* 2.6e7: K <= 768 needs 2e8 */
        {1024, 512, 4096, 50, LOOM_TC_TILES, 16}, /* 2.1e8 */
        {400, 2000, 128, 100, LOOM_TC_ROWS, 16},  /* N < 256 */
        {400, 1000, 512, 50, LOOM_TC_ROWS, 16},   /* K <= 1382 (strips of 32): density 0.05 < 0.075 */
        {400, 1000, 256, 100, LOOM_TC_TILES, 16}, /* ... density 0.1, nnz * N = 1.0e7 */
        {1024, 512, 64, 20, LOOM_TC_ROWS, 16},    /* rows of 8 or more: k = 16 at any N */
        {1024, 512, 64, 6, LOOM_TC_ROWS, 8},      /* shorter: k = 8 */
    };
    for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
        int depth = 0;
        assert_int_equal(rules_tc_form(ctx, layers[l].m, layers[l].k, layers[l].n, layers[l].per_row, &depth),
                         layers[l].form);
        assert_int_equal(depth, layers[l].depth);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_csr_create_rejects_invalid_structure),
        cmocka_unit_test(test_freed_handles_are_caught),
        cmocka_unit_test(test_context_settings),
        cmocka_unit_test(test_dense_descriptors),
        cmocka_unit_test(test_strategy_text),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_tensor_core_rules),
    };
    return cmocka_run_group_tests_name("api", tests, setup, teardown);
}
