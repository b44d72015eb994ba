/*
 * dual_lines.cu - the line walk of the dual-side GEMM on the GPU: the
 * sparse side in groups of R lines of C (built by the plan,
 * loom__dual_groups_build in lib/dual_lines.c: per group, the k where any
 * of its lines has a non-zero, increasing, each with the R values, +0
 * where a line has none), the other side expanded to a dense K x lde
 * matrix E in device scratch, then each C element accumulates
 *
 *     acc = +0;  for each entry (k, s[0..R)) of its group, k increasing:
 *                acc = fma(s[line], E(k, x), acc)
 *
 * Every product where both operands are non-zero is there, in increasing
 * k; every other product has a zero factor, which leaves acc's bits
 * unchanged because the plan takes this path only for zero-safe operands
 * (lib/dual_zero_safe.c).  So the bits are loom__ref_dual_gemm's.
 *
 * A block is 8 warps; a warp owns a group of 4 lines and 32*CPL columns
 * of E (f32: CPL 8, 256 columns; f64: CPL 4).  A step is one entry: its k
 * comes from a register window of the next 32 entries (one shuffle), its
 * 4 values from the window's copy in shared memory (one address: a
 * broadcast; the next window's k are loaded and its values copied by
 * cp.async while this one is walked, so no registers hold them), its E
 * row slice from 16-byte loads through L1 at k * lde bytes from the
 * lane's address (one 32 x 32 -> 64-bit multiply-add), then 4*CPL fmas.
 * f32 issues the E loads of 8 steps before their fmas (f64 2), a
 * window's tail in batches of 4, 2, 1.  On an H200, at 4096^3 and 80%
 * sparsity: 2, 4 and 8 steps took 3.19, 2.92 and 2.77 ms with the values
 * staged through registers and the address in several 64-bit steps
 * (8 spilled then); with one multiply-add for the address, 7 steps 2.49
 * and 8 (8 bytes spilled) 2.41; with the values by cp.async, 8 steps
 * 2.42 with no spill, 7 2.54 (bench/results/dual/README.md; cuBLAS sgemm
 * 2.68-2.73).  Nothing is shared between warps, so there is no
 * barrier.  Blocks of the same column strip are consecutive so the strips
 * being read at one time stay in L2.  (The previous walk merged 4 lines'
 * own lists in the kernel a k-tile at a time: 3.50 ms.)
 */
#include "dual_cuda.h"
#include "dual_common.cuh"
#include "dual_gemm_pipe_kernel.cuh" /* walk_k */

#include <climits>
#include <cuda_runtime.h>

namespace {

using namespace loom_dual;

constexpr int LW_WARPS = 8, LW_THREADS = LW_WARPS * 32;

/* apply(s, load(s)) for s = from .. n-1 in order, the loads of D steps
 * issued before their D applies: more loads in flight a warp was
 * measured faster than more warps an SM (bench/results/dual/README.md).
 * The steps left over (fewer than D) go in batches of (D+1)/2, and so on
 * down to 1, so a window's tail keeps some loads in flight too. */
template <int D, class Load, class Apply>
__device__ __forceinline__ void walk_steps(int from, int n, Load load, Apply apply)
{
    if constexpr (D <= 2) { /* fewer registers than the loop below */
        const uint32_t all = n == 32 ? ~0u : (1u << n) - 1u;
        walk_k<D == 2>(all & ~((1u << from) - 1u), load, apply);
        return;
    } else {
        int s = from;
        for (; s + D <= n; s += D) {
            decltype(load(0)) x[D];
#pragma unroll
            for (int d = 0; d < D; d++)
                x[d] = load(s + d);
#pragma unroll
            for (int d = 0; d < D; d++)
                apply(s + d, x[d]);
        }
        if (s < n)
            walk_steps<(D + 1) / 2>(s, n, load, apply);
    }
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

template <typename real, int R, int CPL> struct group_ab {
    real a[R], b[CPL];
};

template <typename real, int R, int CPL, int D, bool LATE>
__global__ void __launch_bounds__(LW_THREADS, 2)
    group_walk_kernel(const int64_t *__restrict__ start, const int32_t *__restrict__ kidx,
                      const real *__restrict__ val, const int64_t groups,
                      const real *__restrict__ E, const uint32_t lde, const int64_t lines,
                      const int64_t cross, const real alpha, const real beta,
                      real *__restrict__ C, const int64_t s_line, const int64_t s_cross,
                      const int64_t group_blocks)
{
    using vec = typename vec16<real>::type;
    constexpr int V = 16 / (int)sizeof(real), VECS = CPL / V, BN = 32 * CPL;
    constexpr int AV = R / V; /* 16-byte loads of an entry's R values */
    static_assert(CPL % V == 0 && R % V == 0, "shape");

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t by = blockIdx.x % group_blocks, bx = blockIdx.x / group_blocks;
    const int64_t g = by * LW_WARPS + warp;
    int64_t p = g < groups ? start[g] : 0;
    const int64_t end = g < groups ? start[g + 1] : 0;

    real acc[R][CPL];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int c = 0; c < CPL; c++)
            acc[r][c] = real(0);

    const char *e_lane_b = reinterpret_cast<const char *>(E + bx * BN + lane * V);
    const uint32_t lde_b = lde * (uint32_t)sizeof(real);
    const vec *va = reinterpret_cast<const vec *>(val);
    /* The window's values, entry by entry, in two buffers: the next
     * window's travel (cp.async, no registers held) while this one is
     * walked. */
    __shared__ vec sA[2][LW_WARPS][32 * AV];

    /* A window is the next 32 entries: lane e holds entry p+e's k (and
     * sA its values).  The next window's loads go out before this one's
     * walk, so they are waited for only once per 32 steps, if at all. */
    int32_t kn = 0;
    auto fetch = [&](int64_t q, int buf) {
        const bool in = q + lane < end;
        kn = in ? __ldg(kidx + q + lane) : 0;
#pragma unroll
        for (int h = 0; h < AV; h++)
            copy_async16_or_zero(&sA[buf][warp][lane * AV + h], va + (in ? (q + lane) * AV + h : 0),
                                 in);
        copy_async_commit();
    };
    fetch(p, 0);
    for (int buf = 0; p < end; p += 32, buf ^= 1) {
        const int64_t left = end - p;
        const int n = left < 32 ? (int)left : 32;
        const int32_t kw = kn;
        const vec *sa = sA[buf][warp];
        copy_async_wait_all();
        __syncwarp(); /* every lane's copies of this window have landed */
        if (p + 32 < end)
            fetch(p + 32, buf ^ 1);
        walk_steps<D>(
            0, n,
            [&](int s) {
                group_ab<real, R, CPL> x;
                if (!LATE)
#pragma unroll
                    for (int h = 0; h < AV; h++)
                        unpack(sa[s * AV + h], &x.a[h * V]); /* one address: a broadcast */
                /* k * lde bytes, one 32 x 32 -> 64-bit multiply-add with the
                 * lane's address (E is at most 2 GiB: dual_cuda_backend.c) */
                const real *pe = reinterpret_cast<const real *>(
                    e_lane_b + (uint64_t)(uint32_t)__shfl_sync(FULL, kw, s) * lde_b);
#pragma unroll
                for (int q = 0; q < VECS; q++)
                    unpack(__ldg(reinterpret_cast<const vec *>(pe + q * T * V)), &x.b[q * V]);
                return x;
            },
            [&](int s, const group_ab<real, R, CPL> &x) {
                real a[R];
#pragma unroll
                for (int r = 0; r < R; r++)
                    a[r] = x.a[r];
                if (LATE)
#pragma unroll
                    for (int h = 0; h < AV; h++)
                        unpack(sa[s * AV + h], &a[h * V]);
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int c = 0; c < CPL; c++)
                        acc[r][c] = fma_rn(a[r], x.b[c], acc[r][c]);
            });
        __syncwarp(); /* the window is read before the next one is written */
    }
    copy_async_wait_all(); /* a warp past its last group still has its empty fetch out */

    /* The finish, once per element, as the reference writes it. */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t l = g * R + r;
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

template <typename real, int R, int CPL, int D, bool LATE>
int launch(const dual_cuda_lines *L, const dual_cuda_bitmap *S, real alpha, real beta, real *C,
           int64_t ldc, int col_major, cudaStream_t stream)
{
    const dual_cuda_side &d = L->dense;
    const int64_t ct_pad = L->lde / T;
    const int64_t tiles = d.k_tiles * ct_pad;
    if (tiles > 0)
        lines_expand_kernel<real><<<(unsigned)tiles, LW_THREADS, 0, stream>>>(
            *S, d.sc, d.sk, d.cross_tiles, ct_pad, static_cast<real *>(L->E), L->lde);
    const int64_t groups = L->list.rows;
    const int64_t group_blocks = (groups + LW_WARPS - 1) / LW_WARPS;
    const int64_t col_blocks = L->lde / (32 * CPL);
    /* C(i, j) at i*ldc + j (row-major) or i + j*ldc; a line is i (rows) or j. */
    const int64_t s_i = col_major ? 1 : ldc, s_j = col_major ? ldc : 1;
    const int64_t s_line = L->rows ? s_i : s_j, s_cross = L->rows ? s_j : s_i;
    const unsigned grid = (unsigned)(group_blocks * col_blocks);
    if (grid)
        group_walk_kernel<real, R, CPL, D, LATE><<<grid, LW_THREADS, 0, stream>>>(
            L->list.row_offsets, L->list.col_indices, static_cast<const real *>(L->list.values),
            groups, static_cast<const real *>(L->E), (uint32_t)L->lde, L->lines, d.cross, alpha, beta, C,
            s_line, s_cross, group_blocks);
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
    double *Cd = static_cast<double *>(C);
    float *Cf = static_cast<float *>(C);
    const float af = (float)alpha, bf = (float)beta;
    if (f64)
        return launch<double, 4, 4, 2, false>(L, S, alpha, beta, Cd, ldc, col_major, s);
    return launch<float, 4, 8, 8, true>(L, S, af, bf, Cf, ldc, col_major, s);
}
