/* omp_dual.h - the OpenMP dual backend's kernels (backends/openmp/dual_*.c). */
#ifndef LOOM_OMP_DUAL_H
#define LOOM_OMP_DUAL_H

#include "dual_internal.h"

/* vector: allow the AVX2 masked update (the caller checked the CPU). */
LOOM_INTERNAL void loom__omp_dual_gemm_f32(const loom_bitmap *A, const loom_bitmap *B, float alpha,
                                           float beta, loom_dense *C, int threads, bool vector);
LOOM_INTERNAL void loom__omp_dual_gemm_f64(const loom_bitmap *A, const loom_bitmap *B,
                                           double alpha, double beta, loom_dense *C, int threads,
                                           bool vector);
/* C = alpha*A*B + beta*C by the line walk; only for zero-safe operands. */
LOOM_INTERNAL loom_status loom__omp_dual_lines_gemm_f32(const loom_dual_lines *l,
                                                        const loom_bitmap *A, const loom_bitmap *B,
                                                        float alpha, float beta, loom_dense *C,
                                                        int threads, bool vector);
LOOM_INTERNAL loom_status loom__omp_dual_lines_gemm_f64(const loom_dual_lines *l,
                                                        const loom_bitmap *A, const loom_bitmap *B,
                                                        double alpha, double beta, loom_dense *C,
                                                        int threads, bool vector);

LOOM_INTERNAL loom_status loom__omp_im2col_dense(const loom_conv_shape *s, int64_t out_h,
                                                 int64_t out_w, const loom_dense *X,
                                                 int64_t image, loom_dense *cols);
LOOM_INTERNAL loom_status loom__omp_im2col_csr(loom_context *ctx, const loom_conv_shape *s,
                                               int64_t out_h, int64_t out_w, const loom_csr *X,
                                               int64_t image, loom_csr **cols);
LOOM_INTERNAL loom_status loom__omp_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s,
                                                  int64_t out_h, int64_t out_w,
                                                  const loom_bitmap *X, int64_t image,
                                                  loom_bitmap **cols);
#endif
