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

/* The shape as the kernels use it (passed by value), in 32-bit integers:
 * C*R*S and P*Q fit by loom_conv_output_size, and the host checks that
 * the padded image does (dual_im2col.cu); 64-bit division costs about
 * five times as much and dominated these kernels.  Only the image's first
 * input row is 64-bit. */
struct geometry {
    int C, H, W, R, S, sh, sw, ph, pw, dh, dw, P, Q;
    int64_t x_row0; /* (image*C)*H: the image's first row of X */
};

inline geometry geometry_of(const loom_conv_shape *s, int64_t out_h, int64_t out_w, int64_t image)
{
    return {(int)s->channels,  (int)s->height,     (int)s->width,    (int)s->kernel_h,
            (int)s->kernel_w,  (int)s->stride_h,   (int)s->stride_w, (int)s->pad_h,
            (int)s->pad_w,     (int)s->dilation_h, (int)s->dilation_w, (int)out_h,
            (int)out_w,        image * s->channels * s->height};
}

/* An im2col row (c, r, s) as the offsets it adds (source_pixel in
 * reference/dual_im2col.c, split so a row's part is computed once). */
struct im2col_row {
    int c, hr, ws; /* channel, r*dh - ph, s*dw - pw */
};

__device__ __forceinline__ im2col_row row_of(const geometry &g, int row)
{
    const int c = row / (g.R * g.S), rs = row - c * (g.R * g.S), r = rs / g.S, k = rs - r * g.S;
    return {c, r * g.dh - g.ph, k * g.dw - g.pw};
}

/* The input pixel behind cols(row, col), or false in the padding. */
__device__ __forceinline__ bool source_pixel(const geometry &g, const im2col_row &rw, int col,
                                             int64_t *x_row, int *x_col)
{
    const int p = col / g.Q, q = col - p * g.Q;
    const int h = p * g.sh + rw.hr, w = q * g.sw + rw.ws;
    if (h < 0 || h >= g.H || w < 0 || w >= g.W)
        return false;
    *x_row = g.x_row0 + (int64_t)rw.c * g.H + h;
    *x_col = w;
    return true;
}

/* Rows over blockIdx.y (grid-stride), columns over x: a block's threads
 * share their row's offsets and write consecutive columns. */
template <typename real>
__global__ void im2col_dense_kernel(const geometry g, const real *__restrict__ X, int64_t ldx,
                                    int x_col_major, real *__restrict__ cols, int64_t ldc,
                                    int c_col_major, int rows)
{
    const int ncols = g.P * g.Q;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const im2col_row rw = row_of(g, row);
        for (int64_t c64 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c64 < ncols;
             c64 += (int64_t)gridDim.x * blockDim.x) {
            const int col = (int)c64;
            int64_t xr;
            int xc;
            real v = real(0);
            if (source_pixel(g, rw, col, &xr, &xc))
                v = X[x_col_major ? xr + (int64_t)xc * ldx : xr * ldx + xc];
            cols[c_col_major ? row + (int64_t)col * ldc : (int64_t)row * ldc + col] = v;
        }
    }
}

/* One warp per im2col row (c, r, s): for each output row p, the input row
 * it reads, and that row's entries whose column lands on an output column
 * q.  Input rows are sorted by column, so q (and p*Q + q) increase. */
template <typename real, bool FILL>
__global__ void im2col_csr_kernel(const geometry g, const dual_cuda_csr X, int rows,
                                  dual_cuda_csr out)
{
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;
    const real *xv = static_cast<const real *>(X.values);
    real *ov = static_cast<real *>(out.values);
    const int warps = (gridDim.x * blockDim.x) >> 5;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        const im2col_row rw = row_of(g, row);
        int64_t pos = FILL ? out.row_offsets[row] : 0;
        for (int p = 0; p < g.P; p++) {
            const int h = p * g.sh + rw.hr;
            if (h < 0 || h >= g.H)
                continue;
            const int64_t xr = g.x_row0 + (int64_t)rw.c * g.H + h;
            const int64_t end = X.row_offsets[xr + 1];
            for (int64_t e0 = X.row_offsets[xr]; e0 < end; e0 += 32) {
                const int64_t e = e0 + lane;
                bool hit = false;
                int q = 0;
                if (e < end) {
                    const int t = X.col_indices[e] - rw.ws; /* q*sw */
                    if (g.sw == 1) {
                        q = t;
                        hit = t >= 0 && t < g.Q;
                    } else if (t >= 0) {
                        q = t / g.sw;
                        hit = q * g.sw == t && q < g.Q;
                    }
                }
                const uint32_t hits = __ballot_sync(FULL, hit);
                if (FILL && hit) {
                    const int64_t o = pos + __popc(hits & below);
                    out.col_indices[o] = p * g.Q + q;
                    ov[o] = xv[e];
                }
                pos += __popc(hits);
            }
        }
        if (!FILL && lane == 0)
            out.row_offsets[row] = pos;
    }
}

/* One block per tile of the (padded, row-condensed) im2col bitmap.  Each
 * block writes its tiles' bits either way (finish_tile<real, true>), so no
 * clearing launch goes before it: one launch in all. */
template <typename real>
__global__ void __launch_bounds__(BUILD_THREADS)
    im2col_bitmap_kernel(const geometry g, const dual_cuda_bitmap X, const dual_cuda_bitmap out)
{
    __shared__ uint32_t smem[T];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const real *xv = static_cast<const real *>(X.values);
    const int64_t tiles = out.tile_rows * out.tile_cols;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        clear_tail_tile_bits(out);
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int row0 = (int)(t / out.tile_cols) * T + warp * BUILD_LINES;
        const int col = (int)(t % out.tile_cols) * T + lane;
        /* The lane's output pixel, once per tile. */
        const int p = col / g.Q, q = col - p * g.Q;
        real x[BUILD_LINES];
        bool present[BUILD_LINES];
#pragma unroll
        for (int h = 0; h < BUILD_LINES; h++) {
            const int row = row0 + h;
            present[h] = false;
            x[h] = real(0);
            if (row >= out.rows || col >= out.cols)
                continue;
            const im2col_row rw = row_of(g, row);
            const int ih = p * g.sh + rw.hr, iw = q * g.sw + rw.ws;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W)
                continue;
            const int64_t xr = g.x_row0 + (int64_t)rw.c * g.H + ih;
            const int64_t w = ((xr >> 5) * X.tile_cols + (iw >> 5)) * T + (xr & 31);
            const uint32_t xm = X.masks[w];
            const int bit = iw & 31;
            if (xm >> bit & 1u) {
                present[h] = true;
                x[h] = xv[tile_start(X.tile_offsets, X.tile_stride, w >> 5) + X.line_offsets[w] +
                          __popc(xm & ((1u << bit) - 1u))];
            }
        }
        finish_tile<real, true>(t, x, present, smem, out);
    }
}

} // namespace loom_dual

#endif
