/*
 * reference_backend.c - the reference as a backend: every design, float and
 * double, host memory, one thread.  Slow on purpose: it is the specification.
 */
#include "reference.h"
#include "loom_internal.h"
#include "tc_model.h"

#include <stdlib.h>

static loom_status reference_probe(void)
{
    return LOOM_SUCCESS;
}

static loom_status reference_supports(const loom_strategy *s, loom_dtype dtype, loom_memory memory)
{
    bool half = dtype == LOOM_F16 || dtype == LOOM_BF16;
    if (dtype != LOOM_F32 && dtype != LOOM_F64 && !(half && s->kloop == LOOM_K_TC))
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "reference: dtype %s is not supported here",
                           loom_dtype_name(dtype));
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

/* Tensor-core strategies need row-major X and Y (the MMA tiles are rows). */
static loom_status reference_plan_prepare(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC &&
        (plan->x_layout != LOOM_ROW_MAJOR || plan->y_layout != LOOM_ROW_MAJOR))
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "reference: tensor-core strategies need row-major X and Y");
    return LOOM_SUCCESS;
}

/* The MMA unit's accumulation: the model file named by LOOM_TC_MODEL (as
 * bench/tc_probe writes it for a device), else IEEE sequential float. */
static void tc_reference(const loom_plan *plan, double alpha, const loom_dense *X, double beta,
                         loom_dense *Y)
{
    const loom_csr *A = plan->A;
    tc_config cfg = {(tc_precision)plan->strategy.tc_precision, plan->strategy.tc_k,
                     (tc_form)plan->strategy.tc_form};
    tc_mma_model model;
    const char *path = getenv("LOOM_TC_MODEL");
    if (!path || tc_model_load(path, cfg.precision, cfg.k, &model) != 0)
        tc_model_default(&model);
    tc_problem p = {A->rows, A->cols, X->cols, A->row_offsets, A->col_indices, A->values,
                    plan->dtype == LOOM_F32 ? TC_VAL_F32 : plan->dtype == LOOM_F16 ? TC_VAL_F16 : TC_VAL_BF16,
                    X->data, X->ld, Y->data, Y->ld, (float)alpha, (float)beta};
    tc_reference_spmm(&p, &cfg, &model);
}

static loom_status reference_spmm(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                                  loom_dense *Y)
{
    if (plan->strategy.kloop == LOOM_K_TC) {
        tc_reference(plan, alpha, X, beta, Y);
        return LOOM_SUCCESS;
    }
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
    .tensor_cores = true,
    .probe = reference_probe,
    .supports = reference_supports,
    .plan_prepare = reference_plan_prepare,
    .spmm = reference_spmm,
};
