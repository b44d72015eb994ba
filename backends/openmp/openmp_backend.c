/*
 * openmp_backend.c - the OpenMP SIMD backend's descriptor: every design,
 * float and double, host memory, any thread count, the same bits as the
 * reference.  Planning picks the kernel for this CPU (AVX-512, AVX2 or
 * portable), the thread count and placement (hwloc), the split of rows
 * between threads and the column tile, and for N = 1 RB+SR a sliced copy of
 * A with rows in vector lanes where that runs faster; execution packs
 * column-major X when it has to and runs the kernel (omp_kernels_impl.h).
 *
 * Environment (for measurements and tests): LOOM_OMP_NO_SLICES (no sliced
 * copy), LOOM_OMP_SLICES_ALWAYS (make and keep it whatever it costs),
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
    /* RB+SR, N = 1: A in slices of sell_h rows, rows in vector lanes (see
     * ompk_args; sell_h == 0 when not made) */
    int sell_h;
    int64_t sell_slices;
    int64_t *sell_ptr, *sell_part, *sell_rows;
    int32_t *sell_len, *sell_min, *sell_cols;
    void *sell_vals;
    size_t sell_bytes;
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

static void openmp_plan_release(loom_plan *plan)
{
    omp_plan_data *d = plan->backend_data;
    if (!d)
        return;
    loom__free(d->row_part);
    loom__free(d->carry_first);
    loom__free(d->carry_last);
    loom__free(d->x_packed);
    loom__free(d->sell_ptr);
    loom__free(d->sell_part);
    loom__free(d->sell_rows);
    loom__free(d->sell_len);
    loom__free(d->sell_min);
    loom__free(d->sell_cols);
    loom__free(d->sell_vals);
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

/* The sliced copy of A for N = 1 RB+SR (rows in lanes, omp_kernels.h).
 * Rows stay in order unless sorting them by length inside windows cuts the
 * padding by more than 10%.  Returns LOOM_SUCCESS without making one when
 * it would not pay: rows so uneven inside slices that padding would more
 * than double the entries read.  Padding entries get value 0 and column 0,
 * never used: the kernel masks them out. */
static loom_status sell_build(omp_plan_data *d, const loom_csr *A, size_t es, int h, int force)
{
    const int64_t rows = A->rows, *ro = A->row_offsets;
    const int64_t slices = (rows + h - 1) / h;
    int64_t padded = sell_padded(ro, rows, NULL, h);
    if (padded < 0 || padded > A->nnz + A->nnz / 10 + 16 * (int64_t)h) {
        int64_t *order = sell_sorted_rows(ro, rows, h);
        if (!order)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
        const int64_t sorted = sell_padded(ro, rows, order, h);
        if (sorted >= 0 && (padded < 0 || 10 * sorted < 9 * padded)) {
            padded = sorted;
            d->sell_rows = order;
        } else {
            loom__free(order);
        }
    }
    if (padded < 0 || (!force && padded > 2 * A->nnz + 16 * (int64_t)h)) {
        loom__free(d->sell_rows);
        d->sell_rows = NULL;
        return LOOM_SUCCESS;
    }
    d->sell_ptr = loom__malloc(((size_t)slices + 1) * sizeof *d->sell_ptr);
    d->sell_len = loom__malloc((size_t)slices * (size_t)h * sizeof *d->sell_len);
    d->sell_min = loom__malloc(((size_t)slices + 1) * sizeof *d->sell_min);
    d->sell_cols = loom__malloc(((size_t)padded + 1) * sizeof *d->sell_cols);
    d->sell_vals = loom__malloc(((size_t)padded + 1) * es);
    d->sell_part = loom__malloc(((size_t)d->parts + 1) * sizeof *d->sell_part);
    if (!d->sell_ptr || !d->sell_len || !d->sell_min || !d->sell_cols || !d->sell_vals ||
        !d->sell_part)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the sliced copy of A");
    const char *av = A->values;
    char *sv = d->sell_vals;
    int64_t at = 0;
    const int64_t *order = d->sell_rows;
    for (int64_t s = 0; s < slices; s++) {
        int64_t w = 0, mn = INT64_MAX;
        for (int l = 0; l < h; l++) {
            const int64_t i = s * h + l;
            const int64_t len = order ? row_length(ro, order[i]) : i < rows ? row_length(ro, i) : 0;
            d->sell_len[s * h + l] = (int32_t)len;
            w = len > w ? len : w;
            mn = len < mn ? len : mn;
        }
        d->sell_ptr[s] = at;
        d->sell_min[s] = (int32_t)mn;
        for (int64_t t = 0; t < w; t++)
            for (int l = 0; l < h; l++) {
                const int64_t i = order ? order[s * h + l] : s * h + l, e = at + t * h + l;
                if (t < d->sell_len[s * h + l]) {
                    d->sell_cols[e] = A->col_indices[ro[i] + t];
                    memcpy(sv + (size_t)e * es, av + (size_t)(ro[i] + t) * es, es);
                } else {
                    d->sell_cols[e] = 0;
                    memset(sv + (size_t)e * es, 0, es);
                }
            }
        at += w * h;
    }
    d->sell_ptr[slices] = at;
    /* Threads get runs of slices of equal cost (entries plus one lane-row
     * of overhead per slice). */
    const int64_t total = at + slices * h;
    d->sell_part[0] = 0;
    int64_t s = 0;
    for (int p = 1; p < d->parts; p++) {
        const int64_t target = total / d->parts * p + total % d->parts * p / d->parts;
        while (s < slices && d->sell_ptr[s] + s * h < target)
            s++;
        d->sell_part[p] = s;
    }
    d->sell_part[d->parts] = slices;
    d->sell_h = h;
    d->sell_slices = slices;
    d->sell_bytes = ((size_t)slices + 1) * (sizeof(int64_t) + sizeof(int32_t)) +
                    (size_t)slices * (size_t)h * sizeof(int32_t) +
                    (d->sell_rows ? (size_t)slices * (size_t)h * sizeof(int64_t) : 0) +
                    (size_t)padded * (sizeof(int32_t) + es);
    return LOOM_SUCCESS;
}

/* Keep the sliced copy only where it runs faster than the CSR kernel on
 * this machine and matrix: it wins on short or even rows (less loop
 * overhead per row) and loses where x's gather costs more than the rows'
 * interleaved fma chains (measured on Zen 3: about 0.7x to 1.7x either
 * way).  Both give the same bits, so the race only decides speed: each
 * kernel runs once untimed and four times timed, in turn, on a scratch x
 * (ones) and y; the best time wins. */
static void sell_race(omp_plan_data *d, const loom_csr *A, size_t es)
{
    void *x = loom__malloc((size_t)A->cols * es), *y = loom__malloc((size_t)A->rows * es);
    if (!x || !y) {
        loom__free(x);
        loom__free(y);
        return; /* keep the slices: no scratch, no race */
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
    double best[2] = {1e30, 1e30};
    /* Two untimed runs first (y's first touch, the copy's first read), then
     * four timed runs of each, alternating. */
    for (int rep = 0; rep < 10; rep++) {
        const int sliced = rep & 1;
        g.sell_h = sliced ? d->sell_h : 0;
        g.sell_slices = d->sell_slices;
        g.sell_ptr = d->sell_ptr;
        g.sell_len = d->sell_len;
        g.sell_min = d->sell_min;
        g.sell_cols = d->sell_cols;
        g.sell_vals = d->sell_vals;
        g.sell_part = d->sell_part;
        g.sell_rows = d->sell_rows;
        const double t0 = omp_get_wtime();
        d->spmm(&g);
        const double t = omp_get_wtime() - t0;
        if (rep >= 2 && t < best[sliced])
            best[sliced] = t;
    }
    loom__free(x);
    loom__free(y);
    if (best[1] < best[0])
        return;
    loom__free(d->sell_ptr);
    loom__free(d->sell_part);
    loom__free(d->sell_rows);
    loom__free(d->sell_len);
    loom__free(d->sell_min);
    loom__free(d->sell_cols);
    loom__free(d->sell_vals);
    d->sell_ptr = d->sell_part = d->sell_rows = NULL;
    d->sell_len = d->sell_min = d->sell_cols = NULL;
    d->sell_vals = NULL;
    d->sell_h = 0;
    d->sell_bytes = 0;
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
        /* LOOM_OMP_SLICES_ALWAYS (tests): make and keep them whatever they cost. */
        const int force = getenv("LOOM_OMP_SLICES_ALWAYS") != NULL;
        loom_status st = sell_build(d, A, es, h, force);
        if (st != LOOM_SUCCESS)
            return st;
        if (d->sell_h && !force)
            sell_race(d, A, es);
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
    if (d->sell_h && g.x_rs == 1) { /* (a strided x: the CSR path) */
        g.sell_h = d->sell_h;
        g.sell_slices = d->sell_slices;
        g.sell_ptr = d->sell_ptr;
        g.sell_len = d->sell_len;
        g.sell_min = d->sell_min;
        g.sell_cols = d->sell_cols;
        g.sell_vals = d->sell_vals;
        g.sell_part = d->sell_part;
        g.sell_rows = d->sell_rows;
    }
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
