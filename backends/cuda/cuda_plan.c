/*
 * cuda_plan.c - what a CUDA plan keeps on the device: for EB strategies the
 * chunk -> first-row map (computed on the host by lib/eb_chunks.c) and the
 * carry buffers the chunk kernels leave for the fix-up.  Made once at plan
 * time, freed by plan_release; nothing leaks on any error path.
 */
#include "config.h"
#include "cuda_kernels.h"
#include "cuda_status.h"
#include "cuda_tc.h"

#include <inttypes.h>

/* Carry buffers are chunks x slab columns (head and tail); wide N is done
 * in slabs of columns so they stay under this size. */
#define CARRY_BUDGET_BYTES ((size_t)256 << 20)

static void free_eb(loomcu_eb_data *eb)
{
    cudaFree(eb->first_row);
    cudaFree(eb->head);
    cudaFree(eb->tail);
    cudaFree(eb->tail_row);
    loom__free(eb);
}

/* Columns per slab: all of N when the carries fit the budget, else the
 * largest multiple of 128 that does (at least 128, or N when smaller). */
static int64_t carry_slab(int64_t chunks, int64_t n, size_t elem)
{
    size_t per_column = 2 * (size_t)(chunks > 0 ? chunks : 1) * elem;
    int64_t fit = (int64_t)(CARRY_BUDGET_BYTES / per_column);
    if (fit >= n)
        return n > 0 ? n : 1;
    fit = fit / 128 * 128;
    if (fit < 128)
        fit = 128;
    return fit < n ? fit : n;
}

loom_status loomcu_plan_prepare(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC)
        return loomcu_tc_prepare(plan);
    if (plan->strategy.mloop != LOOM_M_EB || plan->chunks == 0)
        return LOOM_SUCCESS;
    loomcu_eb_data *eb = loom__calloc(1, sizeof *eb);
    if (!eb)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory");
    size_t elem = loom_dtype_size(plan->dtype);
    eb->chunks = plan->chunks;
    eb->slab = carry_slab(plan->chunks, plan->n, elem);
    size_t map_bytes = ((size_t)plan->chunks + 1) * sizeof(int64_t);
    size_t carry_bytes = (size_t)plan->chunks * (size_t)eb->slab * elem;
    cudaError_t err = cudaMalloc((void **)&eb->first_row, map_bytes);
    if (err == cudaSuccess)
        err = cudaMalloc(&eb->head, carry_bytes);
    if (err == cudaSuccess)
        err = cudaMalloc(&eb->tail, carry_bytes);
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&eb->tail_row, (size_t)plan->chunks * sizeof(int64_t));
    if (err == cudaSuccess)
        err = cudaMemcpy(eb->first_row, plan->chunk_first_row, map_bytes, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        free_eb(eb);
        return loomcu_status(err, "EB preprocessing on the device");
    }
    plan->backend_data = eb;
    return LOOM_SUCCESS;
}

void loomcu_plan_release(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC) {
        loomcu_tc_release(plan);
        return;
    }
    if (plan->backend_data)
        free_eb(plan->backend_data);
    plan->backend_data = NULL;
}
