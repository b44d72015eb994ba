/*
 * tc_tiles.cu - the tensor-core SpMM's "tiles" form (reference/tc_model.h,
 * steps 1, 2'-3', 4, 5), for fp16/bf16 values and operands with k = 16.
 *
 * The rows form (tc_spmm.cu) gathers k rows of X for every k non-zeros of
 * every row: nnz * N values through L2.  On a large layer of moderate
 * sparsity (0.9-0.95) that traffic is what bounds it, while the same X rows
 * are gathered again and again by neighbouring rows.  This form stages each
 * 64 x 64 slab of X in shared memory once for 64 rows and runs the MMAs
 * densely: A's non-zeros of the slab's 64 columns are placed in a zeroed
 * 64 x 64 tile, and every warp does 16 rows x 32 columns with
 * mma.sync.m16n8k16 (A from the tile, B = X from the slab, both through
 * ldmatrix).  The MMA work is dense, M*K*N, which tensor cores afford at
 * these sparsities; the X traffic is K*N per 64 rows instead of per
 * non-zero.
 *
 * Block: 256 threads, one part (a range of K's slices) of one 64 x 64 tile
 * of Y; grid = row tiles x column tiles x parts.  Warp w does the MMAs of
 * rows 16(w%4).. and columns 32(w/4)..; each A row gets four lanes of one
 * warp to place its non-zeros, which travel in registers a step ahead (the
 * slice index says where a step's run starts and ends).  One __syncthreads
 * per step of 64 columns orders the X slab (3 stages, cp.async) and the A
 * tile (2 buffers: tile st+1 is placed while other warps still multiply
 * tile st).  With one part a block finishes its outputs (step 5) itself;
 * with several, each part writes its fp32 sums to a workspace and the last
 * block of the tile to arrive (a counter per tile) adds them by the halving
 * tree in part order - the same order whichever block is last - then
 * finishes.
 *
 * Where the time goes (H100, DLMC layers at N = 256, bench/results/tc/):
 * about 4 us of launch, then a kernel whose blocks are too few to hide
 * latency (one or two per multiprocessor): Nsight Compute put a 64 x 256
 * layer's kernel at 9.7 us of its own, about 2000 instructions a warp at
 * 6.5 cycles each, split between the steps and the straight-line prologue
 * and epilogue.  So instructions are time here: whole steps take a path
 * with no run-time tests, and whole tiles store two outputs at a time.
 * Neither a cluster epilogue (thread-block clusters, the parts' sums in
 * distributed shared memory) nor placing a part's whole A up front paid
 * on the layers with 8 parts (run-2026-11-26-h100-cluster/).
 *
 * Inf and NaN in X: a slab value that is not finite is replaced by 0 in
 * shared memory (it must not meet the zeros of the A tile: 0 * Inf = NaN
 * would reach every row of the tile), and the part says so when it counts
 * in; the block that finishes such a tile adds each output's products with
 * non-finite X values after the tree, in the row's order (step 3' of
 * tc_model.h).
 *
 * Needs sm_80 or later (cp.async, ldmatrix, bf16 mma.sync).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdl.cuh"
#include "tc_mma.cuh"
#include "tc_spmm.h"

/* The tiles form's device state, made by loomcu_tc_tiles_reserve (it needs
 * K, N and the column indices, which loomcu_tc_plan_create does not see;
 * a loom plan calls it when it is made) or else at the first call: each row's first
 * non-zero of every slice (so the scatter knows its loads a step ahead,
 * instead of reading until it passes the slice: 4 bytes per row and 16
 * columns of K), the workspace of the parts' sums, and a counter per tile
 * (zero between calls: the last block resets it). */
struct loomcu_tc_tiles {
    int64_t k;            /* K the slice index was made for (0: none yet) */
    int32_t *slice_off;   /* device: m x (S + 1), offsets from the row's start */
    float *work;          /* device: P x m x n fp32 (P > 1) */
    size_t work_elems;
    int *count;           /* device: one per tile */
    size_t tiles;
};

namespace loomtt {

constexpr int BM = 64, BN = 64, BK = 64; /* tile rows, tile columns, K columns per step */
constexpr int SPS = BK / 16;             /* slices per step */
constexpr int KS = 16;                   /* the MMA depth: one slice */
constexpr int WARPS = 8, THREADS = WARPS * 32;
constexpr int XSTAGES = 3;
constexpr int LPR = THREADS / BM;        /* lanes per A row in the scatter (4) */
constexpr int XS = BN + 8; /* X slab row stride in halves (144 bytes: ldmatrix without bank conflicts) */
constexpr int AS = BK + 8; /* A tile row stride in halves (144 bytes: the same) */
constexpr int X_ELEMS = BK * XS, A_ELEMS = BM * AS;

struct params {
    int64_t m, k, n;
    const int64_t *__restrict__ ro;
    const int32_t *__restrict__ ci;
    const uint16_t *__restrict__ val;
    const uint16_t *__restrict__ x;
    int64_t ldx;
    uint16_t *__restrict__ y;
    int64_t ldy;
    float alpha, beta;
    int vec;                  /* X 16-byte aligned rows: cp.async */
    int pairs;                /* Y 4-byte aligned rows: two outputs a store */
    int parts;                /* P */
    int64_t slices_per_part;  /* G */
    int64_t slices;           /* S */
    const int32_t *__restrict__ slice_off;  /* m x (S + 1) */
    int64_t ws;                              /* the workspace's row stride: whole tiles */
    float *__restrict__ work;
    int *__restrict__ count; /* per tile: parts in (low half), parts that met Inf/NaN (high) */
};

template <int VT> __device__ __forceinline__ float to_f32(uint16_t h)
{
    if constexpr (VT == TC_VAL_F16)
        return __half2float(__ushort_as_half(h));
    else
        return __bfloat162float(__ushort_as_bfloat16(h));
}
template <int VT> __device__ __forceinline__ uint16_t from_f32(float v)
{
    if constexpr (VT == TC_VAL_F16)
        return __half_as_ushort(__float2half_rn(v));
    else
        return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}
/* The exponent field of the 16-bit type, all ones: Inf or NaN. */
template <int VT> __device__ __forceinline__ uint32_t exp_mask()
{
    return VT == TC_VAL_F16 ? 0x7c00u : 0x7f80u;
}
template <int VT> __device__ __forceinline__ bool nonfinite(uint16_t h)
{
    return (h & exp_mask<VT>()) == exp_mask<VT>();
}

using loomtc::count_in;
using loomtc::cp_async16;
using loomtc::cp_async_commit;
using loomtc::cp_async_wait;
using loomtc::smem_addr;

/* Start copying step st's slab of X (rows k0 .. k0 + 16*nsl - 1, columns
 * n0 .. n0+63) into xs: a 16-byte chunk per thread; rows past K or past
 * the step's slices, and columns past N, are zeros. */
__device__ __forceinline__ void load_slab(const params &p, int64_t k0, int nsl, int64_t n0, uint16_t *xs)
{
    static_assert(BK * BN / 8 == 2 * THREADS, "two chunks of the slab per thread");
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int c = threadIdx.x + THREADS * i, kr = c >> 3, ch = c & 7;
        const int64_t krow = k0 + kr, col = n0 + 8 * ch;
        uint16_t *dst = xs + kr * XS + 8 * ch;
        if (kr >= KS * nsl || krow >= p.k || col >= p.n) {
            *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
            continue;
        }
        const uint16_t *src = p.x + krow * p.ldx + col;
        if (p.vec && col + 8 <= p.n) {
            cp_async16<false>(dst, src); /* L2 only: each block reads a slab once */
        } else {
            uint32_t w[4];
#pragma unroll
            for (int h = 0; h < 4; h++) {
                const uint32_t lo = col + 2 * h < p.n ? src[2 * h] : 0u;
                const uint32_t hi = col + 2 * h + 1 < p.n ? src[2 * h + 1] : 0u;
                w[h] = lo | (hi << 16);
            }
            *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
}

/* The common slab: 64 rows inside K, this thread's two 16-byte chunks inside
 * N and aligned - rows kr and kr + 32 of the slab, from src and src + 32
 * rows of X (ldx32 = 32 * ldx). */
__device__ __forceinline__ void load_slab_fast(const uint16_t *src, int64_t ldx32, uint16_t *dst)
{
    cp_async16<false>(dst, src);
    cp_async16<false>(dst + 32 * XS, src + ldx32);
}

/* After the copies landed: replace this thread's non-finite slab values by
 * zeros; true when there were any.  The test is three operations a word: a
 * half's exponent field plus its lowest bit carries into the sign bit only
 * when the field is all ones. */
template <int VT> __device__ __forceinline__ bool clean_slab(uint16_t *xs)
{
    const uint32_t m2 = exp_mask<VT>() | (exp_mask<VT>() << 16);
    const uint32_t low = (exp_mask<VT>() & (0u - exp_mask<VT>())) * 0x10001u; /* the field's lowest bit, twice */
    bool any = false;
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int c = threadIdx.x + THREADS * i, kr = c >> 3, ch = c & 7;
        uint4 *q = reinterpret_cast<uint4 *>(xs + kr * XS + 8 * ch);
        const uint4 v = *q;
        uint32_t w[4] = {v.x, v.y, v.z, v.w};
        uint32_t hit = 0;
#pragma unroll
        for (int h = 0; h < 4; h++)
            hit |= ((w[h] & m2) + low) & 0x80008000u;
        if (hit) { /* rare: zero the non-finite halves */
#pragma unroll
            for (int h = 0; h < 4; h++) {
                const uint32_t b = ((w[h] & m2) + low) & 0x80008000u;
                w[h] &= ~((b >> 15) * 0xffffu); /* bit 15 -> low half, bit 31 -> high half */
            }
            *q = make_uint4(w[0], w[1], w[2], w[3]);
            any = true;
        }
    }
    return any;
}

/* The scatter: each A row's LPR lanes take the row's non-zeros of a step
 * (a contiguous run, known from the slice index), lane li those at li,
 * li + LPR, ...  A step's first EPL per lane travel in registers, loaded a
 * step ahead; a longer run (over LPR * EPL non-zeros: a density above 1/4
 * or 1/8 of the step's 64 columns) reads the rest when it is written,
 * TAIL loads in flight at a time, so that the step waits one round trip
 * for it, not one a non-zero. */
constexpr int TAIL = 4;
struct run {
    int32_t b, e; /* the step's non-zeros: [rs + b, rs + e), rs the row's start */
};
template <int EPL> struct held {
    int32_t col[EPL];
    uint16_t v[EPL];
};
__device__ __forceinline__ run step_run(const int32_t *off, int64_t s0, int nsl)
{
    run r;
    r.b = __ldg(off + s0);
    r.e = __ldg(off + s0 + nsl);
    return r;
}
template <int EPL>
__device__ __forceinline__ void hold(const params &p, int64_t rs, const run &r, int li, held<EPL> &h)
{
#pragma unroll
    for (int i = 0; i < EPL; i++) {
        const int32_t e = r.b + li + LPR * i;
        h.col[i] = e < r.e ? __ldg(p.ci + rs + e) : -1;
        h.v[i] = e < r.e ? __ldg(p.val + rs + e) : 0;
    }
}
/* Write the held non-zeros (and the run's rest) into the row's row arow of
 * the zeroed A tile, whose first column is k0. */
template <int EPL>
__device__ __forceinline__ void place(const params &p, int64_t rs, const run &r, int li, const held<EPL> &h,
                                      int64_t k0, uint16_t *arow)
{
#pragma unroll
    for (int i = 0; i < EPL; i++)
        if (h.col[i] >= 0)
            arow[h.col[i] - k0] = h.v[i];
    for (int32_t e = r.b + li + LPR * EPL; e < r.e; e += LPR * TAIL) {
        int32_t c[TAIL];
        uint16_t v[TAIL];
#pragma unroll
        for (int u = 0; u < TAIL; u++) {
            const int32_t eu = e + LPR * u;
            c[u] = eu < r.e ? __ldg(p.ci + rs + eu) : -1;
            v[u] = eu < r.e ? __ldg(p.val + rs + eu) : 0;
        }
#pragma unroll
        for (int u = 0; u < TAIL; u++)
            if (c[u] >= 0)
                arow[c[u] - k0] = v[u];
    }
}

/* The MMAs of one step: nsl slices of 16 columns, this warp's 16 rows (wr)
 * by its 32 columns (wc: 4 MMA tiles of 8, those inside N).  AHEAD reads
 * slice s+1's A and first B fragments while slice s multiplies: about 100
 * registers (2 blocks per multiprocessor) against 64 (4), and 6-10% faster
 * where the grid does not need the 4.  Same MMAs in the same order either
 * way, so the same bits. */
template <int VT, bool AHEAD, bool FULL>
__device__ __forceinline__ void step_mma(const uint16_t *as, const uint16_t *xs, int nsl_, int ntiles_, int wr,
                                         int wc, int lane, float (&acc)[4][4])
{
    constexpr int PREC = VT == TC_VAL_F16 ? TC_PREC_F16 : TC_PREC_BF16;
    /* FULL: a whole step inside K and a whole tile inside N, so no test below
     * is left at run time (a third of the step's instructions otherwise) */
    const int nsl = FULL ? SPS : nsl_, ntiles = FULL ? 8 : ntiles_;
    const int mi = lane >> 3, j = lane & 7;
    const int t0 = 4 * wc; /* the warp's first MMA tile of the block's 8 */
    if (t0 >= ntiles)
        return;
    /* per lane, slice 0's addresses (A: row-major 16 x 16, matrices rows 0-7 |
     * 8-15 by k 0-7 | 8-15; B: the X slab's k rows 0-7 | 8-15 by the pair of MMA
     * tiles' columns, transposed on the way); slice s adds 16s columns of A and
     * 16s rows of X, the second pair of tiles 16 columns */
    const uint32_t a_at = smem_addr(as + (16 * wr + j + ((mi & 1) ? 8 : 0)) * AS + ((mi & 2) ? 8 : 0));
    const uint32_t b_at = smem_addr(xs + (j + ((mi & 1) ? 8 : 0)) * XS + 8 * t0 + ((mi & 2) ? 8 : 0));
    uint32_t a[2][4], b[2][4];
    auto load = [&](int s, int q) {
        loomtc::ldsm_x4(a_at + 2 * 16 * s, a[q]);
        loomtc::ldsm_x4_trans(b_at + 2 * 16 * s * XS, b[q]);
    };
    auto multiply = [&](int s, int q) {
        const uint32_t b0[2] = {b[q][0], b[q][1]}, b1[2] = {b[q][2], b[q][3]};
        loomtc::mma<PREC, 16>::run(acc[0], a[q], b0);
        if (t0 + 1 < ntiles)
            loomtc::mma<PREC, 16>::run(acc[1], a[q], b1);
        if (t0 + 2 < ntiles) {
            uint32_t c[4];
            loomtc::ldsm_x4_trans(b_at + 2 * (16 * s * XS + 16), c);
            const uint32_t c0[2] = {c[0], c[1]}, c1[2] = {c[2], c[3]};
            loomtc::mma<PREC, 16>::run(acc[2], a[q], c0);
            if (t0 + 3 < ntiles)
                loomtc::mma<PREC, 16>::run(acc[3], a[q], c1);
        }
    };
    if constexpr (AHEAD) {
        load(0, 0);
#pragma unroll
        for (int s = 0; s < SPS; s++) {
            if (s >= nsl)
                break;
            if (s + 1 < nsl)
                load(s + 1, (s & 1) ^ 1);
            multiply(s, s & 1);
        }
    } else {
        for (int s = 0; s < nsl; s++) {
            load(s, 0);
            multiply(s, 0);
        }
    }
}

/* Step 3''s tail for one output: the row's products with non-finite X values,
 * in the row's order, in fp32. */
template <int VT> __device__ float add_nonfinite(const params &p, int64_t row, int64_t col, float acc)
{
    for (int64_t e = p.ro[row]; e < p.ro[row + 1]; e++) {
        const uint16_t xh = p.x[(int64_t)p.ci[e] * p.ldx + col];
        if (nonfinite<VT>(xh))
            acc = __fadd_rn(acc, __fmul_rn(to_f32<VT>(p.val[e]), to_f32<VT>(xh)));
    }
    return acc;
}

/* Step 5, as tc_model.c finish(): an output from its sum and Y's old value
 * (read only where beta is not 0). */
template <int VT> __device__ __forceinline__ uint16_t finished(const params &p, float acc, const uint16_t *y)
{
    return from_f32<VT>(p.beta == 0.0f ? __fmul_rn(p.alpha, acc)
                                       : __fmaf_rn(p.alpha, acc, __fmul_rn(p.beta, to_f32<VT>(*y))));
}
template <int VT> __device__ __forceinline__ void finish(const params &p, int64_t row, int64_t col, float acc)
{
    uint16_t *y = p.y + row * p.ldy + col;
    *y = finished<VT>(p, acc, y);
}

/* finish() of two neighbouring outputs of one row, whose pair of halves is
 * 4-byte aligned (params.pairs), in one store. */
template <int VT> __device__ __forceinline__ void finish_pair(const params &p, uint16_t *y, float acc0, float acc1)
{
    const uint32_t pair = (uint32_t)finished<VT>(p, acc0, y) | ((uint32_t)finished<VT>(p, acc1, y + 1) << 16);
    *reinterpret_cast<uint32_t *>(y) = pair;
}

/* PIPE: step_mma reads fragments a slice ahead, 2 blocks per
 * multiprocessor; else 4 (64 registers; the 46 KB of shared memory allow 4). */
template <int VT, bool PIPE> __global__ void __launch_bounds__(THREADS, PIPE ? 2 : 4) tiles_kernel(params p)
{
    __shared__ __align__(16) uint16_t xs[XSTAGES * X_ELEMS];
    __shared__ __align__(16) uint16_t as[2 * A_ELEMS];
    __shared__ int last;

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wr = warp & 3, wc = warp >> 2; /* MMA rows 16wr.., columns 32wc.. of the tile */
    const int64_t row0 = (int64_t)blockIdx.x * BM, n0 = (int64_t)blockIdx.y * BN;
    const int part = blockIdx.z;
    const int64_t s_begin = part * p.slices_per_part;
    const int64_t s_end = s_begin + p.slices_per_part < p.slices ? s_begin + p.slices_per_part : p.slices;
    const int64_t nslices = s_end > s_begin ? s_end - s_begin : 0;
    const int steps = (int)((nslices + SPS - 1) / SPS);
    const int ntiles = p.n - n0 >= BN ? 8 : (int)((p.n - n0 + 7) / 8);

    /* The next call's blocks may be placed now, at any K (unlike the rows
     * form's kernels, tc_spmm.cu): the tiles form ran 1.05x faster with it
     * than in session 47, 1.03x where K > 512, while the peers' times moved
     * 0.3% (H200, bench/results/tc/run-2026-11-30-h200-s48).  This one
     * waits here (pdl.cuh). */
    start_after_previous(true);

    /* this lane's scatter row (LPR lanes of one warp per row) */
    const int arow_i = tid / LPR, li = tid % LPR;
    const int64_t srow = row0 + arow_i;
    const bool has_row = srow < p.m;
    const int64_t rs = has_row ? p.ro[srow] : 0;
    const int32_t *off = p.slice_off + (has_row ? srow : 0) * (p.slices + 1);
    /* this lane's share of its A row, for the zeroing */
    auto zero_row = [&](uint16_t *buf) {
        uint4 *z = reinterpret_cast<uint4 *>(buf + arow_i * AS + (BK / LPR) * li);
        z[0] = z[1] = make_uint4(0, 0, 0, 0);
    };
    static_assert(BK / LPR == 16, "a lane zeroes two 16-byte chunks of its row");

    auto step_k0 = [&](int st) { return (s_begin + SPS * (int64_t)st) * KS; };
    auto step_nsl = [&](int st) { return nslices - SPS * st >= SPS ? SPS : (int)(nslices - SPS * st); };
    auto run_of = [&](int st) {
        run r = {0, 0};
        if (has_row && st < steps)
            r = step_run(off, s_begin + SPS * (int64_t)st, step_nsl(st));
        return r;
    };
    /* this thread's slab chunks (load_slab's c = tid and tid + 256): rows kr
     * and kr + 32, 8 columns from n0 + 8 ch; the common step takes the fast
     * path, the others (a part's last step short of 64 rows, K's or N's end,
     * X unaligned) the general one */
    const int kr = tid >> 3, ch = tid & 7;
    static_assert(THREADS == 256 && BK == 64 && BN == 64, "two chunks a thread, rows kr and kr + 32");
    const bool fast_cols = p.vec && n0 + 8 * ch + 8 <= p.n;
    const uint16_t *xsrc = p.x + (s_begin * KS + kr) * p.ldx + n0 + 8 * ch; /* step 0's row kr */
    const int64_t ldx32 = 32 * p.ldx, ldx64 = 64 * p.ldx;
    auto issue_slab = [&](int st) {
        uint16_t *dst = xs + (st % XSTAGES) * X_ELEMS;
        if (fast_cols && step_nsl(st) == SPS && step_k0(st) + BK <= p.k)
            load_slab_fast(xsrc + st * ldx64, ldx32, dst + kr * XS + 8 * ch);
        else
            load_slab(p, step_k0(st), step_nsl(st), n0, dst);
    };
#pragma unroll
    for (int i = 0; i < XSTAGES - 1; i++) {
        if (i < steps)
            issue_slab(i);
        cp_async_commit();
    }

    float acc[4][4];
#pragma unroll
    for (int t = 0; t < 4; t++)
        acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
    bool flagged = false;

    /* A tile 0 now; step 1's non-zeros into registers, step 2's run known.
     * The runs of steps 0-2 are read in one round trip and the non-zeros of
     * steps 0 and 1 in the next, so step 1's are not a round trip behind. */
    constexpr int EPL = PIPE ? 4 : 2; /* non-zeros a lane carries a step ahead (registers allowing) */
    const run r0 = run_of(0);
    run r_next = run_of(1), r_after = run_of(2);
    held<EPL> h0, h;
    hold(p, rs, r0, li, h0);
    hold(p, rs, r_next, li, h);
    zero_row(as);
    __syncwarp();
    place(p, rs, r0, li, h0, step_k0(0), as + arow_i * AS);
    for (int st = 0; st < steps; st++) {
        const int nsl = step_nsl(st);
        uint16_t *xcur = xs + (st % XSTAGES) * X_ELEMS;
        cp_async_wait<XSTAGES - 2>();
        flagged |= clean_slab<VT>(xcur);
        /* slab st is whole and A tile st placed; every warp is past step st-1 */
        __syncthreads();
        if (st + XSTAGES - 1 < steps)
            issue_slab(st + XSTAGES - 1);
        cp_async_commit();
        if (nsl == SPS && ntiles == 8)
            step_mma<VT, PIPE, true>(as + (st & 1) * A_ELEMS, xcur, nsl, ntiles, wr, wc, lane, acc);
        else
            step_mma<VT, PIPE, false>(as + (st & 1) * A_ELEMS, xcur, nsl, ntiles, wr, wc, lane, acc);
        if (st + 1 < steps) {
            /* A tile st+1 goes where tile st-1 was: every warp is past its MMAs */
            uint16_t *anext = as + ((st + 1) & 1) * A_ELEMS;
            zero_row(anext);
            __syncwarp(); /* the row's lanes are one warp: zeros before any lane's writes */
            place(p, rs, r_next, li, h, step_k0(st + 1), anext + arow_i * AS);
            r_next = r_after;
            hold(p, rs, r_next, li, h); /* step st+2, in flight while step st+1 runs */
            r_after = run_of(st + 3);
        }
    }
    cp_async_wait<0>();

    /* Fragment of D: rows g, g+8 of the warp's 16, columns 2q, 2q+1 of MMA tile t. */
    const int g = lane >> 2, q = lane & 3;
    const bool any = __syncthreads_or(flagged);
    if (p.parts == 1 && !any && p.pairs && row0 + BM <= p.m && n0 + BN <= p.n) {
        /* the common tile: two neighbouring outputs a store, no bounds */
        uint16_t *y0 = p.y + (row0 + 16 * wr + g) * p.ldy + n0 + 32 * wc + 2 * q;
#pragma unroll
        for (int t = 0; t < 4; t++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                finish_pair<VT>(p, y0 + 8 * h * p.ldy + 8 * t, acc[t][2 * h], acc[t][2 * h + 1]);
        return;
    }
    if (p.parts == 1) {
#pragma unroll
        for (int t = 0; t < 4; t++)
#pragma unroll
            for (int h = 0; h < 4; h++) {
                const int64_t row = row0 + 16 * wr + g + ((h & 2) ? 8 : 0);
                const int64_t col = n0 + 32 * wc + 8 * t + 2 * q + (h & 1);
                if (row < p.m && col < p.n)
                    finish<VT>(p, row, col, any ? add_nonfinite<VT>(p, row, col, acc[t][h]) : acc[t][h]);
            }
        return;
    }

    /* several parts: this part's sums to the workspace (whole tiles, row stride
     * p.ws), then the tile's last block adds them */
    float *wp = p.work + (size_t)part * p.m * p.ws;
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t row = row0 + 16 * wr + g + 8 * h;
            const int64_t col = n0 + 32 * wc + 8 * t + 2 * q;
            if (row < p.m)
                __stcg(reinterpret_cast<float2 *>(wp + row * p.ws + col), make_float2(acc[t][2 * h], acc[t][2 * h + 1]));
        }
    const size_t tile = (size_t)blockIdx.x * gridDim.y + blockIdx.y;
    /* The block's sums are in; one thread counts the block in with a
     * release-acquire add at GPU scope (cumulative: it publishes what the
     * barrier showed it), so the last block sees every part's sums.  The
     * count's high half counts the parts that met a non-finite X value. */
    __syncthreads();
    if (tid == 0) {
        const int mine = 1 + (any ? 1 << 16 : 0);
        const int before = count_in(p.count + tile, mine);
        last = (before & 0xffff) == p.parts - 1 ? 1 + ((before + mine) >> 16 != 0) : 0;
    }
    __syncthreads();
    if (!last)
        return;
    const bool tile_flagged = last == 2;
    for (int idx = tid; idx < BM * BN / 4; idx += THREADS) {
        const int64_t row = row0 + idx / (BN / 4), col = n0 + 4 * (idx % (BN / 4));
        if (row >= p.m || col >= p.n)
            continue;
        const float *w = p.work + row * p.ws + col;
        const size_t part_stride = (size_t)p.m * p.ws;
        float4 v[TC_PARTS_MAX];
#pragma unroll
        for (int l = 0; l < TC_PARTS_MAX; l++)
            v[l] = l < p.parts ? __ldcg(reinterpret_cast<const float4 *>(w + l * part_stride)) : make_float4(0, 0, 0, 0);
        /* the halving tree of tc_model.h step 4 (unrolled: v stays in registers) */
#pragma unroll
        for (int s = TC_PARTS_MAX / 2; s >= 1; s /= 2)
            if (s < p.parts)
#pragma unroll
                for (int l = 0; l < s; l++) {
                    v[l].x = __fadd_rn(v[l].x, v[l + s].x);
                    v[l].y = __fadd_rn(v[l].y, v[l + s].y);
                    v[l].z = __fadd_rn(v[l].z, v[l + s].z);
                    v[l].w = __fadd_rn(v[l].w, v[l + s].w);
                }
        if (!tile_flagged && p.pairs && col + 4 <= p.n) { /* the common case: two stores of two */
            uint16_t *y = p.y + row * p.ldy + col;
            finish_pair<VT>(p, y, v[0].x, v[0].y);
            finish_pair<VT>(p, y + 2, v[0].z, v[0].w);
            continue;
        }
        const float sum[4] = {v[0].x, v[0].y, v[0].z, v[0].w};
#pragma unroll
        for (int e = 0; e < 4; e++)
            if (col + e < p.n)
                finish<VT>(p, row, col + e, tile_flagged ? add_nonfinite<VT>(p, row, col + e, sum[e]) : sum[e]);
    }
    if (tid == 0)
        p.count[tile] = 0;
}

/* The slice index: row r's first non-zero of slice s (columns >= 16s), as an
 * offset from the row's start, for s = 0 .. S; one thread walks one row. */
__global__ void slice_index_kernel(const int64_t *__restrict__ ro, const int32_t *__restrict__ ci, int64_t m,
                                   int64_t slices, int32_t *__restrict__ out)
{
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    const int64_t b = ro[row], len = ro[row + 1] - b;
    int32_t *o = out + row * (slices + 1);
    int64_t j = 0;
    for (int64_t s = 0; s <= slices; s++) {
        while (j < len && ci[b + j] < s * KS)
            j++;
        o[s] = (int32_t)j;
    }
}

} // namespace loomtt

extern "C" int loomcu_tc_tiles_supported(tc_value vt, const tc_config *cfg)
{
    return cfg->form == TC_FORM_TILES && cfg->k == 16 &&
           ((vt == TC_VAL_F16 && cfg->precision == TC_PREC_F16) ||
            (vt == TC_VAL_BF16 && cfg->precision == TC_PREC_BF16));
}

extern "C" struct loomcu_tc_tiles *loomcu_tc_tiles_create(void)
{
    return (struct loomcu_tc_tiles *)calloc(1, sizeof(struct loomcu_tc_tiles));
}

extern "C" void loomcu_tc_tiles_destroy(struct loomcu_tc_tiles *t)
{
    if (!t)
        return;
    cudaFree(t->slice_off);
    cudaFree(t->work);
    cudaFree(t->count);
    free(t);
}

/* What the state holds for an m x k matrix at N = n: the slice index's
 * entries, the workspace's floats and the counters (both 0 with one part). */
struct tiles_sizes {
    int parts;
    int64_t slices_per_part, slices, ws;
    size_t index_elems, work_elems, tiles;
};
static tiles_sizes sizes_of(int64_t m, int64_t k, int64_t n)
{
    using namespace loomtt;
    tiles_sizes z;
    z.parts = tc_tile_parts(m, k, KS, &z.slices_per_part);
    z.slices = (k + KS - 1) / KS;
    const int64_t row_tiles = (m + BM - 1) / BM, col_tiles = (n + BN - 1) / BN;
    z.ws = col_tiles * BN;
    z.index_elems = (size_t)(m > 0 ? m : 1) * (size_t)(z.slices + 1);
    z.work_elems = z.parts > 1 ? (size_t)z.parts * (size_t)m * (size_t)z.ws : 0;
    z.tiles = z.parts > 1 ? (size_t)(row_tiles * col_tiles) : 0;
    return z;
}

extern "C" size_t loomcu_tc_tiles_state_bytes(int64_t m, int64_t k, int64_t n)
{
    const tiles_sizes z = sizes_of(m, k, n);
    return sizeof(int32_t) * z.index_elems + sizeof(float) * z.work_elems + sizeof(int) * z.tiles;
}

/* The device state for this call's K and N: made once, grown when N grows. */
static cudaError_t tiles_state(struct loomcu_tc_tiles *t, const loomcu_tc_problem *p, const tiles_sizes &z,
                               cudaStream_t st)
{
    cudaError_t e = cudaSuccess;
    if (t->k != p->k) {
        cudaFree(t->slice_off);
        t->slice_off = NULL;
        t->k = 0;
        if ((e = cudaMalloc((void **)&t->slice_off, sizeof(int32_t) * z.index_elems)) != cudaSuccess)
            return e;
        const int64_t blocks = (p->m + 255) / 256;
        loomtt::slice_index_kernel<<<(unsigned)blocks, 256, 0, st>>>(p->row_offsets, p->col_indices, p->m, z.slices,
                                                                      t->slice_off);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return e;
        t->k = p->k;
    }
    if (z.work_elems > t->work_elems) {
        cudaFree(t->work);
        t->work = NULL;
        t->work_elems = 0;
        if ((e = cudaMalloc((void **)&t->work, sizeof(float) * z.work_elems)) != cudaSuccess)
            return e;
        t->work_elems = z.work_elems;
    }
    if (z.tiles > t->tiles) {
        cudaFree(t->count);
        t->count = NULL;
        t->tiles = 0;
        if ((e = cudaMalloc((void **)&t->count, sizeof(int) * z.tiles)) != cudaSuccess ||
            (e = cudaMemsetAsync(t->count, 0, sizeof(int) * z.tiles, st)) != cudaSuccess)
            return e;
        t->tiles = z.tiles;
    }
    return e;
}

extern "C" cudaError_t loomcu_tc_tiles_reserve(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                               cudaStream_t stream)
{
    if (!plan->tiles || p->n > LOOMCU_TC_TILES_MAX_N)
        return cudaErrorInvalidValue;
    return tiles_state(plan->tiles, p, sizes_of(p->m, p->k, p->n), stream);
}

extern "C" cudaError_t loomcu_tc_tiles_spmm(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                            cudaStream_t stream, int path)
{
    using namespace loomtt;
    if (!loomcu_tc_tiles_supported(p->vt, &plan->cfg) || !plan->tiles)
        return cudaErrorInvalidValue;
    const int64_t row_tiles = (p->m + BM - 1) / BM, col_tiles = (p->n + BN - 1) / BN;
    if (p->n > LOOMCU_TC_TILES_MAX_N || row_tiles > INT32_MAX)
        return cudaErrorInvalidValue;
    const tiles_sizes z = sizes_of(p->m, p->k, p->n);
    const int parts = z.parts;
    /* made by loomcu_tc_tiles_reserve when a loom plan is made; here for a
     * first call without it (the kernels' tests and benchmark) */
    cudaError_t e = tiles_state(plan->tiles, p, z, stream);
    if (e != cudaSuccess)
        return e;
    params pr;
    memset(&pr, 0, sizeof pr);
    pr.m = p->m;
    pr.k = p->k;
    pr.n = p->n;
    pr.ro = p->row_offsets;
    pr.ci = p->col_indices;
    pr.val = (const uint16_t *)p->values;
    pr.x = (const uint16_t *)p->x;
    pr.ldx = p->ldx;
    pr.y = (uint16_t *)p->y;
    pr.ldy = p->ldy;
    pr.alpha = p->alpha;
    pr.beta = p->beta;
    pr.vec = ((uintptr_t)p->x % 16 == 0) && (p->ldx % 8 == 0);
    pr.pairs = ((uintptr_t)p->y % 4 == 0) && (p->ldy % 2 == 0);
    pr.parts = parts;
    pr.slices_per_part = z.slices_per_part;
    pr.slices = z.slices;
    pr.slice_off = plan->tiles->slice_off;
    pr.ws = z.ws;
    pr.work = plan->tiles->work;
    pr.count = plan->tiles->count;
    const dim3 grid((unsigned)row_tiles, (unsigned)col_tiles, (unsigned)parts);
    /* The pipelined kernel, unless the grid fits the GPU at 4 blocks per
     * multiprocessor but not at 2 (then one wave of the other beats two). */
    const int64_t blocks = row_tiles * col_tiles * parts;
    int dev = 0, sms = 0;
    if ((e = loomcu_tc_device_sms(&dev, &sms)) != cudaSuccess)
        return e;
    const bool pipe = path == LOOMCU_TC_PATH_TILES_PIPELINED ||
                      (path != LOOMCU_TC_PATH_TILES_PLAIN && !(blocks > 2 * (int64_t)sms && blocks <= 4 * (int64_t)sms));
    void (*k)(params) = p->vt == TC_VAL_F16 ? (pipe ? tiles_kernel<TC_VAL_F16, true> : tiles_kernel<TC_VAL_F16, false>)
                                            : (pipe ? tiles_kernel<TC_VAL_BF16, true> : tiles_kernel<TC_VAL_BF16, false>);
    return launch_after_previous(k, grid, dim3(THREADS), 0, stream, pr);
}
