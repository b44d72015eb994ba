/*
 * cuda_plan.c - what a CUDA plan keeps on the device: for EB strategies the
 * chunk -> first-row map (computed on the host by lib/eb_chunks.c) and the
 * carry buffers the chunk kernels leave for the fix-up; for RB + SR at wide
 * N the row bins (long rows first).  Made once at plan time, freed by
 * plan_release; nothing leaks on any error path.
 */
#include "config.h"
#include "cuda_kernels.h"
#include "cuda_status.h"
#include "cuda_tc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

/* Carry buffers are chunks x slab columns (head and tail); wide N is done
 * in slabs of columns so they stay under this size. */
#define CARRY_BUDGET_BYTES ((size_t)256 << 20)

static void free_data(loomcu_plan_data *d)
{
    cudaFree(d->eb.first_row);
    cudaFree(d->eb.head);
    cudaFree(d->eb.tail);
    cudaFree(d->eb.tail_row);
    cudaFree(d->bins.rows);
    loom__free(d);
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

/* EB: the chunk map and the carry buffers. */
static cudaError_t prepare_eb(const loom_plan *plan, loomcu_eb_data *eb)
{
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
    return err;
}

/*
 * RB + SR row bins: a row with more non-zeros than this is walked one
 * column per lane, with deeper load pipelines (rb_sr_binned_kernel).
 * Measured on an H200 over 12 real matrices (bench/results/cuda-2026-11-22-h200-binned/):
 * 32 was best up to N = 64, 128 from N = 128 up (at wide N a long row
 * already has many tiles running side by side).
 */
static int64_t long_row_threshold(int64_t n)
{
    return n <= 64 ? 32 : 128;
}

/* Whether the binned wide walk can apply: RB + SR, row-major X (the wide
 * walk), N wide enough for a 16-column tile, no explicit coarsening. */
static bool wants_bins(const loom_plan *plan)
{
    const loom_strategy *s = &plan->strategy;
    return s->mloop == LOOM_M_RB && s->kloop == LOOM_K_SR && s->coarsen == 0 &&
           plan->x_layout == LOOM_ROW_MAJOR && plan->n >= 16 && plan->A->rows > 0 &&
           plan->A->nnz > 0;
}

typedef struct {
    int64_t len, row;
} row_len;

static int longest_first(const void *a, const void *b)
{
    const row_len *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The bins on the host, then on the device.  Returns LOOM_ERR_OUT_OF_MEMORY or success;
 * CUDA errors come back in *err. */
static loom_status prepare_bins(const loom_plan *plan, loomcu_row_bins *bins, cudaError_t *err)
{
    const int64_t m = plan->A->rows, threshold = long_row_threshold(plan->n);
    const int64_t *ro = plan->A->memory == LOOM_MEMORY_HOST ? plan->A->row_offsets
                                                            : plan->A->host_row_offsets;
    int64_t n_long = 0;
    for (int64_t r = 0; r < m; r++)
        n_long += ro[r + 1] - ro[r] > threshold;
    bins->n_long = n_long;
    bins->n_short = m - n_long;
    *err = cudaSuccess;
    if (n_long == 0)
        return LOOM_SUCCESS; /* no list: the kernel walks the rows in order */
    row_len *longs = loom__malloc((size_t)n_long * sizeof *longs);
    int64_t *order = loom__malloc((size_t)m * sizeof *order);
    if (!longs || !order) {
        loom__free(longs);
        loom__free(order);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory for row bins");
    }
    int64_t nl = 0, ns = n_long;
    for (int64_t r = 0; r < m; r++) {
        const int64_t len = ro[r + 1] - ro[r];
        if (len > threshold)
            longs[nl++] = (row_len){len, r};
        else
            order[ns++] = r;
    }
    qsort(longs, (size_t)n_long, sizeof *longs, longest_first);
    for (int64_t i = 0; i < n_long; i++)
        order[i] = longs[i].row;
    *err = cudaMalloc((void **)&bins->rows, (size_t)m * sizeof(int64_t));
    if (*err == cudaSuccess)
        *err = cudaMemcpy(bins->rows, order, (size_t)m * sizeof(int64_t), cudaMemcpyHostToDevice);
    loom__free(longs);
    loom__free(order);
    return LOOM_SUCCESS;
}

loom_status loomcu_plan_prepare(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC)
        return loomcu_tc_prepare(plan);
    const bool eb = plan->strategy.mloop == LOOM_M_EB && plan->chunks > 0;
    const bool bins = wants_bins(plan);
    if (!eb && !bins)
        return LOOM_SUCCESS;
    loomcu_plan_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory");
    cudaError_t err = cudaSuccess;
    loom_status st = LOOM_SUCCESS;
    if (eb)
        err = prepare_eb(plan, &d->eb);
    if (bins && err == cudaSuccess)
        st = prepare_bins(plan, &d->bins, &err);
    if (st == LOOM_SUCCESS && err != cudaSuccess)
        st = loomcu_status(err, eb ? "EB preprocessing on the device" : "row bins on the device");
    if (st != LOOM_SUCCESS) {
        free_data(d);
        return st;
    }
    plan->backend_data = d;
    return LOOM_SUCCESS;
}

void loomcu_plan_release(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC) {
        loomcu_tc_release(plan);
        return;
    }
    if (plan->backend_data)
        free_data(plan->backend_data);
    plan->backend_data = NULL;
}
