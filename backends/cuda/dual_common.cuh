/*
 * dual_common.cuh - what the CUDA dual backend's kernels share: the
 * explicit fused multiply-add of each precision, 16-byte vectors, warp
 * scans, bit access, and the launch shapes.  Device code only; included
 * by the dual_*.cu files.
 */
#ifndef LOOM_DUAL_COMMON_CUH
#define LOOM_DUAL_COMMON_CUH

#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

namespace loom_dual {

constexpr unsigned FULL = 0xffffffffu;
constexpr int T = 32;                 /* LOOM_BITMAP_TILE */
constexpr int64_t TILE_VALUES = 1024; /* values a tile can hold: the stride of padded bitmaps */

/* The contract's multiply-add: written out, rounded once (never contracted
 * or split by the compiler; the build has --fmad=false). */
__device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

/* The finish of one C element, as the reference writes it: beta == 0
 * never reads C. */
template <typename real>
__device__ __forceinline__ void finish_element(real *y, real s, real alpha, real beta)
{
    *y = (beta == real(0)) ? alpha * s : fma_rn(alpha, s, beta * *y);
}

/* The 16-byte vector of a precision (one load of four floats or two
 * doubles), and its elements written out in order. */
template <typename real> struct vec16;
template <> struct vec16<float> {
    using type = float4;
};
template <> struct vec16<double> {
    using type = double2;
};
__device__ __forceinline__ void unpack(const float4 &v, float *o)
{
    o[0] = v.x;
    o[1] = v.y;
    o[2] = v.z;
    o[3] = v.w;
}
__device__ __forceinline__ void unpack(const double2 &v, double *o)
{
    o[0] = v.x;
    o[1] = v.y;
}

/* Exclusive prefix sum over the 32 lanes (all lanes must take part). */
__device__ __forceinline__ int warp_exclusive_scan(int x, int lane)
{
    int inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(FULL, inc, o);
        if (lane >= o)
            inc += y;
    }
    return inc - x;
}

__device__ __forceinline__ bool tile_bit(const uint64_t *bits, int64_t t)
{
    return bits[t >> 6] >> (t & 63) & 1u;
}

/* Where tile t's values start: packed bitmaps (uploaded from the host)
 * keep tile_offsets; padded ones (built on the device) give every tile
 * TILE_VALUES slots, so building them needs no prefix sum over tiles. */
__device__ __forceinline__ int64_t tile_start(const int64_t *offsets, int64_t stride, int64_t t)
{
    return stride ? t * stride : offsets[t];
}

/* Asynchronous copies global -> shared (cp.async, sm_80 and later): the
 * data of the next k-tile travels while the current one is computed.
 * Without __CUDA_ARCH__ (nvcc's host pass, or a CPU emulation of the
 * kernels) they are plain copies, which the same waits make correct. */
template <int BYTES>
__device__ __forceinline__ void copy_async(void *smem, const void *gmem)
{
#if defined(__CUDA_ARCH__)
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(BYTES));
#else
    memcpy(smem, gmem, BYTES);
#endif
}
/* 16 bytes, or 16 zero bytes when !valid (nothing is read then). */
__device__ __forceinline__ void copy_async16_or_zero(void *smem, const void *gmem, bool valid)
{
#if defined(__CUDA_ARCH__)
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(valid ? 16 : 0));
#else
    if (valid)
        memcpy(smem, gmem, 16);
    else
        memset(smem, 0, 16);
#endif
}
__device__ __forceinline__ void copy_async_commit()
{
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
/* This thread's copies have landed (a barrier then shows them to all). */
__device__ __forceinline__ void copy_async_wait_all()
{
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* The dynamic shared memory of a kernel (a CPU emulation may define this
 * macro first to hand the kernel its own buffer). */
#ifndef LOOM_DUAL_DYNAMIC_SMEM
#define LOOM_DUAL_DYNAMIC_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

/* Grid of `threads`-thread blocks for `items` work items (grid-stride loops
 * cover the rest). */
inline unsigned grid_for(int64_t items, int threads)
{
    int64_t blocks = (items + threads - 1) / threads;
    if (blocks < 1)
        blocks = 1;
    if (blocks > (1 << 22))
        blocks = 1 << 22;
    return (unsigned)blocks;
}

/* a[0..n) holds counts; make them exclusive offsets and a[n] the total
 * (one block; dual_csr_build.cu).  0 or a CUDA error code. */
int scan_counts(int64_t *a, int64_t n, cudaStream_t stream);

} // namespace loom_dual

#endif
