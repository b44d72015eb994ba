/*
 * spmm_designs.h - the eight SpMM designs of the reference, for one precision.
 *
 * A design is a choice on each of three loops:
 *   M-loop  RB | EB   who owns which work (whole rows, or chunks of non-zeros)
 *   N-loop  RM | CM   the order output elements are visited in
 *   K-loop  SR | PR   how one output element's products are summed
 * The M- and K-loop choices fix the order of the floating-point operations
 * (order_*.h).  The N-loop does not: RM visits Y row by row (a worker walks
 * along a row of X and Y, the access that suits row-major storage), CM
 * visits Y column by column (the access that suits column-major storage);
 * both compute every element with the same operations, so RM and CM give
 * identical bits.
 *
 * Each output element is finished the same way in every design, once:
 *
 *     beta == 0:  y = alpha * acc             (y's old value is never read)
 *     otherwise:  y = fma(alpha, acc, beta * y_old)
 *
 * Include with LOOM_REAL_F32 or LOOM_REAL_F64 defined (spmm_f32.c, spmm_f64.c).
 */
#include "loom.h"
#include "operands.h"
#include "real_type.h"
#include "order_eb.h"
#include "order_rb_sr.h"
#include "order_rb_pr.h"
#include "order_eb_sr.h"
#include "order_eb_pr.h"

typedef real (*SUFFIX(row_sum_fn))(const ref_csr *A, int64_t i, const real *x, int64_t x_stride,
                                   const ref_order *order);

static void SUFFIX(finish)(real alpha, real acc, real beta, real *y)
{
    *y = (beta == 0) ? alpha * acc : FMA(alpha, acc, beta * *y);
}

/* The one output element Y(i, c): row i of A times column c of X. */
static void SUFFIX(element)(const ref_csr *A, SUFFIX(row_sum_fn) row_sum, const ref_order *order,
                            real alpha, const ref_dense *X, real beta, ref_dense *Y, int64_t i,
                            int64_t c)
{
    const real *x_column = (const real *)X->data + c * X->col_stride;
    real *y = (real *)Y->data + i * Y->row_stride + c * Y->col_stride;
    SUFFIX(finish)(alpha, row_sum(A, i, x_column, X->row_stride, order), beta, y);
}

void SUFFIX(loom__reference_spmm)(const ref_csr *A, const loom_strategy *s, real alpha,
                                  const ref_dense *X, real beta, ref_dense *Y, int64_t n)
{
    const ref_order order = {s->chunk, s->lanes};
    SUFFIX(row_sum_fn) row_sum;

    if (s->mloop == LOOM_M_RB)
        row_sum = (s->kloop == LOOM_K_SR) ? SUFFIX(row_sum_rb_sr) : SUFFIX(row_sum_rb_pr);
    else
        row_sum = (s->kloop == LOOM_K_SR) ? SUFFIX(row_sum_eb_sr) : SUFFIX(row_sum_eb_pr);

    if (s->nloop == LOOM_N_RM) {
        for (int64_t i = 0; i < A->rows; i++)
            for (int64_t c = 0; c < n; c++)
                SUFFIX(element)(A, row_sum, &order, alpha, X, beta, Y, i, c);
    } else {
        for (int64_t c = 0; c < n; c++)
            for (int64_t i = 0; i < A->rows; i++)
                SUFFIX(element)(A, row_sum, &order, alpha, X, beta, Y, i, c);
    }
}
