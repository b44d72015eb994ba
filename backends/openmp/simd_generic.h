/*
 * simd_generic.h - the kernels' vector operations for any x86-64 (or any
 * GCC target): GCC vector extensions of 16 bytes (SSE2 on x86-64).  No FMA
 * hardware is assumed: vf_fma calls fmaf lane by lane under `omp simd`,
 * which is correctly rounded (libm), only slower.
 */
#ifndef LOOM_OMP_SIMD_GENERIC_H
#define LOOM_OMP_SIMD_GENERIC_H

#include <math.h>
#include <string.h>

#define OMPK_ISA generic

/* ---- float */
typedef float vf __attribute__((vector_size(16)));
#define VF_LANES 4
#define VF_HALF 0 /* no half-width tail (simd_avx512.h) */
static inline vf vf_zero(void) { return (vf){0, 0, 0, 0}; }
static inline vf vf_set1(float a) { return (vf){a, a, a, a}; }
static inline vf vf_load(const float *p) { vf v; memcpy(&v, p, sizeof v); return v; }
static inline void vf_store(float *p, vf v) { memcpy(p, &v, sizeof v); }
static inline vf vf_fma(vf a, vf b, vf c)
{
    vf r;
    for (int k = 0; k < VF_LANES; k++)
        r[k] = fmaf(a[k], b[k], c[k]);
    return r;
}
static inline vf vf_add(vf a, vf b) { return a + b; }
static inline vf vf_mul(vf a, vf b) { return a * b; }
static inline vf vf_load_n(const float *p, int n)
{
    vf v = vf_zero();
    for (int k = 0; k < n; k++)
        v[k] = p[k];
    return v;
}
static inline void vf_store_n(float *p, vf v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = v[k];
}

/* ---- double */
typedef double vd __attribute__((vector_size(16)));
#define VD_LANES 2
#define VD_HALF 0
static inline vd vd_zero(void) { return (vd){0, 0}; }
static inline vd vd_set1(double a) { return (vd){a, a}; }
static inline vd vd_load(const double *p) { vd v; memcpy(&v, p, sizeof v); return v; }
static inline void vd_store(double *p, vd v) { memcpy(p, &v, sizeof v); }
static inline vd vd_fma(vd a, vd b, vd c)
{
    vd r;
    for (int k = 0; k < VD_LANES; k++)
        r[k] = fma(a[k], b[k], c[k]);
    return r;
}
static inline vd vd_add(vd a, vd b) { return a + b; }
static inline vd vd_mul(vd a, vd b) { return a * b; }
static inline vd vd_load_n(const double *p, int n)
{
    vd v = vd_zero();
    for (int k = 0; k < n; k++)
        v[k] = p[k];
    return v;
}
static inline void vd_store_n(double *p, vd v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = v[k];
}

#endif
