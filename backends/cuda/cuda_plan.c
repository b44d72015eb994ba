/*
 * cuda_plan.c - what a CUDA plan keeps on the device: for EB strategies the
 * chunk -> first-row map (computed on the host by lib/eb_chunks.c) and the
 * carry buffers the chunk kernels leave for the fix-up, or, for EB + SR at
 * wide N, the segments (every row's pieces, long ones first) and their
 * carry slots; for RB + SR at wide N the row bins (long rows first); for
 * RB + PR the choice of the deep walk (no device data).  Made once at plan
 * time, freed by plan_release; nothing leaks on any error path.
 *
 * All of a plan's device arrays live in one allocation, filled by one
 * copy, or one per array when they are large (struct arena): a dozen
 * cudaMalloc / cudaMemcpy / cudaFree calls of 5-50 us each cost more than
 * the SpMM of a small matrix, and tune prepares several plans.
 */
#include "config.h"
#include "cuda_kernels.h"
#include "cuda_status.h"
#include "cuda_tc.h"
#include "cuda_upload.h"
#include "select.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Carry buffers are chunks x slab columns (head and tail); wide N is done
 * in slabs of columns so they stay under this size. */
#define CARRY_BUDGET_BYTES ((size_t)256 << 20)

/* ------------------------------------------------------------ arena */

#define ARENA_PARTS 16
#define ARENA_ALIGN 256

/* The device arrays of one plan, reserved first and placed later: each
 * part is a pointer to set, its size and, for uploaded parts, the host
 * array to copy (kept alive, and freed, by the arena). */
typedef struct arena_part {
    void **dst;
    void *host; /* loom__malloc'd, or NULL: device scratch, not copied */
    size_t bytes, offset;
} arena_part;

typedef struct arena {
    size_t size;
    int parts;
    arena_part part[ARENA_PARTS];
} arena;

/* Reserve `bytes` for *dst; host (may be NULL) becomes the arena's.
 * False when the arena is full (a programming error) or host is NULL
 * although bytes to copy were promised; the caller reports it. */
static bool arena_reserve(arena *a, void **dst, void *host, size_t bytes)
{
    if (a->parts == ARENA_PARTS) {
        loom__free(host);
        return false;
    }
    const size_t offset = (a->size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    a->part[a->parts++] = (arena_part){dst, host, bytes, offset};
    a->size = offset + (bytes ? bytes : 1);
    return true;
}

static void arena_free_host(arena *a)
{
    for (int i = 0; i < a->parts; i++) {
        loom__free(a->part[i].host);
        a->part[i].host = NULL;
    }
}

/* Above this many bytes to upload, each part is copied from its own host
 * array: staging them in one buffer first cost a memcpy and the page
 * faults of a fresh buffer (7 MB on mdual); below it one copy saves the
 * calls' latency. */
#define ARENA_STAGE_MAX ((size_t)1 << 20)

/* One allocation (cuda_pool.c) for every part, the uploaded parts copied
 * (staged contiguously on the host when small), then the pointers; *base
 * stays NULL on failure.  The host arrays are freed whatever happens. */
static loom_status arena_commit(arena *a, void **base, const char *what)
{
    size_t upload = 0;
    for (int i = 0; i < a->parts; i++)
        if (a->part[i].host && a->part[i].offset + a->part[i].bytes > upload)
            upload = a->part[i].offset + a->part[i].bytes;
    const bool staged = upload > 0 && upload <= ARENA_STAGE_MAX;
    char *staging = staged ? loom__malloc(upload) : NULL;
    void *dev = NULL;
    loom_status st = staged && !staging
                         ? loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory for %s",
                                       what)
                         : loomcu_malloc(&dev, a->size, what);
    for (int i = 0; i < a->parts && st == LOOM_SUCCESS; i++) {
        const arena_part *pt = &a->part[i];
        if (!pt->host || pt->bytes == 0)
            continue;
        if (staged)
            memcpy(staging + pt->offset, pt->host, pt->bytes);
        else
            st = loomcu_status(cudaMemcpy((char *)dev + pt->offset, pt->host, pt->bytes,
                                          cudaMemcpyHostToDevice),
                               what);
    }
    if (st == LOOM_SUCCESS && staged)
        st = loomcu_status(cudaMemcpy(dev, staging, upload, cudaMemcpyHostToDevice), what);
    if (st == LOOM_SUCCESS && upload > 0)
        st = loomcu_status(loomcu_uploads_landed(), what);
    if (st == LOOM_SUCCESS) {
        for (int i = 0; i < a->parts; i++)
            *a->part[i].dst = (char *)dev + a->part[i].offset;
        *base = dev;
    } else {
        loomcu_free(dev);
    }
    loom__free(staging);
    arena_free_host(a);
    return st;
}

static void free_data(loomcu_plan_data *d)
{
    loomcu_free(d->arena);
    loom__free(d);
}

/* A host copy of `count` int64 values (the arena uploads and frees it). */
static int64_t *host_copy(const int64_t *src, int64_t count)
{
    int64_t *c = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *c);
    if (c && count > 0)
        memcpy(c, src, (size_t)count * sizeof *c);
    return c;
}

/* Columns per slab: all of N when the carries fit the budget, else the
 * largest multiple of 128 that does (at least 128, or N when smaller). */
static int64_t carry_slab(int64_t chunks, int64_t n, size_t elem)
{
    size_t per_column = 2 * (size_t)(chunks > 0 ? chunks : 1) * elem;
    int64_t fit = (int64_t)(CARRY_BUDGET_BYTES / per_column);
    if (fit >= n)
        return n > 0 ? n : 1;
    fit = fit / 128 * 128;
    if (fit < 128)
        fit = 128;
    return fit < n ? fit : n;
}

/* EB: the chunk map and the carry buffers. */
static loom_status prepare_eb(const loom_plan *plan, loomcu_eb_data *eb, arena *a)
{
    size_t elem = loom_dtype_size(plan->dtype);
    eb->chunks = plan->chunks;
    eb->slab = carry_slab(plan->chunks, plan->n, elem);
    size_t carry_bytes = (size_t)plan->chunks * (size_t)eb->slab * elem;
    int64_t *map = host_copy(plan->chunk_first_row, plan->chunks + 1);
    if (!map)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory for the EB map");
    if (!arena_reserve(a, (void **)&eb->first_row, map, ((size_t)plan->chunks + 1) * sizeof(int64_t)) ||
        !arena_reserve(a, &eb->head, NULL, carry_bytes) ||
        !arena_reserve(a, &eb->tail, NULL, carry_bytes) ||
        !arena_reserve(a, (void **)&eb->tail_row, NULL, (size_t)plan->chunks * sizeof(int64_t)))
        return loom__error(LOOM_ERR_INTERNAL, "cuda plan: too many device arrays");
    return LOOM_SUCCESS;
}

/*
 * RB + SR row bins and EB + SR segments: a row (segment) with more
 * non-zeros than this is walked one column per lane, with deeper load
 * pipelines (rb_sr_binned_kernel, eb_sr_segments_kernel; at N <= 4 by a
 * group of lanes in the narrow walks).  Measured first on an H200 over 12
 * real matrices (bench/results/cuda-2026-11-22-h200-binned/): 32 up to
 * N = 64, 128 from N = 128 up (at wide N a long row already has many
 * tiles running side by side).  With the later walks, on an H100 over 39
 * inputs (bench/results/cuda-2026-11-27-h100-occupancy/ section 7), 16 is
 * better up to N = 64: the segments designs up to 1.21x faster, the
 * binned walk 1.02-1.08x (level at N = 2 to 4), the best design
 * 1.03-1.06x at N = 8..64 and 0.99-1.02x at N <= 4 (where PR designs are
 * the best on most inputs).
 */
static int64_t long_row_threshold(int64_t n)
{
    return n <= 64 ? 16 : 128;
}

/*
 * RB + PR at N = 2 to 4 walks with rb_pr_kernel's deep form (more loads
 * in flight per lane) where a few long rows set the time: the longest row
 * has LOOMCU_PR_DEEP x lanes non-zeros or more and the matrix has at most
 * PR_DEEP_MAX_LANES lanes' worth of rows.  Measured on an H100
 * (bench/results/cuda-2026-11-27-h100-pr-deep/): 1.14-1.33x at N = 2 and
 * 1.04-1.17x at N = 4 on such matrices (rajat01, facebook_combined,
 * Groebner_id2003_aug, adder_dcop_05, DLMC rn50 layers).  Not elsewhere:
 * on many rows the deep form's registers cost occupancy the short rows
 * need (soc-Slashdot0902, 82K rows: 0.5x at N = 4); at N = 1 it gained
 * under 5% and at N = 8 it lost about 5%.  Speed only: the bits are the
 * plain form's.
 */
#define PR_DEEP_MAX_LANES ((int64_t)1 << 18)

static bool wants_pr_deep(const loom_plan *plan)
{
    const loom_strategy *s = &plan->strategy;
    const int64_t lanes = s->lanes;
    return s->mloop == LOOM_M_RB && s->kloop == LOOM_K_PR && plan->n >= 2 && plan->n <= 4 &&
           plan->A->rows * lanes <= PR_DEEP_MAX_LANES &&
           plan->features.row_max >= (double)(LOOMCU_PR_DEEP * lanes);
}

/*
 * RB + SR walks X in K-tiles staged in shared memory (rb_sr_ktile_kernel)
 * where rows are dense enough that a block's 32 rows read each staged X
 * row several times (density >= 1/8: 16 or more non-zeros of a row per
 * 128-row tile), long (a mean of KTILE_MIN_ROW_MEAN or more: the tiles'
 * barriers and copies amortised) and N wide enough to fill the GPU with
 * blocks (KTILE_MIN_N).  Measured on an H100: the prototype
 * (bench/results/cuda-2026-11-27-h100-ktile/) at N = 512 on DLMC rn50
 * mp0.8 final_dense (1000 x 2048, 20%) 79.6 us against the wide walk's
 * 102.5 (1.29x) and on mp0.5 (1024 x 512, 50%) 40.7 against 42.4
 * (1.04x); slower at N = 256 and below (a block's time is its rows' walk
 * over all of K whatever its columns: 0.7x at N = 256 on both), on
 * sparser layers (transformer ffn_conv1, 10%: 0.84x at N = 512), meshes
 * and graphs (2-80x slower).  In the library, the full record
 * (bench/results/cuda-2026-11-27-h100-record-s28/): rb-rm-sr at N = 512
 * 78.5 us on final_dense (103.1 in record-s27; cuSPARSE ALG3 67.7) and
 * 39.5 on mp0.5 (42.3).  Speed only: the sums are the wide walk's.
 */
#define KTILE_MIN_N 512
#define KTILE_MIN_DENSITY 0.125
#define KTILE_MIN_ROW_MEAN 128.0

static bool wants_ktile(const loom_plan *plan)
{
    const loom_strategy *s = &plan->strategy;
    const int64_t tile_columns = LOOMCU_KTILE_ROW_BYTES / (int64_t)loom_dtype_size(plan->dtype);
    if (s->mloop != LOOM_M_RB || s->kloop != LOOM_K_SR || plan->x_layout != LOOM_ROW_MAJOR ||
        plan->n < KTILE_MIN_N || plan->features.density < KTILE_MIN_DENSITY ||
        plan->features.row_mean < KTILE_MIN_ROW_MEAN)
        return false;
    /* the column tiles on gridDim.y; K below the past-the-end marker */
    if ((plan->n + tile_columns - 1) / tile_columns > 65535 ||
        plan->A->cols > (int64_t)INT32_MAX - LOOMCU_KTILE_ROWS)
        return false;
    /* devices whose blocks cannot hold the two stages keep the wide walk
     * (and the refusal is cleared, so no later launch reports it) */
    if ((plan->dtype == LOOM_F32 ? loomcu_ktile_allow_f32() : loomcu_ktile_allow_f64()) ==
        cudaSuccess)
        return true;
    (void)cudaGetLastError();
    return false;
}

/* Whether the row bins apply: RB + SR at N = 1 (rb_sr_n1_binned_kernel),
 * or the wide walk (loomcu_wide_n) with no explicit coarsening. */
static bool wants_bins(const loom_plan *plan)
{
    const loom_strategy *s = &plan->strategy;
    const bool wide = plan->x_layout == LOOM_ROW_MAJOR && s->coarsen == 0 &&
                      loomcu_wide_n(plan->n, s->coarsen);
    return s->mloop == LOOM_M_RB && s->kloop == LOOM_K_SR && (plan->n == 1 || wide) &&
           plan->A->rows > 0 && plan->A->nnz > 0;
}

/*
 * The long bin is for the few long rows that would set the time.  Rows of
 * about one length (the longest at most twice the mean) need none where
 * the short walk alone has warps enough (2048: half a wave of an H100 at
 * four 8-warp blocks per SM); X row-major in vectors of 16 bytes, as the
 * binned walks take it.  Measured on an H100
 * (bench/results/cuda-2026-11-27-h100-occupancy/bins-prototype/): without
 * the long bin, DLMC rn50 mp0.5 (1024 rows of 256-326) 1.5x faster at
 * N = 256 and 1.8x at N = 512, mp0.8 final_dense (1000 rows of 410 on
 * average) 1.07x at N = 512, bcsstk16 1.2x at N = 64; with fewer warps
 * (these layers at N <= 128, final_dense at N = 256) the one-column walk
 * of long rows was faster, and there the bins stay.  Speed only.
 */
#define BINS_UNIFORM_MAX_OVER_MEAN 2.0
#define BINS_UNIFORM_MIN_WARPS 2048.0

static bool rows_need_no_long_bin(const loom_plan *plan)
{
    const double m = (double)plan->A->rows, mean = (double)plan->A->nnz / m;
    const double per_vector = 16.0 / (double)loom_dtype_size(plan->dtype);
    const double warps = m * (double)plan->n / (32.0 * per_vector);
    return plan->features.row_max <= BINS_UNIFORM_MAX_OVER_MEAN * mean &&
           warps >= BINS_UNIFORM_MIN_WARPS;
}

/*
 * The wide walks (N >= 8) take their short rows or segments longest first,
 * not in storage order: a warp's groups then walk items of about one
 * length instead of waiting on the longest of several.  Measured on an
 * H100 (bench/results/cuda-2026-11-27-h100-sort-short/; one build, two
 * interleaved runs each way, EB + SR and RB + SR designs on 11 graphs and
 * meshes and R-MAT): the best of those designs 1.02x at N = 8, 1.05x at 32
 * and 1.10x at 128 (soc-Slashdot0902 at N = 32 1.12x, R-MAT 1.10-1.22x
 * from N = 8); at N <= 4, where a short item is one thread's, 0.94-0.95x
 * (the rows' Y writes and X reads scatter), so not there.  Not under
 * TILE_MAJOR either, whose point is neighbouring rows in one block.
 * Nor where rows are of about one length (row_cv < 1): there is little
 * to balance, and the order costs the locality of neighbouring rows.
 * The full records before and after the sort (record-s26 and record-s27,
 * sort_by_cv.txt in the latter's folder): at N >= 8 the best design's
 * time went to 0.933x on the matrices of row_cv >= 1 (each of the 20
 * between 0.86x and 1.00x) but to 1.017x on those below (bcspwr10 1.14x,
 * graphchallenge 1.05-1.09x, luxembourg_osm 1.07x, bcsstk16 1.05x).
 * Measured across two runs, so within a few percent.
 * Speed only: each item's sum is the same.
 */
#define SORT_SHORT_MIN_N 8
#define SORT_SHORT_MIN_ROW_CV 1.0

static bool sort_short_items(const loom_plan *plan)
{
    return plan->n >= SORT_SHORT_MIN_N && plan->features.row_cv >= SORT_SHORT_MIN_ROW_CV &&
           !(plan->strategy.techniques & LOOM_TECH_TILE_MAJOR);
}

/* items[0..count) reordered by len (longest first, ties in order); false
 * when out of memory.  len is overwritten. */
static bool order_by_length(int64_t *items, int64_t *len, int64_t count)
{
    int64_t *rank = loom__longest_first_order(len, count);
    if (!rank)
        return false;
    for (int64_t i = 0; i < count; i++)
        len[i] = items[rank[i]];
    memcpy(items, len, (size_t)count * sizeof *items);
    loom__free(rank);
    return true;
}

/* The row bins on the host, reserved in the arena for the device: the long
 * rows longest first, then the short ones (in storage order, or longest
 * first from N = 8: sort_short_items). */
static loom_status prepare_bins(const loom_plan *plan, loomcu_row_bins *bins, arena *a)
{
    const int64_t m = plan->A->rows, threshold = long_row_threshold(plan->n);
    const int64_t *ro = plan->A->memory == LOOM_MEMORY_HOST ? plan->A->row_offsets
                                                            : plan->A->host_row_offsets;
    int64_t n_long = 0;
    if (plan->n > 1 && rows_need_no_long_bin(plan)) {
        bins->n_long = 0;
        bins->n_short = m;
        return LOOM_SUCCESS; /* no list: the kernel walks the rows in order */
    }
    for (int64_t r = 0; r < m; r++)
        n_long += ro[r + 1] - ro[r] > threshold;
    bins->n_long = n_long;
    bins->n_short = m - n_long;
    const bool sort_short = sort_short_items(plan);
    if (n_long == 0 && !sort_short)
        return LOOM_SUCCESS; /* no list: the kernel walks the rows in order */
    /* The long rows, then the short ones, each in storage order; then the
     * long ones longest first, or with sort_short all rows longest first
     * (the long rows are the longest, so they stay ahead). */
    int64_t *order = loom__malloc((size_t)m * sizeof *order);
    int64_t *len = loom__malloc((size_t)m * sizeof *len);
    bool ok = order && len;
    for (int64_t r = 0, nl = 0, ns = n_long; ok && r < m; r++) {
        const int64_t i = ro[r + 1] - ro[r] > threshold ? nl++ : ns++;
        order[i] = r;
        len[i] = ro[r + 1] - ro[r];
    }
    ok = ok && order_by_length(order, len, sort_short ? m : n_long);
    loom__free(len);
    if (!ok) {
        loom__free(order);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory for row bins");
    }
    if (!arena_reserve(a, (void **)&bins->rows, order, (size_t)m * sizeof(int64_t)))
        return loom__error(LOOM_ERR_INTERNAL, "cuda plan: too many device arrays");
    return LOOM_SUCCESS;
}

/* Whether EB + SR runs as segments (spmm_eb_segments.cuh): at N <= 4
 * (loomcu_narrow_n), or where the wide walk applies (row-major X,
 * loomcu_wide_n). */
static bool wants_segments(const loom_plan *plan)
{
    const loom_strategy *s = &plan->strategy;
    const bool wide = plan->x_layout == LOOM_ROW_MAJOR && loomcu_wide_n(plan->n, s->coarsen);
    return s->mloop == LOOM_M_EB && s->kloop == LOOM_K_SR && plan->chunks > 0 &&
           (loomcu_narrow_n(plan->n) || wide) && plan->A->nnz > 0;
}

/*
 * Where X is far larger than the L2 (a 128-column slab of it at least
 * SLAB_NARROW_MIN_X_OVER_L2 times the L2), the segments walk SLAB_NARROW
 * columns at a time: the X rows a slab reads then take half the L2 room,
 * and more of a power-law graph's hot rows stay there between uses.
 * Measured on an H100 (bench/results/cuda-2026-11-27-h100-rmat-large-n/):
 * on R-MAT 1e7 (1M rows of X), with EB chunks of 128 and 256, 1.26x at
 * N = 512, 1.12x at N = 256 and even at N = 128; 32 columns lost to 64
 * there. Where a slab of X fits, or nearly fits, the L2, narrower slabs
 * lost up to 2.9x (more launches, fewer lanes per segment): pubmed_adj,
 * email-Enron, bcsstk33. soc-Slashdot0902, whose slab is 0.8 of the L2,
 * gained 1.04-1.09x only at N = 256-512. Speed only: a slab is a set of
 * columns, each summed as before.
 */
#define SLAB_NARROW 64
#define SLAB_NARROW_MIN_X_OVER_L2 4.0

/* The device's L2 in bytes; 0 where unknown (the plan was made on this
 * device: not expected). */
static double device_l2_bytes(const loom_plan *plan)
{
    loom__device_info dev = {0};
    if (plan->backend->device_info(&dev) != LOOM_SUCCESS || dev.gpu_l2_kb <= 0)
        return 0.0;
    return (double)dev.gpu_l2_kb * 1024.0;
}

static bool x_dwarfs_l2(const loom_plan *plan)
{
    const double l2 = device_l2_bytes(plan);
    const double slab_bytes = (double)plan->A->cols * 128.0 * (double)loom_dtype_size(plan->dtype);
    return l2 > 0.0 && slab_bytes >= SLAB_NARROW_MIN_X_OVER_L2 * l2;
}

/* Columns per carry slab of `slots` slots: all of N when it fits the
 * budget, else a multiple of 128 (the kernels' tiles never straddle it);
 * SLAB_NARROW where X dwarfs the L2 (the launch shrinks the lanes per
 * segment to the slab). */
static int64_t segment_slab(const loom_plan *plan, int64_t slots)
{
    const size_t elem = loom_dtype_size(plan->dtype);
    const int64_t fit = (int64_t)(CARRY_BUDGET_BYTES / ((size_t)(slots > 0 ? slots : 1) * elem));
    int64_t slab = plan->n;
    if (fit < slab)
        slab = fit < 128 ? 128 : fit / 128 * 128;
    if (slab > SLAB_NARROW && x_dwarfs_l2(plan))
        slab = SLAB_NARROW;
    return slab;
}

typedef struct {
    int64_t row, begin, slot, len;
} segment;

/* The segment builder's host arrays freed. */
static void free_segment_lists(void *longs, int64_t *row, int64_t *begin, int64_t *slot,
                               int64_t *fix_row, int64_t *fix_slot0)
{
    loom__free(longs);
    loom__free(row);
    loom__free(begin);
    loom__free(slot);
    loom__free(fix_row);
    loom__free(fix_slot0);
}

/* ... and its out-of-memory error. */
static loom_status segments_out_of_memory(void *longs, int64_t *row, int64_t *begin, int64_t *slot,
                                          int64_t *fix_row, int64_t *fix_slot0)
{
    free_segment_lists(longs, row, begin, slot, fix_row, fix_slot0);
    return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory for EB segments");
}

/* The chunk (of C non-zeros) holding position p, for positions that never
 * decrease: *cur walks forward.  A 64-bit division per row end cost 20-40
 * cycles, most of an EB plan's preparation on a matrix of many short rows
 * (mdual: 258k rows, 6 ms). */
static inline int64_t chunk_at(int64_t p, int64_t C, int64_t *cur)
{
    while ((*cur + 1) * C <= p)
        (*cur)++;
    return *cur;
}

/* How many of a row's pieces (non-zeros b..e, chunks c0..c1 of C) are
 * longer than threshold: the first and the last may be short, the others
 * are C long. */
static int64_t long_pieces(int64_t b, int64_t e, int64_t c0, int64_t c1, int64_t C,
                           int64_t threshold)
{
    if (c0 == c1)
        return e - b > threshold;
    return ((c0 + 1) * C - b > threshold) + (e - c1 * C > threshold) +
           (C > threshold ? c1 - c0 - 1 : 0);
}

/* The segment arrays (row, begin, slot) permuted alike into the order of
 * key, largest first, ties in list order; key is overwritten.  False when
 * out of memory. */
static bool order_segments(int64_t *row, int64_t *begin, int64_t *slot, int64_t count, int64_t *key)
{
    int64_t *idx = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *idx);
    int64_t *tmp = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *tmp);
    bool ok = idx && tmp;
    for (int64_t i = 0; ok && i < count; i++)
        idx[i] = i;
    ok = ok && order_by_length(idx, key, count);
    int64_t *const arrays[3] = {row, begin, slot};
    for (int k = 0; ok && k < 3; k++) {
        for (int64_t i = 0; i < count; i++)
            tmp[i] = arrays[k][idx[i]];
        memcpy(arrays[k], tmp, (size_t)count * sizeof *tmp);
    }
    loom__free(idx);
    loom__free(tmp);
    return ok;
}

/* The short segments longest first (sort_short_items): each one's length
 * from its row's end and its chunk's.  False when out of memory. */
static bool sort_short_segments(int64_t *row, int64_t *begin, int64_t *slot, int64_t count,
                                const int64_t *ro, int64_t C)
{
    int64_t *len = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *len);
    if (!len)
        return false;
    for (int64_t i = 0; i < count; i++) {
        const int64_t chunk_end = (begin[i] / C + 1) * C;
        len[i] = (ro[row[i] + 1] < chunk_end ? ro[row[i] + 1] : chunk_end) - begin[i];
    }
    const bool ok = order_segments(row, begin, slot, count, len);
    loom__free(len);
    return ok;
}

/*
 * Where rows are several chunks long (a mean of COLUMN_ORDER_MIN_CHUNKS
 * chunks or more) and N >= COLUMN_ORDER_MIN_N, the short segments go in
 * the order of the column they start at, not row by row: a block's groups
 * then walk pieces of different rows over about the same columns and
 * share X's rows in L1 (as cuSPARSE's ALG3 has 16 rows walk K together),
 * where a row's consecutive pieces read disjoint columns.  Measured on an
 * H100 (bench/results/cuda-2026-11-28-h100-column-order/; one build, the
 * order switched by a prototype's variable, between two runs without):
 * EB + SR at chunk 128, N = 256 and 512, 1.07-1.42x on DLMC final_dense
 * (410 non-zeros a row), bottleneck mp0.5 (256) and graphchallenge
 * sparse-images (102); at N = 128 0.97-1.06x on those; on graphs of short
 * rows 0.7-1.0x (email-Enron, wiki-Vote, facebook_combined) and mixed on
 * meshes of 0.5-0.6 chunks a row (bcsstk33, MIT8).  Where pieces are long
 * (chunks over long_row_threshold) they are walked first and longest
 * first, and this changes nothing.  Not with sort_short_items, which is
 * for rows of unequal length.  Speed only: each segment's sum and each
 * row's fix-up are the same.
 */
#define COLUMN_ORDER_MIN_N 256
#define COLUMN_ORDER_MIN_CHUNKS 0.75

static bool column_order(const loom_plan *plan)
{
    return plan->n >= COLUMN_ORDER_MIN_N && !sort_short_items(plan) &&
           plan->features.row_mean >= COLUMN_ORDER_MIN_CHUNKS * (double)plan->strategy.chunk;
}

/* The short segments in the order of their first column (column_order),
 * from A's column indices: read in place where A is in host memory, else
 * from a host copy made for the while. */
static loom_status order_short_by_column(const loom_plan *plan, int64_t *row, int64_t *begin,
                                         int64_t *slot, int64_t count, const int64_t *ro)
{
    const loom_csr *A = plan->A;
    const int32_t *ci = A->col_indices;
    int32_t *copy = NULL;
    if (A->memory != LOOM_MEMORY_HOST) {
        copy = loom__malloc((size_t)(A->nnz > 0 ? A->nnz : 1) * sizeof *copy);
        if (!copy)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                               "cuda plan: out of host memory for the column order of EB segments");
        loom_status st = loomcu_status(
            cudaMemcpy(copy, A->col_indices, (size_t)A->nnz * sizeof *copy, cudaMemcpyDefault),
            "reading A's column indices for the column order of EB segments");
        if (st != LOOM_SUCCESS) {
            loom__free(copy);
            return st;
        }
        ci = copy;
    }
    int64_t *key = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *key);
    bool ok = key != NULL;
    for (int64_t i = 0; ok && i < count; i++) /* first column ascending; empty rows first */
        key[i] = A->cols - (begin[i] < ro[row[i] + 1] ? ci[begin[i]] : -1);
    ok = ok && order_segments(row, begin, slot, count, key);
    loom__free(key);
    loom__free(copy);
    return ok ? LOOM_SUCCESS
              : loom__error(LOOM_ERR_OUT_OF_MEMORY,
                            "cuda plan: out of host memory for the column order of EB segments");
}

/*
 * At N <= 4 the narrow walk sweeps the rows that are one short piece (or
 * empty) in order, a thread each, from the row offsets alone, and lists
 * only the long segments and the pieces of rows that cross chunks.  Listed,
 * each such row cost 24 bytes of list and a dependent load before its
 * pairs (201 MB on R-MAT 1e8, against A's 785).  Speed only: a swept
 * row's sum is its listed segment's.
 */
static bool sweeps_short_rows(const loom_plan *plan)
{
    return loomcu_narrow_n(plan->n);
}

/*
 * The narrow walk reads a short item's pairs a thread each, so a warp's
 * loads touch 32 rows' sectors at once and come back to them D pairs
 * later.  Streamed (evict first), as A must be where it dwarfs the L2,
 * those sectors are often fetched twice; where A's pairs fit in half the
 * L2 they are read through L1 instead.  Measured on an H100
 * (bench/results/cuda-2026-11-27-h100-sweep/, call 2): 1.02-1.12x on six
 * graphs and meshes and R-MAT 1e6 (A 0.1-8 MB); on R-MAT 1e7 (A 78 MB)
 * 0.96-1.00x, so not there.  Speed only: the same values are loaded.
 */
static bool pairs_fit_l2(const loom_plan *plan)
{
    const double pair_bytes = (double)plan->A->nnz * (4.0 + (double)loom_dtype_size(plan->dtype));
    return pair_bytes <= 0.5 * device_l2_bytes(plan);
}

/*
 * Where the long segments walk with the short ones' G x V shape (vector
 * loads of V columns, 16 registers of x ahead) instead of their own (a
 * column a lane, scalar loads, 16 pairs ahead).  The own shape keeps a
 * long piece's chain of batches short; the vector one issues about a
 * third of the instructions a pair, which pays once the work is large
 * against one chain: N >= 32 and chunks x N >= 3e5.  On an H200
 * (bench/results/cuda-2026-11-28-h200-record-s34/, call 4; f32, EB + SR
 * chunks 256, 512, 1024, 41 inputs, N = 8..512): where the rule holds, 1.07x
 * in geometric mean over 67 (input, N, chunk) cases, none below 0.995
 * (R-MAT 1e7 1.07-1.19x at N = 32..512, 1e8 1.10-1.16x, DLMC rn50 layers
 * at N = 256-512 1.26-1.56x); below it the vector shape lost up to 3x
 * (small inputs: a 1024-pair piece's chain sets the time).  Ncu there
 * (call 3, R-MAT 1e7, N = 512): the walk was issue-bound, not
 * memory-bound.  Speed only: the same pieces, each summed in order.
 */
#define LONG_VECTOR_MIN_N 32
#define LONG_VECTOR_MIN_CHUNK_COLUMNS 3e5

static bool long_segments_vector(const loom_plan *plan)
{
    const double chunks = (double)plan->A->nnz / (double)plan->strategy.chunk;
    return plan->n >= LONG_VECTOR_MIN_N && chunks * (double)plan->n >= LONG_VECTOR_MIN_CHUNK_COLUMNS;
}

/*
 * Where the wide walk of the segments takes 32 bytes of X's columns a lane
 * (V = 8 in f32, 4 in f64: two 16-byte loads a pair) with half the lanes
 * a group, in place of 16: about two thirds of the instructions a fma by count
 * (a pair's shuffles and address serve twice the columns), but half the
 * pairs' x loads in flight a lane.  That pays where the walk is
 * issue-bound, not where a row's chain of loads sets the time: large
 * matrices of short rows (a mean of at most 12 non-zeros, at least 2e5
 * non-zeros) at N >= 32.  On an H200 (bench/results/cuda-2026-11-28-h200-s35/,
 * call 2; f32, EB + SR chunks 512 and 1024, 41 inputs, N = 32..512): the
 * 42 (input, N) cases where the rule holds went 1.03-1.58x faster (R-MAT
 * 1e7 1.22x from N = 64, 1e8 1.11-1.17x, mdual 1.29-1.33x, luxembourg_osm
 * 1.32-1.58x) but one (email-Enron, N = 128: 0.91x); everywhere, 0.96x in
 * geometric mean, 0.64x at worst (small or long-rowed inputs at N = 128-256).
 * In f64 (call 3, the rule's 8 inputs, 40 cases): 1.16-1.28x by N, 0.974x
 * at worst (email-Enron, N = 64).  Speed only: each column's sum is the
 * same chain.
 */
#define VECTOR32_MIN_N 32
#define VECTOR32_MAX_ROW_MEAN 12.0
#define VECTOR32_MIN_NNZ 200000

static bool segments_vector32(const loom_plan *plan)
{
    return !loomcu_narrow_n(plan->n) && plan->n >= VECTOR32_MIN_N &&
           plan->features.row_mean <= VECTOR32_MAX_ROW_MEAN && plan->A->nnz >= VECTOR32_MIN_NNZ;
}

/* Whether row [b, e) of chunks c0..c1 is swept (sweeps_short_rows): empty,
 * or one piece of at most threshold non-zeros. */
static bool swept_row(int64_t b, int64_t e, int64_t c0, int64_t c1, int64_t threshold)
{
    return b == e || (c0 == c1 && e - b <= threshold);
}

/*
 * The segments: for each row in order, its pieces (row_sum_eb_sr's c loop)
 * or, for an empty row, one empty segment; none for a swept row
 * (sweeps_short_rows).  A row of several pieces gets
 * consecutive carry slots, in piece order, and a fix-up entry.  The long
 * segments (more non-zeros than long_row_threshold) go first, longest
 * first, then the rest in storage order (longest first too from N = 8,
 * sort_short_items).  A first pass counts, so the
 * second writes each short segment in its place and holds only the long
 * ones aside (a list of every segment cost 32 bytes each of fresh memory:
 * 9 MB on mdual).  The arrays are reserved in the arena for the device.
 */
static loom_status prepare_segments(const loom_plan *plan, loomcu_eb_segments *sg, arena *a)
{
    const int64_t m = plan->A->rows, C = plan->strategy.chunk;
    const int64_t threshold = long_row_threshold(plan->n);
    const int64_t *ro = plan->A->memory == LOOM_MEMORY_HOST ? plan->A->row_offsets
                                                            : plan->A->host_row_offsets;
    const bool sweep = sweeps_short_rows(plan);
    int64_t count = 0, n_fix = 0, slots = 0, n_long = 0, cur = 0;
    for (int64_t r = 0; r < m; r++) {
        const int64_t b = ro[r], e = ro[r + 1];
        if (b == e) {
            count += !sweep;
            continue;
        }
        const int64_t c0 = chunk_at(b, C, &cur), c1 = chunk_at(e - 1, C, &cur);
        if (sweep && swept_row(b, e, c0, c1, threshold))
            continue;
        const int64_t pieces = c1 - c0 + 1;
        count += pieces;
        n_long += long_pieces(b, e, c0, c1, C, threshold);
        if (pieces > 1) {
            n_fix++;
            slots += pieces;
        }
    }
    segment *longs = loom__malloc((size_t)(n_long > 0 ? n_long : 1) * sizeof *longs);
    const size_t listed = (size_t)(count > 0 ? count : 1);
    int64_t *row = loom__malloc(listed * sizeof *row);
    int64_t *begin = loom__malloc(listed * sizeof *begin);
    int64_t *slot = loom__malloc(listed * sizeof *slot);
    int64_t *fix_row = loom__malloc((size_t)(n_fix > 0 ? n_fix : 1) * sizeof *fix_row);
    int64_t *fix_slot0 = loom__malloc((size_t)(n_fix + 1) * sizeof *fix_slot0);
    if (!longs || !row || !begin || !slot || !fix_row || !fix_slot0)
        return segments_out_of_memory(longs, row, begin, slot, fix_row, fix_slot0);
    int64_t nl = 0, ns = n_long, f = 0, next_slot = 0;
    fix_slot0[0] = 0;
    cur = 0;
    for (int64_t r = 0; r < m; r++) {
        const int64_t b = ro[r], e = ro[r + 1];
        if (b == e) {
            if (!sweep) {
                row[ns] = r;
                begin[ns] = b;
                slot[ns++] = -1;
            }
            continue;
        }
        const int64_t c0 = chunk_at(b, C, &cur), c1 = chunk_at(e - 1, C, &cur);
        if (sweep && swept_row(b, e, c0, c1, threshold))
            continue;
        for (int64_t c = c0; c <= c1; c++) {
            const int64_t pb = b > c * C ? b : c * C, pe = e < (c + 1) * C ? e : (c + 1) * C;
            const int64_t sl = c0 == c1 ? -1 : next_slot++;
            if (pe - pb > threshold) {
                longs[nl++] = (segment){r, pb, sl, pe - pb};
            } else {
                row[ns] = r;
                begin[ns] = pb;
                slot[ns++] = sl;
            }
        }
        if (c0 != c1) {
            fix_row[f++] = r;
            fix_slot0[f] = next_slot;
        }
    }
    /* Longest first, ties in storage order: the lengths go in row[] for
     * the moment (its first n_long entries are not filled yet). */
    for (int64_t i = 0; i < n_long; i++)
        row[i] = longs[i].len;
    int64_t *rank = loom__longest_first_order(row, n_long);
    if (!rank)
        return segments_out_of_memory(longs, row, begin, slot, fix_row, fix_slot0);
    for (int64_t i = 0; i < n_long; i++) {
        row[i] = longs[rank[i]].row;
        begin[i] = longs[rank[i]].begin;
        slot[i] = longs[rank[i]].slot;
    }
    loom__free(rank);
    loom__free(longs);
    if (sort_short_items(plan) && !sort_short_segments(row + n_long, begin + n_long, slot + n_long,
                                                       count - n_long, ro, C))
        return segments_out_of_memory(NULL, row, begin, slot, fix_row, fix_slot0);
    sg->column_order = !sweep && column_order(plan);
    if (sg->column_order) {
        loom_status st = order_short_by_column(plan, row + n_long, begin + n_long, slot + n_long,
                                               count - n_long, ro);
        if (st != LOOM_SUCCESS) {
            free_segment_lists(NULL, row, begin, slot, fix_row, fix_slot0);
            return st;
        }
    }
    sg->n_long = n_long;
    sg->n_short = count - n_long;
    sg->sweep_rows = sweep ? m : 0;
    sg->long_threshold = threshold;
    sg->cache_pairs = sweep && pairs_fit_l2(plan);
    sg->long_vector = !sweep && long_segments_vector(plan);
    sg->vector32 = segments_vector32(plan);
    sg->n_fix = n_fix;
    sg->slab = segment_slab(plan, slots);
    const size_t elem = loom_dtype_size(plan->dtype);
    bool ok = arena_reserve(a, (void **)&sg->row, row, (size_t)count * sizeof(int64_t));
    ok = arena_reserve(a, (void **)&sg->begin, begin, (size_t)count * sizeof(int64_t)) && ok;
    ok = arena_reserve(a, (void **)&sg->slot, slot, (size_t)count * sizeof(int64_t)) && ok;
    ok = arena_reserve(a, (void **)&sg->fix_row, fix_row, (size_t)n_fix * sizeof(int64_t)) && ok;
    ok = arena_reserve(a, (void **)&sg->fix_slot0, fix_slot0, (size_t)(n_fix + 1) * sizeof(int64_t)) &&
         ok;
    if (slots > 0)
        ok = arena_reserve(a, &sg->carry, NULL, (size_t)slots * (size_t)sg->slab * elem) && ok;
    if (!ok)
        return loom__error(LOOM_ERR_INTERNAL, "cuda plan: too many device arrays");
    return LOOM_SUCCESS;
}

loom_status loomcu_plan_prepare(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC)
        return loomcu_tc_prepare(plan);
    const bool segs = wants_segments(plan);
    const bool eb = plan->strategy.mloop == LOOM_M_EB && plan->chunks > 0 && !segs;
    const bool ktile = wants_ktile(plan);
    const bool bins = !ktile && wants_bins(plan);
    const bool pr_deep = wants_pr_deep(plan);
    if (!eb && !segs && !bins && !pr_deep && !ktile)
        return LOOM_SUCCESS;
    loomcu_plan_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "cuda plan: out of host memory");
    d->pr_deep = pr_deep;
    d->ktile = ktile;
    arena a = {0};
    loom_status st = LOOM_SUCCESS;
    if (eb)
        st = prepare_eb(plan, &d->eb, &a);
    if (bins && st == LOOM_SUCCESS)
        st = prepare_bins(plan, &d->bins, &a);
    if (segs && st == LOOM_SUCCESS)
        st = prepare_segments(plan, &d->segs, &a);
    if (st == LOOM_SUCCESS && a.parts > 0)
        st = arena_commit(&a, &d->arena,
                          bins ? "row bins on the device" : "EB preprocessing on the device");
    arena_free_host(&a); /* after an error before the commit */
    if (st != LOOM_SUCCESS) {
        free_data(d);
        return st;
    }
    plan->backend_data = d;
    return LOOM_SUCCESS;
}

void loomcu_plan_release(loom_plan *plan)
{
    if (plan->strategy.kloop == LOOM_K_TC) {
        loomcu_tc_release(plan);
        return;
    }
    if (plan->backend_data)
        free_data(plan->backend_data);
    plan->backend_data = NULL;
}
