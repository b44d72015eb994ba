/*
 * simd_avx2.h - the vector operations the kernels use, on AVX2 + FMA
 * (8 floats or 4 doubles per register).  Compiled only into
 * kernels_avx2.c, which is built with -mavx2 -mfma and called only after
 * __builtin_cpu_supports said yes.
 *
 * Every operation rounds exactly like its scalar counterpart in the
 * reference: vf_fma is fmaf lane by lane, vf_add is +, vf_mul is *.
 * Lanes past n in the _n forms are never stored, so their contents do
 * not matter.
 */
#ifndef LOOM_OMP_SIMD_AVX2_H
#define LOOM_OMP_SIMD_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define OMPK_ISA avx2

/* ---- float */
typedef __m256 vf;
#define VF_LANES 8
#define VF_HALF 0 /* no half-width tail (simd_avx512.h) */
static inline vf vf_zero(void) { return _mm256_setzero_ps(); }
static inline vf vf_set1(float a) { return _mm256_set1_ps(a); }
static inline vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline __m256i vf_mask(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline vf vf_load_n(const float *p, int n) { return _mm256_maskload_ps(p, vf_mask(n)); }
static inline void vf_store_n(float *p, vf v, int n) { _mm256_maskstore_ps(p, vf_mask(n), v); }
/* Rows in lanes (the sliced N = 1 kernel): one int32 per lane, a gather of
 * x by those indices, and an fma that updates only the active lanes (the
 * others keep their accumulator bits exactly: a blend, not fma(0, x, acc),
 * which would turn -0 into +0 or take in x's Inf or NaN). */
#define VF_HAS_GATHER 1
typedef __m256i vf_idx;
typedef __m256i vf_lmask;
static inline vf_idx vf_idx_load(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vf vf_gather(const float *base, vf_idx i)
{
#ifdef OMPK_HW_GATHER
    return _mm256_i32gather_ps(base, i, 4);
#else
    /* Eight scalar loads: faster than vgatherdps on AMD Zen (measured on
     * Zen 3: 17 cycles per vgatherdps, 10 for the loads and inserts). */
    const __m128i lo = _mm256_castsi256_si128(i), hi = _mm256_extracti128_si256(i, 1);
    return _mm256_setr_ps(base[_mm_cvtsi128_si32(lo)], base[_mm_extract_epi32(lo, 1)],
                          base[_mm_extract_epi32(lo, 2)], base[_mm_extract_epi32(lo, 3)],
                          base[_mm_cvtsi128_si32(hi)], base[_mm_extract_epi32(hi, 1)],
                          base[_mm_extract_epi32(hi, 2)], base[_mm_extract_epi32(hi, 3)]);
#endif
}
static inline vf_lmask vf_active(vf_idx len, int64_t t)
{
    return _mm256_cmpgt_epi32(len, _mm256_set1_epi32((int)t));
}
static inline vf vf_fma_m(vf a, vf b, vf c, vf_lmask m)
{
    return _mm256_blendv_ps(c, _mm256_fmadd_ps(a, b, c), _mm256_castsi256_ps(m));
}
/* Lanes chosen by the low bits of a bitmap (bit k: lane k); the loads
 * leave the others +0 and never touch their memory, the stores leave it
 * unchanged. */
static inline __m256i vf_bits_mask(unsigned bits)
{
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), sel), sel);
}
static inline vf vf_load_bits(const float *p, unsigned bits) { return _mm256_maskload_ps(p, vf_bits_mask(bits)); }
static inline void vf_store_bits(float *p, vf v, unsigned bits) { _mm256_maskstore_ps(p, vf_bits_mask(bits), v); }

/* ---- double */
typedef __m256d vd;
#define VD_LANES 4
#define VD_HALF 0
static inline vd vd_zero(void) { return _mm256_setzero_pd(); }
static inline vd vd_set1(double a) { return _mm256_set1_pd(a); }
static inline vd vd_load(const double *p) { return _mm256_loadu_pd(p); }
static inline void vd_store(double *p, vd v) { _mm256_storeu_pd(p, v); }
static inline vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
static inline vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
static inline vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
static inline __m256i vd_mask(int n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}
static inline vd vd_load_n(const double *p, int n) { return _mm256_maskload_pd(p, vd_mask(n)); }
static inline void vd_store_n(double *p, vd v, int n) { _mm256_maskstore_pd(p, vd_mask(n), v); }
typedef __m128i vd_idx;
typedef __m256i vd_lmask;
static inline vd_idx vd_idx_load(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vd vd_gather(const double *base, vd_idx i) { return _mm256_i32gather_pd(base, i, 8); }
static inline vd_lmask vd_active(vd_idx len, int64_t t)
{
    return _mm256_cvtepi32_epi64(_mm_cmpgt_epi32(len, _mm_set1_epi32((int)t)));
}
static inline vd vd_fma_m(vd a, vd b, vd c, vd_lmask m)
{
    return _mm256_blendv_pd(c, _mm256_fmadd_pd(a, b, c), _mm256_castsi256_pd(m));
}
static inline __m256i vd_bits_mask(unsigned bits)
{
    const __m256i sel = _mm256_setr_epi64x(1, 2, 4, 8);
    return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x((long long)bits), sel), sel);
}
static inline vd vd_load_bits(const double *p, unsigned bits) { return _mm256_maskload_pd(p, vd_bits_mask(bits)); }
static inline void vd_store_bits(double *p, vd v, unsigned bits) { _mm256_maskstore_pd(p, vd_bits_mask(bits), v); }

#endif
