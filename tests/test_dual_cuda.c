/*
 * test_dual_cuda.c - the CUDA dual-side GEMM against the reference, bit
 * for bit, with C in host and in device memory.  Exits 77 (SKIP) with a
 * message when this machine has no usable GPU or libloom has no CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dual_util.h"

#define CHECK(call) check_ok(call, #call)
static void check_ok(loom_status st, const char *what)
{
    if (st != LOOM_SUCCESS)
        fail_msg("%s: %s (%s)", what, loom_strerror(st), loom_last_error());
}

static loom_context *ctx;

static void gemm_on(loom_backend_id id, const loom_bitmap *A, const loom_bitmap *B, double alpha,
                    double beta, const loom_dense *C0, loom_dense *C, bool device)
{
    CHECK(loom_dense_alloc(ctx, C, C0->rows, C0->cols, C0->layout, C0->dtype, LOOM_MEMORY_HOST));
    CHECK(loom_dense_copy(ctx, C0, C));
    loom_dense dC = *C;
    if (device) {
        CHECK(loom_dense_alloc(ctx, &dC, C0->rows, C0->cols, C0->layout, C0->dtype,
                               LOOM_MEMORY_DEVICE));
        CHECK(loom_dense_copy(ctx, C0, &dC));
    }
    loom_dual_gemm_plan *p = NULL;
    CHECK(loom_dual_gemm_plan_create(ctx, &p, A, B, &dC, id));
    CHECK(loom_dual_gemm_execute(p, alpha, beta, &dC));
    CHECK(loom_dual_gemm_plan_destroy(&p));
    if (device) {
        CHECK(loom_dense_copy(ctx, &dC, C));
        CHECK(loom_dense_free(ctx, &dC));
    }
}

static void test_cuda_matches_reference(void **state)
{
    (void)state;
    const int64_t shapes[][3] = {{1, 1, 1}, {33, 65, 47}, {300, 500, 257}, {64, 1000, 96}};
    const double dens[][2] = {{1.0, 1.0}, {0.1, 0.1}, {0.5, 0.02}, {0.0, 0.3}};
    uint64_t seed = 5;
    for (size_t si = 0; si < 4; si++)
        for (size_t di = 0; di < 4; di++)
            for (int dt = 0; dt < 2; dt++)
                for (int dev = 0; dev < 2; dev++) {
                    loom_dense Ad, Bd, C0, Cr, Cc;
                    const int64_t m = shapes[si][0], k = shapes[si][1], n = shapes[si][2];
                    CHECK(dual_random_dense(ctx, &Ad, m, k, dens[di][0], (loom_dtype)dt,
                                            LOOM_ROW_MAJOR, seed++));
                    CHECK(dual_random_dense(ctx, &Bd, k, n, dens[di][1], (loom_dtype)dt,
                                            LOOM_ROW_MAJOR, seed++));
                    CHECK(dual_random_dense(ctx, &C0, m, n, 1.0, (loom_dtype)dt,
                                            dev ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, seed++));
                    loom_bitmap *A = NULL, *B = NULL;
                    CHECK(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &A));
                    CHECK(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &B));
                    double alpha = dev ? 1.0 : -0.5, beta = dev ? 0.0 : 0.25;
                    gemm_on(LOOM_BACKEND_REFERENCE, A, B, alpha, beta, &C0, &Cr, false);
                    gemm_on(LOOM_BACKEND_CUDA, A, B, alpha, beta, &C0, &Cc, dev);
                    loom_compare_result r;
                    CHECK(loom_dense_compare(&Cr, &Cc, &r));
                    if (r.differing)
                        fail_msg("%lldx%lldx%lld %s C in %s memory: %lld elements differ, first "
                                 "(%lld, %lld) %.17g vs %.17g",
                                 (long long)m, (long long)n, (long long)k, dt ? "f64" : "f32",
                                 dev ? "device" : "host", (long long)r.differing,
                                 (long long)r.first_row, (long long)r.first_col, r.first_a,
                                 r.first_b);
                    loom_bitmap_destroy(&A);
                    loom_bitmap_destroy(&B);
                    loom_dense_free(ctx, &Ad);
                    loom_dense_free(ctx, &Bd);
                    loom_dense_free(ctx, &C0);
                    loom_dense_free(ctx, &Cr);
                    loom_dense_free(ctx, &Cc);
                }
}

int main(void)
{
    if (loom_context_create(&ctx) != LOOM_SUCCESS)
        return 1;
    /* Probe through a 1x1 plan: the dual backend's own availability check. */
    static float one = 1;
    loom_dense d;
    loom_dense_init(&d, 1, 1, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, &one);
    loom_bitmap *A = NULL, *B = NULL;
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_COLUMNS, &A);
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_ROWS, &B);
    loom_dual_gemm_plan *p = NULL;
    loom_status st = loom_dual_gemm_plan_create(ctx, &p, A, B, &d, LOOM_BACKEND_CUDA);
    loom_dual_gemm_plan_destroy(&p);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
    if (st == LOOM_ERR_BACKEND_UNAVAILABLE) {
        printf("SKIP: test_dual_cuda: %s\n", loom_last_error());
        loom_context_destroy(&ctx);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_matches_reference),
    };
    int rc = cmocka_run_group_tests_name("dual_cuda", tests, NULL, NULL);
    loom_context_destroy(&ctx);
    return rc;
}
