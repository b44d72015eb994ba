/*
 * reference.h - entry points of the sequential reference, the specification
 * every other backend reproduces bit for bit.  Used by the reference
 * backend and by tests and tools that need "the right bits".
 */
#ifndef LOOM_REFERENCE_H
#define LOOM_REFERENCE_H

#include "loom.h"
#include "operands.h"

__attribute__((visibility("hidden"))) void
loom__reference_spmm_f32(const ref_csr *A, const loom_strategy *s, float alpha,
                         const ref_dense *X, float beta, ref_dense *Y, int64_t n);
__attribute__((visibility("hidden"))) void
loom__reference_spmm_f64(const ref_csr *A, const loom_strategy *s, double alpha,
                         const ref_dense *X, double beta, ref_dense *Y, int64_t n);

#endif
