/*
 * order_eb_sr.h - EB + SR: element balance, sequential reduction.
 *
 * The chunk's worker sums each piece in order, starting from +0:
 *
 *     piece = +0
 *     for j in the piece:  piece = fma(a[j], x[col[j]], piece)
 *
 * and the row's pieces are combined left to right (order_eb.h).
 *
 * Worked example, C = 4: rows of lengths 3 and 6 hold non-zeros 0-2 and
 * 3-8.  Chunk 0 = {0,1,2,3}, chunk 1 = {4..7}, chunk 2 = {8}.  Row 0 lies in
 * chunk 0: result = its piece.  Row 1 has pieces {3}, {4..7}, {8}:
 * result = (p0 + p1) + p2.
 *
 * Include after real_type.h and order_eb.h.
 */
static real SUFFIX(row_sum_eb_sr)(const ref_csr *A, int64_t i, const real *x, int64_t x_stride,
                                  const ref_order *order)
{
    const real *a = A->values;
    const int64_t C = order->chunk;
    const int64_t start = A->row_offsets[i], end = A->row_offsets[i + 1];
    real result = 0;

    if (start == end)
        return result;
    for (int64_t c = start / C; c <= (end - 1) / C; c++) {
        int64_t b, e;
        real piece = 0;
        eb_piece(start, end, C, c, &b, &e);
        for (int64_t j = b; j < e; j++)
            piece = FMA(a[j], x[A->col_indices[j] * x_stride], piece);
        result = (c == start / C) ? piece : result + piece;
    }
    return result;
}
