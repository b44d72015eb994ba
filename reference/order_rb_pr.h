/*
 * order_rb_pr.h - RB + PR: row balance, parallel reduction with w lanes.
 *
 * One group of w lanes owns the whole row i.  The row's t-th non-zero
 * (t counted from the row's start) goes to lane t mod w, and each lane sums
 * its share in order, exactly like RB + SR:
 *
 *     part[l] = +0                                    for l = 0 .. w-1
 *     for t = 0 .. len-1:
 *         part[t mod w] = fma(a[start+t], x[col[start+t]], part[t mod w])
 *
 * Then a halving tree, the order of a warp's shuffle-down reduction (or of
 * a SIMD register folded in halves):
 *
 *     for s = w/2, w/4, .., 1:
 *         part[l] = part[l] + part[l+s]               for l = 0 .. s-1
 *     result = part[0]
 *
 * w runs up to LOOM_LANES_MAX (256) under RB: on a GPU such a row spans
 * w/32 warps, and the tree's levels s >= 32 are the ones that cross warps.
 *
 * Worked example, w = 4, row values 1..6 times x = 1: lanes hold
 * part = (1+5, 2+6, 3, 4) = (6, 8, 3, 4); s = 2 gives (6+3, 8+4) = (9, 12);
 * s = 1 gives 9+12 = 21.
 *
 * Include after real_type.h.
 */
static real SUFFIX(row_sum_rb_pr)(const ref_csr *A, int64_t i, const real *x, int64_t x_stride,
                                  const ref_order *order)
{
    const real *a = A->values;
    const int w = order->lanes;
    const int64_t start = A->row_offsets[i];
    const int64_t len = A->row_offsets[i + 1] - start;
    real part[LOOM_LANES_MAX];

    for (int l = 0; l < w; l++)
        part[l] = 0;
    for (int64_t t = 0; t < len; t++) {
        int64_t j = start + t;
        int l = (int)(t % w);
        part[l] = FMA(a[j], x[A->col_indices[j] * x_stride], part[l]);
    }
    for (int s = w / 2; s >= 1; s /= 2)
        for (int l = 0; l < s; l++)
            part[l] = part[l] + part[l + s];
    return part[0];
}
