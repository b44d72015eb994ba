/* fixed_plan.c - see fixed_plan.h. */
#include "fixed_plan.h"

loom_status fixed_plan(loom_context *ctx, loom_backend_id backend, const loom_csr *A,
                       const loom_strategy *s, const loom_dense *X, const loom_dense *Y,
                       loom_plan **plan)
{
    loom_plan_options opts;
    loom_status st = loom_plan_options_init(&opts);
    if (st != LOOM_SUCCESS)
        return st;
    opts.backend = backend;
    opts.selector = LOOM_SELECT_FIXED;
    opts.strategy = *s;
    return loom_spmm_plan_create(ctx, plan, A, X, Y, &opts);
}

loom_status run_fixed(loom_context *ctx, loom_backend_id backend, const loom_csr *A,
                      const loom_strategy *s, double alpha, const loom_dense *X, double beta,
                      loom_dense *Y, int twice)
{
    loom_plan *plan = NULL;
    loom_status st = fixed_plan(ctx, backend, A, s, X, Y, &plan);
    if (st == LOOM_SUCCESS && twice)
        st = loom_spmm_execute(plan, 2 * alpha, X, beta, Y);
    if (st == LOOM_SUCCESS)
        st = loom_spmm_execute(plan, alpha, X, beta, Y);
    loom_status destroyed = plan ? loom_plan_destroy(&plan) : LOOM_SUCCESS;
    return st != LOOM_SUCCESS ? st : destroyed;
}
