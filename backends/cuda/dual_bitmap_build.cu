/*
 * dual_bitmap_build.cu - padded row-condensed bitmaps built on the device,
 * with the same masks and the same values in the same order inside each
 * tile as lib/bitmap.c's loom_bitmap_from_dense and loom_bitmap_from_csr
 * (zeros and -0.0 dropped).  Only the gaps between tiles differ (padded:
 * tile t's values start at t*1024), which the GEMM and the gathers read
 * through the tile stride.
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_tile_build.cuh"
#include "dual_bitmap_kernels.cuh"

#include <cuda_runtime.h>

namespace {

using namespace loom_dual;

template <typename real>
int from_dense(const real *X, int64_t ld, int col_major, dual_cuda_bitmap *out,
               cudaStream_t stream)
{
    const int64_t tiles = out->tile_rows * out->tile_cols;
    if (!tiles)
        return 0;
    if (int rc = clear_tile_bits(*out, stream))
        return rc;
    bitmap_from_dense_kernel<real>
        <<<grid_for(tiles, 1), BUILD_THREADS, 0, stream>>>(X, ld, col_major, *out);
    return (int)cudaGetLastError();
}

template <typename real>
int from_csr(const dual_cuda_csr *X, dual_cuda_bitmap *out, cudaStream_t stream)
{
    const int64_t tiles = out->tile_rows * out->tile_cols;
    if (!tiles)
        return 0;
    cudaError_t e;
    if ((e = cudaMemsetAsync(out->masks, 0, (size_t)tiles * T * sizeof(uint32_t), stream)) !=
        cudaSuccess)
        return (int)e;
    if (int rc = clear_tile_bits(*out, stream))
        return rc;
    const unsigned rows_grid = grid_for(X->rows * 32, 256);
    if (X->rows > 0) {
        csr_masks_kernel<real><<<rows_grid, 256, 0, stream>>>(*X, *out);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
    }
    line_offsets_kernel<<<grid_for(tiles * 32, 256), 256, 0, stream>>>(*out);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    if (X->rows > 0)
        csr_values_kernel<real><<<rows_grid, 256, 0, stream>>>(*X, *out);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int loom__dual_cuda_bitmap_from_dense(const void *X, int64_t ld, int col_major, int f64,
                                                 dual_cuda_bitmap *out, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return f64 ? from_dense(static_cast<const double *>(X), ld, col_major, out, s)
               : from_dense(static_cast<const float *>(X), ld, col_major, out, s);
}

extern "C" int loom__dual_cuda_bitmap_from_csr(const dual_cuda_csr *X, int f64,
                                               dual_cuda_bitmap *out, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return f64 ? from_csr<double>(X, out, s) : from_csr<float>(X, out, s);
}
