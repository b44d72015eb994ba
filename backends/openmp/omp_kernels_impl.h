/*
 * omp_kernels_impl.h - the OpenMP backend's SpMM kernels, written once and
 * stamped per instruction set (included by kernels_<isa>.c after its
 * simd_<isa>.h) and per dtype (OMPK_F32 or OMPK_F64 defined).
 *
 * Bit for bit, every output element gets the operations of
 * reference/spmm_designs.h:
 *   RB+SR  row_sum_rb_sr  (order_rb_sr.h): one fma chain along the row
 *   RB+PR  row_sum_rb_pr  (order_rb_pr.h): lane t mod w, halving tree
 *   EB+SR  row_sum_eb_sr  (order_eb_sr.h): fma chain per piece, pieces
 *          added left to right
 *   EB+PR  row_sum_eb_pr  (order_eb_pr.h): per tile, products then the
 *          segmented network; tile sums added to the piece, pieces added
 *          left to right
 * and the one finish y = beta == 0 ? alpha*acc : fma(alpha, acc, beta*y).
 *
 * Where the SIMD goes: for N > 1 a vector holds neighbouring output columns
 * of one row (X is row-major here), so each lane runs exactly the scalar
 * sequence of its own element; for RB+SR with N <= one vector, four rows go
 * side by side (rb_sr_rows_small) so their fma chains overlap.  For N = 1
 * the SR designs are scalar chains (the order allows nothing else inside a
 * row): RB+SR interleaves four rows' chains (rb_sr_rows_n1), or, where the
 * plan made a sliced copy of A, puts one row per vector lane
 * (sell_slices_n1, masked so padding never reaches an accumulator; in the
 * sorted copy the empty rows get their finish from
 * sell_empty_rows instead of a lane); RB+PR
 * puts its w lanes in a vector.  RM versus CM changes nothing here: both
 * layouts of Y are written by the same loops (strided stores for
 * column-major Y).
 */
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include "omp_team.h"

#undef real
#undef vec
#undef VL
#undef V
#undef SFMA
#undef VH
#undef vech
#undef H
#undef OMPK_DT
#undef KS
#undef KS_
#undef KS__
#undef KX
#undef KX_
#undef KX__

#if defined(OMPK_F32)
#define real float
#define vec vf
#define VL VF_LANES
#define V(op) vf_##op
#define SFMA fmaf
#define VH VF_HALF /* lanes of the half-width tail, 0: none */
#define vech vf_h
#define H(op) vf_h_##op
#define OMPK_DT f32
#elif defined(OMPK_F64)
#define real double
#define vec vd
#define VL VD_LANES
#define V(op) vd_##op
#define SFMA fma
#define VH VD_HALF
#define vech vd_h
#define H(op) vd_h_##op
#define OMPK_DT f64
#else
#error "define OMPK_F32 or OMPK_F64 before including omp_kernels_impl.h"
#endif

#define KS__(name, dt) name##_##dt
#define KS_(name, dt) KS__(name, dt)
#define KS(name) KS_(name, OMPK_DT)
#define KX__(name, isa, dt) name##_##isa##_##dt
#define KX_(name, isa, dt) KX__(name, isa, dt)
#define KX(name) KX_(name, OMPK_ISA, OMPK_DT)

#define OMPK_INLINE static inline __attribute__((always_inline))

/* The finish of spmm_designs.h, one element. */
OMPK_INLINE real KS(finish)(real alpha, real acc, real beta, const real *y)
{
    return beta == 0 ? alpha * acc : SFMA(alpha, acc, beta * *y);
}

/* Finish m (<= VL) neighbouring columns into y (column stride ys), or, when
 * raw is not NULL, store the unfinished sums there (an EB carry). */
OMPK_INLINE void KS(emit)(vec acc, int m, real alpha, real beta, real *y, int64_t ys, real *raw)
{
    if (raw) {
        if (m == VL)
            V(store)(raw, acc);
        else
            V(store_n)(raw, acc, m);
        return;
    }
    if (ys == 1) {
        vec r;
        if (m == VL) {
            r = beta == 0 ? V(mul)(V(set1)(alpha), acc)
                          : V(fma)(V(set1)(alpha), acc, V(mul)(V(set1)(beta), V(load)(y)));
            V(store)(y, r);
        } else {
            r = beta == 0 ? V(mul)(V(set1)(alpha), acc)
                          : V(fma)(V(set1)(alpha), acc, V(mul)(V(set1)(beta), V(load_n)(y, m)));
            V(store_n)(y, r, m);
        }
        return;
    }
    real t[VL];
    V(store)(t, acc);
    for (int k = 0; k < m; k++)
        y[k * ys] = KS(finish)(alpha, t[k], beta, &y[k * ys]);
}

#if VH
/* emit for a tail of m <= VH columns held in the half-width vector. */
OMPK_INLINE void KS(emit_h)(vech acc, int m, real alpha, real beta, real *y, int64_t ys, real *raw)
{
    if (raw) {
        H(store_n)(raw, acc, m);
        return;
    }
    if (ys == 1) {
        const vech r = beta == 0 ? H(mul)(H(set1)(alpha), acc)
                                 : H(fma)(H(set1)(alpha), acc, H(mul)(H(set1)(beta), H(load_n)(y, m)));
        H(store_n)(y, r, m);
        return;
    }
    real t[VH];
    H(store)(t, acc);
    for (int k = 0; k < m; k++)
        y[k * ys] = KS(finish)(alpha, t[k], beta, &y[k * ys]);
}
#endif

/* ------------------------------------------------------------------ SR */

/* U full vectors of columns and, where m > 0, the next m < VL columns, in
 * one walk of [b, e): acc = fma(a[j], x[col[j]], acc) for j in order from
 * +0 (order_rb_sr.h, and one piece of order_eb_sr.h).  One walk, because
 * each walk reads the row's indices and values again and gathers its x
 * rows again: N = 12 as a pass of 8 columns and a pass of 4 took 1.8x the
 * time of N = 16 in one pass (2-core Zen 3 VM). */
OMPK_INLINE void KS(sr_block)(const real *a, const int32_t *ci, int64_t b, int64_t e,
                              const real *x, int64_t ldx, const int U, const int m, real alpha,
                              real beta, real *y, int64_t ys, real *raw)
{
    /* Fully unrolled so the U accumulators live in registers. */
    vec acc[8], tail = V(zero)();
#pragma GCC unroll 8
    for (int u = 0; u < U; u++)
        acc[u] = V(zero)();
#if VH
    /* A tail of at most half a vector goes in the half-width one. */
    const int half = m > 0 && m <= VH;
    vech tail_h = H(zero)();
#endif
    for (int64_t j = b; j < e; j++) {
        const vec av = V(set1)(a[j]);
        const real *xr = x + (int64_t)ci[j] * ldx;
#pragma GCC unroll 8
        for (int u = 0; u < U; u++)
            acc[u] = V(fma)(av, V(load)(xr + u * VL), acc[u]);
#if VH
        if (half)
            tail_h = H(fma)(H(of)(av), H(load_n)(xr + U * VL, m), tail_h);
        else
#endif
        if (m > 0)
            tail = V(fma)(av, V(load_n)(xr + U * VL, m), tail);
    }
#pragma GCC unroll 8
    for (int u = 0; u < U; u++)
        KS(emit)(acc[u], VL, alpha, beta, y + u * VL * ys, ys, raw ? raw + u * VL : NULL);
#if VH
    if (half)
        KS(emit_h)(tail_h, m, alpha, beta, y + U * VL * ys, ys, raw ? raw + U * VL : NULL);
    else
#endif
    if (m > 0)
        KS(emit)(tail, m, alpha, beta, y + U * VL * ys, ys, raw ? raw + U * VL : NULL);
}

/* The walk of U full vectors (0 <= U < 8) and an m-column tail (0 <= m <
 * VL), out of line: inlined into the drivers beside the walks of 1, 2, 4
 * and 8 vectors, these made gcc keep those walks' loop bound on the stack
 * (one more load a non-zero: 3-10% slower at N = 16). */
static __attribute__((noinline)) void KS(sr_block_rest)(const real *a, const int32_t *ci,
                                                        int64_t b, int64_t e, const real *x,
                                                        int64_t ldx, int U, int m, real alpha,
                                                        real beta, real *y, int64_t ys, real *raw)
{
#define OMPK_SR_REST(U_)                                                                \
    case U_:                                                                            \
        KS(sr_block)(a, ci, b, e, x, ldx, U_, m, alpha, beta, y, ys, raw);              \
        break;
    switch (U) {
        OMPK_SR_REST(0)
        OMPK_SR_REST(1)
        OMPK_SR_REST(2)
        OMPK_SR_REST(3)
        OMPK_SR_REST(4)
        OMPK_SR_REST(5)
        OMPK_SR_REST(6)
        OMPK_SR_REST(7)
    }
#undef OMPK_SR_REST
}

/* Columns [c0, c1) of the segment [b, e) of one row, SR order: walks of
 * 8 vectors, then one walk of the rest (inline where it is 1, 2 or 4
 * vectors, the common widths). */
OMPK_INLINE void KS(sr_segment)(const ompk_args *g, int64_t b, int64_t e, int64_t c0, int64_t c1,
                                real alpha, real beta, real *yrow, real *raw)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const real *x = g->x;
    const int64_t ldx = g->x_rs, ys = g->y_cs;
    int64_t c = c0;
#define OMPK_SR_BLOCK(U)                                                                 \
    KS(sr_block)(a, ci, b, e, x + c, ldx, U, 0, alpha, beta, yrow + c * ys, ys,          \
                 raw ? raw + c : NULL)
    for (; c + 8 * VL <= c1; c += 8 * VL)
        OMPK_SR_BLOCK(8);
    const int64_t rest = c1 - c;
    if (rest == 4 * VL)
        OMPK_SR_BLOCK(4);
    else if (rest == 2 * VL)
        OMPK_SR_BLOCK(2);
    else if (rest == VL)
        OMPK_SR_BLOCK(1);
    else if (rest > 0)
        KS(sr_block_rest)(a, ci, b, e, x + c, ldx, (int)(rest / VL), (int)(rest % VL), alpha,
                          beta, yrow + c * ys, ys, raw ? raw + c : NULL);
#undef OMPK_SR_BLOCK
}

/* N = 1: the scalar chain of order_rb_sr.h. */
OMPK_INLINE real KS(sr_scalar)(const real *a, const int32_t *ci, int64_t b, int64_t e,
                               const real *x, int64_t xs)
{
    real acc = 0;
    for (int64_t j = b; j < e; j++)
        acc = SFMA(a[j], x[(int64_t)ci[j] * xs], acc);
    return acc;
}

/* N = 1, RB+SR over rows [r0, r1): four rows' chains interleaved so the
 * fma latency of one row hides behind the others (each row keeps its own
 * order). */
OMPK_INLINE void KS(rb_sr_rows_n1_)(const ompk_args *g, int64_t r0, int64_t r1, real alpha,
                                    real beta, const int64_t xs)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const int64_t *ro = g->row_offsets;
    const real *x = g->x;
    real *y = g->y;
    const int64_t ys = g->y_rs;
    int64_t i = r0;
    for (; i + 4 <= r1; i += 4) {
        const int64_t b0 = ro[i], b1 = ro[i + 1], b2 = ro[i + 2], b3 = ro[i + 3], b4 = ro[i + 4];
        const int64_t l0 = b1 - b0, l1 = b2 - b1, l2 = b3 - b2, l3 = b4 - b3;
        int64_t lmin = l0 < l1 ? l0 : l1;
        lmin = lmin < l2 ? lmin : l2;
        lmin = lmin < l3 ? lmin : l3;
        real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int64_t t = 0; t < lmin; t++) {
            s0 = SFMA(a[b0 + t], x[(int64_t)ci[b0 + t] * xs], s0);
            s1 = SFMA(a[b1 + t], x[(int64_t)ci[b1 + t] * xs], s1);
            s2 = SFMA(a[b2 + t], x[(int64_t)ci[b2 + t] * xs], s2);
            s3 = SFMA(a[b3 + t], x[(int64_t)ci[b3 + t] * xs], s3);
        }
        /* The tails: two chains at a time where two rows remain. */
        int64_t j0 = b0 + lmin, j1 = b1 + lmin, j2 = b2 + lmin, j3 = b3 + lmin;
        if (g->interleave) {
            for (; j0 < b1 && j1 < b2; j0++, j1++) {
                s0 = SFMA(a[j0], x[(int64_t)ci[j0] * xs], s0);
                s1 = SFMA(a[j1], x[(int64_t)ci[j1] * xs], s1);
            }
            for (; j2 < b3 && j3 < b4; j2++, j3++) {
                s2 = SFMA(a[j2], x[(int64_t)ci[j2] * xs], s2);
                s3 = SFMA(a[j3], x[(int64_t)ci[j3] * xs], s3);
            }
        }
        for (; j0 < b1; j0++)
            s0 = SFMA(a[j0], x[(int64_t)ci[j0] * xs], s0);
        for (; j1 < b2; j1++)
            s1 = SFMA(a[j1], x[(int64_t)ci[j1] * xs], s1);
        for (; j2 < b3; j2++)
            s2 = SFMA(a[j2], x[(int64_t)ci[j2] * xs], s2);
        for (; j3 < b4; j3++)
            s3 = SFMA(a[j3], x[(int64_t)ci[j3] * xs], s3);
        y[i * ys] = KS(finish)(alpha, s0, beta, &y[i * ys]);
        y[(i + 1) * ys] = KS(finish)(alpha, s1, beta, &y[(i + 1) * ys]);
        y[(i + 2) * ys] = KS(finish)(alpha, s2, beta, &y[(i + 2) * ys]);
        y[(i + 3) * ys] = KS(finish)(alpha, s3, beta, &y[(i + 3) * ys]);
    }
    for (; i < r1; i++)
        y[i * ys] = KS(finish)(alpha, KS(sr_scalar)(a, ci, ro[i], ro[i + 1], x, xs), beta, &y[i * ys]);
}

/* (x contiguous, the common case, gets its own copy without the stride
 * multiply in the inner loop.) */
static void KS(rb_sr_rows_n1)(const ompk_args *g, int64_t r0, int64_t r1, real alpha, real beta)
{
    if (g->x_rs == 1)
        KS(rb_sr_rows_n1_)(g, r0, r1, alpha, beta, 1);
    else
        KS(rb_sr_rows_n1_)(g, r0, r1, alpha, beta, g->x_rs);
}

/* RB+SR, 1 < N <= VL: one vector per row (m = N lanes, FULL when m ==
 * VL), four rows side by side up to the shortest of them so four fma
 * chains overlap (one row alone waits on the fma and the x load at every
 * non-zero); the rest of each row then alone.  Every row still gets
 * exactly row_sum_rb_sr (order_rb_sr.h) per column: acc from +0, fma over
 * its non-zeros in storage order, then the finish. */
OMPK_INLINE vec KS(small_ld)(const real *p, const int FULL, int m)
{
    return FULL ? V(load)(p) : V(load_n)(p, m);
}

OMPK_INLINE void KS(rb_sr_rows_small_)(const ompk_args *g, int64_t r0, int64_t r1, const int FULL,
                                      int m, real alpha, real beta)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const int64_t *ro = g->row_offsets;
    const real *x = g->x;
    real *y = g->y;
    const int64_t ldx = g->x_rs, yrs = g->y_rs, ycs = g->y_cs;
    const int mm = FULL ? VL : m;
#define OMPK_SMALL_STEP(acc, j) acc = V(fma)(V(set1)(a[j]), KS(small_ld)(x + (int64_t)ci[j] * ldx, FULL, m), acc)
    int64_t i = r0;
    for (; i + 4 <= r1; i += 4) {
        const int64_t b0 = ro[i], b1 = ro[i + 1], b2 = ro[i + 2], b3 = ro[i + 3], b4 = ro[i + 4];
        const int64_t l0 = b1 - b0, l1 = b2 - b1, l2 = b3 - b2, l3 = b4 - b3;
        int64_t lmin = l0 < l1 ? l0 : l1;
        lmin = lmin < l2 ? lmin : l2;
        lmin = lmin < l3 ? lmin : l3;
        vec s0 = V(zero)(), s1 = V(zero)(), s2 = V(zero)(), s3 = V(zero)();
        for (int64_t t = 0; t < lmin; t++) {
            OMPK_SMALL_STEP(s0, b0 + t);
            OMPK_SMALL_STEP(s1, b1 + t);
            OMPK_SMALL_STEP(s2, b2 + t);
            OMPK_SMALL_STEP(s3, b3 + t);
        }
        /* The tails: two chains at a time where two rows remain. */
        int64_t j0 = b0 + lmin, j1 = b1 + lmin, j2 = b2 + lmin, j3 = b3 + lmin;
        for (; j0 < b1 && j1 < b2; j0++, j1++) {
            OMPK_SMALL_STEP(s0, j0);
            OMPK_SMALL_STEP(s1, j1);
        }
        for (; j2 < b3 && j3 < b4; j2++, j3++) {
            OMPK_SMALL_STEP(s2, j2);
            OMPK_SMALL_STEP(s3, j3);
        }
        for (; j0 < b1; j0++)
            OMPK_SMALL_STEP(s0, j0);
        for (; j1 < b2; j1++)
            OMPK_SMALL_STEP(s1, j1);
        for (; j2 < b3; j2++)
            OMPK_SMALL_STEP(s2, j2);
        for (; j3 < b4; j3++)
            OMPK_SMALL_STEP(s3, j3);
        KS(emit)(s0, mm, alpha, beta, y + i * yrs, ycs, NULL);
        KS(emit)(s1, mm, alpha, beta, y + (i + 1) * yrs, ycs, NULL);
        KS(emit)(s2, mm, alpha, beta, y + (i + 2) * yrs, ycs, NULL);
        KS(emit)(s3, mm, alpha, beta, y + (i + 3) * yrs, ycs, NULL);
    }
    for (; i < r1; i++) {
        vec s0 = V(zero)();
        for (int64_t j = ro[i]; j < ro[i + 1]; j++)
            OMPK_SMALL_STEP(s0, j);
        KS(emit)(s0, mm, alpha, beta, y + i * yrs, ycs, NULL);
    }
#undef OMPK_SMALL_STEP
}

static void KS(rb_sr_rows_small)(const ompk_args *g, int64_t r0, int64_t r1, real alpha, real beta)
{
    if (g->n == VL)
        KS(rb_sr_rows_small_)(g, r0, r1, 1, VL, alpha, beta);
    else
        KS(rb_sr_rows_small_)(g, r0, r1, 0, (int)g->n, alpha, beta);
}

/* N = 1, RB+SR with rows in lanes: the sliced copy of A (omp_kernels.h),
 * one lane per row, so lane l runs exactly row_sum_rb_sr (order_rb_sr.h) of
 * its row: acc = fma(a[j], x[col[j]], acc) from +0 in storage order.  Up to
 * the slice's shortest row every lane is active; after that an inactive
 * lane's accumulator is left untouched (masked update, never an fma with a
 * padding zero).  Two slices go side by side so two fma chains overlap.
 * Where rows were sorted by length (sell_rows), each lane's sum goes to its
 * own row: the same finish, one element at a time, or one scatter for a
 * slice where the instruction set has one (AVX-512). */
#if defined(VF_HAS_GATHER)
OMPK_INLINE void KS(sell_emit)(const ompk_args *g, int64_t s, vec acc, real alpha, real beta,
                               real *y, int64_t ys)
{
    if (!g->sell_rows && !g->sell_rows32) {
        const int64_t r0 = s * VL;
        KS(emit)(acc, g->rows - r0 < VL ? (int)(g->rows - r0) : VL, alpha, beta, y + r0 * ys, ys,
                 NULL);
        return;
    }
#if defined(VF_HAS_SCATTER)
    if (g->sell_rows32 && ys == 1) {
        /* One scatter in place of VL scalar stores to lines all over the
         * window's y: 4-6% off the product on R-MAT s21 and s22 (Xeon
         * VM, bench/results/cpu-2026-11-26-spmv-thp); the finish is the
         * same operations lane by lane. */
        const V(idx) rows = V(idx_load)(g->sell_rows32 + s * VL);
        const vec r = beta == 0 ? V(mul)(V(set1)(alpha), acc)
                                : V(fma)(V(set1)(alpha), acc,
                                         V(mul)(V(set1)(beta), V(load_rows)(y, rows)));
        V(store_rows)(y, rows, r);
        return;
    }
#endif
    real t[VL];
    V(store)(t, beta == 0 ? V(mul)(V(set1)(alpha), acc) : acc);
    if (g->sell_rows32) {
        const int32_t *rows = g->sell_rows32 + s * VL;
        for (int l = 0; l < VL; l++)
            if (rows[l] >= 0) {
                real *yl = &y[(int64_t)rows[l] * ys];
                *yl = beta == 0 ? t[l] : KS(finish)(alpha, t[l], beta, yl);
            }
        return;
    }
    const int64_t *rows = g->sell_rows + s * VL;
    if (beta == 0) { /* finish's alpha * acc, done above for all lanes */
        for (int l = 0; l < VL; l++)
            if (rows[l] >= 0)
                y[rows[l] * ys] = t[l];
        return;
    }
    for (int l = 0; l < VL; l++)
        if (rows[l] >= 0)
            y[rows[l] * ys] = KS(finish)(alpha, t[l], beta, &y[rows[l] * ys]);
}

OMPK_INLINE vec KS(sell_step)(const real *ap, const int32_t *cp, const real *x, vec acc)
{
    return V(fma)(V(load)(ap), V(gather)(x, V(idx_load)(cp)), acc);
}

OMPK_INLINE vec KS(sell_step_m)(const real *ap, const int32_t *cp, const real *x, vec acc,
                                V(idx) len, int64_t t)
{
    return V(fma_m)(V(load)(ap), V(gather)(x, V(idx_load)(cp)), acc, V(active)(len, t));
}

static __attribute__((noinline)) void KS(sell_slices_n1)(const ompk_args *g, int64_t s0, int64_t s1, real alpha, real beta)
{
    const real *va = g->sell_vals;
    const int32_t *vc = g->sell_cols, *lens = g->sell_len, *mins = g->sell_min;
    const int64_t *sp = g->sell_ptr;
    const real *x = g->x;
    real *y = g->y;
    const int64_t ys = g->y_rs;
    int64_t s = s0;
    for (; s + 2 <= s1; s += 2) {
        const int64_t b0 = sp[s], b1 = sp[s + 1];
        const int64_t w0 = (b1 - b0) / VL, w1 = (sp[s + 2] - b1) / VL;
        const int64_t m0 = mins[s], m1 = mins[s + 1];
        const int64_t mm = m0 < m1 ? m0 : m1;
        const real *a0 = va + b0, *a1 = va + b1;
        const int32_t *c0 = vc + b0, *c1 = vc + b1;
        vec acc0 = V(zero)(), acc1 = V(zero)();
        for (int64_t t = 0; t < mm; t++) {
            acc0 = KS(sell_step)(a0 + t * VL, c0 + t * VL, x, acc0);
            acc1 = KS(sell_step)(a1 + t * VL, c1 + t * VL, x, acc1);
        }
        for (int64_t t = mm; t < m0; t++)
            acc0 = KS(sell_step)(a0 + t * VL, c0 + t * VL, x, acc0);
        for (int64_t t = mm; t < m1; t++)
            acc1 = KS(sell_step)(a1 + t * VL, c1 + t * VL, x, acc1);
        if (w0 > m0) {
            const V(idx) len = V(idx_load)(lens + s * VL);
            for (int64_t t = m0; t < w0; t++)
                acc0 = KS(sell_step_m)(a0 + t * VL, c0 + t * VL, x, acc0, len, t);
        }
        if (w1 > m1) {
            const V(idx) len = V(idx_load)(lens + (s + 1) * VL);
            for (int64_t t = m1; t < w1; t++)
                acc1 = KS(sell_step_m)(a1 + t * VL, c1 + t * VL, x, acc1, len, t);
        }
        KS(sell_emit)(g, s, acc0, alpha, beta, y, ys);
        KS(sell_emit)(g, s + 1, acc1, alpha, beta, y, ys);
    }
    for (; s < s1; s++) {
        const int64_t b0 = sp[s], w0 = (sp[s + 1] - b0) / VL, m0 = mins[s];
        const real *a0 = va + b0;
        const int32_t *c0 = vc + b0;
        vec acc0 = V(zero)();
        for (int64_t t = 0; t < m0; t++)
            acc0 = KS(sell_step)(a0 + t * VL, c0 + t * VL, x, acc0);
        if (w0 > m0) {
            const V(idx) len = V(idx_load)(lens + s * VL);
            for (int64_t t = m0; t < w0; t++)
                acc0 = KS(sell_step_m)(a0 + t * VL, c0 + t * VL, x, acc0, len, t);
        }
        KS(sell_emit)(g, s, acc0, alpha, beta, y, ys);
    }
}
/* The empty rows of the sorted copy, rows [r0, r1) (r0 a multiple
 * of 64): each gets the finish of an empty sum, acc = +0 (order_rb_sr.h),
 * found by the bitmap, so the slices spend no lane on them.  Contiguous y
 * takes VL rows per masked store (6x faster than a store per row on Zen
 * 4; R-MAT s21 has 1.4M empty rows); the finish is the same operations
 * lane by lane. */
static void KS(sell_empty_rows)(const ompk_args *g, int64_t r0, int64_t r1, real alpha, real beta)
{
    const uint64_t *bits = g->sell_empty;
    real *y = g->y;
    const int64_t ys = g->y_rs;
    if (ys != 1) {
        for (int64_t w = r0 / 64; w * 64 < r1; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1) {
                real *yi = &y[(w * 64 + __builtin_ctzll(b)) * ys];
                *yi = KS(finish)(alpha, (real)0, beta, yi);
            }
        return;
    }
    const vec va = V(set1)(alpha), vb = V(set1)(beta), empty_sum = V(set1)(alpha * (real)0);
    for (int64_t w = r0 / 64; w * 64 < r1; w++) {
        const uint64_t b = bits[w];
        if (!b)
            continue;
        for (int k = 0; k < 64; k += VL) {
            const unsigned m = (unsigned)(b >> k) & ((1u << VL) - 1);
            real *p = y + w * 64 + k;
            if (m && beta == 0)
                V(store_bits)(p, empty_sum, m);
            else if (m)
                V(store_bits)(p, V(fma)(va, V(zero)(), V(mul)(vb, V(load_bits)(p, m))), m);
        }
    }
}
#endif

/* ------------------------------------------------------------- RB + PR */

/* Columns [c0, c1) of row segment [b, e), order_rb_pr.h: lane t mod w gets
 * the row's t-th non-zero; then the halving tree.  Out of line, as
 * eb_pr_segment: inlined, their w partial sums made the driver keep the SR
 * walks' pointers on the stack, reloaded every non-zero at f64. */
static __attribute__((noinline)) void KS(rb_pr_segment)(const ompk_args *g, int64_t b, int64_t e,
                                                        int64_t c0, int64_t c1, real alpha,
                                                        real beta, real *yrow)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const real *x = g->x;
    const int64_t ldx = g->x_rs, ys = g->y_cs;
    const int w = g->lanes;
    if (w < 2 || w > LOOM_LANES_MAX)
        __builtin_unreachable(); /* loom_strategy_check */
    for (int64_t c = c0; c < c1; c += VL) {
        const int m = c1 - c < VL ? (int)(c1 - c) : VL;
        vec part[LOOM_LANES_MAX];
        for (int l = 0; l < w; l++)
            part[l] = V(zero)();
        if (m == VL) {
            for (int64_t j = b; j < e; j++) {
                const int l = (int)((j - b) & (w - 1));
                part[l] = V(fma)(V(set1)(a[j]), V(load)(x + (int64_t)ci[j] * ldx + c), part[l]);
            }
        } else {
            for (int64_t j = b; j < e; j++) {
                const int l = (int)((j - b) & (w - 1));
                part[l] = V(fma)(V(set1)(a[j]), V(load_n)(x + (int64_t)ci[j] * ldx + c, m), part[l]);
            }
        }
        for (int s = w / 2; s >= 1; s /= 2)
            for (int l = 0; l < s; l++)
                part[l] = V(add)(part[l], part[l + s]);
        KS(emit)(part[0], m, alpha, beta, yrow + c * ys, ys, NULL);
    }
}

/* N = 1 RB+PR with the lane width a constant, so the w lanes become one
 * (or a few) vector registers: `omp simd` turns the lane loop into a
 * gather of x and a vector fma. */
OMPK_INLINE real KS(rb_pr_scalar_w)(const real *a, const int32_t *ci, int64_t b, int64_t e,
                                    const real *x, int64_t xs, const int w)
{
    real part[LOOM_LANES_MAX];
    if (w < 2 || w > LOOM_LANES_MAX)
        __builtin_unreachable(); /* loom_strategy_check */
    for (int l = 0; l < w; l++)
        part[l] = 0;
    int64_t j = b;
    for (; j + w <= e; j += w) {
#pragma omp simd
        for (int l = 0; l < w; l++)
            part[l] = SFMA(a[j + l], x[(int64_t)ci[j + l] * xs], part[l]);
    }
    for (int l = 0; j + l < e; l++)
        part[l] = SFMA(a[j + l], x[(int64_t)ci[j + l] * xs], part[l]);
    for (int s = w / 2; s >= 1; s /= 2) {
#pragma omp simd
        for (int l = 0; l < s; l++)
            part[l] = part[l] + part[l + s];
    }
    return part[0];
}

static void KS(rb_pr_rows_n1)(const ompk_args *g, int64_t r0, int64_t r1, real alpha, real beta)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const int64_t *ro = g->row_offsets;
    const real *x = g->x;
    real *y = g->y;
    const int64_t xs = g->x_rs, ys = g->y_rs;
#define OMPK_PR_ROWS(W)                                                                          \
    for (int64_t i = r0; i < r1; i++)                                                            \
        y[i * ys] = KS(finish)(alpha, KS(rb_pr_scalar_w)(a, ci, ro[i], ro[i + 1], x, xs, W), beta, \
                               &y[i * ys]);
    switch (g->lanes) {
    case 2: OMPK_PR_ROWS(2) break;
    case 4: OMPK_PR_ROWS(4) break;
    case 8: OMPK_PR_ROWS(8) break;
    case 16: OMPK_PR_ROWS(16) break;
    case 32: OMPK_PR_ROWS(32) break;
    case 64: OMPK_PR_ROWS(64) break;
    case 128: OMPK_PR_ROWS(128) break;
    default: OMPK_PR_ROWS(256) break; /* loom_strategy_check: no other width */
    }
#undef OMPK_PR_ROWS
}

/* ------------------------------------------------------------- EB + PR */

/* The segmented network of order_eb_pr.h restricted to one row's L lanes:
 * with s = 1, 2, 4, .., lane k takes lane k+s while k+s is inside the
 * segment.  Only lanes at multiples of 2s feed lane 0 later, so only those
 * are computed; the sum lands in v[0]. */
#define OMPK_SEGMENTED_SUM(v, L, ADD)                                                           \
    do {                                                                                         \
        for (int s_ = 1; s_ < (L); s_ *= 2)                                                      \
            for (int k_ = 0; k_ + s_ < (L); k_ += 2 * s_)                                        \
                (v)[k_] = ADD((v)[k_], (v)[k_ + s_]);                                            \
    } while (0)
#define OMPK_SCALAR_ADD(p, q) ((p) + (q))

/* Columns [c0, c1) of the piece [b, e) of chunk cb.., EB+PR order: tiles of
 * w non-zeros aligned to the chunk start, products (one rounding each),
 * segmented sum per tile, tile sums added to the piece from +0. */
static __attribute__((noinline)) void KS(eb_pr_segment)(const ompk_args *g, int64_t cb,
                                                        int64_t b, int64_t e, int64_t c0,
                                                        int64_t c1, real alpha, real beta,
                                                        real *yrow, real *raw)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const real *x = g->x;
    const int64_t ldx = g->x_rs, ys = g->y_cs;
    const int w = g->lanes;
    const int64_t tile0 = cb + ((b - cb) / w) * w;
    for (int64_t c = c0; c < c1; c += VL) {
        const int m = c1 - c < VL ? (int)(c1 - c) : VL;
        vec piece = V(zero)();
        for (int64_t tile = tile0; tile < e && b < e; tile += w) { /* (empty rows: +0) */
            const int64_t jb = b > tile ? b : tile, je = e < tile + w ? e : tile + w;
            const int L = (int)(je - jb);
            vec v[LOOM_EB_LANES_MAX];
            for (int k = 0; k < L; k++) {
                const int64_t j = jb + k;
                const real *xr = x + (int64_t)ci[j] * ldx + c;
                v[k] = V(mul)(V(set1)(a[j]), m == VL ? V(load)(xr) : V(load_n)(xr, m));
            }
            OMPK_SEGMENTED_SUM(v, L, V(add));
            piece = V(add)(piece, v[0]);
        }
        KS(emit)(piece, m, alpha, beta, yrow + c * ys, ys, raw ? raw + c : NULL);
    }
}

/* N = 1 EB+PR piece: scalar emulation of the lanes (the tiles are short
 * and the network data-dependent; vectors do not pay here). */
static real KS(eb_pr_scalar)(const ompk_args *g, int64_t cb, int64_t b, int64_t e)
{
    const real *a = g->values;
    const int32_t *ci = g->col_indices;
    const real *x = g->x;
    const int64_t xs = g->x_rs;
    const int w = g->lanes;
    real piece = 0;
    for (int64_t tile = cb + ((b - cb) / w) * w; tile < e && b < e; tile += w) {
        const int64_t jb = b > tile ? b : tile, je = e < tile + w ? e : tile + w;
        const int L = (int)(je - jb);
        real v[LOOM_EB_LANES_MAX];
#pragma omp simd
        for (int k = 0; k < L; k++)
            v[k] = a[jb + k] * x[(int64_t)ci[jb + k] * xs];
        OMPK_SEGMENTED_SUM(v, L, OMPK_SCALAR_ADD);
        piece = piece + v[0];
    }
    return piece;
}

/* ------------------------------------------------------------ drivers */

/* One row segment, all columns [c0, c1), any design; raw != NULL stores
 * the unfinished sums (EB carries). cb: start of the segment's chunk (EB). */
static void KS(segment)(const ompk_args *g, int64_t cb, int64_t b, int64_t e, int64_t c0,
                        int64_t c1, real alpha, real beta, real *yrow, real *raw)
{
    if (g->n == 1) {
        real acc;
        if (g->kloop == LOOM_K_SR)
            acc = KS(sr_scalar)(g->values, g->col_indices, b, e, g->x, g->x_rs);
        else if (g->mloop == LOOM_M_RB)
            acc = KS(rb_pr_scalar_w)(g->values, g->col_indices, b, e, g->x, g->x_rs, g->lanes);
        else
            acc = KS(eb_pr_scalar)(g, cb, b, e);
        if (raw)
            *raw = acc;
        else
            *yrow = KS(finish)(alpha, acc, beta, yrow);
        return;
    }
    if (g->kloop == LOOM_K_SR)
        KS(sr_segment)(g, b, e, c0, c1, alpha, beta, yrow, raw);
    else if (g->mloop == LOOM_M_RB)
        KS(rb_pr_segment)(g, b, e, c0, c1, alpha, beta, yrow);
    else
        KS(eb_pr_segment)(g, cb, b, e, c0, c1, alpha, beta, yrow, raw);
}

/* RB: rows [r0, r1), each row's columns all at once.  (Passes over a few
 * columns at a time, so that a pass's slice of X stays in the LLC, were
 * slower everywhere they were measured, 1.3-3.5x at N = 64-512 on a Zen 4
 * VM: each pass repeats every row's walk of A with fewer accumulators to
 * hide the fma latency behind, and writes Y in strided pieces.) */
static void KS(rb_rows)(const ompk_args *g, int64_t r0, int64_t r1, real alpha, real beta)
{
    real *y = g->y;
    if (g->n == 1) {
        if (g->kloop == LOOM_K_SR) {
            KS(rb_sr_rows_n1)(g, r0, r1, alpha, beta);
        } else {
            KS(rb_pr_rows_n1)(g, r0, r1, alpha, beta);
        }
        return;
    }
    if (g->kloop == LOOM_K_SR && g->interleave && g->n <= VL) {
        KS(rb_sr_rows_small)(g, r0, r1, alpha, beta);
        return;
    }
    const int64_t *ro = g->row_offsets;
    for (int64_t i = r0; i < r1; i++)
        KS(segment)(g, 0, ro[i], ro[i + 1], 0, g->n, alpha, beta, y + i * g->y_rs, NULL);
}

/* EB, chunk c: every row piece inside [c*C, c*C + C).  Rows that lie in
 * the chunk are finished here; the chunk's first row, when it began
 * earlier, and its last row, when it goes on, leave their pieces in the
 * carries for the fix-up.  Empty rows belong to the chunk whose range
 * their offset falls in (at a boundary, the earlier chunk); chunk 0 also
 * takes the empty rows before the first non-zero. */
static void KS(eb_chunk)(const ompk_args *g, int64_t c, real alpha, real beta)
{
    const int64_t *ro = g->row_offsets;
    const int64_t C = g->chunk, n = g->n;
    const int64_t cb = c * C, ce = cb + C < g->nnz ? cb + C : g->nnz;
    real *y = g->y;
    real *cf = (real *)g->carry_first + c * n, *cl = (real *)g->carry_last + c * n;
    for (int64_t r = c == 0 ? 0 : g->chunk_first_row[c]; r < g->rows; r++) {
        const int64_t rs = ro[r], re = ro[r + 1];
        if (rs > ce || (rs == ce && re > ce))
            break;
        const int64_t b = rs > cb ? rs : cb, e = re < ce ? re : ce;
        real *raw = rs < cb ? cf : re > ce ? cl : NULL;
        KS(segment)(g, cb, b, e, 0, n, alpha, beta, y + r * g->y_rs, raw);
    }
}

/* EB fix-up for the row whose first piece is chunk c's last: its pieces
 * added left to right in chunk order (order_eb.h), then finished. */
static void KS(eb_fixup)(const ompk_args *g, int64_t c, real alpha, real beta)
{
    const int64_t *ro = g->row_offsets;
    const int64_t C = g->chunk, n = g->n;
    const int64_t ce = (c + 1) * C;
    if (c + 1 >= g->chunks)
        return;
    const int64_t r = g->chunk_first_row[c + 1];
    if (!(ro[r] < ce && ro[r] >= c * C))
        return;
    real *res = (real *)g->carry_last + c * n;
    for (int64_t k = c + 1; k < g->chunks && k * C < ro[r + 1]; k++) {
        const real *piece = (const real *)g->carry_first + k * n;
#pragma omp simd
        for (int64_t col = 0; col < n; col++)
            res[col] = res[col] + piece[col];
    }
    real *yrow = (real *)g->y + r * g->y_rs;
    const int64_t ys = g->y_cs;
    if (ys == 1) {
#pragma omp simd
        for (int64_t col = 0; col < n; col++)
            yrow[col] = KS(finish)(alpha, res[col], beta, &yrow[col]);
    } else {
        for (int64_t col = 0; col < n; col++)
            yrow[col * ys] = KS(finish)(alpha, res[col], beta, &yrow[col * ys]);
    }
}

/* Thread tid of nth's share of an RB product (or of EB with no
 * non-zeros: every row is empty, its sum +0, as RB). */
static void KS(rb_share)(const ompk_args *g, int tid, int nth, real alpha, real beta)
{
    if (g->sell_h) {
#if defined(VF_HAS_GATHER)
        /* One call site each for the slices and the empty rows (a second
         * one made GCC stop inlining them, and the in-place copy's SpMV
         * of the band ran 15% slower). */
        const int64_t *wp = g->sell_win_part;
        for (int p = tid; p < g->parts; p += nth)
            for (int64_t w = wp ? wp[p] : 0; w < (wp ? wp[p + 1] : 1); w++) {
                /* a window of the sorted copy, or the part's whole share */
                const int64_t r0 = w * g->sell_window;
                const int64_t s0 = wp ? g->sell_win_slice[w] : g->sell_part[p];
                const int64_t s1 = wp ? g->sell_win_slice[w + 1] : g->sell_part[p + 1];
                const int64_t e0 = wp ? r0 : g->sell_empty ? g->sell_empty_part[p] : 0;
                const int64_t e1 = !wp                             ? (g->sell_empty ? g->sell_empty_part[p + 1] : 0)
                                   : r0 + g->sell_window < g->rows ? r0 + g->sell_window
                                                                   : g->rows;
                KS(sell_slices_n1)(g, s0, s1, alpha, beta);
                if (g->sell_empty)
                    KS(sell_empty_rows)(g, e0, e1, alpha, beta);
            }
#endif
    } else if (g->mloop == LOOM_M_RB) {
        for (int p = tid; p < g->parts; p += nth)
            KS(rb_rows)(g, g->row_part[p], g->row_part[p + 1], alpha, beta);
    } else {
        const int64_t r0 = g->rows * tid / nth, r1 = g->rows * (tid + 1) / nth;
        for (int64_t i = r0; i < r1; i++)
            KS(segment)(g, 0, 0, 0, 0, g->n, alpha, beta, (real *)g->y + i * g->y_rs, NULL);
    }
}

/* An RB product as a job for the persistent team (omp_team.h): a short
 * product no longer pays libgomp's fork and join. */
struct KS(rb_job) {
    const ompk_args *g;
    real alpha, beta;
};

static void KS(rb_job_run)(void *arg, int tid, int nth)
{
    const struct KS(rb_job) *j = arg;
    KS(rb_share)(j->g, tid, nth, j->alpha, j->beta);
}

void KX(ompk_spmm)(const ompk_args *g)
{
    const real alpha = (real)g->alpha, beta = (real)g->beta;
    const int eb = g->mloop == LOOM_M_EB && g->chunks > 0;
    if (g->threads == 1) {
        /* No parallel region at all: even a team of one costs libgomp a
         * futex wake per call, a microsecond and more, as much as the
         * product of a small matrix. */
        if (!eb) {
            KS(rb_share)(g, 0, 1, alpha, beta);
            return;
        }
        for (int64_t c = 0; c < g->chunks; c++)
            KS(eb_chunk)(g, c, alpha, beta);
        for (int64_t c = 0; c < g->chunks; c++)
            KS(eb_fixup)(g, c, alpha, beta);
        return;
    }
    if (!eb) {
        struct KS(rb_job) job = {g, alpha, beta};
        if (omp_team_run(g->threads, KS(rb_job_run), &job))
            return;
#pragma omp parallel num_threads(g->threads)
        KS(rb_share)(g, omp_get_thread_num(), omp_get_num_threads(), alpha, beta);
        return;
    }
#pragma omp parallel num_threads(g->threads)
    {
        /* Chunks in contiguous blocks per thread (each holds the same count
         * of non-zeros); the fix-up only after every chunk is done. */
#pragma omp for schedule(static)
        for (int64_t c = 0; c < g->chunks; c++)
            KS(eb_chunk)(g, c, alpha, beta);
#pragma omp for schedule(dynamic, 64)
        for (int64_t c = 0; c < g->chunks; c++)
            KS(eb_fixup)(g, c, alpha, beta);
    }
}

void KX(ompk_pack)(const void *src, int64_t rows, int64_t n, int64_t ld, void *dst, int threads)
{
    const real *s = src;
    real *d = dst;
    /* Blocks of 64 rows: each thread reads whole cache lines of every
     * column it touches and writes its own rows of dst (first touch). */
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t r0 = 0; r0 < rows; r0 += 64) {
        const int64_t r1 = r0 + 64 < rows ? r0 + 64 : rows;
        for (int64_t c = 0; c < n; c++)
            for (int64_t r = r0; r < r1; r++)
                d[r * n + c] = s[r + c * ld];
    }
}
