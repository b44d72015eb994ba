/*
 * test_threads.c - the documented thread-safety rules hold:
 *   - one context and one matrix may be used by several threads at once;
 *   - one plan may be executed by several threads at once on different Y;
 *   - each thread sees its own last-error message.
 * Run under ThreadSanitizer by `./configure --enable-sanitizers=thread`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_matrices.h"

#define THREADS 4
#define ROUNDS 20

static loom_context *ctx;
static loom_csr *A;
static loom_plan *plan;
static loom_dense X;
static int64_t rows, cols;
static const int64_t n = 8;

typedef struct worker {
    loom_dense Y;
    loom_status status;
    int message_ok;
    int id;
} worker;

static void *execute_many(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < ROUNDS && w->status == LOOM_SUCCESS; r++)
        w->status = loom_spmm_execute(plan, 1.0, &X, 0.0, &w->Y);
    /* An error in this thread leaves a message naming this thread's value. */
    char want[32];
    snprintf(want, sizeof want, "threads is -%d", 100 + w->id);
    loom_context_set_threads(ctx, -(100 + w->id));
    w->message_ok = strstr(loom_last_error(), want) != NULL;
    return NULL;
}

static void make_plan(loom_context *c, loom_csr **M, loom_plan **p)
{
    *M = test_matrix_make(c, SHAPE_POWER_LAW, LOOM_F32, 11);
    assert_non_null(*M);
    assert_int_equal(loom_csr_info(*M, &rows, &cols, NULL, NULL, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_dense_alloc(c, &X, cols, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST), LOOM_SUCCESS);
    assert_int_equal(loom_dense_fill_random(&X, 5), LOOM_SUCCESS);
    loom_dense Yshape;
    assert_int_equal(loom_dense_init(&Yshape, rows, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, X.data), LOOM_SUCCESS);
    loom_plan_options opts;
    loom_plan_options_init(&opts);
    opts.selector = LOOM_SELECT_FIXED;
    assert_int_equal(loom_strategy_parse("eb-rm-pr:chunk=64,lanes=8", &opts.strategy), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_plan_create(c, p, *M, &X, &Yshape, &opts), LOOM_SUCCESS);
}

static void test_shared_plan(void **state)
{
    (void)state;
    assert_int_equal(loom_context_create(&ctx), LOOM_SUCCESS);
    make_plan(ctx, &A, &plan);
    loom_dense expect;
    assert_int_equal(loom_dense_alloc(ctx, &expect, rows, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST), LOOM_SUCCESS);
    assert_int_equal(loom_spmm_execute(plan, 1.0, &X, 0.0, &expect), LOOM_SUCCESS);

    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        assert_int_equal(loom_dense_alloc(ctx, &w[i].Y, rows, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST), LOOM_SUCCESS);
        assert_int_equal(pthread_create(&t[i], NULL, execute_many, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].status != LOOM_SUCCESS)
            fail_msg("thread %d: %s", i, loom_strerror(w[i].status));
        assert_true(w[i].message_ok);
        assert_memory_equal(w[i].Y.data, expect.data, (size_t)(rows * n) * sizeof(float));
        loom_dense_free(ctx, &w[i].Y);
    }
    loom_dense_free(ctx, &expect);
    loom_dense_free(ctx, &X);
    assert_int_equal(loom_plan_destroy(&plan), LOOM_SUCCESS);
    assert_int_equal(loom_csr_destroy(&A), LOOM_SUCCESS);
    assert_int_equal(loom_context_destroy(&ctx), LOOM_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_plan),
    };
    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
