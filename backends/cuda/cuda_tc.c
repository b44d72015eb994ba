/*
 * cuda_tc.c - the CUDA backend's tensor-core strategies (LOOM_K_TC): the
 * glue between a plan and the TCA-SpMM kernels of tc_spmm.cu.  The kernels
 * follow reference/tc_model.h step by step; the MMA unit's own addition is
 * the one part the reference models (see bench/tc_probe.cu).
 */
#include "config.h"

#include <inttypes.h>

#include "cuda_tc.h"
#include "cuda_status.h"
#include "tc_spmm.h"

static tc_value tc_value_of(loom_dtype dtype)
{
    return dtype == LOOM_F32 ? TC_VAL_F32 : dtype == LOOM_F16 ? TC_VAL_F16 : TC_VAL_BF16;
}

static tc_config tc_config_of(const loom_strategy *s)
{
    tc_config cfg = {(tc_precision)s->tc_precision, s->tc_k, (tc_form)s->tc_form};
    return cfg;
}

loom_status loomcu_tc_supports(const loom_strategy *s, loom_dtype dtype)
{
    tc_config cfg = tc_config_of(s);
    if (cfg.form == TC_FORM_TILES && dtype != LOOM_F64 && !loomcu_tc_supported(tc_value_of(dtype), &cfg))
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: the tiles form runs f16 or bf16 values with operands of the same "
                           "type and k = 16 only (here %s values, k = %d); the reference runs any",
                           loom_dtype_name(dtype), cfg.k);
    if (dtype == LOOM_F64 || !loomcu_tc_supported(tc_value_of(dtype), &cfg))
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: no tensor-core kernel for %s values with these operands",
                           loom_dtype_name(dtype));
    return LOOM_SUCCESS;
}

loom_status loomcu_tc_prepare(loom_plan *plan)
{
    if (plan->x_layout != LOOM_ROW_MAJOR || plan->y_layout != LOOM_ROW_MAJOR)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: tensor-core strategies need row-major X and Y");
    if (plan->strategy.tc_form == LOOM_TC_TILES && plan->n > LOOMCU_TC_TILES_MAX_N)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: the tiles form takes N up to %d columns of X (here %" PRId64
                           "); the rows form takes any",
                           LOOMCU_TC_TILES_MAX_N, plan->n);
    loomcu_tc_plan *tp = loom__calloc(1, sizeof *tp);
    if (!tp)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda tensor-core plan: out of host memory");
    tc_config cfg = tc_config_of(&plan->strategy);
    cudaError_t err = loomcu_tc_plan_create(tp, plan->A->host_row_offsets, plan->A->rows, &cfg);
    if (err != cudaSuccess) {
        loomcu_tc_plan_destroy(tp);
        loom__free(tp);
        return loomcu_status(err, "tensor-core row binning on the device");
    }
    plan->backend_data = tp;
    /* the device state the executions need (the tiles form's slice index
     * and parts' workspace; the rows form's segment workspace where rows
     * are long), now rather than at the first execution: the plan knows K
     * and N */
    const loom_csr *A = plan->A;
    loomcu_tc_problem p = {A->rows, A->cols, plan->n, A->row_offsets, A->col_indices, A->values,
                           tc_value_of(plan->dtype), NULL, 0, NULL, 0, 1.0f, 0.0f};
    err = loomcu_tc_reserve(tp, &p, (cudaStream_t)plan->ctx.stream);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: later calls start clean */
        return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                           cfg.form == TC_FORM_TILES
                               ? "cuda: tensor-core plan, tiles form: out of device memory for its slice index and "
                                 "parts' workspace (%.1f MiB for %" PRId64 " x %" PRId64 " at N = %" PRId64
                                 "); the rows form needs neither"
                               : "cuda: tensor-core plan, rows form: out of device memory for the workspace of its "
                                 "long rows' segments (%.1f MiB for %" PRId64 " x %" PRId64 " at N = %" PRId64 ")",
                           loomcu_tc_state_bytes(tp, A->cols, plan->n) / 1048576.0, A->rows, A->cols, plan->n);
    }
    return loomcu_status(err, cfg.form == TC_FORM_TILES ? "tensor-core tiles form's slice index"
                                                        : "tensor-core rows form's segment workspace");
}

void loomcu_tc_release(loom_plan *plan)
{
    if (plan->backend_data) {
        loomcu_tc_plan_destroy(plan->backend_data);
        loom__free(plan->backend_data);
    }
    plan->backend_data = NULL;
}

loom_status loomcu_tc_spmm_plan(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                                loom_dense *Y)
{
    const loom_csr *A = plan->A;
    loomcu_tc_problem p = {A->rows, A->cols, X->cols, A->row_offsets, A->col_indices, A->values,
                           tc_value_of(plan->dtype), X->data, X->ld, Y->data, Y->ld,
                           (float)alpha, (float)beta};
    return loomcu_status(loomcu_tc_spmm(plan->backend_data, &p, (cudaStream_t)plan->ctx.stream),
                         "tensor-core SpMM");
}
