/*
 * dual_gemm_kernel.cuh - the basic dual-side GEMM kernel (device code
 * only; dual_gemm.cu launches it with LOOM_DUAL_CUDA_KERNEL=basic and
 * explains the contract).  Must match loom__ref_dual_gemm
 * (reference/dual_gemm.h) bit for bit.
 *
 * A 256-thread block owns 64x256, 32x256 or 32x128 of C; each warp owns 4
 * rows of each 32-row group and the 32 lanes share them, lane l owning CPL
 * columns (l*V .. l*V+V-1 in each 32*V column slice, V = 16 bytes /
 * sizeof(real), for conflict-free 16-byte shared loads).  Per k-tile it
 * reads the tile bits, then the masks (barrier), then the condensed values
 * into dense shared slices sA[k][row], sB[k][col] (barrier), then each
 * warp walks k in increasing order over the union of its 4 rows' masks
 * (one ballot transposes A's column masks), or row by row where that is
 * cheaper, every lane doing 4 x CPL (or CPL) fused multiply-adds.
 */
#ifndef LOOM_DUAL_GEMM_KERNEL_CUH
#define LOOM_DUAL_GEMM_KERNEL_CUH

#include "dual_cuda.h"
#include "dual_common.cuh"

namespace loom_dual {

constexpr int WARPS = 8, THREADS = WARPS * 32;
constexpr int ROWS = 4; /* rows of C per warp in each 32-row group */

/* What one k of a walk needs from shared memory. */
template <typename real, int CPL> struct ab_union {
    real a[ROWS], b[CPL];
};
template <typename real, int CPL> struct ab_row {
    real a, b[CPL];
};

/* Visit the set bits of `bits` in increasing order (apply(k) for k = the
 * lowest first: the summation order), two at a time so that the second
 * k's shared loads are in flight during the first's multiply-adds.  The
 * bits are reversed once so that the next k is one count of leading zeros. */
template <typename Load, typename Apply>
__device__ __forceinline__ void walk_bits(uint32_t bits, Load load, Apply apply)
{
    uint32_t rev = __brev(bits);
    while (rev) {
        const int k0 = __clz(rev);
        rev ^= 0x80000000u >> k0;
        const auto x0 = load(k0);
        if (rev) {
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

/* GROUPS: 32-row groups of C per block (BM = 32*GROUPS); CPL: columns per
 * lane (BN = 32*CPL, so the block spans CPL tiles of B); EXACT: test both
 * mask bits of every product. */
template <typename real, int GROUPS, int CPL, bool EXACT>
__global__ void __launch_bounds__(THREADS, 2)
    dual_gemm_kernel(const dual_cuda_bitmap A, const dual_cuda_bitmap B, const real alpha,
                     const real beta, real *__restrict__ C, const int64_t ldc, const int col_major,
                     const int64_t col_blocks, const int walk)
{
    constexpr int V = 16 / (int)sizeof(real); /* elements per 16-byte load */
    constexpr int VECS = CPL / V;
    constexpr int NT = CPL;       /* B tiles across the block */
    constexpr int BN = T * CPL;   /* columns of C per block */
    constexpr int BM = T * GROUPS;
    constexpr int LINE_GROUPS = WARPS / NT; /* warps sharing one B tile's expansion */
    static_assert(CPL % V == 0 && WARPS % NT == 0 && ROWS % V == 0, "tile shape");
    using vec = typename vec16<real>::type;

    __shared__ __align__(16) real sA[T * BM]; /* [k][row], zeros where absent */
    __shared__ __align__(16) real sB[T * BN]; /* [k][col], zeros where absent */
    __shared__ uint32_t sMB[2][NT][T];        /* B masks (line k, bit = column) */
    __shared__ int32_t sOB[2][NT][T];         /* a line's first value inside its tile */
    __shared__ int64_t sBase[2][NT];          /* a tile's first value */

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t below = (1u << lane) - 1u;
    const int64_t bx = blockIdx.x % col_blocks, by = blockIdx.x / col_blocks;
    const int64_t tj0 = bx * NT, ti0 = by * GROUPS;
    const real *__restrict__ av = static_cast<const real *>(A.values);
    const real *__restrict__ bv = static_cast<const real *>(B.values);

    real acc[GROUPS][ROWS][CPL];
#pragma unroll
    for (int g = 0; g < GROUPS; g++)
#pragma unroll
        for (int r = 0; r < ROWS; r++)
#pragma unroll
            for (int c = 0; c < CPL; c++)
                acc[g][r][c] = real(0);

    int buf = 0; /* sMB/sOB/sBase alternate at each barrier S1 */
    for (int64_t tk = 0; tk < A.tile_cols; tk++) {
        /* Tile bitmaps: skip the k-tile when either side is all absent. */
        int64_t ta[GROUPS];
        bool apres[GROUPS], any_a = false;
#pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            ta[g] = (ti0 + g) * A.tile_cols + tk;
            apres[g] = ti0 + g < A.tile_rows && tile_bit(A.tile_bits, ta[g]);
            any_a |= apres[g];
        }
        if (!any_a)
            continue;
        uint32_t bpres = 0;
#pragma unroll
        for (int t = 0; t < NT; t++)
            if (tj0 + t < B.tile_cols && tile_bit(B.tile_bits, tk * B.tile_cols + tj0 + t))
                bpres |= 1u << t;
        if (!bpres)
            continue;

        /* Phase 1: lane k holds A's column masks (bit = row) and the
         * position of each column's first value; warp t < NT stages B
         * tile t's row masks and offsets for everyone. */
        uint32_t ma[GROUPS];
        int oa[GROUPS];
        int64_t abase[GROUPS];
#pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            ma[g] = apres[g] ? A.masks[ta[g] * T + lane] : 0u;
            abase[g] = apres[g] ? tile_start(A.tile_offsets, A.tile_stride, ta[g]) : 0;
            oa[g] = warp_exclusive_scan(__popc(ma[g]), lane);
        }
        if (warp < NT) {
            const bool p = bpres >> warp & 1u;
            const int64_t tb = tk * B.tile_cols + tj0 + warp;
            const uint32_t mb = p ? B.masks[tb * T + lane] : 0u;
            sMB[buf][warp][lane] = mb;
            sOB[buf][warp][lane] = warp_exclusive_scan(__popc(mb), lane);
            if (lane == 0)
                sBase[buf][warp] = p ? tile_start(B.tile_offsets, B.tile_stride, tb) : 0;
        }
        __syncthreads(); /* S1 */

        uint32_t mbor = 0, maor = 0;
#pragma unroll
        for (int t = 0; t < NT; t++)
            mbor |= sMB[buf][t][lane];
#pragma unroll
        for (int g = 0; g < GROUPS; g++)
            maor |= ma[g];
        const uint32_t active = __ballot_sync(FULL, maor != 0 && mbor != 0);
        if (active) {
            /* Expand A: warp w takes lines k = w, w+8, ...; lane = row. */
#pragma unroll
            for (int kk = warp; kk < T; kk += WARPS) {
                if (!(active >> kk & 1u))
                    continue;
#pragma unroll
                for (int g = 0; g < GROUPS; g++) {
                    const uint32_t m = __shfl_sync(FULL, ma[g], kk);
                    const int o = __shfl_sync(FULL, oa[g], kk);
                    real v = real(0);
                    if (m >> lane & 1u)
                        v = av[abase[g] + o + __popc(m & below)];
                    sA[kk * BM + g * T + lane] = v;
                }
            }
            /* Expand B: tile t = warp % NT, lines k = warp / NT + i*LINE_GROUPS;
             * lane = column inside the tile. */
            {
                const int t = warp % NT;
                const int64_t base = sBase[buf][t];
#pragma unroll 8
                for (int kk = warp / NT; kk < T; kk += LINE_GROUPS) {
                    if (!(active >> kk & 1u))
                        continue;
                    const uint32_t m = sMB[buf][t][kk];
                    real v = real(0);
                    if (m >> lane & 1u)
                        v = bv[base + sOB[buf][t][kk] + __popc(m & below)];
                    sB[kk * BN + t * T + lane] = v;
                }
            }
            __syncthreads(); /* S2 */

            /* The walk, per 32-row group: k in increasing order. */
#pragma unroll
            for (int g = 0; g < GROUPS; g++) {
                const uint32_t mine = ma[g] >> (ROWS * warp) & ((1u << ROWS) - 1u);
                const uint32_t todo = __ballot_sync(FULL, mine != 0) & active;
                if (!todo)
                    continue;
                /* Row masks (bit k: A(row, k) != 0): the transpose of A's
                 * column masks, one ballot per row. */
                uint32_t rows[ROWS];
                int row_steps = 0;
#pragma unroll
                for (int r = 0; r < ROWS; r++) {
                    rows[r] = __ballot_sync(FULL, mine >> r & 1u) & active;
                    row_steps += __popc(rows[r]);
                }
                /* A union step costs about 1.5 issue slots per FMA (4 rows),
                 * a row step is bound by its 16-byte shared loads: take the
                 * cheaper walk for this group and k-tile (warp-uniform). */
                const bool by_rows =
                    walk == DUAL_CUDA_WALK_ROWS ||
                    (walk == DUAL_CUDA_WALK_AUTO && 2 * row_steps < 3 * __popc(todo));
                const real *a0 = &sA[g * T + ROWS * warp];
                const real *b0 = &sB[lane * V];
                const uint32_t *mb0 = &sMB[buf][0][0];
                if (!by_rows) {
                    walk_bits(
                        todo,
                        [&](int kk) {
                            ab_union<real, CPL> x;
                            const vec *pa = reinterpret_cast<const vec *>(a0 + kk * BM);
#pragma unroll
                            for (int h = 0; h < ROWS / V; h++)
                                unpack(pa[h], &x.a[h * V]);
#pragma unroll
                            for (int q = 0; q < VECS; q++)
                                unpack(*reinterpret_cast<const vec *>(b0 + kk * BN + q * T * V),
                                       &x.b[q * V]);
                            return x;
                        },
                        [&](int kk, const ab_union<real, CPL> &x) {
                            if (EXACT) {
                                const uint32_t arow = __shfl_sync(FULL, ma[g], kk) >> (ROWS * warp);
#pragma unroll
                                for (int q = 0; q < VECS; q++) {
                                    const int col0 = q * T * V + lane * V;
                                    const uint32_t bcol = mb0[(col0 / T) * T + kk] >> (col0 % T);
#pragma unroll
                                    for (int r = 0; r < ROWS; r++)
#pragma unroll
                                        for (int e = 0; e < V; e++)
                                            if ((arow >> r) & (bcol >> e) & 1u)
                                                acc[g][r][q * V + e] = fma_rn(
                                                    x.a[r], x.b[q * V + e], acc[g][r][q * V + e]);
                                }
                            } else {
#pragma unroll
                                for (int r = 0; r < ROWS; r++)
#pragma unroll
                                    for (int c = 0; c < CPL; c++)
                                        acc[g][r][c] = fma_rn(x.a[r], x.b[c], acc[g][r][c]);
                            }
                        });
                } else {
#pragma unroll
                    for (int r = 0; r < ROWS; r++)
                        walk_bits(
                            rows[r],
                            [&](int kk) {
                                ab_row<real, CPL> x;
                                x.a = a0[kk * BM + r];
#pragma unroll
                                for (int q = 0; q < VECS; q++)
                                    unpack(*reinterpret_cast<const vec *>(b0 + kk * BN + q * T * V),
                                           &x.b[q * V]);
                                return x;
                            },
                            [&](int kk, const ab_row<real, CPL> &x) {
#pragma unroll
                                for (int q = 0; q < VECS; q++) {
                                    /* A(row, k) is present: the walk visits only its bits. */
                                    uint32_t bcol = ~0u;
                                    if (EXACT) {
                                        const int col0 = q * T * V + lane * V;
                                        bcol = mb0[(col0 / T) * T + kk] >> (col0 % T);
                                    }
#pragma unroll
                                    for (int e = 0; e < V; e++)
                                        if (!EXACT || (bcol >> e & 1u))
                                            acc[g][r][q * V + e] =
                                                fma_rn(x.a, x.b[q * V + e], acc[g][r][q * V + e]);
                                }
                            });
                }
            }
        }
        buf ^= 1;
    }

    /* The finish, once per element, as the reference writes it. */
#pragma unroll
    for (int g = 0; g < GROUPS; g++)
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
            const int64_t i = (ti0 + g) * T + ROWS * warp + r;
            if (i >= A.rows)
                continue;
#pragma unroll
            for (int q = 0; q < VECS; q++)
#pragma unroll
                for (int e = 0; e < V; e++) {
                    const int64_t j = bx * BN + q * T * V + lane * V + e;
                    if (j >= B.cols)
                        continue;
                    finish_element(C + (col_major ? i + j * ldc : i * ldc + j),
                                   acc[g][r][q * V + e], alpha, beta);
                }
        }
}

} // namespace loom_dual

#endif
