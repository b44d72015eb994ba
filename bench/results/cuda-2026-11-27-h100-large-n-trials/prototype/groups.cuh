/* prototype: RB + SR by row groups that share their X loads.  A group of R
 * consecutive rows walks the union of its rows' columns in increasing
 * order; each union entry loads X(col, tile) once and adds it into every
 * row of the group that has the column (mask bit), so each row still sums
 * its non-zeros in storage order (sorted, no duplicate columns). */
#pragma once
#include "spmm_common.cuh"
namespace loomcu {

template <typename T, int R> struct group_vals;
template <> struct group_vals<float, 8> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[8])
    {
        const float4 a = __ldg(reinterpret_cast<const float4 *>(q)), b = __ldg(reinterpret_cast<const float4 *>(q) + 1);
        o[0] = a.x, o[1] = a.y, o[2] = a.z, o[3] = a.w, o[4] = b.x, o[5] = b.y, o[6] = b.z, o[7] = b.w;
    }
};
template <> struct group_vals<float, 16> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[16])
    {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const float4 a = __ldg(reinterpret_cast<const float4 *>(q) + i);
            o[4 * i] = a.x, o[4 * i + 1] = a.y, o[4 * i + 2] = a.z, o[4 * i + 3] = a.w;
        }
    }
};

template <typename T, int R, int V, int U, int MINB>
__global__ void __launch_bounds__(256, MINB)
rb_sr_groups_kernel(operands<T> p, int64_t groups, const int64_t *__restrict__ gptr,
                    const int32_t *__restrict__ ucol, const uint32_t *__restrict__ umask,
                    const T *__restrict__ uval)
{
    typedef arith<T> A;
    const int64_t g = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (g >= groups)
        return;
    const int lane = threadIdx.x & 31;
    const int64_t c = (int64_t)blockIdx.y * 32 * V + lane * V;
    const bool full = c + V <= p.n;
    const char *xc = reinterpret_cast<const char *>(p.x + c);
    T acc[R][V];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int i = 0; i < V; i++)
            acc[r][i] = T(0);
    const int64_t ub0 = __ldg(gptr + g), ue = __ldg(gptr + g + 1);
    for (int64_t ub = ub0; ub < ue; ub += 32) {
        int32_t col = 0;
        uint32_t msk = 0;
        if (ub + lane < ue) {
            col = __ldg(ucol + ub + lane);
            msk = __ldg(umask + ub + lane);
        }
        const int cnt = (ue - ub) < 32 ? (int)(ue - ub) : 32;
        for (int t0 = 0; t0 < cnt; t0 += U) {
            T xv[U][V], av[U][R];
            uint32_t mu[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int t = t0 + u < cnt ? t0 + u : t0;
                mu[u] = t0 + u < cnt ? __shfl_sync(~0u, msk, t) : 0u;
                load_x_rm<T, V>(xc, __shfl_sync(~0u, col, t), p.xrsb, full, c, p.n, xv[u]);
                group_vals<T, R>::get(uval + (ub + t) * R, av[u]);
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (mu[u] >> r & 1u) {
#pragma unroll
                        for (int i = 0; i < V; i++)
                            acc[r][i] = A::fma(av[u][r], xv[u][i], acc[r][i]);
                    }
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        if (g * R + r < p.m)
            finish_columns<T, V>(p, g * R + r, c, p.n, acc[r]);
}
} // namespace loomcu
