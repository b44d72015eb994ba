/*
 * fixed_plan.h - the tests' plans of one given strategy (no selection),
 * and one run of such a plan.
 */
#ifndef LOOM_TEST_FIXED_PLAN_H
#define LOOM_TEST_FIXED_PLAN_H

#include <loom.h>

/* A plan of strategy s on backend, for X and Y's shapes. */
loom_status fixed_plan(loom_context *ctx, loom_backend_id backend, const loom_csr *A,
                       const loom_strategy *s, const loom_dense *X, const loom_dense *Y,
                       loom_plan **plan);

/* Y = alpha A X + beta Y by a fixed plan of s, made and destroyed here.
 * twice: run the plan first with 2 alpha, so that a run that leaves state
 * behind (EB carries, counts, a team's partial sums) shows in the second;
 * only where beta = 0, whose Y the first run does not read. */
loom_status run_fixed(loom_context *ctx, loom_backend_id backend, const loom_csr *A,
                      const loom_strategy *s, double alpha, const loom_dense *X, double beta,
                      loom_dense *Y, int twice);

#endif
