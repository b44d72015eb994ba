/*
 * order_eb_pr.h - EB + PR: element balance, parallel (segmented) reduction.
 *
 * The chunk's worker is a group of w lanes (C is a multiple of w).  It
 * walks its chunk in tiles of w consecutive non-zeros, tile t of chunk c
 * holding [c*C + t*w, c*C + (t+1)*w), lane l taking the tile's l-th
 * non-zero.  Each lane forms its product p[l] = a[j] * x[col[j]] (one
 * rounding).  A tile may hold pieces of several rows, so the lanes reduce
 * with the segmented ("conditional") network, the shuffle-down order:
 *
 *     for s = 1, 2, 4, .., w/2:
 *         for every lane l whose lane l+s exists and holds the same row:
 *             v[l] = v[l] + v[l+s]          (all lanes read before any writes)
 *
 * after which the first lane of each row's segment holds the segment sum.
 * The worker keeps one accumulator per row it is working on, starting at
 * +0, and adds the tile segment sums in tile order:
 *
 *     piece = +0;  for each tile t of the chunk touching row i:
 *         piece = piece + segment_sum(t)
 *
 * and the row's pieces are combined left to right (order_eb.h).
 *
 * Worked example, w = 4, one tile holding rows (r, r, r, q) with products
 * (1, 2, 3, 4): s = 1: lane 0 = 1+2, lane 1 = 2+3 (lane 2 stays: lane 3 is
 * another row); s = 2: lane 0 = (1+2) + 3.  Row r's segment sum is
 * (1+2)+3, row q's is 4.
 *
 * Include after real_type.h and order_eb.h.
 */

/* The segmented network restricted to one row's lanes first..last of a
 * tile: lanes of other rows never combine with these, so they are left out. */
static real SUFFIX(segmented_tile_sum)(real v[LOOM_EB_LANES_MAX], int first, int last, int w)
{
    for (int s = 1; s < w; s *= 2) {
        real next[LOOM_EB_LANES_MAX];
        for (int l = first; l <= last; l++)
            next[l] = (l + s <= last) ? v[l] + v[l + s] : v[l];
        for (int l = first; l <= last; l++)
            v[l] = next[l];
    }
    return v[first];
}

static real SUFFIX(row_sum_eb_pr)(const ref_csr *A, int64_t i, const real *x, int64_t x_stride,
                                  const ref_order *order)
{
    const real *a = A->values;
    const int64_t C = order->chunk;
    const int w = order->lanes;
    const int64_t start = A->row_offsets[i], end = A->row_offsets[i + 1];
    real result = 0;

    if (start == end)
        return result;
    for (int64_t c = start / C; c <= (end - 1) / C; c++) {
        int64_t b, e;
        real piece = 0;
        eb_piece(start, end, C, c, &b, &e);
        /* The tiles of chunk c that hold non-zeros b .. e-1. */
        for (int64_t tile = c * C + ((b - c * C) / w) * w; tile < e; tile += w) {
            real v[LOOM_EB_LANES_MAX];
            int first = (int)((b > tile ? b : tile) - tile);
            int last = (int)((e < tile + w ? e : tile + w) - 1 - tile);
            for (int l = first; l <= last; l++) {
                int64_t j = tile + l;
                v[l] = a[j] * x[A->col_indices[j] * x_stride];
            }
            piece = piece + SUFFIX(segmented_tile_sum)(v, first, last, w);
        }
        result = (c == start / C) ? piece : result + piece;
    }
    return result;
}
