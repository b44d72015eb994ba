/*
 * order_rb_sr.h - RB + SR: row balance, sequential reduction.
 *
 * One worker owns the whole row i and walks its non-zeros in storage order:
 *
 *     acc = +0
 *     for j = row_offsets[i] .. row_offsets[i+1]-1:
 *         acc = fma(a[j], x[col[j]], acc)
 *
 * Worked example: a row with values (2, 3, 5) on columns whose x values are
 * (1, 10, 100): acc = fma(2,1,0) = 2; acc = fma(3,10,2) = 32;
 * acc = fma(5,100,32) = 532.  Each fma rounds once.
 *
 * Include after real_type.h.
 */
static real SUFFIX(row_sum_rb_sr)(const ref_csr *A, int64_t i, const real *x, int64_t x_stride,
                                  const ref_order *order)
{
    const real *a = A->values;
    real acc = 0;
    (void)order;
    for (int64_t j = A->row_offsets[i]; j < A->row_offsets[i + 1]; j++)
        acc = FMA(a[j], x[A->col_indices[j] * x_stride], acc);
    return acc;
}
