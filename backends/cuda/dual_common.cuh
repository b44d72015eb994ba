/*
 * dual_common.cuh - what the CUDA dual backend's kernels share: the
 * explicit fused multiply-add of each precision, warp scans, bit access,
 * and the launch shapes.  Device code only; included by the dual_*.cu files.
 */
#ifndef LOOM_DUAL_COMMON_CUH
#define LOOM_DUAL_COMMON_CUH

#include <cstdint>
#include <cuda_runtime.h>

namespace loom_dual {

constexpr unsigned FULL = 0xffffffffu;
constexpr int T = 32;                 /* LOOM_BITMAP_TILE */
constexpr int64_t TILE_VALUES = 1024; /* values a tile can hold: the stride of padded bitmaps */

/* The contract's multiply-add: written out, rounded once (never contracted
 * or split by the compiler; the build has --fmad=false). */
__device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

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
