/*
 * spmm_eb_segments.cuh - EB + SR at N <= 4 and at wide N, walked as segments.
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
 * crossing row's slots in order and finishes it.  At N = 1 to 4 the
 * narrow kernel (eb_sr_narrow_segments_kernel) walks them instead: a group
 * of 8 lanes per long segment, four batches deep, a thread per short one;
 * there the rows that are one short piece (or empty) are not listed but
 * swept, a thread per row (narrow_swept_row).
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
    int64_t short_blocks;              /* narrow walk: blocks of the listed short segments */
    int64_t sweep_rows, long_threshold; /* narrow walk: the swept rows (loomcu_eb_segments) */
    bool cache_pairs;                  /* narrow walk: short items' pairs through L1 (loomcu_eb_segments) */
    T *carry;                          /* slots x slab_w */
    int64_t slab_c0, slab_w;           /* this launch's columns */
    bool tile_major;                   /* the short segments' blocks (short_item) */
};

/* The columns this launch's slab has: slab_w, or fewer in the last slab.
 * (Carry slots stay slab_w apart.) */
template <typename T>
__device__ __forceinline__ int64_t slab_width(const operands<T> &p, const segments_view<T> &s)
{
    return s.slab_c0 + s.slab_w < p.n ? s.slab_w : p.n - s.slab_c0;
}

/* The end of the segment that begins at b in a row ending at row_end: the
 * row's end or the chunk's, whichever comes first. */
template <typename T>
__device__ __forceinline__ int64_t segment_end_at(const segments_view<T> &s, int64_t b, int64_t row_end)
{
    int64_t q, r;
    split_index(b, s.chunk, q, r);
    const int64_t chunk_end = b - r + s.chunk;
    return row_end < chunk_end ? row_end : chunk_end;
}

/* The same for `row`, its end read through the read-only cache. */
template <typename T>
__device__ __forceinline__ int64_t segment_end(const operands<T> &p, const segments_view<T> &s,
                                               int64_t row, int64_t b)
{
    return segment_end_at(s, b, (int64_t)__ldg(p.ro + row + 1));
}

/* One segment for this lane's V columns from c (inside the slab). */
template <typename T, int G, int V, int U>
__device__ __forceinline__ void segment_piece(const operands<T> &p, const segments_view<T> &s,
                                              int64_t i, int64_t c)
{
    const int64_t row = __ldg(s.row + i), b = __ldg(s.begin + i), slot = __ldg(s.slot + i);
    const int64_t e = segment_end(p, s, row, b);
    const int64_t slab_end = s.slab_c0 + slab_width(p, s);
    T acc[V];
    wide_sum<T, G, V, U>(p, b, e, c, acc);
    if (slot < 0) {
        finish_columns<T, V>(p, row, c, slab_end, acc);
    } else {
        /* one vector store where the slots are V apart (each slot and the
         * lane's c - slab_c0, a multiple of V, then aligned) */
        T *dst = s.carry + slot * s.slab_w - s.slab_c0;
        if (V > 1 && s.slab_w % V == 0 && c + V <= slab_end) {
            vector_store<T, V>::put(dst + c, acc);
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                if (c + k < slab_end)
                    dst[c + k] = acc[k];
        }
    }
}

/* Blocks [0, long_blocks) take the long segments, the rest the short ones;
 * a work item is (segment, tile of the slab's columns), the tiles counted
 * over the columns the slab has (the last slab may be narrower), as
 * launch_segments counts the blocks.  Bound to 4 blocks
 * per SM: ptxas then fits 64 registers with no spill (65 without the
 * bound gave 3 blocks; ncu, soc-Slashdot N = 64). */
template <typename T, int G, int V>
__global__ void __launch_bounds__(256, 4) eb_sr_segments_kernel(operands<T> p, segments_view<T> s)
{
    start_after_previous(true); /* eb_segments_fixup_kernel follows (spmm_common.cuh) */
    typedef binned_shape<T, G, V> S;
    const int64_t width = slab_width(p, s);
    if ((int64_t)blockIdx.x < s.long_blocks) {
        const int64_t tiles = (width + S::GL - 1) / S::GL;
        const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / S::GL;
        if (w >= s.n_long * tiles)
            return; /* whole groups leave together */
        int64_t seg, tile;
        split_index(w, tiles, seg, tile);
        segment_piece<T, S::GL, 1, S::UL>(p, s, seg,
                                          s.slab_c0 + tile * S::GL + (threadIdx.x & (S::GL - 1)));
    } else {
        const int64_t tile_w = (int64_t)G * V;
        const int64_t tiles = (width + tile_w - 1) / tile_w;
        int64_t seg, tile;
        if (!short_item<G>(blockIdx.x - s.long_blocks, s.n_short, tiles, s.tile_major, seg, tile))
            return;
        segment_piece<T, G, V, S::US>(p, s, s.n_long + seg,
                                      s.slab_c0 + tile * tile_w + (int64_t)(threadIdx.x & (G - 1)) * V);
    }
}

/*
 * Cache hints of the narrow walks.  A, the segment lists and the row
 * offsets are read once: streaming loads (evict first) so that they do not
 * push X out of L1 and L2 (short items' pairs of a small A excepted,
 * narrow_thread_sum); X is gathered about nnz / K times an element,
 * under an L2 evict-last policy.  (R-MAT of 1e8 non-zeros: X is 34 MB, A
 * with its lists about 1 GB.)  Speed only: the values loaded are the same.
 */
__device__ __forceinline__ uint64_t x_policy()
{
    uint64_t pol = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#endif
    return pol;
}

template <typename T, int V> struct x_load;
template <> struct x_load<float, 1> {
    static __device__ __forceinline__ void get(const float *q, uint64_t pol, float (&o)[1])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(o[0]) : "l"(q), "l"(pol));
#else
        (void)pol;
        o[0] = __ldg(q);
#endif
    }
};
template <> struct x_load<double, 1> {
    static __device__ __forceinline__ void get(const double *q, uint64_t pol, double (&o)[1])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("ld.global.nc.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(o[0]) : "l"(q), "l"(pol));
#else
        (void)pol;
        o[0] = __ldg(q);
#endif
    }
};
template <> struct x_load<float, 2> {
    static __device__ __forceinline__ void get(const float *q, uint64_t pol, float (&o)[2])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;"
            : "=f"(o[0]), "=f"(o[1]) : "l"(q), "l"(pol));
#else
        (void)pol;
        vector_load<float, 2>::get(q, o);
#endif
    }
};
template <> struct x_load<double, 2> {
    static __device__ __forceinline__ void get(const double *q, uint64_t pol, double (&o)[2])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("ld.global.nc.L2::cache_hint.v2.f64 {%0, %1}, [%2], %3;"
            : "=d"(o[0]), "=d"(o[1]) : "l"(q), "l"(pol));
#else
        (void)pol;
        vector_load<double, 2>::get(q, o);
#endif
    }
};

template <> struct x_load<float, 4> {
    static __device__ __forceinline__ void get(const float *q, uint64_t pol, float (&o)[4])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
            : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3]) : "l"(q), "l"(pol));
#else
        (void)pol;
        vector_load<float, 4>::get(q, o);
#endif
    }
};
template <> struct x_load<double, 4> { /* 32 bytes: two 16-byte loads */
    static __device__ __forceinline__ void get(const double *q, uint64_t pol, double (&o)[4])
    {
        double lo[2], hi[2];
        x_load<double, 2>::get(q, pol, lo);
        x_load<double, 2>::get(q + 2, pol, hi);
        o[0] = lo[0], o[1] = lo[1], o[2] = hi[0], o[3] = hi[1];
    }
};

/* A's pair at j, streamed; (0, 0) at or past end. */
template <typename T>
__device__ __forceinline__ void stream_pair(const operands<T> &p, int64_t j, int64_t end,
                                            int32_t &col, T &a)
{
    col = 0;
    a = T(0);
    if (j < end) {
        col = __ldcs(p.ci + j);
        a = __ldcs(p.val + j);
    }
}

__device__ __forceinline__ int64_t stream_i64(const int64_t *q)
{
    return (int64_t)__ldcs(reinterpret_cast<const long long *>(q));
}

/*
 * X(k, 0 .. V-1) at N = V (1, 2 or 4; N = 3 walks with V = 4): one
 * vector load where X is row-major with V-aligned rows (vec, N = V), else
 * element by element, columns at or past N read as +0; nothing read, +0
 * returned, where the pair lies past the segment's end (live false).
 */
template <typename T, int V>
__device__ __forceinline__ void narrow_x(const operands<T> &p, int32_t k, bool live, bool vec,
                                         uint64_t pol, T (&out)[V])
{
    const T *q = p.x + (int64_t)k * p.xrs;
    if (!live) {
#pragma unroll
        for (int i = 0; i < V; i++)
            out[i] = T(0);
    } else if (V > 1 && vec) {
        x_load<T, V>::get(q, pol, out);
    } else {
#pragma unroll
        for (int i = 0; i < V; i++) {
            T one[1] = {T(0)};
            if (V < 4 || i < p.n) /* V = 4 also walks N = 3 */
                x_load<T, 1>::get(q + i * p.xcs, pol, one);
            out[i] = one[0];
        }
    }
}

/*
 * The SR sum of non-zeros [b, e) for N = V columns by one thread, D pairs
 * at a time: their indices and values, then their x rows, then the fmas in
 * order (thread_sum of spmm_rb.cuh for V columns).  The pairs are streamed
 * or, where A is small (cache_pairs, cuda_plan.c pairs_fit_l2), read
 * through L1: a warp's 32 rows are read a pair per row at a time, so each
 * sector serves several loads, which a streamed line may not live to see.
 */
template <typename T, int V>
__device__ __forceinline__ void narrow_thread_sum(const operands<T> &p, int64_t b, int64_t e,
                                                  bool vec, bool cache_pairs, uint64_t pol,
                                                  T (&acc)[V])
{
    typedef arith<T> A;
    const int D = 4;
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = T(0);
    for (int64_t j = b; j < e; j += D) {
        int32_t col[D];
        T a[D], xv[D][V];
#pragma unroll
        for (int u = 0; u < D; u++) {
            col[u] = 0;
            a[u] = T(0);
            if (j + u < e) {
                col[u] = cache_pairs ? __ldg(p.ci + j + u) : __ldcs(p.ci + j + u);
                a[u] = cache_pairs ? __ldg(p.val + j + u) : __ldcs(p.val + j + u);
            }
        }
#pragma unroll
        for (int u = 0; u < D; u++)
            narrow_x<T, V>(p, col[u], j + u < e, vec, pol, xv[u]);
#pragma unroll
        for (int u = 0; u < D; u++)
            if (j + u < e)
#pragma unroll
                for (int i = 0; i < V; i++)
                    acc[i] = A::fma(a[u], xv[u][i], acc[i]);
    }
}

/*
 * The SR sum of non-zeros [b, e) for N = V columns by a group of G lanes,
 * D batches of G pairs deep.  Lane t loads pair t of each batch and its x
 * row; the pairs of the super-batch after next and the x rows of the next
 * are issued before this super-batch is summed, so the x gathers never wait
 * on the index loads issued just before them.  Every lane then runs each
 * batch's fmas in order on the values passed round (batch_fmas), so acc is
 * the same in every lane: fma(a[j], X(col[j], i), acc) from +0 in storage
 * order (reference/order_eb_sr.h row_sum_eb_sr, one piece).
 *
 * Why G = 8 and not a warp (narrow_sum<32>, the RB walk): a lane's shuffles
 * per non-zero are G/32 of a warp instruction, so a warp per segment spent
 * two shuffles and an fma of the whole warp on every non-zero, four times
 * this walk's; D = 4 keeps the warp's 32 pairs in flight.
 */
static const int deep_lanes = 8, deep_batches = 4;
/* At N = 1 on large inputs a group of 16 lanes two batches deep: the same
 * 32 pairs in flight a warp, but fewer distinct rows' gathers at once,
 * which at 1e7+ non-zeros (the walk L2-bound on X's gathers) measured
 * 1.05x (R-MAT 1e7) and 1.10x (1e8) faster, and in f32 slower below
 * (../../bench/results/cuda-2026-11-26-n1-deep/NOTES.md, call 6).  In
 * f64 it is used at every size: there it needs 48 registers (five blocks
 * a multiprocessor) where the 8-lane, 4-batch walk needs 76 (three).  EB
 * + SR at N = 1 in f64 then ran 1.02-1.04x faster over 38 matrices and
 * R-MAT 1e6 (net of the runs' drift); against cuSPARSE R-MAT 1e6 went
 * from 0.94 to 1.01, and the other inputs, where RB designs are mostly
 * faster, did not move (H200,
 * ../../bench/results/cuda-2026-11-29-h200-f64-wide/). */
static const int wide_lanes = 16, wide_batches = 2; /* where loomcu_narrow_wide */

/* One (value, x) pair of the exchange at N = 1. */
template <typename T> struct __align__(2 * sizeof(T)) xpair {
    T a, x;
};

/* The exchange's room, a warp's: D batches of 32 pairs (16-byte aligned:
 * f32 reads two pairs a load). */
template <typename T, int D> struct __align__(16) xpair_room {
    xpair<T> pair[D * 32];
};

/*
 * The fmas of one super-batch (D batches of G pairs from base; lane t of
 * the group holds pair t of each batch in ca, cx).  At N = 1 the pairs go
 * through the warp's room in shared memory: each lane writes its D pairs
 * and reads the group's back, one 16-byte load a pair in f64 (shuffles take
 * four, two per double) and two pairs a load in f32 (shuffles take four).
 * Every shuffle and shared-memory load is a request of the L1's data pipe,
 * which the x gathers use too: Nsight Compute on R-MAT 1e7 (H200,
 * bench/results/cuda-2026-11-29-h200-n1-room/) had that pipe at 80% with
 * the f32 shuffles, 64-70% with the room; f32 at N = 1 1.07x in geometric
 * mean over seven inputs, but 0.97x on R-MAT 1e8: with the room the driver
 * gives the walk a 64 KB shared-memory carveout where the shuffles had 32
 * KB (neither a carveout preference nor a room of one batch moved it), so
 * the L1 that caches X's gathers is 32 KB smaller, and at 1e8 the walk is
 * bound by the L2.  On an H100, against shuffles
 * (bench/results/cuda-2026-11-27-h100-sweep/, call 8): f64 1.09x over six
 * graphs and meshes and R-MAT 1e6-1e8.  N = 2 to 4 keep the shuffles (V x
 * values a pair).
 */
template <typename T, int G, int D, int V>
__device__ __forceinline__ void batch_fmas(unsigned mask, int64_t base, int64_t e, const T (&ca)[D],
                                           const T (&cx)[D][V], xpair_room<T, D> *room, T (&acc)[V])
{
    typedef arith<T> A;
    constexpr bool exchange = LOOMCU_PAIRS_THROUGH_ROOM(V);
    const int wl = threadIdx.x & 31, g0 = wl & ~(G - 1);
    if constexpr (exchange) {
#pragma unroll
        for (int d = 0; d < D; d++)
            room->pair[d * 32 + wl] = xpair<T>{ca[d], cx[d][0]};
        __syncwarp(mask);
    } else {
        (void)room, (void)g0;
    }
#pragma unroll
    for (int d = 0; d < D; d++) {
        const int64_t left = e - (base + d * G);
        if (left <= 0)
            break; /* the same in every lane of the group */
        const int cnt = left < G ? (int)left : G;
        if constexpr (exchange && sizeof(T) == 4) { /* two pairs a 16-byte load */
            static_assert(G % 2 == 0, "pairs are read two at a time");
#pragma unroll
            for (int t = 0; t < G; t += 2) {
                const float4 q = *reinterpret_cast<const float4 *>(&room->pair[d * 32 + g0 + t]);
                if (t < cnt)
                    acc[0] = A::fma(q.x, q.y, acc[0]);
                if (t + 1 < cnt)
                    acc[0] = A::fma(q.z, q.w, acc[0]);
            }
        } else {
#pragma unroll
            for (int t = 0; t < G; t++) {
                T at, xt[V];
                if constexpr (exchange) {
                    const xpair<T> q = room->pair[d * 32 + g0 + t];
                    at = q.a;
                    xt[0] = q.x;
                } else {
                    at = shfl<G>(mask, ca[d], t);
#pragma unroll
                    for (int i = 0; i < V; i++)
                        xt[i] = shfl<G>(mask, cx[d][i], t);
                }
                if (t < cnt)
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = A::fma(at, xt[i], acc[i]);
            }
        }
    }
    if constexpr (exchange)
        __syncwarp(mask); /* read before the next super-batch overwrites it */
}

template <typename T, int G, int D, int V>
__device__ __forceinline__ void deep_sum(const operands<T> &p, int64_t b, int64_t e, bool vec,
                                         uint64_t pol, xpair_room<T, D> *room, T (&acc)[V])
{
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = group_mask<G>();
    const int64_t S = (int64_t)G * D;
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = T(0);
    T ca[D], cx[D][V]; /* this super-batch: values and x rows */
    int32_t nc[D];     /* the next: pairs loaded, x rows not yet */
    T na[D];
#pragma unroll
    for (int d = 0; d < D; d++) {
        int32_t col;
        stream_pair(p, b + d * G + lane, e, col, ca[d]);
        narrow_x<T, V>(p, col, b + d * G + lane < e, vec, pol, cx[d]);
    }
#pragma unroll
    for (int d = 0; d < D; d++)
        stream_pair(p, b + S + d * G + lane, e, nc[d], na[d]);
    for (int64_t base = b; base < e; base += S) {
        T nx[D][V];
#pragma unroll
        for (int d = 0; d < D; d++)
            narrow_x<T, V>(p, nc[d], base + S + d * G + lane < e, vec, pol, nx[d]);
        int32_t nnc[D];
        T nna[D];
#pragma unroll
        for (int d = 0; d < D; d++)
            stream_pair(p, base + 2 * S + d * G + lane, e, nnc[d], nna[d]);
        batch_fmas<T, G, D, V>(mask, base, e, ca, cx, room, acc);
#pragma unroll
        for (int d = 0; d < D; d++) {
            ca[d] = na[d];
            nc[d] = nnc[d];
            na[d] = nna[d];
#pragma unroll
            for (int i = 0; i < V; i++)
                cx[d][i] = nx[d][i];
        }
    }
}

/* Row r of the sweep (a thread's): if it is one piece of at most
 * long_threshold non-zeros, or empty, its sum and its Y; else nothing (the
 * row's segments are listed).  The test is the plan's (cuda_plan.c
 * swept_row). */
template <typename T, int V>
__device__ __forceinline__ void narrow_swept_row(const operands<T> &p, const segments_view<T> &s,
                                                 int64_t r, bool vec, uint64_t pol)
{
    if (r >= s.sweep_rows)
        return;
    const int64_t b = stream_i64(p.ro + r), e = stream_i64(p.ro + r + 1);
    if (e - b > s.long_threshold || (e > b && segment_end_at(s, b, e) < e))
        return;
    T acc[V];
    narrow_thread_sum<T, V>(p, b, e, vec, s.cache_pairs, pol, acc);
    finish_columns<T, V>(p, r, 0, p.n, acc);
}

/* EB + SR at N = V (1, 2 or 4; N = 3 with V = 4, its fourth column +0 and
 * never stored) as segments: deep_sum, a group of GL lanes GD batches deep
 * per long segment, narrow_thread_sum, a thread per short one and per
 * swept row (the blocks after both lists').  vec: X is row-major with
 * V-aligned rows and N = V. */
template <typename T, int V, int GL = deep_lanes, int GD = deep_batches>
__global__ void __launch_bounds__(256) eb_sr_narrow_segments_kernel(operands<T> p, segments_view<T> s, bool vec)
{
    start_after_previous(true); /* eb_segments_fixup_kernel follows (spmm_common.cuh) */
    const int64_t sweep0 = s.long_blocks + s.short_blocks;
    if ((int64_t)blockIdx.x >= sweep0) {
        narrow_swept_row<T, V>(p, s, ((int64_t)blockIdx.x - sweep0) * blockDim.x + threadIdx.x, vec,
                               x_policy());
        return;
    }
    const bool is_long = (int64_t)blockIdx.x < s.long_blocks;
    const int G = is_long ? GL : 1;
    const int64_t block = is_long ? blockIdx.x : blockIdx.x - s.long_blocks;
    const int64_t w = (block * blockDim.x + threadIdx.x) / G;
    if (w >= (is_long ? s.n_long : s.n_short))
        return; /* whole groups leave together */
    const int64_t i = is_long ? w : s.n_long + w;
    const int64_t row = stream_i64(s.row + i), b = stream_i64(s.begin + i);
    const int64_t slot = stream_i64(s.slot + i);
    const int64_t e = segment_end_at(s, b, stream_i64(p.ro + row + 1));
    const uint64_t pol = x_policy();
    T acc[V];
    /* the exchange's rooms (N = 1), a warp's each */
    constexpr bool rooms_used = LOOMCU_PAIRS_THROUGH_ROOM(V);
    __shared__ xpair_room<T, GD> rooms[rooms_used ? 256 / 32 : 1];
    if (is_long)
        deep_sum<T, GL, GD, V>(p, b, e, vec, pol, rooms + (rooms_used ? threadIdx.x >> 5 : 0), acc);
    else
        narrow_thread_sum<T, V>(p, b, e, vec, s.cache_pairs, pol, acc);
    if ((threadIdx.x & (G - 1)) != 0)
        return;
    if (slot < 0)
        finish_columns<T, V>(p, row, 0, p.n, acc);
    else
#pragma unroll
        for (int k = 0; k < V; k++)
            if (k < p.n)
                s.carry[slot * s.slab_w + k] = acc[k];
}

/* The crossing rows: one thread per (row, V columns of the slab) adds the
 * row's carry slots [slot0[k], slot0[k+1]) left to right, column by column,
 * and finishes.  V > 1 only where the slab's width and the slots' stride
 * are multiples of V (launch_segments), so every vector is whole and
 * aligned; the sums are the same for any V. */
template <typename T, int V>
__global__ void eb_segments_fixup_kernel(operands<T> p, segments_view<T> s,
                                         const int64_t *__restrict__ fix_row,
                                         const int64_t *__restrict__ slot0, int64_t n_fix)
{
    const int64_t width = slab_width(p, s), vectors = width / V;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t k = t / vectors, j = t % vectors * V;
    if (k >= n_fix)
        return;
    const int64_t first = __ldg(slot0 + k), end = __ldg(slot0 + k + 1);
    wait_for_previous_grid(); /* the walk wrote the carry slots */
    T r[V];
    vector_load<T, V, false>::get(s.carry + first * s.slab_w + j, r);
    add_pieces_columns<T, V>(r, s.carry + j, s.slab_w, first + 1, end);
    finish_columns<T, V>(p, __ldg(fix_row + k), s.slab_c0 + j, s.slab_c0 + width, r);
}

} // namespace loomcu

#endif
