/* prototype: RB + PR with U pairs per lane in flight (same per-lane order). */
#pragma once
#include "spmm_common.cuh"
namespace loomcu {
template <typename T, int W, int V, int U, int LONG = 0>
__global__ void rb_pr_deep_kernel(operands<T> p)
{
    typedef arith<T> A;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / W;
    if (row >= p.m)
        return;
    const int lane = threadIdx.x & (W - 1);
    const unsigned mask = group_mask<W>();
    const int64_t b = __ldg(p.ro + row), e = __ldg(p.ro + row + 1);
    for (int64_t c = (int64_t)blockIdx.y * V; c < p.n; c += (int64_t)gridDim.y * V) {
        T part[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            part[i] = T(0);
        int64_t j = b + lane;
        if (e - b < (int64_t)LONG * W) {
#pragma unroll 4
            for (; j < e; j += W) {
                const T a1 = __ldg(p.val + j);
                T xv[V];
                load_x<T, V>(p, __ldg(p.ci + j), c, xv);
#pragma unroll
                for (int i = 0; i < V; i++)
                    part[i] = A::fma(a1, xv[i], part[i]);
            }
        }
        int32_t col[U];
        T a[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t q = j + (int64_t)u * W;
            col[u] = q < e ? __ldg(p.ci + q) : 0;
            a[u] = q < e ? __ldg(p.val + q) : T(0);
        }
        while (j < e) {
            T xv[U][V];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (j + (int64_t)u * W < e)
                    load_x<T, V>(p, col[u], c, xv[u]);
                else
#pragma unroll
                    for (int i = 0; i < V; i++)
                        xv[u][i] = T(0);
            }
            const int64_t jn = j + (int64_t)U * W;
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t q = jn + (int64_t)u * W;
                const bool in = q < e;
                const int32_t nc = in ? __ldg(p.ci + q) : 0;
                const T na = in ? __ldg(p.val + q) : T(0);
                if (j + (int64_t)u * W < e) {
#pragma unroll
                    for (int i = 0; i < V; i++)
                        part[i] = A::fma(a[u], xv[u][i], part[i]);
                }
                col[u] = nc;
                a[u] = na;
            }
            j = jn;
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
} // namespace loomcu
