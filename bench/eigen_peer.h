/* eigen_peer.h - the C face of the Eigen peer (eigen_peer.cpp). */
#ifndef LOOM_BENCH_EIGEN_PEER_H
#define LOOM_BENCH_EIGEN_PEER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eigen_peer eigen_peer;
eigen_peer *eigen_peer_create(int64_t rows, int64_t cols, int64_t nnz, const int64_t *row_offsets,
                              const int32_t *col_indices, const float *values, int threads);
/* Y = A X, X (cols x n) and Y (rows x n) row-major, dense. */
void eigen_peer_spmm(eigen_peer *p, const float *x, int64_t n, float *y);
void eigen_peer_free(eigen_peer *p);

#ifdef __cplusplus
}
#endif

#endif
