// eigen_peer.cpp - Eigen as a benchmark peer of cpu_bench.c: a row-major
// SparseMatrix<float> times a row-major dense block, parallelised by
// Eigen's own OpenMP code (Eigen::setNbThreads).  A C interface, so the
// benchmark itself stays C.
#include <Eigen/Core>
#include <Eigen/Sparse>

#include <cstdint>
#include <vector>

#include "eigen_peer.h"

typedef Eigen::SparseMatrix<float, Eigen::RowMajor, int> SpMat;
typedef Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> DenseRM;

struct eigen_peer {
    SpMat A;
};

extern "C" eigen_peer *eigen_peer_create(int64_t rows, int64_t cols, int64_t nnz,
                                         const int64_t *row_offsets, const int32_t *col_indices,
                                         const float *values, int threads)
{
    Eigen::setNbThreads(threads);
    eigen_peer *p = new eigen_peer;
    std::vector<Eigen::Triplet<float>> t;
    t.reserve((size_t)nnz);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = row_offsets[i]; j < row_offsets[i + 1]; j++)
            t.emplace_back((int)i, col_indices[j], values[j]);
    p->A.resize((int)rows, (int)cols);
    p->A.setFromTriplets(t.begin(), t.end());
    p->A.makeCompressed();
    return p;
}

extern "C" void eigen_peer_spmm(eigen_peer *p, const float *x, int64_t n, float *y)
{
    const int64_t k = p->A.cols(), m = p->A.rows();
    if (n == 1) {
        Eigen::Map<const Eigen::VectorXf> X(x, k);
        Eigen::Map<Eigen::VectorXf> Y(y, m);
        Y.noalias() = p->A * X;
    } else {
        Eigen::Map<const DenseRM> X(x, k, n);
        Eigen::Map<DenseRM> Y(y, m, n);
        Y.noalias() = p->A * X;
    }
}

extern "C" void eigen_peer_free(eigen_peer *p)
{
    delete p;
}
