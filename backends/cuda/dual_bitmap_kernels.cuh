/*
 * dual_bitmap_kernels.cuh - kernels of dual_bitmap_build.cu (device code
 * only): padded row-condensed bitmaps from a dense matrix and from CSR.
 */
#ifndef LOOM_DUAL_BITMAP_KERNELS_CUH
#define LOOM_DUAL_BITMAP_KERNELS_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_tile_build.cuh"

namespace loom_dual {

/* One block per tile (grid-stride over tiles). */
template <typename real>
__global__ void __launch_bounds__(BUILD_THREADS)
    bitmap_from_dense_kernel(const real *__restrict__ X, int64_t ld, int col_major,
                             const dual_cuda_bitmap out)
{
    __shared__ uint32_t smem[T];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tiles = out.tile_rows * out.tile_cols;
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int64_t i0 = (t / out.tile_cols) * T + warp * BUILD_LINES;
        const int64_t j = (t % out.tile_cols) * T + lane;
        real x[BUILD_LINES];
        bool present[BUILD_LINES];
#pragma unroll
        for (int h = 0; h < BUILD_LINES; h++) {
            const int64_t i = i0 + h;
            x[h] = i < out.rows && j < out.cols ? X[col_major ? i + j * ld : i * ld + j] : real(0);
            present[h] = x[h] != real(0);
        }
        finish_tile(t, x, present, smem, out);
    }
}

/* CSR -> bitmap: masks first (each entry ORs its bit in), then each line's
 * offset inside its tile, then every entry finds its place by popcount. */
template <typename real>
__global__ void csr_masks_kernel(const dual_cuda_csr X, dual_cuda_bitmap out)
{
    const real *vals = static_cast<const real *>(X.values);
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < X.rows; i += warps)
        for (int64_t e = X.row_offsets[i] + lane; e < X.row_offsets[i + 1]; e += 32)
            if (vals[e] != real(0)) {
                const int64_t j = X.col_indices[e];
                atomicOr(&out.masks[((i >> 5) * out.tile_cols + (j >> 5)) * T + (i & 31)],
                         1u << (j & 31));
            }
}

/* One warp per tile: line offsets and the tile bit. */
__global__ void line_offsets_kernel(dual_cuda_bitmap out)
{
    const int lane = threadIdx.x & 31;
    const int64_t tiles = out.tile_rows * out.tile_cols;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < tiles; t += warps) {
        const uint32_t m = out.masks[t * T + lane];
        out.line_offsets[t * T + lane] = warp_exclusive_scan(__popc(m), lane);
        if (__ballot_sync(FULL, m != 0) && lane == 0)
            atomicOr(reinterpret_cast<unsigned long long *>(out.tile_bits + (t >> 6)),
                     1ull << (t & 63));
    }
}

template <typename real>
__global__ void csr_values_kernel(const dual_cuda_csr X, dual_cuda_bitmap out)
{
    const real *vals = static_cast<const real *>(X.values);
    real *dst = static_cast<real *>(out.values);
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < X.rows; i += warps)
        for (int64_t e = X.row_offsets[i] + lane; e < X.row_offsets[i + 1]; e += 32)
            if (vals[e] != real(0)) {
                const int64_t j = X.col_indices[e];
                const int64_t w = ((i >> 5) * out.tile_cols + (j >> 5)) * T + (i & 31);
                const uint32_t below = (1u << (j & 31)) - 1u;
                dst[(w >> 5) * TILE_VALUES + out.line_offsets[w] + __popc(out.masks[w] & below)] =
                    vals[e];
            }
}

} // namespace loom_dual

#endif
