/*
 * simd_avx512.h - the kernels' vector operations on AVX-512F (16 floats or
 * 8 doubles per register).  Compiled only into kernels_avx512.c (built with
 * -mavx512f -mfma), called only after __builtin_cpu_supports("avx512f").
 * Same rounding as the scalar reference, lane by lane (see simd_avx2.h).
 */
#ifndef LOOM_OMP_SIMD_AVX512_H
#define LOOM_OMP_SIMD_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#define OMPK_ISA avx512

/* ---- float */
typedef __m512 vf;
#define VF_LANES 16
static inline vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline vf vf_set1(float a) { return _mm512_set1_ps(a); }
static inline vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vf_load_n(const float *p, int n)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
static inline void vf_store_n(float *p, vf v, int n)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v);
}
/* Rows in lanes (see simd_avx2.h): inactive lanes keep their bits. */
#define VF_HAS_GATHER 1
typedef __m512i vf_idx;
typedef __mmask16 vf_lmask;
static inline vf_idx vf_idx_load(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline vf vf_gather(const float *base, vf_idx i) { return _mm512_i32gather_ps(i, base, 4); }
static inline vf_lmask vf_active(vf_idx len, int64_t t)
{
    return _mm512_cmpgt_epi32_mask(len, _mm512_set1_epi32((int)t));
}
static inline vf vf_fma_m(vf a, vf b, vf c, vf_lmask m) { return _mm512_mask3_fmadd_ps(a, b, c, m); }
/* The sorted copy's sums to their rows (lane l: base[i[l]]), lanes with a
 * negative row left out (never read, never written).  A slice's rows are
 * distinct, so the order of a scatter's stores does not matter. */
#define VF_HAS_SCATTER 1
static inline vf vf_load_rows(const float *base, vf_idx i)
{
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), _mm512_cmpge_epi32_mask(i, _mm512_setzero_si512()), i, base, 4);
}
static inline void vf_store_rows(float *base, vf_idx i, vf v)
{
    _mm512_mask_i32scatter_ps(base, _mm512_cmpge_epi32_mask(i, _mm512_setzero_si512()), i, v, 4);
}
/* Lanes chosen by the low bits of a bitmap (bit k: lane k); the loads
 * leave the others +0 and never touch their memory, the stores leave it
 * unchanged. */
static inline vf vf_load_bits(const float *p, unsigned bits) { return _mm512_maskz_loadu_ps((__mmask16)bits, p); }
static inline void vf_store_bits(float *p, vf v, unsigned bits) { _mm512_mask_storeu_ps(p, (__mmask16)bits, v); }

/* The last, part-filled vector of a row of X where it has at most half
 * the lanes (sr_block's tail): 256 bits, in AVX2's forms, which every
 * AVX-512F CPU has.  A masked 512-bit load and fma cost a full vector's
 * with few lanes live: an f32 row of 20 or 24 columns (a vector and a
 * tail) ran 1.16-1.21x slower than the AVX2 kernels' whole-ymm walk
 * (bench/results/cpu-2026-11-29-spr-isa/).  Lanes round as in vf. */
#define VF_HALF 8
typedef __m256 vf_h;
static inline vf_h vf_h_of(vf a) { return _mm512_castps512_ps256(a); }
static inline vf_h vf_h_zero(void) { return _mm256_setzero_ps(); }
static inline vf_h vf_h_set1(float a) { return _mm256_set1_ps(a); }
static inline vf_h vf_h_fma(vf_h a, vf_h b, vf_h c) { return _mm256_fmadd_ps(a, b, c); }
static inline vf_h vf_h_mul(vf_h a, vf_h b) { return _mm256_mul_ps(a, b); }
static inline void vf_h_store(float *p, vf_h v) { _mm256_storeu_ps(p, v); }
static inline __m256i vf_h_mask(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline vf_h vf_h_load_n(const float *p, int n) { return _mm256_maskload_ps(p, vf_h_mask(n)); }
static inline void vf_h_store_n(float *p, vf_h v, int n) { _mm256_maskstore_ps(p, vf_h_mask(n), v); }

/* ---- double */
typedef __m512d vd;
#define VD_LANES 8
static inline vd vd_zero(void) { return _mm512_setzero_pd(); }
static inline vd vd_set1(double a) { return _mm512_set1_pd(a); }
static inline vd vd_load(const double *p) { return _mm512_loadu_pd(p); }
static inline void vd_store(double *p, vd v) { _mm512_storeu_pd(p, v); }
static inline vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
static inline vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
static inline vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
static inline vd vd_load_n(const double *p, int n)
{
    return _mm512_maskz_loadu_pd((__mmask8)((1u << n) - 1u), p);
}
static inline void vd_store_n(double *p, vd v, int n)
{
    _mm512_mask_storeu_pd(p, (__mmask8)((1u << n) - 1u), v);
}
typedef __m256i vd_idx;
typedef __mmask8 vd_lmask;
static inline vd_idx vd_idx_load(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vd vd_gather(const double *base, vd_idx i) { return _mm512_i32gather_pd(i, base, 8); }
static inline vd_lmask vd_active(vd_idx len, int64_t t)
{
    return _mm512_cmpgt_epi64_mask(_mm512_cvtepi32_epi64(len), _mm512_set1_epi64(t));
}
static inline vd vd_fma_m(vd a, vd b, vd c, vd_lmask m) { return _mm512_mask3_fmadd_pd(a, b, c, m); }
/* The sign bits of the 8 rows: a negative row's lane is left out. */
static inline __mmask8 vd_rows_mask(vd_idx i) { return (__mmask8)~_mm256_movemask_ps(_mm256_castsi256_ps(i)); }
static inline vd vd_load_rows(const double *base, vd_idx i)
{
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), vd_rows_mask(i), i, base, 8);
}
static inline void vd_store_rows(double *base, vd_idx i, vd v) { _mm512_mask_i32scatter_pd(base, vd_rows_mask(i), i, v, 8); }
/* The tail of at most 4 doubles in 256 bits (see vf_h). */
#define VD_HALF 4
typedef __m256d vd_h;
static inline vd_h vd_h_of(vd a) { return _mm512_castpd512_pd256(a); }
static inline vd_h vd_h_zero(void) { return _mm256_setzero_pd(); }
static inline vd_h vd_h_set1(double a) { return _mm256_set1_pd(a); }
static inline vd_h vd_h_fma(vd_h a, vd_h b, vd_h c) { return _mm256_fmadd_pd(a, b, c); }
static inline vd_h vd_h_mul(vd_h a, vd_h b) { return _mm256_mul_pd(a, b); }
static inline void vd_h_store(double *p, vd_h v) { _mm256_storeu_pd(p, v); }
static inline __m256i vd_h_mask(int n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}
static inline vd_h vd_h_load_n(const double *p, int n) { return _mm256_maskload_pd(p, vd_h_mask(n)); }
static inline void vd_h_store_n(double *p, vd_h v, int n) { _mm256_maskstore_pd(p, vd_h_mask(n), v); }
static inline vd vd_load_bits(const double *p, unsigned bits) { return _mm512_maskz_loadu_pd((__mmask8)bits, p); }
static inline void vd_store_bits(double *p, vd v, unsigned bits) { _mm512_mask_storeu_pd(p, (__mmask8)bits, v); }

#endif
