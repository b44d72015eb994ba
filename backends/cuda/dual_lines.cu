/*
 * dual_lines.cu - the line walk of the dual-side GEMM on the GPU: the
 * sparse side as one list per line of C (built by the plan,
 * lib/dual_lines.c), the other side expanded to a dense K x lde matrix E
 * in device scratch, then each C element accumulates
 *
 *     acc = +0;  for k increasing over the union of its warp's 4 lines'
 *                lists: acc = fma(s(line, k), E(k, x), acc)
 *
 * with s = +0 where the line has no entry at k.  Every product where both
 * operands are non-zero is there, in increasing k; every other product
 * has a zero factor, which leaves acc's bits unchanged because the plan
 * takes this path only for zero-safe operands (lib/dual_zero_safe.c).
 * So the bits are loom__ref_dual_gemm's.
 *
 * Why it beats the tile kernels (dual_gemm.cu): those test presence per
 * (8 rows, k) and pay a fixed cost per k-tile (offsets, copies, barriers);
 * here a warp's k walk skips every k where none of its 4 lines has a
 * non-zero (at 80% sparsity 59% of k are visited, against 83% for 8
 * rows), needs no barrier, and reads E through L1 with 16-byte loads.
 *
 * A block is 8 warps; a warp owns 4 lines and 32*CPL columns of E (f32:
 * CPL 8, 256 columns; f64: CPL 4, 128).  Blocks of the same column strip
 * are consecutive so the strips being read at one time stay in L2.  Each
 * warp skips ahead to its own next k-tile, with no barrier.  (Taking the
 * k-tiles together, a barrier each, so that E's rows come from L2 once per
 * block, was 5-15% slower on an H200: bench/results/dual/README.md.)
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_gemm_pipe_kernel.cuh" /* walk_k */

#include <climits>
#include <cuda_runtime.h>

namespace {

using namespace loom_dual;

constexpr int LW_WARPS = 8, LW_THREADS = LW_WARPS * 32, LW_R = 4;

/* OR over the warp: one instruction from sm_80 on. */
__device__ __forceinline__ uint32_t warp_or(uint32_t x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_or_sync(FULL, x);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x |= __shfl_xor_sync(FULL, x, o);
    return x;
#endif
}

/* E(k, x) = the dense side at (k, x), +0 where absent or in the padding.
 * One block per tile (kt, ct) of E; warp w writes lines 4w..4w+3. */
template <typename real>
__global__ void __launch_bounds__(LW_THREADS)
    lines_expand_kernel(const dual_cuda_bitmap S, const int64_t sc, const int64_t sk,
                        const int64_t cross_tiles, const int64_t ct_pad, real *__restrict__ E,
                        const int64_t lde)
{
    const int64_t kt = blockIdx.x / ct_pad, ct = blockIdx.x % ct_pad;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t t = ct * sc + kt * sk;
    const bool present = ct < cross_tiles && tile_bit(S.tile_bits, t);
    const uint32_t m = present ? S.masks[t * T + lane] : 0u; /* lane = line */
    const int o = warp_exclusive_scan(__popc(m), lane);
    const real *vals = static_cast<const real *>(S.values) +
                       (present ? tile_start(S.tile_offsets, S.tile_stride, t) : 0);
#pragma unroll
    for (int j = 0; j < T / LW_WARPS; j++) {
        const int kk = warp * (T / LW_WARPS) + j;
        const uint32_t mk = __shfl_sync(FULL, m, kk);
        const int ok = __shfl_sync(FULL, o, kk);
        real v = real(0);
        if (mk >> lane & 1u)
            v = vals[ok + __popc(mk & ((1u << lane) - 1u))];
        E[(kt * T + kk) * lde + ct * T + lane] = v;
    }
}

template <typename real, int CPL> struct lines_ab {
    real a[LW_R], b[CPL];
};

template <typename real, int CPL>
__global__ void __launch_bounds__(LW_THREADS, 2)
    lines_walk_kernel(const int64_t *__restrict__ start, const int32_t *__restrict__ kidx,
                      const real *__restrict__ val, const int64_t lines,
                      const real *__restrict__ E, const int64_t lde, const int64_t cross,
                      const real alpha, const real beta, real *__restrict__ C,
                      const int64_t s_line, const int64_t s_cross, const int64_t line_groups)
{
    using vec = typename vec16<real>::type;
    constexpr int V = 16 / (int)sizeof(real), VECS = CPL / V, BN = 32 * CPL, R = LW_R;
    constexpr int AV = R / V; /* 16-byte loads per k of the warp's A slice */
    constexpr bool TWO = sizeof(real) == 4;
    static_assert(CPL % V == 0 && R % V == 0, "shape");
    __shared__ __align__(16) real sA[LW_WARPS][T][R]; /* sA[w][kk][r]: line r's value at k0+kk */

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t by = blockIdx.x % line_groups, bx = blockIdx.x / line_groups;
    const int64_t line0 = (by * LW_WARPS + warp) * R;
    real(*sa)[R] = sA[warp];

    /* Each line's cursor, and a window of its next 32 entries (lane e:
     * entry cur + e; INT_MAX past the end). */
    int64_t cur[R], end[R];
    int32_t wk[R];
    real wv[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t l = line0 + r;
        cur[r] = l < lines ? start[l] : 0;
        end[r] = l < lines ? start[l + 1] : 0;
        const int64_t e = cur[r] + lane;
        wk[r] = e < end[r] ? kidx[e] : INT_MAX;
        wv[r] = e < end[r] ? val[e] : real(0);
    }
    real acc[R][CPL];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int c = 0; c < CPL; c++)
            acc[r][c] = real(0);

    const real *e_lane = E + bx * BN + lane * V;
    while (true) {
        /* On to the next k-tile where one of the 4 lines has an entry. */
        int32_t next = INT_MAX;
#pragma unroll
        for (int r = 0; r < R; r++)
            next = min(next, __shfl_sync(FULL, wk[r], 0));
        if (next == INT_MAX)
            break;
        const int64_t kt = next / T;
        const int32_t k0 = (int32_t)(kt * T);
        /* This k-tile's slice of the 4 lines, dense in shared memory. */
#pragma unroll
        for (int h = 0; h < AV; h++)
            reinterpret_cast<vec *>(sa[lane])[h] = vec{};
        __syncwarp();
        uint32_t todo = 0;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const bool in = wk[r] - k0 < T; /* wk >= k0: earlier k are consumed */
            if (in)
                sa[wk[r] - k0][r] = wv[r];
            todo |= warp_or(in ? 1u << (wk[r] - k0) : 0u);
            const int n = __popc(__ballot_sync(FULL, in));
            if (n) { /* the window moves on; its loads overlap the walk */
                cur[r] += n;
                const int64_t e = cur[r] + lane;
                wk[r] = e < end[r] ? kidx[e] : INT_MAX;
                wv[r] = e < end[r] ? val[e] : real(0);
            }
        }
        __syncwarp();
        const real *e_tile = e_lane + (int64_t)k0 * lde;
        walk_k<TWO>(
            todo,
            [&](int kk) {
                lines_ab<real, CPL> x;
                const vec *pa = reinterpret_cast<const vec *>(sa[kk]);
#pragma unroll
                for (int h = 0; h < AV; h++)
                    unpack(pa[h], &x.a[h * V]);
                const real *pe = e_tile + (int64_t)kk * lde;
#pragma unroll
                for (int q = 0; q < VECS; q++)
                    unpack(__ldg(reinterpret_cast<const vec *>(pe + q * T * V)), &x.b[q * V]);
                return x;
            },
            [&](int, const lines_ab<real, CPL> &x) {
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int c = 0; c < CPL; c++)
                        acc[r][c] = fma_rn(x.a[r], x.b[c], acc[r][c]);
            });
        __syncwarp(); /* the slice is read before the next one is written */
    }

    /* The finish, once per element, as the reference writes it. */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t l = line0 + r;
        if (l >= lines)
            continue;
#pragma unroll
        for (int q = 0; q < VECS; q++)
#pragma unroll
            for (int e = 0; e < V; e++) {
                const int64_t x = bx * BN + q * T * V + lane * V + e;
                if (x >= cross)
                    continue;
                finish_element(C + l * s_line + x * s_cross, acc[r][q * V + e], alpha, beta);
            }
    }
}

template <typename real, int CPL>
int launch(const dual_cuda_lines *L, const dual_cuda_bitmap *S, real alpha, real beta, real *C,
           int64_t ldc, int col_major, cudaStream_t stream)
{
    const dual_cuda_side &d = L->dense;
    const int64_t ct_pad = L->lde / T;
    const int64_t tiles = d.k_tiles * ct_pad;
    if (tiles > 0)
        lines_expand_kernel<real><<<(unsigned)tiles, LW_THREADS, 0, stream>>>(
            *S, d.sc, d.sk, d.cross_tiles, ct_pad, static_cast<real *>(L->E), L->lde);
    const int64_t lines = L->list.rows;
    const int64_t line_groups = (lines + LW_WARPS * LW_R - 1) / (LW_WARPS * LW_R);
    const int64_t col_blocks = L->lde / (32 * CPL);
    /* C(i, j) at i*ldc + j (row-major) or i + j*ldc; a line is i (rows) or j. */
    const int64_t s_i = col_major ? 1 : ldc, s_j = col_major ? ldc : 1;
    const int64_t s_line = L->rows ? s_i : s_j, s_cross = L->rows ? s_j : s_i;
    const unsigned grid = (unsigned)(line_groups * col_blocks);
    const int64_t *st = L->list.row_offsets;
    const int32_t *ki = L->list.col_indices;
    const real *va = static_cast<const real *>(L->list.values), *E = static_cast<const real *>(L->E);
    if (grid)
        lines_walk_kernel<real, CPL><<<grid, LW_THREADS, 0, stream>>>(
            st, ki, va, lines, E, L->lde, d.cross, alpha, beta, C, s_line, s_cross, line_groups);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int64_t loom__dual_cuda_lines_width(int f64)
{
    return f64 ? 32 * 4 : 32 * 8;
}

extern "C" int loom__dual_cuda_gemm_lines(const dual_cuda_lines *L, const dual_cuda_bitmap *S,
                                          int f64, double alpha, double beta, void *C, int64_t ldc,
                                          int col_major, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (f64)
        return launch<double, 4>(L, S, alpha, beta, static_cast<double *>(C), ldc, col_major, s);
    return launch<float, 8>(L, S, (float)alpha, (float)beta, static_cast<float *>(C), ldc,
                            col_major, s);
}
