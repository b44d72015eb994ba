/*
 * test_cuda_api.c - the CUDA backend's device-memory API paths: a plan on
 * a stream of the caller's (the copies in and out ordered with it),
 * loom_spmm_execute captured into a CUDA graph (the CUDA-core designs
 * against the reference bit for bit, the tensor-core ones against a
 * direct run of the same plan), CUDA errors as
 * loom statuses with CUDA's message, and plans made while the device's
 * memory is taken.
 *
 * No device (CI, a machine without a driver): exits 77 (SKIP) and says why.
 * LOOM_CUDA_TEST_QUICK=1 runs a subset (for compute-sanitizer, which is slow).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "test_operands.h"
#include "fixed_plan.h"
#include "oracle.h"
#include "test_matrices.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static loom_context *ctx;
static int quick;
static long cases_run;

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

/* The dtypes of the one-matrix tests: f32 (d = 0), and f64 unless quick. */
static int dtypes_to_run(void)
{
    return quick ? 1 : 2;
}

/* A stream of the caller's kind (non-blocking: it does not wait for the
 * legacy default stream), set on ctx. */
static cudaStream_t callers_stream(void)
{
    cudaStream_t stream;
    assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    CHECK(loom_context_set_stream(ctx, stream));
    return stream;
}

/* ctx back on the default stream, and `stream` destroyed. */
static void drop_stream(cudaStream_t stream)
{
    CHECK(loom_context_set_stream(ctx, NULL));
    assert_int_equal(cudaStreamDestroy(stream), cudaSuccess);
}

/* A case's device operands and host matrices freed. */
static void free_operands(loom_dense *dX, loom_dense *dY, loom_dense *X, loom_dense *Y, loom_dense *Yref)
{
    CHECK(loom_dense_free(ctx, dX));
    CHECK(loom_dense_free(ctx, dY));
    free(X->data);
    free(Y->data);
    free(Yref->data);
}

/* A plan on a non-default stream; the copies back see its results. */
static void test_stream(void **state)
{
    (void)state;
    cudaStream_t stream = callers_stream();
    loom_csr *A = skewed_matrix(ctx, LOOM_F32, 700, 900, 3, 800, 30, 91);
    for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
        loom_strategy s;
        CHECK(loom_strategy_design(design, &s));
        loom_csr *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        loom_dense X, Y, Yref, dX, dY;
        dense_make(&X, 900, 5, LOOM_ROW_MAJOR, LOOM_F32, 0);
        dense_make(&Y, 700, 5, LOOM_ROW_MAJOR, LOOM_F32, 0);
        dense_make(&Yref, 700, 5, LOOM_ROW_MAJOR, LOOM_F32, 0);
        CHECK(loom_dense_fill_random(&X, 3));
        dense_poison(&Y);
        dense_poison(&Yref);
        run(LOOM_BACKEND_REFERENCE, A, &s, 1.0, &X, 0.0, &Yref, 0);
        dense_to_device(ctx, &X, &dX);
        dense_to_device(ctx, &Y, &dY);
        run(LOOM_BACKEND_CUDA, dA, &s, 1.0, &dX, 0.0, &dY, 1);
        assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
        dense_to_host(ctx, &dY, &Y);
        assert_memory_equal(Y.data, Yref.data, dense_bytes(&Y));
        free_operands(&dX, &dY, &X, &Y, &Yref);
        loom_csr_destroy(&dA);
        cases_run++;
    }
    loom_csr_destroy(&A);
    drop_stream(stream);
}

/*
 * loom_csr_copy and loom_dense_copy on a context whose stream is the
 * caller's (non-blocking) are ordered with the products queued there: A
 * and X copied in, Y poisoned and the product queued, Y copied back, with
 * no synchronization of the test's own in between, three times.  Copies on
 * the legacy default stream, which such a stream does not wait for, could
 * read Y before the product wrote it (NaN) or hand the product an X still
 * landing.  About 2.4M non-zeros at N = 64 (74K in the quick suite), so
 * that the product lasts long enough for an early copy to show; Y must be
 * the reference's bits.
 */
static void test_copies_on_stream(void **state)
{
    (void)state;
    cudaStream_t stream = callers_stream();
    const int64_t m = quick ? 3000 : 30000, n = 64;
    loom_csr *A = skewed_matrix(ctx, LOOM_F32, m, m, 7, m / 4, 10, 97), *dA = NULL;
    loom_strategy s;
    CHECK(loom_strategy_parse("rb-rm-sr:vdl,csc", &s));
    loom_dense X, Y, Yref, dX, dY;
    dense_make(&X, m, n, LOOM_ROW_MAJOR, LOOM_F32, 0);
    dense_make(&Y, m, n, LOOM_ROW_MAJOR, LOOM_F32, 0);
    dense_make(&Yref, m, n, LOOM_ROW_MAJOR, LOOM_F32, 0);
    CHECK(loom_dense_fill_random(&X, 11));
    dense_poison(&Yref);
    run(LOOM_BACKEND_REFERENCE, A, &s, 1.0, &X, 0.0, &Yref, 0);
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    loom_plan *plan = NULL;
    CHECK(loom_dense_alloc(ctx, &dX, m, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
    CHECK(loom_dense_alloc(ctx, &dY, m, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
    CHECK(fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, &s, &dX, &dY, &plan));
    for (int round = 0; round < 3; round++) {
        CHECK(loom_dense_copy(ctx, &X, &dX));
        assert_int_equal(cudaMemsetAsync(dY.data, 0xff, dense_bytes(&dY), stream), cudaSuccess);
        CHECK(loom_spmm_execute(plan, 1.0, &dX, 0.0, &dY));
        dense_poison(&Y);
        CHECK(loom_dense_copy(ctx, &dY, &Y));
        if (memcmp(Y.data, Yref.data, dense_bytes(&Y)) != 0)
            fail_msg("round %d: Y copied back on the context's stream is not the product's", round);
        cases_run++;
    }
    CHECK(loom_plan_destroy(&plan));
    free_operands(&dX, &dY, &X, &Y, &Yref);
    loom_csr_destroy(&dA);
    loom_csr_destroy(&A);
    drop_stream(stream);
}

/* loom_spmm_execute(plan, alpha, dX, 0, dY) captured on stream into a CUDA
 * graph (global mode), then the graph launched twice with dY set to NaN
 * (0xff bytes) before each launch; synchronized.  what names the case. */
static void run_as_graph(cudaStream_t stream, loom_plan *plan, double alpha, const loom_dense *dX,
                         loom_dense *dY, const char *what)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    assert_int_equal(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    const loom_status st = loom_spmm_execute(plan, alpha, dX, 0.0, dY);
    assert_int_equal(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    if (st != LOOM_SUCCESS)
        fail_msg("%s, captured: %s", what, loom_last_error());
    assert_int_equal(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int launch = 0; launch < 2; launch++) {
        assert_int_equal(cudaMemsetAsync(dY->data, 0xff, dense_bytes(dY), stream), cudaSuccess);
        assert_int_equal(cudaGraphLaunch(exec, stream), cudaSuccess);
    }
    assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
    assert_int_equal(cudaGraphExecDestroy(exec), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(graph), cudaSuccess);
}

/*
 * loom_spmm_execute captured into a CUDA graph (strict, global capture
 * mode) and the graph launched twice, Y poisoned before each launch: the
 * kernels are launch-only, and the EB walks with their fix-ups keep their
 * programmatic dependent launch there.  N = 2 (the narrow segments), 5
 * (the EB chunk kernels) and 64 (the wide segments), every design, both
 * precisions; rows up to 800 long, so that rows cross chunks.
 */
static void test_graph_capture(void **state)
{
    (void)state;
    static const int64_t ns[] = {2, 5, 64};
    cudaStream_t stream = callers_stream();
    for (int d = 0; d < dtypes_to_run(); d++) {
        loom_csr *A = skewed_matrix(ctx, (loom_dtype)d, 700, 900, 3, 800, 30, 93 + d), *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        for (size_t ni = 0; ni < COUNT(ns); ni++)
            for (int design = 0; design < LOOM_DESIGN_COUNT; design++) {
                loom_strategy s;
                CHECK(loom_strategy_design(design, &s));
                loom_dense X, Y, Yref, dX, dY;
                dense_make(&X, 900, ns[ni], LOOM_ROW_MAJOR, (loom_dtype)d, 0);
                dense_make(&Y, 700, ns[ni], LOOM_ROW_MAJOR, (loom_dtype)d, 0);
                dense_make(&Yref, 700, ns[ni], LOOM_ROW_MAJOR, (loom_dtype)d, 0);
                CHECK(loom_dense_fill_random(&X, 5 + design));
                dense_poison(&Yref);
                run(LOOM_BACKEND_REFERENCE, A, &s, -1.25, &X, 0.0, &Yref, 0);
                dense_to_device(ctx, &X, &dX);
                dense_to_device(ctx, &Yref, &dY);
                loom_plan *plan = NULL;
                CHECK(fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, &s, &dX, &dY, &plan));
                char what[64];
                snprintf(what, sizeof what, "design %d, N = %lld, %s", design, (long long)ns[ni],
                         d == LOOM_F64 ? "f64" : "f32");
                run_as_graph(stream, plan, -1.25, &dX, &dY, what);
                dense_to_host(ctx, &dY, &Y);
                if (memcmp(Y.data, Yref.data, dense_bytes(&Y)) != 0)
                    fail_msg("%s: the graph's Y differs from the reference", what);
                CHECK(loom_plan_destroy(&plan));
                free_operands(&dX, &dY, &X, &Y, &Yref);
                cases_run++;
            }
        CHECK(loom_csr_destroy(&dA));
        CHECK(loom_csr_destroy(&A));
    }
    drop_stream(stream);
}

/* CUDA errors come back as loom statuses carrying CUDA's message; host
 * operands are refused with a hint; nothing is left allocated. */
static void test_errors(void **state)
{
    (void)state;
    loom_dense huge;
    loom_status st = loom_dense_alloc(ctx, &huge, (int64_t)1 << 40, 64, LOOM_ROW_MAJOR, LOOM_F64,
                                      LOOM_MEMORY_DEVICE);
    assert_int_equal(st, LOOM_ERR_OUT_OF_MEMORY);
    printf("# out of device memory: %s\n", loom_last_error());
    assert_non_null(strstr(loom_last_error(), "cuda"));

    loom_csr *A = skewed_matrix(ctx, LOOM_F64, 50, 40, 1, 30, 10, 5);
    loom_dense X, Y;
    dense_make(&X, 40, 2, LOOM_ROW_MAJOR, LOOM_F64, 0);
    dense_make(&Y, 50, 2, LOOM_ROW_MAJOR, LOOM_F64, 0);
    loom_plan_options opts;
    loom_plan *plan = NULL;
    CHECK(loom_plan_options_init(&opts));
    opts.backend = LOOM_BACKEND_CUDA;
    st = loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts);
    assert_int_equal(st, LOOM_ERR_NOT_SUPPORTED);
    printf("# host operands on the cuda backend: %s\n", loom_last_error());
    assert_null(plan);
    free(X.data);
    free(Y.data);
    loom_csr_destroy(&A);

    /* the tiles form on float values (cuda runs it for f16/bf16 only) */
    A = skewed_matrix(ctx, LOOM_F32, 50, 40, 1, 30, 10, 5);
    loom_csr *dA = NULL;
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    loom_dense dX, dY;
    CHECK(loom_dense_alloc(ctx, &dX, 40, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
    CHECK(loom_dense_alloc(ctx, &dY, 50, 2, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
    opts.selector = LOOM_SELECT_FIXED;
    CHECK(loom_strategy_parse("rb-rm-tc:f16,k=16,tiles", &opts.strategy));
    st = loom_spmm_plan_create(ctx, &plan, dA, &dX, &dY, &opts);
    assert_int_equal(st, LOOM_ERR_NOT_SUPPORTED);
    printf("# tiles form on float values: %s\n", loom_last_error());
    assert_non_null(strstr(loom_last_error(), "tiles form"));
    assert_null(plan);
    CHECK(loom_dense_free(ctx, &dX));
    CHECK(loom_dense_free(ctx, &dY));
    CHECK(loom_csr_destroy(&dA));
    loom_csr_destroy(&A);

    /* ... and past its widest N (65535 tiles of 64 columns) */
    static const int64_t ro16[3] = {0, 1, 1};
    static const int32_t ci16[1] = {0};
    static const uint16_t v16[1] = {0x3c00};
    CHECK(loom_csr_create(ctx, &A, 2, 1, 1, LOOM_F16, ro16, ci16, v16));
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    const int64_t wide = 65535 * 64 + 1;
    CHECK(loom_dense_alloc(ctx, &dX, 1, wide, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_DEVICE));
    CHECK(loom_dense_alloc(ctx, &dY, 2, wide, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_DEVICE));
    st = loom_spmm_plan_create(ctx, &plan, dA, &dX, &dY, &opts);
    assert_int_equal(st, LOOM_ERR_NOT_SUPPORTED);
    printf("# tiles form past its widest N: %s\n", loom_last_error());
    assert_non_null(strstr(loom_last_error(), "N up to"));
    assert_null(plan);
    CHECK(loom_dense_free(ctx, &dX));
    CHECK(loom_dense_free(ctx, &dY));
    CHECK(loom_csr_destroy(&dA));
    CHECK(loom_csr_destroy(&A));

    /* ... and out of device memory for its slice index (4 bytes per row and
     * 16 columns: 2^20 rows x 2^22 columns would take a terabyte), made
     * when the plan is made: the error says what it was for */
    {
        const int64_t m = (int64_t)1 << 20, k = (int64_t)1 << 22, n = 8;
        int64_t *ro = malloc(sizeof *ro * (size_t)(m + 1));
        int32_t *ci = malloc(sizeof *ci * (size_t)m);
        uint16_t *v = malloc(sizeof *v * (size_t)m);
        assert_non_null(ro);
        assert_non_null(ci);
        assert_non_null(v);
        for (int64_t i = 0; i < m; i++) {
            ro[i] = i;
            ci[i] = (int32_t)(4 * i);
            v[i] = 0x3c00;
        }
        ro[m] = m;
        CHECK(loom_csr_create(ctx, &A, m, k, m, LOOM_F16, ro, ci, v));
        free(ro);
        free(ci);
        free(v);
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        CHECK(loom_dense_alloc(ctx, &dX, k, n, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_DEVICE));
        CHECK(loom_dense_alloc(ctx, &dY, m, n, LOOM_ROW_MAJOR, LOOM_F16, LOOM_MEMORY_DEVICE));
        st = loom_spmm_plan_create(ctx, &plan, dA, &dX, &dY, &opts);
        assert_int_equal(st, LOOM_ERR_OUT_OF_MEMORY);
        printf("# tiles form out of device memory: %s\n", loom_last_error());
        assert_non_null(strstr(loom_last_error(), "slice index"));
        assert_null(plan);
        CHECK(loom_dense_free(ctx, &dX));
        CHECK(loom_dense_free(ctx, &dY));
        CHECK(loom_csr_destroy(&dA));
        CHECK(loom_csr_destroy(&A));
    }

    size_t free_bytes = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    printf("# device memory free at the end: %.1f MiB of %.1f MiB\n", free_bytes / 1048576.0,
           total / 1048576.0);
}


/* A matrix for the tensor-core designs: 300 x 400, rows of 0, 1-40, 70-100
 * (several MMA groups) and one of 200 non-zeros, values of type vt (f16
 * and bf16 from loom_dense_fill_random, exact in their type). */
static loom_csr *tc_matrix(loom_dtype vt, uint64_t seed)
{
    const int64_t m = 300, k = 400;
    int64_t *ro = malloc((size_t)(m + 1) * sizeof *ro);
    assert_non_null(ro);
    uint64_t st = seed;
    ro[0] = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t len = 1 + (int64_t)(test_rand(&st) % 40);
        if (i % 7 == 3)
            len = 0;
        else if (i % 11 == 0)
            len = 70 + (int64_t)(test_rand(&st) % 31);
        else if (i == 5)
            len = 200;
        ro[i + 1] = ro[i] + len;
    }
    loom_csr *P = test_matrix_with_lengths(ctx, LOOM_F32, m, k, ro, &st);
    assert_non_null(P);
    if (vt == LOOM_F32)
        return P;
    const int64_t *pro;
    const int32_t *pci;
    const void *pv;
    int64_t nnz;
    CHECK(loom_csr_arrays(P, &pro, &pci, &pv));
    CHECK(loom_csr_info(P, NULL, NULL, &nnz, NULL, NULL));
    loom_dense values;
    dense_make(&values, 1, nnz, LOOM_ROW_MAJOR, vt, 0);
    CHECK(loom_dense_fill_random(&values, seed + 1));
    loom_csr *A = NULL;
    CHECK(loom_csr_create(ctx, &A, m, k, nnz, vt, pro, pci, values.data));
    free(values.data);
    CHECK(loom_csr_destroy(&P));
    return A;
}

/* Whether a host Y of 16- or 32-bit floats holds a NaN (the poison of an
 * element never written: the inputs are finite). */
static int has_nan(const loom_dense *Y)
{
    const size_t count = dense_bytes(Y) / loom_dtype_size(Y->dtype);
    for (size_t i = 0; i < count; i++) {
        if (Y->dtype == LOOM_F32) {
            if (isnan(((const float *)Y->data)[i]))
                return 1;
        } else {
            const uint16_t h = ((const uint16_t *)Y->data)[i];
            const int f16_nan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
            const int bf16_nan = (h & 0x7f80) == 0x7f80 && (h & 0x007f) != 0;
            if (Y->dtype == LOOM_F16 ? f16_nan : bf16_nan)
                return 1;
        }
    }
    return 0;
}

/*
 * The tensor-core designs captured into a CUDA graph (global capture
 * mode): the graph, launched twice over a Y of NaN, writes every element
 * and the bits of a direct run of the same plan.  (Their results are
 * checked against an error bound, not the reference's bits: test_tc.)
 * fp16 and bf16 values in the rows form (k = 16 and 8) and the tiles form,
 * float values with tf32 (k = 8 and 4) and with fp16 operands; N = 100 (a
 * tail past 64 columns) and 256.
 */
static void test_graph_capture_tc(void **state)
{
    (void)state;
    static const struct {
        loom_dtype vt;
        const char *strategy;
    } combos[] = {
        {LOOM_F16, "rb-rm-tc:f16,k=16"},       {LOOM_F16, "rb-rm-tc:f16,k=8"},
        {LOOM_F16, "rb-rm-tc:f16,k=16,tiles"}, {LOOM_BF16, "rb-rm-tc:bf16,k=16"},
        {LOOM_BF16, "rb-rm-tc:bf16,k=16,tiles"}, {LOOM_F32, "rb-rm-tc:tf32,k=8"},
        {LOOM_F32, "rb-rm-tc:tf32,k=4"},       {LOOM_F32, "rb-rm-tc:f16,k=16"},
    };
    static const int64_t ns[] = {100, 256};
    cudaStream_t stream = callers_stream();
    for (size_t c = 0; c < COUNT(combos); c++) {
        loom_csr *A = tc_matrix(combos[c].vt, 500 + c), *dA = NULL;
        CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
        loom_strategy s;
        CHECK(loom_strategy_parse(combos[c].strategy, &s));
        for (size_t ni = 0; ni < COUNT(ns); ni++) {
            loom_dense X, Ydirect, Ygraph, dX, dY;
            dense_make(&X, 400, ns[ni], LOOM_ROW_MAJOR, combos[c].vt, 0);
            dense_make(&Ydirect, 300, ns[ni], LOOM_ROW_MAJOR, combos[c].vt, 0);
            dense_make(&Ygraph, 300, ns[ni], LOOM_ROW_MAJOR, combos[c].vt, 0);
            CHECK(loom_dense_fill_random(&X, 7 + c));
            dense_to_device(ctx, &X, &dX);
            dense_to_device(ctx, &Ydirect, &dY);
            const size_t bytes = dense_bytes(&dY);
            loom_plan *plan = NULL;
            CHECK(fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, &s, &dX, &dY, &plan));

            assert_int_equal(cudaMemsetAsync(dY.data, 0xff, bytes, stream), cudaSuccess);
            CHECK(loom_spmm_execute(plan, -1.5, &dX, 0.0, &dY));
            assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
            dense_to_host(ctx, &dY, &Ydirect);

            char what[96];
            snprintf(what, sizeof what, "%s, N = %lld", combos[c].strategy, (long long)ns[ni]);
            run_as_graph(stream, plan, -1.5, &dX, &dY, what);
            dense_to_host(ctx, &dY, &Ygraph);
            if (has_nan(&Ydirect))
                fail_msg("%s: the direct run left elements unwritten", what);
            if (memcmp(Ygraph.data, Ydirect.data, bytes) != 0)
                fail_msg("%s: the graph's Y differs from the direct run's", what);
            CHECK(loom_plan_destroy(&plan));
            CHECK(loom_dense_free(ctx, &dX));
            CHECK(loom_dense_free(ctx, &dY));
            free(X.data);
            free(Ydirect.data);
            free(Ygraph.data);
            cases_run++;
        }
        CHECK(loom_csr_destroy(&dA));
        CHECK(loom_csr_destroy(&A));
    }
    drop_stream(stream);
}

/* Device memory taken by cudaMalloc in blocks of 1 GiB down to 64 KiB,
 * until none is left; held here so that a failing test still gives it
 * back (give_back_device_memory, its teardown) and the tests after it do
 * not fail for want of memory. */
static void **taken_blocks;
static int taken_count;

static int take_device_memory(void)
{
    enum { most = 1 << 14 };
    taken_blocks = malloc(most * sizeof *taken_blocks);
    assert_non_null(taken_blocks);
    taken_count = 0;
    for (size_t size = (size_t)1 << 30; size >= (size_t)1 << 16; size >>= 2)
        while (taken_count < most && cudaMalloc(&taken_blocks[taken_count], size) == cudaSuccess)
            taken_count++;
    (void)cudaGetLastError(); /* the last cudaMalloc's error, expected */
    return taken_count;
}

static int give_back_device_memory(void **state)
{
    (void)state;
    int bad = 0;
    for (int i = 0; i < taken_count; i++)
        bad |= cudaFree(taken_blocks[i]) != cudaSuccess;
    free(taken_blocks);
    taken_blocks = NULL;
    taken_count = 0;
    return bad;
}

/* Design d with the chunk of 32 for EB: a plan of EB carries or segment
 * slots of about 100 MB at N = 256 on the matrix below. */
static void design_small_chunks(int d, loom_strategy *s)
{
    CHECK(loom_strategy_design(d, s));
    if (s->mloop == LOOM_M_EB)
        s->chunk = 32;
}

/* Plan and run of s into dY (poisoned first), copied to the host Y;
 * returns the plan's status: LOOM_ERR_OUT_OF_MEMORY, with CUDA's message
 * and the plan left NULL, is allowed when may_refuse. */
static loom_status plan_and_run(const loom_csr *dA, const loom_strategy *s, const loom_dense *dX,
                                loom_dense *dY, loom_dense *Y, int may_refuse)
{
    loom_plan *plan = NULL;
    const loom_status st = fixed_plan(ctx, LOOM_BACKEND_CUDA, dA, s, dX, dY, &plan);
    char name[128];
    loom_strategy_format(s, name, sizeof name);
    if (st != LOOM_SUCCESS) {
        if (!may_refuse || st != LOOM_ERR_OUT_OF_MEMORY)
            fail_msg("%s, N = %lld: %s (%s)", name, (long long)dY->cols, loom_strerror(st),
                     loom_last_error());
        assert_null(plan);
        assert_non_null(strstr(loom_last_error(), "cuda"));
        printf("# %s, N = %lld, device full: %s\n", name, (long long)dY->cols, loom_last_error());
        return st;
    }
    assert_int_equal(cudaMemset(dY->data, 0xff, dense_bytes(dY)), cudaSuccess);
    CHECK(loom_spmm_execute(plan, 0.75, dX, 0.0, dY));
    CHECK(loom_plan_destroy(&plan));
    dense_to_host(ctx, dY, Y);
    cases_run++;
    return LOOM_SUCCESS;
}

/*
 * Plans made while the device's memory is taken: each design's plan
 * either works or is refused with LOOM_ERR_OUT_OF_MEMORY and CUDA's
 * message, never a crash or a half-made plan; some are refused (EB chunks
 * of 32 want about 100 MB of carries at N = 256), and once the memory is
 * back every design runs, with the bits of the full device's runs where
 * those ran (their bits against the reference are test_cuda's).  First in
 * the suite, while loom's pool (cuda_pool.c) holds no freed memory that
 * would let the plans through.  Not in the quick subset: compute-sanitizer
 * needs device memory of its own.
 */
static void test_plans_without_device_memory(void **state)
{
    (void)state;
    if (quick) {
        printf("# device memory exhaustion: not in the quick subset\n");
        skip();
    }
    enum { designs = LOOM_DESIGN_COUNT };
    static const int64_t ns[] = {2, 256};
    const int64_t m = 16384, k = 16384;
    int64_t *ro = malloc((size_t)(m + 1) * sizeof *ro);
    assert_non_null(ro);
    uint64_t seed = 404;
    ro[0] = 0;
    for (int64_t i = 0; i < m; i++)
        ro[i + 1] = ro[i] + 32 + (int64_t)(test_rand(&seed) % 129);
    loom_csr *A = test_matrix_with_lengths(ctx, LOOM_F32, m, k, ro, &seed), *dA = NULL;
    assert_non_null(A);
    CHECK(loom_csr_copy(ctx, A, LOOM_MEMORY_DEVICE, &dA));
    loom_dense X[COUNT(ns)], dX[COUNT(ns)], dY[COUNT(ns)], Y[COUNT(ns)][designs];
    int ran_full[COUNT(ns)][designs];
    for (size_t ni = 0; ni < COUNT(ns); ni++) {
        dense_make(&X[ni], k, ns[ni], LOOM_ROW_MAJOR, LOOM_F32, 0);
        CHECK(loom_dense_fill_random(&X[ni], 11 + ni));
        dense_to_device(ctx, &X[ni], &dX[ni]);
        for (int d = 0; d < designs; d++)
            dense_make(&Y[ni][d], m, ns[ni], LOOM_ROW_MAJOR, LOOM_F32, 0);
        dense_to_device(ctx, &Y[ni][0], &dY[ni]);
    }
    int refused = 0;
    const int count = take_device_memory();
    size_t free_bytes = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    printf("# device memory taken: %d blocks, %.2f MiB left\n", count, free_bytes / 1048576.0);
    for (size_t ni = 0; ni < COUNT(ns); ni++)
        for (int d = 0; d < designs; d++) {
            loom_strategy s;
            design_small_chunks(d, &s);
            ran_full[ni][d] = plan_and_run(dA, &s, &dX[ni], &dY[ni], &Y[ni][d], 1) == LOOM_SUCCESS;
            refused += !ran_full[ni][d];
        }
    assert_int_equal(give_back_device_memory(NULL), 0);
    printf("# %d of %d plans refused while the device was full\n", refused,
           (int)COUNT(ns) * designs);
    if (refused == 0)
        fail_msg("no plan was refused with the device full: the test did not take its memory");
    for (size_t ni = 0; ni < COUNT(ns); ni++) {
        loom_dense Yback;
        dense_make(&Yback, m, ns[ni], LOOM_ROW_MAJOR, LOOM_F32, 0);
        for (int d = 0; d < designs; d++) {
            loom_strategy s;
            design_small_chunks(d, &s);
            plan_and_run(dA, &s, &dX[ni], &dY[ni], &Yback, 0);
            if (ran_full[ni][d] && memcmp(Yback.data, Y[ni][d].data, dense_bytes(&Yback)) != 0)
                fail_msg("design %d, N = %lld: the full device's run and the later one differ", d,
                         (long long)ns[ni]);
            free(Y[ni][d].data);
        }
        free(Yback.data);
        CHECK(loom_dense_free(ctx, &dX[ni]));
        CHECK(loom_dense_free(ctx, &dY[ni]));
        free(X[ni].data);
    }
    CHECK(loom_csr_destroy(&dA));
    CHECK(loom_csr_destroy(&A));
}

int main(void)
{
    if (loom_backend_available(LOOM_BACKEND_CUDA) != LOOM_SUCCESS) {
        printf("SKIP: no CUDA device: %s\n", loom_last_error());
        return 77;
    }
    quick = getenv("LOOM_CUDA_TEST_QUICK") && atoi(getenv("LOOM_CUDA_TEST_QUICK")) != 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_plans_without_device_memory, /* first: see there */
                                  give_back_device_memory),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_copies_on_stream),
        cmocka_unit_test(test_graph_capture),
        cmocka_unit_test(test_graph_capture_tc),
        cmocka_unit_test(test_errors),
    };
    printf("# cuda backend: streams, graphs, errors, device memory%s\n", quick ? " (quick subset)" : "");
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    printf("# %ld cuda runs checked\n", cases_run);
    return failed ? 1 : 0;
}
