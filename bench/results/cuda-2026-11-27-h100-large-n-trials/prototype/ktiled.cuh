/* prototype: RB + SR with X staged in shared memory a K-tile at a time. */
#pragma once
#include "spmm_common.cuh"

namespace loomcu {

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, int src_bytes)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/* Rows of the block: 8 warps x RW rows; columns: 32 lanes x V.  Stage X rows
 * [kt, kt + KT) x columns [c0, c0 + NT) into buf. */
template <typename T, int V, int KT>
__device__ __forceinline__ void stage_x(const operands<T> &p, int64_t k, int64_t kt, int64_t c0, T *buf)
{
    constexpr int NT = 32 * V;
    constexpr int EPC = 16 / (int)sizeof(T);      /* elements per 16-byte chunk */
    constexpr int CPR = NT / EPC;                  /* chunks per tile row */
    constexpr int CHUNKS = KT * CPR;
#pragma unroll
    for (int q = threadIdx.x; q < CHUNKS; q += 256) {
        const int kr = q / CPR, cc = q % CPR;
        const int64_t krow = kt + kr, col = c0 + (int64_t)cc * EPC;
        int bytes = 0;
        const T *src = p.x;
        if (krow < k && col < p.n) {
            const int64_t left = p.n - col;
            bytes = (int)((left < EPC ? left : EPC) * (int64_t)sizeof(T));
            src = p.x + krow * p.xrs + col;
        }
        cp_async16(buf + kr * NT + cc * EPC, src, bytes);
    }
}

template <typename T, int RW, int V, int KT, int MINB>
__global__ void __launch_bounds__(256, MINB) rb_sr_ktiled_kernel(operands<T> p, int64_t k)
{
    typedef arith<T> A;
    constexpr int NT = 32 * V;
    constexpr int U = 4;
    __shared__ __align__(16) T tile[2][KT * NT];
    __shared__ int32_t kbounds[2][8];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t c0 = (int64_t)blockIdx.y * NT;
    const int64_t rbase = ((int64_t)blockIdx.x * 8 + warp) * RW;

    int64_t bb[RW], end[RW];
    int32_t bcol[RW];
    T bval[RW];
    int off[RW];
    T acc[RW][V];
    int32_t kmin = 0x7fffffff, kmax = -1;
#pragma unroll
    for (int r = 0; r < RW; r++) {
        const int64_t row = rbase + r;
        int64_t b = 0, e = 0;
        if (row < p.m) {
            b = __ldg(p.ro + row);
            e = __ldg(p.ro + row + 1);
        }
        bb[r] = b;
        end[r] = e;
        off[r] = 0;
        bcol[r] = 0x7fffffff;
        bval[r] = T(0);
        if (b + lane < e) {
            bcol[r] = __ldg(p.ci + b + lane);
            bval[r] = __ldg(p.val + b + lane);
        }
        if (b < e) {
            const int32_t first = __shfl_sync(~0u, bcol[r], 0);
            const int32_t last = __ldg(p.ci + e - 1);
            kmin = first < kmin ? first : kmin;
            kmax = last > kmax ? last : kmax;
        }
#pragma unroll
        for (int i = 0; i < V; i++)
            acc[r][i] = T(0);
    }
    if (lane == 0) {
        kbounds[0][warp] = kmin;
        kbounds[1][warp] = kmax;
    }
    __syncthreads();
    kmin = 0x7fffffff;
    kmax = -1;
#pragma unroll
    for (int w = 0; w < 8; w++) {
        kmin = kbounds[0][w] < kmin ? kbounds[0][w] : kmin;
        kmax = kbounds[1][w] > kmax ? kbounds[1][w] : kmax;
    }
    const int64_t kt0 = kmax < 0 ? 0 : ((int64_t)kmin / KT) * KT;
    const int64_t steps = kmax < 0 ? 0 : ((int64_t)kmax - kt0) / KT + 1;

    if (steps > 0) {
        stage_x<T, V, KT>(p, k, kt0, c0, tile[0]);
        cp_async_commit();
    }
    for (int64_t s = 0; s < steps; s++) {
        const int64_t kt = kt0 + s * KT;
        if (s + 1 < steps) {
            stage_x<T, V, KT>(p, k, kt + KT, c0, tile[(s + 1) & 1]);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const T *buf = tile[s & 1] + lane * V;
        const int32_t kend = (int32_t)(kt + KT);
#pragma unroll
        for (int r = 0; r < RW; r++) {
            for (;;) {
                const int P = __popc(__ballot_sync(~0u, bcol[r] < kend));
                for (int t0 = off[r]; t0 < P; t0 += U) {
                    T xv[U][V], at[U];
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        const int t = t0 + u < P ? t0 + u : t0;
                        const int32_t c = __shfl_sync(~0u, bcol[r], t);
                        at[u] = __shfl_sync(~0u, bval[r], t);
                        const T *q = buf + (int)(c - kt) * NT;
                        if constexpr (V == 4 && sizeof(T) == 4) {
                            const float4 v = *reinterpret_cast<const float4 *>(q);
                            xv[u][0] = v.x, xv[u][1] = v.y, xv[u][2] = v.z, xv[u][3] = v.w;
                        } else if constexpr (V == 2 && sizeof(T) == 8) {
                            const double2 v = *reinterpret_cast<const double2 *>(q);
                            xv[u][0] = v.x, xv[u][1] = v.y;
                        } else if constexpr (V == 2 && sizeof(T) == 4) {
                            const float2 v = *reinterpret_cast<const float2 *>(q);
                            xv[u][0] = v.x, xv[u][1] = v.y;
                        } else {
#pragma unroll
                            for (int i = 0; i < V; i++)
                                xv[u][i] = q[i];
                        }
                    }
#pragma unroll
                    for (int u = 0; u < U; u++)
                        if (t0 + u < P) {
#pragma unroll
                            for (int i = 0; i < V; i++)
                                acc[r][i] = A::fma(at[u], xv[u][i], acc[r][i]);
                        }
                }
                off[r] = P;
                if (P < 32 || bb[r] + 32 >= end[r])
                    break;
                bb[r] += 32;
                off[r] = 0;
                bcol[r] = 0x7fffffff;
                bval[r] = T(0);
                if (bb[r] + lane < end[r]) {
                    bcol[r] = __ldg(p.ci + bb[r] + lane);
                    bval[r] = __ldg(p.val + bb[r] + lane);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RW; r++)
        if (rbase + r < p.m)
            finish_columns<T, V>(p, rbase + r, c0 + lane * V, p.n, acc[r]);
}

} // namespace loomcu
