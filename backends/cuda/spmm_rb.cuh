/*
 * spmm_rb.cuh - RB (row balance) kernels: a group of lanes owns whole rows.
 *
 * Both kernels walk output columns in tiles; the launcher's grid decides the
 * N-loop: RM gives each group all tiles of its row (gridDim.y = 1), CM gives
 * each block row of the grid one tile (gridDim.y = tiles).  Neither changes
 * the arithmetic.
 */
#ifndef LOOM_CUDA_SPMM_RB_CUH
#define LOOM_CUDA_SPMM_RB_CUH

#include "spmm_common.cuh"

namespace loomcu {

/* part = fma(a[j], X(col[j], c..c+V-1), part) for j = j0, j0 + STRIDE,
 * ... below e, in that order: SR's walk of a row (STRIDE 1) and a PR
 * lane's share (STRIDE = the lanes). */
template <typename T, int STRIDE, int V>
__device__ __forceinline__ void strided_sum(const operands<T> &p, int64_t j, int64_t e, int64_t c,
                                            T (&part)[V])
{
    typedef arith<T> A;
#pragma unroll 4
    for (; j < e; j += STRIDE) {
        const T a = __ldg(p.val + j);
        T xv[V];
        load_x<T, V>(p, __ldg(p.ci + j), c, xv);
#pragma unroll
        for (int i = 0; i < V; i++)
            part[i] = A::fma(a, xv[i], part[i]);
    }
}

/*
 * The SR sum of non-zeros [b, e) for this lane's V columns, in storage order:
 * acc = fma(a[j], x[col[j]], acc), from +0.
 *
 * CSC (coalesced sparse-row caching): the G lanes of the group load G
 * consecutive (column, value) pairs at once, coalesced, and pass them round
 * with shuffles (the register form of a shared-memory row cache); every lane
 * then walks them in order for its own columns.  Without CSC each lane reads
 * the pairs itself (same addresses across the group: broadcast loads).
 * Matches reference/order_rb_sr.h row_sum_rb_sr and the piece sum of
 * reference/order_eb_sr.h row_sum_eb_sr bit for bit.
 */
template <typename T, int G, int V>
__device__ __forceinline__ void sr_segment(const operands<T> &p, int64_t b, int64_t e, int64_t c,
                                           bool csc, T (&acc)[V])
{
    typedef arith<T> A;
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = T(0);
    if (G > 1 && csc) {
        const unsigned mask = group_mask<G>();
        const int lane = threadIdx.x & (G - 1);
        for (int64_t base = b; base < e; base += G) {
            const int64_t j = base + lane;
            int32_t col = 0;
            T a = T(0);
            if (j < e) {
                col = __ldg(p.ci + j);
                a = __ldg(p.val + j);
            }
            const int count = (e - base) < G ? (int)(e - base) : G;
            if (count == G) {
#pragma unroll
                for (int t = 0; t < G; t++) {
                    const int32_t ct = shfl<G>(mask, col, t);
                    const T at = shfl<G>(mask, a, t);
                    T xv[V];
                    load_x<T, V>(p, ct, c, xv);
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = A::fma(at, xv[i], acc[i]);
                }
            } else {
                for (int t = 0; t < count; t++) {
                    const int32_t ct = shfl<G>(mask, col, t);
                    const T at = shfl<G>(mask, a, t);
                    T xv[V];
                    load_x<T, V>(p, ct, c, xv);
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = A::fma(at, xv[i], acc[i]);
                }
            }
        }
    } else {
        strided_sum<T, 1, V>(p, b, e, c, acc);
    }
}

/* RB + SR: a group of G lanes owns a row; lane l holds columns
 * tile + l*V .. tile + l*V + V-1 of each tile of G*V columns. */
template <typename T, int G, int V>
__global__ void rb_sr_kernel(operands<T> p, bool csc)
{
    start_after_previous(false); /* spmm_common.cuh */
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (row >= p.m)
        return; /* whole groups leave together: G divides the block */
    const int lane = threadIdx.x & (G - 1);
    const int64_t b = __ldg(p.ro + row), e = __ldg(p.ro + row + 1);
    const int64_t tile_w = (int64_t)G * V;
    for (int64_t tile = blockIdx.y * tile_w; tile < p.n; tile += (int64_t)gridDim.y * tile_w) {
        const int64_t c = tile + (int64_t)lane * V;
        T acc[V];
        sr_segment<T, G, V>(p, b, e, c, csc, acc);
        finish_columns<T, V>(p, row, c, p.n, acc);
    }
}

/*
 * The wide SR walk (tiles of G*V >= 8 columns, X row-major): the G lanes split
 * a tile of G*V columns and walk the pairs in storage order together.  The
 * group loads its pairs G at a time, one per lane (coalesced), and loads the
 * next batch before walking this one; each lane then takes the batch's pairs
 * in order by shuffles, U pairs at a time: the U x-vector loads first (they
 * are independent), then the U fmas in order on the same accumulators.  Only
 * the loads run ahead; the sum is still acc = fma(a[j], x[col[j]], acc) from
 * +0 in storage order (reference/order_rb_sr.h row_sum_rb_sr).
 */
/* U: as many pairs ahead as 32 registers of x values hold (at most G);
 * the EB chunk walk's (eb_sr_wide_kernel).  The RB walk's is below. */
template <typename T, int G, int V> struct walk_unroll {
    static const int regs = V * (int)sizeof(T) / 4;
    static const int U = G < 32 / regs ? G : 32 / regs;
};

/*
 * The RB wide walk's shape: 4 blocks per SM (32 warps) with U = 8 pairs
 * ahead at one register of x per pair, 4 at two or more, so that it fits
 * 64 registers.  More warps with fewer loads each beat fewer warps with
 * more (U = 32 / regs at 2-3 blocks): on an H100, 20 real matrices, the
 * geometric mean of the walk's time went down 1.19x at N = 32 (G = 32,
 * V = 1), 1.13x at N = 64 (V = 2) and 1.16x at N = 128 (V = 4), up to
 * 1.9x on meshes and road graphs of many short rows; level at N = 16
 * (bench/results/cuda-2026-11-27-h100-occupancy/).  Speed only: the loads
 * run ahead, the fmas keep their order.
 */
template <typename T, int G, int V> struct rb_wide_shape {
    static const int regs = walk_unroll<T, G, V>::regs;
    static const int ahead = 8 / regs > 4 ? 8 / regs : 4;
    static const int U = G < ahead ? G : ahead;
    static const int blocks = 4; /* per SM, __launch_bounds__ */
};

/* The pair (col, a) of position j for this lane, or (0, 0) past end. */
template <typename T>
__device__ __forceinline__ void load_pair(const operands<T> &p, int64_t j, int64_t end,
                                          int32_t &col, T &a)
{
    col = 0;
    a = T(0);
    if (j < end) {
        col = __ldg(p.ci + j);
        a = __ldg(p.val + j);
    }
}

/* The wide walk of non-zeros [b, e) for this lane's V columns from c:
 * batches of G pairs, U x-vector loads before their U fmas; acc = the SR
 * sum from +0 in storage order.  Whole groups call it; X is row-major (the
 * launcher uses the wide walk only then). */
template <typename T, int G, int V, int U>
__device__ __forceinline__ void wide_sum(const operands<T> &p, int64_t b, int64_t e, int64_t c,
                                         T (&acc)[V])
{
    typedef arith<T> A;
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = group_mask<G>();
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = T(0);
    const char *xc = reinterpret_cast<const char *>(p.x + c);
    const bool full = c + V <= p.n;
    int32_t col;
    T a;
    load_pair(p, b + lane, e, col, a);
    for (int64_t base = b; base < e; base += G) {
        const int cnt = (e - base) < G ? (int)(e - base) : G;
        int32_t ncol;
        T na;
        load_pair(p, base + G + lane, e, ncol, na);
#pragma unroll
        for (int t0 = 0; t0 < G; t0 += U) {
            if (t0 >= cnt)
                break;
            T xv[U][V];
#pragma unroll
            for (int u = 0; u < U; u++)
                load_x_rm<T, V>(xc, shfl<G>(mask, col, t0 + u), p.xrsb, full, c, p.n, xv[u]);
#pragma unroll
            for (int u = 0; u < U; u++) {
                const T at = shfl<G>(mask, a, t0 + u);
                if (t0 + u < cnt) {
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = A::fma(at, xv[u][i], acc[i]);
                }
            }
        }
        col = ncol;
        a = na;
    }
}

/* The wide walk of one row, finished into Y. */
template <typename T, int G, int V, int U>
__device__ __forceinline__ void wide_row(const operands<T> &p, int64_t row, int64_t c)
{
    T acc[V];
    wide_sum<T, G, V, U>(p, __ldg(p.ro + row), __ldg(p.ro + row + 1), c, acc);
    finish_columns<T, V>(p, row, c, p.n, acc);
}

/* RB + SR, wide: a group of G lanes per row, one tile of G*V columns per
 * blockIdx.y step (the tiles of a row run in parallel). */
template <typename T, int G, int V>
__global__ void __launch_bounds__(256, (rb_wide_shape<T, G, V>::blocks))
rb_sr_wide_kernel(operands<T> p)
{
    start_after_previous(false); /* spmm_common.cuh */
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (row >= p.m)
        return; /* whole groups leave together: G divides the block */
    const int lane = threadIdx.x & (G - 1);
    const int64_t tile_w = (int64_t)G * V;
    for (int64_t tile = blockIdx.y * tile_w; tile < p.n; tile += (int64_t)gridDim.y * tile_w)
        wide_row<T, G, V, rb_wide_shape<T, G, V>::U>(p, row, tile + (int64_t)lane * V);
}

/*
 * RB + SR, wide, with the plan's row bins (cuda_plan.c): the rows longer
 * than a threshold, longest first, then the others in order.  A row's sum
 * is one chain of dependent fmas, so a long row's time is its number of
 * batches times the load latency; the long rows therefore walk with one
 * column per lane (V = 1) and 16 pairs' loads in flight, in tiles of GL
 * columns (more groups per row), and start first.  The short rows walk
 * with the group's G x V shape and 16 registers of x loads, so that both
 * fit 64 registers: 4 blocks per SM (half the warps of an H200 SM), which
 * measured 1.5x faster than 3 on skewed matrices.  (ptxas stays under 64
 * with a bound of 3 blocks; a bound of 4 makes it spill a few bytes.)  Blocks [0, long_blocks) take the long rows.
 * Every (row, tile) is wide_row: the arithmetic is rb_sr_wide_kernel's.
 */
template <typename T, int G, int V> struct binned_shape {
    static const int x_regs = (int)sizeof(T) / 4;           /* registers per x element */
    static const int GL = G * V < 32 ? G * V : 32;           /* lanes (= columns) per long tile */
    static const int UL = 16 / x_regs < GL ? 16 / x_regs : GL; /* pairs ahead, long rows */
    static const int US = 16 / (V * x_regs) < G ? 16 / (V * x_regs) : G; /* short rows */
};

/*
 * A short item (row or segment) and column tile of the wide walks' short
 * part.  Item-major (the default): a block's groups take consecutive
 * (item, tile) pairs, so a row's tiles run in one block and its
 * non-zeros stay in L1 for each tile.  Tile-major (LOOM_TECH_TILE_MAJOR):
 * block b takes tile b / row_blocks of the items in its slice of 256/G,
 * so the GPU walks every item's first tile before any second one (as
 * rb_sr_wide_kernel's 2-D grid does) and the blocks on a multiprocessor
 * share one tile's slab of X: faster where neighbouring rows share
 * columns (meshes, 1.07-1.18x at N = 256-512), slower on graphs (0.85-0.93;
 * bench/results/cuda-2026-11-27-h100-occupancy/, section 4).  Either way
 * the same sums.  Returns false for the groups past the last item.
 */
template <int G>
__device__ __forceinline__ bool short_item(int64_t block, int64_t n_items, int64_t tiles,
                                           bool tile_major, int64_t &item, int64_t &tile)
{
    if (tile_major) {
        const int64_t per_block = (int64_t)blockDim.x / G;
        const int64_t row_blocks = (n_items + per_block - 1) / per_block;
        int64_t slice;
        split_index(block, row_blocks, tile, slice);
        item = slice * per_block + threadIdx.x / G;
        return item < n_items;
    }
    const int64_t w = (block * blockDim.x + threadIdx.x) / G;
    if (w >= n_items * tiles)
        return false;
    split_index(w, tiles, item, tile);
    return true;
}

/* Blocks of the short items, in either order. */
static inline int64_t short_blocks(int64_t n_items, int G, int64_t tiles, bool tile_major,
                                   int block_threads)
{
    const int64_t per_block = block_threads / G;
    if (tile_major)
        return (n_items + per_block - 1) / per_block * tiles;
    return (n_items * tiles * G + block_threads - 1) / block_threads;
}

struct row_bins_view {
    const int64_t *__restrict__ rows; /* long rows, then short rows; NULL: the rows in order */
    int64_t n_long, n_short, long_blocks;
    bool tile_major; /* the short rows' blocks (short_item) */
};

template <typename T, int G, int V>
__global__ void __launch_bounds__(256, 3) rb_sr_binned_kernel(operands<T> p, row_bins_view bins)
{
    start_after_previous(false); /* spmm_common.cuh */
    typedef binned_shape<T, G, V> S;
    if ((int64_t)blockIdx.x < bins.long_blocks) {
        const int64_t tiles = (p.n + S::GL - 1) / S::GL;
        const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / S::GL;
        if (w >= bins.n_long * tiles)
            return; /* whole groups leave together */
        int64_t item, tile;
        split_index(w, tiles, item, tile);
        const int64_t row = __ldg(bins.rows + item);
        wide_row<T, S::GL, 1, S::UL>(p, row, tile * S::GL + (threadIdx.x & (S::GL - 1)));
    } else {
        const int64_t tile_w = (int64_t)G * V;
        const int64_t tiles = (p.n + tile_w - 1) / tile_w;
        int64_t item, tile;
        if (!short_item<G>(blockIdx.x - bins.long_blocks, bins.n_short, tiles, bins.tile_major,
                           item, tile))
            return;
        const int64_t row = bins.rows ? __ldg(bins.rows + bins.n_long + item) : item;
        wide_row<T, G, V, S::US>(p, row, tile * tile_w + (int64_t)(threadIdx.x & (G - 1)) * V);
    }
}

/*
 * The SR sum of non-zeros [b, e) at N = 1 by one thread: fma(a[j],
 * x[col[j]], acc) from +0 in storage order, 4 pairs at a time - their
 * column indices and values loaded together, then their x gathers, then
 * the fmas in order (past e: nothing loaded, nothing added) - so a short
 * row waits on memory twice per 4 non-zeros, not once or twice per
 * non-zero.  X(k, 0) is x[k * xrs].
 */
template <typename T>
__device__ __forceinline__ T thread_sum(const operands<T> &p, int64_t b, int64_t e)
{
    typedef arith<T> A;
    T acc = T(0);
    for (int64_t j = b; j < e; j += 4) {
        int32_t col[4];
        T a[4], xv[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            col[u] = j + u < e ? __ldg(p.ci + j + u) : 0;
            a[u] = j + u < e ? __ldg(p.val + j + u) : T(0);
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
            xv[u] = j + u < e ? __ldg(p.x + (int64_t)col[u] * p.xrs) : T(0);
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (j + u < e)
                acc = A::fma(a[u], xv[u], acc);
    }
    return acc;
}

/*
 * The SR sum of non-zeros [b, e) at N = 1 by a group of G lanes: lane t
 * loads pair t of each batch and its x element (G gathers in flight, the
 * next batch's issued before this one is summed), then every lane runs the
 * batch's fmas in order on the values passed round by shuffles.  acc is
 * the same in every lane: fma(a[j], x[col[j]], acc) from +0 in storage
 * order (reference/order_rb_sr.h row_sum_rb_sr).  Any layout: X(k, 0) is
 * x[k * xrs].
 */
template <typename T, int G>
__device__ __forceinline__ T narrow_sum(const operands<T> &p, int64_t b, int64_t e)
{
    typedef arith<T> A;
    if constexpr (G == 1)
        return thread_sum(p, b, e); /* one lane: no batch to pass round */
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = group_mask<G>();
    T acc = T(0);
    int32_t col;
    T a;
    load_pair(p, b + lane, e, col, a);
    T xv = b + lane < e ? __ldg(p.x + (int64_t)col * p.xrs) : T(0);
    for (int64_t base = b; base < e; base += G) {
        const int cnt = (e - base) < G ? (int)(e - base) : G;
        int32_t ncol;
        T na;
        load_pair(p, base + G + lane, e, ncol, na);
        const T nx = base + G + lane < e ? __ldg(p.x + (int64_t)ncol * p.xrs) : T(0);
#pragma unroll
        for (int t = 0; t < G; t++) {
            const T at = shfl<G>(mask, a, t), xt = shfl<G>(mask, xv, t);
            if (t < cnt)
                acc = A::fma(at, xt, acc);
        }
        a = na;
        xv = nx;
    }
    return acc;
}

/* Lanes per group of the N = 1 walks: a long row (or piece) gets a warp,
 * a short one a thread (measured: 8 lanes per short row lost up to 25% on
 * meshes and road networks of 2-4 non-zeros per row). */
static const int narrow_long_lanes = 32, narrow_short_lanes = 1;

/* RB + SR at N = 1 with the plan's row bins: blocks [0, long_blocks) give
 * each long row a warp, the rest give each short row a thread. */
template <typename T>
__global__ void __launch_bounds__(256) rb_sr_n1_binned_kernel(operands<T> p, row_bins_view bins)
{
    start_after_previous(false); /* spmm_common.cuh */
    const bool is_long = (int64_t)blockIdx.x < bins.long_blocks;
    const int G = is_long ? narrow_long_lanes : narrow_short_lanes;
    const int64_t block = is_long ? blockIdx.x : blockIdx.x - bins.long_blocks;
    const int64_t w = (block * blockDim.x + threadIdx.x) / G;
    if (w >= (is_long ? bins.n_long : bins.n_short))
        return; /* whole groups leave together */
    const int64_t i = is_long ? w : bins.n_long + w;
    const int64_t row = bins.rows ? __ldg(bins.rows + i) : i;
    const int64_t b = __ldg(p.ro + row), e = __ldg(p.ro + row + 1);
    const T acc = is_long ? narrow_sum<T, narrow_long_lanes>(p, b, e)
                          : narrow_sum<T, narrow_short_lanes>(p, b, e);
    if ((threadIdx.x & (G - 1)) == 0)
        finish(p.alpha, acc, p.beta, p.y + row * p.yrs);
}

/*
 * Lane `lane`'s share of RB + PR's row [b, e) for V columns from c: pairs
 * j = b + lane, b + lane + W, ... summed in that order with fma from +0
 * (strided_sum).  The deep form keeps LOOMCU_PR_DEEP pairs in flight: the
 * next batch's indices and values load while this batch's rows of X
 * arrive; only the loads run ahead, so its sums are the plain form's.
 */
template <typename T, int W, int V>
__device__ __forceinline__ void pr_share_deep(const operands<T> &p, int64_t j, int64_t e,
                                              int64_t c, T (&part)[V])
{
    typedef arith<T> A;
    const int D = LOOMCU_PR_DEEP;
    int32_t col[D];
    T a[D];
#pragma unroll
    for (int u = 0; u < D; u++) {
        const int64_t q = j + (int64_t)u * W;
        col[u] = q < e ? __ldg(p.ci + q) : 0;
        a[u] = q < e ? __ldg(p.val + q) : T(0);
    }
    for (; j < e; j += (int64_t)D * W) {
        T xv[D][V];
#pragma unroll
        for (int u = 0; u < D; u++) {
            if (j + (int64_t)u * W < e) {
                load_x<T, V>(p, col[u], c, xv[u]);
            } else {
#pragma unroll
                for (int i = 0; i < V; i++)
                    xv[u][i] = T(0);
            }
        }
        const int64_t next = j + (int64_t)D * W;
#pragma unroll
        for (int u = 0; u < D; u++) {
            const int64_t q = next + (int64_t)u * W;
            const int32_t nc = q < e ? __ldg(p.ci + q) : 0;
            const T na = q < e ? __ldg(p.val + q) : T(0);
            if (j + (int64_t)u * W < e) {
#pragma unroll
                for (int i = 0; i < V; i++)
                    part[i] = A::fma(a[u], xv[u][i], part[i]);
            }
            col[u] = nc;
            a[u] = na;
        }
    }
}

/*
 * RB + PR: a group of W lanes owns a row.  The row's t-th non-zero goes to
 * lane t mod W, each lane sums its share with fma from +0, then the halving
 * tree s = W/2 .. 1 (shuffle-down): part[l] = part[l] + part[l+s].
 * Matches reference/order_rb_pr.h row_sum_rb_pr bit for bit.  Each lane
 * handles V columns per tile (VDL at small N: one float2/float4 per product).
 * DEEP: rows of LOOMCU_PR_DEEP x W non-zeros or more take pr_share_deep
 * (the plan's choice, cuda_plan.c wants_pr_deep: a few long rows setting
 * the time; on many rows its registers cost the short rows occupancy).
 */
template <typename T, int W, int V, bool DEEP>
__global__ void rb_pr_kernel(operands<T> p)
{
    start_after_previous(false); /* spmm_common.cuh */
    typedef arith<T> A;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / W;
    if (row >= p.m)
        return;
    const int lane = threadIdx.x & (W - 1);
    const unsigned mask = group_mask<W>();
    const int64_t b = __ldg(p.ro + row), e = __ldg(p.ro + row + 1);
    const bool deep = DEEP && e - b >= (int64_t)LOOMCU_PR_DEEP * W; /* the same in every lane */
    for (int64_t c = (int64_t)blockIdx.y * V; c < p.n; c += (int64_t)gridDim.y * V) {
        T part[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            part[i] = T(0);
        if constexpr (DEEP) {
            if (deep)
                pr_share_deep<T, W, V>(p, b + lane, e, c, part);
            else
                strided_sum<T, W, V>(p, b + lane, e, c, part);
        } else {
            strided_sum<T, W, V>(p, b + lane, e, c, part);
        }
#pragma unroll
        for (int s = W / 2; s >= 1; s /= 2)
#pragma unroll
            for (int i = 0; i < V; i++)
                part[i] = A::add(part[i], shfl_down<W>(mask, part[i], s));
        if (lane == 0)
            finish_columns<T, V>(p, row, c, p.n, part);
    }
}

/*
 * RB + PR with W = 64, 128 or 256 lanes: a row spread over the W/32 warps
 * of one block (256/W rows a block), for few long rows whose one warp
 * each would leave the GPU idle.  Each lane sums its share as in
 * rb_pr_kernel; the halving tree's levels s >= 32 are the ones that cross
 * warps: every lane leaves its sums in shared memory and the row's first
 * warp folds, for each of its lanes l, the W/32 values part[l + 32q] in
 * the tree's order (q with q + h, h = W/64 .. 1), then shuffles down as
 * rb_pr_kernel does.  Matches reference/order_rb_pr.h bit for bit.  No
 * deep form: its loads run ahead of the same sums, and W lanes already
 * keep many loads in flight.
 */
template <typename T, int W, int V>
__global__ void __launch_bounds__(256) rb_pr_warps_kernel(operands<T> p)
{
    start_after_previous(false); /* spmm_common.cuh */
    static_assert(W > 32 && W <= 256 && 256 % W == 0, "lanes across warps of a 256-thread block");
    typedef arith<T> A;
    const int Q = W / 32; /* warps a row */
    __shared__ T sh[V][256];
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / W;
    const bool live = row < p.m; /* the same in a row's W lanes */
    const int lane = threadIdx.x & (W - 1);
    const int first = threadIdx.x - lane; /* the row's lane 0 in the block */
    int64_t b = 0, e = 0;
    if (live) {
        b = __ldg(p.ro + row);
        e = __ldg(p.ro + row + 1);
    }
    /* The column loop runs the same trips in every thread: all of them
     * reach both barriers. */
    for (int64_t c = (int64_t)blockIdx.y * V; c < p.n; c += (int64_t)gridDim.y * V) {
        T part[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            part[i] = T(0);
        if (live)
            strided_sum<T, W, V>(p, b + lane, e, c, part);
#pragma unroll
        for (int i = 0; i < V; i++)
            sh[i][threadIdx.x] = part[i];
        __syncthreads();
        if (live && lane < 32) {
            T v[Q][V];
#pragma unroll
            for (int q = 0; q < Q; q++)
#pragma unroll
                for (int i = 0; i < V; i++)
                    v[q][i] = sh[i][first + lane + 32 * q];
#pragma unroll
            for (int h = Q / 2; h >= 1; h /= 2)
#pragma unroll
                for (int q = 0; q < h; q++)
#pragma unroll
                    for (int i = 0; i < V; i++)
                        v[q][i] = A::add(v[q][i], v[q + h][i]);
#pragma unroll
            for (int s = 16; s >= 1; s /= 2)
#pragma unroll
                for (int i = 0; i < V; i++)
                    v[0][i] = A::add(v[0][i], shfl_down<32>(0xffffffffu, v[0][i], s));
            if (lane == 0)
                finish_columns<T, V>(p, row, c, p.n, v[0]);
        }
        __syncthreads(); /* sh is free for the next column tile */
    }
}

/* Rows of an empty matrix (nnz = 0): every result is +0, finished. */
template <typename T>
__global__ void zero_rows_kernel(operands<T> p)
{
    start_after_previous(false); /* spmm_common.cuh */
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= p.m)
        return;
    for (int64_t c = blockIdx.y; c < p.n; c += gridDim.y)
        finish(p.alpha, T(0), p.beta, p.y + row * p.yrs + c * p.ycs);
}

} // namespace loomcu

#endif
