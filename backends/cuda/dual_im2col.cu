/*
 * dual_im2col.cu - the three im2col strategies on the GPU.  Each must give
 * the same matrix as its reference in reference/dual_im2col.c
 * (loom__ref_im2col_dense, _csr, _bitmap):
 *
 *   cols((c*R + r)*S + s, p*Q + q) = X(n, c, p*sh - ph + r*dh, q*sw - pw + s*dw)
 *
 * (zero in the padding).  They only move values.
 *   dense:  four consecutive elements of a row of the explicit matrix a
 *           thread;
 *   CSR:    one warp per im2col row, walking the input rows it draws from
 *           (count, prefix sum, fill: sorted columns come out in order);
 *   bitmap: one warp per output tile; a lane makes one line's mask
 *           from the input's masks (mask, funnel shift: the part of a
 *           line on one output row is a piece of one input row), the
 *           warp scans the counts, and only the lines with bits copy
 *           their values: runs of consecutive input values where the
 *           tile spans at most two output rows, else by popcount through
 *           the input's line offsets.  One launch: each warp writes its
 *           tile's bit, set or clear (no memset first).
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_tile_build.cuh"
#include "dual_im2col_kernels.cuh"

#include <cuda_runtime.h>

namespace {

using namespace loom_dual;

/* The 32-bit geometry holds: loom_conv_output_size bounds C*R*S and P*Q,
 * and every row and column index reached lies inside the padded image. */
bool fits_32bit(const loom_conv_shape *s)
{
    const int64_t lim = 0x7fffffff;
    return s->height + 2 * s->pad_h <= lim && s->width + 2 * s->pad_w <= lim;
}

template <typename real>
int im2col_csr(const geometry &g, int rows, const dual_cuda_csr *X, dual_cuda_csr *cols,
               cudaStream_t stream)
{
    const unsigned grid = grid_for((int64_t)rows * 32, 256);
    if (rows > 0) {
        im2col_csr_kernel<real, false><<<grid, 256, 0, stream>>>(g, *X, rows, *cols);
        if (cudaError_t e = cudaGetLastError())
            return (int)e;
    }
    if (int rc = scan_counts(cols->row_offsets, rows, stream))
        return rc;
    if (rows > 0)
        im2col_csr_kernel<real, true><<<grid, 256, 0, stream>>>(g, *X, rows, *cols);
    return (int)cudaGetLastError();
}

template <typename real>
int im2col_bitmap(const geometry &g, const dual_cuda_bitmap *X, dual_cuda_bitmap *cols,
                  cudaStream_t stream)
{
    const int64_t tiles = cols->tile_rows * cols->tile_cols;
    if (!tiles)
        return 0;
    im2col_bitmap_kernel<real>
        <<<grid_for(tiles, IM2COL_WARPS), IM2COL_WARPS * 32, 0, stream>>>(g, *X, *cols);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int loom__dual_cuda_im2col_dense(const loom_conv_shape *s, int64_t out_h,
                                            int64_t out_w, const void *X, int64_t ldx,
                                            int x_col_major, int64_t image, void *cols,
                                            int64_t ldc, int c_col_major, int f64, void *stream)
{
    if (!fits_32bit(s))
        return (int)cudaErrorInvalidValue;
    const geometry g = geometry_of(s, out_h, out_w, image);
    const int rows = (int)(s->channels * s->kernel_h * s->kernel_w), ncols = (int)(out_h * out_w);
    if (!rows || !ncols)
        return 0;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const dim3 grid(grid_for((ncols + 3) / 4, 256), (unsigned)(rows < 65535 ? rows : 65535));
    if (f64)
        im2col_dense_kernel<double><<<grid, 256, 0, st>>>(
            g, static_cast<const double *>(X), ldx, x_col_major, static_cast<double *>(cols), ldc,
            c_col_major, rows);
    else
        im2col_dense_kernel<float><<<grid, 256, 0, st>>>(
            g, static_cast<const float *>(X), ldx, x_col_major, static_cast<float *>(cols), ldc,
            c_col_major, rows);
    return (int)cudaGetLastError();
}

extern "C" int loom__dual_cuda_im2col_csr(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                          const dual_cuda_csr *X, int64_t image, int f64,
                                          dual_cuda_csr *cols, void *stream)
{
    if (!fits_32bit(s))
        return (int)cudaErrorInvalidValue;
    const geometry g = geometry_of(s, out_h, out_w, image);
    const int rows = (int)(s->channels * s->kernel_h * s->kernel_w);
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    return f64 ? im2col_csr<double>(g, rows, X, cols, st) : im2col_csr<float>(g, rows, X, cols, st);
}

extern "C" int loom__dual_cuda_im2col_bitmap(const loom_conv_shape *s, int64_t out_h,
                                             int64_t out_w, const dual_cuda_bitmap *X,
                                             int64_t image, int f64, dual_cuda_bitmap *cols,
                                             void *stream)
{
    if (!fits_32bit(s))
        return (int)cudaErrorInvalidValue;
    const geometry g = geometry_of(s, out_h, out_w, image);
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    return f64 ? im2col_bitmap<double>(g, X, cols, st) : im2col_bitmap<float>(g, X, cols, st);
}
