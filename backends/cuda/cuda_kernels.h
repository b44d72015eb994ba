/*
 * cuda_kernels.h - the C face of the CUDA kernels (spmm_f32.cu, spmm_f64.cu):
 * one launcher per precision, called by the backend glue (cuda_backend.c).
 * Plain C so that gcc-compiled glue and nvcc-compiled kernels share it.
 */
#ifndef LOOM_CUDA_KERNELS_H
#define LOOM_CUDA_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "loom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the wide SR walks (EB segments, RB row bins) run at this N with
 * row-major X: from N = 16, or from N = 5 when the launcher picks the
 * columns per lane itself (coarsen 0): below N = 16 it then takes 2, so a
 * group keeps the 4 lanes the walks need (spmm_launch.cuh); at N = 5..7
 * that is the N = 8 tile with idle columns.  Below that the narrow walk
 * takes EB + SR (loomcu_narrow_n).  The plan builds the walks' data where
 * this holds. */
static inline int loomcu_wide_n(int64_t n, int coarsen)
{
    return n >= 16 || (n >= 5 && coarsen == 0);
}

/* Whether EB + SR walks its segments with the narrow kernel at this N
 * (eb_sr_narrow_segments_kernel: one X row of N values per non-zero, in
 * one vector load where X allows; N = 3 with the N = 4 instance, whose
 * own 3-column instance spilled). */
static inline int loomcu_narrow_n(int64_t n)
{
    return n >= 1 && n <= 4;
}

/* RB + PR's deep walk (rb_pr_kernel, DEEP): pairs per lane in flight; a
 * row takes it from LOOMCU_PR_DEEP x lanes non-zeros on. */
#define LOOMCU_PR_DEEP 8

/* One SpMM launch: Y = alpha*A*X + beta*Y, all pointers in device memory. */
typedef struct loomcu_problem {
    int64_t m, k, n, nnz;
    const int64_t *row_offsets;
    const int32_t *col_indices;
    const void *values;
    const void *x;
    int64_t x_row_stride, x_col_stride;
    void *y;
    int64_t y_row_stride, y_col_stride;
    double alpha, beta;
    int x_vector_width; /* widest V for which X rows are V-aligned (1, 2 or 4) */
    int y_vector_width; /* the same for Y (1 unless Y is row-major) */
} loomcu_problem;

/* The plan's EB preprocessing on the device (cuda_plan.c). */
typedef struct loomcu_eb_data {
    int64_t chunks;
    int64_t *first_row;  /* chunks + 1 */
    void *head, *tail;   /* chunks x slab columns each */
    int64_t *tail_row;   /* chunks */
    int64_t slab;        /* columns per carry slab */
} loomcu_eb_data;

/* The plan's row bins for RB + SR at wide N (cuda_plan.c): which rows are
 * long enough to walk one column per lane (see rb_sr_binned_kernel). */
typedef struct loomcu_row_bins {
    int64_t n_long, n_short; /* n_long + n_short = rows */
    int64_t *rows; /* device: long rows (longest first), then short rows in order
                      (longest first too from N = 8, cuda_plan.c sort_short_items);
                      NULL when neither needs a list (the rows in order) */
} loomcu_row_bins;

/* The plan's EB + SR segments at N <= 4 and wide N (cuda_plan.c; see
 * spmm_eb_segments.cuh): every piece of every row, long ones first; at
 * N <= 4 the rows that are one short piece (or empty) are not listed but
 * swept (sweep_rows). */
typedef struct loomcu_eb_segments {
    int64_t n_long, n_short;       /* listed segments */
    int64_t sweep_rows;            /* N <= 4: rows 0 .. sweep_rows - 1 swept; 0: none */
    int64_t long_threshold;        /* a piece of more non-zeros is long (cuda_plan.c
                                      long_row_threshold); at N <= 4 a row of one piece of
                                      at most this many is swept */
    int cache_pairs;               /* N <= 4: short items' pairs read through L1 (A is small) */
    int column_order;              /* the short ones by their first column (cuda_plan.c column_order) */
    int long_vector;               /* the long ones walk as short ones (cuda_plan.c long_segments_vector) */
    int vector32;                  /* wide N: 32 bytes of columns a lane (cuda_plan.c segments_vector32) */
    int64_t *row, *begin, *slot;   /* device, per segment (slot -1: the row's only piece) */
    int64_t n_fix;                 /* rows of several pieces */
    int64_t *fix_row, *fix_slot0;  /* device: n_fix rows, n_fix + 1 first slots */
    void *carry;                   /* device: slots x slab columns */
    int64_t slab;                  /* columns per carry slab */
} loomcu_eb_segments;

/* What a CUDA plan keeps on the device (plan->backend_data): EB strategies
 * use eb (chunks = 0: none) or, for SR at wide N, segs; RB + SR strategies
 * may use bins (n_long + n_short = 0: none) or set ktile; RB + PR ones may
 * set pr_deep (launch choices, nothing on the device). */
typedef struct loomcu_plan_data {
    loomcu_eb_data eb;
    loomcu_eb_segments segs;
    loomcu_row_bins bins;
    int pr_deep; /* RB + PR: rb_pr_kernel's deep form (cuda_plan.c wants_pr_deep) */
    int ktile;   /* RB + SR: rb_sr_ktile_kernel where X allows (cuda_plan.c wants_ktile) */
    void *arena; /* the one device allocation every array above points into */
} loomcu_plan_data;

/* At N = 1 the narrow EB + SR walk gives a long piece a group of 16 lanes
 * two batches deep, not 8 four deep: in f64 always, in f32 from this many
 * non-zeros (spmm_eb_segments.cuh wide_lanes says why; the launch picks,
 * the explanation says).  elem: the value type's bytes. */
#define LOOMCU_NARROW_WIDE_NNZ 4000000

static inline int loomcu_narrow_wide(int64_t n, int64_t nnz, size_t elem)
{
    return n == 1 && (elem == 8 || nnz >= LOOMCU_NARROW_WIDE_NNZ);
}

/* Whether the narrow walk's groups pass their (value, x) pairs through
 * shared memory rather than shuffles: at N = 1 (spmm_eb_segments.cuh
 * batch_fmas says why). */
#define LOOMCU_PAIRS_THROUGH_ROOM(n) ((n) == 1)

/* Whether the plan made EB + SR segments (listed or swept). */
static inline int loomcu_segments_made(const loomcu_eb_segments *sg)
{
    return sg->n_long + sg->n_short + sg->sweep_rows > 0;
}

/* rb_sr_ktile_kernel's tiles (spmm_rb_ktile.cuh): LOOMCU_KTILE_ROW_BYTES
 * of each X row (32 lanes x 16 bytes) by LOOMCU_KTILE_ROWS rows of X, two
 * stages in shared memory; the plan's rule (cuda_plan.c wants_ktile)
 * reads the same numbers. */
#define LOOMCU_KTILE_ROW_BYTES 512
#define LOOMCU_KTILE_ROWS 128

/* Let rb_sr_ktile_kernel take its shared memory (128 KiB) on the current
 * device: cudaSuccess, or the error where the device has less. */
cudaError_t loomcu_ktile_allow_f32(void);
cudaError_t loomcu_ktile_allow_f64(void);

/* Launch the strategy's kernels on stream; data is the plan's device data
 * (NULL: none).  Returns the launch error (cudaSuccess when all launches
 * were accepted). */
cudaError_t loomcu_spmm_f32(const loomcu_problem *p, const loom_strategy *s,
                            const loomcu_plan_data *data, cudaStream_t stream);
cudaError_t loomcu_spmm_f64(const loomcu_problem *p, const loom_strategy *s,
                            const loomcu_plan_data *data, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
