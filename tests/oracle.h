/*
 * oracle.h - the tests' independent check: Y = alpha*A*X + beta*Y computed
 * in long double from the non-zeros as (row, col, value) triples, by code
 * that shares nothing with the library's kernels, plus an error bound.
 */
#ifndef LOOM_TEST_ORACLE_H
#define LOOM_TEST_ORACLE_H

#include <loom.h>
#include <stdbool.h>

/* Check Y (computed by loom) against the oracle.  Y0 is Y's content before
 * the call (ignored when beta == 0).  Returns true when every element lies
 * within the bound (n_i + 2) * u * (|alpha| sum |a||x| + |beta||y0|) * 1.01,
 * with n_i the row length and u the unit roundoff of the dtype; on failure
 * describes the first bad element in msg. */
bool oracle_check(const loom_csr *A, double alpha, const loom_dense *X, double beta,
                  const loom_dense *Y0, const loom_dense *Y, char *msg, size_t len);

/* Read element (i, j) of a host dense matrix as a double. */
double dense_get(const loom_dense *d, int64_t i, int64_t j);
void dense_set(loom_dense *d, int64_t i, int64_t j, double v);
/* Fill every element (padding included, up to ld) with NaN. */
void dense_poison(loom_dense *d);

#endif
