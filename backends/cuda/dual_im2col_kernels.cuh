/*
 * dual_im2col_kernels.cuh - kernels of dual_im2col.cu (device code only),
 * each giving the matrix of its reference in reference/dual_im2col.c.
 */
#ifndef LOOM_DUAL_IM2COL_KERNELS_CUH
#define LOOM_DUAL_IM2COL_KERNELS_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_tile_build.cuh"

namespace loom_dual {

/* The shape as the kernels use it (passed by value). */
struct geometry {
    int64_t C, H, W, R, S, sh, sw, ph, pw, dh, dw, P, Q, image;
};

inline geometry geometry_of(const loom_conv_shape *s, int64_t out_h, int64_t out_w, int64_t image)
{
    return {s->channels, s->height, s->width, s->kernel_h, s->kernel_w, s->stride_h, s->stride_w,
            s->pad_h,    s->pad_w,  s->dilation_h, s->dilation_w, out_h, out_w, image};
}

/* The input pixel behind cols(row, col): false in the padding (as
 * source_pixel in reference/dual_im2col.c). */
__device__ __forceinline__ bool source_pixel(const geometry &g, int64_t row, int64_t col,
                                             int64_t *x_row, int64_t *x_col)
{
    const int64_t c = row / (g.R * g.S), r = row / g.S % g.R, k = row % g.S;
    const int64_t p = col / g.Q, q = col % g.Q;
    const int64_t h = p * g.sh - g.ph + r * g.dh, w = q * g.sw - g.pw + k * g.dw;
    if (h < 0 || h >= g.H || w < 0 || w >= g.W)
        return false;
    *x_row = (g.image * g.C + c) * g.H + h;
    *x_col = w;
    return true;
}

template <typename real>
__global__ void im2col_dense_kernel(const geometry g, const real *__restrict__ X, int64_t ldx,
                                    int x_col_major, real *__restrict__ cols, int64_t ldc,
                                    int c_col_major, int64_t rows)
{
    const int64_t ncols = g.P * g.Q, total = rows * ncols;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        /* Column-major output walks rows fastest, so stores stay coalesced. */
        const int64_t row = c_col_major ? e % rows : e / ncols;
        const int64_t col = c_col_major ? e / rows : e % ncols;
        int64_t xr, xc;
        real v = real(0);
        if (source_pixel(g, row, col, &xr, &xc))
            v = X[x_col_major ? xr + xc * ldx : xr * ldx + xc];
        cols[c_col_major ? row + col * ldc : row * ldc + col] = v;
    }
}

/* One warp per im2col row (c, r, s): for each output row p, the input row
 * it reads, and that row's entries whose column lands on an output column
 * q.  Input rows are sorted by column, so q (and p*Q + q) increase. */
template <typename real, bool FILL>
__global__ void im2col_csr_kernel(const geometry g, const dual_cuda_csr X, int64_t rows,
                                  dual_cuda_csr out)
{
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;
    const real *xv = static_cast<const real *>(X.values);
    real *ov = static_cast<real *>(out.values);
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows;
         row += warps) {
        const int64_t c = row / (g.R * g.S), r = row / g.S % g.R, k = row % g.S;
        const int64_t shift = g.pw - k * g.dw; /* q*sw = w + shift */
        int64_t pos = FILL ? out.row_offsets[row] : 0;
        for (int64_t p = 0; p < g.P; p++) {
            const int64_t h = p * g.sh - g.ph + r * g.dh;
            if (h < 0 || h >= g.H)
                continue;
            const int64_t xr = (g.image * g.C + c) * g.H + h;
            const int64_t end = X.row_offsets[xr + 1];
            for (int64_t e0 = X.row_offsets[xr]; e0 < end; e0 += 32) {
                const int64_t e = e0 + lane;
                bool hit = false;
                int64_t q = 0;
                if (e < end) {
                    const int64_t t = X.col_indices[e] + shift;
                    if (t >= 0 && t % g.sw == 0) {
                        q = t / g.sw;
                        hit = q < g.Q;
                    }
                }
                const uint32_t hits = __ballot_sync(FULL, hit);
                if (FILL && hit) {
                    const int64_t o = pos + __popc(hits & below);
                    out.col_indices[o] = (int32_t)(p * g.Q + q);
                    ov[o] = xv[e];
                }
                pos += __popc(hits);
            }
        }
        if (!FILL && lane == 0)
            out.row_offsets[row] = pos;
    }
}

/* One block per tile of the (padded, row-condensed) im2col bitmap. */
template <typename real>
__global__ void __launch_bounds__(BUILD_THREADS)
    im2col_bitmap_kernel(const geometry g, const dual_cuda_bitmap X, const dual_cuda_bitmap out)
{
    __shared__ uint32_t smem[T];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const real *xv = static_cast<const real *>(X.values);
    const int64_t tiles = out.tile_rows * out.tile_cols;
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int64_t row0 = (t / out.tile_cols) * T + warp * BUILD_LINES;
        const int64_t col = (t % out.tile_cols) * T + lane;
        real x[BUILD_LINES];
        bool present[BUILD_LINES];
#pragma unroll
        for (int h = 0; h < BUILD_LINES; h++) {
            const int64_t row = row0 + h;
            int64_t xr, xc;
            present[h] = false;
            x[h] = real(0);
            if (row < out.rows && col < out.cols && source_pixel(g, row, col, &xr, &xc)) {
                const int64_t w = ((xr >> 5) * X.tile_cols + (xc >> 5)) * T + (xr & 31);
                const uint32_t xm = X.masks[w];
                const int bit = (int)(xc & 31);
                if (xm >> bit & 1u) {
                    present[h] = true;
                    x[h] = xv[tile_start(X.tile_offsets, X.tile_stride, w >> 5) +
                              X.line_offsets[w] + __popc(xm & ((1u << bit) - 1u))];
                }
            }
        }
        finish_tile(t, x, present, smem, out);
    }
}

} // namespace loom_dual

#endif
