/*
 * dual_gemm.cu - the dual-side sparse GEMM on CUDA cores.  Must match
 * loom__ref_dual_gemm (reference/dual_gemm.h) bit for bit: every C element
 * is accumulated from +0 over k in increasing order, only where A(i,k) and
 * B(k,j) are both non-zero, acc = fma(a, b, acc) rounded once, and
 * finished with beta == 0 ? alpha*acc : fma(alpha, acc, beta*c).  Built
 * with --fmad=false, so alpha*acc and beta*c are not contracted.
 *
 * Work split (tile sizes change the speed, never the order):
 *   a 256-thread block owns BM x BN elements of C (64x256, 32x256 or
 *   32x128); each warp owns 4 rows of each 32-row group and the 32 lanes
 *   share them, lane l owning CPL columns (l*V .. l*V+V-1 in each 32*V
 *   column slice, V = 16 bytes / sizeof(real), for conflict-free 16-byte
 *   shared loads).  Per k-tile (32 k) both operands are expanded into
 *   shared memory as dense slices, sA[k][row] and sB[k][col], zeros where
 *   an element is absent, then the warp walks k in increasing order.
 *
 * Skipping, from coarse to fine, all uniform (no divergence):
 *   - a k-tile whose A tiles (BM/32) or B tiles (BN/32) are all absent in
 *     the tile bitmaps: nothing is loaded;
 *   - k where A's column segment over the block's rows or B's row segment
 *     over its columns is empty ("active" lines): never expanded;
 *   - per warp and group, k where none of its 4 rows has A(i,k) != 0:
 *     the walk visits only the set bits of the union of the 4 row masks
 *     (the row masks are the transpose of A's column-condensed masks, done
 *     with one __ballot_sync), in increasing order (__ffs, clear lowest).
 *   Inside that walk every lane multiplies its 4 a's by its CPL b's.
 *
 * Why that can be bit-exact although some products have a zero operand:
 * the walk multiplies absent elements as +0.  fma(+-0, b, acc) returns acc
 * unchanged unless acc is -0 (+0 comes back) or b is Inf/NaN (NaN comes
 * back).  Neither can happen when every stored value v of A and B is
 * finite with |v| >= 2^-50 (f32) or 2^-480 (f64): then every product a*b
 * is a multiple of 2^-149 (2^-1074), acc (a float, so a multiple of that
 * too) plus a*b is either exactly 0, which rounds to +0, or at least the
 * smallest subnormal in magnitude, which does not round to 0; so acc is
 * never -0 and stays finite or +-Inf (never NaN).  The host checks this
 * (loom__dual_zero_safe, dual_zero_safe.c) and asks for that path with
 * exact = 0.  Otherwise (exact = 1) each product is guarded by both mask
 * bits, which is the reference's test itself.  Both paths are tested
 * against the reference (tests/test_dual_cuda.c forces each).
 *
 * Expected speed (a prediction, written before measuring; see
 * bench/results/dual/README.md for what was measured): per k visited a
 * lane issues 3 shared loads (16 bytes each, no bank conflicts) and 4*CPL
 * FFMAs, about 80% FFMA issue; dense work is then density(A's 4-row
 * union) of a dense GEMM, about 59% at 80% sparsity and 34% at 90%.
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_gemm_kernel.cuh"

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
               float *C, int64_t ldc, int col_major, int exact, int tile, int walk,
               cudaStream_t stream)
{
    if (tile == DUAL_CUDA_TILE_AUTO)
        tile = choose_tile(A, B);
    switch (tile) {
    case DUAL_CUDA_TILE_64X256:
        return launch_shape<float, 2, 8>(A, B, alpha, beta, C, ldc, col_major, exact, walk, stream);
    case DUAL_CUDA_TILE_32X256:
        return launch_shape<float, 1, 8>(A, B, alpha, beta, C, ldc, col_major, exact, walk, stream);
    default:
        return launch_shape<float, 1, 4>(A, B, alpha, beta, C, ldc, col_major, exact, walk, stream);
    }
}

/* f64: one shape, 32x128 (32 double accumulators a lane). */
int launch_f64(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, double alpha, double beta,
               double *C, int64_t ldc, int col_major, int exact, int walk, cudaStream_t stream)
{
    return launch_shape<double, 1, 4>(A, B, alpha, beta, C, ldc, col_major, exact, walk, stream);
}

} // namespace

extern "C" int loom__dual_cuda_gemm(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, int f64,
                                    double alpha, double beta, void *C, int64_t ldc, int col_major,
                                    int c_on_device, const dual_cuda_gemm_opts *opts,
                                    void *stream_ptr)
{
    const dual_cuda_gemm_opts none = {0, DUAL_CUDA_TILE_AUTO, DUAL_CUDA_WALK_AUTO};
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
    int rc = f64 ? launch_f64(A, B, alpha, beta, static_cast<double *>(dC), ldc, col_major,
                              opts->exact, opts->walk, stream)
                 : launch_f32(A, B, (float)alpha, (float)beta, static_cast<float *>(dC), ldc,
                              col_major, opts->exact, opts->tile, opts->walk, stream);
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
