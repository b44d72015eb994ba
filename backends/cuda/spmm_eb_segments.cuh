/*
 * spmm_eb_segments.cuh - EB + SR at wide N, walked as segments.
 *
 * EB + SR cuts every row at the chunk boundaries (multiples of C): each
 * piece is an fma chain from +0 in storage order, and a row of several
 * pieces is their sum, left to right (reference/order_eb_sr.h,
 * row_sum_eb_sr).  The plan lists those pieces ("segments", cuda_plan.c):
 * one per row that lies in one chunk (and one, empty, per empty row), one
 * per piece of a row that crosses chunks.  Each segment is then walked like
 * a row of the row-binned RB kernel (rb_sr_binned_kernel): the long ones
 * (longest first) one column per lane with deep load pipelines, the others
 * with the group's G x V shape.  A whole row's result is finished into Y;
 * a piece goes to its carry slot, and eb_segments_fixup_kernel adds each
 * crossing row's slots in order and finishes it.
 *
 * Unlike the chunk-per-group kernels (spmm_eb.cuh), no group walks a chunk
 * across rows, so the work items are independent and the kernel is as lean
 * as the RB one; a long row's chain is at most C pairs.  No atomics.
 */
#ifndef LOOM_CUDA_SPMM_EB_SEGMENTS_CUH
#define LOOM_CUDA_SPMM_EB_SEGMENTS_CUH

#include "spmm_rb.cuh"

namespace loomcu {

template <typename T> struct segments_view {
    const int64_t *__restrict__ row;   /* per segment: its row */
    const int64_t *__restrict__ begin; /* per segment: its first non-zero */
    const int64_t *__restrict__ slot;  /* per segment: carry slot, or -1 (finished here) */
    int64_t n_long, n_short, long_blocks, chunk;
    T *carry;                          /* slots x slab_w */
    int64_t slab_c0, slab_w;           /* this launch's columns */
};

/* The end of the segment of `row` that begins at b: the row's end or the
 * chunk's, whichever comes first. */
template <typename T>
__device__ __forceinline__ int64_t segment_end(const operands<T> &p, const segments_view<T> &s,
                                               int64_t row, int64_t b)
{
    int64_t q, r;
    split_index(b, s.chunk, q, r);
    const int64_t chunk_end = b - r + s.chunk, row_end = __ldg(p.ro + row + 1);
    return row_end < chunk_end ? row_end : chunk_end;
}

/* One segment for this lane's V columns from c (inside the slab). */
template <typename T, int G, int V, int U>
__device__ __forceinline__ void segment_piece(const operands<T> &p, const segments_view<T> &s,
                                              int64_t i, int64_t c)
{
    const int64_t row = __ldg(s.row + i), b = __ldg(s.begin + i), slot = __ldg(s.slot + i);
    const int64_t e = segment_end(p, s, row, b);
    const int64_t slab_end = s.slab_c0 + s.slab_w < p.n ? s.slab_c0 + s.slab_w : p.n;
    T acc[V];
    wide_sum<T, G, V, U>(p, b, e, c, acc);
    if (slot < 0) {
        finish_columns<T, V>(p, row, c, slab_end, acc);
    } else {
        T *dst = s.carry + slot * s.slab_w - s.slab_c0;
#pragma unroll
        for (int k = 0; k < V; k++)
            if (c + k < slab_end)
                dst[c + k] = acc[k];
    }
}

/* Blocks [0, long_blocks) take the long segments, the rest the short ones;
 * a work item is (segment, tile of the slab's columns).  Bound to 4 blocks
 * per SM: ptxas then fits 64 registers with no spill (65 without the
 * bound gave 3 blocks; ncu, soc-Slashdot N = 64). */
template <typename T, int G, int V>
__global__ void __launch_bounds__(256, 4) eb_sr_segments_kernel(operands<T> p, segments_view<T> s)
{
    typedef binned_shape<T, G, V> S;
    if ((int64_t)blockIdx.x < s.long_blocks) {
        const int64_t tiles = (s.slab_w + S::GL - 1) / S::GL;
        const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / S::GL;
        if (w >= s.n_long * tiles)
            return; /* whole groups leave together */
        int64_t seg, tile;
        split_index(w, tiles, seg, tile);
        segment_piece<T, S::GL, 1, S::UL>(p, s, seg,
                                          s.slab_c0 + tile * S::GL + (threadIdx.x & (S::GL - 1)));
    } else {
        const int64_t tile_w = (int64_t)G * V;
        const int64_t tiles = (s.slab_w + tile_w - 1) / tile_w;
        const int64_t w = ((int64_t)(blockIdx.x - s.long_blocks) * blockDim.x + threadIdx.x) / G;
        if (w >= s.n_short * tiles)
            return;
        int64_t seg, tile;
        split_index(w, tiles, seg, tile);
        segment_piece<T, G, V, S::US>(p, s, s.n_long + seg,
                                      s.slab_c0 + tile * tile_w + (int64_t)(threadIdx.x & (G - 1)) * V);
    }
}

/* EB + SR at N = 1 as segments: the N = 1 walk (narrow_sum, spmm_rb.cuh),
 * a warp per long segment, a thread per short one. */
template <typename T>
__global__ void __launch_bounds__(256) eb_sr_n1_segments_kernel(operands<T> p, segments_view<T> s)
{
    const bool is_long = (int64_t)blockIdx.x < s.long_blocks;
    const int G = is_long ? narrow_long_lanes : narrow_short_lanes;
    const int64_t block = is_long ? blockIdx.x : blockIdx.x - s.long_blocks;
    const int64_t w = (block * blockDim.x + threadIdx.x) / G;
    if (w >= (is_long ? s.n_long : s.n_short))
        return; /* whole groups leave together */
    const int64_t i = is_long ? w : s.n_long + w;
    const int64_t row = __ldg(s.row + i), b = __ldg(s.begin + i), slot = __ldg(s.slot + i);
    const int64_t e = segment_end(p, s, row, b);
    const T acc = is_long ? narrow_sum<T, narrow_long_lanes>(p, b, e)
                          : narrow_sum<T, narrow_short_lanes>(p, b, e);
    if ((threadIdx.x & (G - 1)) != 0)
        return;
    if (slot < 0)
        finish(p.alpha, acc, p.beta, p.y + row * p.yrs);
    else
        s.carry[slot * s.slab_w] = acc;
}

/* The crossing rows: one thread per (row, column of the slab) adds the
 * row's carry slots [slot0[k], slot0[k+1]) left to right and finishes. */
template <typename T>
__global__ void eb_segments_fixup_kernel(operands<T> p, segments_view<T> s,
                                         const int64_t *__restrict__ fix_row,
                                         const int64_t *__restrict__ slot0, int64_t n_fix)
{
    typedef arith<T> A;
    const int64_t width = s.slab_c0 + s.slab_w < p.n ? s.slab_w : p.n - s.slab_c0;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t k = t / width, j = t % width;
    if (k >= n_fix)
        return;
    const int64_t first = __ldg(slot0 + k), end = __ldg(slot0 + k + 1);
    T r = s.carry[first * s.slab_w + j];
    for (int64_t q = first + 1; q < end; q++)
        r = A::add(r, s.carry[q * s.slab_w + j]);
    const int64_t row = __ldg(fix_row + k);
    finish(p.alpha, r, p.beta, p.y + row * p.yrs + (s.slab_c0 + j) * p.ycs);
}

} // namespace loomcu

#endif
