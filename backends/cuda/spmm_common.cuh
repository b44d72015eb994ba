/*
 * spmm_common.cuh - what every CUDA SpMM kernel shares: the rounding-exact
 * arithmetic, the final alpha/beta combination, dense loads (with the
 * vector-load technique, VDL) and sub-warp shuffles.
 *
 * The contract (DESIGN.md section 2): every operation here is written with
 * an explicit rounding intrinsic (__fmaf_rn, __fmul_rn, __fadd_rn and the
 * double forms) so that neither nvcc's contraction nor any flag can change
 * the bits.  The build also passes --fmad=false -ftz=false -prec-div=true
 * -prec-sqrt=true.
 */
#ifndef LOOM_CUDA_SPMM_COMMON_CUH
#define LOOM_CUDA_SPMM_COMMON_CUH

#include <type_traits>
#include <stdint.h>

#include "cuda_kernels.h"
#include "pdl.cuh"

namespace loomcu {

template <typename T> struct arith;

template <> struct arith<float> {
    static __device__ __forceinline__ float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
};

template <> struct arith<double> {
    static __device__ __forceinline__ double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
};

/* Every kernel of a call is launched by programmatic dependent launch
 * (pdl.cuh, launch_after_previous): it may be placed on the GPU while the
 * kernel before it on the stream ends - the previous call's last kernel,
 * or this call's walk - and it waits for that kernel first thing
 * (start_after_previous), before it reads A, X or Y or writes anything.  A
 * walk followed by its fix-up (start_after_previous(true)) lets the fix-up
 * be placed as soon as its own last blocks are, beside them; the other
 * kernels let the next one be placed only as they end; the fix-ups wait
 * only once they know they have work (their own comments).  What is saved is
 * a launch gap a call; no operation moves.  Measured as chains of 20 calls
 * (CUDA graphs, H200, f32, 37 real matrices and R-MAT 1e6-1e7, N = 1-512,
 * bench/results/cuda-2026-11-30-h200-pdl): 1.06x over plain launches in
 * geometric mean, 1.11x at N <= 4, up to 1.25x on the smallest, no case
 * below 0.996 (f64, 90 cases: 1.04x, 1.085x at N <= 4).  Letting every
 * kernel's successor be placed as soon as its blocks have started was
 * 0.98x of that (the tensor cores' early placement also cost on some
 * shapes: tc_spmm.cu). */

/* One aligned vector load of V elements, unpacked by component (taking the
 * vector's address would put it in local memory).  RO: through the
 * read-only path (__ldg), as X and A are read; else a plain load, as the
 * fix-ups read the carries their walk wrote (speed only: the values are
 * the same). */
template <bool RO, typename U> __device__ __forceinline__ U load_via(const U *q)
{
    if constexpr (RO)
        return __ldg(q);
    else
        return *q;
}

template <typename T, int V, bool RO = true> struct vector_load;
template <typename T, bool RO> struct vector_load<T, 1, RO> {
    static __device__ __forceinline__ void get(const T *q, T (&o)[1]) { o[0] = load_via<RO>(q); }
};
template <bool RO> struct vector_load<float, 2, RO> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[2])
    {
        const float2 v = load_via<RO>(reinterpret_cast<const float2 *>(q));
        o[0] = v.x, o[1] = v.y;
    }
};
template <bool RO> struct vector_load<float, 4, RO> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[4])
    {
        const float4 v = load_via<RO>(reinterpret_cast<const float4 *>(q));
        o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
    }
};
template <bool RO> struct vector_load<double, 2, RO> {
    static __device__ __forceinline__ void get(const double *q, double (&o)[2])
    {
        const double2 v = load_via<RO>(reinterpret_cast<const double2 *>(q));
        o[0] = v.x, o[1] = v.y;
    }
};
/* 32 bytes a lane: two 16-byte loads (q 16-byte aligned) */
template <bool RO> struct vector_load<float, 8, RO> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[8])
    {
        const float4 v = load_via<RO>(reinterpret_cast<const float4 *>(q));
        const float4 w = load_via<RO>(reinterpret_cast<const float4 *>(q) + 1);
        o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w;
        o[4] = w.x, o[5] = w.y, o[6] = w.z, o[7] = w.w;
    }
};
template <bool RO> struct vector_load<double, 4, RO> {
    static __device__ __forceinline__ void get(const double *q, double (&o)[4])
    {
        const double2 v = load_via<RO>(reinterpret_cast<const double2 *>(q));
        const double2 w = load_via<RO>(reinterpret_cast<const double2 *>(q) + 1);
        o[0] = v.x, o[1] = v.y, o[2] = w.x, o[3] = w.y;
    }
};

/*
 * acc + piece(k0) + piece(k0 + 1) + ... + piece(k1 - 1), left to right, for
 * V columns side by side, where piece(k) = the V elements at base + k *
 * stride: the fix-ups' sum of a crossing row's pieces.  Each column's
 * additions are one dependent chain in that order; the loads are not, so
 * they are issued a batch ahead of their additions and the chain waits on
 * memory once a batch, not once a piece.
 */
template <typename T, int V>
__device__ __forceinline__ void add_pieces_columns(T (&acc)[V], const T *base, int64_t stride,
                                                   int64_t k0, int64_t k1)
{
    typedef arith<T> A;
    const int batch = V == 1 ? 16 : 8;
    for (int64_t k = k0; k < k1; k += batch) {
        T piece[batch][V];
#pragma unroll
        for (int b = 0; b < batch; b++) {
            if (k + b < k1) {
                vector_load<T, V, false>::get(base + (k + b) * stride, piece[b]);
            } else {
#pragma unroll
                for (int i = 0; i < V; i++)
                    piece[b][i] = T(0);
            }
        }
#pragma unroll
        for (int b = 0; b < batch; b++)
            if (k + b < k1) {
#pragma unroll
                for (int i = 0; i < V; i++)
                    acc[i] = A::add(acc[i], piece[b][i]);
            }
    }
}

/* The same for one column. */
template <typename T>
__device__ __forceinline__ T add_pieces(T acc, const T *base, int64_t stride, int64_t k0, int64_t k1)
{
    T a[1] = {acc};
    add_pieces_columns<T, 1>(a, base, stride, k0, k1);
    return a[0];
}

/* The one final combination, as reference/spmm_designs.h finish():
 * beta == 0: y = alpha*acc (y_old never read); else y = fma(alpha, acc, beta*y_old). */
template <typename T>
__device__ __forceinline__ void finish(T alpha, T acc, T beta, T *y)
{
    typedef arith<T> A;
    *y = (beta == T(0)) ? A::mul(alpha, acc) : A::fma(alpha, acc, A::mul(beta, *y));
}

/* The operands of one launch, in the element type. */
template <typename T> struct operands {
    int64_t m, n, nnz;
    const int64_t *__restrict__ ro;
    const int32_t *__restrict__ ci;
    const T *__restrict__ val;
    const T *__restrict__ x;
    int64_t xrs, xcs; /* distance between X(k, c) and X(k+1, c), X(k, c+1) */
    T *__restrict__ y;
    int64_t yrs, ycs;
    T alpha, beta;
    int yvw; /* widest V (1, 2, 4) for which Y rows are V-aligned, row-major */
    uint32_t xrsb; /* xrs in bytes (row-major X; the wide walks' addressing) */
};

/* EB state of a launch: the plan's chunk map and carry buffers, and the
 * slab of columns [slab_c0, slab_c0 + slab_w) this launch covers. */
template <typename T> struct eb_state {
    int64_t chunk, chunks;
    const int64_t *__restrict__ first_row; /* chunks + 1 */
    T *head;          /* chunks x slab_w: piece of the row begun in an earlier chunk */
    T *tail;          /* chunks x slab_w: piece of the row that goes on past the chunk */
    int64_t *tail_row; /* chunks: the row of tail[], or -1 */
    int64_t slab_c0, slab_w;
};

/* One aligned vector store of V elements (the counterpart of vector_load);
 * through __stcg, since nvcc split a plain float4 assignment into scalar
 * stores here. */
template <typename T, int V> struct vector_store;
template <typename T> struct vector_store<T, 1> {
    static __device__ __forceinline__ void put(T *q, const T (&v)[1]) { *q = v[0]; }
};
template <> struct vector_store<float, 2> {
    static __device__ __forceinline__ void put(float *q, const float (&v)[2])
    {
        __stcg(reinterpret_cast<float2 *>(q), make_float2(v[0], v[1]));
    }
};
template <> struct vector_store<float, 4> {
    static __device__ __forceinline__ void put(float *q, const float (&v)[4])
    {
        __stcg(reinterpret_cast<float4 *>(q), make_float4(v[0], v[1], v[2], v[3]));
    }
};
template <> struct vector_store<double, 2> {
    static __device__ __forceinline__ void put(double *q, const double (&v)[2])
    {
        __stcg(reinterpret_cast<double2 *>(q), make_double2(v[0], v[1]));
    }
};
template <> struct vector_store<float, 8> { /* two 16-byte stores */
    static __device__ __forceinline__ void put(float *q, const float (&v)[8])
    {
        __stcg(reinterpret_cast<float4 *>(q), make_float4(v[0], v[1], v[2], v[3]));
        __stcg(reinterpret_cast<float4 *>(q) + 1, make_float4(v[4], v[5], v[6], v[7]));
    }
};
template <> struct vector_store<double, 4> { /* two 16-byte stores */
    static __device__ __forceinline__ void put(double *q, const double (&v)[4])
    {
        __stcg(reinterpret_cast<double2 *>(q), make_double2(v[0], v[1]));
        __stcg(reinterpret_cast<double2 *>(q) + 1, make_double2(v[2], v[3]));
    }
};

/* X(k, c .. c+V-1).  V > 1 only when X is row-major with aligned rows (the
 * launcher checks), so a whole vector is one load: the VDL technique.
 * Columns at or past n read as zero (their results are never written). */
template <typename T, int V>
__device__ __forceinline__ void load_x(const operands<T> &p, int64_t k, int64_t c, T (&out)[V])
{
    const T *row = p.x + k * p.xrs;
    if (V > 1 && c + V <= p.n) {
        vector_load<T, V>::get(row + c, out);
    } else {
#pragma unroll
        for (int i = 0; i < V; i++)
            out[i] = (c + i < p.n) ? __ldg(row + (c + i) * p.xcs) : T(0);
    }
}

/* X(k, c .. c+V-1) for row-major X, as the wide walks load it: xc is
 * X(0, c) as bytes and xrsb the row stride in bytes (below 4 GiB: the
 * backend checks), so a row's address is one 32 x 32 -> 64-bit
 * multiply-add.  full: all V columns exist (c + V <= n); otherwise the
 * columns at or past n read as zero. */
template <typename T, int V>
__device__ __forceinline__ void load_x_rm(const char *xc, int32_t k, uint32_t xrsb, bool full,
                                          int64_t c, int64_t n, T (&out)[V])
{
    const T *q = reinterpret_cast<const T *>(xc + (uint64_t)(uint32_t)k * xrsb);
    if (full) {
        vector_load<T, V>::get(q, out);
    } else {
#pragma unroll
        for (int i = 0; i < V; i++)
            out[i] = (c + i < n) ? __ldg(q + i) : T(0);
    }
}

/* q = w / d, r = w % d (w >= 0, d >= 1) for the kernels' index splits:
 * none when d is 1, 32-bit when both fit; a 64-bit division is a long
 * software routine on the GPU, and these run once per lane and work item. */
__device__ __forceinline__ void split_index(int64_t w, int64_t d, int64_t &q, int64_t &r)
{
    if (d == 1) {
        q = w;
        r = 0;
    } else if ((uint64_t)w <= 0xffffffffu && (uint64_t)d <= 0xffffffffu) {
        const uint32_t q32 = (uint32_t)w / (uint32_t)d;
        q = q32;
        r = (int64_t)((uint32_t)w - q32 * (uint32_t)d);
    } else {
        q = w / d;
        r = w - q * d;
    }
}

/* Mask of the G-lane group holding this lane (G a power of two <= 32). */
template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if constexpr (G >= 32) {
        return 0xffffffffu;
    } else {
        const unsigned lane = threadIdx.x & 31u;
        return ((1u << G) - 1u) << (lane & ~(unsigned)(G - 1));
    }
}

/* Shuffles of 64-bit integers and of T within a G-lane group. */
template <int G, typename U>
__device__ __forceinline__ U shfl(unsigned mask, U v, int src)
{
    return __shfl_sync(mask, v, src, G);
}

template <int G, typename U>
__device__ __forceinline__ U shfl_down(unsigned mask, U v, int delta)
{
    return __shfl_down_sync(mask, v, delta, G);
}

template <int G, typename U>
__device__ __forceinline__ U shfl_up(unsigned mask, U v, int delta)
{
    return __shfl_up_sync(mask, v, delta, G);
}

/* Write finish(acc[i]) to Y(i_row, c + i) for the columns that exist:
 * one vector store where Y's rows allow (c is a multiple of V), else
 * element by element (four scalar stores of a lane V apart fill an eighth
 * of each sector they touch).  The same finish() either way. */
template <typename T, int V>
__device__ __forceinline__ void finish_columns(const operands<T> &p, int64_t row, int64_t c,
                                               int64_t c_end, const T (&acc)[V])
{
    /* vectors of 32 bytes are stored as two of 16, so need only 16-byte rows */
    constexpr int VA = (int)sizeof(T) * V > 16 ? 16 / (int)sizeof(T) : V;
    if (V > 1 && VA <= p.yvw && c + V <= c_end) {
        typedef arith<T> A;
        T *q = p.y + row * p.yrs + c;
        T out[V];
        if (p.beta == T(0)) {
#pragma unroll
            for (int i = 0; i < V; i++)
                out[i] = A::mul(p.alpha, acc[i]);
        } else {
#pragma unroll
            for (int i = 0; i < V; i++)
                out[i] = A::fma(p.alpha, acc[i], A::mul(p.beta, q[i]));
        }
        vector_store<T, V>::put(q, out);
        return;
    }
#pragma unroll
    for (int i = 0; i < V; i++)
        if (c + i < c_end)
            finish(p.alpha, acc[i], p.beta, p.y + row * p.yrs + (c + i) * p.ycs);
}

} // namespace loomcu

#endif
