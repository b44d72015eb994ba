/* cuda_tc.h - the tensor-core strategies' part of the CUDA backend table. */
#ifndef LOOMCU_TC_H
#define LOOMCU_TC_H

#include "loom_internal.h"

LOOM_INTERNAL loom_status loomcu_tc_supports(const loom_strategy *s, loom_dtype dtype);
LOOM_INTERNAL loom_status loomcu_tc_prepare(loom_plan *plan);
LOOM_INTERNAL void loomcu_tc_release(loom_plan *plan);
LOOM_INTERNAL loom_status loomcu_tc_spmm_plan(loom_plan *plan, double alpha, const loom_dense *X,
                                              double beta, loom_dense *Y);

#endif
