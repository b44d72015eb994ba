/*
 * spmm_launch.cuh - from a strategy to kernel launches, for one precision.
 *
 * The strategy's arithmetic parameters (M-loop, K-loop, EB chunk, PR lane
 * width) pick the kernel; the speed-only choices are made here:
 *   - V, the columns per lane: VDL (float2/float4/double2 loads of X rows)
 *     when X is row-major and V-aligned; `coarsen` asks for a V directly;
 *   - G, the lanes that split a row's columns under SR (enough for N/V
 *     columns, at most a warp), with CSC (coalesced loading of the sparse
 *     segment, passed round by shuffles) when G > 1;
 *   - the N-loop: RM lets each group walk all column tiles of its rows,
 *     CM spreads the column tiles over gridDim.y;
 *   - for RB + SR at wide N, the plan's row bins (long rows first, walked
 *     one column per lane; see rb_sr_binned_kernel);
 *   - TILE_MAJOR: the order of the short rows' (or segments') blocks in the
 *     binned and segments walks (short_item); the other walks have one.
 * None of these changes the order of any floating-point operation.
 */
#ifndef LOOM_CUDA_SPMM_LAUNCH_CUH
#define LOOM_CUDA_SPMM_LAUNCH_CUH

#include "spmm_eb.cuh"
#include "spmm_eb_segments.cuh"
#include "spmm_rb_ktile.cuh"

namespace loomcu {

static const int block_threads = 256;

/* Launch kernel k (grid x block_threads) on stream st, allowed to be
 * placed while the kernel before it there ends (launch_after_previous,
 * pdl.cuh; k waits for that kernel first thing: spmm_common.cuh).  The
 * launch's status; the walk families' run(), which return nothing, leave
 * it to their caller's cudaGetLastError(), which holds any runtime call's
 * error. */
template <typename... Params, typename... Args>
static cudaError_t launch_kernel(void (*k)(Params...), dim3 grid, cudaStream_t st, const Args &...args)
{
    return launch_after_previous(k, grid, dim3(block_threads), 0, st, args...);
}

static int floor_pow2(int v)
{
    int r = 1;
    while (r * 2 <= v)
        r *= 2;
    return r;
}

static int ceil_pow2(int64_t v)
{
    int r = 1;
    while (r < v && r < 32)
        r *= 2;
    return r;
}

template <typename T> struct launch_shape {
    int G, V;      /* lanes per group splitting columns (SR) and columns per lane */
    dim3 grid;
};

/* Columns per lane: 1, 2 or 4, never wider than 16 bytes nor than X allows.
 * SR below N = 16 where the wide walks run (loomcu_wide_n) takes 2, not 4,
 * so that a group has the 4 lanes they need.  Where N < V every tile is
 * partial and load_x reads it element by element, so X's alignment does
 * not bound V there; PR with the RM N-loop uses that at N = 3 under VDL:
 * a lane walks its share of the row once, where V = 1 (rows of 12 bytes)
 * walked it three times (EB + PR 1.49x, RB + PR 1.06x faster; not SR,
 * whose groups would shrink to one lane, nor the CM N-loop, whose tiles
 * run in parallel). */
template <typename T>
static int columns_per_lane(const loomcu_problem *p, const loom_strategy *s)
{
    const bool pr_rm = s->coarsen == 0 && (s->techniques & LOOM_TECH_VDL) &&
                       s->kloop == LOOM_K_PR && s->nloop == LOOM_N_RM;
    int v = 1;
    if (s->coarsen > 0)
        v = floor_pow2(s->coarsen < 4 ? s->coarsen : 4);
    else if (s->techniques & LOOM_TECH_VDL)
        v = p->n >= 4 || (pr_rm && p->n == 3) ? 4 : p->n >= 2 ? 2 : 1;
    if (s->coarsen == 0 && s->kloop == LOOM_K_SR && p->n < 16 && loomcu_wide_n(p->n, 0) && v > 2)
        v = 2;
    if ((int)sizeof(T) * v > 16)
        v = 16 / (int)sizeof(T);
    if (v > p->x_vector_width && !(pr_rm && p->n < v))
        v = p->x_vector_width;
    return v < 1 ? 1 : v;
}

static dim3 grid_for(int64_t groups, int lanes_per_group, int64_t columns, int64_t tile_w,
                     const loom_strategy *s)
{
    int64_t threads = groups * lanes_per_group;
    int64_t bx = (threads + block_threads - 1) / block_threads;
    int64_t by = 1;
    if (s->nloop == LOOM_N_CM) {
        by = (columns + tile_w - 1) / tile_w;
        if (by > 65535)
            by = 65535;
    }
    return dim3((unsigned)(bx > 0 ? bx : 1), (unsigned)(by > 0 ? by : 1), 1);
}

template <typename T>
static operands<T> make_operands(const loomcu_problem *p)
{
    operands<T> o;
    o.m = p->m;
    o.n = p->n;
    o.nnz = p->nnz;
    o.ro = p->row_offsets;
    o.ci = p->col_indices;
    o.val = (const T *)p->values;
    o.x = (const T *)p->x;
    o.xrs = p->x_row_stride;
    o.xcs = p->x_col_stride;
    o.y = (T *)p->y;
    o.yrs = p->y_row_stride;
    o.ycs = p->y_col_stride;
    o.alpha = (T)p->alpha;
    o.beta = (T)p->beta;
    o.yvw = p->y_vector_width;
    o.xrsb = (uint32_t)(p->x_row_stride * (int64_t)sizeof(T)); /* < 4 GiB: cuda_spmm checks */
    return o;
}

/* Each family as a functor with run<G or W, V>(), so one switch serves all. */
template <typename T> struct rb_sr_family {
    operands<T> p; dim3 grid; cudaStream_t st; bool csc;
    template <int G, int V> void run() const { launch_kernel(rb_sr_kernel<T, G, V>, grid, st, p, csc); }
};
template <typename T> struct rb_pr_family {
    operands<T> p; dim3 grid; cudaStream_t st; bool deep;
    template <int W, int V> void run() const
    {
        if constexpr (W > 32)
            launch_kernel(rb_pr_warps_kernel<T, W, V>, grid, st, p);
        else if (deep)
            launch_kernel(rb_pr_kernel<T, W, V, true>, grid, st, p);
        else
            launch_kernel(rb_pr_kernel<T, W, V, false>, grid, st, p);
    }
};
template <typename T> struct eb_sr_family {
    operands<T> p; eb_state<T> eb; dim3 grid; cudaStream_t st; bool csc;
    template <int G, int V> void run() const { launch_kernel(eb_sr_kernel<T, G, V>, grid, st, p, eb, csc); }
};
template <typename T> struct eb_pr_family {
    operands<T> p; eb_state<T> eb; dim3 grid; cudaStream_t st;
    template <int W, int V> void run() const { launch_kernel(eb_pr_kernel<T, W, V>, grid, st, p, eb); }
};

template <typename T, int G, typename F>
static void with_v(int V, const F &f)
{
    if (V == 4) {
        if constexpr (sizeof(T) * 4 <= 16)
            f.template run<G, 4>();
    } else if (V == 2) {
        f.template run<G, 2>();
    } else {
        f.template run<G, 1>();
    }
}

template <typename T> struct rb_sr_wide_family {
    operands<T> p; dim3 grid; cudaStream_t st;
    template <int G, int V> void run() const { launch_kernel(rb_sr_wide_kernel<T, G, V>, grid, st, p); }
};
template <typename T> struct rb_sr_binned_family {
    operands<T> p; row_bins_view bins; unsigned blocks; cudaStream_t st;
    template <int G, int V> void run() const
    {
        if constexpr (G * V >= 8)
            launch_kernel(rb_sr_binned_kernel<T, G, V>, blocks, st, p, bins);
    }
};

/* The wide SR walk is used from G = 4 lanes per group up. */
template <typename T, typename F>
static void with_wide_gv(int G, int V, const F &f)
{
    switch (G) {
    case 4: with_v<T, 4>(V, f); break;
    case 8: with_v<T, 8>(V, f); break;
    case 16: with_v<T, 16>(V, f); break;
    default: with_v<T, 32>(V, f); break;
    }
}

/* The segments' wide walk also takes 32 bytes of columns a lane (V = 8 in
 * f32, 4 in f64: two 16-byte loads per pair) where its_v32 holds. */
template <typename T, typename F>
static void with_segments_gv(int G, int V, const F &f)
{
    constexpr int V32 = 32 / (int)sizeof(T);
    if (V != V32) {
        with_wide_gv<T>(G, V, f);
        return;
    }
    if (G == 4)
        f.template run<4, V32>();
    else
        f.template run<8, V32>();
}

template <typename T> struct eb_sr_segments_family {
    operands<T> p; segments_view<T> segs; unsigned blocks; cudaStream_t st;
    template <int G, int V> void run() const
    {
        if constexpr (G * V >= 8)
            launch_kernel(eb_sr_segments_kernel<T, G, V>, blocks, st, p, segs);
    }
};

/* The binned launch (rb_sr_binned_kernel): long rows' blocks, then the
 * short rows' blocks. */
template <typename T>
static void launch_binned(const operands<T> &p, const loomcu_row_bins *b, int G, int V,
                          bool tile_major, cudaStream_t st)
{
    const int64_t tile_w = (int64_t)G * V, gl = tile_w < 32 ? tile_w : 32;
    const int64_t long_threads = b->n_long * ((p.n + gl - 1) / gl) * gl;
    row_bins_view v;
    v.rows = b->rows; /* NULL: no list, the rows in order */
    v.n_long = b->n_long;
    v.n_short = b->n_short;
    v.long_blocks = (long_threads + block_threads - 1) / block_threads;
    v.tile_major = tile_major;
    const int64_t blocks = v.long_blocks + short_blocks(b->n_short, G, (p.n + tile_w - 1) / tile_w,
                                                        tile_major, block_threads);
    rb_sr_binned_family<T> f = {p, v, (unsigned)(blocks > 0 ? blocks : 1), st};
    with_wide_gv<T>(G, V, f);
}
template <typename T> struct eb_sr_wide_family {
    operands<T> p; eb_state<T> eb; dim3 grid; cudaStream_t st;
    template <int G, int V> void run() const { launch_kernel(eb_sr_wide_kernel<T, G, V>, grid, st, p, eb); }
};

/* The N = 1 walks: long rows (pieces) get a warp each, the others a thread. */
static int64_t narrow_blocks(int64_t groups, int lanes)
{
    return (groups * lanes + block_threads - 1) / block_threads;
}

template <typename T>
static cudaError_t launch_n1_binned(const operands<T> &p, const loomcu_row_bins *b, cudaStream_t st)
{
    row_bins_view v;
    v.rows = b->rows; /* NULL: no list, the rows in order */
    v.n_long = b->n_long;
    v.n_short = b->n_short;
    v.long_blocks = narrow_blocks(b->n_long, narrow_long_lanes);
    v.tile_major = false; /* one column: no tiles */
    const int64_t blocks = v.long_blocks + narrow_blocks(b->n_short, narrow_short_lanes);
    return launch_kernel(rb_sr_n1_binned_kernel<T>, dim3((unsigned)(blocks > 0 ? blocks : 1)), st, p, v);
}

/* RB + SR in K-tiles (spmm_rb_ktile.cuh): 32 rows x TW columns a block. */
template <typename T>
static cudaError_t allow_ktile()
{
    return cudaFuncSetAttribute(rb_sr_ktile_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                ktile_shape<T>::smem);
}

template <typename T>
static cudaError_t launch_ktile(const operands<T> &p, int64_t k, cudaStream_t st)
{
    typedef ktile_shape<T> S;
    const dim3 grid((unsigned)((p.m + S::rows - 1) / S::rows), (unsigned)((p.n + S::TW - 1) / S::TW));
    return launch_after_previous(rb_sr_ktile_kernel<T>, grid, dim3(S::rows * 32), S::smem, st, p, k);
}

/* EB + SR as segments (eb_sr_segments_kernel), slab by slab of columns:
 * the segments, then the fix-up of the rows that cross chunks. */
template <typename T>
static cudaError_t launch_segments(const operands<T> &p, const loomcu_eb_segments *sg,
                                   int64_t chunk, int G, int V, bool vec, bool tile_major,
                                   cudaStream_t st)
{
    const int64_t tile_w = (int64_t)G * V, gl = tile_w < 32 ? tile_w : 32;
    segments_view<T> v;
    v.row = sg->row;
    v.begin = sg->begin;
    v.slot = sg->slot;
    v.n_long = sg->n_long;
    v.n_short = sg->n_short;
    v.short_blocks = 0;
    v.sweep_rows = sg->sweep_rows;
    v.long_threshold = sg->long_threshold;
    v.cache_pairs = sg->cache_pairs != 0;
    v.chunk = chunk;
    v.carry = (T *)sg->carry;
    v.tile_major = tile_major;
    if (sg->long_vector) { /* the long segments first, in the short walk's shape */
        v.n_short += v.n_long;
        v.n_long = 0;
    }
    for (int64_t c0 = 0; c0 < p.n; c0 += sg->slab) {
        v.slab_c0 = c0;
        v.slab_w = sg->slab;
        const int64_t width = p.n - c0 < sg->slab ? p.n - c0 : sg->slab;
        const int64_t long_threads = v.n_long * ((width + gl - 1) / gl) * gl;
        v.long_blocks = (long_threads + block_threads - 1) / block_threads;
        const int64_t blocks = v.long_blocks + short_blocks(v.n_short, G, (width + tile_w - 1) / tile_w,
                                                            tile_major, block_threads);
        if (loomcu_narrow_n(p.n)) {
            const bool wide = loomcu_narrow_wide(p.n, p.nnz, sizeof(T)); /* speed only: same bits */
            v.long_blocks = narrow_blocks(v.n_long, wide ? wide_lanes : deep_lanes);
            v.short_blocks = narrow_blocks(v.n_short, 1);
            const int64_t nb = v.long_blocks + v.short_blocks + narrow_blocks(v.sweep_rows, 1);
            const unsigned g = (unsigned)(nb > 0 ? nb : 1);
            if (wide)
                launch_kernel(eb_sr_narrow_segments_kernel<T, 1, wide_lanes, wide_batches>, g, st, p, v,
                            false);
            else if (p.n == 1)
                launch_kernel(eb_sr_narrow_segments_kernel<T, 1>, g, st, p, v, false);
            else if (p.n == 2)
                launch_kernel(eb_sr_narrow_segments_kernel<T, 2>, g, st, p, v, vec);
            else /* N = 3 too: a fourth column of +0, never stored */
                launch_kernel(eb_sr_narrow_segments_kernel<T, 4>, g, st, p, v, vec);
        } else {
            eb_sr_segments_family<T> f = {p, v, (unsigned)(blocks > 0 ? blocks : 1), st};
            with_segments_gv<T>(G, V, f);
        }
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
        if (sg->n_fix > 0) {
            /* 16 bytes of columns a thread where the slab allows (speed only) */
            constexpr int Vf = 16 / (int)sizeof(T);
            const bool vec = width % Vf == 0 && sg->slab % Vf == 0;
            const int64_t threads = sg->n_fix * (vec ? width / Vf : width);
            const int64_t fix_blocks = (threads + block_threads - 1) / block_threads;
            const int64_t *fr = sg->fix_row, *f0 = sg->fix_slot0;
            const dim3 g((unsigned)fix_blocks);
            e = vec ? launch_kernel(eb_segments_fixup_kernel<T, Vf>, g, st, p, v, fr, f0, sg->n_fix)
                    : launch_kernel(eb_segments_fixup_kernel<T, 1>, g, st, p, v, fr, f0, sg->n_fix);
            if (e != cudaSuccess)
                return e;
        }
    }
    return cudaSuccess;
}

/* Grid of the wide walk: groups on x, the column tiles on y (every tile
 * of a row or chunk in parallel; the arithmetic of each column is the same). */
static dim3 wide_grid(int64_t groups, int G, int64_t columns, int64_t tile_w)
{
    int64_t bx = (groups * G + block_threads - 1) / block_threads;
    int64_t by = (columns + tile_w - 1) / tile_w;
    if (by > 65535)
        by = 65535;
    return dim3((unsigned)(bx > 0 ? bx : 1), (unsigned)(by > 0 ? by : 1), 1);
}

template <typename T, typename F>
static void with_gv(int G, int V, const F &f)
{
    switch (G) {
    case 1: with_v<T, 1>(V, f); break;
    case 2: with_v<T, 2>(V, f); break;
    case 4: with_v<T, 4>(V, f); break;
    case 8: with_v<T, 8>(V, f); break;
    case 16: with_v<T, 16>(V, f); break;
    default: with_v<T, 32>(V, f); break;
    }
}

/* PR lane widths start at 2; past 32 only under RB (loom_strategy_check),
 * so the EB families never see them. */
template <typename T, typename F>
static void with_wv(int W, int V, const F &f)
{
    switch (W) {
    case 2: with_v<T, 2>(V, f); break;
    case 4: with_v<T, 4>(V, f); break;
    case 8: with_v<T, 8>(V, f); break;
    case 16: with_v<T, 16>(V, f); break;
    default: with_v<T, 32>(V, f); break;
    }
}

template <typename T, typename F>
static void with_rb_wv(int W, int V, const F &f)
{
    switch (W) {
    case 64: with_v<T, 64>(V, f); break;
    case 128: with_v<T, 128>(V, f); break;
    case 256: with_v<T, 256>(V, f); break;
    default: with_wv<T>(W, V, f); break;
    }
}

/* SR lanes per group: enough for `columns` (N, or a slab of it) at V per
 * lane; one lane per row when X is column-major (lanes then read rows, not
 * a column vector). */
static int sr_group(const loomcu_problem *p, int64_t columns, int V)
{
    if (p->x_col_stride != 1)
        return 1;
    return ceil_pow2((columns + V - 1) / V);
}

template <typename T>
static cudaError_t launch_spmm(const loomcu_problem *pr, const loom_strategy *s,
                               const loomcu_plan_data *data, cudaStream_t st)
{
    const operands<T> p = make_operands<T>(pr);
    const int V = columns_per_lane<T>(pr, s);
    const bool sr = s->kloop == LOOM_K_SR;
    const int G = sr_group(pr, pr->n, V); /* SR lanes per group over all of N */
    const bool tile_major = (s->techniques & LOOM_TECH_TILE_MAJOR) != 0;
    const loomcu_eb_data *ebd = data && data->eb.chunks > 0 ? &data->eb : NULL;
    const loomcu_row_bins *bins =
        data && data->bins.n_long + data->bins.n_short > 0 ? &data->bins : NULL;
    const loomcu_eb_segments *segs =
        data && loomcu_segments_made(&data->segs) ? &data->segs : NULL;

    if (s->mloop == LOOM_M_EB && sr && segs && pr->nnz > 0) {
        /* The plan makes segments only at N <= 4 and where the wide walk
         * applies; the lanes are for a slab (cuda_plan.c segment_slab), so
         * that no tile straddles two. */
        int Gs = sr_group(pr, segs->slab < pr->n ? segs->slab : pr->n, V);
        if (!loomcu_narrow_n(pr->n) && (Gs < 4 || Gs * V < 8))
            return cudaErrorInvalidValue;
        /* 32 bytes of columns a lane where the plan chose it and X's rows
         * take 16-byte loads: half the lanes, tiles of at most 64 columns
         * (16 lanes of 32 bytes spill) */
        int Vs = V;
        if (segs->vector32 && !loomcu_narrow_n(pr->n) && V * (int)sizeof(T) == 16 && Gs >= 8) {
            Vs = 2 * V;
            Gs = Gs / 2 < 8 ? Gs / 2 : 8;
        }
        /* X's rows as one vector at N = 2 and 4 where aligned; never at N = 3,
         * whose 4-wide walk must not read a fourth column */
        const bool vec = pr->x_col_stride == 1 && (pr->n == 2 || pr->n == 4) &&
                         pr->x_vector_width >= pr->n;
        return launch_segments<T>(p, segs, s->chunk, Gs, Vs, vec, tile_major, st);
    }
    if (s->mloop == LOOM_M_RB && sr && bins && pr->n == 1 && pr->nnz > 0)
        return launch_n1_binned<T>(p, bins, st);
    /* The plan's K-tiles where X's rows take 16-byte copies; else the
     * wide walk below (the same sums) */
    if (s->mloop == LOOM_M_RB && sr && data && data->ktile && pr->nnz > 0 &&
        pr->x_col_stride == 1 && pr->x_vector_width * (int)sizeof(T) >= 16)
        return launch_ktile<T>(p, pr->k, st);

    if (pr->nnz == 0 || (s->mloop == LOOM_M_EB && (!ebd || ebd->chunks == 0))) {
        dim3 grid = grid_for(p.m, 1, p.n, 1, s);
        if (grid.y == 1 && s->nloop == LOOM_N_CM)
            grid.y = 1;
        return launch_kernel(zero_rows_kernel<T>, grid, st, p);
    }
    if (s->mloop == LOOM_M_RB) {
        if (sr && G >= 4 && bins && G * V >= 8 && bins->n_long + bins->n_short == p.m) {
            launch_binned<T>(p, bins, G, V, tile_major, st);
        } else if (sr && G >= 4) {
            rb_sr_wide_family<T> f = {p, wide_grid(p.m, G, p.n, (int64_t)G * V), st};
            with_wide_gv<T>(G, V, f);
        } else if (sr) {
            rb_sr_family<T> f = {p, grid_for(p.m, G, p.n, (int64_t)G * V, s), st,
                                 (s->techniques & LOOM_TECH_CSC) != 0 || G > 1};
            with_gv<T>(G, V, f);
        } else {
            rb_pr_family<T> f = {p, grid_for(p.m, s->lanes, p.n, V, s), st,
                                 data != NULL && data->pr_deep};
            with_rb_wv<T>(s->lanes, V, f);
        }
        return cudaGetLastError();
    }

    eb_state<T> eb;
    eb.chunk = s->chunk;
    eb.chunks = ebd->chunks;
    eb.first_row = ebd->first_row;
    eb.head = (T *)ebd->head;
    eb.tail = (T *)ebd->tail;
    eb.tail_row = ebd->tail_row;
    for (int64_t c0 = 0; c0 < p.n; c0 += ebd->slab) {
        eb.slab_c0 = c0;
        eb.slab_w = ebd->slab < p.n - c0 ? ebd->slab : p.n - c0;
        if (sr && G >= 4) {
            eb_sr_wide_family<T> f = {p, eb, wide_grid(eb.chunks, G, eb.slab_w, (int64_t)G * V), st};
            with_wide_gv<T>(G, V, f);
        } else if (sr) {
            eb_sr_family<T> f = {p, eb, grid_for(eb.chunks, G, eb.slab_w, (int64_t)G * V, s), st,
                                 (s->techniques & LOOM_TECH_CSC) != 0 || G > 1};
            with_gv<T>(G, V, f);
        } else {
            eb_pr_family<T> f = {p, eb, grid_for(eb.chunks, s->lanes, eb.slab_w, V, s), st};
            with_wv<T>(s->lanes, V, f);
        }
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
        const int64_t fix_threads = eb.chunks * eb.slab_w;
        const dim3 g((unsigned)((fix_threads + block_threads - 1) / block_threads));
        e = launch_kernel(eb_fixup_kernel<T>, g, st, p, eb);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

} // namespace loomcu

#endif
