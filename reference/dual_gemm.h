/*
 * dual_gemm.h - the dual-side sparse GEMM of the reference, for one
 * precision: C = alpha*A*B + beta*C, A (M x K) column-condensed and B
 * (K x N) row-condensed bitmaps, C dense.
 *
 * The outer-product algorithm of the dual-side sparse tensor core: for
 * each 32x32 warp tile of C, for each k in increasing order, multiply the
 * condensed column segment A(tile rows, k) by the condensed row segment
 * B(k, tile columns) and merge the products into the tile's accumulators:
 * gather (the condensed values), accumulate (every pair of non-zeros),
 * scatter (to the accumulator named by the two bit positions).  A pair of
 * tiles with an empty tile bit is skipped whole.
 *
 * The summation order, which every backend reproduces bit for bit:
 *
 *     acc = +0
 *     for k = 0, 1, ..., K-1 where A(i,k) != 0 and B(k,j) != 0:
 *         acc = fma(A(i,k), B(k,j), acc)
 *     C(i,j) = beta == 0 ? alpha*acc : fma(alpha, acc, beta*C(i,j))
 *
 * (beta == 0 never reads C, as in SpMM's finish in spmm_designs.h.)
 * Include with LOOM_REAL_F32 or LOOM_REAL_F64 defined (dual_gemm_f32.c, _f64.c).
 */
#include "dual_internal.h"
#include "real_type.h"

enum { T = LOOM__TILE };

static bool SUFFIX(tile_present)(const loom_bitmap_view *v, int64_t t)
{
    return v->tile_bits[t / 64] >> (t % 64) & 1u;
}

/* One k: the outer product of a condensed column segment of A (mask ma,
 * values a) and a condensed row segment of B (mask mb, values b). */
static void SUFFIX(outer_product)(uint32_t ma, const real *a, uint32_t mb, const real *b,
                                  real acc[T][T])
{
    int x = 0;
    for (uint32_t ra = ma; ra; ra &= ra - 1, x++) {
        int row = __builtin_ctz(ra); /* scatter: the bit is the position */
        int y = 0;
        for (uint32_t rb = mb; rb; rb &= rb - 1, y++)
            acc[row][__builtin_ctz(rb)] = FMA(a[x], b[y], acc[row][__builtin_ctz(rb)]);
    }
}

void SUFFIX(loom__ref_dual_gemm)(const loom_bitmap *Abm, const loom_bitmap *Bbm, real alpha,
                                 real beta, loom_dense *C)
{
    const loom_bitmap_view *A = &Abm->v, *B = &Bbm->v;
    const real *av = A->values, *bv = B->values;
    real *c = C->data;
    real acc[T][T];

    for (int64_t ti = 0; ti < A->tile_rows; ti++)
        for (int64_t tj = 0; tj < B->tile_cols; tj++) {
            for (int r = 0; r < T; r++)
                for (int s = 0; s < T; s++)
                    acc[r][s] = 0;
            for (int64_t tk = 0; tk < A->tile_cols; tk++) {
                int64_t ta = ti * A->tile_cols + tk, tb = tk * B->tile_cols + tj;
                if (!SUFFIX(tile_present)(A, ta) || !SUFFIX(tile_present)(B, tb))
                    continue;
                int64_t pa = A->tile_offsets[ta], pb = B->tile_offsets[tb];
                for (int kk = 0; kk < T; kk++) { /* k = tk*T + kk, increasing */
                    uint32_t ma = A->masks[ta * T + kk], mb = B->masks[tb * T + kk];
                    if (ma && mb)
                        SUFFIX(outer_product)(ma, av + pa, mb, bv + pb, acc);
                    pa += __builtin_popcount(ma);
                    pb += __builtin_popcount(mb);
                }
            }
            for (int r = 0; r < T && ti * T + r < A->rows; r++)
                for (int s = 0; s < T && tj * T + s < B->cols; s++) {
                    real *y = c + loom__dense_offset(C, ti * T + r, tj * T + s);
                    *y = (beta == 0) ? alpha * acc[r][s] : FMA(alpha, acc[r][s], beta * *y);
                }
        }
}
