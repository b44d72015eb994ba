/*
 * spmm_eb.cuh - EB (element balance) kernels: a group of lanes owns a chunk
 * of C consecutive non-zeros, whatever rows it crosses.
 *
 * What a chunk's group does with each row it touches (reference/order_eb.h):
 *  - a row wholly inside the chunk: its piece is the row's result, finished
 *    and written to Y here;
 *  - the chunk's first row, when it began in an earlier chunk: its piece goes
 *    to head[chunk] (this also covers a row that spans the whole chunk);
 *  - the chunk's last row, when it begins here and goes on past the chunk:
 *    its piece goes to tail[chunk] and its index to tail_row[chunk];
 *  - empty rows up to the next chunk's first row (and, for chunk 0, the empty
 *    rows before the first non-zero): +0, finished and written.
 * Then eb_fixup_kernel finishes each crossing row from the chunk where it
 * began: result = tail[c0] + head[c0+1] + head[c0+2] + ..., left to right,
 * the fixed order of the reference.  No atomics: every run gives the same bits.
 */
#ifndef LOOM_CUDA_SPMM_EB_CUH
#define LOOM_CUDA_SPMM_EB_CUH

#include "spmm_rb.cuh"

namespace loomcu {

/* Where a finished piece goes (see above); lane-local, for one row. */
template <typename T, int V>
__device__ __forceinline__ void place_piece(const operands<T> &p, const eb_state<T> &eb,
                                            int64_t chunk, int64_t row, int64_t row_begin,
                                            int64_t row_end, int64_t chunk_begin,
                                            int64_t chunk_end, int64_t c, int64_t c_end,
                                            const T (&piece)[V])
{
    if (row_begin < chunk_begin || row_end > chunk_end) {
        T *buf = (row_begin < chunk_begin ? eb.head : eb.tail) + chunk * eb.slab_w;
#pragma unroll
        for (int i = 0; i < V; i++)
            if (c + i < c_end)
                buf[c + i - eb.slab_c0] = piece[i];
    } else {
        finish_columns<T, V>(p, row, c, c_end, piece);
    }
}

/* Rows [lo, hi) that are empty: +0, finished, for columns [c, c+V). */
template <typename T, int V>
__device__ __forceinline__ void finish_empty_rows(const operands<T> &p, int64_t lo, int64_t hi,
                                                  int64_t step, int64_t c, int64_t c_end)
{
    T zero[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        zero[i] = T(0);
    for (int64_t r = lo; r < hi; r += step)
        if (__ldg(p.ro + r) == __ldg(p.ro + r + 1))
            finish_columns<T, V>(p, r, c, c_end, zero);
}

/* The last row this chunk touches, and whether it goes on past the chunk
 * having begun inside it (a tail).  Sets tail_row[chunk]. */
template <typename T>
__device__ __forceinline__ int64_t chunk_last_row(const operands<T> &p, const eb_state<T> &eb,
                                                  int64_t chunk, int64_t chunk_begin,
                                                  int64_t chunk_end, bool write_tail_row)
{
    const int64_t next = __ldg(eb.first_row + chunk + 1);
    int64_t last = next - 1;
    int64_t tail = -1;
    if (next < p.m) {
        const int64_t nb = __ldg(p.ro + next);
        if (nb < chunk_end) {
            last = next;
            if (nb >= chunk_begin)
                tail = next;
        }
    }
    if (write_tail_row)
        eb.tail_row[chunk] = tail;
    return last;
}

/*
 * EB + SR: a group of G lanes owns a chunk; each piece is summed with fma
 * from +0 in storage order (sr_segment), lanes splitting the columns.
 * Matches reference/order_eb_sr.h row_sum_eb_sr with the fix-up.
 */
template <typename T, int G, int V>
__global__ void eb_sr_kernel(operands<T> p, eb_state<T> eb, bool csc)
{
    start_after_previous(true); /* eb_fixup_kernel follows (spmm_common.cuh) */
    const int64_t chunk = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (chunk >= eb.chunks)
        return;
    const int lane = threadIdx.x & (G - 1);
    const int64_t chunk_begin = chunk * eb.chunk;
    const int64_t chunk_end = chunk_begin + eb.chunk < p.nnz ? chunk_begin + eb.chunk : p.nnz;
    const int64_t first = __ldg(eb.first_row + chunk);
    const int64_t lo = chunk == 0 ? 0 : first;
    const int64_t last = chunk_last_row(p, eb, chunk, chunk_begin, chunk_end,
                                        blockIdx.y == 0 && lane == 0);
    const int64_t slab_end = eb.slab_c0 + eb.slab_w < p.n ? eb.slab_c0 + eb.slab_w : p.n;
    const int64_t tile_w = (int64_t)G * V;
    for (int64_t tile = eb.slab_c0 + blockIdx.y * tile_w; tile < slab_end;
         tile += (int64_t)gridDim.y * tile_w) {
        const int64_t c = tile + (int64_t)lane * V;
        for (int64_t r = lo; r <= last; r++) {
            const int64_t rb = __ldg(p.ro + r), re = __ldg(p.ro + r + 1);
            T piece[V]; /* an empty row gives +0, finished like any row */
            const int64_t b = rb > chunk_begin ? rb : chunk_begin;
            const int64_t e = re < chunk_end ? re : chunk_end;
            sr_segment<T, G, V>(p, b, e, c, csc, piece);
            place_piece<T, V>(p, eb, chunk, r, rb, re, chunk_begin, chunk_end, c, slab_end, piece);
        }
    }
}

/*
 * Helpers of the EB kernels for matrices with long runs of empty rows
 * (R-MAT, power-law graphs), where a chunk of C non-zeros can cross
 * thousands of rows: no kernel steps through empty rows one by one.
 *
 * seek_row: the row holding non-zero j, searched in rows [lo, hi] (the
 * caller knows it lies there) by the G lanes together: each step probes G
 * evenly spaced row ends at once (one coalesced load) and keeps the slice
 * that holds j, until G rows are left; returns the first of them (the row
 * is then found in a window of G row ends loaded from there).  j is the
 * same for the whole group.
 */
template <typename T, int G>
__device__ __forceinline__ int64_t seek_row(const operands<T> &p, int64_t j, int64_t lo,
                                            int64_t hi, int lane, unsigned mask)
{
    while (hi - lo + 1 > G) {
        const int64_t step = (hi - lo + G) / G; /* ceil((hi - lo + 1) / G) */
        int64_t probe = lo + (int64_t)(lane + 1) * step - 1;
        probe = probe < hi ? probe : hi;
        const bool before = __ldg(p.ro + probe + 1) <= j;
        const int k = __popc(__ballot_sync(mask, before) & mask); /* slices wholly before j */
        lo = lo + (int64_t)k * step;
        hi = lo + step - 1 < hi ? lo + step - 1 : hi;
    }
    return lo;
}

/* The G row ends from row wbase on, one per lane (past the last row: huge). */
template <typename T>
__device__ __forceinline__ int64_t window_end(const operands<T> &p, int64_t wbase, int lane)
{
    return wbase + 1 + lane <= p.m ? __ldg(p.ro + wbase + 1 + lane) : INT64_MAX;
}

/* Empty rows, +0 finished, for this lane's columns [c, c+V): group g of
 * `groups` takes rows [g*R, (g+1)*R), R = ceil(m / groups), so the work is
 * spread evenly whatever rows the chunks cross.  The G lanes test G rows
 * at once; every lane then writes its columns of each empty row. */
template <typename T, int G, int V>
__device__ __forceinline__ void finish_empty_slice(const operands<T> &p, int64_t g, int64_t groups,
                                                   int lane, unsigned mask, int64_t c,
                                                   int64_t c_end)
{
    const int64_t R = (p.m + groups - 1) / groups;
    const int64_t r0 = g * R, r1 = r0 + R < p.m ? r0 + R : p.m;
    T zero[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        zero[i] = T(0);
    const int group_base = (threadIdx.x & 31) & ~(G - 1);
    for (int64_t base = r0; base < r1; base += G) {
        const int64_t r = base + lane;
        const bool empty = r < r1 && __ldg(p.ro + r) == __ldg(p.ro + r + 1);
        unsigned bits = (__ballot_sync(mask, empty) & mask) >> group_base;
        while (bits) {
            const int t = __ffs(bits) - 1;
            bits &= bits - 1;
            finish_columns<T, V>(p, base + t, c, c_end, zero);
        }
    }
}

/*
 * EB + SR, wide: a group of G lanes owns a chunk and splits a tile of G*V
 * columns; it walks the chunk's pairs in storage order in one stream (the
 * wide walk of spmm_rb.cuh: batches of G pairs loaded coalesced, the next
 * batch loaded ahead, U x-vector loads before their U fmas), so the pairs
 * are loaded once per chunk, not once per row.  Row ends come from a
 * window of G row ends, one per lane: the row holding j is the window's
 * first row plus the count of its ends <= j (one ballot); past the window,
 * seek_row jumps over any run of empty rows.  At each row end the piece is
 * placed (place_piece) and the accumulators start again at +0.  Empty rows
 * are finished by finish_empty_slice.  Same pieces and results as
 * eb_sr_kernel: row_sum_eb_sr of reference/order_eb_sr.h with the fix-up.
 */
template <typename T, int G, int V>
__global__ void __launch_bounds__(256, 2) eb_sr_wide_kernel(operands<T> p, eb_state<T> eb)
{
    start_after_previous(true); /* eb_fixup_kernel follows (spmm_common.cuh) */
    typedef arith<T> A;
    const int U = (G == 32 && V == 4) ? 4 : walk_unroll<T, G, V>::U; /* no spills at G = 32, V = 4 */
    const int64_t chunk = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (chunk >= eb.chunks)
        return;
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = group_mask<G>();
    const int64_t chunk_begin = chunk * eb.chunk;
    const int64_t chunk_end = chunk_begin + eb.chunk < p.nnz ? chunk_begin + eb.chunk : p.nnz;
    const int64_t first = __ldg(eb.first_row + chunk); /* the row holding chunk_begin */
    const int64_t first_begin = __ldg(p.ro + first);
    const int64_t last = chunk_last_row(p, eb, chunk, chunk_begin, chunk_end,
                                        blockIdx.y == 0 && lane == 0);
    const int64_t slab_end = eb.slab_c0 + eb.slab_w < p.n ? eb.slab_c0 + eb.slab_w : p.n;
    const int64_t tile_w = (int64_t)G * V;
    for (int64_t tile = eb.slab_c0 + blockIdx.y * tile_w; tile < slab_end;
         tile += (int64_t)gridDim.y * tile_w) {
        const int64_t c = tile + (int64_t)lane * V;
        finish_empty_slice<T, G, V>(p, chunk, eb.chunks, lane, mask, c, slab_end);
        int64_t wbase = first;
        int64_t wend = window_end(p, wbase, lane);
        int64_t wlast = shfl<G>(mask, wend, G - 1);
        int64_t r = first, re = shfl<G>(mask, wend, 0);
        T acc[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            acc[i] = T(0);
        int32_t col;
        T a;
        load_pair(p, chunk_begin + lane, chunk_end, col, a);
        for (int64_t base = chunk_begin; base < chunk_end; base += G) {
            const int cnt = (chunk_end - base) < G ? (int)(chunk_end - base) : G;
            int32_t ncol;
            T na;
            load_pair(p, base + G + lane, chunk_end, ncol, na);
#pragma unroll
            for (int t0 = 0; t0 < G; t0 += U) {
                if (t0 >= cnt)
                    break;
                T xv[U][V];
#pragma unroll
                for (int u = 0; u < U; u++)
                    load_x<T, V>(p, shfl<G>(mask, col, t0 + u), c, xv[u]);
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const T at = shfl<G>(mask, a, t0 + u);
                    if (t0 + u < cnt) {
                        const int64_t j = base + t0 + u;
                        if (j >= re) { /* row r ended: place its piece, find j's row */
                            place_piece<T, V>(p, eb, chunk, r, r == first ? first_begin : chunk_begin,
                                              re, chunk_begin, chunk_end, c, slab_end, acc);
#pragma unroll
                            for (int i = 0; i < V; i++)
                                acc[i] = T(0);
                            if (j >= wlast) {
                                wbase = seek_row<T, G>(p, j, wbase + G, last, lane, mask);
                                wend = window_end(p, wbase, lane);
                                wlast = shfl<G>(mask, wend, G - 1);
                            }
                            const int k = __popc(__ballot_sync(mask, wend <= j) & mask);
                            r = wbase + k;
                            re = shfl<G>(mask, wend, k);
                        }
#pragma unroll
                        for (int i = 0; i < V; i++)
                            acc[i] = A::fma(at, xv[u][i], acc[i]);
                    }
                }
            }
            col = ncol;
            a = na;
        }
        /* The chunk's last row (a tail when it goes on past the chunk). */
        place_piece<T, V>(p, eb, chunk, r, r == first ? first_begin : chunk_begin, re, chunk_begin,
                          chunk_end, c, slab_end, acc);
    }
}

/*
 * EB + PR: a group of W lanes owns a chunk and walks it in tiles of W
 * non-zeros aligned to the chunk's start; lane l takes the tile's l-th
 * non-zero and forms p = a*x (one rounding).  The segmented ("conditional")
 * network on shuffles: for s = 1, 2, .., W/2, lane l adds lane l+s when that
 * lane exists and holds the same row; a row's segment sum ends in its first
 * lane.  Per row the tile sums are added to a piece that starts at +0, in
 * tile order; the open piece of the tile's last row passes to the next tile.
 * Matches reference/order_eb_pr.h row_sum_eb_pr with the fix-up.
 */
template <typename T, int W, int V>
__global__ void eb_pr_kernel(operands<T> p, eb_state<T> eb)
{
    start_after_previous(true); /* eb_fixup_kernel follows (spmm_common.cuh) */
    typedef arith<T> A;
    const int64_t chunk = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / W;
    if (chunk >= eb.chunks)
        return;
    const int lane = threadIdx.x & (W - 1);
    const unsigned mask = group_mask<W>();
    const int group_base = (threadIdx.x & 31) & ~(W - 1);
    const int64_t chunk_begin = chunk * eb.chunk;
    const int64_t chunk_end = chunk_begin + eb.chunk < p.nnz ? chunk_begin + eb.chunk : p.nnz;
    const int64_t first = __ldg(eb.first_row + chunk);
    const int64_t last = chunk_last_row(p, eb, chunk, chunk_begin, chunk_end,
                                        blockIdx.y == 0 && lane == 0);
    /* Empty rows: group g finishes those of rows [g*R, (g+1)*R), R = ceil(m/chunks). */
    const int64_t R = (p.m + eb.chunks - 1) / eb.chunks;
    const int64_t empty_lo = chunk * R, empty_hi = empty_lo + R < p.m ? empty_lo + R : p.m;
    const int64_t slab_end = eb.slab_c0 + eb.slab_w < p.n ? eb.slab_c0 + eb.slab_w : p.n;

    for (int64_t c = eb.slab_c0 + (int64_t)blockIdx.y * V; c < slab_end;
         c += (int64_t)gridDim.y * V) {
        finish_empty_rows<T, V>(p, empty_lo + lane, empty_hi, W, c, slab_end);
        /* Row lookup without a per-lane walk: a window of W row ends, lane l
         * holding the end of row wbase + l (wbeg = the begin of row wbase),
         * searched by shuffles; when a tile reaches past it, seek_row jumps
         * to the next row needed (over any run of empty rows). */
        int64_t wbase = first;
        int64_t wend = wbase + 1 + lane <= p.m ? __ldg(p.ro + wbase + 1 + lane) : INT64_MAX;
        int64_t wbeg = __ldg(p.ro + wbase);
        int64_t open_row = -1;  /* the row whose piece runs on into the next tile */
        T open[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            open[i] = T(0);
        /* Loads run ahead of the arithmetic (only the loads): the pair of
         * tile t+2 and the x vector of tile t+1 are requested while tile t
         * is reduced. */
        int32_t col1, col2;
        T a0, a1, a2;
        T x0[V], x1[V];
        {
            int32_t col0;
            load_pair(p, chunk_begin + lane, chunk_end, col0, a0);
            load_pair(p, chunk_begin + W + lane, chunk_end, col1, a1);
            load_x<T, V>(p, col0, c, x0);
        }
        for (int64_t tile = chunk_begin; tile < chunk_end; tile += W) {
            const int64_t j = tile + lane;
            const bool valid = j < chunk_end;
            int64_t row = -1;
            const T a = a0;
            T xv[V];
#pragma unroll
            for (int i = 0; i < V; i++)
                xv[i] = x0[i];
            load_x<T, V>(p, col1, c, x1);
            load_pair(p, tile + 2 * W + lane, chunk_end, col2, a2);
            int64_t my_begin = 0, my_end = 0;
            bool need = valid;
            const int64_t base0 = wbase;
            for (;;) {
                /* Window ends relative to the tile, clamped: wend <= j iff wrel <= lane. */
                const int64_t d = wend - tile;
                const int wrel = d < 0 ? -1 : d > (int64_t(1) << 30) ? (1 << 30) : (int)d;
                const int wrel_last = shfl<W>(mask, wrel, W - 1);
                int pos = 0; /* the rows of the window that end at or before j */
#pragma unroll
                for (int s = W / 2; s >= 1; s /= 2)
                    if (shfl<W>(mask, wrel, pos + s - 1) <= lane)
                        pos += s;
                const int64_t e_at = shfl<W>(mask, wend, pos);
                const int64_t b_at = shfl<W>(mask, wend, pos > 0 ? pos - 1 : 0);
                if (need && lane < wrel_last) {
                    row = wbase + pos;
                    my_end = e_at;
                    my_begin = pos > 0 ? b_at : wbeg;
                    need = false;
                }
                const unsigned unresolved = __ballot_sync(mask, need) & mask;
                if (unresolved == 0)
                    break;
                /* Jump to the row of the first unresolved non-zero (over any
                 * run of empty rows), and load the window from there. */
                const int64_t jn = tile + (__ffs(unresolved) - 1 - group_base);
                wbase = seek_row<T, W>(p, jn, wbase + W, last, lane, mask);
                wbeg = __ldg(p.ro + wbase);
                wend = window_end(p, wbase, lane);
            }
            /* The row as a 32-bit key for the shuffles: row - base0 < m (fewer
             * than 2^31 rows); inactive lanes: a negative key of their own. */
            const int key = valid ? (int)(row - base0) : -1 - lane;
            T v[V];
#pragma unroll
            for (int i = 0; i < V; i++)
                v[i] = valid ? A::mul(a, xv[i]) : T(0);
#pragma unroll
            for (int s = 1; s < W; s *= 2) {
                const int other_key = shfl_down<W>(mask, key, s);
#pragma unroll
                for (int i = 0; i < V; i++) {
                    const T other = shfl_down<W>(mask, v[i], s);
                    if (lane + s < W && other_key == key)
                        v[i] = A::add(v[i], other);
                }
            }
            const int prev_key = shfl_up<W>(mask, key, 1);
            const bool seg_head = valid && (lane == 0 || prev_key != key);
            const int64_t tile_end = tile + W < chunk_end ? tile + W : chunk_end;
            /* Does this lane's row go on into the next tile of the chunk? */
            const bool runs_on = valid && my_end > tile_end && tile_end < chunk_end;
            T piece[V];
            if (seg_head) {
                const bool continued = lane == 0 && row == open_row;
#pragma unroll
                for (int i = 0; i < V; i++)
                    piece[i] = A::add(continued ? open[i] : T(0), v[i]);
                if (!runs_on)
                    place_piece<T, V>(p, eb, chunk, row, my_begin, my_end, chunk_begin, chunk_end,
                                      c, slab_end, piece);
            }
            /* Pass the open piece (if any) to the next tile. */
            const int last_key = shfl<W>(mask, key, W - 1);
            const int64_t last_row = base0 + last_key; /* used only when it runs on (a valid lane) */
            const bool last_runs_on = shfl<W>(mask, (int)runs_on, W - 1) != 0;
            const unsigned same = __ballot_sync(mask, key == last_key) >> group_base;
            const int head_lane = __ffs(same) - 1;
#pragma unroll
            for (int i = 0; i < V; i++)
                open[i] = shfl<W>(mask, seg_head ? piece[i] : T(0), head_lane);
            open_row = last_runs_on ? last_row : -1;
            /* Rotate the loads ahead (at the end, so their latency overlaps the tile). */
            a0 = a1;
            a1 = a2;
            col1 = col2;
#pragma unroll
            for (int i = 0; i < V; i++)
                x0[i] = x1[i];
        }
    }
}

/* Finish each row that crosses chunks, from the chunk where it began:
 * result = tail[c0] + head[c0+1] + ... (order_eb.h), then alpha/beta. */
template <typename T>
__global__ void eb_fixup_kernel(operands<T> p, eb_state<T> eb)
{
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t chunk = idx / eb.slab_w, cc = idx % eb.slab_w;
    const int64_t c = eb.slab_c0 + cc;
    if (chunk >= eb.chunks || c >= p.n)
        return;
    wait_for_previous_grid(); /* the walk wrote tail_row, head and tail */
    const int64_t row = eb.tail_row[chunk];
    if (row < 0)
        return;
    const int64_t end = __ldg(p.ro + row + 1);
    const int64_t last = (end - 1) / eb.chunk; /* the row's last chunk */
    const T acc = add_pieces(eb.tail[chunk * eb.slab_w + cc], eb.head + cc, eb.slab_w, chunk + 1, last + 1);
    finish(p.alpha, acc, p.beta, p.y + row * p.yrs + c * p.ycs);
}

} // namespace loomcu

#endif
