/*
 * loom/bitmap.h - dual-side sparsity: the two-level bitmap format, the
 * dual-side sparse GEMM (both operands sparse, outer product) and sparse
 * convolution through im2col.  Included by loom.h; do not include alone.
 *
 * The bitmap format (loom_bitmap(7) in loom_bitmap_from_dense(3)):
 *
 *   A rows x cols matrix is cut into tiles of LOOM_BITMAP_TILE x
 *   LOOM_BITMAP_TILE elements; tile (ti, tj) has index ti * tile_cols + tj.
 *   - tile bitmap: bit t of tile_bits[t / 64] is set when tile t holds a
 *     non-zero (the "warp bitmap": empty tiles are skipped whole);
 *   - element bitmap: 32 words of 32 bits per tile, masks[t * 32 + line].
 *     LOOM_BITMAP_COLUMNS (column-condensed, the left operand of an outer
 *     product): line = column within the tile, bit = row within the tile.
 *     LOOM_BITMAP_ROWS (row-condensed, the right operand): line = row
 *     within the tile, bit = column within the tile;
 *   - values: the non-zeros only, tile by tile in tile index order, within a
 *     tile line by line, within a line by increasing bit;
 *     tile_offsets[t] is the position of tile t's first value (tiles + 1
 *     entries).  The position of one value is found by popcount.
 *   A stored element is never zero: conversions drop zeros (and -0.0).
 *   Edge tiles of shapes that are not multiples of 32 have their bits past
 *   the matrix cleared.
 *
 * Dual-side GEMM: C = alpha*A*B + beta*C, A (M x K, LOOM_BITMAP_COLUMNS) and
 * B (K x N, LOOM_BITMAP_ROWS) bitmaps, C dense.  The summation order (the
 * strategy, identical in every backend, bit for bit):
 *     acc = +0; for k = 0 .. K-1 in increasing order, where A(i,k) != 0 and
 *     B(k,j) != 0: acc = fma(A(i,k), B(k,j), acc);
 *     C(i,j) = beta == 0 ? alpha*acc : fma(alpha, acc, beta*C(i,j)).
 */
#ifndef LOOM_BITMAP_H
#define LOOM_BITMAP_H

#include "../loom.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOOM_BITMAP_TILE 32

typedef enum loom_bitmap_layout {
    LOOM_BITMAP_COLUMNS = 0, /* column-condensed: a mask per tile column */
    LOOM_BITMAP_ROWS = 1     /* row-condensed: a mask per tile row */
} loom_bitmap_layout;

typedef struct loom_bitmap loom_bitmap;

/* The arrays of a bitmap (host memory, owned by the handle). */
typedef struct loom_bitmap_view {
    int64_t rows, cols, nnz;
    int64_t tile_rows, tile_cols; /* tiles along each dimension */
    loom_bitmap_layout layout;
    loom_dtype dtype;
    const uint64_t *tile_bits;    /* (tile_rows*tile_cols + 63) / 64 words */
    const uint32_t *masks;        /* tile_rows*tile_cols*32 words */
    const int64_t *tile_offsets;  /* tile_rows*tile_cols + 1 */
    const void *values;           /* nnz of dtype */
} loom_bitmap_view;

LOOM_API loom_status loom_bitmap_from_dense(loom_context *ctx, const loom_dense *d,
                                            loom_bitmap_layout layout, loom_bitmap **B);
LOOM_API loom_status loom_bitmap_from_csr(loom_context *ctx, const loom_csr *A,
                                          loom_bitmap_layout layout, loom_bitmap **B);
/* Writes every element of d (host, rows x cols of B, B's dtype): zeros too. */
LOOM_API loom_status loom_bitmap_to_dense(const loom_bitmap *B, loom_dense *d);
LOOM_API loom_status loom_bitmap_to_csr(loom_context *ctx, const loom_bitmap *B, loom_csr **A);
LOOM_API loom_status loom_bitmap_view_get(const loom_bitmap *B, loom_bitmap_view *view);
LOOM_API loom_status loom_bitmap_destroy(loom_bitmap **B);

/* ------------------------------------------------------ dual-side GEMM */

typedef struct loom_dual_gemm_plan loom_dual_gemm_plan;

/* backend LOOM_BACKEND_AUTO: the context's backend, else the first
 * available of openmp, reference.  C is described only by its dtype,
 * memory and shape at plan time; execute takes the data. */
LOOM_API loom_status loom_dual_gemm_plan_create(loom_context *ctx, loom_dual_gemm_plan **plan,
                                                const loom_bitmap *A, const loom_bitmap *B,
                                                const loom_dense *C, loom_backend_id backend);
LOOM_API loom_status loom_dual_gemm_execute(loom_dual_gemm_plan *plan, double alpha, double beta,
                                            loom_dense *C);
LOOM_API loom_status loom_dual_gemm_plan_destroy(loom_dual_gemm_plan **plan);
LOOM_API const char *loom_dual_gemm_plan_explain(const loom_dual_gemm_plan *plan);

/* What a dual-side sparse tensor core would do for A*B: per 32x32 warp
 * tile of C and per k, the outer product of A's column segment and B's
 * row segment issues ceil(nnz_a/8) * ceil(nnz_b/16) steps of 8x16x1;
 * a dense tensor core issues ceil(rows/8) * ceil(cols/16) (8 for a full
 * tile) whatever the data. */
typedef struct loom_dual_gemm_steps {
    int64_t dense_steps;   /* steps of a dense outer-product tensor core */
    int64_t issued_steps;  /* steps the dual-side sparse tensor core issues */
    int64_t skipped_steps; /* dense_steps - issued_steps */
    int64_t tile_pairs;    /* (warp tile of C, k-tile) pairs */
    int64_t tile_pairs_skipped; /* of those, skipped whole by the tile bitmap */
    double speedup;        /* dense_steps / issued_steps (0 when none issued) */
} loom_dual_gemm_steps;

LOOM_API loom_status loom_dual_gemm_steps_count(const loom_bitmap *A, const loom_bitmap *B,
                                                loom_dual_gemm_steps *steps);

/* ---------------------------------------------------- sparse convolution */

/* NCHW input (batch, channels, height, width), filters F x C x R x S,
 * output (batch, F, out_h, out_w). */
typedef struct loom_conv_shape {
    int64_t batch, channels, height, width;
    int64_t filters, kernel_h, kernel_w;
    int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
} loom_conv_shape;

typedef enum loom_im2col {
    LOOM_IM2COL_DENSE = 0,  /* explicit dense im2col matrix */
    LOOM_IM2COL_CSR = 1,    /* from a CSR input to a CSR im2col matrix */
    LOOM_IM2COL_BITMAP = 2  /* implicit, on bitmaps: mask, shift, popcount */
} loom_im2col;

LOOM_API loom_status loom_conv_output_size(const loom_conv_shape *shape, int64_t *out_h,
                                           int64_t *out_w);

/* The im2col matrix of one image: (C*R*S) x (out_h*out_w), row (c*R+r)*S+s,
 * column p*out_w+q, element X[image][c][p*sh-ph+r*dh][q*sw-pw+s*dw] (0 in
 * the padding).  The input X is (batch*C*H) x W: image row (n, c, h) is
 * row (n*C+c)*H+h.  Each strategy reads and writes its own format. */
LOOM_API loom_status loom_conv_im2col_dense(const loom_conv_shape *shape, const loom_dense *X,
                                            int64_t image, loom_dense *cols);
LOOM_API loom_status loom_conv_im2col_csr(loom_context *ctx, const loom_conv_shape *shape,
                                          const loom_csr *X, int64_t image, loom_csr **cols);
LOOM_API loom_status loom_conv_im2col_bitmap(loom_context *ctx, const loom_conv_shape *shape,
                                             const loom_bitmap *X, int64_t image,
                                             loom_bitmap **cols);

typedef struct loom_conv_plan loom_conv_plan;

/* W: F x (C*R*S), LOOM_BITMAP_COLUMNS.  Every im2col strategy gives the
 * same bits (the same non-zeros reach the same dual-side GEMM). */
LOOM_API loom_status loom_conv_plan_create(loom_context *ctx, loom_conv_plan **plan,
                                           const loom_conv_shape *shape, const loom_bitmap *W,
                                           loom_im2col im2col, loom_backend_id backend);
/* X: (batch*C*H) x W dense row-major host; Y: (batch*F*out_h) x out_w dense
 * row-major host; Y = alpha*conv(X, W) + beta*Y per element. */
LOOM_API loom_status loom_conv_execute(loom_conv_plan *plan, double alpha, const loom_dense *X,
                                       double beta, loom_dense *Y);
LOOM_API loom_status loom_conv_plan_destroy(loom_conv_plan **plan);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_BITMAP_H */
