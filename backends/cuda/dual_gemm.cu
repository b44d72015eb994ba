/*
 * dual_gemm.cu - the dual-side sparse GEMM on CUDA cores: kernel choice
 * and launch.  Both kernels must match loom__ref_dual_gemm
 * (reference/dual_gemm.h) bit for bit: every C element is accumulated
 * from +0 over k in increasing order, only where A(i,k) and B(k,j) are
 * both non-zero, acc = fma(a, b, acc) rounded once, and finished with
 * beta == 0 ? alpha*acc : fma(alpha, acc, beta*c).  Built with
 * --fmad=false, so alpha*acc and beta*c are not contracted.
 *
 * The kernels (block tiles and walks change the speed, never the order):
 *   line walk (dual_lines.cu, the default where the plan built it: both
 *     operands zero-safe): the sparse side's lists against the other side
 *     expanded to dense; 4 lines a warp, k visited over their union;
 *   pipelined (dual_gemm_pipe_kernel.cuh, the default): 64 x 256 or
 *     64 x 128 of C per block, a warp 8 rows; the next k-tile's masks and
 *     values are copied with cp.async while the current one is computed;
 *     the walk gives each b loaded to every row present at that k;
 *   basic (dual_gemm_kernel.cuh, LOOM_DUAL_CUDA_KERNEL=basic): the first
 *     design, a warp 4 rows, operands fetched from global memory at each
 *     k-tile between two barriers.
 * Both expand each k-tile's operand tiles into dense shared slices (zeros
 * where absent), skip k-tiles on the tile bitmaps and k lines where either
 * side is empty, and walk only the k where the warp's rows have non-zeros.
 *
 * Why absent elements may enter some products as +0: fma(+-0, b, acc)
 * returns acc unchanged unless acc is -0 (+0 comes back) or b is Inf/NaN
 * (NaN comes back).  Neither can happen when every stored value v of A and
 * B is finite with |v| >= 2^-50 (f32) or 2^-480 (f64): then every product
 * a*b is a multiple of 2^-149 (2^-1074), acc (a float, so a multiple of
 * that too) plus a*b is either exactly 0, which rounds to +0, or at least
 * the smallest subnormal in magnitude, which does not round to 0; so acc
 * is never -0 and never NaN.  The host checks this (loom__dual_zero_safe,
 * dual_zero_safe.c); otherwise (exact = 1) each product is guarded by both
 * mask bits, the reference's own test.  tests/test_dual_cuda.c runs every
 * kernel, tile and path against the reference, and values that underflow
 * to -0 to see the plan take the exact path.
 *
 * Predicted and measured (4096^3 f32 on an H200; bench/results/dual/):
 * the basic kernel was predicted at about 3 ms dense and under cuBLAS's
 * 2.7 ms at 80% sparsity; the first GPU run measured 12.0 ms dense, 7.6 ms
 * at 80% and 5.4 ms at 90%, with most of the time spent waiting on global
 * loads at each k-tile and a shared-memory pipe fully loaded by 4 rows per
 * 16-byte load.  The pipelined kernel was written from those numbers and
 * predicted at 4-5 ms dense and 2-2.8 ms at 80%; the second run measured
 * 6.1 ms dense, 5.1 ms at 80%, 4.4 ms at 90% (12x faster than cuSPARSE
 * SpGEMM's 53 ms) and 1.1 ms at 99.9%, with cuBLAS at 2.7 ms: faster than
 * cuBLAS only from 99% sparsity.  At high sparsity a fixed cost per
 * k-tile (the offsets, then the copies, waited for in turn) remains.
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_gemm_kernel.cuh"
#include "dual_gemm_pipe_kernel.cuh"

#include <cuda_runtime.h>

namespace {

using namespace loom_dual;

template <typename real, int GROUPS, int CPL>
int launch_shape(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, real alpha, real beta,
                 real *C, int64_t ldc, int col_major, int exact, int walk, cudaStream_t stream)
{
    const int64_t col_blocks = (B->tile_cols + CPL - 1) / CPL;
    const int64_t row_blocks = (A->tile_rows + GROUPS - 1) / GROUPS;
    const int64_t blocks = col_blocks * row_blocks;
    if (blocks > 0x7fffffff)
        return (int)cudaErrorInvalidConfiguration;
    if (exact)
        dual_gemm_kernel<real, GROUPS, CPL, true><<<(unsigned)blocks, THREADS, 0, stream>>>(
            *A, *B, alpha, beta, C, ldc, col_major, col_blocks, walk);
    else
        dual_gemm_kernel<real, GROUPS, CPL, false><<<(unsigned)blocks, THREADS, 0, stream>>>(
            *A, *B, alpha, beta, C, ldc, col_major, col_blocks, walk);
    return (int)cudaGetLastError();
}

template <typename real, int CPL>
int launch_pipe(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, real alpha, real beta,
                real *C, int64_t ldc, int col_major, int exact, cudaStream_t stream)
{
    const int64_t col_blocks = (B->tile_cols + CPL - 1) / CPL;
    const int64_t row_blocks = (A->tile_rows + 1) / 2;
    const int64_t blocks = col_blocks * row_blocks;
    if (blocks > 0x7fffffff)
        return (int)cudaErrorInvalidConfiguration;
    const size_t bytes = pipe_layout<real, CPL>::bytes;
    cudaError_t e;
    if (exact) {
        auto k = dual_gemm_pipe_kernel<real, CPL, true>;
        if ((e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes)) !=
            cudaSuccess)
            return (int)e;
        k<<<(unsigned)blocks, PIPE_THREADS, bytes, stream>>>(*A, *B, alpha, beta, C, ldc, col_major,
                                                             col_blocks);
    } else {
        auto k = dual_gemm_pipe_kernel<real, CPL, false>;
        if ((e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes)) !=
            cudaSuccess)
            return (int)e;
        k<<<(unsigned)blocks, PIPE_THREADS, bytes, stream>>>(*A, *B, alpha, beta, C, ldc, col_major,
                                                             col_blocks);
    }
    return (int)cudaGetLastError();
}

int sm_count()
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    return sms;
}

/* The largest block tile that still gives every multiprocessor two blocks
 * (a prediction; the benchmark can force each with LOOM_DUAL_CUDA_TILE). */
int choose_tile(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B)
{
    const int64_t want = 2 * (int64_t)sm_count();
    const int64_t cb8 = (B->tile_cols + 7) / 8;
    if (cb8 * ((A->tile_rows + 1) / 2) >= want)
        return DUAL_CUDA_TILE_64X256;
    if (cb8 * A->tile_rows >= want)
        return DUAL_CUDA_TILE_32X256;
    return DUAL_CUDA_TILE_32X128;
}

int launch_f32(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, float alpha, float beta,
               float *C, int64_t ldc, int col_major, const dual_cuda_gemm_opts *o,
               cudaStream_t stream)
{
    int tile = o->tile;
    if (o->kernel != DUAL_CUDA_KERNEL_BASIC) {
        /* The pipelined kernel: 64x256, or 64x128 when that leaves too few
         * blocks to fill the GPU twice. */
        if (tile != DUAL_CUDA_TILE_64X256 && tile != DUAL_CUDA_TILE_64X128)
            tile = ((B->tile_cols + 7) / 8) * ((A->tile_rows + 1) / 2) >= 2 * (int64_t)sm_count()
                       ? DUAL_CUDA_TILE_64X256
                       : DUAL_CUDA_TILE_64X128;
        if (tile == DUAL_CUDA_TILE_64X256)
            return launch_pipe<float, 8>(A, B, alpha, beta, C, ldc, col_major, o->exact, stream);
        return launch_pipe<float, 4>(A, B, alpha, beta, C, ldc, col_major, o->exact, stream);
    }
    if (tile == DUAL_CUDA_TILE_AUTO || tile == DUAL_CUDA_TILE_64X128)
        tile = choose_tile(A, B);
    switch (tile) {
    case DUAL_CUDA_TILE_64X256:
        return launch_shape<float, 2, 8>(A, B, alpha, beta, C, ldc, col_major, o->exact, o->walk,
                                         stream);
    case DUAL_CUDA_TILE_32X256:
        return launch_shape<float, 1, 8>(A, B, alpha, beta, C, ldc, col_major, o->exact, o->walk,
                                         stream);
    default:
        return launch_shape<float, 1, 4>(A, B, alpha, beta, C, ldc, col_major, o->exact, o->walk,
                                         stream);
    }
}

/* f64: 64x128 pipelined, or the basic kernel's 32x128 (32 double
 * accumulators a lane either way). */
int launch_f64(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, double alpha, double beta,
               double *C, int64_t ldc, int col_major, const dual_cuda_gemm_opts *o,
               cudaStream_t stream)
{
    if (o->kernel != DUAL_CUDA_KERNEL_BASIC)
        return launch_pipe<double, 4>(A, B, alpha, beta, C, ldc, col_major, o->exact, stream);
    return launch_shape<double, 1, 4>(A, B, alpha, beta, C, ldc, col_major, o->exact, o->walk,
                                      stream);
}

} // namespace

extern "C" int loom__dual_cuda_gemm(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, int f64,
                                    double alpha, double beta, void *C, int64_t ldc, int col_major,
                                    int c_on_device, const dual_cuda_gemm_opts *opts,
                                    void *stream_ptr)
{
    const dual_cuda_gemm_opts none = {0, DUAL_CUDA_TILE_AUTO, DUAL_CUDA_WALK_AUTO,
                                      DUAL_CUDA_KERNEL_PIPE, nullptr};
    if (!opts)
        opts = &none;
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    const size_t es = f64 ? sizeof(double) : sizeof(float);
    const int64_t m = A->rows, n = B->cols;
    /* The span of C: rows x ld (row-major) or ld x cols (column-major). */
    const size_t span = m && n ? (size_t)(col_major ? (n - 1) * ldc + m : (m - 1) * ldc + n) : 0;
    if (!span)
        return 0;
    void *dC = C;
    cudaError_t e = cudaSuccess;
    if (!c_on_device) {
        if ((e = cudaMalloc(&dC, span * es)) != cudaSuccess)
            return (int)e;
        /* Copied in even when beta == 0: the padding between columns (ld)
         * comes back unchanged. */
        if ((e = cudaMemcpyAsync(dC, C, span * es, cudaMemcpyHostToDevice, stream)) !=
            cudaSuccess) {
            cudaFree(dC);
            return (int)e;
        }
    }
    int rc;
    if (opts->kernel == DUAL_CUDA_KERNEL_LINES && opts->lines && !opts->exact)
        rc = loom__dual_cuda_gemm_lines(opts->lines, opts->lines->rows ? B : A, f64, alpha, beta,
                                        dC, ldc, col_major, stream);
    else if (f64)
        rc = launch_f64(A, B, alpha, beta, static_cast<double *>(dC), ldc, col_major, opts, stream);
    else
        rc = launch_f32(A, B, (float)alpha, (float)beta, static_cast<float *>(dC), ldc, col_major,
                        opts, stream);
    if (!c_on_device) {
        if (rc == 0)
            rc = (int)cudaMemcpyAsync(C, dC, span * es, cudaMemcpyDeviceToHost, stream);
        if (rc == 0)
            rc = (int)cudaStreamSynchronize(stream);
        else
            cudaStreamSynchronize(stream);
        cudaFree(dC);
    }
    return rc;
}
