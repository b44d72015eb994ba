/*
 * tc_spmm.cu - tensor-core SpMM on plain CSR (TCA-SpMM).
 *
 * Must match reference/tc_model.c (tc_reference_spmm) bit for bit, given the
 * device's MMA model.  How one row becomes MMAs:
 *
 *   A k-group of the row (k non-zeros, the last group padded with zeros) and
 *   16 output columns make one mma.sync.m16n8kK:
 *     MMA "A" (16 x k, row-major) = the gathered dense rows, transposed:
 *         A[r][t] = X~(col[j0+t], c0 + r)      - from shared memory
 *     MMA "B" (k x 8)            = the row's values, the same in every column:
 *         B[t][c] = a~[j0+t]
 *     D[r][c] = C[r][c] + sum_t A[r][t] B[t][c]
 *   so every column c of D holds the 16 running dot products; each lane reads
 *   its outputs off D (all four lanes of a quad hold the same values).  One
 *   MMA therefore does 16 columns x k products of the row, with the running
 *   sum as C: exactly step 3 of tc_model.h for 16 outputs at once.
 *
 *   Warps per row ("parts", P = 1/2/4/8 as the row has 1, 2, 3-4, 5+ groups:
 *   1/2/4/8 warps for <= 8/16/32/64 non-zeros at k = 8) each take a contiguous
 *   run of groups; their sums meet in shared memory and one warp adds them by
 *   the halving tree.  Rows are binned by P at plan time; one launch runs
 *   every bin (blocks of a bin run rows of that P), and a second the long
 *   rows' segments (below).
 *
 *   Columns go in strips of 64 (4 MMA tiles of 16).  The unit of work is an
 *   "item": one group of one part for one strip - k dense rows x 64 columns
 *   gathered into a shared-memory slot (the "compressed RHS buffer"), then 4
 *   MMAs fed by ldmatrix.trans (fp16/bf16) or plain loads (fp32 storage,
 *   rounded to the MMA type as the fragment is built).
 *
 * Where the time goes, and why the kernel is shaped this way: a DLMC-sized
 * problem is a few microseconds of dependent latency (row record, column
 * indices, X rows, MMA, output), not of bandwidth.  So each warp walks a
 * sequence of items - its part of a row for every strip of a window of
 * columns, and then (when the matrix has more rows than the GPU has warps)
 * the same part of further rows - and keeps STAGES items in flight: the X
 * rows of item i+STAGES-1 are copied with cp.async (16 bytes a lane, no
 * register round trip) while item i's MMAs run.  A row's indices and values
 * are read once for all its strips.  The window width and the rows per warp
 * are chosen at launch by a cost model of the blocks' work (launch_shape),
 * with each bin's rows longest first so the heaviest blocks start first.
 *
 * A second kernel, for fp16/bf16 with K up to about 2900, keeps a strip
 * of X (64 columns; 32 past 1613 rows of K) resident in shared memory and
 * lets ldmatrix gather each group's rows from there (tc_resident_kernel,
 * below; rx_try() says when it runs: where the gathers would move more
 * than the strips' copies).  A warp runs its rows in turn, so there the
 * longest rows (of 8 parts) go first, each spread over 8 warps of a block
 * where the longest outweighs 2 warps' shares of the non-zeros (rx_spread;
 * 1.03-1.13x on the resident layers with such a row, H200,
 * bench/results/tc/run-2026-11-29-h200-s45).
 * The two give the same bits; tests run both.
 *
 * Where the time goes now (H200, DLMC): the gathers of X rows through L2
 * (nnz x N x 2 bytes, at 2-3 TB/s) for the gather kernel; for large K and
 * long rows the previous one-strip-per-block kernel was still a little
 * faster (more blocks in flight).  The resident kernel's 16 warps wait on
 * their dependent chains (33288 x 512 at 0.95: an instruction issued on
 * 54% of the cycles; stalls on fixed-latency dependences 29%, on loads
 * 23%, on shuffles and ldmatrix 14%).  Fewer instructions alone did not
 * pay (records read by shuffles from a register window: 0.97-0.99x), nor
 * did a second chunk in flight (0.94-0.95x): bench/results/tc/
 * run-2026-11-29-h200-s46.
 *
 * Each call's kernel is launched to overlap the kernel before it on the
 * stream (programmatic dependent launch, pdl.cuh: placed while that one
 * ends, waiting for it before touching memory), which takes a launch gap
 * off each of a chain of these few-microsecond products: 1.08x over the
 * 452 DLMC layers as CUDA graphs at N = 64 and 256, 1.15x in a plain loop
 * of calls (H200, bench/results/tc/run-2026-11-30-h200-s48).  The next
 * call may be placed as soon as all of this kernel's blocks have started
 * only where K <= LOOMTC_EARLY_TRIGGER_MAX_K, else as they end: the early
 * placement everywhere lost 3-8% on shapes of K 1024-4608, and the late
 * one everywhere gained only 1.05-1.06x; the rule keeps 1.08x with no
 * shape below 0.99.  Loading the first row record before the wait gained
 * nothing (1.00x).
 *
 * Long rows (more than TC_SEGMENT_GROUPS groups: 1024 non-zeros at k = 16)
 * go in segments, tc_model.h step 4: each segment is a record of its own,
 * so several blocks of 8 warps (the gather kernel; warps, the resident
 * kernel) share the row; a segment's sums go to a workspace, and the last
 * of the row's segments to count in for a strip adds them (segment_finish,
 * segments_finish).  The gather kernel runs the segments in a kernel of
 * their own on a second stream, forked from the caller's and joined back
 * (launch_bins): in one kernel with the other rows, those ran slower.
 * Measured (H200, bench/results/tc/run-2026-11-29-h200-s43, against the
 * order without segments): 1.03-1.12x in geometric mean on 9 power-law
 * and R-MAT graphs (up to 1.6x where one row dominates a small matrix,
 * down to 0.79x), 0.96-1.00x on the DLMC layers with long rows.
 *
 * Speed-only choices (strip window, rows per warp, pipeline depth, block
 * shape, vector loads, which kernel) never change the order of operations:
 * every output still sees its part's groups in order, starting from +0,
 * then the halving tree (the segments' too), then step 5.
 *
 * Needs sm_80 or later (cp.async, bf16/tf32 mma.sync).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_upload.h"
#include "pdl.cuh"
#include "tc_mma.cuh"
#include "tc_round.h"
#include "tc_spmm.h"

#ifdef LOOMTC_TUNING
/* A tuning switch's value (NULL: unset), read from the environment once per
 * call site (a lambda's static), not at every launch: a tuning build ran
 * the 4 us DLMC layers 8-18% slower than its baseline, most likely these
 * lookups' host time (session 47, bench/results/tc/run-2026-11-30-h200-s47). */
#define TUNING_ENV(name) ([] { static const char *const v_ = getenv(name); return v_; }())
#endif

/* Where K (X's rows) exceeds this, the next call's kernel is placed only as
 * this one's blocks end, not as soon as they have all started: at K of
 * 1024-4608 the early placement cost 3-8% on some DLMC shapes, while up to
 * 512 it gained most (H200, bench/results/tc/run-2026-11-30-h200-s48). */
#ifndef LOOMTC_EARLY_TRIGGER_MAX_K
#define LOOMTC_EARLY_TRIGGER_MAX_K 512
#endif

/* Shared-memory ring per warp, bytes: the pipeline depth is as many slots as
 * fit (2 to 4).  A tuning knob, not part of the arithmetic. */
#ifndef LOOMTC_RING_BYTES
#define LOOMTC_RING_BYTES 6912
#endif

/* The last shape launch_shape chose, and for what: a product of a few
 * microseconds is launched back to back, where even the model's host work
 * would show. */
struct loomcu_tc_shape {
    int64_t strips, capacity, rows, split;
};

/* The long rows' segments' device state (loomcu_tc_reserve, or the first
 * call): the workspace of their sums and the counters. */
struct loomcu_tc_segment_state {
    float *work;
    size_t work_elems;
    int *count;
    size_t counts;
    cudaStream_t side;        /* the segments' kernel runs here, beside the caller's stream */
    cudaEvent_t fork, join;   /* (made with the workspace) */
};

namespace loomtc {

constexpr int WARPS = 8; /* a block holds one row of P = 8 parts */
constexpr int THREADS = WARPS * 32;
constexpr int NS = 64;   /* columns per strip: 4 MMA tiles of 16 */

template <int VT> struct storage;
template <> struct storage<TC_VAL_F32> { typedef float T; };
template <> struct storage<TC_VAL_F16> { typedef __half T; };
template <> struct storage<TC_VAL_BF16> { typedef __nv_bfloat16 T; };

/* A slot holds the k dense rows of one item as stored (raw), so cp.async can
 * fill it; fp32 values are rounded to the MMA type when fragments are built.
 * Row strides keep the fragment reads free of bank conflicts:
 *   16-bit, ldmatrix: 72 halves (144 bytes; the 8 rows of a matrix hit 8
 *     different 16-byte bank groups);
 *   tf32: 72 floats (lanes read rows q, q+4: banks 8q + g);
 *   fp32 to fp16/bf16: 68 floats (lanes read rows 2q, 2q+1: banks 8q + g). */
template <int VT, int PREC, int KS> struct slot_shape {
    typedef typename storage<VT>::T T;
    static constexpr int EPC = 16 / (int)sizeof(T); /* elements per 16-byte chunk */
    static constexpr int CPR = NS / EPC;            /* chunks per staged row */
    static constexpr int ITER = KS * CPR / 32;      /* chunks per lane and item */
    static constexpr int STRIDE = (sizeof(T) == 2 || PREC == TC_PREC_TF32) ? NS + 8 : NS + 4;
    static constexpr int ELEMS = KS * STRIDE;
    static constexpr int BYTES = ELEMS * (int)sizeof(T);
    static constexpr int STAGES = LOOMTC_RING_BYTES / BYTES < 2   ? 2
                                  : LOOMTC_RING_BYTES / BYTES > 4 ? 4
                                                                  : LOOMTC_RING_BYTES / BYTES;
    static constexpr int RED_BYTES = 2 * WARPS * NS * (int)sizeof(float); /* double-buffered */
    static constexpr int SMEM = WARPS * STAGES * BYTES + RED_BYTES;
    /* Blocks per multiprocessor the kernel is built for (__launch_bounds__):
     * 3 (24 warps, <= 80 registers) where the ring fits 3 times in the 227 KB
     * of shared memory and a lane's chunk indices are few; else 2. */
    static constexpr int MIN_BLOCKS = (ITER <= 4 && 3 * SMEM <= 227 * 1024) ? 3 : 2;
    static_assert(KS * CPR % 32 == 0, "a slot is a whole number of chunks per lane");
    static_assert((STRIDE * sizeof(T)) % 16 == 0, "slot rows must stay 16-byte aligned");
};

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ void store_as(float *p, float v) { *p = v; }
__device__ __forceinline__ void store_as(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store_as(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

/* Step 1 of tc_model.h: round a stored value to the MMA type (RNE), as
 * tc_operand() does, returned as the operand's bits.  A value already of the
 * MMA type passes unchanged. */
template <int PREC, typename T> __device__ __forceinline__ uint32_t to_operand(T v)
{
    if constexpr (PREC == TC_PREC_TF32) {
        return __float_as_uint(tc_round_tf32(to_f32(v)));
    } else if constexpr (PREC == TC_PREC_F16) {
        if constexpr (sizeof(T) == 2)
            return __half_as_ushort(v); /* only __half storage is paired with F16 */
        else
            return __half_as_ushort(__float2half_rn(to_f32(v)));
    } else {
        if constexpr (sizeof(T) == 2)
            return __bfloat16_as_ushort(v);
        else
            return __bfloat16_as_ushort(__float2bfloat16_rn(to_f32(v)));
    }
}

/* Where the segments of long rows (tc_spmm.h) put their sums. */
struct seg_out {
    const int4 *__restrict__ segs; /* loomcu_tc_segment: row, B, first, counter */
    float *__restrict__ work;      /* one row of ws floats per segment */
    int *__restrict__ count;       /* per long row and 32 columns: segments counted in */
    int64_t ws, cstride;           /* the workspace's row stride; counters per long row, ceil(N/32) */
};

struct params {
    int64_t n;
    const int32_t *__restrict__ ci;
    const void *__restrict__ val;
    const void *__restrict__ x;
    int64_t ldx;
    void *__restrict__ y;
    int64_t ldy;
    float alpha, beta;
    int vec;           /* X rows 16-byte aligned: cp.async allowed */
    int strips;        /* ceil(n / NS) */
    int window;        /* strips per block (blockIdx.y takes the window'th part) */
    int rows_per_slot; /* rows each group of P warps walks in sequence */
    int64_t k;         /* rows of X */
    seg_out so;
};

/* X rows are staged with cp.async cached in L1 too: warps on one
 * multiprocessor gather the same X rows.  (LOOMTC_CP_CG: L2 only, for tuning
 * sessions.) */
#ifdef LOOMTC_CP_CG
constexpr bool STAGE_L1 = false;
#else
constexpr bool STAGE_L1 = true;
#endif

/* The P warps of one row meet here (named barrier 1 + slot; 0 is
 * __syncthreads, which the kernel never uses, so rows run independently). */
template <int P> __device__ __forceinline__ void row_sync(int slot)
{
    if constexpr (P == 1)
        __syncwarp();
    else
        asm volatile("bar.sync %0, %1;\n" ::"r"(1 + slot), "r"(P * 32) : "memory");
}

/* The MMA "A" fragment of tile t (columns 16t .. 16t+15 of the strip) from the
 * slot S[k][col]: A[r][kk] = S[kk][16t + r], as the MMA's operand.  PTX ISA
 * "Matrix fragments for mma.m16n8k16/k8": lane = 4g + q holds rows g, g+8
 * and columns 2q, 2q+1 (+8 for k16) (16-bit) or q, q+4 (tf32). */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void load_a(const typename storage<VT>::T *S, int t, int lane, uint32_t (&a)[4])
{
    typedef slot_shape<VT, PREC, KS> sh;
    constexpr int R = sh::STRIDE;
    const int g = lane >> 2, q = lane & 3;
    const int c = 16 * t + g;
    if constexpr (PREC == TC_PREC_TF32) {
        a[0] = to_operand<PREC>(S[q * R + c]);
        a[1] = to_operand<PREC>(S[q * R + c + 8]);
        if constexpr (KS == 8) {
            a[2] = to_operand<PREC>(S[(q + 4) * R + c]);
            a[3] = to_operand<PREC>(S[(q + 4) * R + c + 8]);
        }
    } else if constexpr (sizeof(typename sh::T) == 4) {
        /* fp32 storage, 16-bit operands: pairs (k 2q, 2q+1), low half first */
        auto pair = [&](int kk, int col) -> uint32_t {
            return to_operand<PREC>(S[kk * R + col]) | (to_operand<PREC>(S[(kk + 1) * R + col]) << 16);
        };
        a[0] = pair(2 * q, c);
        a[1] = pair(2 * q, c + 8);
        if constexpr (KS == 16) {
            a[2] = pair(2 * q + 8, c);
            a[3] = pair(2 * q + 8, c + 8);
        }
    } else if constexpr (KS == 16) {
        /* matrices 0..3: S[0..7][0..7], S[0..7][8..15], S[8..15][0..7], S[8..15][8..15]
         * of the tile, transposed on the way (.trans) */
        const int mi = lane >> 3, j = lane & 7;
        const auto *row = &S[(j + (mi >= 2 ? 8 : 0)) * R + 16 * t + ((mi & 1) ? 8 : 0)];
        ldsm_x4_trans(smem_addr(row), a);
    } else {
        const int mi = (lane >> 3) & 1, j = lane & 7;
        const auto *row = &S[j * R + 16 * t + (mi ? 8 : 0)];
        ldsm_x2_trans(smem_addr(row), a);
    }
}

/* The MMA "B" fragment: the group's values; lane 4g+q holds rows 2q, 2q+1
 * (and 2q+8, 2q+9 for k16) of column g (16-bit), or rows q, q+4 (tf32). */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void load_b(const params &p, int64_t j0, int valid, int lane, uint32_t (&b)[2])
{
    typedef typename storage<VT>::T T;
    const T *val = (const T *)p.val + j0;
    const int q = lane & 3;
    auto op = [&](int t) -> uint32_t { return t < valid ? to_operand<PREC>(val[t]) : 0u; };
    if constexpr (PREC == TC_PREC_TF32) {
        b[0] = op(q);
        b[1] = KS == 8 ? op(q + 4) : 0u;
    } else {
        b[0] = op(2 * q) | (op(2 * q + 1) << 16);
        b[1] = KS == 16 ? (op(2 * q + 8) | (op(2 * q + 9) << 16)) : 0u;
    }
}

/* Where a lane's chunks of one group come from: the X row (column index of
 * A) of each of its ITER chunks, -1 for the zero padding past the row's end.
 * Indices, not pointers: half the registers, and the pipeline state must fit
 * in 80 of them for three blocks per multiprocessor. */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void group_rows(const params &p, int64_t j0, int valid, int lane,
                                           int32_t (&src)[slot_shape<VT, PREC, KS>::ITER])
{
    typedef slot_shape<VT, PREC, KS> sh;
#pragma unroll
    for (int it = 0; it < sh::ITER; it++) {
        const int kk = (lane + 32 * it) / sh::CPR;
        src[it] = kk < valid ? __ldg(p.ci + j0 + kk) : -1;
    }
}

/* 8 fp16/bf16 of X at col (16 bytes), element by element: columns past N
 * read as zero (X not 16-byte aligned, or a chunk straddling N). */
__device__ __forceinline__ uint4 load_chunk16_sync(int64_t n, const unsigned short *s16, int64_t col)
{
    uint32_t w[4];
#pragma unroll
    for (int h = 0; h < 4; h++) {
        const uint32_t lo = col + 2 * h < n ? s16[2 * h] : 0u;
        const uint32_t hi = col + 2 * h + 1 < n ? s16[2 * h + 1] : 0u;
        w[h] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Start filling slot S with the strip at n0 of the group whose rows are src.
 * Padding rows and columns past N are zeros (padding must be +0: it meets a
 * zero value in the MMA, and stale Inf/NaN there would poison the sum).
 * Where X and its rows are 16-byte aligned (vec), so is every chunk, and
 * each goes by one cp.async whose source bytes are the elements before N (0
 * to 16; none for a padding row), the copy filling the rest with zeros: no
 * branches (testing each chunk cost about 33 instructions, a third of an
 * item's: Nsight Compute, H200).  Otherwise (X not aligned) every chunk
 * is loaded element by element. */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void stage_item(const params &p, const int32_t (&src)[slot_shape<VT, PREC, KS>::ITER],
                                           int64_t n0, int lane, typename storage<VT>::T *S)
{
    typedef slot_shape<VT, PREC, KS> sh;
    typedef typename sh::T T;
    constexpr int EPC = sh::EPC;
    if (p.vec) {
        /* a chunk with no source bytes names X itself, a valid aligned address */
#pragma unroll
        for (int it = 0; it < sh::ITER; it++) {
            const int idx = lane + 32 * it, kk = idx / sh::CPR, ch = idx % sh::CPR;
            const int64_t col = n0 + ch * EPC;
            const int64_t left = p.n - col;
            const uint32_t bytes =
                src[it] < 0 || left <= 0 ? 0u : (uint32_t)(left < EPC ? left : EPC) * (uint32_t)sizeof(T);
            const T *x = bytes ? (const T *)p.x + (int64_t)src[it] * p.ldx + col : (const T *)p.x;
            cp_async16_fill<STAGE_L1>(S + kk * sh::STRIDE + ch * EPC, x, bytes);
        }
        return;
    }
#pragma unroll
    for (int it = 0; it < sh::ITER; it++) {
        const int idx = lane + 32 * it, kk = idx / sh::CPR, ch = idx % sh::CPR;
        const int64_t col = n0 + ch * EPC;
        T *dst = S + kk * sh::STRIDE + ch * EPC;
        if (src[it] < 0 || col >= p.n) {
            *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
            continue;
        }
        const T *x = (const T *)p.x + (int64_t)src[it] * p.ldx + col;
        if constexpr (sizeof(T) == 2) {
            *reinterpret_cast<uint4 *>(dst) =
                load_chunk16_sync(p.n, reinterpret_cast<const unsigned short *>(x), col);
        } else {
            uint32_t w[4];
#pragma unroll
            for (int e = 0; e < 4; e++)
                w[e] = col + e < p.n ? __float_as_uint(x[e]) : 0u;
            *reinterpret_cast<uint4 *>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
}

/* A row record (loomcu_tc_row) read as one int4: its first non-zero. */
__device__ __forceinline__ int64_t record_start(int4 r)
{
    return (int64_t)(((uint64_t)(uint32_t)r.y << 32) | (uint32_t)r.x);
}

/* A part's MMA accumulators, T tiles of the m16n8 fragment, at +0: where
 * every part sum starts (tc_model.h). */
template <int T> __device__ __forceinline__ void zero_acc(float (&acc)[T][4])
{
#pragma unroll
    for (int t = 0; t < T; t++)
        acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
}

/* Step 5 (tc_model.c finish()) for one output. */
template <typename T> __device__ __forceinline__ void finish_store(T *y, float alpha, float beta, float v)
{
    const float y32 = (beta == 0.0f) ? __fmul_rn(alpha, v) : __fmaf_rn(alpha, v, __fmul_rn(beta, to_f32(*y)));
    store_as(y, y32);
}

/* Step 4's tree over a long row's B segment sums, w[l * ws] for l < B (one
 * output), in place in the workspace: any B, in few registers. */
__device__ __forceinline__ float segment_tree(float *w, int B, int64_t ws)
{
    float v = __ldcg(w);
    for (int s = B / 2; s >= 1; s /= 2) {
        for (int l = 1; l < s; l++)
            __stcg(w + l * ws, __fadd_rn(__ldcg(w + l * ws), __ldcg(w + (l + s) * ws)));
        v = __fadd_rn(v, __ldcg(w + s * ws)); /* l = 0 stays in a register */
    }
    return v;
}

/* The counter of the long row of segment entry e (int4: row, B, first,
 * counter) for the strip at n0: one per 32 columns, so that strips of 32
 * (resident kernel) and of 64 (gather kernel) each have their own. */
__device__ __forceinline__ int *segment_counter(const seg_out &so, int4 e, int64_t n0)
{
    return so.count + (int64_t)e.w * so.cstride + n0 / 32;
}

/* The last segment's work for one output column: the B sums' tree, then
 * step 5 into the row of Y. */
template <typename T>
__device__ __forceinline__ void segment_output(const seg_out &so, int row, int B, int first, int64_t col, T *y,
                                               int64_t ldy, float alpha, float beta)
{
    finish_store(y + (int64_t)row * ldy + col, alpha, beta, segment_tree(so.work + (int64_t)first * so.ws + col, B, so.ws));
}

/* A long row's segment, after its sums for the strip at n0 went to its
 * workspace row (-1 - code; code is the record's row, warp-uniform): the
 * warp counts the segment in (one thread, release-acquire at GPU scope,
 * after __syncwarp: cumulative over the warp's stores), and the row's last
 * segment to count in adds the B sums in segment order - the same order
 * whichever is last - and finishes the row's outputs, then resets the
 * counter for the next call.  A lane's outputs are columns n0 + c0 and
 * n0 + c0 + dc (none where !mine, and none past N). */
template <typename T>
__device__ __forceinline__ void segment_finish(const seg_out &so, int32_t code, int64_t n0, int c0, int dc, bool mine,
                                               int64_t n, T *y, int64_t ldy, float alpha, float beta, int lane)
{
    __syncwarp();
    const int4 e = __ldg(so.segs + (-1 - (int64_t)code));
    int *const counter = segment_counter(so, e, n0);
    int before = 0;
    if (lane == 0)
        before = count_in(counter, 1);
    before = __shfl_sync(0xffffffffu, before, 0);
    if (before != e.y - 1)
        return;
    __syncwarp(); /* lane 0's acquire, for every lane's loads */
    if (mine)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t col = n0 + c0 + h * dc;
            if (col < n)
                segment_output(so, e.x, e.y, e.z, col, y, ldy, alpha, beta);
        }
    if (lane == 0)
        *counter = 0;
}

/* The workspace row of a segment's sums (code as above). */
__device__ __forceinline__ float *segment_row(const seg_out &so, int32_t code)
{
    return so.work + (-1 - (int64_t)code) * so.ws;
}

/* One part of one row as a warp walks it. */
struct part_span {
    int64_t start; /* the row's first non-zero */
    int32_t row, len;
    int32_t g_begin, g_end; /* tc_row_parts(): this part's groups */
};

template <int KS, int P>
__device__ __forceinline__ part_span part_of(const loomcu_tc_row *__restrict__ recs, int ri, int part)
{
    const int4 r = __ldg(reinterpret_cast<const int4 *>(recs + ri));
    part_span s;
    s.start = record_start(r);
    s.row = r.z;
    s.len = r.w;
    const int32_t groups = (s.len + KS - 1) / KS;
    const int32_t G = (groups + P - 1) / P;
    s.g_begin = part * G < groups ? part * G : groups;
    s.g_end = (part + 1) * G < groups ? (part + 1) * G : groups;
    return s;
}

/* Rows of one bin: P warps per row, WARPS/P row slots per block; `block` is
 * the block's index within its bin, of nblk.  The P warps of a slot walk rows
 * (r * nblk + block) * RPB + slot (r < rows_per_slot: strided over the bin,
 * so with the bin's rows longest first each slot gets one of the longest,
 * one of the next, and so on) and, for each, the strips of this block's
 * window; each warp's items are its part's groups, in order, for every
 * (row, strip).  Two cursors run over that sequence: "issue" STAGES-1 items
 * ahead (cp.async into the ring), "consume" (MMAs, outputs). */
template <int VT, int PREC, int KS, int P, bool SEG>
__device__ __forceinline__ void tc_rows(const params &p, const loomcu_tc_row *__restrict__ recs, int64_t nrows,
                                        int64_t block, int64_t nblk, typename storage<VT>::T *ring, float *red)
{
    typedef slot_shape<VT, PREC, KS> sh;
    typedef typename sh::T T;
    constexpr int RPB = WARPS / P;
    constexpr int STAGES = sh::STAGES;

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, q = lane & 3;
    const int slot = warp / P, part = warp % P;
    const int64_t first = block * RPB + slot, stride = nblk * RPB;
    const int s_begin = blockIdx.y * p.window;
    const int s_end = s_begin + p.window < p.strips ? s_begin + p.window : p.strips;
    if (first >= nrows || s_begin >= s_end)
        return; /* the whole slot (all P warps) has nothing: no barrier waits for it */
    const loomcu_tc_row *const slot_recs = recs + first; /* this slot's rows: slot_recs[stride * r] */
    const int64_t rows_here = (nrows - first + stride - 1) / stride;
    const int nr = rows_here < p.rows_per_slot ? (int)rows_here : p.rows_per_slot;
    T *const my_ring = ring + warp * STAGES * sh::ELEMS;

    /* ---- the issue cursor: (row ir, strip is, group ig) */
    int ir = 0, is = s_begin;
    int32_t ig = 0, src_g = -1;
    part_span ispan;
    bool idone = false;
    int32_t src[sh::ITER];
    int islot = 0;
    /* move to the first row at or after ir whose part has groups */
    auto seek = [&]() {
        for (; ir < nr; ir++) {
            ispan = part_of<KS, P>(slot_recs, (int)(ir * stride), part);
            if (ispan.g_begin < ispan.g_end) {
                ig = ispan.g_begin;
                is = s_begin;
                src_g = -1;
                return;
            }
        }
        idone = true;
    };
    auto issue = [&]() {
        if (!idone) {
            if (ig != src_g) { /* new group: its X rows (kept for all strips) */
                const int64_t j0 = ispan.start + (int64_t)ig * KS;
                const int valid = ispan.len - ig * KS < KS ? ispan.len - ig * KS : KS;
                group_rows<VT, PREC, KS>(p, j0, valid, lane, src);
                src_g = ig;
            }
            stage_item<VT, PREC, KS>(p, src, (int64_t)is * NS, lane, my_ring + islot * sh::ELEMS);
            if (++ig == ispan.g_end) {
                ig = ispan.g_begin;
                if (++is == s_end) {
                    ir++;
                    seek();
                }
            }
        }
        cp_async_commit(); /* one group per call, empty or not: wait_group counts calls */
        islot = islot + 1 == STAGES ? 0 : islot + 1;
    };
    seek();
#pragma unroll
    for (int i = 0; i < STAGES - 1; i++)
        issue();

    /* ---- the consume cursor */
    int cslot = 0, parity = 0;
    for (int r = 0; r < nr; r++) {
        const part_span cs = part_of<KS, P>(slot_recs, (int)(r * stride), part);
        int32_t b_g = -1;
        uint32_t b[2] = {0, 0};
        for (int s = s_begin; s < s_end; s++) {
            const int64_t n0 = (int64_t)s * NS;
            float acc[4][4];
            zero_acc(acc);
            for (int32_t gi = cs.g_begin; gi < cs.g_end; gi++) {
                issue();
                cp_async_wait<STAGES - 1>(); /* this lane's copies of the item have landed */
                __syncwarp();                /* ... and every lane's */
                if (gi != b_g) {
                    const int valid = cs.len - gi * KS < KS ? cs.len - gi * KS : KS;
                    load_b<VT, PREC, KS>(p, cs.start + (int64_t)gi * KS, valid, lane, b);
                    b_g = gi;
                }
                const T *S = my_ring + cslot * sh::ELEMS;
#pragma unroll
                for (int t = 0; t < 4; t++) {
                    if (n0 + 16 * t < p.n) { /* tiles past N: nothing to compute */
                        uint32_t a[4];
                        load_a<VT, PREC, KS>(S, t, lane, a);
                        mma<PREC, KS>::run(acc[t], a, b);
                    }
                }
                __syncwarp(); /* the slot is refilled by a later issue() */
                cslot = cslot + 1 == STAGES ? 0 : cslot + 1;
            }
            /* Output column n0 + 16t + g is acc[t][0] (D row g), n0 + 16t + g + 8
             * is acc[t][2]; lane q == 0 of each quad stages them.  red is
             * double-buffered: a part writes strip s+2's sums only after the
             * barrier of strip s+1, which part 0 reaches after reading strip s. */
            float *rb = red + parity * (WARPS * NS);
            parity ^= 1;
            if (q == 0) {
#pragma unroll
                for (int t = 0; t < 4; t++) {
                    rb[warp * NS + 16 * t + g] = acc[t][0];
                    rb[warp * NS + 16 * t + g + 8] = acc[t][2];
                }
            }
            row_sync<P>(slot);
            if (part == 0) {
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int cc = 2 * lane + h;
                    const int64_t col = n0 + cc;
                    if (col < p.n) {
                        float v[P][1];
#pragma unroll
                        for (int l = 0; l < P; l++)
                            v[l][0] = rb[(slot * P + l) * NS + cc];
                        halving_tree(v);
                        if constexpr (SEG) /* a segment's sums: to its workspace row */
                            __stcg(segment_row(p.so, cs.row) + col, v[0][0]);
                        else /* step 5 */
                            finish_store((T *)p.y + (int64_t)cs.row * p.ldy + col, p.alpha, p.beta, v[0][0]);
                    }
                }
            }
        }
    }
}

/* The segments' counting in and finishing, for the (segment, strip) pairs
 * tc_rows<SEG = true> walked with the same arguments, after it (in it,
 * next to the pipeline's registers, the kernels spilled; here everything
 * is derived afresh from the kernel's parameters): by now the sums of every
 * one are in the workspace.  The slot's part-0 warp counts its pairs in 32
 * at a time, a lane each (one round trip to L2 for all, not one per pair),
 * then the warp finishes the pairs whose row it was the last to count in
 * (segment_finish's steps, with the count already taken). */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void segments_finish(const params &p, const loomcu_tc_row *__restrict__ recs,
                                                int64_t nrows, int64_t block, int64_t nblk)
{
    typedef typename storage<VT>::T T;
    constexpr int RPB = WARPS / TC_PARTS_MAX;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int slot = warp / TC_PARTS_MAX, part = warp % TC_PARTS_MAX;
    const int64_t first = block * RPB + slot, stride = nblk * RPB;
    const int s_begin = blockIdx.y * p.window;
    const int s_end = s_begin + p.window < p.strips ? s_begin + p.window : p.strips;
    if (part != 0 || first >= nrows || s_begin >= s_end)
        return;
    const int64_t rows_here = (nrows - first + stride - 1) / stride;
    const int nr = rows_here < p.rows_per_slot ? (int)rows_here : p.rows_per_slot;
    const int ns = s_end - s_begin, pairs = nr * ns;
    __syncwarp(); /* the warp's workspace stores, before any lane's release */
    for (int base = 0; base < pairs; base += 32) {
        const int i = base + lane;
        int4 e = make_int4(0, 0, 0, 0);
        int *counter = nullptr;
        bool last = false;
        if (i < pairs) {
            const int32_t code = __ldg(reinterpret_cast<const int4 *>(recs + first + (i / ns) * stride)).z;
            e = __ldg(reinterpret_cast<const int4 *>(p.so.segs) + (-1 - (int64_t)code));
            counter = segment_counter(p.so, e, (int64_t)(s_begin + i % ns) * NS);
            last = count_in(counter, 1) == e.y - 1;
        }
        uint32_t todo = __ballot_sync(0xffffffffu, last);
        __syncwarp(); /* the lanes' acquires, for every lane's loads */
        while (todo) {
            const int src = __ffs(todo) - 1;
            todo &= todo - 1;
            const int row = __shfl_sync(0xffffffffu, e.x, src), B = __shfl_sync(0xffffffffu, e.y, src);
            const int z = __shfl_sync(0xffffffffu, e.z, src);
            const int64_t n0 = (int64_t)(s_begin + (base + src) % ns) * NS;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int64_t col = n0 + 2 * lane + h;
                if (col < p.n)
                    segment_output(p.so, row, B, z, col, (T *)p.y, p.ldy, p.alpha, p.beta);
            }
        }
        if (last)
            *counter = 0;
    }
}

/* Where each bin's rows and blocks start; one launch runs all bins (one
 * launch instead of four: at DLMC sizes the launch gaps are a large part of
 * the time).  Blocks of bin b are [block_start[b], block_start[b+1]). */
struct bins {
    int64_t row_start[LOOMCU_TC_BINS + 1];
    int64_t block_start[LOOMCU_TC_BINS + 1];
};

template <int VT, int PREC, int KS>
__global__ void __launch_bounds__(THREADS, (slot_shape<VT, PREC, KS>::MIN_BLOCKS)) tc_spmm_kernel(params p, const loomcu_tc_row *__restrict__ rows, bins bn)
{
    typedef slot_shape<VT, PREC, KS> sh;
    typedef typename sh::T T;
    extern __shared__ __align__(16) unsigned char smem[];
    T *ring = reinterpret_cast<T *>(smem);
    float *red = reinterpret_cast<float *>(smem + WARPS * sh::STAGES * sh::BYTES);
    start_after_previous(p.k <= LOOMTC_EARLY_TRIGGER_MAX_K);
    const int64_t b = blockIdx.x;
    /* the bin is uniform over the block, so the barriers inside stay legal */
    if (b < bn.block_start[1])
        tc_rows<VT, PREC, KS, 1, false>(p, rows, bn.row_start[1], b, bn.block_start[1], ring, red);
    else if (b < bn.block_start[2])
        tc_rows<VT, PREC, KS, 2, false>(p, rows + bn.row_start[1], bn.row_start[2] - bn.row_start[1],
                                        b - bn.block_start[1], bn.block_start[2] - bn.block_start[1], ring, red);
    else if (b < bn.block_start[3])
        tc_rows<VT, PREC, KS, 4, false>(p, rows + bn.row_start[2], bn.row_start[3] - bn.row_start[2],
                                        b - bn.block_start[2], bn.block_start[3] - bn.block_start[2], ring, red);
    else
        tc_rows<VT, PREC, KS, 8, false>(p, rows + bn.row_start[3], bn.row_start[4] - bn.row_start[3],
                                        b - bn.block_start[3], bn.block_start[4] - bn.block_start[3], ring, red);
}

/* The segments' bin (rows, nrows: its records), in a kernel of its own that
 * runs beside the one above (launch_bins): one kernel for both bins' code
 * took the registers past the 80 that three blocks a multiprocessor leave,
 * and with two blocks, or with spills, the other rows ran slower (0.70-0.97x
 * geomean on 9 graphs, H200, bench/results/tc/run-2026-11-29-h200-s43). */
template <int VT, int PREC, int KS>
__global__ void __launch_bounds__(THREADS, 2) tc_segment_kernel(params p, const loomcu_tc_row *__restrict__ rows, int64_t nrows)
{
    typedef slot_shape<VT, PREC, KS> sh;
    typedef typename sh::T T;
    extern __shared__ __align__(16) unsigned char smem[];
    T *ring = reinterpret_cast<T *>(smem);
    float *red = reinterpret_cast<float *>(smem + WARPS * sh::STAGES * sh::BYTES);
    tc_rows<VT, PREC, KS, TC_PARTS_MAX, true>(p, rows, nrows, blockIdx.x, gridDim.x, ring, red);
    segments_finish<VT, PREC, KS>(p, rows, nrows, blockIdx.x, gridDim.x);
}

/* Per device: multiprocessors, and whether each kernel's shared-memory
 * limit was raised (attributes are per device). */
constexpr int MAX_DEVICES = 64;

template <int VT, int PREC, int KS>
static cudaError_t kernel_setup(int dev, int *blocks_per_sm)
{
    typedef slot_shape<VT, PREC, KS> sh;
    static int occupancy[MAX_DEVICES]; /* 0: not asked yet on that device */
    if (dev < 0 || dev >= MAX_DEVICES)
        return cudaErrorInvalidDevice;
    if (occupancy[dev] == 0) {
        cudaError_t e = cudaSuccess;
        if (sh::SMEM > 48 * 1024) {
            e = cudaFuncSetAttribute(tc_spmm_kernel<VT, PREC, KS>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     sh::SMEM);
            if (e == cudaSuccess)
                e = cudaFuncSetAttribute(tc_segment_kernel<VT, PREC, KS>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, sh::SMEM);
        }
        int occ = 0;
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, tc_spmm_kernel<VT, PREC, KS>, THREADS, sh::SMEM);
        if (e != cudaSuccess)
            return e;
        occupancy[dev] = occ > 0 ? occ : 1;
    }
    *blocks_per_sm = occupancy[dev];
    return cudaSuccess;
}

/* ------------------------------------------------------------------------
 * The resident-strip kernel (fp16/bf16 storage, K rows fit in shared memory).
 *
 * Why: the kernel above gathers k X rows from L2 for every item, so it moves
 * nnz * N * 2 bytes through L2 (each X row once per non-zero of its column)
 * and runs at the L2 gather rate.  Here a block copies the strip
 * X[0:K, n0:n0+W] into shared memory once (coalesced 16-byte cp.async) and
 * its warps run whole rows against it: ldmatrix.trans takes one row address
 * per lane, so it gathers a group's k rows straight out of the resident strip
 * - the same A fragment the staged slot gave, without the staging.  L2 then
 * moves (blocks x K x W x 2) bytes, a fraction of the gathers wherever the
 * columns of A are used by many rows.
 *
 * The arithmetic is the same as tc_rows()'s, i.e. tc_reference_spmm()'s
 * (reference/tc_model.c), bit for bit: per part,
 * +0 then one MMA per group in order, with the same operands in the same
 * places; the part sums go through the same halving tree; step 5.  Only who
 * runs it differs: one warp does all P parts of a row in sequence (no
 * cross-warp reduction).  After a part, lane 4g+q keeps D rows g and g+8 of
 * tile q (all four lanes of a quad hold the same D values), so 2 floats per
 * part and lane carry the part sums to the tree, and each lane then writes
 * its own two outputs.  The longest rows are the exception: a block first
 * runs its share of them with a row's 8 parts on 8 warps (rx_spread).
 *
 * A row's column indices and values reach the warp 32 at a time, one
 * coalesced load per lane, one chunk ahead of use (the pipeline crosses rows);
 * each group takes its indices and values from the chunk by shuffles.  Two
 * consecutive rows of one group each share a chunk and run side by side
 * (rx_pair).  Paired rows, chunks masked at load time, strips wholly
 * inside N without per-tile tests and row records loaded a unit ahead
 * without branches made the kernel 1.10-1.5x faster on the layers it runs
 * at N = 256 (H200, bench/results/tc/run-2026-11-29-h200-s38: 33288 x 512
 * at 0.98 69 -> 47 us, at 0.95 98 -> 81 us; 2048 x 512 1.17-1.19x), same
 * bits.
 *
 * One block of 16 warps a multiprocessor, not two of 8: the grid is one
 * wave, so both blocks of a multiprocessor copied their strips at the same
 * time and nothing overlapped the copies; one block copies one strip for
 * as many warps, half the bytes from L2 (1.04-1.13x on 512 x 512,
 * 1024 x 256/512 and 2048 x 512 at N = 256 and 512, H200,
 * bench/results/tc/run-2026-11-29-h200-s41, same bits).
 */
constexpr int RX_WARPS = 16;
constexpr int RX_THREADS = RX_WARPS * 32;

/* Tall: records enough for 8 or more a warp of a grid of one block a
 * multiprocessor (rx_try takes the resident kernel there; the plan
 * spreads no row there, a long row being one among a warp's many). */
static bool rx_tall(int64_t records, int sms) { return records >= (int64_t)sms * RX_WARPS * 8; }

/* A launch spreads the plan's spread rows (rx_spread) only where the
 * longest has at least this many times a warp's share of the non-zeros
 * (rx_try).  H200, DLMC, N = 64-512: spreading every time lost on the
 * layers whose longest row had fewer than 2 shares (0.92-0.99x at k8,
 * 0.95-1.00x at k16) and gained past 3 (1.08-1.31x); with this bound, the
 * resident layers with a row to spread ran 1.03-1.13x at k16 and 1.02-
 * 1.08x at k8 against not spreading, the rest unchanged
 * (bench/results/tc/run-2026-11-29-h200-s45, calls 1-2). */
constexpr double RX_SPREAD_OVER_LOAD = 2.0;

template <int W> struct rx_shape {
    static constexpr int TILES = W / 16;   /* MMA tiles per group */
    static constexpr int CPR = W / 8;      /* 16-byte chunks per strip row */
    /* Row pitch in bytes, 16 over the strip: rows r and r' of one 8x8
     * ldmatrix read fall in different 16-byte bank groups when r != r'
     * (mod 8) - the pitch is an odd number of 16-byte units. */
    static constexpr int PITCH = 2 * W + 16;
};

struct rx_params {
    int64_t n;
    const int32_t *__restrict__ ci;
    const void *__restrict__ val;
    const void *__restrict__ x;
    int64_t ldx;
    void *__restrict__ y;
    int64_t ldy;
    float alpha, beta;
    int vec;    /* X rows 16-byte aligned */
    int k, m;   /* rows of X (the strip's rows; row k is all zeros), records walked (rows of A, segments) */
    int strips; /* ceil(n / W) */
    int chunks; /* blocks over the rows: block x takes rows x, x + chunks*RX_WARPS, ... per warp */
    seg_out so;
};

/* The spread rows (rx_spread), a kernel parameter of their own so that
 * the kernels without them keep main's parameter block and code: records
 * gap .. gap + skip - 1, which the walk skips (rx_record), and where their
 * part sums go in shared memory. */
struct rx_spread_args {
    int64_t gap, skip;
    uint32_t red_at;
};

/* tc_row_parts(): the row's part count P */
__device__ __forceinline__ int parts_of(int32_t len, int ks)
{
    const int32_t groups = (len + ks - 1) / ks;
    const int P = groups <= 1 ? 1 : 1 << (32 - __clz(groups - 1)); /* the least power of two >= groups */
    return P < TC_PARTS_MAX ? P : TC_PARTS_MAX;
}

/* The chunk stream of one warp: its rows in order, in units.  A unit is
 * one row, 32 non-zeros a chunk (a row of no non-zeros has no chunk), or
 * a pair of consecutive rows of at most KS non-zeros each (one group or
 * none each), which share one chunk: lanes 0-15 hold the first row's,
 * lanes 16-31 the second's.
 * Lanes past a row's end hold the zero row K as column and +0 as value, so
 * the consumers take a group's operands by shuffles alone.  The loads are
 * predicated, never a select on a loaded value (which would wait for it).
 *
 * Why pairs: on tall matrices of short rows (33288 x 512 at 0.98: about 10
 * non-zeros a row) a warp's time was one chunk's load latency and one
 * dependent chain of shuffles, ldmatrix and MMAs per row; a pair halves the
 * chunks and gives the two rows' chains to the scheduler side by side.
 * The rule (rx_pairable) is applied alike by the feed and by the consumer,
 * both walking the same rows first, first + stride, ... */
/* A segment of a long row (tc_spmm.h) has at least 8 groups when a row is
 * cut only past 16 (floor(g / B) >= TC_SEGMENT_GROUPS / 2 for the power of
 * two B >= ceil(g / TC_SEGMENT_GROUPS)): so P = 8 (the segments' bin) and
 * it is never paired here. */
static_assert(TC_SEGMENT_GROUPS >= 16, "segments need at least 8 groups: P = 8");
template <int KS> __device__ __forceinline__ bool rx_pairable(int32_t len_a, int32_t len_b)
{
    return len_a <= KS && len_b <= KS;
}

struct rx_feed {
    int ri;              /* the load cursor's (last) row; int, as the walk's indices (rx_try) */
    int stride;
    int c, len;          /* chunk of the unit in flight; the unit's non-zeros (pair: 1) */
    bool pair;
    int64_t start, start_b;
    int32_t len_a, len_b;
    int4 rec1, rec2;     /* the records of rows ri + stride and ri + 2 stride, in flight */
    uint32_t ci, val;    /* this lane's element of the chunk in flight */
    int64_t gap, skip;   /* rx_spread_args' (read only where SPREAD) */
};

/* Record ri of the walk (m records: the plan's, less the spread rows,
 * which rx_spread runs) */
template <bool SPREAD>
__device__ __forceinline__ int4 rx_record(const rx_params &p, const rx_feed &f, const loomcu_tc_row *__restrict__ rows,
                                          int ri)
{
    int4 r = make_int4(0, 0, 0, 0);
    if (ri < p.m)
        r = __ldg(reinterpret_cast<const int4 *>(rows + ri + (SPREAD && ri >= f.gap ? f.skip : 0)));
    return r;
}

/* A lane's element of a chunk: non-zero j's column index and value bits,
 * or, where the lane is past its row (!in), the zero row K and +0. */
__device__ __forceinline__ void rx_element(const rx_params &p, bool in, int64_t j, uint32_t &ci, uint32_t &val)
{
    ci = (uint32_t)p.k;
    val = 0u;
    if (in) {
        ci = (uint32_t)__ldg(p.ci + j);
        val = (uint32_t)__ldg((const unsigned short *)p.val + j);
    }
}

/* A chunk's values paired as the B fragment's 32-bit registers: lane 2i
 * holds elements 2i and 2i+1. */
__device__ __forceinline__ uint32_t rx_value_pairs(uint32_t val)
{
    return val | (__shfl_down_sync(0xffffffffu, val, 1) << 16);
}

template <int KS, bool SPREAD>
__device__ __forceinline__ void rx_advance(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                           int lane)
{
    f.c++;
    while ((f.c << 5) >= f.len) { /* the next unit with a chunk */
        const int a = f.ri + f.stride;
        if (a >= p.m) {
            f.len = 0x7fffffff; /* no more chunks; none will be taken */
            f.c = 0;
            return;
        }
        f.c = 0;
        /* Without branches, and both records loaded afresh whichever way:
         * loads issued on two paths land in different registers, and the
         * moves that merge them wait for the loads (Nsight Compute, H200:
         * 11% of the stall samples on 33288 x 512 sat on such a move). */
        const bool pair = a + f.stride < p.m && rx_pairable<KS>(f.rec1.w, f.rec2.w);
        f.pair = pair;
        f.start = record_start(f.rec1);
        f.len_a = f.rec1.w;
        f.start_b = record_start(f.rec2);
        f.len_b = f.rec2.w;
        f.len = pair ? 1 : f.rec1.w;
        f.ri = pair ? a + f.stride : a;
        f.rec1 = rx_record<SPREAD>(p, f, rows, f.ri + f.stride);
        f.rec2 = rx_record<SPREAD>(p, f, rows, f.ri + 2 * f.stride);
    }
    int64_t j;
    bool in;
    if (f.pair) {
        in = lane < 16 ? lane < f.len_a : lane - 16 < f.len_b;
        j = lane < 16 ? f.start + lane : f.start_b + (lane - 16);
    } else {
        const int idx = (f.c << 5) + lane;
        in = idx < f.len;
        j = f.start + idx;
    }
    rx_element(p, in, j, f.ci, f.val);
}

/* The chunk in flight becomes the one in use: column indices as loaded, and
 * the values paired (lane 2i holds elements 2i and 2i+1 of the chunk: the
 * B fragment's 32-bit registers); then the next chunk is started. */
template <int KS, bool SPREAD>
__device__ __forceinline__ void rx_take(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                        uint32_t &ci_c, uint32_t &pr_c, int lane)
{
    ci_c = f.ci;
    pr_c = rx_value_pairs(f.val);
    rx_advance<KS, SPREAD>(p, rows, f, lane);
}

/* One group's MMAs: the k rows of the group at lane offset `base` of the
 * chunk (column indices ci_c, paired values pr_c), against the resident
 * strip at xs, for every tile of the strip (FULL: all inside N). */
template <int VT, int KS, int W, bool FULL>
__device__ __forceinline__ void rx_group(const rx_params &p, uint32_t ci_c, uint32_t pr_c, int base, uint32_t xs,
                                         int64_t n0, int lane, float (&acc)[rx_shape<W>::TILES][4])
{
    typedef rx_shape<W> sh;
    constexpr int PREC = VT == TC_VAL_F16 ? TC_PREC_F16 : TC_PREC_BF16;
    const int q = lane & 3;
    /* ldmatrix rows: x4 (k16) lane = 8*mi + j reads k-row j (+8 for mi >= 2)
     * at columns +8 for odd mi; x2 (k8) uses lanes 0..15 the same way */
    const int kk = KS == 16 ? (lane & 7) + ((lane >> 4) & 1) * 8 : (lane & 7);
    const uint32_t lane_col = ((lane >> 3) & 1) * 16;
    const uint32_t xrow = __shfl_sync(0xffffffffu, ci_c, base + kk); /* padding: the zero row */
    const uint32_t addr = xs + xrow * sh::PITCH + lane_col;
    uint32_t b[2];
    b[0] = __shfl_sync(0xffffffffu, pr_c, base + 2 * q);
    b[1] = KS == 16 ? __shfl_sync(0xffffffffu, pr_c, base + 2 * q + 8) : 0u;
#pragma unroll
    for (int t = 0; t < sh::TILES; t++) {
        if (FULL || n0 + 16 * t < p.n) {
            uint32_t a[4];
            if constexpr (KS == 16)
                ldsm_x4_trans(addr + 32 * t, a);
            else
                ldsm_x2_trans(addr + 32 * t, a);
            mma<PREC, KS>::run(acc[t], a, b);
        }
    }
}

/* Lane 4g+q's two outputs of a part: columns 16q+g and 16q+g+8 of the strip
 * (D rows g, g+8 of tile q; all four lanes of a quad hold the same D). */
template <int W>
__device__ __forceinline__ void rx_lane_part(const float (&acc)[rx_shape<W>::TILES][4], int q, float (&out)[2])
{
    out[0] = acc[0][0];
    out[1] = acc[0][2];
#pragma unroll
    for (int t = 1; t < rx_shape<W>::TILES; t++)
        if (q == t) {
            out[0] = acc[t][0];
            out[1] = acc[t][2];
        }
}

/* Step 5 for the lane's two outputs of one row (tc_model.c finish()). */
template <int VT, int W, bool FULL>
__device__ __forceinline__ void rx_store(const rx_params &p, int32_t row, int64_t n0, int lane, const float (&v)[2])
{
    typedef typename storage<VT>::T T;
    const int g = lane >> 2, q = lane & 3;
    if (q < rx_shape<W>::TILES) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t col = n0 + 16 * q + g + 8 * h;
            if (FULL || col < p.n)
                finish_store((T *)p.y + (int64_t)row * p.ldy + col, p.alpha, p.beta, v[h]);
        }
    }
}

/* The same two outputs of a segment of a long row: to its workspace row,
 * then segment_finish. */
template <int VT, int W, bool FULL>
__device__ __forceinline__ void rx_segment_store(const rx_params &p, int32_t code, int64_t n0, int lane,
                                                 const float (&v)[2])
{
    typedef typename storage<VT>::T T;
    const int g = lane >> 2, q = lane & 3;
    const bool mine = q < rx_shape<W>::TILES;
    float *const seg = segment_row(p.so, code);
    if (mine)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int64_t col = n0 + 16 * q + g + 8 * h;
            if (FULL || col < p.n)
                __stcg(seg + col, v[h]);
        }
    segment_finish(p.so, code, n0, 16 * q + g, 8, mine, p.n, (T *)p.y, p.ldy, p.alpha, p.beta, lane);
}

/* One row (P parts) for the strip at n0, against the resident strip at xs. */
template <int VT, int KS, int W, int P, bool FULL, bool SPREAD>
__device__ __forceinline__ void rx_row(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                       uint32_t &ci_c, uint32_t &pr_c, uint32_t xs, int64_t n0, int32_t row,
                                       int32_t len, int lane)
{
    typedef rx_shape<W> sh;
    const int q = lane & 3;
    const int32_t groups = (len + KS - 1) / KS;
    const int32_t G = (groups + P - 1) / P;
    float part[P][2];
#pragma unroll
    for (int pp = 0; pp < P; pp++) {
        float acc[sh::TILES][4];
        zero_acc(acc);
        const int32_t gb = pp * G < groups ? pp * G : groups;
        const int32_t ge = (pp + 1) * G < groups ? (pp + 1) * G : groups;
        for (int32_t gi = gb; gi < ge; gi++) {
            const int o = gi * KS; /* the group's first non-zero in the row */
            if ((o & 31) == 0)     /* a new chunk: take it, start the next */
                rx_take<KS, SPREAD>(p, rows, f, ci_c, pr_c, lane);
            rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, o & 31, xs, n0, lane, acc);
        }
        rx_lane_part<W>(acc, q, part[pp]);
    }
    halving_tree(part);
    if (row >= 0)
        rx_store<VT, W, FULL>(p, row, n0, lane, part[0]);
    else
        rx_segment_store<VT, W, FULL>(p, row, n0, lane, part[0]);
}

/* Two rows of one group or none each (rx_pairable), from one chunk: the same
 * operations as rx_row<P = 1> for each, side by side. */
template <int VT, int KS, int W, bool FULL, bool SPREAD>
__device__ __forceinline__ void rx_pair(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                        uint32_t &ci_c, uint32_t &pr_c, uint32_t xs, int64_t n0, int32_t row_a,
                                        int32_t len_a, int32_t row_b, int32_t len_b, int lane)
{
    typedef rx_shape<W> sh;
    const int q = lane & 3;
    rx_take<KS, SPREAD>(p, rows, f, ci_c, pr_c, lane);
    float acc_a[sh::TILES][4], acc_b[sh::TILES][4];
    zero_acc(acc_a);
    zero_acc(acc_b);
    if (len_a > 0) /* an empty row's sum is +0, no MMA (tc_model.h) */
        rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, 0, xs, n0, lane, acc_a);
    if (len_b > 0)
        rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, 16, xs, n0, lane, acc_b);
    float part[2];
    rx_lane_part<W>(acc_a, q, part);
    rx_store<VT, W, FULL>(p, row_a, n0, lane, part);
    rx_lane_part<W>(acc_b, q, part);
    rx_store<VT, W, FULL>(p, row_b, n0, lane, part);
}

/* A row of one chunk, 1 to 2 KS non-zeros (one group or two): rx_row<1>'s
 * or rx_row<2>'s operations (part 0 the group at lane 0, part 1 the one at
 * lane KS, +0 each to start, then the halving tree) without their loops
 * and part bounds.  Those are the most common rows of the DLMC layers at
 * 0.95 and over, and the group loop's control was 11% of the instructions
 * on 33288 x 512.  With the walk's indices in 32 bits: 2048 x 512 1.04-
 * 1.05x, 1024 x 256 1.04-1.07x, 33288 x 512 1.04-1.13x at N = 256-512,
 * all layers 1.01-1.03x, same bits (H200,
 * bench/results/tc/run-2026-11-29-h200-s46, calls 1, 3, 5, 6).  Never a
 * segment (those have at least 8 groups). */
template <int VT, int KS, int W, bool FULL, bool SPREAD>
__device__ __forceinline__ void rx_single(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                          uint32_t &ci_c, uint32_t &pr_c, uint32_t xs, int64_t n0, int32_t row,
                                          int32_t len, int lane)
{
    typedef rx_shape<W> sh;
    const int q = lane & 3;
    rx_take<KS, SPREAD>(p, rows, f, ci_c, pr_c, lane);
    float acc_a[sh::TILES][4], acc_b[sh::TILES][4];
    zero_acc(acc_a);
    zero_acc(acc_b);
    rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, 0, xs, n0, lane, acc_a);
    float part[2][2];
    rx_lane_part<W>(acc_a, q, part[0]);
    if (len > KS) { /* P = 2 */
        rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, KS, xs, n0, lane, acc_b);
        rx_lane_part<W>(acc_b, q, part[1]);
        halving_tree(part);
    }
    rx_store<VT, W, FULL>(p, row, n0, lane, part[0]);
}

/* The block's spread rows for the strip at n0, before its walk: rows
 * x, x + chunks, ... of the spread ones (block x), two at a time, a row's
 * 8 parts on the 8 warps of a slot (warps 0-7, 8-15).  Each part is
 * rx_row's part: +0, then its groups' MMAs in order; the sums meet in
 * shared memory (red: 8 parts x W floats a slot) and the slot's part-0
 * warp adds them by the halving tree and stores.  The same operations
 * as rx_row<8>, so the same bits.
 *
 * Why: a warp runs its records in turn, so one row far longer than the
 * rest held up its block - the slowest multiprocessor ran 39% longer than
 * the mean on a 512 x 2048 layer at 0.95 with a row of 499 non-zeros, 7%
 * on one whose longest row had 148 (Nsight Compute, H200, N = 256,
 * bench/results/tc/run-2026-11-29-h200-s44, call 5).  Spreading the
 * parts over warps of any block, through the segments' workspace and a
 * count-in at GPU scope per part, cost as much as it saved (calls 2-3
 * there); inside the block the parts meet through shared memory. */
template <int VT, int KS, int W, bool FULL>
__device__ __forceinline__ void rx_spread(const rx_params &p, const rx_spread_args &sa,
                                          const loomcu_tc_row *__restrict__ rows, uint32_t xs, float *red, int64_t n0,
                                          int warp, int lane)
{
    typedef rx_shape<W> sh;
    constexpr int P = TC_PARTS_MAX;
    static_assert(RX_WARPS == 2 * P, "two spread rows at a time");
    const int slot = warp / P, part = warp % P, g = lane >> 2, q = lane & 3;
    const bool mine = q < sh::TILES;
    float *const sums = red + slot * P * W; /* sums[part * W + column] */
    for (int64_t j = blockIdx.x + (int64_t)p.chunks * slot; j < sa.skip; j += 2 * (int64_t)p.chunks) {
        const int4 r = __ldg(reinterpret_cast<const int4 *>(rows + sa.gap + j));
        const int64_t start = record_start(r);
        const int32_t len = r.w, groups = (len + KS - 1) / KS, G = (groups + P - 1) / P;
        const int32_t gb = part * G < groups ? part * G : groups;
        const int32_t ge = (part + 1) * G < groups ? (part + 1) * G : groups;
        float acc[sh::TILES][4];
        zero_acc(acc);
        uint32_t ci_c = 0, pr_c = 0;
        for (int32_t gi = gb; gi < ge; gi++) {
            const int o = (gi - gb) * KS; /* from the part's first non-zero: chunks of 32 as rx_advance's */
            if ((o & 31) == 0) {
                const int32_t idx = gb * KS + o + lane;
                uint32_t v;
                rx_element(p, idx < len, start + idx, ci_c, v);
                pr_c = rx_value_pairs(v);
            }
            rx_group<VT, KS, W, FULL>(p, ci_c, pr_c, o & 31, xs, n0, lane, acc);
        }
        float out[2];
        rx_lane_part<W>(acc, q, out);
        if (mine) {
            sums[part * W + 16 * q + g] = out[0];
            sums[part * W + 16 * q + g + 8] = out[1];
        }
        row_sync<P>(slot);
        if (part == 0) {
            float v[P][2];
#pragma unroll
            for (int l = 0; l < P; l++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    v[l][h] = mine ? sums[l * W + 16 * q + g + 8 * h] : 0.0f;
            halving_tree(v);
            rx_store<VT, W, FULL>(p, r.z, n0, lane, v[0]);
        }
        row_sync<P>(slot); /* the sums read before the next row's are written */
    }
}

/* A warp's rows for the strip at n0: first, first + stride, ..., a pair
 * where rx_pairable says so, a row of one chunk by rx_single, else one row
 * of its P parts. */
template <int VT, int KS, int W, bool FULL, bool SPREAD>
__device__ __forceinline__ void rx_rows(const rx_params &p, const loomcu_tc_row *__restrict__ rows, rx_feed &f,
                                        uint32_t xs, int64_t n0, int first, int stride, int lane)
{
    uint32_t ci_c = 0, pr_c = 0;
    /* the records of rows ri and ri + stride, loaded one unit ahead of use */
    int4 ra = rx_record<SPREAD>(p, f, rows, first), rb = rx_record<SPREAD>(p, f, rows, first + stride);
    for (int ri = first; ri < p.m;) {
        const bool pair = ri + stride < p.m && rx_pairable<KS>(ra.w, rb.w);
        const int next = pair ? ri + 2 * stride : ri + stride;
        const int4 rc = rx_record<SPREAD>(p, f, rows, next), rd = rx_record<SPREAD>(p, f, rows, next + stride);
        if (pair) {
            rx_pair<VT, KS, W, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, ra.z, ra.w, rb.z, rb.w, lane);
        } else if (ra.w >= 1 && ra.w <= 2 * KS) {
            rx_single<VT, KS, W, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, ra.z, ra.w, lane);
        } else {
            const int32_t row = ra.z, len = ra.w;
            const int P = parts_of(len, KS);
            if (P == 1)
                rx_row<VT, KS, W, 1, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, row, len, lane);
            else if (P == 2)
                rx_row<VT, KS, W, 2, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, row, len, lane);
            else if (P == 4)
                rx_row<VT, KS, W, 4, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, row, len, lane);
            else
                rx_row<VT, KS, W, 8, FULL, SPREAD>(p, rows, f, ci_c, pr_c, xs, n0, row, len, lane);
        }
        ra = rc;
        rb = rd;
        ri = next;
    }
}

template <int VT, int KS, int W, bool SPREAD>
__global__ void __launch_bounds__(RX_THREADS, 1) tc_resident_kernel(rx_params p, const loomcu_tc_row *__restrict__ rows,
                                                                     rx_spread_args sa)
{
    typedef rx_shape<W> sh;
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t xs = smem_addr(smem);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int stride = p.chunks * RX_WARPS;
    const int first = blockIdx.x + p.chunks * warp;
    start_after_previous(p.k <= LOOMTC_EARLY_TRIGGER_MAX_K);
    for (int s = blockIdx.y; s < p.strips; s += gridDim.y) {
        const int64_t n0 = (int64_t)s * W;
        /* the strip, K rows of W columns, plus the zero row K */
        const int total = p.k * sh::CPR;
        for (int idx = threadIdx.x; idx < total; idx += RX_THREADS) {
            const int r = idx / sh::CPR, ch = idx % sh::CPR;
            const int64_t col = n0 + ch * 8;
            unsigned char *dst = smem + (size_t)r * sh::PITCH + ch * 16;
            if (col >= p.n) {
                *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
            } else {
                const unsigned short *src = (const unsigned short *)p.x + (int64_t)r * p.ldx + col;
                if (p.vec && col + 8 <= p.n)
                    cp_async16<STAGE_L1>(dst, src);
                else
                    *reinterpret_cast<uint4 *>(dst) = load_chunk16_sync(p.n, src, col);
            }
        }
        if (threadIdx.x < sh::CPR)
            *reinterpret_cast<uint4 *>(smem + (size_t)p.k * sh::PITCH + threadIdx.x * 16) = make_uint4(0, 0, 0, 0);
        cp_async_commit();
        /* meanwhile: this warp's first rows and first chunk (the cursor
         * starts one stride before its first row) */
        rx_feed f;
        f.stride = stride;
        f.ri = first - stride;
        f.c = -1;
        f.len = 0;
        f.pair = false;
        f.start = f.start_b = 0;
        f.len_a = f.len_b = 0;
        f.ci = f.val = 0;
        f.gap = sa.gap;
        f.skip = sa.skip;
        f.rec1 = rx_record<SPREAD>(p, f, rows, first);
        f.rec2 = rx_record<SPREAD>(p, f, rows, first + stride);
        rx_advance<KS, SPREAD>(p, rows, f, lane);
        cp_async_wait<0>();
        __syncthreads(); /* the strip is in */

        float *const red = reinterpret_cast<float *>(smem + sa.red_at);
        if (n0 + W <= p.n) {
            if constexpr (SPREAD)
                rx_spread<VT, KS, W, true>(p, sa, rows, xs, red, n0, warp, lane);
            rx_rows<VT, KS, W, true, SPREAD>(p, rows, f, xs, n0, first, stride, lane);
        } else {
            if constexpr (SPREAD)
                rx_spread<VT, KS, W, false>(p, sa, rows, xs, red, n0, warp, lane);
            rx_rows<VT, KS, W, false, SPREAD>(p, rows, f, xs, n0, first, stride, lane);
        }
        __syncthreads(); /* before the next strip overwrites this one */
    }
}

/* Per device: shared memory a block may opt into, a multiprocessor's, and
 * what the system keeps per block. */
struct rx_limits {
    int optin, per_sm, reserved;
};
static cudaError_t rx_device_limits(int dev, rx_limits *l)
{
    static rx_limits cache[MAX_DEVICES];
    if (dev < 0 || dev >= MAX_DEVICES)
        return cudaErrorInvalidDevice;
    if (cache[dev].optin == 0) {
        rx_limits t;
        cudaError_t e = cudaDeviceGetAttribute(&t.optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&t.per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&t.reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
        if (e != cudaSuccess)
            return e;
        cache[dev] = t;
    }
    *l = cache[dev];
    return cudaSuccess;
}

/* The resident kernel holds strips of W columns (K rows and a row of
 * zeros): a strip fits one block's opt-in shared memory and the
 * multiprocessor's less what the system keeps per block (one block a
 * multiprocessor).
 *   - Strips of 64 columns: K up to 1613 rows on an H200 (half that while
 *     the kernel ran two blocks).  Raising the bound from 802 took the
 *     layers of K = 1024 off the gather kernel: 1.4-2.4x on 2048 x 1024 and
 *     1.2-2.0x on 512 x 1024 at 0.9-0.95, N = 256-512, same bits (H200,
 *     bench/results/tc/run-2026-11-29-h200-s41, call 4).
 *   - Past that, strips of 32 columns (two MMA tiles a group): K up to
 *     2904.  Against the gather kernel on the DLMC layers of K = 2048 and
 *     2304, N = 128-512: 1.28x in geometric mean where the rule below takes
 *     them, up to 2.0x at N = 512 (H200, bench/results/tc/
 *     run-2026-11-29-h200-s42, call 1).  Strips of 48 columns were slower
 *     than those of 32 at every N tried (a partial last strip at N = 128,
 *     256 and 512), and strips of 16 (K up to 4841: 512 x 4608) won only
 *     where the tiles form is faster still, so neither is kept.
 * loomcu_tc_resident_max_k gives both bounds to the selector. */
constexpr int RX_WIDE = 64, RX_NARROW = 32;

/* A strip's bytes a row of X, for strips of w (RX_WIDE or RX_NARROW) columns. */
static int rx_pitch(int w)
{
    return w == RX_WIDE ? rx_shape<RX_WIDE>::PITCH : rx_shape<RX_NARROW>::PITCH;
}

/* A block's shared memory, one block a multiprocessor. */
static int64_t rx_smem_limit(const rx_limits &l)
{
    const int64_t whole = (int64_t)l.per_sm - l.reserved;
    return l.optin < whole ? l.optin : whole;
}

/* The largest K whose strip of w columns (and the zero row) fits. */
static int64_t rx_max_k(const rx_limits &l, int w)
{
    return rx_smem_limit(l) / rx_pitch(w) - 1; /* below 0: not even K = 0 fits */
}

/* The widest strip that holds K rows of X, at most `widest` columns; 0 when
 * none does. */
static int rx_width(const rx_limits &l, int64_t k, int widest)
{
    if (widest >= RX_WIDE && k <= rx_max_k(l, RX_WIDE))
        return RX_WIDE;
    if (widest >= RX_NARROW && k <= rx_max_k(l, RX_NARROW))
        return RX_NARROW;
    return 0;
}

template <int VT, int KS, int W, bool SPREAD>
static cudaError_t rx_launch_w(const loomcu_tc_plan *plan, const rx_params &rp, const rx_spread_args &sa, dim3 grid,
                               size_t smem, int dev, int optin, cudaStream_t st)
{
    static unsigned char raised[MAX_DEVICES];
    if (!raised[dev]) {
        cudaError_t e = cudaFuncSetAttribute(tc_resident_kernel<VT, KS, W, SPREAD>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        if (e != cudaSuccess)
            return e;
        raised[dev] = 1;
    }
    return launch_after_previous(tc_resident_kernel<VT, KS, W, SPREAD>, grid, dim3(RX_THREADS), smem, st, rp,
                                 plan->rows, sa);
}

/* The resident-strip kernel where it pays (speed only: both kernels give
 * the same bits), on a grid of one block per multiprocessor, rounded down
 * so that it is one wave (rounded up, 136 blocks on 132 multiprocessors
 * took 1.6x as long: a second wave for four blocks):
 *   - tall matrices, rows enough for 8 or more a warp: each strip copy
 *     serves many rows and the pipeline of chunks runs long (33288 x 512:
 *     1.1x to 1.9x faster than the gather kernel, H200, 2026-11-24);
 *   - elsewhere where the grid still holds 12 warps a multiprocessor or
 *     more (the rule of the two 8-warp blocks, 1.5 blocks, in warps) and
 *     the gather kernel would move at least half the bytes the strips'
 *     copies do:
 *     nnz x N gathered against blocks x K x W copied.  On an H100, every
 *     DLMC layer, both kernels forced in turn
 *     (bench/results/tc/run-2026-11-27-h100-resident), that takes the
 *     resident kernel on 512 x 512 at 0.9 sparsity (and 0.95 from N = 512),
 *     1024 x 256, 1024 x 512 and 2048 x 512 (up to 1.9x faster), and
 *     leaves it off the short and the wide layers, where copying K rows
 *     costs more than the gathers it saves (down to 0.6x).
 *     In strips of 32 columns (K past the 64-column strips) the gathers
 *     must come to three quarters of the copies: at 0.64 (the layers of
 *     sparsity 0.98 at N = 256-512) the two kernels tie, 0.85-1.10x, and
 *     from 0.8 the strips win, 1.28x in geometric mean (H200,
 *     bench/results/tc/run-2026-11-29-h200-s42/narrow_rule.py).
 * Returns 1 and the launch error when it launched, 0 to fall through. */
#define TC_RX_MIN_GATHER_PER_COPY 0.5
#define TC_RX_MIN_GATHER_PER_COPY_NARROW 0.75
#define TC_RX_MIN_WARPS_PER_SM 12 /* the grid's warps a multiprocessor, elsewhere than tall */
template <int VT, int KS>
static int rx_try(const loomcu_tc_plan *plan, const params &pr, int64_t k, int dev, int sms, cudaStream_t st,
                  loomcu_tc_path path, cudaError_t *err)
{
    rx_limits l;
    const int64_t records = plan->bin_start[LOOMCU_TC_BINS]; /* rows, and segments in place of long rows */
    /* fewer than 2^29 records: the walk's indices (ri + 2 stride at most,
     * stride <= records + 15) fit an int, whose arithmetic is cheaper */
    if (path == LOOMCU_TC_PATH_GATHER || records >= (1 << 29) || k >= (1 << 30) ||
        rx_device_limits(dev, &l) != cudaSuccess)
        return 0;
    int widest = RX_WIDE;
#ifdef LOOMTC_TUNING /* tuning sessions only: LOOMTC_RX_W, the widest strip allowed */
    if (const char *e = TUNING_ENV("LOOMTC_RX_W"))
        widest = atoi(e);
#endif
    const int w = rx_width(l, k, widest);
    if (w == 0)
        return 0;
    const size_t strip = (size_t)(k + 1) * rx_pitch(w), red = (size_t)RX_WARPS * w * sizeof(float);
    const int64_t strips = (pr.n + w - 1) / w;
    double per_sm = 1.0; /* blocks a multiprocessor */
#ifdef LOOMTC_TUNING     /* tuning sessions only: LOOMTC_RX_BLOCKS */
    if (const char *e = TUNING_ENV("LOOMTC_RX_BLOCKS"))
        per_sm = atof(e);
#endif
    const int64_t row_cap = (records + RX_WARPS - 1) / RX_WARPS;
    int64_t chunks = (int64_t)(sms * per_sm) / strips;
    chunks = chunks > row_cap ? row_cap : chunks < 1 ? 1 : chunks;
    const bool tall = rx_tall(records, sms);
    /* The plan's spread rows (rx_spread), where the longest outweighs
     * RX_SPREAD_OVER_LOAD warps' shares (below that the longest-first walk
     * balances the warps already, and the spreading's barriers cost more
     * than they save) and where their sums fit after the strip (not where
     * K is within a few rows of the bound).  Speed only: the bits are the
     * same either way. */
    double over_load = RX_SPREAD_OVER_LOAD;
#ifdef LOOMTC_TUNING /* tuning sessions only: LOOMTC_RX_SPREAD_LOAD */
    if (const char *e = TUNING_ENV("LOOMTC_RX_SPREAD_LOAD"))
        over_load = atof(e);
#endif
    const double warp_share = (double)plan->nnz / ((double)chunks * RX_WARPS);
    const int64_t skip = plan->nspread > 0 && (double)plan->spread_longest >= over_load * warp_share &&
                                 (int64_t)(strip + red) <= rx_smem_limit(l)
                             ? plan->nspread
                             : 0;
    const size_t smem = strip + (skip > 0 ? red : 0);
    const double blocks = (double)chunks * (double)strips;
    const double gathered_per_copied = (double)plan->nnz * (double)pr.n / (blocks * (double)k * w);
    const bool fills = blocks * RX_WARPS >= (double)TC_RX_MIN_WARPS_PER_SM * sms;
    const double min_gpc = w == RX_WIDE ? TC_RX_MIN_GATHER_PER_COPY : TC_RX_MIN_GATHER_PER_COPY_NARROW;
    bool use = tall || (fills && gathered_per_copied >= min_gpc) || path == LOOMCU_TC_PATH_RESIDENT;
#ifdef LOOMTC_TUNING /* tuning sessions only: LOOMTC_PATH=gather|resident */
    if (const char *e = TUNING_ENV("LOOMTC_PATH"))
        use = strcmp(e, "resident") == 0;
#endif
    if (!use)
        return 0;
    rx_params rp;
    rp.n = pr.n;
    rp.ci = pr.ci;
    rp.val = pr.val;
    rp.x = pr.x;
    rp.ldx = pr.ldx;
    rp.y = pr.y;
    rp.ldy = pr.ldy;
    rp.alpha = pr.alpha;
    rp.beta = pr.beta;
    rp.vec = pr.vec;
    rp.k = (int)k;
    rp.m = (int)(records - skip);
    const rx_spread_args sa = {plan->bin_start[3] /* bin 3: P = 8, longest first */, skip, (uint32_t)strip};
    rp.so = pr.so;
    if (strips > INT32_MAX)
        return 0;
    rp.strips = (int)strips;
    rp.chunks = (int)chunks;
    const dim3 grid((unsigned)chunks, (unsigned)(strips < 65535 ? strips : 65535));
    if (skip > 0) /* kernels without rx_spread where no row is spread: main's code, as fast as it was */
        *err = w == RX_WIDE ? rx_launch_w<VT, KS, RX_WIDE, true>(plan, rp, sa, grid, smem, dev, l.optin, st)
                            : rx_launch_w<VT, KS, RX_NARROW, true>(plan, rp, sa, grid, smem, dev, l.optin, st);
    else
        *err = w == RX_WIDE ? rx_launch_w<VT, KS, RX_WIDE, false>(plan, rp, sa, grid, smem, dev, l.optin, st)
                            : rx_launch_w<VT, KS, RX_NARROW, false>(plan, rp, sa, grid, smem, dev, l.optin, st);
    return 1;
}

/* The gather kernel's launch shape (speed only): the rows each slot walks in
 * sequence (rows_per_slot; the pipeline runs on across them instead of a new
 * block paying the whole latency chain again) and how many windows the strips
 * are cut into (split, gridDim.y).  The rule of earlier sessions fills the
 * GPU once: with fewer row blocks than it holds, split the strips; with
 * more, give each slot several rows.  That leaves it idle on matrices whose
 * long rows make a few blocks far heavier than the rest (Nsight Compute, H100,
 * a 512 x 2048 DLMC layer at N = 256: multiprocessors active 49% of the
 * kernel's time).  So a cost model, in units of one item (one group of one
 * part for one strip), compares shapes:
 *   a block costs TC_BLOCK_COST (its start: row records, indices, the
 *   pipeline's fill), plus, for each (row, strip) its heaviest slot walks,
 *   the row's groups per part and TC_ROW_STRIP_COST (the parts' meeting and
 *   the store);
 *   the kernel takes about the larger of its heaviest block and as many
 *   average blocks as it has waves (blocks over the blocks resident at once,
 *   capacity, rounded up: Nsight Compute showed the second, partial wave of
 *   a 1.3-wave grid leaving a third of the multiprocessors idle); the rows go longest
 *   first and a slot's rows are strided over the bin (tc_rows), so block 0
 *   holds the heaviest slot and the hardware starts it first.
 * A shape other than the fill-once one is taken only where the model puts
 * it TC_SHAPE_GAIN ahead: on the small layers (a few microseconds, the
 * blocks' start dominating) the fill-once shape measured as fast or faster.
 * Host work per launch: a few hundred operations. */
#define TC_BLOCK_COST 2.0
#define TC_ROW_STRIP_COST 0.5
#define TC_SHAPE_GAIN 0.8

/* A bin's part count: 2^b, and 8 for the segments' bin. */
static int bin_parts(int b) { return b == LOOMCU_TC_SEGMENT_BIN ? TC_PARTS_MAX : 1 << b; }

static double shape_cost(const loomcu_tc_plan *plan, int64_t strips, int64_t capacity, int64_t r, int64_t s)
{
    const int64_t w = (strips + s - 1) / s;
    s = (strips + w - 1) / w;
    double total = 0, heaviest = 0;
    int64_t all_blocks = 0;
    for (int b = 0; b < LOOMCU_TC_BINS; b++) {
        const int64_t n = plan->bin_start[b + 1] - plan->bin_start[b], rpb = WARPS / bin_parts(b);
        if (n == 0)
            continue;
        const int64_t blocks = (n + rpb * r - 1) / (rpb * r), stride = blocks * rpb;
        double h = 0; /* slot 0 of block 0: the bin's rows 0, stride, 2 stride, ... */
        for (int64_t i = 0; i < n; i += stride)
            h += plan->group_count[plan->bin_start[b] + i] + TC_ROW_STRIP_COST;
        h = TC_BLOCK_COST + (double)w * h;
        heaviest = h > heaviest ? h : heaviest;
        total += (double)s * ((double)blocks * TC_BLOCK_COST +
                              (double)w * ((double)plan->group_sum[b] + (double)n * TC_ROW_STRIP_COST) / (double)rpb);
        all_blocks += s * blocks;
    }
    if (all_blocks == 0)
        return 0;
    /* whole waves of the average block: 1.3 waves of equal blocks take two */
    const double waves = (double)((all_blocks + capacity - 1) / capacity) * (total / (double)all_blocks);
    return waves > heaviest ? waves : heaviest;
}

static void launch_shape(const loomcu_tc_plan *plan, int64_t strips, int64_t capacity, int64_t blocks1,
                         int64_t *rows_out, int64_t *split_out)
{
    loomcu_tc_shape *memo = plan->shape;
    if (memo->strips == strips && memo->capacity == capacity) {
        *rows_out = memo->rows;
        *split_out = memo->split;
        return;
    }
    /* the fill-once shape */
    int64_t r0 = 1, s0 = 1;
    if (blocks1 < capacity)
        s0 = capacity / blocks1 < strips ? capacity / blocks1 : strips;
    else
        r0 = (blocks1 + capacity - 1) / capacity;
#ifdef LOOMTC_TUNING /* tuning sessions only: LOOMTC_SHAPE=old, the fill-once shape */
    if (TUNING_ENV("LOOMTC_SHAPE")) {
        *rows_out = r0;
        *split_out = s0;
        return;
    }
#endif
    const double cost0 = shape_cost(plan, strips, capacity, r0, s0);
    double best = cost0;
    *rows_out = r0;
    *split_out = s0;
    /* rows per slot 1, 2, 3, 4, 6, 9, ... up to twice the fill-once count;
     * strip windows 1, 2, 3, 4, 8, 16 */
    for (int64_t s = 1; s <= strips && s <= 16; s = s < 4 ? s + 1 : 2 * s)
        for (int64_t r = 1; r <= 2 * r0 + 1; r = r < 4 ? r + 1 : r + r / 2) {
            const double c = shape_cost(plan, strips, capacity, r, s);
            if (c < best && c < TC_SHAPE_GAIN * cost0) {
                best = c;
                *rows_out = r;
                *split_out = s;
            }
        }
    *memo = loomcu_tc_shape{strips, capacity, *rows_out, *split_out};
}

/* The workspace's row stride at N = n: whole strips of 64 columns, which
 * also hold the resident kernel's strips of 32. */
static int64_t segment_ws(int64_t n) { return (n + NS - 1) / NS * NS; }

static size_t segment_work_elems(const loomcu_tc_plan *plan, int64_t n) { return (size_t)plan->nsegments * segment_ws(n); }
static size_t segment_counts(const loomcu_tc_plan *plan, int64_t n) { return (size_t)plan->nlong * ((n + 31) / 32); }

/* The segments' device state for N = n: made once, grown when N grows.
 * The counters start at zero, and each call leaves them so. */
static cudaError_t segment_state(const loomcu_tc_plan *plan, int64_t n, cudaStream_t st)
{
    loomcu_tc_segment_state *z = plan->seg;
    cudaError_t e = cudaSuccess;
    if (!z->side && (e = cudaStreamCreateWithFlags(&z->side, cudaStreamNonBlocking)) != cudaSuccess)
        return e;
    if (!z->fork && (e = cudaEventCreateWithFlags(&z->fork, cudaEventDisableTiming)) != cudaSuccess)
        return e;
    if (!z->join && (e = cudaEventCreateWithFlags(&z->join, cudaEventDisableTiming)) != cudaSuccess)
        return e;
    const size_t work = segment_work_elems(plan, n), counts = segment_counts(plan, n);
    if (work > z->work_elems) {
        cudaFree(z->work);
        z->work = NULL;
        z->work_elems = 0;
        if ((e = cudaMalloc((void **)&z->work, sizeof(float) * work)) != cudaSuccess)
            return e;
        z->work_elems = work;
    }
    if (counts > z->counts) {
        cudaFree(z->count);
        z->count = NULL;
        z->counts = 0;
        if ((e = cudaMalloc((void **)&z->count, sizeof(int) * counts)) != cudaSuccess ||
            (e = cudaMemsetAsync(z->count, 0, sizeof(int) * counts, st)) != cudaSuccess)
            return e;
        z->counts = counts;
    }
    return e;
}

template <int VT, int PREC, int KS>
static cudaError_t launch_bins(const loomcu_tc_plan *plan, params pr, cudaStream_t st, loomcu_tc_path path)
{
    typedef slot_shape<VT, PREC, KS> sh;
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = loomcu_tc_device_sms(&dev, &sms);
    if (e != cudaSuccess)
        return e;
    if (plan->nsegments > 0) { /* long rows: their segments' workspace and counters */
        if ((e = segment_state(plan, pr.n, st)) != cudaSuccess)
            return e;
        pr.so.segs = reinterpret_cast<const int4 *>(plan->segments);
        pr.so.work = plan->seg->work;
        pr.so.count = plan->seg->count;
        pr.so.ws = segment_ws(pr.n);
        pr.so.cstride = (pr.n + 31) / 32;
    }
    if constexpr (VT != TC_VAL_F32) { /* 16-bit storage: the resident-strip kernel where it pays */
        cudaError_t rx_err = cudaSuccess;
        if (rx_try<VT, KS>(plan, pr, pr.k, dev, sms, st, path, &rx_err))
            return rx_err;
    }
    if (path == LOOMCU_TC_PATH_RESIDENT)
        return cudaErrorNotSupported;
    e = kernel_setup<VT, PREC, KS>(dev, &per_sm);
    if (e != cudaSuccess)
        return e;
    int64_t capacity = (int64_t)sms * per_sm;
#ifdef LOOMTC_TUNING /* tuning sessions only: aim at FILL times the resident blocks */
    if (const char *e = TUNING_ENV("LOOMTC_FILL"))
        capacity = (int64_t)(capacity * atof(e));
    if (capacity < 1)
        capacity = 1;
#endif

    int64_t blocks1 = 0; /* blocks at one row per slot */
    for (int b = 0; b < LOOMCU_TC_BINS; b++) {
        const int64_t count = plan->bin_start[b + 1] - plan->bin_start[b];
        const int rpb = WARPS / bin_parts(b);
        blocks1 += (count + rpb - 1) / rpb;
    }
    if (blocks1 == 0)
        return cudaSuccess;
    const int64_t strips = (pr.n + NS - 1) / NS;
    if (strips > INT32_MAX)
        return cudaErrorInvalidValue;
    pr.strips = (int)strips;
    int64_t split = 1, rows_per_slot = 1;
    launch_shape(plan, strips, capacity, blocks1, &rows_per_slot, &split);
#ifdef LOOMTC_TUNING /* tuning sessions only: force the shape */
    if (const char *e = TUNING_ENV("LOOMTC_SPLIT"))
        split = atoll(e);
    if (const char *e = TUNING_ENV("LOOMTC_ROWS"))
        rows_per_slot = atoll(e);
    if (split < 1)
        split = 1;
    if (rows_per_slot < 1)
        rows_per_slot = 1;
#endif
    if (split > pr.strips)
        split = pr.strips;
    if (split > 65535)
        split = 65535;
    if (rows_per_slot > INT32_MAX / WARPS)
        rows_per_slot = INT32_MAX / WARPS;
    pr.window = (int)((strips + split - 1) / split);
    split = (strips + pr.window - 1) / pr.window;
    pr.rows_per_slot = (int)rows_per_slot;

    bins bn;
    bn.row_start[0] = bn.block_start[0] = 0;
    for (int b = 0; b < LOOMCU_TC_BINS; b++) {
        const int64_t count = plan->bin_start[b + 1] - plan->bin_start[b];
        const int64_t rows_per_block = (int64_t)(WARPS / bin_parts(b)) * rows_per_slot;
        bn.row_start[b + 1] = plan->bin_start[b + 1];
        bn.block_start[b + 1] = bn.block_start[b] + (count + rows_per_block - 1) / rows_per_block;
    }
    constexpr int S = LOOMCU_TC_SEGMENT_BIN;
    const int64_t blocks = bn.block_start[S], seg_blocks = bn.block_start[S + 1] - bn.block_start[S];
    if (blocks > 0x7fffffff || seg_blocks > 0x7fffffff)
        return cudaErrorInvalidValue;
    /* The segments' kernel on the plan's second stream, forked from and
     * joined back to the caller's, so that the two kernels share the GPU
     * (in one stream the second would wait for the first's last block) */
    const bool fork = blocks > 0 && seg_blocks > 0;
    cudaStream_t seg_st = st;
    if (fork) {
        loomcu_tc_segment_state *z = plan->seg;
        if ((e = cudaEventRecord(z->fork, st)) != cudaSuccess || (e = cudaStreamWaitEvent(z->side, z->fork, 0)) != cudaSuccess)
            return e;
        seg_st = z->side;
    }
    if (seg_blocks > 0)
        tc_segment_kernel<VT, PREC, KS><<<dim3((unsigned)seg_blocks, (unsigned)split), THREADS, sh::SMEM, seg_st>>>(
            pr, plan->rows + bn.row_start[S], bn.row_start[S + 1] - bn.row_start[S]);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    if (blocks > 0 && (e = launch_after_previous(tc_spmm_kernel<VT, PREC, KS>, dim3((unsigned)blocks, (unsigned)split),
                                                 dim3(THREADS), sh::SMEM, st, pr, plan->rows, bn)) != cudaSuccess)
        return e;
    if (fork && ((e = cudaEventRecord(plan->seg->join, plan->seg->side)) != cudaSuccess ||
                 (e = cudaStreamWaitEvent(st, plan->seg->join, 0)) != cudaSuccess))
        return e;
    return cudaSuccess;
}

/* The instantiated combinations: fp16 and bf16 storage use their own type on
 * the MMA; fp32 storage is rounded to tf32, fp16 or bf16. */
#ifdef LOOMTC_ONLY_F16 /* tuning builds: the fp16 kernels alone, in a fifth of the build time */
#define LOOMTC_COMBOS(X) X(TC_VAL_F16, TC_PREC_F16, 16) X(TC_VAL_F16, TC_PREC_F16, 8)
#else
#define LOOMTC_COMBOS(X)                                                                          \
    X(TC_VAL_F16, TC_PREC_F16, 16) X(TC_VAL_F16, TC_PREC_F16, 8)                                  \
    X(TC_VAL_BF16, TC_PREC_BF16, 16) X(TC_VAL_BF16, TC_PREC_BF16, 8)                              \
    X(TC_VAL_F32, TC_PREC_TF32, 8) X(TC_VAL_F32, TC_PREC_TF32, 4)                                 \
    X(TC_VAL_F32, TC_PREC_F16, 16) X(TC_VAL_F32, TC_PREC_F16, 8)                                  \
    X(TC_VAL_F32, TC_PREC_BF16, 16) X(TC_VAL_F32, TC_PREC_BF16, 8)
#endif

} // namespace loomtc

extern "C" cudaError_t loomcu_tc_device_sms(int *dev, int *sms)
{
    cudaError_t e = cudaGetDevice(dev);
    return e == cudaSuccess ? cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, *dev) : e;
}

extern "C" cudaError_t loomcu_tc_resident_max_k(int64_t *max_k, int64_t *max_k_narrow)
{
    int dev = 0, sms = 0;
    loomtc::rx_limits l;
    cudaError_t e = loomcu_tc_device_sms(&dev, &sms);
    if (e == cudaSuccess)
        e = loomtc::rx_device_limits(dev, &l);
    if (e != cudaSuccess)
        return e;
    const int64_t k = loomtc::rx_max_k(l, loomtc::RX_WIDE), kn = loomtc::rx_max_k(l, loomtc::RX_NARROW);
    *max_k = k > 0 ? k : 0;
    *max_k_narrow = kn > 0 ? kn : 0;
    return cudaSuccess;
}

extern "C" int loomcu_tc_supported(tc_value vt, const tc_config *cfg)
{
    if (cfg->form == TC_FORM_TILES)
        return loomcu_tc_tiles_supported(vt, cfg);
    if (cfg->form != TC_FORM_ROWS)
        return 0;
#define LOOMTC_MATCH(V, P, K)                                                                     \
    if (vt == V && cfg->precision == P && cfg->k == K)                                            \
        return 1;
    LOOMTC_COMBOS(LOOMTC_MATCH)
#undef LOOMTC_MATCH
    return 0;
}

/* Rows of a bin, longest first (ties in row order: the plan is the same on
 * every run). */
static int longest_first(const void *a, const void *b)
{
    const loomcu_tc_row *x = (const loomcu_tc_row *)a, *y = (const loomcu_tc_row *)b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The rows the resident kernel spreads over 8 warps (rx_spread): the
 * longest of 8 parts - the first of bin 3, longest first - while they
 * have at least RX_SPREAD_MIN_GROUPS groups and more than
 * RX_SPREAD_OVER_MEAN times the mean row, at most RX_SPREAD_ROWS_PER_SM a
 * multiprocessor; none on tall matrices (rx_tall).  Speed only: a part
 * sums the same groups in the same order on whichever warp. */
#define RX_SPREAD_MIN_GROUPS 8
#define RX_SPREAD_OVER_MEAN 1.5
#define RX_SPREAD_ROWS_PER_SM 2
static cudaError_t rx_spread_rows(loomcu_tc_plan *plan, const loomcu_tc_row *host)
{
    int dev = 0, sms = 0;
    const cudaError_t e = loomcu_tc_device_sms(&dev, &sms);
    if (e != cudaSuccess || plan->m == 0 || loomtc::rx_tall(plan->bin_start[LOOMCU_TC_BINS], sms))
        return e;
    int64_t min_groups = RX_SPREAD_MIN_GROUPS;
    double over_mean = RX_SPREAD_OVER_MEAN;
#ifdef LOOMTC_TUNING /* tuning sessions only: LOOMTC_RX_SPREAD_GROUPS (0: none), _MEAN */
    if (const char *e = TUNING_ENV("LOOMTC_RX_SPREAD_GROUPS"))
        min_groups = atoll(e);
    if (const char *e = TUNING_ENV("LOOMTC_RX_SPREAD_MEAN"))
        over_mean = atof(e);
    if (min_groups <= 0)
        return cudaSuccess;
#endif
    const int k = plan->cfg.k;
    const double bound = over_mean * (double)plan->nnz / (double)plan->m;
    const int64_t first = plan->bin_start[3], end = plan->bin_start[4], cap = (int64_t)RX_SPREAD_ROWS_PER_SM * sms;
    int64_t n = 0; /* bin 3: P = 8 */
    while (first + n < end && n < cap && host[first + n].len > bound && (host[first + n].len + k - 1) / k >= min_groups)
        n++;
    plan->nspread = n;
    plan->spread_longest = n > 0 ? host[first].len : 0;
    return cudaSuccess;
}

/* The plan's records: each row, or each segment in place of a row of
 * several (tc_spmm.h), binned by part count and longest first within a
 * bin; and the segment table. */
extern "C" cudaError_t loomcu_tc_plan_create(loomcu_tc_plan *plan, const int64_t *ro, int64_t m,
                                             const tc_config *cfg)
{
    memset(plan, 0, sizeof *plan);
    plan->cfg = *cfg;
    plan->m = m;
    plan->nnz = m > 0 ? ro[m] - ro[0] : 0;
    if (m > INT32_MAX)
        return cudaErrorInvalidValue;
    if (cfg->form == TC_FORM_TILES) {
        plan->tiles = loomcu_tc_tiles_create();
        return plan->tiles ? cudaSuccess : cudaErrorMemoryAllocation;
    }
    const int k = cfg->k;
    int64_t records = 0;
    for (int64_t i = 0; i < m; i++) {
        const int64_t len = ro[i + 1] - ro[i];
        if (len < 0 || len > INT32_MAX)
            return cudaErrorInvalidValue;
        const int B = tc_row_segments(len, k);
        records += B;
        if (B > 1) {
            plan->nlong++;
            plan->nsegments += B;
        }
    }
    if (plan->nsegments > INT32_MAX)
        return cudaErrorInvalidValue;
    const size_t nr = (size_t)(records > 0 ? records : 1), ns = (size_t)(plan->nsegments > 0 ? plan->nsegments : 1);
    loomcu_tc_row *flat = (loomcu_tc_row *)malloc(sizeof(loomcu_tc_row) * nr);
    loomcu_tc_row *host = (loomcu_tc_row *)malloc(sizeof(loomcu_tc_row) * nr);
    loomcu_tc_segment *segs = (loomcu_tc_segment *)malloc(sizeof(loomcu_tc_segment) * ns);
    unsigned char *bin = (unsigned char *)malloc(nr);
    plan->group_count = (int32_t *)malloc(sizeof(int32_t) * nr);
    plan->shape = (loomcu_tc_shape *)calloc(1, sizeof *plan->shape);
    plan->seg = (loomcu_tc_segment_state *)calloc(1, sizeof *plan->seg);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (!flat || !host || !segs || !bin || !plan->group_count || !plan->shape || !plan->seg)
        goto done;
    {
        /* the records in row order, each with its bin (log2 of its P) */
        int64_t count[LOOMCU_TC_BINS] = {0}, r = 0;
        int32_t next_seg = 0, long_rows = 0;
        for (int64_t i = 0; i < m; i++) {
            const int64_t len = ro[i + 1] - ro[i];
            const int B = tc_row_segments(len, k);
            for (int sb = 0; sb < B; sb++, r++) {
                int64_t first = 0, n = len, G;
                int32_t code = (int32_t)i;
                if (B > 1) {
                    tc_segment_span(len, k, B, sb, &first, &n);
                    segs[next_seg] = loomcu_tc_segment{(int32_t)i, B, next_seg - sb, long_rows};
                    code = -1 - next_seg++;
                }
                flat[r] = loomcu_tc_row{ro[i] + first, code, (int32_t)n};
                int P = tc_row_parts(n, k, &G), bb = 0;
                while ((1 << bb) < P)
                    bb++;
                if (B > 1)
                    bb = LOOMCU_TC_SEGMENT_BIN; /* P = 8 too */
                bin[r] = (unsigned char)bb;
                count[bb]++;
            }
            long_rows += B > 1;
        }
        plan->bin_start[0] = 0;
        for (int bb = 0; bb < LOOMCU_TC_BINS; bb++)
            plan->bin_start[bb + 1] = plan->bin_start[bb] + count[bb];
        int64_t fill[LOOMCU_TC_BINS];
        for (int bb = 0; bb < LOOMCU_TC_BINS; bb++)
            fill[bb] = plan->bin_start[bb];
        for (int64_t j = 0; j < records; j++)
            host[fill[bin[j]]++] = flat[j];
    }
    for (int bb = 0; bb < LOOMCU_TC_BINS; bb++) {
        loomcu_tc_row *r0 = host + plan->bin_start[bb];
        qsort(r0, (size_t)(plan->bin_start[bb + 1] - plan->bin_start[bb]), sizeof *r0, longest_first);
        for (int64_t i = plan->bin_start[bb]; i < plan->bin_start[bb + 1]; i++) {
            int64_t G;
            tc_row_parts(host[i].len, k, &G);
            plan->group_count[i] = (int32_t)G;
            plan->group_sum[bb] += G;
        }
    }
    if (cfg->precision != TC_PREC_TF32 && (e = rx_spread_rows(plan, host)) != cudaSuccess) /* 16-bit: resident */
        goto done;
    e = cudaMalloc((void **)&plan->rows, sizeof(loomcu_tc_row) * nr);
    if (e == cudaSuccess)
        e = cudaMemcpy(plan->rows, host, sizeof(loomcu_tc_row) * (size_t)records, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && plan->nsegments > 0) {
        e = cudaMalloc((void **)&plan->segments, sizeof(loomcu_tc_segment) * ns);
        if (e == cudaSuccess)
            e = cudaMemcpy(plan->segments, segs, sizeof(loomcu_tc_segment) * ns, cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess)
        e = loomcu_uploads_landed();
done:
    free(flat);
    free(host);
    free(segs);
    free(bin);
    if (e != cudaSuccess)
        loomcu_tc_plan_destroy(plan);
    return e;
}

extern "C" void loomcu_tc_plan_destroy(loomcu_tc_plan *plan)
{
    if (plan->rows)
        cudaFree(plan->rows);
    plan->rows = NULL;
    if (plan->segments)
        cudaFree(plan->segments);
    plan->segments = NULL;
    if (plan->seg) {
        cudaFree(plan->seg->work);
        cudaFree(plan->seg->count);
        if (plan->seg->side)
            cudaStreamDestroy(plan->seg->side);
        if (plan->seg->fork)
            cudaEventDestroy(plan->seg->fork);
        if (plan->seg->join)
            cudaEventDestroy(plan->seg->join);
        free(plan->seg);
    }
    plan->seg = NULL;
    free(plan->group_count);
    plan->group_count = NULL;
    free(plan->shape);
    plan->shape = NULL;
    loomcu_tc_tiles_destroy(plan->tiles);
    plan->tiles = NULL;
}

extern "C" cudaError_t loomcu_tc_reserve(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                         cudaStream_t stream)
{
    if (plan->cfg.form == TC_FORM_TILES)
        return loomcu_tc_tiles_reserve(plan, p, stream);
    if (p->n < 0 || !plan->seg)
        return cudaErrorInvalidValue;
    return plan->nsegments > 0 ? loomtc::segment_state(plan, p->n, stream) : cudaSuccess;
}

extern "C" size_t loomcu_tc_state_bytes(const loomcu_tc_plan *plan, int64_t k, int64_t n)
{
    if (plan->cfg.form == TC_FORM_TILES)
        return loomcu_tc_tiles_state_bytes(plan->m, k, n);
    return plan->nsegments > 0 ? sizeof(float) * loomtc::segment_work_elems(plan, n) +
                                     sizeof(int) * loomtc::segment_counts(plan, n)
                               : 0;
}

extern "C" cudaError_t loomcu_tc_spmm(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                      cudaStream_t stream)
{
    return loomcu_tc_spmm_path(plan, p, stream, LOOMCU_TC_PATH_AUTO);
}

extern "C" cudaError_t loomcu_tc_spmm_path(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                           cudaStream_t stream, loomcu_tc_path path)
{
    using namespace loomtc;
    if (!loomcu_tc_supported(p->vt, &plan->cfg) || p->m != plan->m || p->n < 0)
        return cudaErrorInvalidValue;
    if (p->m == 0 || p->n == 0)
        return cudaSuccess;
    if (plan->cfg.form == TC_FORM_TILES)
        return path == LOOMCU_TC_PATH_GATHER || path == LOOMCU_TC_PATH_RESIDENT
                   ? cudaErrorNotSupported
                   : loomcu_tc_tiles_spmm(plan, p, stream, path);
    if (path == LOOMCU_TC_PATH_TILES_PLAIN || path == LOOMCU_TC_PATH_TILES_PIPELINED)
        return cudaErrorNotSupported;
    params pr;
    memset(&pr, 0, sizeof pr);
    pr.n = p->n;
    pr.ci = p->col_indices;
    pr.val = p->values;
    pr.x = p->x;
    pr.ldx = p->ldx;
    pr.y = p->y;
    pr.ldy = p->ldy;
    pr.alpha = p->alpha;
    pr.beta = p->beta;
    pr.k = p->k;
    const int64_t epc = 16 / (int64_t)tc_value_size(p->vt);
    pr.vec = ((uintptr_t)p->x % 16 == 0) && (p->ldx % epc == 0);
#define LOOMTC_LAUNCH(V, P, K)                                                                    \
    if (p->vt == V && plan->cfg.precision == P && plan->cfg.k == K)                               \
        return launch_bins<V, P, K>(plan, pr, stream, path);
    LOOMTC_COMBOS(LOOMTC_LAUNCH)
#undef LOOMTC_LAUNCH
    return cudaErrorInvalidValue;
}
