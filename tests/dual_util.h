/*
 * dual_util.h - what the dual-side tests share: random sparse dense
 * matrices, element access, and the float64 (long double) oracles for the
 * dual-side GEMM and for convolution, written from the definitions and
 * sharing nothing with the library's kernels.
 */
#ifndef LOOM_TEST_DUAL_UTIL_H
#define LOOM_TEST_DUAL_UTIL_H

#include <loom.h>
#include <loom/bitmap.h>
#include <stdbool.h>

uint64_t dual_rand(uint64_t *state);
/* A host dense matrix with about `density` of its elements non-zero,
 * values uniform in [-1, 1) (never 0); NULL data on failure. */
loom_status dual_random_dense(loom_context *ctx, loom_dense *d, int64_t rows, int64_t cols,
                              double density, loom_dtype dtype, loom_layout layout, uint64_t seed);
double dual_get(const loom_dense *d, int64_t i, int64_t j);
void dual_set(loom_dense *d, int64_t i, int64_t j, double v);

/* C (after) against alpha*A*B + beta*C0 with A, B dense copies of the
 * operands: every element within (nk + 2) * u * (|alpha| sum |a b| +
 * |beta| |c0|) * 1.01, nk the number of products.  msg describes the
 * first failure. */
bool dual_oracle_gemm(const loom_dense *A, const loom_dense *B, double alpha, double beta,
                      const loom_dense *C0, const loom_dense *C, char *msg, size_t len);

/* The same for a convolution: X (batch*C*H) x W, Wt F x (C*R*S) dense,
 * Y (batch*F*P) x Q. */
bool dual_oracle_conv(const loom_conv_shape *s, const loom_dense *X, const loom_dense *Wt,
                      double alpha, double beta, const loom_dense *Y0, const loom_dense *Y,
                      char *msg, size_t len);

/* got against want, array by array (shape and layout, tile bits, masks,
 * tile offsets, values, by memcmp); msg names the first difference. */
bool dual_same_bitmap(const loom_bitmap *want, const loom_bitmap *got, char *msg, size_t len);

#endif
