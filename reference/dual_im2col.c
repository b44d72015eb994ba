/*
 * dual_im2col.c - the three im2col strategies of the reference, element
 * by element, straight from the definition (loom/bitmap.h):
 *
 *   cols((c*R + r)*S + s, p*Q + q) = X(n, c, p*sh - ph + r*dh, q*sw - pw + s*dw)
 *
 * (zero in the padding).  They only move values, so one file serves both
 * precisions.  The fast versions (backends/openmp/dual_im2col.c) work on
 * runs (memcpy, binary search, mask/shift/popcount) and must give the same
 * matrices.
 */
#include "config.h"
#include "dual_internal.h"

#include <string.h>

/* The input pixel behind cols(row, col), or false in the padding. */
static bool source_pixel(const loom_conv_shape *s, int64_t out_w, int64_t image, int64_t row,
                         int64_t col, int64_t *x_row, int64_t *x_col)
{
    int64_t c = row / (s->kernel_h * s->kernel_w);
    int64_t r = row / s->kernel_w % s->kernel_h, k = row % s->kernel_w;
    int64_t p = col / out_w, q = col % out_w;
    int64_t h = p * s->stride_h - s->pad_h + r * s->dilation_h;
    int64_t w = q * s->stride_w - s->pad_w + k * s->dilation_w;
    if (h < 0 || h >= s->height || w < 0 || w >= s->width)
        return false;
    *x_row = (image * s->channels + c) * s->height + h;
    *x_col = w;
    return true;
}

loom_status loom__ref_im2col_dense(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                   const loom_dense *X, int64_t image, loom_dense *cols)
{
    size_t es = loom_dtype_size(X->dtype);
    for (int64_t row = 0; row < cols->rows; row++)
        for (int64_t col = 0; col < out_h * out_w; col++) {
            char *dst = (char *)cols->data + loom__dense_offset(cols, row, col) * es;
            int64_t xr, xc;
            if (source_pixel(s, out_w, image, row, col, &xr, &xc))
                memcpy(dst, (const char *)X->data + loom__dense_offset(X, xr, xc) * es, es);
            else
                memset(dst, 0, es);
        }
    return LOOM_SUCCESS;
}

/* The entry of CSR row xr at column xc, or -1. */
static int64_t csr_find(const loom_csr *X, int64_t xr, int64_t xc)
{
    for (int64_t e = X->row_offsets[xr]; e < X->row_offsets[xr + 1]; e++)
        if (X->col_indices[e] == xc)
            return e;
    return -1;
}

loom_status loom__ref_im2col_csr(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                 int64_t out_w, const loom_csr *X, int64_t image, loom_csr **cols)
{
    int64_t rows = s->channels * s->kernel_h * s->kernel_w, ncols = out_h * out_w;
    size_t es = loom_dtype_size(X->dtype);
    int64_t *rp = loom__calloc((size_t)rows + 1, sizeof(int64_t));
    if (!rp)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (csr): out of memory");
    for (int64_t row = 0; row < rows; row++) {
        int64_t n = 0, xr, xc;
        for (int64_t col = 0; col < ncols; col++)
            n += source_pixel(s, out_w, image, row, col, &xr, &xc) && csr_find(X, xr, xc) >= 0;
        rp[row + 1] = rp[row] + n;
    }
    int64_t nnz = rp[rows];
    int32_t *ci = loom__malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    char *vals = loom__malloc((size_t)(nnz ? nnz : 1) * es);
    if (!ci || !vals) {
        loom__free(rp);
        loom__free(ci);
        loom__free(vals);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (csr): out of memory");
    }
    int64_t e = 0;
    for (int64_t row = 0; row < rows; row++)
        for (int64_t col = 0; col < ncols; col++) {
            int64_t xr, xc, src;
            if (source_pixel(s, out_w, image, row, col, &xr, &xc) &&
                (src = csr_find(X, xr, xc)) >= 0) {
                ci[e] = (int32_t)col;
                memcpy(vals + e * es, (const char *)X->values + src * es, es);
                e++;
            }
        }
    return loom__csr_adopt(ctx, rows, ncols, nnz, X->dtype, rp, ci, vals, "im2col (csr)", cols);
}

loom_status loom__ref_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                    int64_t out_w, const loom_bitmap *X, int64_t image,
                                    loom_bitmap **cols)
{
    (void)ctx;
    const loom_bitmap_view *x = &X->v;
    int64_t rows = s->channels * s->kernel_h * s->kernel_w, ncols = out_h * out_w;
    size_t es = loom_dtype_size(x->dtype);
    /* Pass 1: the masks, then the size. */
    loom_bitmap *b;
    loom_status st = loom__bitmap_alloc(rows, ncols, 0, LOOM_BITMAP_ROWS, x->dtype, &b);
    if (st != LOOM_SUCCESS)
        return st;
    int64_t nnz = 0;
    for (int64_t row = 0; row < rows; row++)
        for (int64_t col = 0; col < ncols; col++) {
            int64_t xr, xc;
            if (!source_pixel(s, out_w, image, row, col, &xr, &xc))
                continue;
            int64_t xt = (xr / LOOM__TILE) * x->tile_cols + xc / LOOM__TILE;
            if (x->masks[xt * LOOM__TILE + xr % LOOM__TILE] >> (xc % LOOM__TILE) & 1u) {
                int64_t t = (row / LOOM__TILE) * b->v.tile_cols + col / LOOM__TILE;
                b->masks[t * LOOM__TILE + row % LOOM__TILE] |= 1u << (col % LOOM__TILE);
                nnz++;
            }
        }
    /* Pass 2: offsets by popcount, then each value found by popcount in X. */
    void *values = loom__malloc((size_t)(nnz ? nnz : 1) * es);
    if (!values) {
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    loom__free(b->values);
    b->values = values;
    b->v.values = values;
    b->v.nnz = nnz;
    int64_t pos = 0;
    for (int64_t t = 0; t < b->v.tile_rows * b->v.tile_cols; t++) {
        b->tile_offsets[t] = pos;
        for (int l = 0; l < LOOM__TILE; l++)
            pos += __builtin_popcount(b->masks[t * LOOM__TILE + l]);
    }
    b->tile_offsets[b->v.tile_rows * b->v.tile_cols] = pos;
    for (int64_t t = 0; t < b->v.tile_rows * b->v.tile_cols; t++) {
        int64_t p = b->tile_offsets[t];
        int64_t row0 = (t / b->v.tile_cols) * LOOM__TILE, col0 = (t % b->v.tile_cols) * LOOM__TILE;
        for (int l = 0; l < LOOM__TILE; l++)
            for (uint32_t m = b->masks[t * LOOM__TILE + l]; m; m &= m - 1) {
                int64_t xr, xc;
                source_pixel(s, out_w, image, row0 + l, col0 + __builtin_ctz(m), &xr, &xc);
                int64_t xt = (xr / LOOM__TILE) * x->tile_cols + xc / LOOM__TILE;
                int64_t src = loom__bitmap_value_index(x, xt, (int)(xr % LOOM__TILE),
                                                       (int)(xc % LOOM__TILE));
                memcpy((char *)values + p++ * es, (const char *)x->values + src * es, es);
            }
    }
    loom__bitmap_set_tile_bits(b);
    *cols = b;
    return LOOM_SUCCESS;
}
