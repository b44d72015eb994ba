/*
 * dual_gemm_pipe_kernel.cuh - the dual-side GEMM kernel with the operand
 * tiles copied asynchronously one k-tile ahead (device code only; the
 * launch is in dual_gemm.cu).  Must match loom__ref_dual_gemm
 * (reference/dual_gemm.h) bit for bit, as dual_gemm_kernel.cuh does: per
 * element, fused multiply-adds from +0 in increasing k where both A(i,k)
 * and B(k,j) are non-zero (absent elements enter as +0 only where
 * dual_zero_safe.c proves that changes no bit, else EXACT tests both
 * masks), then beta == 0 ? alpha*acc : fma(alpha, acc, beta*c).
 *
 * Why a second kernel: the first GPU run (bench/results/dual/) showed the
 * first kernel spending most of its time waiting: each k-tile's masks and
 * values came from global memory in four dependent rounds while the
 * block's warps stood at a barrier, and its walk fed 4 rows per 16-byte
 * shared load, which left no headroom for the shared-memory pipe.  Here:
 *   - a block of 8 warps owns 64 x BN of C (BN = 32*CPL), a warp 8 rows;
 *   - the block first lists the k-tiles where some A tile and some B tile
 *     of its panel are present (tile bitmaps, 256 k-tiles at a time);
 *   - while the warps compute k-tile i from the dense shared slices, the
 *     masks and the condensed values of k-tile i+1 travel with cp.async
 *     into a staging area, and the offsets of i+1 load during the
 *     expansion of i, so global latency hides behind arithmetic;
 *   - the expansion (condensed -> dense slices, zeros where absent) reads
 *     the staging area, not global memory;
 *   - the walk visits k in increasing order over the union of the warp's
 *     8 row masks, loads each lane's CPL b values once per k, and gives
 *     them to every row present at that k (a warp-uniform test per row:
 *     no multiply-adds for absent A elements, none divergent); when 6 or
 *     more of the 8 rows are present it does all 8 (the zero-safe path).
 */
#ifndef LOOM_DUAL_GEMM_PIPE_KERNEL_CUH
#define LOOM_DUAL_GEMM_PIPE_KERNEL_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"

namespace loom_dual {

constexpr int PIPE_WARPS = 8, PIPE_THREADS = PIPE_WARPS * 32;
constexpr int PIPE_ROWS = 8; /* rows of C per warp */
constexpr int PIPE_LIST = 256; /* k-tiles listed at a time (one per thread) */

constexpr size_t align16(size_t n) { return (n + 15) / 16 * 16; }

/* The dynamic shared memory of one block, in bytes from the start. */
template <typename real, int CPL> struct pipe_layout {
    static constexpr int G = 2, NT = CPL, BM = 32 * G, BN = 32 * CPL, TILES = G + NT;
    static constexpr size_t a = 0;                                       /* real [32][BM] */
    static constexpr size_t b = a + sizeof(real) * 32 * BM;              /* real [32][BN] */
    static constexpr size_t stage = b + sizeof(real) * 32 * BN;          /* real [TILES][1024] */
    static constexpr size_t masks = stage + sizeof(real) * TILES * 1024; /* u32 [2][TILES][32] */
    static constexpr size_t start = masks + 4 * 2 * TILES * 32;          /* i64 [TILES] */
    static constexpr size_t count = align16(start + 8 * TILES);          /* i32 [TILES] */
    static constexpr size_t list = align16(count + 4 * TILES);           /* i32 [PIPE_LIST] */
    static constexpr size_t warp_n = list + 4 * PIPE_LIST;               /* i32 [PIPE_WARPS] */
    static constexpr size_t bytes = align16(warp_n + 4 * PIPE_WARPS);
};

template <typename real, int CPL> struct pipe_ab {
    uint32_t arow; /* which of the warp's 8 rows have A(row, k) != 0 */
    real a[PIPE_ROWS], b[CPL];
};

/* Visit the set bits of `bits` in increasing order (apply(k), lowest k
 * first: the summation order); with TWO, two k at a time so the second
 * k's shared loads are in flight during the first's multiply-adds. */
template <bool TWO, typename Load, typename Apply>
__device__ __forceinline__ void walk_k(uint32_t bits, Load load, Apply apply)
{
    uint32_t rev = __brev(bits);
    while (rev) {
        const int k0 = __clz(rev);
        rev ^= 0x80000000u >> k0;
        const auto x0 = load(k0);
        if (TWO && rev) {
            const int k1 = __clz(rev);
            rev ^= 0x80000000u >> k1;
            const auto x1 = load(k1);
            apply(k0, x0);
            apply(k1, x1);
        } else {
            apply(k0, x0);
        }
    }
}

/* The block's panel: tile u of k-tile tk is A's tile (ti0+u, tk) for
 * u < 2 (its row groups), else B's tile (tk, tj0+u-2) (its column tiles).
 * Fields are copied and picked one by one: a reference to a kernel
 * parameter, or a run-time choice between two structs, would put them in
 * local memory. */
struct pipe_side {
    const uint64_t *bits;
    const uint32_t *masks;
    const int64_t *offsets;
    const int32_t *lines;
    const void *values;
    int64_t tile_rows, tile_cols, stride;
};
struct pipe_panel {
    pipe_side a, b;
    int64_t ti0, tj0;
};

__device__ __forceinline__ pipe_side side_of(const dual_cuda_bitmap &M)
{
    return {M.tile_bits, M.masks,     M.tile_offsets, M.line_offsets,
            M.values,    M.tile_rows, M.tile_cols,    M.tile_stride};
}

__device__ __forceinline__ int64_t panel_tile(const pipe_panel &P, int u, int64_t tk)
{
    return u < 2 ? (P.ti0 + u) * P.a.tile_cols + tk : tk * P.b.tile_cols + P.tj0 + (u - 2);
}

__device__ __forceinline__ bool panel_present(const pipe_panel &P, int u, int64_t tk)
{
    if (u < 2)
        return P.ti0 + u < P.a.tile_rows && tile_bit(P.a.bits, panel_tile(P, u, tk));
    return P.tj0 + (u - 2) < P.b.tile_cols && tile_bit(P.b.bits, panel_tile(P, u, tk));
}

/* Where tile u's values start and how many (0: absent). */
__device__ __forceinline__ void panel_plan(const pipe_panel &P, int u, int64_t tk, int64_t *start,
                                           int *count)
{
    int64_t s0 = 0;
    int n = 0;
    if (panel_present(P, u, tk)) {
        const bool on_a = u < 2;
        const int64_t t = panel_tile(P, u, tk);
        const int64_t stride = on_a ? P.a.stride : P.b.stride;
        if (stride) {
            const int32_t *lines = on_a ? P.a.lines : P.b.lines;
            const uint32_t *masks = on_a ? P.a.masks : P.b.masks;
            s0 = t * stride;
            n = lines[t * T + 31] + __popc(masks[t * T + 31]);
        } else {
            const int64_t *offsets = on_a ? P.a.offsets : P.b.offsets;
            s0 = offsets[t];
            n = (int)(offsets[t + 1] - s0);
        }
    }
    start[u] = s0;
    count[u] = n;
}

/* Every thread: start the copies of k-tile tk's masks (into mask buffer
 * `masks`) and values (into the staging area), as planned. */
template <typename real, int TILES, int THREADS>
__device__ __forceinline__ void panel_fetch(const pipe_panel &P, int64_t tk, uint32_t *masks,
                                            real *stage, const int64_t *start, const int *count)
{
    for (int i = threadIdx.x; i < TILES * 8; i += THREADS) {
        const int u = i >> 3, part = i & 7;
        const bool p = count[u] > 0;
        const uint32_t *src = (u < 2 ? P.a.masks : P.b.masks) + (p ? panel_tile(P, u, tk) * T : 0);
        copy_async16_or_zero(masks + u * T + part * 4, src + part * 4, p);
    }
#pragma unroll
    for (int u = 0; u < TILES; u++) {
        const int n = count[u];
        const real *src = static_cast<const real *>(u < 2 ? P.a.values : P.b.values) + start[u];
        for (int e = threadIdx.x; e < n; e += THREADS)
            copy_async<sizeof(real)>(stage + u * 1024 + e, src + e);
    }
    copy_async_commit();
}

/* CPL: columns of C per lane (BN = 32*CPL, the block spans CPL tiles of B);
 * EXACT: test both mask bits of every product. */
template <typename real, int CPL, bool EXACT>
__global__ void __launch_bounds__(PIPE_THREADS, 2)
    dual_gemm_pipe_kernel(const dual_cuda_bitmap A, const dual_cuda_bitmap B, const real alpha,
                          const real beta, real *__restrict__ C, const int64_t ldc,
                          const int col_major, const int64_t col_blocks)
{
    using L = pipe_layout<real, CPL>;
    using vec = typename vec16<real>::type;
    constexpr int G = L::G, NT = L::NT, BM = L::BM, BN = L::BN, TILES = L::TILES, R = PIPE_ROWS;
    constexpr int V = 16 / (int)sizeof(real), VECS = CPL / V;
    constexpr int LINE_GROUPS = PIPE_WARPS / NT; /* warps sharing one B tile's expansion */
    constexpr bool TWO = sizeof(real) == 4;      /* f64: one k at a time (registers) */
    static_assert(CPL % V == 0 && PIPE_WARPS % NT == 0 && R % V == 0 && PIPE_THREADS == PIPE_LIST,
                  "tile shape");

    LOOM_DUAL_DYNAMIC_SMEM(smem);
    real *sA = reinterpret_cast<real *>(smem + L::a);
    real *sB = reinterpret_cast<real *>(smem + L::b);
    real *stage = reinterpret_cast<real *>(smem + L::stage);
    uint32_t *smask = reinterpret_cast<uint32_t *>(smem + L::masks);
    int64_t *fstart = reinterpret_cast<int64_t *>(smem + L::start);
    int *fcount = reinterpret_cast<int *>(smem + L::count);
    int *slist = reinterpret_cast<int *>(smem + L::list);
    int *swarp = reinterpret_cast<int *>(smem + L::warp_n);

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t below = (1u << lane) - 1u;
    const int64_t bx = blockIdx.x % col_blocks, by = blockIdx.x / col_blocks;
    const int64_t tj0 = bx * NT, ti0 = by * G;
    const int gw = warp >> 2, rsh = R * (warp & 3); /* the warp's rows: A tile gw, bits rsh.. */
    const pipe_panel P = {side_of(A), side_of(B), ti0, tj0};
    static_assert(G == 2, "the panel has two row groups");

    real acc[R][CPL];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int c = 0; c < CPL; c++)
            acc[r][c] = real(0);

    int cur = 0; /* the mask buffer of the k-tile being computed */
    for (int64_t chunk = 0; chunk < A.tile_cols; chunk += PIPE_LIST) {
        /* The k-tiles of this chunk with both sides present, in order. */
        __syncthreads(); /* the previous chunk is done with the list and staging */
        const int64_t mine_tk = chunk + threadIdx.x;
        bool p = false;
        if (mine_tk < A.tile_cols) {
            bool a = false, b = false;
#pragma unroll
            for (int u = 0; u < G; u++)
                a |= panel_present(P, u, mine_tk);
            if (a)
                for (int u = G; u < TILES; u++)
                    b |= panel_present(P, u, mine_tk);
            p = a && b;
        }
        const uint32_t bal = __ballot_sync(FULL, p);
        if (lane == 0)
            swarp[warp] = __popc(bal);
        __syncthreads();
        int base = 0, total = 0;
#pragma unroll
        for (int w = 0; w < PIPE_WARPS; w++) {
            base += w < warp ? swarp[w] : 0;
            total += swarp[w];
        }
        if (p)
            slist[base + __popc(bal & below)] = threadIdx.x;
        __syncthreads();
        if (total == 0)
            continue;
        if (threadIdx.x < TILES)
            panel_plan(P, threadIdx.x, chunk + slist[0], fstart, fcount);
        __syncthreads();
        panel_fetch<real, TILES, PIPE_THREADS>(P, chunk + slist[0], smask + cur * TILES * T, stage,
                                               fstart, fcount);

        for (int i = 0; i < total; i++) {
            copy_async_wait_all();
            __syncthreads(); /* B1: k-tile i staged; everyone done with i-1 */
            const uint32_t *mcur = smask + cur * TILES * T;
            uint32_t ma[G], mbor = 0, maor = 0;
#pragma unroll
            for (int g = 0; g < G; g++) {
                ma[g] = mcur[g * T + lane]; /* lane = k: bit = row */
                maor |= ma[g];
            }
#pragma unroll
            for (int t = 0; t < NT; t++)
                mbor |= mcur[(G + t) * T + lane];
            const uint32_t active = __ballot_sync(FULL, maor != 0 && mbor != 0);
            /* The next k-tile's offsets load while this one expands. */
            if (i + 1 < total && threadIdx.x < TILES)
                panel_plan(P, threadIdx.x, chunk + slist[i + 1], fstart, fcount);
            if (active) {
                /* Expand A: warp w takes lines k = w, w+8, ...; lane = row. */
                int oa[G];
#pragma unroll
                for (int g = 0; g < G; g++)
                    oa[g] = warp_exclusive_scan(__popc(ma[g]), lane);
#pragma unroll
                for (int j = 0; j < T / PIPE_WARPS; j++) {
                    const int kk = warp + j * PIPE_WARPS;
                    if (!(active >> kk & 1u))
                        continue;
#pragma unroll
                    for (int g = 0; g < G; g++) {
                        const uint32_t m = __shfl_sync(FULL, ma[g], kk);
                        const int o = __shfl_sync(FULL, oa[g], kk);
                        real v = real(0);
                        if (m >> lane & 1u)
                            v = stage[g * 1024 + o + __popc(m & below)];
                        sA[kk * BM + g * T + lane] = v;
                    }
                }
                /* Expand B: tile t = warp % NT, lines k = warp / NT + j*LINE_GROUPS. */
                const int t = warp % NT;
                const uint32_t mb = mcur[(G + t) * T + lane];
                const int ob = warp_exclusive_scan(__popc(mb), lane);
#pragma unroll 8
                for (int j = 0; j < T / LINE_GROUPS; j++) {
                    const int kk = warp / NT + j * LINE_GROUPS;
                    if (!(active >> kk & 1u))
                        continue;
                    const uint32_t m = __shfl_sync(FULL, mb, kk);
                    const int o = __shfl_sync(FULL, ob, kk);
                    real v = real(0);
                    if (m >> lane & 1u)
                        v = stage[(G + t) * 1024 + o + __popc(m & below)];
                    sB[kk * BN + t * T + lane] = v;
                }
            }
            __syncthreads(); /* B2: slices ready; staging and the plan free */
            if (i + 1 < total)
                panel_fetch<real, TILES, PIPE_THREADS>(P, chunk + slist[i + 1],
                                                       smask + (cur ^ 1) * TILES * T, stage,
                                                       fstart, fcount);
            if (active) {
                /* The walk: k increasing over the union of the warp's 8 rows. */
                const uint32_t mine = (gw ? ma[1] : ma[0]) >> rsh & ((1u << R) - 1u);
                const uint32_t todo = __ballot_sync(FULL, mine != 0) & active;
                const real *a0 = sA + gw * T + rsh;
                const real *b0 = sB + lane * V;
                walk_k<TWO>(
                    todo,
                    [&](int kk) {
                        pipe_ab<real, CPL> x;
                        x.arow = __shfl_sync(FULL, mine, kk);
                        const vec *pa = reinterpret_cast<const vec *>(a0 + kk * BM);
#pragma unroll
                        for (int h = 0; h < R / V; h++)
                            unpack(pa[h], &x.a[h * V]);
#pragma unroll
                        for (int q = 0; q < VECS; q++)
                            unpack(*reinterpret_cast<const vec *>(b0 + kk * BN + q * T * V),
                                   &x.b[q * V]);
                        return x;
                    },
                    [&](int kk, const pipe_ab<real, CPL> &x) {
                        if (!EXACT && __popc(x.arow) >= 6) {
                            /* Absent rows enter as +0: the zero-safe path. */
#pragma unroll
                            for (int r = 0; r < R; r++)
#pragma unroll
                                for (int c = 0; c < CPL; c++)
                                    acc[r][c] = fma_rn(x.a[r], x.b[c], acc[r][c]);
                            return;
                        }
                        uint32_t bcol[VECS];
#pragma unroll
                        for (int q = 0; q < VECS; q++) {
                            bcol[q] = ~0u;
                            if (EXACT) {
                                const int col0 = q * T * V + lane * V;
                                bcol[q] = mcur[(G + col0 / T) * T + kk] >> (col0 % T);
                            }
                        }
#pragma unroll
                        for (int r = 0; r < R; r++) {
                            if (!(x.arow >> r & 1u))
                                continue; /* warp-uniform */
#pragma unroll
                            for (int q = 0; q < VECS; q++)
#pragma unroll
                                for (int e = 0; e < V; e++)
                                    if (!EXACT || (bcol[q] >> e & 1u))
                                        acc[r][q * V + e] =
                                            fma_rn(x.a[r], x.b[q * V + e], acc[r][q * V + e]);
                        }
                    });
            }
            cur ^= 1;
        }
    }

    /* The finish, once per element, as the reference writes it. */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t i = (ti0 + gw) * T + rsh + r;
        if (i >= A.rows)
            continue;
#pragma unroll
        for (int q = 0; q < VECS; q++)
#pragma unroll
            for (int e = 0; e < V; e++) {
                const int64_t j = bx * BN + q * T * V + lane * V + e;
                if (j >= B.cols)
                    continue;
                finish_element(C + (col_major ? i + j * ldc : i * ldc + j), acc[r][q * V + e],
                               alpha, beta);
            }
    }
}

} // namespace loom_dual

#endif
