/*
 * dual_csr_build.cu - CSR on the device: a dense matrix into CSR (zeros
 * dropped, as the host's conversion in lib/dual_conv_api.c does), and the
 * prefix sum that turns per-row counts into row offsets (used by the CSR
 * im2col too).  Two passes, count then fill, so every row's entries keep
 * the increasing column order the CSR format requires.
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_csr_kernels.cuh"

#include <cuda_runtime.h>

namespace loom_dual {

namespace {

template <typename real>
int csr_from_dense(const real *X, int64_t ld, int col_major, dual_cuda_csr *out,
                   cudaStream_t stream)
{
    const unsigned grid = grid_for(out->rows * 32, 256);
    if (out->rows > 0) {
        csr_count_kernel<real><<<grid, 256, 0, stream>>>(X, ld, col_major, out->rows, out->cols,
                                                         out->row_offsets);
        if (cudaError_t e = cudaGetLastError())
            return (int)e;
    }
    if (int rc = scan_counts(out->row_offsets, out->rows, stream))
        return rc;
    if (out->rows > 0) {
        csr_fill_kernel<real><<<grid, 256, 0, stream>>>(X, ld, col_major, out->rows, out->cols,
                                                        out->row_offsets, out->col_indices,
                                                        static_cast<real *>(out->values));
    }
    return (int)cudaGetLastError();
}

} // namespace

int scan_counts(int64_t *a, int64_t n, cudaStream_t stream)
{
    scan_kernel<<<1, SCAN_THREADS, 0, stream>>>(a, n);
    return (int)cudaGetLastError();
}

} // namespace loom_dual

extern "C" int loom__dual_cuda_csr_from_dense(const void *X, int64_t ld, int col_major, int f64,
                                              dual_cuda_csr *out, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return f64 ? loom_dual::csr_from_dense(static_cast<const double *>(X), ld, col_major, out, s)
               : loom_dual::csr_from_dense(static_cast<const float *>(X), ld, col_major, out, s);
}
