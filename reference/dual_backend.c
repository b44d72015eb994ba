/*
 * dual_backend.c - the reference as a dual backend: the specification of
 * the dual-side GEMM (dual_gemm.h) and of the three im2col strategies
 * (dual_im2col.c), host memory, one thread.
 */
#include "config.h"
#include "dual_internal.h"

static loom_status reference_probe(void)
{
    return LOOM_SUCCESS;
}

static loom_status reference_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                  loom_dense *C)
{
    if (plan->dtype == LOOM_F32)
        loom__ref_dual_gemm_f32(plan->A, plan->B, (float)alpha, (float)beta, C);
    else
        loom__ref_dual_gemm_f64(plan->A, plan->B, alpha, beta, C);
    return LOOM_SUCCESS;
}

LOOM_INTERNAL const loom_dual_backend loom__reference_dual_backend = {
    .id = LOOM_BACKEND_REFERENCE,
    .name = "reference",
    .probe = reference_probe,
    .gemm = reference_gemm,
    .im2col_dense = loom__ref_im2col_dense,
    .im2col_csr = loom__ref_im2col_csr,
    .im2col_bitmap = loom__ref_im2col_bitmap,
};
