/*
 * dual_lines.c - the line walk of the dual-side GEMM (OpenMP:
 * backends/openmp/dual_lines_impl.h; CUDA: backends/cuda/dual_lines.cu):
 * its plan data, the sparse side as one list per group of lines of C
 * (loom_dual_lines: 1 line a group for OpenMP, 4 for CUDA), built once per
 * plan, and the view of an operand along its condensed lines.
 *
 * The walk computes each line of C (a row, or a column) as
 *
 *     acc(x) = +0;  for each (k, s) in the line's list, k increasing:
 *         acc(x) = fma(s, P(k, x), acc(x))
 *
 * where the list holds the line's non-zeros of one operand (A's row i for
 * row i of C, or B's column j for column j) and P is the other operand
 * expanded to dense, a panel of columns (or rows) at a time, its absent
 * elements +0.  So every C element sees fma over the k where the sparse
 * side is non-zero, in increasing k: the reference's order, plus fmas
 * whose product is a zero from P.  Those leave acc's bits unchanged when
 * both operands are zero-safe (lib/dual_zero_safe.c), which the plan
 * checks; otherwise the plan keeps the tile walk (dual_gemm_impl.h), which
 * multiplies only pairs of non-zeros.
 *
 * Which side is the list: the one with the fewer multiply-adds,
 * nnz(A) * N (rows of C) against nnz(B) * M (columns of C).
 */
#include "config.h"
#include "dual_internal.h"

#include <stdlib.h>
#include <string.h>

loom_dual_side loom__dual_side_of(const loom_bitmap_view *v, bool is_a)
{
    loom_dual_side s = {v, 0, 0, 0, 0, 0, 0};
    if (is_a) { /* column-condensed: lines are columns k, bits run over rows */
        s.cross = v->rows;
        s.k = v->cols;
        s.cross_tiles = v->tile_rows;
        s.k_tiles = v->tile_cols;
        s.sc = v->tile_cols;
        s.sk = 1;
    } else { /* row-condensed: lines are rows k, bits run over columns */
        s.cross = v->cols;
        s.k = v->rows;
        s.cross_tiles = v->tile_cols;
        s.k_tiles = v->tile_rows;
        s.sc = 1;
        s.sk = v->tile_cols;
    }
    return s;
}

static bool present(const loom_bitmap_view *v, int64_t t)
{
    return v->tile_bits[t / 64] >> (t % 64) & 1u;
}

/* The groups of one cross tile (32 lines of C), as loom_dual_lines says,
 * appended in tile-column order, which is increasing k (+0 for a line
 * without a value there: all bits zero is +0).  Built from the tile
 * masks: a k line's r bits of the group say which lines are present.
 * With kidx NULL, only counts into cur[]. */
static void group_tile_row(const loom_dual_side *s, int64_t ct, int r, int64_t *cur,
                           int32_t *kidx, char *val, size_t es)
{
    const loom_bitmap_view *v = s->v;
    const int per = LOOM__TILE / r;
    const uint32_t low = r == 32 ? ~0u : (1u << r) - 1u;
    for (int64_t kt = 0; kt < s->k_tiles; kt++) {
        const int64_t t = ct * s->sc + kt * s->sk;
        if (!present(v, t))
            continue;
        int64_t pos = v->tile_offsets[t];
        for (int kk = 0; kk < LOOM__TILE; kk++) {
            const uint32_t m = v->masks[t * LOOM__TILE + kk];
            for (int q = 0; q < per; q++) {
                uint32_t g = m >> (q * r) & low;
                if (!g)
                    continue;
                if (kidx) {
                    const int64_t e = cur[q];
                    kidx[e] = (int32_t)(kt * LOOM__TILE + kk);
                    char *dst = val + (size_t)e * (size_t)r * es;
                    memset(dst, 0, (size_t)r * es);
                    /* values of lower bits of this k line come first */
                    int64_t at = pos + __builtin_popcount(m & ((1u << (q * r)) - 1u));
                    for (; g; g &= g - 1, at++)
                        memcpy(dst + (size_t)__builtin_ctz(g) * es,
                               (const char *)v->values + (size_t)at * es, es);
                }
                cur[q]++;
            }
            pos += __builtin_popcount(m);
        }
    }
}

void loom__dual_lines_free(loom_dual_lines *g)
{
    loom__free(g->start);
    loom__free(g->kidx);
    loom__free(g->val);
    memset(g, 0, sizeof *g);
}

loom_status loom__dual_lines_build(const loom_bitmap *A, const loom_bitmap *B, bool rows, int r,
                                   loom_dual_lines *out)
{
    memset(out, 0, sizeof *out);
    const loom_dual_side s =
        rows ? loom__dual_side_of(&A->v, true) : loom__dual_side_of(&B->v, false);
    const size_t es = loom_dtype_size(A->v.dtype);
    const int per = LOOM__TILE / r;
    const int64_t groups = s.cross_tiles * per;
    out->rows = rows;
    out->r = r;
    out->lines = s.cross;
    out->groups = groups;
    out->start = loom__calloc((size_t)groups + 1, sizeof(int64_t));
    if (!out->start)
        goto oom;
    for (int64_t ct = 0; ct < s.cross_tiles; ct++)
        group_tile_row(&s, ct, r, out->start + 1 + ct * per, NULL, NULL, es);
    for (int64_t g = 0; g < groups; g++) /* counts to starts */
        out->start[g + 1] += out->start[g];
    const int64_t n = out->start[groups];
    out->kidx = loom__malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    out->val = loom__malloc((size_t)(n ? n : 1) * (size_t)r * es);
    if (!out->kidx || !out->val)
        goto oom;
    for (int64_t ct = 0; ct < s.cross_tiles; ct++) {
        int64_t cur[LOOM__TILE];
        memcpy(cur, out->start + ct * per, (size_t)per * sizeof(int64_t));
        group_tile_row(&s, ct, r, cur, out->kidx, out->val, es);
    }
    return LOOM_SUCCESS;
oom:
    loom__dual_lines_free(out);
    return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual-side GEMM: out of memory");
}

bool loom__dual_lines_over_rows(const loom_bitmap *A, const loom_bitmap *B)
{
    return (double)A->v.nnz * (double)B->v.cols <= (double)B->v.nnz * (double)A->v.rows;
}
