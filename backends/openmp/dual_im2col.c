/*
 * dual_im2col.c - the three im2col strategies, fast and parallel over the
 * rows (c, r, s) of the im2col matrix.  Each must give exactly the matrix
 * of its reference in reference/dual_im2col.c.
 *
 *   dense:  a run of output positions with one p and stride_w 1 is a
 *           contiguous piece of an input row: memcpy, zero the padding;
 *   csr:    the same run is a contiguous range of the input row's column
 *           indices: binary search for its start, then copy;
 *   bitmap: the same run is a contiguous range of bits of the input row's
 *           mask: shift and mask it into the output line's 32-bit mask,
 *           and, because the condensed values of consecutive set bits are
 *           consecutive, copy popcount(bits) values from the position a
 *           popcount gives.  No element is visited one by one.
 */
#include "config.h"
#include "omp_dual.h"

/* The hardware popcount instruction (every x86-64 since 2008); the
 * descriptor checks the CPU before it hands out these functions. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("popcnt")
#endif

#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct kernel_row {
    int64_t c, r, s; /* the im2col row (c*R + r)*S + s */
} kernel_row;

static kernel_row split_row(const loom_conv_shape *sh, int64_t row)
{
    kernel_row k = {row / (sh->kernel_h * sh->kernel_w), row / sh->kernel_w % sh->kernel_h,
                    row % sh->kernel_w};
    return k;
}

/* For output row p: the input row h (or false), and for stride_w 1 the
 * range [q_lo, q_hi) of q that falls inside the input width. */
static bool input_row(const loom_conv_shape *sh, kernel_row k, int64_t p, int64_t *h)
{
    *h = p * sh->stride_h - sh->pad_h + k.r * sh->dilation_h;
    return *h >= 0 && *h < sh->height;
}

static void q_range(const loom_conv_shape *sh, kernel_row k, int64_t out_w, int64_t *q_lo,
                    int64_t *q_hi)
{
    int64_t shift = k.s * sh->dilation_w - sh->pad_w; /* w = q + shift */
    *q_lo = shift < 0 ? -shift : 0;
    *q_hi = sh->width - shift < out_w ? sh->width - shift : out_w;
    if (*q_hi < *q_lo)
        *q_hi = *q_lo;
}

loom_status loom__omp_im2col_dense(const loom_conv_shape *sh, int64_t out_h, int64_t out_w,
                                   const loom_dense *X, int64_t image, loom_dense *cols)
{
    if (X->layout != LOOM_ROW_MAJOR || cols->layout != LOOM_ROW_MAJOR)
        return loom__ref_im2col_dense(sh, out_h, out_w, X, image, cols);
    const size_t es = loom_dtype_size(X->dtype);
    const int64_t rows = cols->rows;
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < rows; row++) {
        kernel_row k = split_row(sh, row);
        char *dst = (char *)cols->data + (size_t)(row * cols->ld) * es;
        for (int64_t p = 0; p < out_h; p++, dst += (size_t)out_w * es) {
            int64_t h;
            if (!input_row(sh, k, p, &h)) {
                memset(dst, 0, (size_t)out_w * es);
                continue;
            }
            const char *src =
                (const char *)X->data + (size_t)(((image * sh->channels + k.c) * sh->height + h) * X->ld) * es;
            if (sh->stride_w == 1) {
                int64_t lo, hi, shift = k.s * sh->dilation_w - sh->pad_w;
                q_range(sh, k, out_w, &lo, &hi);
                memset(dst, 0, (size_t)lo * es);
                memcpy(dst + lo * es, src + (lo + shift) * es, (size_t)(hi - lo) * es);
                memset(dst + hi * es, 0, (size_t)(out_w - hi) * es);
            } else {
                for (int64_t q = 0; q < out_w; q++) {
                    int64_t w = q * sh->stride_w - sh->pad_w + k.s * sh->dilation_w;
                    if (w >= 0 && w < sh->width)
                        memcpy(dst + q * es, src + w * es, es);
                    else
                        memset(dst + q * es, 0, es);
                }
            }
        }
    }
    return LOOM_SUCCESS;
}

/* First entry of [lo, hi) with column >= w. */
static int64_t lower_bound(const int32_t *ci, int64_t lo, int64_t hi, int64_t w)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ci[mid] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One im2col row of the CSR strategy: counts its entries, and writes them
 * when ci is not NULL. */
static int64_t csr_row(const loom_conv_shape *sh, int64_t out_h, int64_t out_w, const loom_csr *X,
                       int64_t image, int64_t row, int32_t *ci, char *vals, size_t es)
{
    kernel_row k = split_row(sh, row);
    int64_t n = 0, shift = k.s * sh->dilation_w - sh->pad_w; /* w = q*stride + shift */
    for (int64_t p = 0; p < out_h; p++) {
        int64_t h;
        if (!input_row(sh, k, p, &h))
            continue;
        int64_t xr = (image * sh->channels + k.c) * sh->height + h;
        int64_t e0 = X->row_offsets[xr], e1 = X->row_offsets[xr + 1];
        int64_t e = lower_bound(X->col_indices, e0, e1, shift);
        int64_t w_last = (out_w - 1) * sh->stride_w + shift;
        for (; e < e1 && X->col_indices[e] <= w_last; e++) {
            int64_t d = X->col_indices[e] - shift;
            if (d % sh->stride_w)
                continue;
            if (ci) {
                ci[n] = (int32_t)(p * out_w + d / sh->stride_w);
                memcpy(vals + n * es, (const char *)X->values + e * es, es);
            }
            n++;
        }
    }
    return n;
}

loom_status loom__omp_im2col_csr(loom_context *ctx, const loom_conv_shape *sh, int64_t out_h,
                                 int64_t out_w, const loom_csr *X, int64_t image, loom_csr **cols)
{
    const int64_t rows = sh->channels * sh->kernel_h * sh->kernel_w;
    const size_t es = loom_dtype_size(X->dtype);
    int64_t *rp = loom__calloc((size_t)rows + 1, sizeof(int64_t));
    if (!rp)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (csr): out of memory");
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < rows; row++)
        rp[row + 1] = csr_row(sh, out_h, out_w, X, image, row, NULL, NULL, es);
    for (int64_t row = 0; row < rows; row++)
        rp[row + 1] += rp[row];
    int64_t nnz = rp[rows];
    int32_t *ci = loom__malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    char *vals = loom__malloc((size_t)(nnz ? nnz : 1) * es);
    if (!ci || !vals) {
        loom__free(rp);
        loom__free(ci);
        loom__free(vals);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (csr): out of memory");
    }
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < rows; row++)
        csr_row(sh, out_h, out_w, X, image, row, ci + rp[row], vals + rp[row] * es, es);
    return loom__csr_adopt(ctx, rows, out_h * out_w, nnz, X->dtype, rp, ci, vals, "im2col (csr)",
                           cols);
}

/* ------------------------------------------------------------ bitmap */

typedef struct bitmap_input {
    const loom_bitmap_view *x;
    const int64_t *line_start; /* first value of (tile, line), for the image's tiles */
    int64_t first_tile;        /* tile index of line_start[0] / 32 */
    /* The non-empty input rows of the image, channel by channel: rows
     * ne_h[ne_start[c]] .. ne_h[ne_start[c+1]-1] of channel c (increasing h),
     * so the walk visits only the rows that have a bit to shift in. */
    const int32_t *ne_h;
    const int64_t *ne_start;
} bitmap_input;

static inline uint32_t x_mask(const bitmap_input *in, int64_t xr, int64_t tw)
{
    return in->x->masks[((xr / LOOM__TILE) * in->x->tile_cols + tw) * LOOM__TILE + xr % LOOM__TILE];
}

static inline int64_t x_line_start(const bitmap_input *in, int64_t xr, int64_t tw)
{
    int64_t t = (xr / LOOM__TILE) * in->x->tile_cols + tw;
    return in->line_start[(t - in->first_tile) * LOOM__TILE + xr % LOOM__TILE];
}

/* Bits [wa, wa+len) of input row xr (len <= 32), bit 0 = column wa. */
static inline uint32_t x_bits(const bitmap_input *in, int64_t xr, int64_t wa, int len)
{
    int64_t tw = wa / LOOM__TILE;
    int o = (int)(wa % LOOM__TILE);
    uint32_t bits = x_mask(in, xr, tw) >> o;
    if (o && o + len > LOOM__TILE)
        bits |= x_mask(in, xr, tw + 1) << (LOOM__TILE - o);
    return len == LOOM__TILE ? bits : bits & ((1u << len) - 1u);
}

/* n values (4 or 8 bytes each) from src to dst: short runs, so a plain
 * loop beats a call to memcpy. */
static inline char *copy_values(char *dst, const char *src, int n, size_t es)
{
    if (es == 4) {
        uint32_t *d = (uint32_t *)(void *)dst;
        const uint32_t *s = (const uint32_t *)(const void *)src;
        for (int i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        uint64_t *d = (uint64_t *)(void *)dst;
        const uint64_t *s = (const uint64_t *)(const void *)src;
        for (int i = 0; i < n; i++)
            d[i] = s[i];
    }
    return dst + (size_t)n * es;
}

/* Copies the values of `bits` (input columns wa, wa+1, ...) of input row
 * xr: consecutive set bits have consecutive condensed values, so at most
 * two runs (one per input tile), each found by one popcount. */
static inline char *x_copy(const bitmap_input *in, int64_t xr, int64_t wa, uint32_t bits,
                           char *dst, size_t es)
{
    int64_t tw = wa / LOOM__TILE;
    int o = (int)(wa % LOOM__TILE);
    const char *v = in->x->values;
    int first = LOOM__TILE - o; /* bits that lie in tile tw */
    uint32_t in_first = first >= 32 ? bits : bits & ((1u << first) - 1u);
    int n1 = __builtin_popcount(in_first), n2 = __builtin_popcount(bits) - n1;
    if (n1) {
        int64_t src = x_line_start(in, xr, tw) +
                      __builtin_popcount(x_mask(in, xr, tw) & ((1u << o) - 1u));
        dst = copy_values(dst, v + src * es, n1, es);
    }
    if (n2)
        dst = copy_values(dst, v + x_line_start(in, xr, tw + 1) * es, n2, es);
    return dst;
}

/*
 * The common case of an input row of at most 64 columns: the whole row is
 * one 64-bit word, a run of len (<= 64) bits from column wa is one shift
 * and one mask, and it lands in at most three output words at bit offset
 * j.  Its values are the row's values of tile 0 from the run's start, then
 * of tile 1: two source pieces poured into up to three destination pieces.
 */
static inline void wide_run(const bitmap_input *in, int64_t xr, int64_t j, int64_t wa, int len,
                            uint32_t *lines, int64_t line_stride, char **dst, size_t es)
{
    if (len <= 0)
        return;
    const bool two = in->x->tile_cols == 2;
    const uint32_t m0 = x_mask(in, xr, 0), m1 = two ? x_mask(in, xr, 1) : 0;
    const uint64_t row = (uint64_t)m0 | (uint64_t)m1 << 32;
    const uint64_t bits = (row >> wa) & (len == 64 ? ~0ull : (1ull << len) - 1ull);
    if (!bits)
        return;
    const int o = (int)(j % LOOM__TILE);
    const int64_t jt = j / LOOM__TILE;
    /* Up to 96 output bits: three words. */
    const uint32_t w0 = (uint32_t)(bits << o);
    const uint32_t w1 = (uint32_t)(o ? bits >> (32 - o) : bits >> 32);
    const uint32_t w2 = (uint32_t)(o ? bits >> (64 - o) : 0);
    const uint32_t w[3] = {w0, w1, w2};
    for (int i = 0; i < 3; i++)
        if (w[i])
            lines[(jt + i) * line_stride] |= w[i];
    if (!dst)
        return;
    /* Source: tile 0 from column wa, then tile 1 from its column 0. */
    const uint64_t below = (1ull << wa) - 1ull;
    const char *v = in->x->values;
    const int n1 = __builtin_popcountll(bits & (wa < 32 ? 0xffffffffull >> wa : 0));
    const char *s1 = v + (x_line_start(in, xr, 0) + __builtin_popcountll(row & below & 0xffffffffull)) * es;
    const char *s2 = two ? v + x_line_start(in, xr, 1) * es : NULL;
    if (wa >= 32) /* the run starts in tile 1 */
        s2 += (size_t)__builtin_popcountll((row & below) >> 32) * es;
    int taken = 0; /* values consumed from the source */
    for (int i = 0; i < 3; i++) {
        int n = __builtin_popcount(w[i]);
        if (!n)
            continue;
        char *d = dst[jt + i];
        if (taken < n1) { /* from tile 0 */
            int a = n1 - taken < n ? n1 - taken : n;
            d = copy_values(d, s1 + (size_t)taken * es, a, es);
            n -= a;
            taken += a;
        }
        if (n) { /* from tile 1 */
            d = copy_values(d, s2 + (size_t)(taken - n1) * es, n, es);
            taken += n;
        }
        dst[jt + i] = d;
    }
}

/*
 * One im2col row as a bit stream of out_h*out_w bits: for each output row
 * p, the run of out_w positions is a shifted copy of an input row's bits
 * (stride_w 1), taken 32 bits at a time and ORed into the output line's
 * words at bit offset p*out_w + q.  lines[jt] is the mask word of the
 * output tile column jt.  When dst is not NULL (pass 2), the values follow
 * the same walk: dst[jt] is the write position of segment jt, advanced by
 * each copy.
 */
static void bitmap_row(const loom_conv_shape *sh, int64_t out_h, int64_t out_w,
                       const bitmap_input *in, int64_t image, int64_t row, uint32_t *lines,
                       int64_t line_stride, char **dst, size_t es)
{
    kernel_row k = split_row(sh, row);
    const int64_t shift = k.s * sh->dilation_w - sh->pad_w;
    int64_t q_lo = 0, q_hi = out_w;
    if (sh->stride_w == 1)
        q_range(sh, k, out_w, &q_lo, &q_hi);
    for (int64_t e = in->ne_start[k.c]; e < in->ne_start[k.c + 1]; e++) {
        const int64_t h = in->ne_h[e];
        const int64_t t = h + sh->pad_h - k.r * sh->dilation_h; /* = p * stride_h */
        if (t < 0 || (sh->stride_h != 1 && t % sh->stride_h))
            continue;
        const int64_t p = sh->stride_h == 1 ? t : t / sh->stride_h;
        if (p >= out_h)
            break;
        const int64_t xr = (image * sh->channels + k.c) * sh->height + h;
        if (sh->stride_w != 1) {
            for (int64_t q = 0; q < out_w; q++) {
                int64_t w = q * sh->stride_w + shift, j = p * out_w + q;
                if (w < 0 || w >= sh->width ||
                    !(x_mask(in, xr, w / LOOM__TILE) >> (w % LOOM__TILE) & 1u))
                    continue;
                lines[(j / LOOM__TILE) * line_stride] |= 1u << (j % LOOM__TILE);
                if (dst)
                    dst[j / LOOM__TILE] = x_copy(in, xr, w, 1u, dst[j / LOOM__TILE], es);
            }
            continue;
        }
        if (in->x->tile_cols <= 2) {
            wide_run(in, xr, p * out_w + q_lo, q_lo + shift, (int)(q_hi - q_lo), lines,
                     line_stride, dst, es);
            continue;
        }
        /* Output bits j = p*out_w + q for q in [q_lo, q_hi) are input bits
         * w = q + shift: copy them in pieces that stay inside one output
         * word and take at most 32 input bits. */
        for (int64_t q = q_lo; q < q_hi;) {
            const int64_t j = p * out_w + q;
            const int o = (int)(j % LOOM__TILE);
            int len = LOOM__TILE - o;
            if (len > q_hi - q)
                len = (int)(q_hi - q);
            const uint32_t bits = x_bits(in, xr, q + shift, len);
            if (bits) {
                lines[(j / LOOM__TILE) * line_stride] |= bits << o;
                if (dst)
                    dst[j / LOOM__TILE] = x_copy(in, xr, q + shift, bits, dst[j / LOOM__TILE], es);
            }
            q += len;
        }
    }
}

loom_status loom__omp_im2col_bitmap(loom_context *ctx, const loom_conv_shape *sh, int64_t out_h,
                                    int64_t out_w, const loom_bitmap *X, int64_t image,
                                    loom_bitmap **cols)
{
    (void)ctx;
    const loom_bitmap_view *x = &X->v;
    const int64_t rows = sh->channels * sh->kernel_h * sh->kernel_w, ncols = out_h * out_w;
    const size_t es = loom_dtype_size(x->dtype);
    /* Where each (tile, line) of the image's rows starts in X's values. */
    int64_t r0 = image * sh->channels * sh->height, r1 = r0 + sh->channels * sh->height;
    int64_t t0 = (r0 / LOOM__TILE) * x->tile_cols, t1 = ((r1 + LOOM__TILE - 1) / LOOM__TILE) * x->tile_cols;
    int64_t *line_start = loom__malloc((size_t)(t1 - t0) * LOOM__TILE * sizeof(int64_t) + 1);
    loom_bitmap *b = NULL;
    loom_status st = line_start ? loom__bitmap_alloc(rows, ncols, 0, LOOM_BITMAP_ROWS, x->dtype, &b)
                                : loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    if (st != LOOM_SUCCESS) {
        loom__free(line_start);
        return st;
    }
    uint8_t *row_any = loom__calloc((size_t)(r1 - r0) + 1, 1);
    int32_t *ne_h = loom__malloc(((size_t)(r1 - r0) + 1) * sizeof(int32_t));
    int64_t *ne_start = loom__malloc(((size_t)sh->channels + 1) * sizeof(int64_t));
    if (!row_any || !ne_h || !ne_start) {
        loom__free(row_any);
        loom__free(ne_h);
        loom__free(ne_start);
        loom__free(line_start);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    for (int64_t t = t0; t < t1; t++) {
        int64_t pos = x->tile_offsets[t];
        int64_t row0 = (t / x->tile_cols) * LOOM__TILE;
        for (int l = 0; l < LOOM__TILE; l++) {
            uint32_t m = x->masks[t * LOOM__TILE + l];
            line_start[(t - t0) * LOOM__TILE + l] = pos;
            pos += __builtin_popcount(m);
            if (m && row0 + l >= r0 && row0 + l < r1)
                row_any[row0 + l - r0] = 1;
        }
    }
    int64_t ne = 0;
    for (int64_t c = 0; c < sh->channels; c++) {
        ne_start[c] = ne;
        for (int64_t h = 0; h < sh->height; h++)
            if (row_any[c * sh->height + h])
                ne_h[ne++] = (int32_t)h;
    }
    ne_start[sh->channels] = ne;
    loom__free(row_any);
    bitmap_input in = {x, line_start, t0, ne_h, ne_start};
    const int64_t tc = b->v.tile_cols;
    /* Pass 1: every mask, a row of the im2col matrix at a time. */
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < rows; row++)
        bitmap_row(sh, out_h, out_w, &in, image, row,
                   b->masks + (row / LOOM__TILE) * tc * LOOM__TILE + row % LOOM__TILE,
                   LOOM__TILE, NULL, es);
    /* Offsets by popcount; a cursor per (tile, line) in place of line_start. */
    int64_t tiles = b->v.tile_rows * tc;
    /* A line's first value relative to its tile's (at most 1024 values a
     * tile: 16 bits), a quarter of the memory of absolute cursors. */
    uint16_t *cursor = loom__malloc(((size_t)tiles * LOOM__TILE + 1) * sizeof(uint16_t));
    if (!cursor) {
        loom__free(ne_h);
        loom__free(ne_start);
        loom__free(line_start);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    int64_t pos = 0;
    for (int64_t t = 0; t < tiles; t++) {
        b->tile_offsets[t] = pos;
        for (int l = 0; l < LOOM__TILE; l++) {
            cursor[t * LOOM__TILE + l] = (uint16_t)(pos - b->tile_offsets[t]);
            pos += __builtin_popcount(b->masks[t * LOOM__TILE + l]);
        }
        if (pos != b->tile_offsets[t]) /* the tile bitmap on the way */
            b->tile_bits[t / 64] |= 1ull << (t % 64);
    }
    b->tile_offsets[tiles] = pos;
    void *values = loom__malloc((size_t)(pos ? pos : 1) * es);
    if (!values) {
        loom__free(ne_h);
        loom__free(ne_start);
        loom__free(line_start);
        loom__free(cursor);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    loom__free(b->values);
    b->values = values;
    b->v.values = values;
    b->v.nnz = pos;
    /* Pass 2: the values, through the same walk (its masks go to scratch
     * words).  Plain malloc here: one small buffer per thread. */
    bool ok = true;
#pragma omp parallel
    {
        char **dst = malloc((size_t)tc * sizeof(char *));
        uint32_t *scratch = calloc((size_t)tc, sizeof(uint32_t));
        if (!dst || !scratch) {
#pragma omp atomic write
            ok = false;
        } else {
#pragma omp for schedule(static)
            for (int64_t row = 0; row < rows; row++) {
                const int64_t first_line = (row / LOOM__TILE) * tc * LOOM__TILE + row % LOOM__TILE;
                const int64_t first_tile = (row / LOOM__TILE) * tc;
                for (int64_t jt = 0; jt < tc; jt++) {
                    dst[jt] = (char *)values + (b->tile_offsets[first_tile + jt] +
                                                cursor[first_line + jt * LOOM__TILE]) * es;
                    scratch[jt] = 0;
                }
                bitmap_row(sh, out_h, out_w, &in, image, row, scratch, 1, dst, es);
            }
        }
        free(dst);
        free(scratch);
    }
    if (!ok) {
        loom__free(ne_h);
        loom__free(ne_start);
        loom__free(line_start);
        loom__free(cursor);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    loom__free(line_start);
    loom__free(ne_h);
    loom__free(ne_start);
    loom__free(cursor);
    *cols = b;
    return LOOM_SUCCESS;
}
