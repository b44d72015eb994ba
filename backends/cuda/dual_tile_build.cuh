/*
 * dual_tile_build.cuh - building one tile of a padded row-condensed bitmap
 * in a 256-thread block: warp w owns lines 4w..4w+3, lane b owns bit b.
 * Each lane decides its element of each line (present, value), the warp
 * ballots the line masks, the block shares them, and every line's values
 * are placed at tile*1024 + (values of earlier lines) + (lower bits on the
 * line): the format's order inside a tile (loom/bitmap.h), with no prefix
 * sum across tiles.  Used by dual_bitmap_build.cu (dual_im2col.cu takes
 * clear_tail_tile_bits alone).
 */
#ifndef LOOM_DUAL_TILE_BUILD_CUH
#define LOOM_DUAL_TILE_BUILD_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"

namespace loom_dual {

constexpr int BUILD_THREADS = 256;
constexpr int BUILD_LINES = 4; /* lines per warp */

/* Called by the whole block for tile t, after the lanes filled x[] and
 * present[] for lines 4*warp + h.  smem: 32 words of shared memory.  Ends
 * with a barrier, so the block may go on to its next tile.  The tile's bit
 * is set by atomicOr (clear_tile_bits first). */
template <typename real>
__device__ __forceinline__ void finish_tile(int64_t t, const real (&x)[BUILD_LINES],
                                            const bool (&present)[BUILD_LINES], uint32_t *smem,
                                            const dual_cuda_bitmap &out)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t below = (1u << lane) - 1u;
    uint32_t m[BUILD_LINES];
#pragma unroll
    for (int h = 0; h < BUILD_LINES; h++) {
        m[h] = __ballot_sync(FULL, present[h]);
        if (lane == 0)
            smem[warp * BUILD_LINES + h] = m[h];
    }
    __syncthreads();
    const uint32_t line_mask = smem[lane]; /* lane = line here */
    const int line_off = warp_exclusive_scan(__popc(line_mask), lane);
    real *vals = static_cast<real *>(out.values) + t * TILE_VALUES;
#pragma unroll
    for (int h = 0; h < BUILD_LINES; h++) {
        const int o = __shfl_sync(FULL, line_off, warp * BUILD_LINES + h);
        if (present[h])
            vals[o + __popc(m[h] & below)] = x[h];
    }
    if (warp == 0) {
        out.masks[t * T + lane] = line_mask;
        out.line_offsets[t * T + lane] = line_off;
        const uint32_t any = __ballot_sync(FULL, line_mask != 0);
        unsigned long long *word = reinterpret_cast<unsigned long long *>(out.tile_bits + (t >> 6));
        if (lane == 0 && any)
            atomicOr(word, 1ull << (t & 63));
    }
    __syncthreads();
}

/* For a kernel that writes every tile's bit, set or clear (so the bits
 * need no clearing launch first): one thread clears the bits past the
 * last tile, which no tile writes. */
__device__ __forceinline__ void clear_tail_tile_bits(const dual_cuda_bitmap &out)
{
    const int64_t tiles = out.tile_rows * out.tile_cols;
    if (tiles & 63)
        atomicAnd(reinterpret_cast<unsigned long long *>(out.tile_bits + ((tiles - 1) >> 6)),
                  (1ull << (tiles & 63)) - 1ull);
}

/* The tile bits are set by atomicOr: clear them first. */
inline int clear_tile_bits(const dual_cuda_bitmap &out, cudaStream_t stream)
{
    const int64_t tiles = out.tile_rows * out.tile_cols;
    if (!tiles)
        return 0;
    return (int)cudaMemsetAsync(out.tile_bits, 0, (size_t)(tiles + 63) / 64 * sizeof(uint64_t),
                                stream);
}

} // namespace loom_dual

#endif
