/*
 * dual_csr_kernels.cuh - kernels of dual_csr_build.cu (device code only):
 * the one-block prefix sum, and a dense matrix into CSR (count, fill).
 */
#ifndef LOOM_DUAL_CSR_KERNELS_CUH
#define LOOM_DUAL_CSR_KERNELS_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"

namespace loom_dual {

constexpr int SCAN_THREADS = 1024;

/* One block: each thread sums a contiguous chunk, the block scans the
 * chunk sums, each thread rewrites its chunk.  Enough for the offsets the
 * pipeline needs (rows of an input or an im2col matrix). */
__global__ void __launch_bounds__(SCAN_THREADS) scan_kernel(int64_t *a, int64_t n)
{
    __shared__ int64_t part[SCAN_THREADS];
    const int tid = threadIdx.x;
    const int64_t chunk = (n + SCAN_THREADS - 1) / SCAN_THREADS;
    const int64_t lo = min(n, (int64_t)tid * chunk), hi = min(n, lo + chunk);
    int64_t s = 0;
    for (int64_t i = lo; i < hi; i++)
        s += a[i];
    part[tid] = s;
    __syncthreads();
    for (int o = 1; o < SCAN_THREADS; o <<= 1) {
        const int64_t v = tid >= o ? part[tid - o] : 0;
        __syncthreads();
        part[tid] += v;
        __syncthreads();
    }
    int64_t run = part[tid] - s;
    for (int64_t i = lo; i < hi; i++) {
        const int64_t c = a[i];
        a[i] = run;
        run += c;
    }
    if (tid == SCAN_THREADS - 1)
        a[n] = part[tid];
}

template <typename real>
__device__ __forceinline__ real load(const real *X, int64_t ld, int col_major, int64_t i, int64_t j)
{
    return X[col_major ? i + j * ld : i * ld + j];
}

/* One warp per row: the count of non-zeros into rp[i]. */
template <typename real>
__global__ void csr_count_kernel(const real *X, int64_t ld, int col_major, int64_t rows,
                                 int64_t cols, int64_t *rp)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < rows; i += warps) {
        int64_t n = 0;
        for (int64_t j0 = 0; j0 < cols; j0 += 32) {
            const int64_t j = j0 + lane;
            n += __popc(__ballot_sync(FULL, j < cols && load(X, ld, col_major, i, j) != real(0)));
        }
        if (lane == 0)
            rp[i] = n;
    }
}

/* One warp per row: the non-zeros in column order, placed by ballot. */
template <typename real>
__global__ void csr_fill_kernel(const real *X, int64_t ld, int col_major, int64_t rows,
                                int64_t cols, const int64_t *rp, int32_t *ci, real *vals)
{
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < rows; i += warps) {
        int64_t pos = rp[i];
        for (int64_t j0 = 0; j0 < cols; j0 += 32) {
            const int64_t j = j0 + lane;
            const real x = j < cols ? load(X, ld, col_major, i, j) : real(0);
            const uint32_t nz = __ballot_sync(FULL, x != real(0));
            if (x != real(0)) {
                const int64_t p = pos + __popc(nz & below);
                ci[p] = (int32_t)j;
                vals[p] = x;
            }
            pos += __popc(nz);
        }
    }
}

} // namespace loom_dual

#endif
