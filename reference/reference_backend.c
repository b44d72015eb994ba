/*
 * reference_backend.c - the reference as a backend: every design, float and
 * double, host memory, one thread.  Slow on purpose: it is the specification.
 */
#include "reference.h"
#include "loom_internal.h"

static loom_status reference_probe(void)
{
    return LOOM_SUCCESS;
}

static loom_status reference_supports(const loom_strategy *s, loom_dtype dtype, loom_memory memory)
{
    (void)s;
    if (dtype != LOOM_F32 && dtype != LOOM_F64)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "reference: dtype %d is not supported",
                           (int)dtype);
    if (memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "reference: operands must be in host memory (copy them with "
                           "loom_csr_copy / loom_dense_copy)");
    return LOOM_SUCCESS;
}

static ref_dense dense_view(const loom_dense *d)
{
    ref_dense v;
    v.data = d->data;
    v.row_stride = d->layout == LOOM_ROW_MAJOR ? d->ld : 1;
    v.col_stride = d->layout == LOOM_ROW_MAJOR ? 1 : d->ld;
    return v;
}

static loom_status reference_spmm(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                                  loom_dense *Y)
{
    const loom_csr *A = plan->A;
    ref_csr a = {A->rows, A->cols, A->row_offsets, A->col_indices, A->values};
    ref_dense x = dense_view(X), y = dense_view(Y);

    if (plan->dtype == LOOM_F32)
        loom__reference_spmm_f32(&a, &plan->strategy, (float)alpha, &x, (float)beta, &y, plan->n);
    else
        loom__reference_spmm_f64(&a, &plan->strategy, alpha, &x, beta, &y, plan->n);
    return LOOM_SUCCESS;
}

LOOM_INTERNAL const loom_backend loom__reference_backend = {
    .id = LOOM_BACKEND_REFERENCE,
    .name = "reference",
    .probe = reference_probe,
    .supports = reference_supports,
    .spmm = reference_spmm,
};
