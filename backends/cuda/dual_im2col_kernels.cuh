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

/* Rows over blockIdx.y (grid-stride), four consecutive columns a thread
 * over x: the row's fields once, one division for the first column's
 * (p, q), then q steps on; a row-major output takes the four in 16-byte
 * stores where aligned.  (One column a thread, each with its own
 * divisions, took 39 us on Table III's layer on an H200; this 17 us.) */
template <typename real>
__global__ void im2col_dense_kernel(const geometry g, const real *__restrict__ X, int64_t ldx,
                                     int x_col_major, real *__restrict__ cols, int64_t ldc,
                                     int c_col_major, int rows)
{
    const int ncols = g.P * g.Q;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const im2col_row rw = row_of(g, row);
        const int64_t xr0 = g.x_row0 + (int64_t)rw.c * g.H;
        for (int64_t c64 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4; c64 < ncols;
             c64 += (int64_t)gridDim.x * blockDim.x * 4) {
            const int c0 = (int)c64;
            int p = c0 / g.Q, q = c0 - p * g.Q;
            real v[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int ih = p * g.sh + rw.hr, iw = q * g.sw + rw.ws;
                v[e] = real(0);
                if (c0 + e < ncols && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) {
                    const int64_t xr = xr0 + ih;
                    v[e] = X[x_col_major ? xr + (int64_t)iw * ldx : xr * ldx + iw];
                }
                if (++q == g.Q) {
                    q = 0;
                    p++;
                }
            }
            real *o = cols + (c_col_major ? row + (int64_t)c0 * ldc : (int64_t)row * ldc + c0);
            if (!c_col_major && c0 + 4 <= ncols && (reinterpret_cast<uintptr_t>(o) & 15) == 0) {
                using vec = typename vec16<real>::type;
                constexpr int V = 16 / (int)sizeof(real);
#pragma unroll
                for (int i = 0; i < 4; i += V) {
                    vec x;
                    memcpy(&x, &v[i], 16);
                    reinterpret_cast<vec *>(o)[i / V] = x;
                }
            } else {
                for (int e = 0; e < 4 && c0 + e < ncols; e++)
                    o[c_col_major ? (int64_t)e * ldc : e] = v[e];
            }
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

/* A piece of one input row: its present values are `count` consecutive
 * entries of the input's values from `src`. */
struct value_run {
    int64_t src;
    int count;
};

/* Bits [a, a + n) of input row xr (0 <= a, a + n <= W, 1 <= n <= 32): the
 * row's mask words of one or two tiles, funnel shifted to the low n bits;
 * and where their values lie, one run a tile (run[1].count 0 when the
 * piece stays in one tile).  Callers that want the bits alone let the
 * compiler drop the offset loads. */
__device__ __forceinline__ uint32_t input_piece(const dual_cuda_bitmap &X, int64_t xr, int a,
                                                int n, value_run (&run)[2])
{
    const int64_t w = ((xr >> 5) * X.tile_cols + (a >> 5)) * T + (xr & 31);
    const int sh = a & 31, n0 = min(n, 32 - sh);
    const uint32_t m0 = X.masks[w];
    const uint32_t lo = (m0 >> sh) & (n0 == 32 ? ~0u : (1u << n0) - 1u);
    run[0] = {tile_start(X.tile_offsets, X.tile_stride, w >> 5) + X.line_offsets[w] +
                  __popc(m0 & ((1u << sh) - 1u)),
              __popc(lo)};
    run[1] = {0, 0};
    if (n0 == n)
        return lo;
    const uint32_t hi = X.masks[w + T] & ((1u << (n - n0)) - 1u); /* the row's next tile */
    run[1] = {tile_start(X.tile_offsets, X.tile_stride, (w + T) >> 5) + X.line_offsets[w + T],
              __popc(hi)};
    return lo | hi << n0;
}

/* Whether input pixel (xr, iw) is present. */
__device__ __forceinline__ bool input_bit(const dual_cuda_bitmap &X, int64_t xr, int iw)
{
    return X.masks[((xr >> 5) * X.tile_cols + (iw >> 5)) * T + (xr & 31)] >> (iw & 31) & 1u;
}

/* The columns c0 .. c0+n-1 of the im2col bitmap (one output row p, from
 * q0) on im2col row rw, with stride_w 1: a piece of one input row (or
 * none, in the padding).  Returns its bits, shifted to start at bit
 * `at`, and its value runs. */
__device__ __forceinline__ uint32_t im2col_segment(const geometry &g, const dual_cuda_bitmap &X,
                                                   const im2col_row &rw, int p, int q0, int n,
                                                   int at, value_run (&run)[2])
{
    run[0] = run[1] = {0, 0};
    const int ih = p * g.sh + rw.hr;
    const int iw0 = q0 + rw.ws, a = max(iw0, 0), b = min(iw0 + n, g.W);
    if (ih < 0 || ih >= g.H || a >= b)
        return 0;
    const int64_t xr = g.x_row0 + (int64_t)rw.c * g.H + ih;
    return input_piece(X, xr, a, b - a, run) << (at + (a - iw0));
}

/* The mask of one line of the im2col bitmap: im2col row rw (row_of),
 * columns col0 .. col0+31 (those below ncols).  The columns fall into
 * segments of one output row p each; with stride_w 1 a segment is a
 * piece of one input row, taken by one funnel shift, else bit by bit. */
__device__ __forceinline__ uint32_t im2col_line_mask(const geometry &g, const dual_cuda_bitmap &X,
                                                     const im2col_row &rw, int col0, int ncols)
{
    const int cend = min(col0 + T, ncols);
    uint32_t m = 0;
    for (int c = col0; c < cend;) {
        const int p = c / g.Q, q0 = c - p * g.Q, n = min(g.Q - q0, cend - c);
        if (g.sw == 1) {
            value_run unused[2];
            m |= im2col_segment(g, X, rw, p, q0, n, c - col0, unused);
        } else {
            const int ih = p * g.sh + rw.hr;
            const int64_t xr = g.x_row0 + (int64_t)rw.c * g.H + ih;
            for (int j = 0; j < n && ih >= 0 && ih < g.H; j++) {
                const int iw = (q0 + j) * g.sw + rw.ws;
                if (iw >= 0 && iw < g.W && input_bit(X, xr, iw))
                    m |= 1u << (c - col0 + j);
            }
        }
        c += n;
    }
    return m;
}

constexpr int IM2COL_WARPS = 8;
constexpr int IM2COL_BATCH = 4; /* values (or lines) whose loads go out together */
/* A tile whose longest line has at most this many values copies lane a
 * line; longer, line by line (on Table III's layer, an H200: lane a line
 * 13 us at 75% sparsity, 65 at 0%; line by line 23 at both). */
constexpr int IM2COL_LANE_PER_LINE = 16;

/* One warp per tile of the (padded, row-condensed) im2col bitmap, in two
 * passes.  Masks: lane l builds line l's mask from the input's masks
 * (mask, funnel shift), the warp scans the line counts and writes masks,
 * line offsets and the tile's bit (set or clear, so nothing is cleared
 * before the launch).  Values: only the lines with a bit, IM2COL_BATCH at a time
 * (their loads in flight together).  Where the tile's 32 columns span at
 * most two output rows and stride_w is 1 (the common case: Q >= 31), a
 * line's values are at most four runs of consecutive input values (two
 * segments, each in at most two input tiles), found in the masks pass:
 * short lines are copied a lane a line, longer ones line by line, lane b
 * the b-th value.  Elsewhere, line by line, lane b finds its bit's value
 * through the input's line offset and popcount.
 * Table III on the GPU: bench/results/dual/README.md. */
template <typename real>
__global__ void __launch_bounds__(IM2COL_WARPS * 32)
    im2col_bitmap_kernel(const geometry g, const dual_cuda_bitmap X, const dual_cuda_bitmap out)
{
    const int lane = threadIdx.x & 31;
    const uint32_t below = (1u << lane) - 1u;
    const real *xv = static_cast<const real *>(X.values);
    const int64_t tiles = out.tile_rows * out.tile_cols;
    const int ncols = (int)out.cols;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        clear_tail_tile_bits(out);
    const int64_t warps = (int64_t)gridDim.x * IM2COL_WARPS;
    for (int64_t t = (int64_t)blockIdx.x * IM2COL_WARPS + (threadIdx.x >> 5); t < tiles;
         t += warps) {
        const int row0 = (int)(t / out.tile_cols) * T, col0 = (int)(t % out.tile_cols) * T;
        const int cend = min(col0 + T, ncols);
        const int p0 = col0 / g.Q, q0 = col0 - p0 * g.Q, n0 = min(g.Q - q0, cend - col0);
        const bool runs = g.sw == 1 && (cend - 1) / g.Q - p0 <= 1; /* warp-uniform */
        const int my_row = row0 + lane;
        const im2col_row mine = row_of(g, min(my_row, (int)out.rows - 1)); /* lane = line */
        uint32_t m = 0;
        value_run r[2][2] = {}; /* runs: segment, then tile of the input row */
        if (my_row < out.rows) {
            if (runs) {
                m = im2col_segment(g, X, mine, p0, q0, n0, 0, r[0]);
                if (n0 < cend - col0)
                    m |= im2col_segment(g, X, mine, p0 + 1, 0, cend - col0 - n0, n0, r[1]);
            } else {
                m = im2col_line_mask(g, X, mine, col0, ncols);
            }
        }
        const int line_off = warp_exclusive_scan(__popc(m), lane);
        out.masks[t * T + lane] = m;
        out.line_offsets[t * T + lane] = line_off;
        uint32_t todo = __ballot_sync(FULL, m != 0u); /* the lines with values */
        if (lane == 0) {
            unsigned long long *word =
                reinterpret_cast<unsigned long long *>(out.tile_bits + (t >> 6));
            if (todo)
                atomicOr(word, 1ull << (t & 63));
            else
                atomicAnd(word, ~(1ull << (t & 63)));
        }
        real *vals = static_cast<real *>(out.values) + t * TILE_VALUES;
        const int total = r[0][0].count + r[0][1].count + r[1][0].count + r[1][1].count;
        const int most = runs ? __reduce_max_sync(FULL, total) : T;
        if (most <= IM2COL_LANE_PER_LINE) {
            /* Short lines: lane l copies line l's values, the k-th of
             * every line at once (the sources of neighbouring lines,
             * kernel columns s, s+1 of one input row, are close). */
            for (int k0 = 0; k0 < most; k0 += IM2COL_BATCH) {
                real v[IM2COL_BATCH];
#pragma unroll
                for (int j = 0; j < IM2COL_BATCH; j++) {
                    /* value k of the line: k within its run (unrolled, so
                     * r stays in registers) */
                    int k = k0 + j;
                    int64_t src = 0;
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const value_run &ru = r[u >> 1][u & 1];
                        if (k >= 0 && k < ru.count)
                            src = ru.src + k;
                        k -= ru.count;
                    }
                    v[j] = k0 + j < total ? xv[src] : real(0);
                }
#pragma unroll
                for (int j = 0; j < IM2COL_BATCH; j++)
                    if (k0 + j < total)
                        vals[line_off + k0 + j] = v[j];
            }
            continue;
        }
        /* Longer lines: line by line (those with bits), lane b stores the
         * line's b-th value (runs: the line's runs from its lane) or bit
         * b's (else: through the input's line offset and popcount, the
         * line's row fields from its lane). */
        const uint32_t counts = (uint32_t)r[0][0].count | (uint32_t)r[0][1].count << 8 |
                                (uint32_t)r[1][0].count << 16 | (uint32_t)r[1][1].count << 24;
        const int col = col0 + lane, p = col / g.Q, q = col - p * g.Q;
        const int64_t my_xr0 = g.x_row0 + (int64_t)mine.c * g.H; /* + ih: the input row */
        while (todo) {
            real v[IM2COL_BATCH];
            int dst[IM2COL_BATCH];
#pragma unroll
            for (int j = 0; j < IM2COL_BATCH; j++) {
                v[j] = real(0);
                dst[j] = -1;
                if (!todo) /* warp-uniform */
                    continue;
                const int h = __ffs(todo) - 1;
                todo &= todo - 1u;
                const int oh = __shfl_sync(FULL, line_off, h);
                if (runs) {
                    const uint32_t ch = __shfl_sync(FULL, counts, h);
                    int k = lane;
                    int64_t src = -1;
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const int64_t su = __shfl_sync(FULL, r[u >> 1][u & 1].src, h);
                        const int cu = (int)(ch >> (8 * u) & 0xffu);
                        if (src < 0 && k < cu)
                            src = su + k;
                        else if (src < 0)
                            k -= cu;
                    }
                    if (src < 0)
                        continue; /* past the line's last value */
                    v[j] = xv[src];
                    dst[j] = oh + lane;
                    continue;
                }
                const uint32_t mh = __shfl_sync(FULL, m, h);
                const int hr = __shfl_sync(FULL, mine.hr, h), ws = __shfl_sync(FULL, mine.ws, h);
                const int64_t xr0 = __shfl_sync(FULL, my_xr0, h);
                if (!(mh >> lane & 1u))
                    continue;
                const int iw = q * g.sw + ws;
                const int64_t xr = xr0 + p * g.sh + hr;
                const int64_t w = ((xr >> 5) * X.tile_cols + (iw >> 5)) * T + (xr & 31);
                const uint32_t xm = X.masks[w];
                v[j] = xv[tile_start(X.tile_offsets, X.tile_stride, w >> 5) + X.line_offsets[w] +
                          __popc(xm & ((1u << (iw & 31)) - 1u))];
                dst[j] = oh + __popc(mh & below);
            }
#pragma unroll
            for (int j = 0; j < IM2COL_BATCH; j++)
                if (dst[j] >= 0)
                    vals[dst[j]] = v[j];
        }
    }
}

} // namespace loom_dual

#endif
