/*
 * openmp_backend.c - the OpenMP SIMD backend's descriptor: every design,
 * float and double, host memory, any thread count, the same bits as the
 * reference.  Planning picks the kernel for this CPU (AVX-512, AVX2 or
 * portable), the thread count and placement (hwloc), the split of rows
 * between threads, and for N = 1 RB+SR a sliced copy of A with rows in
 * vector lanes (rows in place, or sorted by length inside windows of an
 * L2's worth of y with the empty rows left out) where that runs faster
 * (omp_sell.c), and for N = 1 whether to relabel A's columns so x's hot
 * entries share cache lines (omp_relabel.c, where x exceeds the L2);
 * execution gathers x into that order or packs column-major X when it has
 * to, and runs the kernel (omp_kernels_impl.h).
 *
 * Environment (for measurements and tests): LOOM_OMP_NO_SLICES (no sliced
 * copy), LOOM_OMP_SLICES_ALWAYS (make and keep the in-place one whatever
 * it costs), LOOM_OMP_SLICES_SORTED (make and keep the sorted one),
 * LOOM_OMP_NO_SORTED (never try the sorted one), LOOM_OMP_SELL_WINDOW
 * (rows per window of the sorted one; default: y of a window fills the L2),
 * LOOM_OMP_NO_INTERLEAVE (the one-row-at-a-time RB+SR kernels),
 * LOOM_OMP_SERIAL_WORK (nnz*N below which one thread runs; default 4096),
 * LOOM_OMP_RELABEL=0|1 (N = 1: never / always relabel A's columns by
 * degree, omp_relabel.c; unset: where x exceeds the L2 and it halves the
 * misses).
 */
#include "config.h"
#include "loom_internal.h"
#include "omp_kernels.h"
#include "omp_relabel.h"
#include "omp_sell.h"
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
    omp_isa isa;
    ompk_spmm_fn spmm;
    ompk_pack_fn pack;
    /* What every call's kernel arguments share: A's arrays and the work
     * split (threads, parts, row_part, interleave). */
    ompk_args base;
    int64_t *row_part;  /* parts + 1 row boundaries (RB), base.row_part */
    void *carry_first;  /* EB: chunks * n each */
    void *carry_last;
    void *x_packed;     /* column-major X copied row-major (N > 1) */
    omp_sell sell;      /* RB+SR, N = 1 */
    omp_relabel relabel; /* N = 1: A's columns relabeled, x gathered (kp > 0) */
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
    omp_sell_free(&d->sell);
    omp_relabel_free(&d->relabel);
    loom__free(d);
    plan->backend_data = NULL;
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
    ompk_args *b = &d->base;
    b->threads = plan->ctx.threads > 0 ? plan->ctx.threads : topo->cores;
    d->isa = omp_isa_for(topo, plan->n, es);
    kernels_for(d->isa, plan->dtype, &d->spmm, &d->pack);
    place_threads(b->threads);

    b->parts = b->threads;
    d->row_part = loom__malloc(((size_t)b->parts + 1) * sizeof *d->row_part);
    if (!d->row_part)
        goto oom;
    balance_rows(A->row_offsets, A->rows, b->parts, d->row_part);
    b->row_part = d->row_part;
    b->interleave = !getenv("LOOM_OMP_NO_INTERLEAVE");
    b->rows = A->rows;
    b->nnz = A->nnz;
    b->row_offsets = A->row_offsets;
    b->col_indices = A->col_indices;
    b->values = A->values;

    const char *sw = getenv("LOOM_OMP_SERIAL_WORK");
    d->serial_work = sw ? strtoll(sw, NULL, 10) : OMP_SERIAL_WORK;
    /* N = 1: the kernels below may see A with its columns relabeled (an
     * A of kp columns, x gathered into x' at each execution); every row
     * keeps its entries in order, so nothing else changes. */
    loom_csr relabeled = *A;
    if (plan->n == 1 && A->nnz > 0) {
        const char *rl = getenv("LOOM_OMP_RELABEL");
        const int force = rl ? atoi(rl) != 0 : -1;
        loom_status st = omp_relabel_plan(&d->relabel, A, es, topo->l2, topo->l2_source, force,
                                          b->threads);
        if (st != LOOM_SUCCESS)
            return st;
        if (d->relabel.kp) {
            relabeled.cols = d->relabel.kp;
            relabeled.col_indices = d->relabel.cols;
            b->col_indices = d->relabel.cols;
        }
    }
    const int h = omp_sell_height(d->isa, plan->dtype);
    if (plan->strategy.mloop == LOOM_M_RB && plan->strategy.kloop == LOOM_K_SR && plan->n == 1 &&
        h > 0 && A->nnz > 0 && !getenv("LOOM_OMP_NO_SLICES")) {
        loom_status st = omp_sell_choose(&d->sell, &relabeled, es, h, topo->l2, d->spmm, &d->base);
        if (st != LOOM_SUCCESS)
            return st;
    }
    if (d->sell.h && d->relabel.kp) {
        /* The sliced copy carries the relabeled columns, and with x'
         * contiguous the CSR kernel never runs (openmp_spmm). */
        d->relabel.bytes -= (size_t)A->nnz * sizeof *d->relabel.cols;
        loom__free(d->relabel.cols);
        d->relabel.cols = NULL;
        b->col_indices = NULL;
    }
    if (plan->strategy.mloop == LOOM_M_EB && plan->chunks > 0) {
        size_t bytes;
        if (!loom__mul_size((size_t)plan->chunks * (size_t)plan->n, es, &bytes))
            return loom__error(LOOM_ERR_OVERFLOW, "openmp: EB carries do not fit in memory");
        d->carry_first = loom__malloc(bytes);
        d->carry_last = loom__malloc(bytes);
        if (!d->carry_first || !d->carry_last)
            goto oom;
        first_touch(d->carry_first, bytes, b->threads);
        first_touch(d->carry_last, bytes, b->threads);
    }
    if (plan->x_layout == LOOM_COL_MAJOR && plan->n > 1) {
        size_t bytes;
        if (!loom__mul_size((size_t)A->cols * (size_t)plan->n, es, &bytes))
            return loom__error(LOOM_ERR_OVERFLOW, "openmp: packed X does not fit in memory");
        d->x_packed = loom__malloc(bytes ? bytes : 1);
        if (!d->x_packed)
            goto oom;
        first_touch(d->x_packed, bytes, b->threads);
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
    ompk_args g = d->base;
    g.n = plan->n;
    /* Small products run on the calling thread alone: waking the team
     * costs more than it saves below about serial_work multiply-adds
     * (more so on a busy machine, where a woken thread may wait for a
     * core).  The bits do not depend on the thread count. */
    g.threads = (double)A->nnz * (double)plan->n < (double)d->serial_work ? 1 : d->base.threads;
    if (d->relabel.kp && g.n == 1) {
        omp_relabel_gather(&d->relabel, X->data, X->layout == LOOM_ROW_MAJOR ? X->ld : 1,
                           loom_dtype_size(plan->dtype), g.threads);
        g.x = d->relabel.xp;
        g.x_rs = g.x_cs = 1;
    } else if (X->layout == LOOM_COL_MAJOR && g.n > 1) {
        d->pack(X->data, X->rows, g.n, X->ld, d->x_packed, d->base.threads);
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
    g.chunk_first_row = plan->chunk_first_row;
    g.chunks = plan->chunks;
    g.carry_first = d->carry_first;
    g.carry_last = d->carry_last;
    if (g.x_rs == 1) /* (a strided x: the CSR path) */
        omp_sell_args(&g, &d->sell);
    d->spmm(&g);
    return LOOM_SUCCESS;
}

static void openmp_plan_explain(const loom_plan *plan, char *buf, size_t len)
{
    const omp_plan_data *d = plan->backend_data;
    if (!d || plan->n != 1 || plan->A->nnz == 0) {
        const int narrowed = d && d->isa != omp_topology_get()->isa;
        snprintf(buf, len, "openmp: %d thread(s), %s kernels%s", d ? d->base.threads : 0,
                 d ? omp_isa_name(d->isa) : "?",
                 narrowed ? " (a row of X fits 256 bits: the 512-bit kernels would run half-empty vectors)"
                          : "");
        return;
    }
    const omp_topology *topo = omp_topology_get();
    char layout[200] = "CSR";
    if (d->sell.h && d->sell.rows32 && d->sell.windows > 1)
        snprintf(layout, sizeof layout,
                 "sliced copy, non-empty rows sorted by length in windows of %lld rows "
                 "(y of a window fills the L2, %zu KiB, %s)",
                 (long long)d->sell.window, topo->l2 >> 10, topo->l2_source);
    else if (d->sell.h)
        snprintf(layout, sizeof layout, "%s",
                 d->sell.rows32 ? "sliced copy, non-empty rows sorted by length"
                 : d->sell.rows ? "sliced copy, rows sorted by length in windows"
                                : "sliced copy, rows in order");
    snprintf(buf, len, "openmp: %d thread(s), %s kernels, A as %s\nopenmp: x: %s",
             d->base.threads, omp_isa_name(d->isa),
             plan->strategy.mloop == LOOM_M_RB && plan->strategy.kloop == LOOM_K_SR ? layout : "CSR",
             d->relabel.why);
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
    .plan_explain = openmp_plan_explain,
};
