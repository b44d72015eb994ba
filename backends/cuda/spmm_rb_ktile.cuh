/*
 * spmm_rb_ktile.cuh - RB + SR at wide N on dense-ish rows, X staged in
 * shared memory a K-tile at a time.
 *
 * The wide walk (rb_sr_wide_kernel) reads each non-zero's slice of an X
 * row from L2: on a DLMC layer of 1000 rows at 20% density and N = 512
 * that is 840 MB of gathers, most of the walk's time.  Here a block of 32
 * warps owns 32 rows and one tile of TW = 32 V columns (16 bytes a lane);
 * it walks K in tiles of KT rows of X, each copied once into shared memory
 * (cp.async, two stages) and read there by all 32 rows.  A warp keeps its
 * row's pairs 32 at a time in registers (lane t holds pair t) and takes
 * the run that falls in the tile, found by a ballot (columns are sorted,
 * so it is a prefix of what is left), passing each pair round by shuffles.
 *
 * The sum is rb_sr_wide_kernel's: one fma chain per output from +0, the
 * K-tiles in increasing order and, in each, the row's non-zeros in storage
 * order, so storage order throughout (reference/order_rb_sr.h).
 */
#ifndef LOOM_CUDA_SPMM_RB_KTILE_CUH
#define LOOM_CUDA_SPMM_RB_KTILE_CUH

#include <type_traits>

#include "spmm_rb.cuh"

namespace loomcu {

/* The shape: 32 rows a block, KT rows of X a stage, U pairs' X loads ahead
 * of their fmas.  Measured on an H100 against KT = 64 and U = 4, and 16
 * rows a block (bench/results/cuda-2026-11-27-h100-ktile/). */
template <typename T> struct ktile_shape {
    static const int V = 16 / (int)sizeof(T);
    static const int TW = LOOMCU_KTILE_ROW_BYTES / (int)sizeof(T); /* = 32 V */
    static const int KT = LOOMCU_KTILE_ROWS;
    static const int U = sizeof(T) == 4 ? 8 : 4; /* 8 spilled at f64 */
    static const int rows = 32;
    static const int smem = 2 * KT * TW * (int)sizeof(T); /* 128 KiB */
};

/* X rows [k0, k0 + KT) x columns [c0, c0 + TW) into dst, 16 bytes per
 * cp.async (X row-major, rows 16-byte aligned: the launcher checks); rows
 * past K and chunks past N are not copied (no column index reaches the
 * former, no output is stored from the latter). */
template <typename T>
__device__ __forceinline__ void ktile_stage(T *dst, const operands<T> &p, int64_t k, int64_t k0,
                                            int64_t c0)
{
    typedef ktile_shape<T> S;
    const int per_row = S::TW / S::V; /* 16-byte chunks */
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(dst);
    for (int i = threadIdx.x; i < S::KT * per_row; i += blockDim.x) {
        const int r = i / per_row, q = i % per_row;
        const int64_t kr = k0 + r, c = c0 + (int64_t)q * S::V;
        if (kr < k && c < p.n) {
            const T *src = p.x + kr * p.xrs + c;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + (uint32_t)i * 16u),
                         "l"(src));
#else
            reinterpret_cast<int4 *>(dst)[i] = *reinterpret_cast<const int4 *>(src);
#endif
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void ktile_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/* This lane's pair of the window at base: (col, a), or (INT32_MAX, 0)
 * past the row's end, so that no tile takes it (the plan keeps K below
 * INT32_MAX - KT, so no tile reaches INT32_MAX). */
template <typename T>
__device__ __forceinline__ void ktile_window(const operands<T> &p, int64_t base, int64_t e,
                                             int32_t &col, T &a)
{
    const int64_t j = base + (threadIdx.x & 31);
    col = j < e ? __ldg(p.ci + j) : INT32_MAX;
    a = j < e ? __ldg(p.val + j) : T(0);
}

/* V elements of X from shared memory (the address space is inferred from
 * the array: ld.shared), unpacked by component. */
template <typename T, int V>
__device__ __forceinline__ void ktile_x(const T *q, T (&o)[V])
{
    typedef typename std::conditional<sizeof(T) == 4, float4, double2>::type vec;
    const vec v = *reinterpret_cast<const vec *>(q);
    const T *f = reinterpret_cast<const T *>(&v);
#pragma unroll
    for (int i = 0; i < V; i++)
        o[i] = f[i];
}

/* The block (blockIdx.x: 32 rows, blockIdx.y: a tile of TW columns); k:
 * A's columns (X's rows). */
template <typename T>
__global__ void __launch_bounds__(1024, 1) rb_sr_ktile_kernel(operands<T> p, int64_t k)
{
    start_after_previous(false); /* spmm_common.cuh */
    typedef ktile_shape<T> S;
    typedef arith<T> A;
    extern __shared__ __align__(16) unsigned char ktile_smem[];
    T *xs = reinterpret_cast<T *>(ktile_smem);
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * S::rows + (threadIdx.x >> 5);
    const int64_t c0 = (int64_t)blockIdx.y * S::TW;
    const bool live = row < p.m;
    const int64_t e = live ? __ldg(p.ro + row + 1) : 0;
    int64_t wbase = live ? __ldg(p.ro + row) : 0;
    int32_t wc;
    T wa;
    ktile_window(p, wbase, e, wc, wa);
    int used = 0; /* pairs of the window already added */
    T acc[S::V];
#pragma unroll
    for (int i = 0; i < S::V; i++)
        acc[i] = T(0);
    const int tiles = (int)((k + S::KT - 1) / S::KT);
    ktile_stage(xs, p, k, 0, c0);
    for (int s = 0; s < tiles; s++) {
        if (s + 1 < tiles) {
            ktile_stage(xs + ((s + 1) & 1) * S::KT * S::TW, p, k, (int64_t)(s + 1) * S::KT, c0);
            ktile_wait<1>();
        } else {
            ktile_wait<0>();
        }
        __syncthreads();
        /* X(c, c0 + lane V ..) of this stage at xt + c * TW */
        const T *xt = xs + (s & 1) * S::KT * S::TW + lane * S::V - (int64_t)s * S::KT * S::TW;
        const int64_t kend = (int64_t)(s + 1) * S::KT;
        for (;;) {
            const int cnt = __popc(__ballot_sync(~0u, wc < kend)); /* sorted: a prefix */
            int t = used;
            for (; t + S::U <= cnt; t += S::U) {
                T xv[S::U][S::V], av[S::U];
#pragma unroll
                for (int u = 0; u < S::U; u++) {
                    const int32_t c = __shfl_sync(~0u, wc, t + u);
                    av[u] = __shfl_sync(~0u, wa, t + u);
                    ktile_x<T, S::V>(xt + (int64_t)c * S::TW, xv[u]);
                }
#pragma unroll
                for (int u = 0; u < S::U; u++)
#pragma unroll
                    for (int i = 0; i < S::V; i++)
                        acc[i] = A::fma(av[u], xv[u][i], acc[i]);
            }
            for (; t < cnt; t++) {
                const int32_t c = __shfl_sync(~0u, wc, t);
                const T a = __shfl_sync(~0u, wa, t);
                T xv[S::V];
                ktile_x<T, S::V>(xt + (int64_t)c * S::TW, xv);
#pragma unroll
                for (int i = 0; i < S::V; i++)
                    acc[i] = A::fma(a, xv[i], acc[i]);
            }
            if (cnt < 32) {
                used = cnt;
                break;
            }
            wbase += 32; /* the window is spent: the next 32 pairs */
            ktile_window(p, wbase, e, wc, wa);
            used = 0;
        }
        __syncthreads(); /* before the next stage's copy overwrites this one */
    }
    if (live)
        finish_columns<T, S::V>(p, row, c0 + (int64_t)lane * S::V, p.n, acc);
}

} // namespace loomcu

#endif
