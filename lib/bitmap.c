/*
 * bitmap.c - the two-level bitmap handle (loom/bitmap.h): allocation, the
 * read-only view, and conversions from and to dense and CSR.
 *
 * Every conversion builds the masks first, then the tile offsets by
 * popcount, then places each value through a cursor per (tile, line); the
 * sources are visited so that each line's bits come in increasing order,
 * which is the storage order the format defines.
 */
#include "config.h"
#include "dual_internal.h"

#include <inttypes.h>
#include <string.h>

loom_status loom__check_bitmap(const loom_bitmap *B, const char *fn)
{
    if (!B)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: bitmap is NULL", fn);
    if (B->magic != LOOM_MAGIC_BITMAP)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: bitmap is not a live loom_bitmap (freed or uninitialised)", fn);
    return LOOM_SUCCESS;
}

static int64_t tiles_of(int64_t n)
{
    return (n + LOOM__TILE - 1) / LOOM__TILE;
}

loom_status loom__bitmap_alloc(int64_t rows, int64_t cols, int64_t nnz, loom_bitmap_layout layout,
                               loom_dtype dtype, loom_bitmap **B)
{
    if (rows < 0 || cols < 0 || nnz < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "loom_bitmap: negative size %" PRId64 " x %" PRId64, rows, cols);
    if (rows > INT32_MAX || cols > INT32_MAX)
        return loom__error(LOOM_ERR_OVERFLOW,
                           "loom_bitmap: %" PRId64 " x %" PRId64 " exceeds 32-bit indices", rows,
                           cols);
    int64_t tr = tiles_of(rows), tc = tiles_of(cols), tiles = tr * tc;
    size_t mask_bytes, value_bytes;
    if (!loom__mul_size((size_t)tiles, LOOM__TILE * sizeof(uint32_t), &mask_bytes) ||
        !loom__mul_size((size_t)nnz, loom_dtype_size(dtype), &value_bytes))
        return loom__error(LOOM_ERR_OVERFLOW, "loom_bitmap: sizes overflow");
    loom_bitmap *b = loom__calloc(1, sizeof *b);
    if (!b)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_bitmap: out of memory for the handle");
    b->tile_bits = loom__calloc((size_t)(tiles + 63) / 64 + 1, sizeof(uint64_t));
    b->masks = loom__calloc(mask_bytes / sizeof(uint32_t) + 1, sizeof(uint32_t));
    b->tile_offsets = loom__calloc((size_t)tiles + 1, sizeof(int64_t));
    b->values = loom__malloc(value_bytes ? value_bytes : 1);
    if (!b->tile_bits || !b->masks || !b->tile_offsets || !b->values) {
        b->magic = LOOM_MAGIC_BITMAP;
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                           "loom_bitmap: out of memory for a %" PRId64 " x %" PRId64
                           " bitmap with %" PRId64 " non-zeros",
                           rows, cols, nnz);
    }
    b->magic = LOOM_MAGIC_BITMAP;
    b->v = (loom_bitmap_view){rows,         cols,          nnz,           tr,       tc,
                              layout,       dtype,         b->tile_bits,  b->masks, b->tile_offsets,
                              b->values};
    *B = b;
    return LOOM_SUCCESS;
}

void loom__bitmap_set_tile_bits(loom_bitmap *B)
{
    int64_t tiles = B->v.tile_rows * B->v.tile_cols;
    memset(B->tile_bits, 0, (size_t)((tiles + 63) / 64) * sizeof(uint64_t));
    for (int64_t t = 0; t < tiles; t++) {
        uint32_t any = 0;
        for (int l = 0; l < LOOM__TILE; l++)
            any |= B->masks[t * LOOM__TILE + l];
        if (any)
            B->tile_bits[t / 64] |= 1ull << (t % 64);
    }
}

loom_status loom_bitmap_destroy(loom_bitmap **B)
{
    if (!B)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_bitmap_destroy: B is NULL");
    if (!*B)
        return LOOM_SUCCESS;
    loom_status st = loom__check_bitmap(*B, "loom_bitmap_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    loom__free((*B)->tile_bits);
    loom__free((*B)->masks);
    loom__free((*B)->tile_offsets);
    loom__free((*B)->values);
    (*B)->magic = LOOM_MAGIC_FREED;
    loom__free(*B);
    *B = NULL;
    return LOOM_SUCCESS;
}

loom_status loom_bitmap_view_get(const loom_bitmap *B, loom_bitmap_view *view)
{
    loom_status st = loom__check_bitmap(B, "loom_bitmap_view_get");
    if (st != LOOM_SUCCESS)
        return st;
    if (!view)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_bitmap_view_get: view is NULL");
    *view = B->v;
    return LOOM_SUCCESS;
}

/* Where element (i, j) lives: its tile, line and bit. */
static void locate(const loom_bitmap_view *v, int64_t i, int64_t j, int64_t *tile, int *line,
                   int *bit)
{
    *tile = (i / LOOM__TILE) * v->tile_cols + j / LOOM__TILE;
    int r = (int)(i % LOOM__TILE), c = (int)(j % LOOM__TILE);
    *line = v->layout == LOOM_BITMAP_COLUMNS ? c : r;
    *bit = v->layout == LOOM_BITMAP_COLUMNS ? r : c;
}

static bool is_nonzero(const void *p, loom_dtype dtype)
{
    return dtype == LOOM_F32 ? *(const float *)p != 0.0f : *(const double *)p != 0.0;
}

/* From the masks: tile offsets, and a cursor per (tile, line) at its first value. */
static loom_status offsets_and_cursors(loom_bitmap *B, int64_t **cursor)
{
    int64_t tiles = B->v.tile_rows * B->v.tile_cols;
    int64_t *cur = loom__malloc(((size_t)tiles * LOOM__TILE + 1) * sizeof(int64_t));
    if (!cur)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_bitmap: out of memory for cursors");
    int64_t pos = 0;
    for (int64_t t = 0; t < tiles; t++) {
        B->tile_offsets[t] = pos;
        for (int l = 0; l < LOOM__TILE; l++) {
            cur[t * LOOM__TILE + l] = pos;
            pos += __builtin_popcount(B->masks[t * LOOM__TILE + l]);
        }
    }
    B->tile_offsets[tiles] = pos;
    *cursor = cur;
    return LOOM_SUCCESS;
}

static loom_status check_layout(loom_bitmap_layout layout, const char *fn)
{
    if (layout != LOOM_BITMAP_COLUMNS && layout != LOOM_BITMAP_ROWS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: layout %d is not LOOM_BITMAP_COLUMNS or LOOM_BITMAP_ROWS", fn,
                           (int)layout);
    return LOOM_SUCCESS;
}

loom_status loom_bitmap_from_dense(loom_context *ctx, const loom_dense *d,
                                   loom_bitmap_layout layout, loom_bitmap **B)
{
    const char *fn = "loom_bitmap_from_dense";
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(d, "d", fn);
    if (st == LOOM_SUCCESS)
        st = check_layout(layout, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!B)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: B is NULL", fn);
    if (d->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: d must be in host memory", fn);
    size_t es = loom_dtype_size(d->dtype);
    const char *base = d->data;
    int64_t nnz = 0;
    for (int64_t i = 0; i < d->rows; i++)
        for (int64_t j = 0; j < d->cols; j++)
            nnz += is_nonzero(base + loom__dense_offset(d, i, j) * es, d->dtype);
    loom_bitmap *b;
    st = loom__bitmap_alloc(d->rows, d->cols, nnz, layout, d->dtype, &b);
    if (st != LOOM_SUCCESS)
        return st;
    int64_t tile;
    int line, bit;
    for (int64_t i = 0; i < d->rows; i++)
        for (int64_t j = 0; j < d->cols; j++)
            if (is_nonzero(base + loom__dense_offset(d, i, j) * es, d->dtype)) {
                locate(&b->v, i, j, &tile, &line, &bit);
                b->masks[tile * LOOM__TILE + line] |= 1u << bit;
            }
    int64_t *cur;
    if ((st = offsets_and_cursors(b, &cur)) != LOOM_SUCCESS) {
        loom_bitmap_destroy(&b);
        return st;
    }
    /* Rows in increasing order give each column-line its bits in order, and
     * columns in increasing order do the same for row-lines. */
    for (int64_t i = 0; i < d->rows; i++)
        for (int64_t j = 0; j < d->cols; j++) {
            const char *p = base + loom__dense_offset(d, i, j) * es;
            if (is_nonzero(p, d->dtype)) {
                locate(&b->v, i, j, &tile, &line, &bit);
                memcpy((char *)b->values + cur[tile * LOOM__TILE + line]++ * es, p, es);
            }
        }
    loom__free(cur);
    loom__bitmap_set_tile_bits(b);
    *B = b;
    return LOOM_SUCCESS;
}

loom_status loom_bitmap_from_csr(loom_context *ctx, const loom_csr *A, loom_bitmap_layout layout,
                                 loom_bitmap **B)
{
    const char *fn = "loom_bitmap_from_csr";
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_csr(A, fn);
    if (st == LOOM_SUCCESS)
        st = check_layout(layout, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!B)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: B is NULL", fn);
    if (A->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: A must be in host memory", fn);
    size_t es = loom_dtype_size(A->dtype);
    const char *vals = A->values;
    int64_t nnz = 0;
    for (int64_t e = 0; e < A->nnz; e++)
        nnz += is_nonzero(vals + e * es, A->dtype);
    loom_bitmap *b;
    st = loom__bitmap_alloc(A->rows, A->cols, nnz, layout, A->dtype, &b);
    if (st != LOOM_SUCCESS)
        return st;
    int64_t tile;
    int line, bit;
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; e++)
            if (is_nonzero(vals + e * es, A->dtype)) {
                locate(&b->v, i, A->col_indices[e], &tile, &line, &bit);
                b->masks[tile * LOOM__TILE + line] |= 1u << bit;
            }
    int64_t *cur;
    if ((st = offsets_and_cursors(b, &cur)) != LOOM_SUCCESS) {
        loom_bitmap_destroy(&b);
        return st;
    }
    /* CSR rows are sorted by column: lines receive their bits in order. */
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t e = A->row_offsets[i]; e < A->row_offsets[i + 1]; e++)
            if (is_nonzero(vals + e * es, A->dtype)) {
                locate(&b->v, i, A->col_indices[e], &tile, &line, &bit);
                memcpy((char *)b->values + cur[tile * LOOM__TILE + line]++ * es, vals + e * es,
                       es);
            }
    loom__free(cur);
    loom__bitmap_set_tile_bits(b);
    *B = b;
    return LOOM_SUCCESS;
}

loom_status loom_bitmap_to_dense(const loom_bitmap *B, loom_dense *d)
{
    const char *fn = "loom_bitmap_to_dense";
    loom_status st = loom__check_bitmap(B, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(d, "d", fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (d->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: d must be in host memory", fn);
    if (d->rows != B->v.rows || d->cols != B->v.cols)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: d is %" PRId64 " x %" PRId64 ", the bitmap %" PRId64 " x %" PRId64,
                           fn, d->rows, d->cols, B->v.rows, B->v.cols);
    if (d->dtype != B->v.dtype)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: d is %s, the bitmap %s", fn,
                           loom_dtype_name(d->dtype), loom_dtype_name(B->v.dtype));
    size_t es = loom_dtype_size(d->dtype);
    char *base = d->data;
    for (int64_t i = 0; i < d->rows; i++)
        for (int64_t j = 0; j < d->cols; j++)
            memset(base + loom__dense_offset(d, i, j) * es, 0, es);
    const loom_bitmap_view *v = &B->v;
    for (int64_t t = 0; t < v->tile_rows * v->tile_cols; t++) {
        int64_t pos = v->tile_offsets[t];
        int64_t i0 = (t / v->tile_cols) * LOOM__TILE, j0 = (t % v->tile_cols) * LOOM__TILE;
        for (int l = 0; l < LOOM__TILE; l++)
            for (uint32_t m = v->masks[t * LOOM__TILE + l]; m; m &= m - 1) {
                int b = __builtin_ctz(m);
                int64_t i = i0 + (v->layout == LOOM_BITMAP_COLUMNS ? b : l);
                int64_t j = j0 + (v->layout == LOOM_BITMAP_COLUMNS ? l : b);
                memcpy(base + loom__dense_offset(d, i, j) * es, (const char *)v->values + pos++ * es,
                       es);
            }
    }
    return LOOM_SUCCESS;
}

loom_status loom_bitmap_to_csr(loom_context *ctx, const loom_bitmap *B, loom_csr **A)
{
    const char *fn = "loom_bitmap_to_csr";
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(B, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!A)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: A is NULL", fn);
    const loom_bitmap_view *v = &B->v;
    size_t es = loom_dtype_size(v->dtype);
    int64_t *rp = loom__calloc((size_t)v->rows + 1, sizeof(int64_t));
    int32_t *ci = loom__malloc((size_t)(v->nnz ? v->nnz : 1) * sizeof(int32_t));
    char *vals = loom__malloc((size_t)(v->nnz ? v->nnz : 1) * es);
    if (!rp || !ci || !vals) {
        loom__free(rp);
        loom__free(ci);
        loom__free(vals);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    /* Row by row, tile by tile, column by column: sorted CSR rows. */
    int64_t e = 0;
    for (int64_t i = 0; i < v->rows; i++) {
        int r = (int)(i % LOOM__TILE);
        for (int64_t tj = 0; tj < v->tile_cols; tj++) {
            int64_t t = (i / LOOM__TILE) * v->tile_cols + tj;
            for (int c = 0; c < LOOM__TILE; c++) {
                int line = v->layout == LOOM_BITMAP_COLUMNS ? c : r;
                int bit = v->layout == LOOM_BITMAP_COLUMNS ? r : c;
                if (!(v->masks[t * LOOM__TILE + line] >> bit & 1u))
                    continue;
                ci[e] = (int32_t)(tj * LOOM__TILE + c);
                memcpy(vals + e * es,
                       (const char *)v->values + loom__bitmap_value_index(v, t, line, bit) * es, es);
                e++;
            }
        }
        rp[i + 1] = e;
    }
    return loom__csr_adopt(ctx, v->rows, v->cols, v->nnz, v->dtype, rp, ci, vals, fn, A);
}
