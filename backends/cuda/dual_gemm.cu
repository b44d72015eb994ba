/*
 * dual_gemm.cu - the dual-side sparse GEMM on CUDA cores.  Must match
 * loom__ref_dual_gemm (reference/dual_gemm.h) bit for bit: every C element
 * is accumulated over k in increasing order, only where both A(i,k) and
 * B(k,j) are non-zero, acc = __fmaf_rn(a, b, acc) from +0, and finished
 * with beta == 0 ? alpha*acc : fma(alpha, acc, beta*c).  Built with
 * --fmad=false so the finish's products are not contracted.
 *
 * One block per 32x32 warp tile of C, 256 threads: thread (ty, tx) owns
 * column tx and rows ty, ty+8, ty+16, ty+24.  For each k-tile whose two
 * operand tiles are both present (the tile bitmap), the block stages the
 * 32+32 masks and the condensed values of both tiles in shared memory;
 * then for kk = 0..31 each thread finds its operands by popcount (the
 * gather), multiplies and accumulates in registers (the scatter is the
 * thread's own position), so the order over k is the reference's.
 */
#include "dual_cuda.h"

#include <cuda_runtime.h>

namespace {

constexpr int T = 32;
constexpr int THREADS = 256;

__device__ inline float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ inline double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

template <typename real>
__global__ void __launch_bounds__(THREADS)
dual_gemm_kernel(dual_cuda_bitmap A, dual_cuda_bitmap B, real alpha, real beta, real *C,
                 int64_t ldc, int col_major)
{
    __shared__ uint32_t sma[T], smb[T];
    __shared__ real sa[T * T], sb[T * T];
    const int64_t ti = blockIdx.y, tj = blockIdx.x;
    const int tx = threadIdx.x % T, ty = threadIdx.x / T;
    const uint32_t below_tx = (1u << tx) - 1u;
    const real *av = static_cast<const real *>(A.values);
    const real *bv = static_cast<const real *>(B.values);
    real acc[4] = {real(0), real(0), real(0), real(0)};

    for (int64_t tk = 0; tk < A.tile_cols; tk++) {
        const int64_t ta = ti * A.tile_cols + tk, tb = tk * B.tile_cols + tj;
        if (!(A.tile_bits[ta / 64] >> (ta % 64) & 1u) || !(B.tile_bits[tb / 64] >> (tb % 64) & 1u))
            continue; /* uniform over the block */
        const int64_t a0 = A.tile_offsets[ta], na = A.tile_offsets[ta + 1] - a0;
        const int64_t b0 = B.tile_offsets[tb], nb = B.tile_offsets[tb + 1] - b0;
        __syncthreads();
        if (threadIdx.x < T)
            sma[threadIdx.x] = A.masks[ta * T + threadIdx.x];
        else if (threadIdx.x < 2 * T)
            smb[threadIdx.x - T] = B.masks[tb * T + threadIdx.x - T];
        for (int64_t e = threadIdx.x; e < na; e += THREADS)
            sa[e] = av[a0 + e];
        for (int64_t e = threadIdx.x; e < nb; e += THREADS)
            sb[e] = bv[b0 + e];
        __syncthreads();
        int pa = 0, pb = 0;
        for (int kk = 0; kk < T; kk++) { /* k = tk*32 + kk, increasing */
            const uint32_t ma = sma[kk], mb = smb[kk];
            if (ma && (mb >> tx & 1u)) {
                const real b = sb[pb + __popc(mb & below_tx)];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const int r = ty + 8 * q;
                    if (ma >> r & 1u)
                        acc[q] = fma_rn(sa[pa + __popc(ma & ((1u << r) - 1u))], b, acc[q]);
                }
            }
            pa += __popc(ma);
            pb += __popc(mb);
        }
    }
    const int64_t j = tj * T + tx;
    if (j >= B.cols)
        return;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int64_t i = ti * T + ty + 8 * q;
        if (i >= A.rows)
            continue;
        real *y = C + (col_major ? i + j * ldc : i * ldc + j);
        *y = (beta == real(0)) ? alpha * acc[q] : fma_rn(alpha, acc[q], beta * *y);
    }
}

template <typename real>
int launch(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, double alpha, double beta,
           real *C, int64_t ldc, int col_major, cudaStream_t stream)
{
    if (A->tile_rows == 0 || B->tile_cols == 0)
        return 0;
    dim3 grid((unsigned)B->tile_cols, (unsigned)A->tile_rows);
    dual_gemm_kernel<real><<<grid, THREADS, 0, stream>>>(*A, *B, (real)alpha, (real)beta, C, ldc,
                                                         col_major);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int loom__dual_cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        *why = cudaGetErrorString(e);
        cudaGetLastError();
        return -(int)e;
    }
    *why = n ? "" : "no CUDA device";
    return n;
}

extern "C" const char *loom__dual_cuda_error_string(int code)
{
    return cudaGetErrorString((cudaError_t)code);
}

extern "C" void loom__dual_cuda_free(dual_cuda_bitmap *b)
{
    cudaFree(b->tile_bits);
    cudaFree(b->masks);
    cudaFree(b->tile_offsets);
    cudaFree(b->values);
    b->tile_bits = nullptr;
    b->masks = nullptr;
    b->tile_offsets = nullptr;
    b->values = nullptr;
}

extern "C" int loom__dual_cuda_upload(int64_t rows, int64_t cols, int64_t tile_rows,
                                      int64_t tile_cols, int64_t nnz, const uint64_t *tile_bits,
                                      const uint32_t *masks, const int64_t *tile_offsets,
                                      const void *values, size_t elem_size, dual_cuda_bitmap *out)
{
    dual_cuda_bitmap b = {rows, cols, tile_rows, tile_cols, nnz, nullptr, nullptr, nullptr, nullptr};
    const size_t tiles = (size_t)(tile_rows * tile_cols);
    const size_t bit_bytes = ((tiles + 63) / 64 + 1) * sizeof(uint64_t);
    const size_t mask_bytes = (tiles * T + 1) * sizeof(uint32_t);
    const size_t off_bytes = (tiles + 1) * sizeof(int64_t);
    const size_t val_bytes = (size_t)(nnz ? nnz : 1) * elem_size;
    cudaError_t e;
    if ((e = cudaMalloc(&b.tile_bits, bit_bytes)) != cudaSuccess ||
        (e = cudaMalloc(&b.masks, mask_bytes)) != cudaSuccess ||
        (e = cudaMalloc(&b.tile_offsets, off_bytes)) != cudaSuccess ||
        (e = cudaMalloc(&b.values, val_bytes)) != cudaSuccess ||
        (e = cudaMemcpy(b.tile_bits, tile_bits, ((tiles + 63) / 64) * sizeof(uint64_t),
                        cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(b.masks, masks, tiles * T * sizeof(uint32_t), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = cudaMemcpy(b.tile_offsets, tile_offsets, off_bytes, cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = cudaMemcpy(b.values, values, (size_t)nnz * elem_size, cudaMemcpyHostToDevice)) !=
            cudaSuccess) {
        loom__dual_cuda_free(&b);
        return (int)e;
    }
    *out = b;
    return 0;
}

extern "C" int loom__dual_cuda_gemm(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, int f64,
                                    double alpha, double beta, void *C, int64_t ldc, int col_major,
                                    int c_on_device, void *stream_ptr)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    const size_t es = f64 ? sizeof(double) : sizeof(float);
    const int64_t m = A->rows, n = B->cols;
    /* The span of C: rows x ld (row-major) or ld x cols (column-major). */
    const size_t span = m && n ? (size_t)(col_major ? (n - 1) * ldc + m : (m - 1) * ldc + n) : 0;
    void *dC = C;
    cudaError_t e = cudaSuccess;
    if (!c_on_device && span) {
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
    int rc = span ? (f64 ? launch<double>(A, B, alpha, beta, static_cast<double *>(dC), ldc,
                                          col_major, stream)
                         : launch<float>(A, B, alpha, beta, static_cast<float *>(dC), ldc,
                                         col_major, stream))
                  : 0;
    if (!c_on_device && span) {
        if (rc == 0)
            rc = (int)cudaMemcpyAsync(C, dC, span * es, cudaMemcpyDeviceToHost, stream);
        if (rc == 0)
            rc = (int)cudaStreamSynchronize(stream);
        cudaFree(dC);
    }
    return rc;
}
