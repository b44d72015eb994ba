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
    const int64_t next = __ldg(eb.first_row + chunk + 1);
    const int64_t lo = chunk == 0 ? 0 : first;
    chunk_last_row(p, eb, chunk, chunk_begin, chunk_end, blockIdx.y == 0 && lane == 0);
    const int64_t slab_end = eb.slab_c0 + eb.slab_w < p.n ? eb.slab_c0 + eb.slab_w : p.n;

    for (int64_t c = eb.slab_c0 + (int64_t)blockIdx.y * V; c < slab_end;
         c += (int64_t)gridDim.y * V) {
        finish_empty_rows<T, V>(p, lo + lane, next, W, c, slab_end);
        int64_t my_row = first; /* this lane's row, advanced as j grows */
        int64_t my_begin = __ldg(p.ro + first), my_end = __ldg(p.ro + first + 1);
        int64_t open_row = -1;  /* the row whose piece runs on into the next tile */
        T open[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            open[i] = T(0);
        for (int64_t tile = chunk_begin; tile < chunk_end; tile += W) {
            const int64_t j = tile + lane;
            const bool valid = j < chunk_end;
            int64_t row = -1 - lane; /* inactive lanes: a row of their own */
            T v[V];
#pragma unroll
            for (int i = 0; i < V; i++)
                v[i] = T(0);
            if (valid) {
                while (my_end <= j) {
                    my_row++;
                    my_begin = my_end;
                    my_end = __ldg(p.ro + my_row + 1);
                }
                row = my_row;
                const T a = __ldg(p.val + j);
                T xv[V];
                load_x<T, V>(p, __ldg(p.ci + j), c, xv);
#pragma unroll
                for (int i = 0; i < V; i++)
                    v[i] = A::mul(a, xv[i]);
            }
#pragma unroll
            for (int s = 1; s < W; s *= 2) {
                const int64_t other_row = shfl_down<W>(mask, row, s);
#pragma unroll
                for (int i = 0; i < V; i++) {
                    const T other = shfl_down<W>(mask, v[i], s);
                    if (lane + s < W && other_row == row)
                        v[i] = A::add(v[i], other);
                }
            }
            const int64_t prev_row = shfl_up<W>(mask, row, 1);
            const bool seg_head = valid && (lane == 0 || prev_row != row);
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
            const int64_t last_row = shfl<W>(mask, row, W - 1);
            const bool last_runs_on = shfl<W>(mask, (int)runs_on, W - 1) != 0;
            const unsigned same = __ballot_sync(mask, row == last_row) >> group_base;
            const int head_lane = __ffs(same) - 1;
#pragma unroll
            for (int i = 0; i < V; i++)
                open[i] = shfl<W>(mask, seg_head ? piece[i] : T(0), head_lane);
            open_row = last_runs_on ? last_row : -1;
        }
    }
}

/* Finish each row that crosses chunks, from the chunk where it began:
 * result = tail[c0] + head[c0+1] + ... (order_eb.h), then alpha/beta. */
template <typename T>
__global__ void eb_fixup_kernel(operands<T> p, eb_state<T> eb)
{
    typedef arith<T> A;
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t chunk = idx / eb.slab_w, cc = idx % eb.slab_w;
    const int64_t c = eb.slab_c0 + cc;
    if (chunk >= eb.chunks || c >= p.n)
        return;
    const int64_t row = eb.tail_row[chunk];
    if (row < 0)
        return;
    const int64_t end = __ldg(p.ro + row + 1);
    const int64_t last = (end - 1) / eb.chunk; /* the row's last chunk */
    T acc = eb.tail[chunk * eb.slab_w + cc];
    /* The additions must stay in chunk order (one dependent chain); the
     * loads need not: fetch a batch of pieces first so a long row's chain
     * waits on memory once per batch, not once per chunk. */
    const int batch = 16;
    int64_t k = chunk + 1;
    for (; k + batch - 1 <= last; k += batch) {
        T piece[batch];
#pragma unroll
        for (int b = 0; b < batch; b++)
            piece[b] = eb.head[(k + b) * eb.slab_w + cc];
#pragma unroll
        for (int b = 0; b < batch; b++)
            acc = A::add(acc, piece[b]);
    }
    for (; k <= last; k++)
        acc = A::add(acc, eb.head[k * eb.slab_w + cc]);
    finish(p.alpha, acc, p.beta, p.y + row * p.yrs + c * p.ycs);
}

} // namespace loomcu

#endif
