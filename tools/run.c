/*
 * run.c - plan once, execute once to warm up, then time `repeat` executions
 * and keep the median.  Device backends (cuda) run on device copies of the
 * operands; the CUDA backend's execute returns when the result is ready
 * (no stream is set), so the host clock times the kernel.
 */
#include "config.h"
#include "run.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only the CUDA backend computes in device memory. */
static bool uses_device(loom_backend_id id)
{
    return id == LOOM_BACKEND_CUDA;
}

loom_status tool_run_init(tool_run *run, loom_backend_id backend, const char *design, int repeat)
{
    memset(run, 0, sizeof *run);
    run->backend = backend;
    run->repeat = repeat;
    run->selector = LOOM_SELECT_AUTO;
    loom_strategy_design(0, &run->strategy);
    if (!design || tool_selector_from_name(design, &run->selector))
        return LOOM_SUCCESS;
    run->selector = LOOM_SELECT_FIXED;
    return loom_strategy_parse(design, &run->strategy);
}

static loom_status step(loom_status st, tool_run *run, const char *what)
{
    if (st != LOOM_SUCCESS && run->failed[0] == '\0')
        snprintf(run->failed, sizeof run->failed, "%s", what);
    return st;
}

/* The operands as the backend needs them: host ones as they are, or device copies. */
static loom_status stage(loom_context *ctx, tool_problem *p, tool_run *run, bool device,
                         const loom_csr **A, loom_dense *X, loom_dense *Y)
{
    loom_memory mem = device ? LOOM_MEMORY_DEVICE : LOOM_MEMORY_HOST;
    loom_status st = LOOM_SUCCESS;
    *A = p->A;
    if (!device)
        *X = p->X;
    else {
        if (!p->A_device)
            st = step(loom_csr_copy(ctx, p->A, LOOM_MEMORY_DEVICE, &p->A_device), run,
                      "copying A to the device");
        *A = p->A_device;
        if (st == LOOM_SUCCESS)
            st = step(loom_dense_alloc(ctx, X, p->k, p->n, p->layout, p->dtype, mem), run,
                      "allocating X on the device");
        if (st == LOOM_SUCCESS)
            st = step(loom_dense_copy(ctx, &p->X, X), run, "copying X to the device");
    }
    if (st == LOOM_SUCCESS)
        st = step(loom_dense_alloc(ctx, Y, p->m, p->n, p->layout, p->dtype, mem), run,
                  "allocating Y");
    /* All-ones bytes are NaN in f32 and f64: an element the backend never
     * writes cannot pass the checks by accident. */
    if (st == LOOM_SUCCESS && !device)
        memset(Y->data, 0xff, (size_t)(p->m * p->n) * loom_dtype_size(p->dtype));
    return st;
}

static loom_status execute_timed(loom_plan *plan, tool_problem *p, const loom_dense *X,
                                 loom_dense *Y, tool_run *run)
{
    loom_status st = step(loom_spmm_execute(plan, p->alpha, X, p->beta, Y), run, "executing the plan");
    if (st != LOOM_SUCCESS || run->repeat == 0)
        return st;
    double *t = malloc((size_t)run->repeat * sizeof *t);
    if (!t) {
        snprintf(run->failed, sizeof run->failed, "timing");
        return LOOM_ERR_OUT_OF_MEMORY;
    }
    for (int r = 0; r < run->repeat && st == LOOM_SUCCESS; r++) {
        double t0 = tool_seconds();
        st = step(loom_spmm_execute(plan, p->alpha, X, p->beta, Y), run, "executing the plan");
        t[r] = tool_seconds() - t0;
    }
    if (st == LOOM_SUCCESS)
        run->seconds = tool_median(t, run->repeat);
    free(t);
    return st;
}

loom_status tool_run_spmm(loom_context *ctx, tool_problem *p, tool_run *run)
{
    bool device = uses_device(run->backend);
    const loom_csr *A = NULL;
    loom_dense X = {0}, Y = {0};
    loom_plan *plan = NULL;
    run->failed[0] = '\0';
    memset(&run->Y, 0, sizeof run->Y);

    loom_status st = stage(ctx, p, run, device, &A, &X, &Y);
    loom_plan_options opts;
    loom_plan_options_init(&opts);
    opts.backend = run->backend;
    opts.selector = run->selector;
    opts.strategy = run->strategy;
    if (st == LOOM_SUCCESS)
        st = step(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts), run, "creating the plan");
    if (st == LOOM_SUCCESS) {
        loom_plan_strategy(plan, &run->used_strategy, &run->used_backend);
        snprintf(run->explain, sizeof run->explain, "%s", loom_plan_explain(plan));
        st = execute_timed(plan, p, &X, &Y, run);
    }
    if (st == LOOM_SUCCESS && device) {
        st = step(loom_dense_alloc(ctx, &run->Y, p->m, p->n, p->layout, p->dtype, LOOM_MEMORY_HOST),
                  run, "allocating Y on the host");
        if (st == LOOM_SUCCESS)
            st = step(loom_dense_copy(ctx, &Y, &run->Y), run, "copying Y from the device");
        if (st != LOOM_SUCCESS)
            loom_dense_free(ctx, &run->Y);
    }
    /* Cleanup must not overwrite the message of the step that failed. */
    loom_plan_destroy(&plan);
    if (device) {
        if (X.data)
            loom_dense_free(ctx, &X);
        if (Y.data)
            loom_dense_free(ctx, &Y);
    } else if (st == LOOM_SUCCESS) {
        run->Y = Y;
    } else if (Y.data) {
        loom_dense_free(ctx, &Y);
    }
    return st;
}

void tool_problem_release(loom_context *ctx, tool_problem *p)
{
    loom_csr_destroy(&p->A_device);
    loom_csr_destroy(&p->A);
    if (p->X.data)
        loom_dense_free(ctx, &p->X);
}
