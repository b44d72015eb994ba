/*
 * openmp_backend.c - the OpenMP SIMD backend's descriptor: every design,
 * float and double, host memory, any thread count, the same bits as the
 * reference.  Planning picks the kernel for this CPU (AVX-512, AVX2 or
 * portable), the thread count and placement (hwloc), the split of rows
 * between threads and the column tile, and for N = 1 RB+SR a sliced copy of
 * A with rows in vector lanes (rows in place, or sorted by length over the
 * whole matrix with the empty rows left out) where that runs faster; execution packs
 * column-major X when it has to and runs the kernel (omp_kernels_impl.h).
 *
 * Environment (for measurements and tests): LOOM_OMP_NO_SLICES (no sliced
 * copy), LOOM_OMP_SLICES_ALWAYS (make and keep the in-place one whatever
 * it costs), LOOM_OMP_SLICES_SORTED (make and keep the globally sorted
 * one), LOOM_OMP_NO_SORTED (never try the globally sorted one),
 * LOOM_OMP_NO_INTERLEAVE (the one-row-at-a-time RB+SR kernels),
 * LOOM_OMP_SERIAL_WORK (nnz*N below which one thread runs; default 4096).
 */
#include "config.h"
#include "loom_internal.h"
#include "omp_kernels.h"
#include "omp_topology.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default threshold of one-thread execution, nnz * N (LOOM_OMP_SERIAL_WORK
 * overrides it). */
#define OMP_SERIAL_WORK 4096

/* A sliced copy of A for N = 1 RB+SR, rows in vector lanes (the layout is
 * described at ompk_args; h == 0: none). */
typedef struct omp_sell {
    int h;
    int64_t slices;
    int64_t *ptr, *part, *rows;
    int32_t *len, *min, *cols, *rows32;
    void *vals;
    uint64_t *empty;
    int64_t *empty_part;
    size_t bytes;
} omp_sell;

typedef struct omp_plan_data {
    int threads;
    omp_isa isa;
    ompk_spmm_fn spmm;
    ompk_pack_fn pack;
    int parts;
    int64_t *row_part;  /* parts + 1 row boundaries (RB) */
    int64_t col_pass;   /* columns of X per pass (RB, N > 1) */
    void *carry_first;  /* EB: chunks * n each */
    void *carry_last;
    void *x_packed;     /* column-major X copied row-major (N > 1) */
    omp_sell sell;      /* RB+SR, N = 1 */
    int interleave;
    int64_t serial_work; /* below this many nnz*n, one thread (see openmp_spmm) */
} omp_plan_data;

static loom_status openmp_probe(void)
{
    return LOOM_SUCCESS;
}

static loom_status openmp_supports(const loom_strategy *s, loom_dtype dtype, loom_memory memory)
{
    (void)s;
    if (dtype != LOOM_F32 && dtype != LOOM_F64)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "openmp: dtype %d is not supported", (int)dtype);
    if (memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "openmp: operands must be in host memory (copy them with loom_csr_copy "
                           "/ loom_dense_copy, or use the cuda backend)");
    return LOOM_SUCCESS;
}

static void kernels_for(omp_isa isa, loom_dtype dtype, ompk_spmm_fn *spmm, ompk_pack_fn *pack)
{
    static const ompk_spmm_fn spmm_table[3][2] = {
        {ompk_spmm_generic_f32, ompk_spmm_generic_f64},
        {ompk_spmm_avx2_f32, ompk_spmm_avx2_f64},
        {ompk_spmm_avx512_f32, ompk_spmm_avx512_f64},
    };
    static const ompk_pack_fn pack_table[3][2] = {
        {ompk_pack_generic_f32, ompk_pack_generic_f64},
        {ompk_pack_avx2_f32, ompk_pack_avx2_f64},
        {ompk_pack_avx512_f32, ompk_pack_avx512_f64},
    };
    *spmm = spmm_table[isa][dtype == LOOM_F64];
    *pack = pack_table[isa][dtype == LOOM_F64];
}

/* Pin the OpenMP team of this size to cores once (the runtime keeps its
 * threads, so the placement sticks for later parallel regions). */
static void place_threads(int threads)
{
    static int placed_for;
    int seen;
#pragma omp atomic read
    seen = placed_for;
    if (seen == threads)
        return;
#pragma omp parallel num_threads(threads)
    omp_topology_bind_thread(omp_get_thread_num());
#pragma omp atomic write
    placed_for = threads;
}

/* RB: split rows into parts of equal cost, counting a row as its non-zeros
 * plus one (the finish and the row's overhead). */
static void balance_rows(const int64_t *ro, int64_t rows, int parts, int64_t *bound)
{
    const int64_t total = ro[rows] + rows;
    bound[0] = 0;
    for (int p = 1; p < parts; p++) {
        const int64_t target = total / parts * p + total % parts * p / parts;
        int64_t lo = bound[p - 1], hi = rows; /* first row with cost >= target */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (ro[mid] + mid < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        bound[p] = lo;
    }
    bound[parts] = rows;
}

/* Zero a buffer from the threads that will use it, so its pages land on
 * their NUMA nodes (first touch). */
static void first_touch(void *p, size_t bytes, int threads)
{
    char *c = p;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t b = bytes * (size_t)t / (size_t)nt, e = bytes * (size_t)(t + 1) / (size_t)nt;
        memset(c + b, 0, e - b);
    }
}

static void sell_free(omp_sell *s)
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
    memset(s, 0, sizeof *s);
}

/* Point the kernel's arguments at a sliced copy (NULL or h == 0: the CSR
 * kernel). */
static void sell_args(ompk_args *g, const omp_sell *s)
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
}

static void openmp_plan_release(loom_plan *plan)
{
    omp_plan_data *d = plan->backend_data;
    if (!d)
        return;
    loom__free(d->row_part);
    loom__free(d->carry_first);
    loom__free(d->carry_last);
    loom__free(d->x_packed);
    sell_free(&d->sell);
    loom__free(d);
    plan->backend_data = NULL;
}

/* Vector lanes of the kernels for this instruction set and dtype (0: the
 * portable kernels, which have no gather and keep the CSR path). */
static int sell_height(omp_isa isa, loom_dtype dtype)
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

typedef struct row_key {
    int64_t len, row;
} row_key;

static int longer_first(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows sorted by length inside windows; NULL when out of memory. */
static int64_t *sell_sorted_rows(const int64_t *ro, int64_t rows, int h)
{
    const int64_t slices = (rows + h - 1) / h, window = (int64_t)SELL_WINDOW_SLICES * h;
    int64_t *order = loom__malloc((size_t)(slices * h) * sizeof *order);
    row_key *keys = loom__malloc((size_t)(window < rows ? window : rows > 0 ? rows : 1) * sizeof *keys);
    if (!order || !keys) {
        loom__free(order);
        loom__free(keys);
        return NULL;
    }
    for (int64_t i = rows; i < slices * h; i++)
        order[i] = -1;
    for (int64_t w0 = 0; w0 < rows; w0 += window) {
        const int64_t n = rows - w0 < window ? rows - w0 : window;
        for (int64_t i = 0; i < n; i++)
            keys[i] = (row_key){row_length(ro, w0 + i), w0 + i};
        qsort(keys, (size_t)n, sizeof *keys, longer_first);
        for (int64_t i = 0; i < n; i++)
            order[w0 + i] = keys[i].row;
    }
    loom__free(keys);
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
    s->len = loom__malloc(((size_t)slices * (size_t)h + 1) * sizeof *s->len);
    s->min = loom__malloc(((size_t)slices + 1) * sizeof *s->min);
    s->cols = loom__malloc(((size_t)padded + 1) * sizeof *s->cols);
    s->vals = loom__malloc(((size_t)padded + 1) * es);
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

/* The non-empty rows ordered by length, longest first, ties in row order
 * (a counting sort: O(rows + longest row)); -1 after them up to a whole
 * slice.  *nonempty: their count.  NULL when out of memory. */
static int64_t *sell_rows_by_length(const int64_t *ro, int64_t rows, int h, int64_t *nonempty)
{
    int64_t longest = 0, n = 0;
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = row_length(ro, i);
        longest = len > longest ? len : longest;
        n += len > 0;
    }
    const int64_t slices = (n + h - 1) / h;
    int64_t *start = loom__calloc((size_t)longest + 2, sizeof *start);
    int64_t *order = loom__malloc(((size_t)(slices * h) + 1) * sizeof *order);
    if (!start || !order) {
        loom__free(start);
        loom__free(order);
        return NULL;
    }
    for (int64_t i = 0; i < rows; i++)
        start[longest - row_length(ro, i)]++; /* bucket 0: the longest rows */
    for (int64_t b = 0, at = 0; b <= longest; b++) {
        const int64_t c = start[b];
        start[b] = at;
        at += c;
    }
    for (int64_t i = 0; i < rows; i++) {
        const int64_t len = row_length(ro, i);
        if (len > 0)
            order[start[longest - len]++] = i;
    }
    for (int64_t i = n; i < slices * h; i++)
        order[i] = -1;
    loom__free(start);
    *nonempty = n;
    return order;
}

/* The globally sorted copy: only the non-empty rows, in slices by length
 * over the whole matrix (SELL-C-sigma with sigma = all rows), so slices
 * hold rows of equal length nearly everywhere and padding is near nil on
 * power-law inputs, where a window of rows mixes a long row with many
 * short and empty ones.  The price is locality: a slice's rows, and so
 * its writes of y and its reads of x, come from all over the matrix
 * (the plan's race decides).  Empty rows cost no lane at all: a bitmap
 * marks them and a separate pass writes their finish (+0 through the
 * same finish).  Row numbers as int32: not made for more rows than that. */
static loom_status sell_build_sorted(omp_sell *s, const loom_csr *A, size_t es, int h, int parts)
{
    const int64_t rows = A->rows, *ro = A->row_offsets;
    if (rows > INT32_MAX)
        return LOOM_SUCCESS;
    int64_t nonempty = 0;
    int64_t *order = sell_rows_by_length(ro, rows, h, &nonempty);
    if (!order)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
    const int64_t padded = sell_padded(ro, nonempty, order, h);
    const size_t words = (size_t)(rows + 63) / 64;
    loom_status st = LOOM_SUCCESS;
    if (padded >= 0)
        st = sell_fill(s, A, es, h, parts, order, nonempty, padded);
    if (padded < 0 || st != LOOM_SUCCESS)
        goto done;
    s->rows32 = loom__malloc(((size_t)(s->slices * h) + 1) * sizeof *s->rows32);
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
done:
    loom__free(order);
    if (st != LOOM_SUCCESS || padded < 0)
        sell_free(s);
    return st;
}

/* Keep the fastest of the CSR kernel and the sliced copies made: they win
 * on short or even rows (less loop overhead per row) and lose where x's
 * gather costs more than the rows' interleaved fma chains (measured on Zen
 * 3: about 0.7x to 1.7x either way); the globally sorted copy wins on
 * power-law rows and loses wherever neighbouring rows share columns.  All
 * give the same bits, so the race only decides speed: each runs once
 * untimed and four times timed, in turn, on a scratch x (ones) and y; the
 * best time wins.  Returns the winner's index in cand (NULL: CSR). */
static int sell_race(const omp_plan_data *d, const loom_csr *A, size_t es,
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
    ompk_args g;
    memset(&g, 0, sizeof g);
    g.rows = A->rows;
    g.nnz = A->nnz;
    g.row_offsets = A->row_offsets;
    g.col_indices = A->col_indices;
    g.values = A->values;
    g.x = x;
    g.x_rs = g.x_cs = 1;
    g.y = y;
    g.y_rs = g.y_cs = 1;
    g.n = 1;
    g.alpha = 1;
    g.mloop = LOOM_M_RB;
    g.kloop = LOOM_K_SR;
    g.threads = d->threads;
    g.parts = d->parts;
    g.row_part = d->row_part;
    g.interleave = d->interleave;
    double best[3] = {1e30, 1e30, 1e30};
    /* One untimed round first (y's first touch, the copies' first read),
     * then timed rounds, the candidates alternating: four, or up to 32
     * where a round takes under 2 ms (products of a few microseconds,
     * where one scheduling hiccup decides a race of four). */
    const double r0 = omp_get_wtime();
    int rounds = 5;
    for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < n; c++) {
            sell_args(&g, cand[c]);
            const double t0 = omp_get_wtime();
            d->spmm(&g);
            const double t = omp_get_wtime() - t0;
            if (round > 0 && t < best[c])
                best[c] = t;
        }
        if (round == 0) {
            const double once = omp_get_wtime() - r0;
            rounds = once < 2e-3 / 7 ? 33 : once < 2e-3 ? 1 + (int)(8e-3 / once) : 5;
        }
    }
    loom__free(x);
    loom__free(y);
    int win = 0;
    for (int c = 1; c < n; c++)
        if (best[c] < best[win])
            win = c;
    return win;
}

/* N = 1 RB+SR: make the sliced copies worth a try, race them against the
 * CSR kernel and keep the winner in d->sell (none: CSR).  The globally
 * sorted copy is tried where the rows are uneven: empty rows, or in-place
 * slices that pad by more than 5% or were not made.  While racing, both
 * copies exist beside A (plan-time memory up to about three times A's). */
static loom_status sell_choose(omp_plan_data *d, const loom_csr *A, size_t es, int h)
{
    /* (tests) LOOM_OMP_SLICES_ALWAYS: the in-place copy whatever it costs;
     * LOOM_OMP_SLICES_SORTED: the globally sorted one; no race. */
    if (getenv("LOOM_OMP_SLICES_SORTED"))
        return sell_build_sorted(&d->sell, A, es, h, d->parts);
    if (getenv("LOOM_OMP_SLICES_ALWAYS"))
        return sell_build(&d->sell, A, es, h, d->parts, 1);
    omp_sell cand[2];
    memset(cand, 0, sizeof cand);
    loom_status st = sell_build(&cand[0], A, es, h, d->parts, 0);
    const int64_t padded = cand[0].h ? cand[0].ptr[cand[0].slices] : -1;
    int64_t empty = 0;
    for (int64_t i = 0; i < A->rows && !empty; i++)
        empty = row_length(A->row_offsets, i) == 0;
    if (st == LOOM_SUCCESS && !getenv("LOOM_OMP_NO_SORTED") &&
        (empty || padded < 0 || padded > A->nnz + A->nnz / 20))
        st = sell_build_sorted(&cand[1], A, es, h, d->parts);
    const omp_sell *list[3] = {NULL};
    int n = 1;
    for (int c = 0; c < 2 && st == LOOM_SUCCESS; c++)
        if (cand[c].h)
            list[n++] = &cand[c];
    const int win = n > 1 ? sell_race(d, A, es, list, n) : 0;
    for (int c = 0; c < 2; c++) {
        if (win > 0 && list[win] == &cand[c])
            d->sell = cand[c];
        else
            sell_free(&cand[c]);
    }
    return st;
}

static loom_status openmp_plan_prepare(loom_plan *plan)
{
    const omp_topology *topo = omp_topology_get();
    const loom_csr *A = plan->A;
    const size_t es = loom_dtype_size(plan->dtype);
    omp_plan_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the plan");
    plan->backend_data = d;
    d->threads = plan->ctx.threads > 0 ? plan->ctx.threads : topo->cores;
    d->isa = topo->isa;
    kernels_for(d->isa, plan->dtype, &d->spmm, &d->pack);
    place_threads(d->threads);

    d->parts = d->threads;
    d->row_part = loom__malloc(((size_t)d->parts + 1) * sizeof *d->row_part);
    if (!d->row_part)
        goto oom;
    balance_rows(A->row_offsets, A->rows, d->parts, d->row_part);

    /* Columns per pass: the pass's slice of X (K rows) in half the LLC. */
    const size_t x_row_bytes = (size_t)(A->cols > 0 ? A->cols : 1) * es;
    int64_t pass = (int64_t)(topo->llc / 2 / x_row_bytes);
    pass = pass / 32 * 32;
    d->col_pass = pass < 32 ? 32 : pass;
    if (d->col_pass >= plan->n)
        d->col_pass = plan->n;

    d->interleave = !getenv("LOOM_OMP_NO_INTERLEAVE");
    const char *sw = getenv("LOOM_OMP_SERIAL_WORK");
    d->serial_work = sw ? strtoll(sw, NULL, 10) : OMP_SERIAL_WORK;
    const int h = sell_height(d->isa, plan->dtype);
    if (plan->strategy.mloop == LOOM_M_RB && plan->strategy.kloop == LOOM_K_SR && plan->n == 1 &&
        h > 0 && A->nnz > 0 && !getenv("LOOM_OMP_NO_SLICES")) {
        loom_status st = sell_choose(d, A, es, h);
        if (st != LOOM_SUCCESS)
            return st;
    }
    if (plan->strategy.mloop == LOOM_M_EB && plan->chunks > 0) {
        size_t bytes;
        if (!loom__mul_size((size_t)plan->chunks * (size_t)plan->n, es, &bytes))
            return loom__error(LOOM_ERR_OVERFLOW, "openmp: EB carries do not fit in memory");
        d->carry_first = loom__malloc(bytes);
        d->carry_last = loom__malloc(bytes);
        if (!d->carry_first || !d->carry_last)
            goto oom;
        first_touch(d->carry_first, bytes, d->threads);
        first_touch(d->carry_last, bytes, d->threads);
    }
    if (plan->x_layout == LOOM_COL_MAJOR && plan->n > 1) {
        size_t bytes;
        if (!loom__mul_size((size_t)A->cols * (size_t)plan->n, es, &bytes))
            return loom__error(LOOM_ERR_OVERFLOW, "openmp: packed X does not fit in memory");
        d->x_packed = loom__malloc(bytes ? bytes : 1);
        if (!d->x_packed)
            goto oom;
        first_touch(d->x_packed, bytes, d->threads);
    }
    return LOOM_SUCCESS;
oom:
    return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the plan's buffers");
}

static loom_status openmp_spmm(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                               loom_dense *Y)
{
    const omp_plan_data *d = plan->backend_data;
    const loom_csr *A = plan->A;
    ompk_args g;
    memset(&g, 0, sizeof g);
    g.rows = A->rows;
    g.nnz = A->nnz;
    g.row_offsets = A->row_offsets;
    g.col_indices = A->col_indices;
    g.values = A->values;
    g.n = plan->n;
    /* Small products run on the calling thread alone: waking the team
     * costs more than it saves below about serial_work multiply-adds
     * (more so on a busy machine, where a woken thread may wait for a
     * core).  The bits do not depend on the thread count. */
    g.threads = (double)A->nnz * (double)plan->n < (double)d->serial_work ? 1 : d->threads;
    if (X->layout == LOOM_COL_MAJOR && g.n > 1) {
        d->pack(X->data, X->rows, g.n, X->ld, d->x_packed, d->threads);
        g.x = d->x_packed;
        g.x_rs = g.n;
        g.x_cs = 1;
    } else {
        g.x = X->data;
        g.x_rs = X->layout == LOOM_ROW_MAJOR ? X->ld : 1;
        g.x_cs = X->layout == LOOM_ROW_MAJOR ? 1 : X->ld;
    }
    g.y = Y->data;
    g.y_rs = Y->layout == LOOM_ROW_MAJOR ? Y->ld : 1;
    g.y_cs = Y->layout == LOOM_ROW_MAJOR ? 1 : Y->ld;
    g.alpha = alpha;
    g.beta = beta;
    g.mloop = plan->strategy.mloop;
    g.kloop = plan->strategy.kloop;
    g.lanes = plan->strategy.lanes;
    g.chunk = plan->strategy.chunk;
    g.parts = d->parts;
    g.row_part = d->row_part;
    g.col_pass = d->col_pass;
    g.chunk_first_row = plan->chunk_first_row;
    g.chunks = plan->chunks;
    g.carry_first = d->carry_first;
    g.carry_last = d->carry_last;
    g.interleave = d->interleave;
    if (g.x_rs == 1) /* (a strided x: the CSR path) */
        sell_args(&g, &d->sell);
    d->spmm(&g);
    return LOOM_SUCCESS;
}

static loom_status openmp_describe_hardware(char *buf, size_t len)
{
    if (!buf || len == 0)
        return loom__error(LOOM_ERR_NULL_POINTER, "openmp: describe_hardware needs a buffer");
    omp_topology_describe(buf, len);
    return LOOM_SUCCESS;
}

LOOM_INTERNAL const loom_backend loom__openmp_backend = {
    .id = LOOM_BACKEND_OPENMP,
    .name = "openmp",
    .probe = openmp_probe,
    .supports = openmp_supports,
    .plan_prepare = openmp_plan_prepare,
    .plan_release = openmp_plan_release,
    .spmm = openmp_spmm,
    .describe_hardware = openmp_describe_hardware,
};
