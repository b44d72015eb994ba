/*
 * dual_im2col.c - the three im2col strategies, fast and parallel over the
 * rows (c, r, s) of the im2col matrix.  Each must give exactly the matrix
 * of its reference in reference/dual_im2col.c.
 *
 *   dense:  a run of output positions with one p and stride_w 1 is a
 *           contiguous piece of an input row: memcpy, zero the padding;
 *   csr:    the same run is a contiguous range of the input row's column
 *           indices: binary search for its start, then copy;
 *   bitmap: each output row is a window of a bit stream of the input
 *           rows (one base stream per channel, read shifted and masked,
 *           where the padding allows; else one per channel and kernel
 *           column), so a mask word is one funnel shift and its values
 *           one contiguous run, which starts where the previous one
 *           ended; written in one pass, in storage order (see the bitmap
 *           section).  No element is visited one by one.
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif
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

/*
 * The bitmap strategy.  Output row (c, r, s) takes, for output row p,
 * input row h = p*stride_h + r*dilation_h - pad_h.  Lay the rows of
 * channel c that kernel column s sees out as one bit stream, a slot of
 * out_w bits per input row (slot k: h = k*stride_h + phase - pad_h, bit q
 * of the slot = input column q*stride_w + s*dilation_w - pad_w, zero in
 * the padding).  Then the whole output row is a window of that stream:
 * out_h*out_w bits from slot a, where r*dilation_h = a*stride_h + phase.
 * So, with the stream's values laid out in stream order:
 *
 *   - each 32-bit mask word of the output is one funnel shift of the
 *     stream, and its values are ONE contiguous run of the stream's
 *     values, which starts where the run of the mask before ended;
 *   - the number of values of an output row is known before any mask is
 *     made, so is every tile row's place in the values: masks, tile
 *     offsets and values are written in one pass, in storage order;
 *   - in storage order, a run is copied in fixed 64-byte blocks (no loop
 *     on its length): the bytes past it are garbage that the next runs
 *     overwrite; only near the end of a range is a run copied exactly.
 *
 * Where a row fits whole in a slot (stride 1, width <= out_w: padding at
 * least the kernel's reach, as in every 'same' convolution), the streams
 * of a channel are one stream shifted: kernel column s's is bit t + shift
 * of a base stream whose slot bit q is input column q, kept where the
 * slot's q is inside the input (valid: one pattern per kernel column, for
 * every channel).  Then only the base stream is built, and a window of
 * stream (c, s) is read from it, AND valid.  The base stream's values
 * are the channel's rows, in order, so stream (c, s)'s values are runs of
 * them, broken only at the values of the columns s clips (at the rows'
 * ends).  Other shapes build a stream per (c, s, phase); there valid
 * keeps every bit.
 *
 * Two parallel passes.  By channel: its input rows (bits as 64-bit words,
 * values compacted row by row into cv), its streams, their values where
 * they are not simply the channel's rows of cv (a kernel column that
 * clips input columns, or a stride), and its output rows' windows and
 * counts, all while the channel's data is in the cache.  Every place is
 * known without a pass over the other channels: a channel's values start
 * in cv where X's row-major count of the rows before it says (X's tile
 * offsets and a few popcounts), and its streams' values at the same place
 * in their kernel column's region of vbuf (a stream holds at most the
 * channel's values).  Then by tile rows: the output.  It must give
 * exactly loom__ref_im2col_bitmap's matrix (masks, offsets, tile bits,
 * values).
 */

/* The streams' geometry: stream (c, s, phase) = (c*S + s)*stride_h + phase,
 * or stream c, the base stream of channel c. */
typedef struct stream_shape {
    int64_t slots, words; /* slots of out_w bits; 64-bit words, two to spare */
    int64_t count;        /* streams */
} stream_shape;

/* Stream k's words start at sbits[k * STREAM_PITCH(ss) + 1], after a zero
 * word (a window of a shifted stream starts up to 63 bits before the base
 * stream) and before another; the same for its prefix counts. */
#define STREAM_PITCH(ss) ((ss).words + 2)

/* One output row (c, r, s) as the output pass reads it. */
typedef struct kernel_line {
    const uint64_t *bits;  /* its stream's words, from the window's first word */
    const uint64_t *valid; /* which window bits are the output's, a word per 64 */
    const char *values;    /* the window's first value */
    int first;             /* the window's first bit in bits[0] */
} kernel_line;

typedef struct bitmap_work {
    const loom_conv_shape *sh;
    const loom_bitmap_view *x;
    int64_t out_h, out_w, ncols, rows, tile_cols;
    stream_shape ss;
    size_t es;
    bool base;         /* streams are windows of a base stream per channel */
    int64_t x_row0;    /* the image's first row of X */
    int64_t x_base;    /* X's values in the rows before it, in row order */
    int64_t pitch;     /* words per input row: (width + 63)/64 + 1, the last 0 */
    int64_t region;    /* values per kernel column's region of vbuf: the image's */
    char *cv;          /* the image's values, row by row (+ 256 bytes to spare) */
    char *vbuf;        /* streams' values: stream (c, s, phase) in region s, from
                        * its channel's place in cv (+ 256 bytes to spare) */
    const uint64_t *valid; /* with base, kernel column s's valid bits from
                            * valid[s * ss.words]; else ss.words ones */
    uint64_t *sbits;   /* the streams' words (STREAM_PITCH) */
    int64_t *spre;     /* stream values before each word */
    kernel_line *lines;
    int64_t *row_nnz;
    int64_t *tile_row_start; /* where each tile row's values start (tile_rows + 1) */
} bitmap_work;

/* A thread's scratch for the channel it works on. */
typedef struct channel_scratch {
    uint64_t *rb;         /* its rows' bits, pitch words a row */
    int64_t *pre;         /* position in cv of the first value of each word */
    int64_t *cur;         /* the next value of each input tile (X's tile_cols) */
    int64_t *phase_start; /* where the rows of each phase start, from the channel's
                           * start in cv (stride_h + 1) */
    int64_t *count;       /* with base: kernel column s's values in the rows before
                           * row h, count[s * (height + 1) + h] */
} channel_scratch;

static inline uint32_t x_mask(const loom_bitmap_view *x, int64_t xt, int64_t tw, int64_t l)
{
    return x->masks[(xt * x->tile_cols + tw) * LOOM__TILE + l];
}

/* X's values in its rows before row xr, in row order: those of the tile
 * rows before, and of the lines before in xr's tile row. */
static int64_t values_before(const loom_bitmap_view *x, int64_t xr)
{
    const int64_t xt = xr / LOOM__TILE;
    int64_t n = x->tile_offsets[xt * x->tile_cols];
    for (int64_t tw = 0; tw < x->tile_cols && xr % LOOM__TILE; tw++)
        for (int64_t l = 0; l < xr % LOOM__TILE; l++)
            n += __builtin_popcount(x_mask(x, xt, tw, l));
    return n;
}

/* 64 bits of a word array from bit k (the array has a word to spare). */
static inline uint64_t window64(const uint64_t *words, int64_t k)
{
    const int o = (int)(k & 63);
    const uint64_t *w = words + (k >> 6);
    return w[0] >> o | (w[1] << 1) << (63 - o);
}

/* The number of set bits before bit k of a word array with prefix counts. */
static inline int64_t rank(const uint64_t *words, const int64_t *pre, int64_t k)
{
    return pre[k >> 6] + __builtin_popcountll(words[k >> 6] & ((1ull << (k & 63)) - 1ull));
}

/* bytes from src to dst.  With room, in whole 64-byte blocks: at most 63
 * bytes past them read and written (the caller checks there is room). */
static inline void put_values(char *restrict dst, const char *restrict src, size_t bytes,
                              bool room)
{
    if (room) {
        size_t b = 0;
        do {
            memcpy(dst + b, src + b, 64);
            b += 64;
        } while (b < bytes);
    } else {
        memcpy(dst, src, bytes);
    }
}

/* Whether stream (c, s, phase) holds the channel's input rows whole and in
 * order, so that its values are the channel's rows of cv. */
static bool stream_is_channel(const bitmap_work *w, int64_t shift)
{
    const loom_conv_shape *sh = w->sh;
    return sh->stride_h == 1 && sh->stride_w == 1 && shift <= 0 && w->out_w + shift >= sh->width;
}

/* Input column of bit q of a slot, for kernel column s: q*stride_w + shift. */
static inline int64_t kernel_shift(const loom_conv_shape *sh, int64_t s)
{
    return s * sh->dilation_w - sh->pad_w;
}

/* Channel c's input rows: their bits and prefix counts (cs), their values
 * into cv from position pos (row order) up to end.  cur[tw] walks X's
 * tile tw of the current tile row. */
static void channel_rows(const bitmap_work *w, int64_t c, channel_scratch *cs, int64_t pos,
                         int64_t end)
{
    const loom_bitmap_view *x = w->x;
    const int64_t height = w->sh->height, pitch = w->pitch, xr0 = w->x_row0 + c * height;
    const size_t es = w->es;
    char *dst = w->cv + pos * (int64_t)es;
    const char *const dst_end = w->cv + end * (int64_t)es;
    const char *const src_end = (const char *)x->values + x->nnz * (int64_t)es;
    for (int64_t h = 0; h < height; h++) {
        const int64_t xt = (xr0 + h) / LOOM__TILE, l = (xr0 + h) % LOOM__TILE;
        if (h == 0 || l == 0) /* a new tile row */
            for (int64_t tw = 0; tw < x->tile_cols; tw++) {
                cs->cur[tw] = x->tile_offsets[xt * x->tile_cols + tw];
                for (int64_t k = 0; k < l; k++)
                    cs->cur[tw] += __builtin_popcount(x_mask(x, xt, tw, k));
            }
        uint64_t *word = cs->rb + h * pitch;
        int64_t *pre = cs->pre + h * pitch;
        for (int64_t i = 0; i < pitch - 1; i++) {
            word[i] = 0;
            pre[i] = pos;
            for (int64_t tw = 2 * i; tw < 2 * i + 2 && tw < x->tile_cols; tw++) {
                const uint32_t m = x_mask(x, xt, tw, l);
                const int n = __builtin_popcount(m);
                word[i] |= (uint64_t)m << (32 * (tw - 2 * i));
                if (!n)
                    continue;
                const char *src = (const char *)x->values + cs->cur[tw] * (int64_t)es;
                const size_t bytes = (size_t)n * es;
                put_values(dst, src, bytes,
                           dst_end - dst >= (ptrdiff_t)bytes + 64 &&
                               src_end - src >= (ptrdiff_t)bytes + 64);
                dst += bytes;
                cs->cur[tw] += n;
                pos += n;
            }
        }
        word[pitch - 1] = 0;
        pre[pitch - 1] = pos;
    }
}

/* Appends bits to a stream a word at a time, with its prefix counts: a
 * register holds the word being filled (an OR into memory per slot made
 * each slot wait for the store of the one before). */
typedef struct bit_writer {
    uint64_t *bits;
    int64_t *pre;
    int64_t words, n; /* words written; set bits so far */
    uint64_t acc;     /* the word being filled, from its bit 0 */
    int fill;         /* its bits so far (0..63) */
} bit_writer;

static inline void put_word(bit_writer *bw, uint64_t v)
{
    bw->bits[bw->words] = v;
    bw->pre[bw->words++] = bw->n;
    bw->n += __builtin_popcountll(v);
}

/* Appends the low n bits of v (1 <= n <= 64; v has no others). */
static inline void put_bits(bit_writer *bw, uint64_t v, int n)
{
    bw->acc |= v << bw->fill;
    if (bw->fill + n < 64) {
        bw->fill += n;
        return;
    }
    put_word(bw, bw->acc);
    bw->acc = bw->fill ? v >> (64 - bw->fill) : 0;
    bw->fill += n - 64;
}

static inline uint64_t low_bits(int64_t n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1ull;
}

/* Writes the last word and the spare ones; returns the stream's count. */
static int64_t finish_stream(const bitmap_work *w, bit_writer *bw)
{
    if (bw->fill)
        put_word(bw, bw->acc);
    while (bw->words < w->ss.words)
        put_word(bw, 0);
    return bw->n;
}

/* Builds a stream's bits and prefix counts from its channel's rows: slot
 * k is row h = k*stride_h + phase - pad_h, its bit q input column
 * q*stride_w + shift, for q in [q_lo, q_hi) with stride_w 1 (all q
 * otherwise); returns its count. */
static int64_t build_stream(const bitmap_work *w, uint64_t *bits, int64_t *pre,
                            const uint64_t *rows, int64_t phase, int64_t shift, int64_t q_lo,
                            int64_t q_hi)
{
    const loom_conv_shape *sh = w->sh;
    const int64_t out_w = w->out_w;
    bit_writer bw = {bits, pre, 0, 0, 0, 0};
    if (sh->stride_w == 1 && out_w <= 64) {
        /* A slot is one piece: a window of its row, clipped, in place. */
        const uint64_t keep = q_lo < q_hi ? low_bits(q_hi - q_lo) : 0;
        const int64_t x0 = q_lo < q_hi ? q_lo + shift : 0;
        for (int64_t k = 0; k < w->ss.slots; k++) {
            const int64_t h = k * sh->stride_h + phase - sh->pad_h;
            const uint64_t v = h < 0 || h >= sh->height
                                   ? 0
                                   : (window64(rows + h * w->pitch, x0) & keep) << q_lo;
            put_bits(&bw, v, (int)out_w);
        }
        return finish_stream(w, &bw);
    }
    for (int64_t k = 0; k < w->ss.slots; k++) {
        const int64_t h = k * sh->stride_h + phase - sh->pad_h;
        const uint64_t *row = h < 0 || h >= sh->height ? NULL : rows + h * w->pitch;
        for (int64_t q = 0; q < out_w; q += 64) { /* the slot's bits q .. q+63 */
            const int piece = out_w - q < 64 ? (int)(out_w - q) : 64;
            uint64_t v = 0;
            if (row && sh->stride_w == 1) {
                const int64_t lo = q > q_lo ? q : q_lo;
                const int64_t hi = q + piece < q_hi ? q + piece : q_hi;
                if (lo < hi)
                    v = (window64(row, lo + shift) & low_bits(hi - lo)) << (lo - q);
            } else if (row) {
                for (int j = 0; j < piece; j++) {
                    const int64_t x = (q + j) * sh->stride_w + shift;
                    if (x >= 0 && x < sh->width && (row[x >> 6] >> (x & 63) & 1u))
                        v |= 1ull << j;
                }
            }
            put_bits(&bw, v, piece);
        }
    }
    return finish_stream(w, &bw);
}

/* For stride_w 1: the q of a slot inside the input, [q_lo, q_hi), for a
 * kernel column's shift. */
static void slot_range(const bitmap_work *w, int64_t shift, int64_t *q_lo, int64_t *q_hi)
{
    *q_lo = shift < 0 ? -shift : 0;
    *q_hi = w->sh->width - shift < w->out_w ? w->sh->width - shift : w->out_w;
}

/* The valid bits of a kernel column (see the top of this section): in
 * every slot, the q inside the input. */
static void valid_bits(const bitmap_work *w, int64_t shift, uint64_t *bits, int64_t *pre)
{
    int64_t q_lo, q_hi;
    slot_range(w, shift, &q_lo, &q_hi);
    bit_writer bw = {bits, pre, 0, 0, 0, 0};
    for (int64_t k = 0; k < w->ss.slots; k++)
        for (int64_t q = 0; q < w->out_w; q += 64) {
            const int piece = w->out_w - q < 64 ? (int)(w->out_w - q) : 64;
            const int64_t lo = q > q_lo ? q : q_lo, hi = q + piece < q_hi ? q + piece : q_hi;
            put_bits(&bw, lo < hi ? low_bits(hi - lo) << (lo - q) : 0, piece);
        }
    finish_stream(w, &bw);
}

/* Builds stream k from its channel's rows, for a phase, a kernel column's
 * shift and [q_lo, q_hi), with its zero words around; returns its count. */
static int64_t stream_at(const bitmap_work *w, int64_t k, const uint64_t *rows, int64_t phase,
                         int64_t shift, int64_t q_lo, int64_t q_hi)
{
    uint64_t *bits = w->sbits + k * STREAM_PITCH(w->ss);
    int64_t *pre = w->spre + k * STREAM_PITCH(w->ss);
    const int64_t n = build_stream(w, bits + 1, pre + 1, rows, phase, shift, q_lo, q_hi);
    bits[0] = 0;
    pre[0] = 0;
    bits[w->ss.words + 1] = 0;
    pre[w->ss.words + 1] = n;
    return n;
}

/* The bits of word i of a row whose input columns lie in [lo, hi). */
static inline uint64_t columns_in(int64_t i, int64_t lo, int64_t hi)
{
    lo -= 64 * i;
    hi -= 64 * i;
    const uint64_t below_hi = hi <= 0 ? 0 : low_bits(hi);
    return lo <= 0 ? below_hi : below_hi & ~low_bits(lo);
}

/* Copies the run of cv before each value under the bits of out (of row
 * word r, whose first value is at first in cv) to *dst, from *run on, and
 * moves *run past that value. */
static inline void leave_out(const bitmap_work *w, uint64_t out, uint64_t r, int64_t first,
                             char **dst, int64_t *run, const char *dst_end, const char *cv_end)
{
    const size_t es = w->es;
    for (; out; out &= out - 1) {
        const int64_t e = first + __builtin_popcountll(r & ((out & (0ull - out)) - 1ull));
        const size_t bytes = (size_t)(e - *run) * es;
        const char *src = w->cv + *run * (int64_t)es;
        if (bytes)
            put_values(*dst, src, bytes,
                       dst_end - *dst >= (ptrdiff_t)bytes + 64 &&
                           cv_end - src >= (ptrdiff_t)bytes + 64);
        *dst += bytes;
        *run = e + 1;
    }
}

/* With a base stream (stride 1): the values of kernel column s in each
 * row of the channel (count, as sums over the rows before), and unless
 * dst is NULL (a channel's stream: every column), the values themselves:
 * the channel's values in cv, less those of the columns that s clips,
 * which break the runs copied.  Block copies stay below dst_end and read
 * below cv_end. */
static void base_values(const bitmap_work *w, const channel_scratch *cs, int64_t shift,
                        int64_t *count, char *dst, const char *dst_end, const char *cv_end)
{
    const loom_conv_shape *sh = w->sh;
    const int64_t pitch = w->pitch;
    int64_t q_lo, q_hi;
    slot_range(w, shift, &q_lo, &q_hi);
    const int64_t lo = q_lo + shift, hi = q_hi + shift; /* input columns */
    int64_t run = cs->pre[0], total = 0;               /* the run of cv not yet copied */
    count[0] = 0;
    if (pitch == 2) { /* (a row in a word) */
        const uint64_t in = columns_in(0, lo, hi), out = dst ? ~in : 0;
        for (int64_t h = 0; h < sh->height; h++) {
            const uint64_t r = cs->rb[2 * h];
            total += __builtin_popcountll(r & in);
            count[h + 1] = total;
            if (r & out) /* (rare: a value in a clipped column) */
                leave_out(w, r & out, r, cs->pre[2 * h], &dst, &run, dst_end, cv_end);
        }
    } else {
        for (int64_t h = 0; h < sh->height; h++) {
            for (int64_t i = 0; i < pitch - 1; i++) {
                const uint64_t r = cs->rb[h * pitch + i], in = columns_in(i, lo, hi);
                total += __builtin_popcountll(r & in);
                if (dst)
                    leave_out(w, r & ~in, r, cs->pre[h * pitch + i], &dst, &run, dst_end, cv_end);
            }
            count[h + 1] = total;
        }
    }
    const int64_t end = cs->pre[sh->height * pitch - 1];
    if (dst && end > run)
        memcpy(dst, w->cv + run * (int64_t)w->es, (size_t)(end - run) * w->es);
}

/* Copies the n values of stream i (not one of a channel's) from cv, whose
 * channel's values end at cv_end, to dst.  With stride_w 1 a slot's values
 * are a piece of its row's, and consecutive pieces that touch in cv are
 * copied as one. */
static void stream_values(const bitmap_work *w, int64_t i, const channel_scratch *cs, char *dst,
                          int64_t n, const char *cv_end)
{
    const loom_conv_shape *sh = w->sh;
    const int64_t phase = i % sh->stride_h, s = i / sh->stride_h % sh->kernel_w;
    const int64_t shift = kernel_shift(sh, s), out_w = w->out_w;
    const size_t es = w->es;
    const char *const dst_end = dst + n * (int64_t)es;
    int64_t a = 0, b = 0; /* the pending piece of cv: [a, b) */
    for (int64_t k = 0; k < w->ss.slots; k++) {
        const int64_t h = k * sh->stride_h + phase - sh->pad_h;
        if (h < 0 || h >= sh->height)
            continue;
        const uint64_t *row = cs->rb + h * w->pitch;
        const int64_t *pre = cs->pre + h * w->pitch;
        if (pre[w->pitch - 1] == pre[0]) /* (an empty row) */
            continue;
        if (sh->stride_w == 1) {
            const int64_t lo = shift > 0 ? shift : 0;
            const int64_t hi = out_w + shift < sh->width ? out_w + shift : sh->width;
            if (hi <= lo)
                continue;
            const int64_t a1 = rank(row, pre, lo), b1 = rank(row, pre, hi);
            if (a1 == b)
                b = b1;
            else {
                const size_t bytes = (size_t)(b - a) * es;
                const char *src = w->cv + a * (int64_t)es;
                if (bytes)
                    put_values(dst, src, bytes,
                               dst_end - dst >= (ptrdiff_t)bytes + 64 &&
                                   cv_end - src >= (ptrdiff_t)bytes + 64);
                dst += bytes;
                a = a1;
                b = b1;
            }
        } else {
            for (int64_t q = 0; q < out_w; q++) {
                const int64_t x = q * sh->stride_w + shift;
                if (x >= 0 && x < sh->width && (row[x >> 6] >> (x & 63) & 1u)) {
                    memcpy(dst, w->cv + rank(row, pre, x) * (int64_t)es, es);
                    dst += es;
                }
            }
        }
    }
    if (b > a)
        memcpy(dst, w->cv + a * (int64_t)es, (size_t)(b - a) * es);
}

/* Channel c: its rows, its streams and its output rows' windows and
 * counts. */
static void channel_pass(const bitmap_work *w, int64_t c, channel_scratch *cs)
{
    const loom_conv_shape *sh = w->sh;
    const size_t es = w->es;
    const int64_t xr0 = w->x_row0 + c * sh->height, sp = STREAM_PITCH(w->ss);
    const int64_t start = values_before(w->x, xr0) - w->x_base;
    const int64_t end = values_before(w->x, xr0 + sh->height) - w->x_base;
    channel_rows(w, c, cs, start, end);
    if (w->base) {
        stream_at(w, c, cs->rb, 0, 0, 0, sh->width);
        for (int64_t s = 0; s < sh->kernel_w; s++) {
            const int64_t shift = kernel_shift(sh, s);
            base_values(w, cs, shift, cs->count + s * (sh->height + 1),
                        stream_is_channel(w, shift)
                            ? NULL
                            : w->vbuf + (s * w->region + start) * (int64_t)es,
                        w->vbuf + (s * w->region + end) * (int64_t)es, w->cv + end * (int64_t)es);
        }
        for (int64_t r = 0; r < sh->kernel_h; r++) {
            /* Output row p reads input row h0 + p. */
            const int64_t h0 = r * sh->dilation_h - sh->pad_h;
            const int64_t lo = h0 < 0 ? 0 : h0 > sh->height ? sh->height : h0;
            const int64_t hi = h0 + w->out_h < lo ? lo
                               : h0 + w->out_h > sh->height ? sh->height
                                                             : h0 + w->out_h;
            for (int64_t s = 0; s < sh->kernel_w; s++) {
                const int64_t row = (c * sh->kernel_h + r) * sh->kernel_w + s;
                const int64_t shift = kernel_shift(sh, s);
                const int64_t *count = cs->count + s * (sh->height + 1);
                /* The window's first bit, from the zero word before the stream. */
                const int64_t t = r * sh->dilation_h * w->out_w + shift + 64;
                const int64_t at = start + count[lo]; /* in cv, and in the region of vbuf */
                const char *values = stream_is_channel(w, shift)
                                         ? w->cv + at * (int64_t)es
                                         : w->vbuf + (s * w->region + at) * (int64_t)es;
                kernel_line line = {w->sbits + c * sp + t / 64, w->valid + s * w->ss.words, values,
                                    (int)(t % 64)};
                w->lines[row] = line;
                w->row_nnz[row] = count[hi] - count[lo];
            }
        }
        return;
    }
    /* Where the rows of each phase start: a stream holds the values of the
     * rows of its phase at most. */
    cs->phase_start[0] = 0;
    for (int64_t ph = 0; ph < sh->stride_h; ph++) {
        int64_t n = 0; /* rows h = k*stride_h + ph - pad_h */
        for (int64_t h = (ph - sh->pad_h % sh->stride_h + sh->stride_h) % sh->stride_h;
             h < sh->height; h += sh->stride_h)
            n += cs->pre[h * w->pitch + w->pitch - 1] - cs->pre[h * w->pitch];
        cs->phase_start[ph + 1] = cs->phase_start[ph] + n;
    }
    for (int64_t s = 0; s < sh->kernel_w; s++)
        for (int64_t ph = 0; ph < sh->stride_h; ph++) {
            const int64_t i = (c * sh->kernel_w + s) * sh->stride_h + ph;
            const int64_t shift = kernel_shift(sh, s);
            int64_t q_lo = 0, q_hi = w->out_w;
            if (sh->stride_w == 1)
                slot_range(w, shift, &q_lo, &q_hi);
            const int64_t n = stream_at(w, i, cs->rb, ph, shift, q_lo, q_hi);
            if (n && !stream_is_channel(w, shift))
                stream_values(w, i, cs,
                              w->vbuf + (s * w->region + start + cs->phase_start[ph]) * (int64_t)es,
                              n, w->cv + end * (int64_t)es);
        }
    for (int64_t r = 0; r < sh->kernel_h; r++) {
        const int64_t g = r * sh->dilation_h, first = g / sh->stride_h * w->out_w + 64;
        const int64_t ph = g % sh->stride_h;
        for (int64_t s = 0; s < sh->kernel_w; s++) {
            const int64_t i = (c * sh->kernel_w + s) * sh->stride_h + ph;
            const int64_t row = (c * sh->kernel_h + r) * sh->kernel_w + s;
            const uint64_t *bits = w->sbits + i * sp;
            const int64_t *pre = w->spre + i * sp;
            const char *values =
                stream_is_channel(w, kernel_shift(sh, s))
                    ? w->cv + start * (int64_t)es
                    : w->vbuf + (s * w->region + start + cs->phase_start[ph]) * (int64_t)es;
            const int64_t a = rank(bits, pre, first);
            kernel_line line = {bits + (first >> 6), w->valid, values + a * (int64_t)es,
                                (int)(first & 63)};
            w->lines[row] = line;
            w->row_nnz[row] = rank(bits, pre, first + w->ncols) - a;
        }
    }
}

/* The lines of the 32 masks m that are not zero, as bits (with SSE2, a
 * compare and a movemask per 4 lines: the scalar loop cost as much as
 * the masks themselves at high sparsity).  In a last tile row of fewer
 * than 32 lines, the masks past the matrix are the allocation's zeros. */
static inline uint32_t nonzero_lines(const uint32_t *m)
{
    uint32_t zero = 0;
#ifdef __SSE2__
    const __m128i z = _mm_setzero_si128();
    for (int l = 0; l < LOOM__TILE; l += 4) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(m + l));
        zero |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, z))) << l;
    }
#else
    for (int l = 0; l < LOOM__TILE; l++)
        zero |= (uint32_t)(m[l] == 0) << l;
#endif
    return ~zero;
}

/* Tiles per pass of tile_row: a pass's masks (16 x 128 bytes) stay in the
 * L1 cache between its two halves. */
#define TILE_ROW_PASS 16

/* Tile row ti of the output: its masks, tile offsets and values, from
 * dst to dst_end, TILE_ROW_PASS tiles at a time.  First the masks, a line
 * at a time: its window's words are funnel shifts of consecutive words of
 * its stream, by one count, AND valid.  Then the values, tile by tile, of
 * the lines that are not empty there: a line's run in a tile starts where
 * its run in the tile before ended, so each line keeps a running pointer
 * (no rank per mask).  es is a constant in each caller, so that the
 * copies are plain moves. */
static inline __attribute__((always_inline)) void
tile_row(const bitmap_work *w, loom_bitmap *b, int64_t ti, const size_t es, char *dst,
         const char *dst_end)
{
    const int64_t tc = w->tile_cols, full_pairs = tc / 2, pairs = (tc + 1) / 2;
    const int lines = (int)((ti + 1) * LOOM__TILE <= w->rows ? LOOM__TILE : w->rows - ti * LOOM__TILE);
    const kernel_line *line = w->lines + ti * LOOM__TILE;
    uint32_t *masks = b->masks + ti * tc * LOOM__TILE;
    int64_t *tile_offsets = b->tile_offsets + ti * tc;
    /* The window's bits past the output's last column are the next slots':
     * keep only the columns of the last 64-bit piece. */
    const int64_t last_bits = w->ncols - (pairs - 1) * 64;
    const uint64_t last_keep = last_bits >= 64 ? ~0ull : (1ull << last_bits) - 1ull;
    const char *next[LOOM__TILE]; /* each line's next value */
    for (int l = 0; l < lines; l++)
        next[l] = line[l].values;
    const char *const start = dst;
    for (int64_t i0 = 0; i0 < pairs; i0 += TILE_ROW_PASS / 2) {
        const int64_t i1 = i0 + TILE_ROW_PASS / 2 < pairs ? i0 + TILE_ROW_PASS / 2 : pairs;
        /* Pairs of whole tiles whose bits are all the output's. */
        const int64_t whole = i1 < pairs - 1 ? i1 : pairs - 1;
        for (int l = 0; l < lines; l++) {
            const uint64_t *word = line[l].bits, *v = line[l].valid;
            const int o = line[l].first;
            uint32_t *m = masks + l;
            for (int64_t i = i0; i < whole; i++) {
                const uint64_t x = (word[i] >> o | (word[i + 1] << 1) << (63 - o)) & v[i];
                m[2 * i * LOOM__TILE] = (uint32_t)x;
                m[(2 * i + 1) * LOOM__TILE] = (uint32_t)(x >> 32);
            }
            if (whole < i1) { /* the last pair: its last tile may be past the output */
                const int64_t i = pairs - 1;
                const uint64_t x =
                    (word[i] >> o | (word[i + 1] << 1) << (63 - o)) & v[i] & last_keep;
                m[2 * i * LOOM__TILE] = (uint32_t)x;
                if (full_pairs == pairs)
                    m[(2 * i + 1) * LOOM__TILE] = (uint32_t)(x >> 32);
            }
        }
        const int64_t tj1 = 2 * i1 < tc ? 2 * i1 : tc;
        for (int64_t tj = 2 * i0; tj < tj1; tj++) {
            const uint32_t *m = masks + tj * LOOM__TILE;
            tile_offsets[tj] = w->tile_row_start[ti] + (int64_t)((size_t)(dst - start) / es);
            for (uint32_t u = nonzero_lines(m); u; u &= u - 1) {
                const int l = __builtin_ctz(u);
                /* A line has at most 32 values; blocks run at most 63 bytes past. */
                const size_t bytes = (size_t)__builtin_popcount(m[l]) * es;
                put_values(dst, next[l], bytes, dst_end - dst >= (ptrdiff_t)(LOOM__TILE * es + 64));
                next[l] += bytes;
                dst += bytes;
            }
        }
    }
}

typedef struct bitmap_scratch {
    uint64_t *sbits, *rb, *valid;
    int64_t *spre, *pre, *cur, *phase_start, *count, *valid_pre, *row_nnz, *tile_row_start;
    char *cv, *vbuf;
    kernel_line *lines;
} bitmap_scratch;

static void scratch_free(bitmap_scratch *s)
{
    loom__free(s->sbits);
    loom__free(s->rb);
    loom__free(s->valid);
    loom__free(s->spre);
    loom__free(s->pre);
    loom__free(s->cur);
    loom__free(s->phase_start);
    loom__free(s->count);
    loom__free(s->valid_pre);
    loom__free(s->row_nnz);
    loom__free(s->tile_row_start);
    loom__free(s->cv);
    loom__free(s->vbuf);
    loom__free(s->lines);
}

loom_status loom__omp_im2col_bitmap(loom_context *ctx, const loom_conv_shape *sh, int64_t out_h,
                                    int64_t out_w, const loom_bitmap *X, int64_t image,
                                    loom_bitmap **cols)
{
    const loom_bitmap_view *x = &X->v;
    const size_t es = loom_dtype_size(x->dtype);
    const int64_t rows = sh->channels * sh->kernel_h * sh->kernel_w, ncols = out_h * out_w;
    const int64_t x_rows = sh->channels * sh->height, x_row0 = image * x_rows;
    const int64_t pitch = (sh->width + 63) / 64 + 1;
    const int64_t x_base = values_before(x, x_row0);
    const int64_t x_nnz = values_before(x, x_row0 + x_rows) - x_base;
    const int threads = ctx && ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
    /* A base stream per channel (see the top of this section), for shifts
     * that keep a window within a word of its slot? */
    const bool base = sh->stride_w == 1 && sh->stride_h == 1 && sh->width <= out_w &&
                      kernel_shift(sh, 0) >= -63 && kernel_shift(sh, sh->kernel_w - 1) <= 63;
    stream_shape ss;
    ss.slots = (sh->kernel_h - 1) * sh->dilation_h / sh->stride_h + out_h;
    ss.words = (ss.slots * out_w + 63) / 64 + 2;
    ss.count = base ? sh->channels : sh->channels * sh->kernel_w * sh->stride_h;
    loom_bitmap *b = NULL;
    loom_status st = loom__bitmap_alloc(rows, ncols, 0, LOOM_BITMAP_ROWS, x->dtype, &b);
    if (st != LOOM_SUCCESS)
        return st;
    const int64_t tile_rows = b->v.tile_rows, tc = b->v.tile_cols, tiles = tile_rows * tc;
    const size_t row_words = (size_t)(threads * sh->height * pitch);
    const size_t stream_words = (size_t)(ss.count * STREAM_PITCH(ss));
    const int64_t counts = base ? sh->kernel_w * (sh->height + 1) : 1;
    bitmap_scratch s = {
        loom__malloc(stream_words * sizeof(uint64_t)),
        loom__malloc(row_words * sizeof(uint64_t)),
        loom__malloc((size_t)((base ? sh->kernel_w : 1) * ss.words) * sizeof(uint64_t)),
        loom__malloc(stream_words * sizeof(int64_t)),
        loom__malloc(row_words * sizeof(int64_t)),
        loom__malloc((size_t)(threads * x->tile_cols) * sizeof(int64_t)),
        loom__malloc((size_t)(threads * (sh->stride_h + 1)) * sizeof(int64_t)),
        loom__malloc((size_t)(threads * counts) * sizeof(int64_t)),
        loom__malloc((size_t)ss.words * sizeof(int64_t)),
        loom__malloc((size_t)rows * sizeof(int64_t)),
        loom__malloc((size_t)(tile_rows + 1) * sizeof(int64_t)),
        loom__malloc((size_t)x_nnz * es + 256),
        loom__malloc((size_t)(sh->kernel_w * x_nnz) * es + 256),
        loom__malloc((size_t)rows * sizeof(kernel_line)),
    };
    if (!s.sbits || !s.rb || !s.valid || !s.spre || !s.pre || !s.cur || !s.phase_start ||
        !s.count || !s.valid_pre || !s.row_nnz || !s.tile_row_start || !s.cv || !s.vbuf ||
        !s.lines) {
        scratch_free(&s);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    /* The bytes to spare that block copies read past the last values. */
    memset(s.cv + x_nnz * (int64_t)es, 0, 256);
    memset(s.vbuf + sh->kernel_w * x_nnz * (int64_t)es, 0, 256);
    bitmap_work w = {sh,     x,       out_h,  out_w,   ncols,  rows,  tc,     ss,
                     es,     base,    x_row0, x_base,  pitch,  x_nnz, s.cv,   s.vbuf,
                     s.valid, s.sbits, s.spre, s.lines, s.row_nnz, s.tile_row_start};
    if (base)
        for (int64_t ks = 0; ks < sh->kernel_w; ks++)
            valid_bits(&w, kernel_shift(sh, ks), s.valid + ks * ss.words, s.valid_pre);
    else
        for (int64_t j = 0; j < ss.words; j++)
            s.valid[j] = ~0ull;
    void *values = NULL;
    bool ok = true;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        channel_scratch cs = {s.rb + t * sh->height * pitch, s.pre + t * sh->height * pitch,
                              s.cur + t * x->tile_cols, s.phase_start + t * (sh->stride_h + 1),
                              s.count + t * counts};
#pragma omp for schedule(static)
        for (int64_t c = 0; c < sh->channels; c++)
            channel_pass(&w, c, &cs);
        /* On the calling thread (master, not single): glibc serves another
         * thread from that thread's arena, which trims itself when the
         * caller frees the matrix, so the next call's values page-fault
         * again (at 75% on 2 threads, about 900 faults a call). */
#pragma omp master
        {
            s.tile_row_start[0] = 0;
            for (int64_t ti = 0; ti < tile_rows; ti++) {
                int64_t n = s.tile_row_start[ti];
                for (int64_t row = ti * LOOM__TILE; row < rows && row < (ti + 1) * LOOM__TILE; row++)
                    n += s.row_nnz[row];
                s.tile_row_start[ti + 1] = n;
            }
            values = loom__malloc((size_t)(s.tile_row_start[tile_rows] ? s.tile_row_start[tile_rows] : 1) * es);
            ok = values != NULL;
        }
#pragma omp barrier
        /* The output, a tile row at a time. */
        if (ok) {
#pragma omp for schedule(static)
            for (int64_t ti = 0; ti < tile_rows; ti++) {
                char *dst = (char *)values + s.tile_row_start[ti] * (int64_t)es;
                const char *dst_end = (const char *)values + s.tile_row_start[ti + 1] * (int64_t)es;
                if (es == 4)
                    tile_row(&w, b, ti, 4, dst, dst_end);
                else
                    tile_row(&w, b, ti, 8, dst, dst_end);
            }
        }
    }
    const int64_t nnz = ok ? s.tile_row_start[tile_rows] : 0;
    scratch_free(&s);
    if (!ok) {
        loom__free(values);
        loom_bitmap_destroy(&b);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "im2col (bitmap): out of memory");
    }
    b->tile_offsets[tiles] = nnz;
    for (int64_t t = 0; t < tiles; t++)
        if (b->tile_offsets[t + 1] != b->tile_offsets[t])
            b->tile_bits[t / 64] |= 1ull << (t % 64);
    loom__free(b->values);
    b->values = values;
    b->v.values = values;
    b->v.nnz = nnz;
    *cols = b;
    return LOOM_SUCCESS;
}
