/*
 * omp_sell.c - the sliced copies of A that the OpenMP backend's N = 1
 * RB+SR kernel (sell_slices_n1 in omp_kernels_impl.h) walks with rows in
 * vector lanes, and the plan-time race that decides whether one of them,
 * or the plain CSR kernel, runs.  Every choice here gives the same bits
 * (each lane is one row's fma chain of order_rb_sr.h); only speed differs.
 */
#include "config.h"
#include "loom_internal.h"
#include "omp_sell.h"

#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void omp_sell_free(omp_sell *s)
{
    loom__free(s->ptr);
    loom__free(s->part);
    loom__free(s->rows);
    loom__free(s->len);
    loom__free(s->min);
    loom__free(s->cols);
    loom__free(s->rows32);
    loom__free(s->vals);
    loom__free(s->empty);
    loom__free(s->empty_part);
    loom__free(s->win_slice);
    loom__free(s->win_part);
    memset(s, 0, sizeof *s);
}

void omp_sell_args(ompk_args *g, const omp_sell *s)
{
    const int on = s && s->h;
    g->sell_h = on ? s->h : 0;
    g->sell_slices = on ? s->slices : 0;
    g->sell_ptr = on ? s->ptr : NULL;
    g->sell_len = on ? s->len : NULL;
    g->sell_min = on ? s->min : NULL;
    g->sell_cols = on ? s->cols : NULL;
    g->sell_vals = on ? s->vals : NULL;
    g->sell_part = on ? s->part : NULL;
    g->sell_rows = on ? s->rows : NULL;
    g->sell_rows32 = on ? s->rows32 : NULL;
    g->sell_empty = on ? s->empty : NULL;
    g->sell_empty_part = on ? s->empty_part : NULL;
    g->sell_window = on ? s->window : 0;
    g->sell_win_slice = on ? s->win_slice : NULL;
    g->sell_win_part = on ? s->win_part : NULL;
}

int omp_sell_height(omp_isa isa, loom_dtype dtype)
{
    const int f64 = dtype == LOOM_F64;
    switch (isa) {
    case OMP_ISA_AVX2: return f64 ? 4 : 8;
    case OMP_ISA_AVX512: return f64 ? 8 : 16;
    default: return 0;
    }
}

/* Rows per sorting window of the sliced copy, in slices: inside a window
 * rows are sorted by length (SELL-C-sigma), so a slice holds rows of
 * similar length; the window keeps rows near their neighbours (x and y
 * stay local). */
#define SELL_WINDOW_SLICES 32

static int64_t row_length(const int64_t *ro, int64_t row)
{
    return row < 0 ? 0 : ro[row + 1] - ro[row];
}

/* Entries of the sliced copy, padding included, for the row order given
 * (NULL: rows in order); -1 when a row is too long for the lane counts. */
static int64_t sell_padded(const int64_t *ro, int64_t rows, const int64_t *order, int h)
{
    const int64_t slices = (rows + h - 1) / h;
    int64_t padded = 0;
    for (int64_t s = 0; s < slices; s++) {
        int64_t w = 0;
        for (int64_t i = s * h; i < (s + 1) * h; i++) {
            const int64_t len = order ? row_length(ro, order[i]) : i < rows ? row_length(ro, i) : 0;
            w = len > w ? len : w;
        }
        if (w > INT32_MAX)
            return -1;
        padded += w * h;
    }
    return padded;
}

/* The rows sorted by length inside windows; NULL when out of memory. */
static int64_t *sell_sorted_rows(const int64_t *ro, int64_t rows, int h)
{
    const int64_t slices = (rows + h - 1) / h, window = (int64_t)SELL_WINDOW_SLICES * h;
    int64_t *order = loom__malloc((size_t)(slices * h) * sizeof *order);
    int64_t *len = loom__malloc((size_t)(window < rows ? window : rows > 0 ? rows : 1) * sizeof *len);
    bool ok = order && len;
    for (int64_t i = rows; ok && i < slices * h; i++)
        order[i] = -1;
    for (int64_t w0 = 0; ok && w0 < rows; w0 += window) {
        const int64_t n = rows - w0 < window ? rows - w0 : window;
        for (int64_t i = 0; i < n; i++)
            len[i] = row_length(ro, w0 + i);
        int64_t *by_len = loom__longest_first_order(len, n);
        ok = by_len != NULL;
        for (int64_t i = 0; ok && i < n; i++)
            order[w0 + i] = w0 + by_len[i];
        loom__free(by_len);
    }
    loom__free(len);
    if (!ok) {
        loom__free(order);
        return NULL;
    }
    return order;
}

/* Fill the sliced copy s from A: lane l of slice k is row order[k*h + l]
 * (order NULL: row k*h + l; a lane past lane_rows or with row -1 holds no
 * row).  padded: the entries, padding included (sell_padded).  Padding
 * entries get value 0 and column 0, never used: the kernel masks them out.
 * Threads get runs of slices of equal cost (entries plus one lane-row of
 * overhead per slice). */
static loom_status sell_fill(omp_sell *s, const loom_csr *A, size_t es, int h, int parts,
                             const int64_t *order, int64_t lane_rows, int64_t padded)
{
    const int64_t *ro = A->row_offsets;
    const int64_t slices = (lane_rows + h - 1) / h;
    s->ptr = loom__malloc(((size_t)slices + 1) * sizeof *s->ptr);
    s->len = loom__malloc_huge(((size_t)slices * (size_t)h + 1) * sizeof *s->len);
    s->min = loom__malloc(((size_t)slices + 1) * sizeof *s->min);
    s->cols = loom__malloc_huge(((size_t)padded + 1) * sizeof *s->cols);
    s->vals = loom__malloc_huge(((size_t)padded + 1) * es);
    s->part = loom__malloc(((size_t)parts + 1) * sizeof *s->part);
    if (!s->ptr || !s->len || !s->min || !s->cols || !s->vals || !s->part)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
    const char *av = A->values;
    char *sv = s->vals;
    int64_t at = 0;
    for (int64_t k = 0; k < slices; k++) {
        int64_t w = 0, mn = INT64_MAX;
        for (int l = 0; l < h; l++) {
            const int64_t i = k * h + l;
            const int64_t len = order ? row_length(ro, order[i]) : i < lane_rows ? row_length(ro, i) : 0;
            s->len[k * h + l] = (int32_t)len;
            w = len > w ? len : w;
            mn = len < mn ? len : mn;
        }
        s->ptr[k] = at;
        s->min[k] = (int32_t)mn;
        for (int64_t t = 0; t < w; t++)
            for (int l = 0; l < h; l++) {
                const int64_t i = order ? order[k * h + l] : k * h + l, e = at + t * h + l;
                if (t < s->len[k * h + l]) {
                    s->cols[e] = A->col_indices[ro[i] + t];
                    memcpy((char *)sv + (size_t)e * es, av + (size_t)(ro[i] + t) * es, es);
                } else {
                    s->cols[e] = 0;
                    memset((char *)sv + (size_t)e * es, 0, es);
                }
            }
        at += w * h;
    }
    s->ptr[slices] = at;
    const int64_t total = at + slices * h;
    s->part[0] = 0;
    int64_t k = 0;
    for (int p = 1; p < parts; p++) {
        const int64_t target = total / parts * p + total % parts * p / parts;
        while (k < slices && s->ptr[k] + k * h < target)
            k++;
        s->part[p] = k;
    }
    s->part[parts] = slices;
    s->h = h;
    s->slices = slices;
    s->bytes = ((size_t)slices + 1) * (sizeof(int64_t) + sizeof(int32_t)) +
               (size_t)slices * (size_t)h * sizeof(int32_t) + (size_t)padded * (sizeof(int32_t) + es);
    return LOOM_SUCCESS;
}

/* The sliced copy of A for N = 1 RB+SR (rows in lanes, omp_kernels.h), rows
 * in place.  Rows stay in order unless sorting them by length inside
 * windows cuts the padding by more than 10%.  Returns LOOM_SUCCESS without
 * making one when it would not pay: rows so uneven inside slices that
 * padding would more than double the entries read. */
static loom_status sell_build(omp_sell *s, const loom_csr *A, size_t es, int h, int parts, int force)
{
    const int64_t rows = A->rows, *ro = A->row_offsets;
    int64_t padded = sell_padded(ro, rows, NULL, h);
    if (padded < 0 || padded > A->nnz + A->nnz / 10 + 16 * (int64_t)h) {
        int64_t *order = sell_sorted_rows(ro, rows, h);
        if (!order)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
        const int64_t sorted = sell_padded(ro, rows, order, h);
        if (sorted >= 0 && (padded < 0 || 10 * sorted < 9 * padded)) {
            padded = sorted;
            s->rows = order;
        } else {
            loom__free(order);
        }
    }
    if (padded < 0 || (!force && padded > 2 * A->nnz + 16 * (int64_t)h)) {
        loom__free(s->rows);
        s->rows = NULL;
        return LOOM_SUCCESS;
    }
    loom_status st = sell_fill(s, A, es, h, parts, s->rows, rows, padded);
    if (st == LOOM_SUCCESS && s->rows)
        s->bytes += (size_t)s->slices * (size_t)h * sizeof(int64_t);
    return st;
}

/* The non-empty rows ordered by length, longest first, ties in row order,
 * window by window (windows of `window` rows; a counting sort per window:
 * O(rows + windows * longest row)), each window's list padded with -1 to
 * whole slices.  *lanes: the entries of the order; *win_slice (windows + 1
 * entries): the first slice of each window.  NULL when out of memory. */
static int64_t *sell_rows_by_length(const int64_t *ro, int64_t rows, int h, int64_t window,
                                    int64_t *lanes, int64_t **win_slice)
{
    const int64_t windows = (rows + window - 1) / window;
    int64_t longest = 0, n = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = row_length(ro, i);
        longest = len > longest ? len : longest;
        n += len > 0;
    }
    int64_t *start = loom__malloc(((size_t)longest + 2) * sizeof *start);
    int64_t *order = loom__malloc(((size_t)(n + windows * (h - 1)) + 1) * sizeof *order);
    int64_t *ws = loom__malloc(((size_t)windows + 1) * sizeof *ws);
    if (!start || !order || !ws) {
        loom__free(start);
        loom__free(order);
        loom__free(ws);
        return NULL;
    }
    int64_t at = 0;
    for (int64_t w = 0; w < windows; w++) {
        const int64_t r0 = w * window, r1 = r0 + window < rows ? r0 + window : rows;
        ws[w] = at / h;
        memset(start, 0, ((size_t)longest + 2) * sizeof *start);
        int64_t here = 0;
        for (int64_t i = r0; i < r1; i++) {
            const int64_t len = row_length(ro, i);
            start[longest - len]++; /* bucket 0: the longest rows */
            here += len > 0;
        }
        for (int64_t b = 0, p = at; b <= longest; b++) {
            const int64_t c = start[b];
            start[b] = p;
            p += c;
        }
        for (int64_t i = r0; i < r1; i++) {
            const int64_t len = row_length(ro, i);
            if (len > 0)
                order[start[longest - len]++] = i;
        }
        at += here;
        for (; at % h; at++)
            order[at] = -1;
    }
    ws[windows] = at / h;
    loom__free(start);
    *lanes = at;
    *win_slice = ws;
    return order;
}

/* Rows per window of the sorted copy: y's lines for a window's rows fill
 * the L2 (hwloc's size, omp_topology.c), so they stay in the L2 or the
 * LLC while the window's slices scatter their sums into them and its
 * empty rows are finished, and go to memory once.  Measured on R-MAT s21
 * and s22 (Zen 4 VM, 1 MiB L2, columns relabeled): windows of an L2's y
 * ran 12-18% faster than one window of all rows, and 3-5% faster than a
 * quarter or an eighth of it (bench/results/cpu-2026-11-25-spmv-floor).
 * LOOM_OMP_SELL_WINDOW (rows) overrides it, for measurements and tests. */
#define SELL_WINDOW_L2_SHARE 1

static int64_t sell_window_rows(size_t es, size_t l2)
{
    const char *env = getenv("LOOM_OMP_SELL_WINDOW");
    int64_t w = env ? strtoll(env, NULL, 10) : (int64_t)(l2 / SELL_WINDOW_L2_SHARE / es);
    w = w / 64 * 64; /* whole words of the empty-row bitmap */
    return w < 64 ? 64 : w;
}

/* The sorted copy: only the non-empty rows, in slices by length inside
 * windows of rows (SELL-C-sigma, sigma = a window: an L2's share of y,
 * sell_window_rows), so slices hold rows of equal length nearly
 * everywhere and padding is near nil on power-law inputs, where a few
 * hundred rows mix a long row with many short and empty ones.  The price
 * is locality inside a window: a slice's rows, and so its writes of y and
 * its reads of x, come from all over the window (the plan's race
 * decides).  Empty rows cost no lane at all: a bitmap marks them and a
 * separate pass writes their finish (+0 through the same finish).  Where
 * there are at least two windows per thread part, threads take whole
 * windows (win_part), and each window's empty rows are finished right
 * after its slices, while its lines of y are in the L2.  Row numbers as
 * int32: not made for more rows than that. */
static loom_status sell_build_sorted(omp_sell *s, const loom_csr *A, size_t es, int h, int parts,
                                     size_t l2)
{
    const int64_t rows = A->rows, *ro = A->row_offsets;
    if (rows > INT32_MAX)
        return LOOM_SUCCESS;
    const int64_t window = sell_window_rows(es, l2), windows = (rows + window - 1) / window;
    int64_t lanes = 0, *win_slice = NULL;
    int64_t *order = sell_rows_by_length(ro, rows, h, window, &lanes, &win_slice);
    if (!order)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
    const int64_t padded = sell_padded(ro, lanes, order, h);
    const size_t words = (size_t)(rows + 63) / 64;
    loom_status st = LOOM_SUCCESS;
    if (padded >= 0)
        st = sell_fill(s, A, es, h, parts, order, lanes, padded);
    if (padded < 0 || st != LOOM_SUCCESS)
        goto done;
    s->rows32 = loom__malloc_huge(((size_t)(s->slices * h) + 1) * sizeof *s->rows32);
    s->empty = loom__calloc(words + 1, sizeof *s->empty);
    s->empty_part = loom__malloc(((size_t)parts + 1) * sizeof *s->empty_part);
    if (!s->rows32 || !s->empty || !s->empty_part) {
        st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
        goto done;
    }
    for (int64_t i = 0; i < s->slices * h; i++)
        s->rows32[i] = (int32_t)order[i];
    for (int64_t i = 0; i < rows; i++)
        if (row_length(ro, i) == 0)
            s->empty[i / 64] |= (uint64_t)1 << (i % 64);
    /* The empty-row pass split by rows, at whole bitmap words. */
    for (int p = 0; p <= parts; p++)
        s->empty_part[p] = p == parts ? rows : (int64_t)words * p / parts * 64;
    s->bytes += ((size_t)(s->slices * h) + 1) * sizeof *s->rows32 + (words + 1) * sizeof *s->empty;
    s->window = window;
    s->windows = windows;
    if (windows >= 2 * (int64_t)parts) {
        /* Whole windows per part, of equal cost: entries with padding,
         * plus a lane's worth per row for the finish of empty rows. */
        s->win_part = loom__malloc(((size_t)parts + 1) * sizeof *s->win_part);
        if (!s->win_part) {
            st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
            goto done;
        }
        const int64_t total = s->ptr[s->slices] + rows;
        s->win_part[0] = 0;
        int64_t w = 0;
        for (int p = 1; p < parts; p++) {
            const int64_t target = total / parts * p + total % parts * p / parts;
            while (w < windows && s->ptr[win_slice[w]] + w * window < target)
                w++;
            s->win_part[p] = w;
        }
        s->win_part[parts] = windows;
        s->bytes += ((size_t)parts + 1) * sizeof *s->win_part;
    }
    s->win_slice = win_slice;
    win_slice = NULL;
    s->bytes += ((size_t)windows + 1) * sizeof *s->win_slice;
done:
    loom__free(order);
    loom__free(win_slice);
    if (st != LOOM_SUCCESS || padded < 0)
        omp_sell_free(s);
    return st;
}

/* Keep the fastest of the CSR kernel and the sliced copies made: they win
 * on short or even rows (less loop overhead per row) and lose where x's
 * gather costs more than the rows' interleaved fma chains (measured on Zen
 * 3: about 0.7x to 1.7x either way); the sorted copy wins on
 * power-law rows and loses wherever neighbouring rows share columns.  All
 * give the same bits, so the race only decides speed: each runs once
 * untimed and four times timed, in turn, on a scratch x (ones) and y; the
 * best time wins.  Returns the winner's index in cand (NULL: CSR). */
/* A race leader this much faster than every other candidate has won. */
#define RACE_CLEAR 0.1

static int sell_race(ompk_spmm_fn spmm, const ompk_args *work, const loom_csr *A, size_t es,
                     const omp_sell *const *cand, int n)
{
    void *x = loom__malloc((size_t)A->cols * es), *y = loom__malloc((size_t)A->rows * es);
    if (!x || !y) {
        loom__free(x);
        loom__free(y);
        return n - 1; /* no scratch, no race: the last candidate */
    }
    for (int64_t k = 0; k < A->cols; k++) {
        if (es == sizeof(float))
            ((float *)x)[k] = 1.0f;
        else
            ((double *)x)[k] = 1.0;
    }
    ompk_args g = *work;
    g.x = x;
    g.x_rs = g.x_cs = 1;
    g.y = y;
    g.y_rs = g.y_cs = 1;
    g.n = 1;
    g.alpha = 1;
    g.mloop = LOOM_M_RB;
    g.kloop = LOOM_K_SR;
    double best[3] = {1e30, 1e30, 1e30};
    /* One untimed round first (y's first touch, the copies' first read),
     * then timed rounds, the candidates alternating: four, or up to 32
     * where a round takes under 2 ms (products of a few microseconds,
     * where one scheduling hiccup decides a race of four).  The long race
     * ends as soon as, after four timed rounds, the leader is over
     * RACE_CLEAR faster than every other: only close calls need the
     * extra rounds, and most races are not close. */
    const double r0 = omp_get_wtime();
    int rounds = 5, win = 0;
    for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < n; c++) {
            omp_sell_args(&g, cand[c]);
            const double t0 = omp_get_wtime();
            spmm(&g);
            const double t = omp_get_wtime() - t0;
            if (round > 0 && t < best[c])
                best[c] = t;
        }
        if (round == 0) {
            const double once = omp_get_wtime() - r0;
            rounds = once < 2e-3 / 7 ? 33 : once < 2e-3 ? 1 + (int)(8e-3 / once) : 5;
        }
        win = 0;
        for (int c = 1; c < n; c++)
            if (best[c] < best[win])
                win = c;
        bool clear = round >= 4;
        for (int c = 0; c < n && clear; c++)
            clear = c == win || best[win] < (1.0 - RACE_CLEAR) * best[c];
        if (clear)
            break;
    }
    loom__free(x);
    loom__free(y);
    return win;
}

/* N = 1 RB+SR: make the sliced copies worth a try, race them against the
 * CSR kernel and keep the winner in *out (none: CSR).  The globally
 * sorted copy is tried where the rows are uneven: empty rows, or in-place
 * slices that pad by more than 5% or were not made.  While racing, both
 * copies exist beside A (plan-time memory up to about three times A's). */
loom_status omp_sell_choose(omp_sell *out, const loom_csr *A, size_t es, int h, size_t l2,
                            ompk_spmm_fn spmm, const ompk_args *work)
{
    /* (tests) LOOM_OMP_SLICES_ALWAYS: the in-place copy whatever it costs;
     * LOOM_OMP_SLICES_SORTED: the sorted one; no race. */
    if (getenv("LOOM_OMP_SLICES_SORTED"))
        return sell_build_sorted(out, A, es, h, work->parts, l2);
    if (getenv("LOOM_OMP_SLICES_ALWAYS"))
        return sell_build(out, A, es, h, work->parts, 1);
    omp_sell cand[2];
    memset(cand, 0, sizeof cand);
    loom_status st = sell_build(&cand[0], A, es, h, work->parts, 0);
    const int64_t padded = cand[0].h ? cand[0].ptr[cand[0].slices] : -1;
    int64_t empty = 0;
    for (int64_t i = 0; i < A->rows && !empty; i++)
        empty = row_length(A->row_offsets, i) == 0;
    if (st == LOOM_SUCCESS && !getenv("LOOM_OMP_NO_SORTED") &&
        (empty || padded < 0 || padded > A->nnz + A->nnz / 20))
        st = sell_build_sorted(&cand[1], A, es, h, work->parts, l2);
    const omp_sell *list[3] = {NULL};
    int n = 1;
    for (int c = 0; c < 2 && st == LOOM_SUCCESS; c++)
        if (cand[c].h)
            list[n++] = &cand[c];
    const int win = n > 1 ? sell_race(spmm, work, A, es, list, n) : 0;
    for (int c = 0; c < 2; c++) {
        if (win > 0 && list[win] == &cand[c])
            *out = cand[c];
        else
            omp_sell_free(&cand[c]);
    }
    return st;
}
