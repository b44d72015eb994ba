/*
 * test_operands.h - the backend tests' operands: host dense matrices with
 * padding, their device copies (padding included) and back, and random
 * sparse matrices of skewed rows.  Any failure fails the running cmocka
 * test, so the helpers return only what they made.
 */
#ifndef LOOM_TEST_OPERANDS_H
#define LOOM_TEST_OPERANDS_H

#include "test_check.h"

/* The bytes of d's buffer: its outer size times ld. */
size_t dense_bytes(const loom_dense *d);

/* A host dense matrix with ld = inner size + pad, every byte set (0x5a);
 * its data is malloc'ed (the caller frees it). */
void dense_make(loom_dense *d, int64_t rows, int64_t cols, loom_layout layout, loom_dtype dtype,
                int64_t pad);

/* A device matrix of host's shape, layout and ld, holding all its bytes
 * (loom_dense_free releases it). */
void dense_to_device(loom_context *ctx, const loom_dense *host, loom_dense *dev);

/* All of dev's bytes, padding included, into host (of the same shape). */
void dense_to_host(loom_context *ctx, const loom_dense *dev, loom_dense *host);

/* Random skewed rows: row `long_row` has long_len non-zeros (none: -1),
 * empty_percent of the rows are empty besides runs of empty ones, the rest
 * power-law lengths of at most max_len; values with full random mantissas,
 * some exact zeros and -0 (f32 or f64). */
loom_csr *skewed_matrix_capped(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols,
                               int64_t max_len, int64_t long_row, int64_t long_len,
                               int empty_percent, uint64_t seed);

/* The same with lengths of at most a quarter of the columns. */
loom_csr *skewed_matrix(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols,
                        int64_t long_row, int64_t long_len, int empty_percent, uint64_t seed);

#endif
