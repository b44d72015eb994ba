/*
 * tc_spmm.h - the C face of the tensor-core SpMM kernels (tc_spmm.cu),
 * TCA-SpMM on plain CSR: each row's dot products with X become small
 * mma.sync products.  The order of operations is the one of
 * reference/tc_model.h, which the kernels reproduce bit for bit given the
 * device's MMA model.
 *
 * The CUDA backend's spmm slot dispatches here for tensor-core strategies
 * (see doc/tc-api-proposal.md for the hook).
 */
#ifndef LOOM_CUDA_TC_SPMM_H
#define LOOM_CUDA_TC_SPMM_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch; every pointer in device memory, X and Y row-major.
 * row_offsets describe the pattern the plan was made for: the kernels read
 * the plan's row records (loomcu_tc_row) in its place. */
typedef struct loomcu_tc_problem {
    int64_t m, k, n;
    const int64_t *row_offsets;
    const int32_t *col_indices;
    const void *values;
    tc_value vt; /* storage type of A, X and Y */
    const void *x;
    int64_t ldx;
    void *y;
    int64_t ldy;
    float alpha, beta;
} loomcu_tc_problem;

/* One row as the kernel finds it: where its non-zeros start and how many
 * there are, next to its id, so a warp reaches its column indices after one
 * 16-byte load instead of two dependent ones (row id, then row offsets).
 * The plan therefore belongs to one sparsity pattern (it already did: the
 * bins depend on the row lengths); values may change between calls. */
typedef struct loomcu_tc_row {
    int64_t start;
    int32_t row, len;
} loomcu_tc_row;

/* A row of more than TC_SEGMENT_GROUPS groups (reference/tc_model.h) is
 * run as its segments: each is a record of its own (its non-zeros), whose
 * `row` is -1 - s for entry s of the plan's segment table.  Its warps
 * write the segment's sums to a workspace instead of Y, and the last of
 * the row's segments to finish a strip adds them (the halving tree) and
 * stores the row's outputs: so a long row's work is spread over as many
 * blocks (gather kernel) or warps (resident kernel) as it has segments. */
typedef struct loomcu_tc_segment {
    int32_t row;      /* the row of A (and of Y) */
    int32_t segments; /* B, the row's segment count */
    int32_t first;    /* the workspace row of the row's segment 0 (its segments' are first .. first+B-1) */
    int32_t counter;  /* the row's counters: counter * ceil(N/32) + (strip's first column)/32 */
} loomcu_tc_segment;

/* Plan-time preprocessing (rows form): the rows binned by their part
 * count P (1, 2, 4, 8 warps), so the blocks of a bin run rows of one shape;
 * the segments in a fifth bin (P = 8: a segment has at least 8 groups). */
#define LOOMCU_TC_BINS 5
#define LOOMCU_TC_SEGMENT_BIN 4
/* Inside a bin the rows go longest first, so the blocks that run them start
 * heaviest first and the hardware's block scheduler balances the tail; the
 * launch shape (rows per warp, strips per block) comes from a cost model over
 * each row's groups per part (group_count, host memory, the rows' order). */
typedef struct loomcu_tc_plan {
    tc_config cfg;
    int64_t m, nnz;
    loomcu_tc_row *rows;                   /* device: the records (rows, and segments in place of
                                            * long rows), bin after bin */
    loomcu_tc_segment *segments;           /* device: the segment table (NULL: no long rows) */
    int64_t nsegments, nlong;              /* its entries; the rows cut into segments */
    int64_t nspread;                       /* the resident kernel may spread the first nspread rows
                                            * of bin 3 (the longest rows of 8 parts) over 8 warps
                                            * each (tc_spmm.cu, rx_spread); 16-bit precisions */
    int64_t spread_longest;                /* the first of them's non-zeros: a launch spreads them
                                            * only where it outweighs a warp's share (rx_try) */
    struct loomcu_tc_segment_state *seg;   /* the segments' workspace and counters, for an N
                                            * (loomcu_tc_reserve, or the first call) */
    int64_t bin_start[LOOMCU_TC_BINS + 1]; /* bin b (P = 2^b; 8 for segments) holds
                                            * rows[bin_start[b] .. bin_start[b+1]); the last
                                            * entry counts the records */
    int32_t *group_count;                  /* host: groups per part of each record, as rows */
    int64_t group_sum[LOOMCU_TC_BINS];     /* the bin's sum of group_count */
    struct loomcu_tc_shape *shape;         /* host: the last launch shape, for its strips and GPU;
                                            * written by loomcu_tc_spmm, so calls on one plan must
                                            * take turns (a loom plan's executions do) */
    struct loomcu_tc_tiles *tiles;         /* tiles form only (tc_tiles.cu): its device state,
                                            * made by loomcu_tc_tiles_reserve or at the first
                                            * call; the bins above stay empty */
} loomcu_tc_plan;

/* The current device and its multiprocessors (the launch shapes' input). */
cudaError_t loomcu_tc_device_sms(int *dev, int *sms);

/* The largest K (rows of X) for which the rows form's resident-strip
 * kernel holds X's strips in shared memory on the current device, one
 * block a multiprocessor: in strips of 64 columns (max_k) and of 32
 * (max_k_narrow); 0: none.  The selector's bounds (lib/select_tc.h). */
cudaError_t loomcu_tc_resident_max_k(int64_t *max_k, int64_t *max_k_narrow);

/* 1 when kernels exist for this storage type, precision and MMA depth. */
int loomcu_tc_supported(tc_value vt, const tc_config *cfg);

/* host_row_offsets: the m+1 row offsets in host memory. */
cudaError_t loomcu_tc_plan_create(loomcu_tc_plan *plan, const int64_t *host_row_offsets, int64_t m,
                                  const tc_config *cfg);
void loomcu_tc_plan_destroy(loomcu_tc_plan *plan);

/* Y = alpha*A*X + beta*Y; returns the launch error.  cudaErrorInvalidValue
 * when the combination is not supported or shapes are wrong. */
cudaError_t loomcu_tc_spmm(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                           cudaStream_t stream);

/* The device state a call at p's K and N needs, made ahead of the first
 * call so that running out of memory shows when a loom plan is made (a
 * call without it makes it itself): the rows form's segment workspace
 * (long rows only) or the tiles form's (loomcu_tc_tiles_reserve).
 * _bytes: the device memory it takes at N = n. */
cudaError_t loomcu_tc_reserve(const loomcu_tc_plan *plan, const loomcu_tc_problem *p, cudaStream_t stream);
size_t loomcu_tc_state_bytes(const loomcu_tc_plan *plan, int64_t k, int64_t n);

/* The tiles form (tc_tiles.cu), which loomcu_tc_spmm calls for it.  Its
 * grid has a 64-column tile of Y per blockIdx.y, so N is at most: */
#define LOOMCU_TC_TILES_MAX_N (65535 * 64)
int loomcu_tc_tiles_supported(tc_value vt, const tc_config *cfg);
struct loomcu_tc_tiles *loomcu_tc_tiles_create(void);
void loomcu_tc_tiles_destroy(struct loomcu_tc_tiles *t);
cudaError_t loomcu_tc_tiles_spmm(const loomcu_tc_plan *plan, const loomcu_tc_problem *p, cudaStream_t stream,
                                 int path);
/* The tiles form's device state for p's K and N (its slice index and,
 * with several parts, their workspace and counters), made ahead of the
 * first call: a loom plan makes it when the plan is made, so that running
 * out of memory shows there.  A call without it makes it itself.  _bytes:
 * the device memory it takes for an m x k matrix at N = n. */
cudaError_t loomcu_tc_tiles_reserve(const loomcu_tc_plan *plan, const loomcu_tc_problem *p, cudaStream_t stream);
size_t loomcu_tc_tiles_state_bytes(int64_t m, int64_t k, int64_t n);

/* The kernels behind loomcu_tc_spmm, which picks one per call.  Rows form:
 * "gather" (X rows gathered from L2 for every group) and "resident"
 * (fp16/bf16 only: each block holds a strip of X of 64 or 32 columns in
 * shared memory; K up to loomcu_tc_resident_max_k; chosen where the gathers
 * would move more than the strip copies: rx_try in tc_spmm.cu).
 * Tiles form: "plain" and "pipelined" (tc_tiles.cu).  The kernels of one
 * form do the same arithmetic, so give the same bits; tests run each.  A
 * forced path that does not apply (another form's, or resident where K does
 * not fit) returns cudaErrorNotSupported. */
typedef enum loomcu_tc_path {
    LOOMCU_TC_PATH_AUTO = 0,
    LOOMCU_TC_PATH_GATHER = 1,
    LOOMCU_TC_PATH_RESIDENT = 2,
    /* the tiles form's two kernels (tc_tiles.cu): fragments read per slice
     * (4 blocks per multiprocessor), or a slice ahead (2) */
    LOOMCU_TC_PATH_TILES_PLAIN = 3,
    LOOMCU_TC_PATH_TILES_PIPELINED = 4
} loomcu_tc_path;
cudaError_t loomcu_tc_spmm_path(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                cudaStream_t stream, loomcu_tc_path path);

#ifdef __cplusplus
}
#endif

#endif
