/*
 * dual_lines_impl.h - the line walk of the OpenMP dual-side GEMM for one
 * precision (the order and why it is the reference's: dual_lines.c).
 *
 * Per panel of 256 bytes across (64 floats or 32 doubles), all threads
 * first expand the dense side's panel (K x width, absent elements +0),
 * then share out the lines of C: a line's accumulators live in eight
 * vector registers while its list runs, one broadcast and eight fma per
 * entry (the eight chains are independent, so the fma latency is hidden),
 * then the finish writes the line's piece of C.
 *
 * Include with LOOM_REAL_F32 or LOOM_REAL_F64 defined, after omp_dual.h.
 */
#include "real_type.h"

enum { LINES_PW = 256 / (int)sizeof(real) }; /* panel width in elements */

/* Rows k of tile row kt of the panel: P[k*PW + x] = the dense side at
 * (k, c0 + x), +0 where absent. */
static void SUFFIX(lines_expand)(const loom_dual_side *o, int64_t c0, int64_t kt, real *P)
{
    const loom_bitmap_view *v = o->v;
    const real *vals = v->values;
    const int64_t k0 = kt * LOOM__TILE;
    const int kn = (int)(o->k - k0 < LOOM__TILE ? o->k - k0 : LOOM__TILE);
    memset(P + k0 * LINES_PW, 0, (size_t)kn * LINES_PW * sizeof(real));
    for (int64_t ct = c0 / LOOM__TILE; ct < (c0 + LINES_PW) / LOOM__TILE && ct < o->cross_tiles;
         ct++) {
        const int64_t t = ct * o->sc + kt * o->sk;
        if (!(v->tile_bits[t / 64] >> (t % 64) & 1u))
            continue;
        int64_t pos = v->tile_offsets[t];
        real *dst = P + k0 * LINES_PW + (ct * LOOM__TILE - c0);
        for (int kk = 0; kk < kn; kk++, dst += LINES_PW)
            for (uint32_t m = v->masks[t * LOOM__TILE + kk]; m; m &= m - 1)
                dst[__builtin_ctz(m)] = vals[pos++];
    }
}

/* The portable line: acc(x) = fma(s, P(k, x), acc(x)) per entry. */
static void SUFFIX(lines_line_generic)(const int32_t *kidx, const real *val, int64_t n,
                                       const real *P, real *acc)
{
    for (int x = 0; x < LINES_PW; x++)
        acc[x] = 0;
    for (int64_t e = 0; e < n; e++) {
        const real s = val[e], *p = P + (size_t)kidx[e] * LINES_PW;
        for (int x = 0; x < LINES_PW; x++)
            acc[x] = FMA(s, p[x], acc[x]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LINES_HAVE_AVX2 1
#if defined(LOOM_REAL_F32)
#define LINES_VEC __m256
#define LINES_ZERO _mm256_setzero_ps
#define LINES_SET1 _mm256_set1_ps
#define LINES_LOAD _mm256_load_ps
#define LINES_STORE _mm256_store_ps
#define LINES_FMA _mm256_fmadd_ps
#else
#define LINES_VEC __m256d
#define LINES_ZERO _mm256_setzero_pd
#define LINES_SET1 _mm256_set1_pd
#define LINES_LOAD _mm256_load_pd
#define LINES_STORE _mm256_store_pd
#define LINES_FMA _mm256_fmadd_pd
#endif
enum { LINES_VL = 32 / (int)sizeof(real) }; /* elements per 256-bit vector */

/* The same line with AVX2: eight registers of accumulators (P and acc are
 * 64-byte aligned). */
__attribute__((target("avx2,fma"))) static void
SUFFIX(lines_line_avx2)(const int32_t *kidx, const real *val, int64_t n, const real *P, real *acc)
{
    LINES_VEC a0 = LINES_ZERO(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int64_t e = 0; e < n; e++) {
        const real *p = P + (size_t)kidx[e] * LINES_PW;
        const LINES_VEC s = LINES_SET1(val[e]);
        a0 = LINES_FMA(s, LINES_LOAD(p + 0 * LINES_VL), a0);
        a1 = LINES_FMA(s, LINES_LOAD(p + 1 * LINES_VL), a1);
        a2 = LINES_FMA(s, LINES_LOAD(p + 2 * LINES_VL), a2);
        a3 = LINES_FMA(s, LINES_LOAD(p + 3 * LINES_VL), a3);
        a4 = LINES_FMA(s, LINES_LOAD(p + 4 * LINES_VL), a4);
        a5 = LINES_FMA(s, LINES_LOAD(p + 5 * LINES_VL), a5);
        a6 = LINES_FMA(s, LINES_LOAD(p + 6 * LINES_VL), a6);
        a7 = LINES_FMA(s, LINES_LOAD(p + 7 * LINES_VL), a7);
    }
    LINES_STORE(acc + 0 * LINES_VL, a0);
    LINES_STORE(acc + 1 * LINES_VL, a1);
    LINES_STORE(acc + 2 * LINES_VL, a2);
    LINES_STORE(acc + 3 * LINES_VL, a3);
    LINES_STORE(acc + 4 * LINES_VL, a4);
    LINES_STORE(acc + 5 * LINES_VL, a5);
    LINES_STORE(acc + 6 * LINES_VL, a6);
    LINES_STORE(acc + 7 * LINES_VL, a7);
}
#undef LINES_VEC
#undef LINES_ZERO
#undef LINES_SET1
#undef LINES_LOAD
#undef LINES_STORE
#undef LINES_FMA
#endif

loom_status SUFFIX(loom__omp_dual_lines_gemm)(const loom_dual_lines *l, const loom_bitmap *A,
                                              const loom_bitmap *B, real alpha, real beta,
                                              loom_dense *C, int threads, bool vector)
{
    const loom_dual_side o =
        l->rows ? loom__dual_side_of(&B->v, false) : loom__dual_side_of(&A->v, true);
    const size_t panel = (size_t)(o.k ? o.k : 1) * LINES_PW * sizeof(real); /* 256-byte rows */
    real *P = aligned_alloc(64, panel);
    if (!P)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual-side GEMM (openmp): out of memory");
    if (threads <= 0)
        threads = omp_get_max_threads();
    /* Along a line of C the step is 1 where the line runs along C's layout. */
    const int64_t step = l->rows == (C->layout == LOOM_ROW_MAJOR) ? 1 : C->ld;
    const real *val = l->val;
    real *c = C->data;
    (void)vector;

#pragma omp parallel num_threads(threads)
    {
        real acc[LINES_PW] __attribute__((aligned(64)));
        for (int64_t c0 = 0; c0 < o.cross; c0 += LINES_PW) {
#pragma omp for schedule(static)
            for (int64_t kt = 0; kt < o.k_tiles; kt++)
                SUFFIX(lines_expand)(&o, c0, kt, P);
            const int width = (int)(o.cross - c0 < LINES_PW ? o.cross - c0 : LINES_PW);
#pragma omp for schedule(dynamic, 64)
            for (int64_t line = 0; line < l->lines; line++) {
                const int64_t s = l->start[line], n = l->start[line + 1] - s;
#if defined(LINES_HAVE_AVX2)
                if (vector)
                    SUFFIX(lines_line_avx2)(l->kidx + s, val + s, n, P, acc);
                else
#endif
                    SUFFIX(lines_line_generic)(l->kidx + s, val + s, n, P, acc);
                real *y = c + (l->rows ? loom__dense_offset(C, line, c0)
                                       : loom__dense_offset(C, c0, line));
                for (int x = 0; x < width; x++, y += step)
                    *y = (beta == 0) ? alpha * acc[x] : FMA(alpha, acc[x], beta * *y);
            }
            /* the implicit barrier: every line is done before P changes */
        }
    }
    free(P);
    return LOOM_SUCCESS;
}
#undef LINES_HAVE_AVX2
