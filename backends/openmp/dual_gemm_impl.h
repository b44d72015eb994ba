/*
 * dual_gemm_impl.h - the OpenMP dual-side GEMM for one precision.  Must
 * match loom__ref_dual_gemm (reference/dual_gemm.h) bit for bit: every C
 * element is accumulated over k in increasing order, only where both
 * operands are non-zero, with one fma per product, from +0, and finished
 * with the same combine.
 *
 * Parallel over 32x32 warp tiles of C (each thread owns whole tiles, so
 * the order over k inside a tile is the reference's).  Per k the update is
 * either the reference's scalar scatter (few non-zeros in B's row segment)
 * or a masked vector update: the row segment of B expanded to 32 lanes, one
 * fma per lane, and a blend that keeps the old accumulator where B(k, j) is
 * zero, so a lane without a product is untouched as in the reference.
 *
 * Include with LOOM_REAL_F32 or LOOM_REAL_F64 defined.
 */
#include "real_type.h"

enum { T = LOOM__TILE };

static inline __attribute__((always_inline)) void SUFFIX(scatter_update)(uint32_t ma, const real *a, uint32_t mb, const real *b,
                                          real (*acc)[T])
{
    int cols[T], nb = 0;
    for (uint32_t m = mb; m; m &= m - 1)
        cols[nb++] = __builtin_ctz(m);
    for (uint32_t m = ma; m; m &= m - 1) {
        real av = *a++;
        real *row = acc[__builtin_ctz(m)];
        for (int y = 0; y < nb; y++)
            row[cols[y]] = FMA(av, b[y], row[cols[y]]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DUAL_HAVE_AVX2 1
#if defined(LOOM_REAL_F32)
/* 8 floats per vector, 4 vectors per 32-lane row. */
__attribute__((target("avx2,fma,popcnt"))) static void
SUFFIX(masked_update)(uint32_t ma, const real *a, uint32_t mb, const real *b, real (*acc)[T])
{
    float bd[T] __attribute__((aligned(32))) = {0};
    int y = 0;
    for (uint32_t m = mb; m; m &= m - 1)
        bd[__builtin_ctz(m)] = b[y++];
    const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256 bv[4], keep[4];
    int used[4];
    for (int v = 0; v < 4; v++) {
        uint32_t g = mb >> (8 * v) & 0xffu;
        used[v] = g != 0;
        bv[v] = _mm256_load_ps(bd + 8 * v);
        keep[v] = _mm256_castsi256_ps(
            _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)g), lane), lane));
    }
    for (uint32_t m = ma; m; m &= m - 1) {
        __m256 av = _mm256_set1_ps(*a++);
        float *row = acc[__builtin_ctz(m)];
        for (int v = 0; v < 4; v++) {
            if (!used[v])
                continue;
            __m256 old = _mm256_loadu_ps(row + 8 * v);
            __m256 upd = _mm256_fmadd_ps(av, bv[v], old);
            _mm256_storeu_ps(row + 8 * v, _mm256_blendv_ps(old, upd, keep[v]));
        }
    }
}
#else
/* 4 doubles per vector, 8 vectors per 32-lane row. */
__attribute__((target("avx2,fma,popcnt"))) static void
SUFFIX(masked_update)(uint32_t ma, const real *a, uint32_t mb, const real *b, real (*acc)[T])
{
    double bd[T] __attribute__((aligned(32))) = {0};
    int y = 0;
    for (uint32_t m = mb; m; m &= m - 1)
        bd[__builtin_ctz(m)] = b[y++];
    const __m256i lane = _mm256_setr_epi64x(1, 2, 4, 8);
    __m256d bv[8], keep[8];
    int used[8];
    for (int v = 0; v < 8; v++) {
        uint32_t g = mb >> (4 * v) & 0xfu;
        used[v] = g != 0;
        bv[v] = _mm256_load_pd(bd + 4 * v);
        keep[v] = _mm256_castsi256_pd(
            _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(g), lane), lane));
    }
    for (uint32_t m = ma; m; m &= m - 1) {
        __m256d av = _mm256_set1_pd(*a++);
        double *row = acc[__builtin_ctz(m)];
        for (int v = 0; v < 8; v++) {
            if (!used[v])
                continue;
            __m256d old = _mm256_loadu_pd(row + 4 * v);
            __m256d upd = _mm256_fmadd_pd(av, bv[v], old);
            _mm256_storeu_pd(row + 4 * v, _mm256_blendv_pd(old, upd, keep[v]));
        }
    }
}
#endif
#endif

#if defined(DUAL_HAVE_AVX2) && defined(LOOM_REAL_F32)
/*
 * The AVX2 register-blocked form for one pair (warp tile of C, k-tile),
 * float: both operand tiles are first expanded into 32x32 scratch (only
 * the set positions are written; the others hold stale numbers that the
 * blends never let through), with B's 32 row masks turned into lane
 * masks.  Then two rows of C at a time live in 8 registers while kk runs
 * 0..31: for each set bit of A's column segment in those rows, one
 * broadcast, 4 fma and 4 blends.  Each element still sees its products in
 * increasing k, one fma each, skipped where B(k, j) is zero: the
 * reference's order.
 */
typedef struct dual_scratch_f32 {
    float a[T][T] __attribute__((aligned(32))); /* a[kk][row] */
    float b[T][T] __attribute__((aligned(32))); /* b[kk][col] */
    __m256 keep[T][4];                          /* lane masks of B's row kk */
    bool init;
} dual_scratch_f32;

__attribute__((target("avx2,fma,popcnt"))) static void
dual_pair_avx2_f32(const uint32_t *mas, const float *av, const uint32_t *mbs, const float *bv,
                   float (*acc)[T], dual_scratch_f32 *w)
{
    if (!w->init) {
        memset(w, 0, sizeof *w);
        w->init = true;
    }
    const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    uint32_t rows_used = 0;
    for (int kk = 0; kk < T; kk++) {
        uint32_t ma = mas[kk], mb = mbs[kk];
        if (!(ma && mb)) {
            /* no product at this k: mark it empty for the row loop */
            w->keep[kk][0] = _mm256_setzero_ps();
            w->keep[kk][1] = _mm256_setzero_ps();
            w->keep[kk][2] = _mm256_setzero_ps();
            w->keep[kk][3] = _mm256_setzero_ps();
        } else {
            for (uint32_t m = ma; m; m &= m - 1)
                w->a[kk][__builtin_ctz(m)] = *av++;
            for (uint32_t m = mb; m; m &= m - 1)
                w->b[kk][__builtin_ctz(m)] = *bv++;
            for (int v = 0; v < 4; v++) {
                __m256i g = _mm256_set1_epi32((int)(mb >> (8 * v) & 0xffu));
                w->keep[kk][v] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(g, lane), lane));
            }
            rows_used |= ma;
            continue;
        }
        av += __builtin_popcount(ma);
        bv += __builtin_popcount(mb);
    }
    uint32_t live[T];
    for (int kk = 0; kk < T; kk++)
        live[kk] = mbs[kk] ? mas[kk] : 0;
    for (int r0 = 0; r0 < T; r0 += 2) {
        if (!(rows_used >> r0 & 3u))
            continue;
        float *c0 = acc[r0], *c1 = acc[r0 + 1];
        __m256 x0 = _mm256_load_ps(c0), x1 = _mm256_load_ps(c0 + 8), x2 = _mm256_load_ps(c0 + 16),
               x3 = _mm256_load_ps(c0 + 24);
        __m256 y0 = _mm256_load_ps(c1), y1 = _mm256_load_ps(c1 + 8), y2 = _mm256_load_ps(c1 + 16),
               y3 = _mm256_load_ps(c1 + 24);
        for (int kk = 0; kk < T; kk++) {
            uint32_t two = live[kk] >> r0 & 3u;
            if (!two)
                continue;
            const __m256 b0 = _mm256_load_ps(w->b[kk]), b1 = _mm256_load_ps(w->b[kk] + 8),
                         b2 = _mm256_load_ps(w->b[kk] + 16), b3 = _mm256_load_ps(w->b[kk] + 24);
            const __m256 k0 = w->keep[kk][0], k1 = w->keep[kk][1], k2 = w->keep[kk][2],
                         k3 = w->keep[kk][3];
            if (two & 1u) {
                const __m256 a = _mm256_set1_ps(w->a[kk][r0]);
                x0 = _mm256_blendv_ps(x0, _mm256_fmadd_ps(a, b0, x0), k0);
                x1 = _mm256_blendv_ps(x1, _mm256_fmadd_ps(a, b1, x1), k1);
                x2 = _mm256_blendv_ps(x2, _mm256_fmadd_ps(a, b2, x2), k2);
                x3 = _mm256_blendv_ps(x3, _mm256_fmadd_ps(a, b3, x3), k3);
            }
            if (two & 2u) {
                const __m256 a = _mm256_set1_ps(w->a[kk][r0 + 1]);
                y0 = _mm256_blendv_ps(y0, _mm256_fmadd_ps(a, b0, y0), k0);
                y1 = _mm256_blendv_ps(y1, _mm256_fmadd_ps(a, b1, y1), k1);
                y2 = _mm256_blendv_ps(y2, _mm256_fmadd_ps(a, b2, y2), k2);
                y3 = _mm256_blendv_ps(y3, _mm256_fmadd_ps(a, b3, y3), k3);
            }
        }
        _mm256_store_ps(c0, x0);
        _mm256_store_ps(c0 + 8, x1);
        _mm256_store_ps(c0 + 16, x2);
        _mm256_store_ps(c0 + 24, x3);
        _mm256_store_ps(c1, y0);
        _mm256_store_ps(c1 + 8, y1);
        _mm256_store_ps(c1 + 16, y2);
        _mm256_store_ps(c1 + 24, y3);
    }
}
#define DUAL_HAVE_PAIR_KERNEL 1
#endif

static bool SUFFIX(omp_tile_present)(const loom_bitmap_view *v, int64_t t)
{
    return v->tile_bits[t / 64] >> (t % 64) & 1u;
}

/* One 32x32 warp tile of C: all k in increasing order, then the finish.
 * Inlined into a generic and an AVX2+FMA caller below (there fmaf is the
 * instruction, not a libm call). */
static inline __attribute__((always_inline)) void
SUFFIX(omp_tile)(const loom_bitmap_view *A, const loom_bitmap_view *B, int64_t ti, int64_t tj,
                 real alpha, real beta, loom_dense *C, bool vector, void *scratch)
{
    (void)scratch;
    const real *av = A->values, *bv = B->values;
    const int64_t tn = B->tile_cols, tk_count = A->tile_cols;
    real *c = C->data;
    real acc[T][T] __attribute__((aligned(64)));
    memset(acc, 0, sizeof acc); /* all bits zero: +0 */
    for (int64_t tk = 0; tk < tk_count; tk++) {
        const int64_t ta = ti * tk_count + tk, tb = tk * tn + tj;
        if (!SUFFIX(omp_tile_present)(A, ta) || !SUFFIX(omp_tile_present)(B, tb))
            continue;
        int64_t pa = A->tile_offsets[ta], pb = B->tile_offsets[tb];
        const uint32_t *mas = A->masks + ta * T, *mbs = B->masks + tb * T;
#if defined(DUAL_HAVE_PAIR_KERNEL)
        /* Register blocking pays once the A tile is about 1/6 full (measured:
         * +15% at 80% sparsity, -10% at 90%); both give the same bits. */
        if (vector && A->tile_offsets[ta + 1] - pa >= 160) {
            dual_pair_avx2_f32(mas, av + pa, mbs, bv + pb, acc, scratch);
            continue;
        }
#endif
        for (int kk = 0; kk < T; kk++) {
            const uint32_t ma = mas[kk], mb = mbs[kk];
            const int nb = __builtin_popcount(mb);
            if (ma && mb) {
#if defined(DUAL_HAVE_AVX2)
                if (vector && nb > 4)
                    SUFFIX(masked_update)(ma, av + pa, mb, bv + pb, acc);
                else
#endif
                    SUFFIX(scatter_update)(ma, av + pa, mb, bv + pb, acc);
            }
            pa += __builtin_popcount(ma);
            pb += nb;
        }
    }
    for (int r = 0; r < T && ti * T + r < A->rows; r++)
        for (int s = 0; s < T && tj * T + s < B->cols; s++) {
            real *y = c + loom__dense_offset(C, ti * T + r, tj * T + s);
            *y = (beta == 0) ? alpha * acc[r][s] : FMA(alpha, acc[r][s], beta * *y);
        }
}

static void SUFFIX(omp_tile_generic)(const loom_bitmap_view *A, const loom_bitmap_view *B,
                                     int64_t ti, int64_t tj, real alpha, real beta, loom_dense *C)
{
    SUFFIX(omp_tile)(A, B, ti, tj, alpha, beta, C, false, NULL);
}

#if defined(DUAL_HAVE_AVX2)
__attribute__((target("avx2,fma,popcnt"))) static void
SUFFIX(omp_tile_avx2)(const loom_bitmap_view *A, const loom_bitmap_view *B, int64_t ti,
                      int64_t tj, real alpha, real beta, loom_dense *C, void *scratch)
{
    SUFFIX(omp_tile)(A, B, ti, tj, alpha, beta, C, true, scratch);
}
#endif

/* Matches loom__ref_dual_gemm_<precision> bit for bit. */
void SUFFIX(loom__omp_dual_gemm)(const loom_bitmap *Abm, const loom_bitmap *Bbm, real alpha,
                                 real beta, loom_dense *C, int threads, bool vector)
{
    const loom_bitmap_view *A = &Abm->v, *B = &Bbm->v;
    const int64_t tm = A->tile_rows, tn = B->tile_cols;
    if (threads <= 0)
        threads = omp_get_max_threads();

#pragma omp parallel num_threads(threads)
    {
#if defined(DUAL_HAVE_PAIR_KERNEL)
        /* Per thread: the expanded operand tiles of the pair kernel. */
        dual_scratch_f32 *scratch = vector ? aligned_alloc(64, (sizeof(dual_scratch_f32) + 63) / 64 * 64) : NULL;
        if (scratch)
            scratch->init = false;
        const bool use_vector = scratch != NULL;
#else
        void *scratch = NULL;
        const bool use_vector = vector;
#endif
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < tm * tn; t++) {
#if defined(DUAL_HAVE_AVX2)
            if (use_vector) {
                SUFFIX(omp_tile_avx2)(A, B, t / tn, t % tn, alpha, beta, C, scratch);
                continue;
            }
#endif
            SUFFIX(omp_tile_generic)(A, B, t / tn, t % tn, alpha, beta, C);
        }
        free(scratch);
        (void)use_vector;
    }
    (void)vector;
}
#undef DUAL_HAVE_AVX2
#undef DUAL_HAVE_PAIR_KERNEL
