/*
 * dual_steps.c - the tensor-core step counter: what a dual-side sparse
 * tensor core (Wang et al., "Dual-side Sparse Tensor Core", ISCA 2021)
 * would issue for C = A*B, beside what a dense outer-product tensor core
 * issues.
 *
 * The model: a warp owns a 32x32 tile of C.  Per k it computes the outer
 * product of a 32-element column of A by a 32-element row of B in steps of
 * 8x16x1.  The dense unit issues ceil(h/8)*ceil(w/16) steps for a tile of
 * h x w (8 for a full tile) at every k.  The sparse unit condenses both
 * operands first, so it issues ceil(nnz_a/8)*ceil(nnz_b/16) steps, none
 * when either segment is empty, and skips a (tile of C, k-tile) pair whole
 * when the tile bitmap says one of its two operand tiles is empty.
 */
#include "config.h"
#include "dual_internal.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static bool tile_present(const loom_bitmap_view *v, int64_t t)
{
    return v->tile_bits[t / 64] >> (t % 64) & 1u;
}

loom_status loom_dual_gemm_steps_count(const loom_bitmap *Abm, const loom_bitmap *Bbm,
                                       loom_dual_gemm_steps *steps)
{
    const char *fn = "loom_dual_gemm_steps_count";
    loom_status st = loom__check_bitmap(Abm, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(Bbm, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!steps)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: steps is NULL", fn);
    const loom_bitmap_view *A = &Abm->v, *B = &Bbm->v;
    if (A->layout != LOOM_BITMAP_COLUMNS || B->layout != LOOM_BITMAP_ROWS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: A must be LOOM_BITMAP_COLUMNS and B LOOM_BITMAP_ROWS", fn);
    if (A->cols != B->rows)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: A has %lld columns, B %lld rows", fn, (long long)A->cols,
                           (long long)B->rows);
    loom_dual_gemm_steps s = {0};
    const int T = LOOM__TILE;
    for (int64_t ti = 0; ti < A->tile_rows; ti++) {
        int64_t h = A->rows - ti * T < T ? A->rows - ti * T : T;
        for (int64_t tj = 0; tj < B->tile_cols; tj++) {
            int64_t w = B->cols - tj * T < T ? B->cols - tj * T : T;
            s.dense_steps += ceil_div(h, 8) * ceil_div(w, 16) * A->cols;
            for (int64_t tk = 0; tk < A->tile_cols; tk++) {
                int64_t ta = ti * A->tile_cols + tk, tb = tk * B->tile_cols + tj;
                s.tile_pairs++;
                if (!tile_present(A, ta) || !tile_present(B, tb)) {
                    s.tile_pairs_skipped++;
                    continue;
                }
                for (int kk = 0; kk < T; kk++)
                    s.issued_steps += ceil_div(__builtin_popcount(A->masks[ta * T + kk]), 8) *
                                      ceil_div(__builtin_popcount(B->masks[tb * T + kk]), 16);
            }
        }
    }
    s.skipped_steps = s.dense_steps - s.issued_steps;
    s.speedup = s.issued_steps ? (double)s.dense_steps / (double)s.issued_steps : 0.0;
    *steps = s;
    return LOOM_SUCCESS;
}
