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
 *   every bin (blocks of a bin run rows of that P).
 *
 *   Columns go in strips of 64, spread over gridDim.y: per group the warp
 *   stages the k dense rows' strip (k x 64) in shared memory with 16-byte
 *   loads (the "compressed RHS buffer"), converting to the MMA type on the
 *   way, then runs 4 MMAs (one per 16 columns) fed by ldmatrix.trans
 *   (fp16/bf16) or plain loads (tf32).
 *   Outputs are staged in shared memory and written two columns per lane.
 *
 * Speed-only choices (strip width, block shape, strips per block, vector
 * loads) never change the order of operations.  Not done: several blocks
 * per row for rows of more than 8 groups (such a row keeps 8 warps, each
 * taking several groups).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tc_mma.cuh"
#include "tc_round.h"
#include "tc_spmm.h"

namespace loomtc {

constexpr int WARPS = 8;
constexpr int THREADS = WARPS * 32;
constexpr int NS = 64;  /* columns per strip: 4 MMA tiles of 16 */
constexpr int PAD = 8;  /* stage row padding (elements): conflict-free ldmatrix / loads */

template <int VT> struct storage;
template <> struct storage<TC_VAL_F32> { typedef float T; };
template <> struct storage<TC_VAL_F16> { typedef __half T; };
template <> struct storage<TC_VAL_BF16> { typedef __nv_bfloat16 T; };

/* MMA operand as held in shared memory: 16-bit patterns, or tf32 in an fp32. */
template <int PREC> struct optype { typedef uint16_t T; };
template <> struct optype<TC_PREC_TF32> { typedef float T; };

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ void store_as(float *p, float v) { *p = v; }
__device__ __forceinline__ void store_as(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store_as(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

/* Step 1 of tc_model.h: round a stored value to the MMA type (RNE), as
 * tc_operand() does.  A value already of the MMA type passes unchanged. */
template <int PREC, typename T>
__device__ __forceinline__ typename optype<PREC>::T to_operand(T v)
{
    if constexpr (PREC == TC_PREC_TF32) {
        return tc_round_tf32(to_f32(v));
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

struct params {
    int64_t n;
    const int64_t *__restrict__ ro;
    const int32_t *__restrict__ ci;
    const void *__restrict__ val;
    const void *__restrict__ x;
    int64_t ldx;
    void *__restrict__ y;
    int64_t ldy;
    float alpha, beta;
    int vec; /* X rows 16-byte aligned: vector loads allowed */
};

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* The MMA "A" fragment of tile t (columns 16t .. 16t+15 of the strip) from the
 * stage S[k][col]: A[r][kk] = S[kk][16t + r].  PTX ISA "Matrix fragments for
 * mma.m16n8k16/k8": lane = 4g + q holds rows g, g+8 and columns 2q.. (16-bit)
 * or q, q+4 (tf32). */
template <int PREC, int KS, typename O>
__device__ __forceinline__ void load_a(const O (*S)[NS + PAD], int t, int lane, uint32_t (&a)[4])
{
    const int g = lane >> 2, q = lane & 3;
    if constexpr (PREC == TC_PREC_TF32) {
        a[0] = __float_as_uint(S[q][16 * t + g]);
        a[1] = __float_as_uint(S[q][16 * t + g + 8]);
        if constexpr (KS == 8) {
            a[2] = __float_as_uint(S[q + 4][16 * t + g]);
            a[3] = __float_as_uint(S[q + 4][16 * t + g + 8]);
        }
    } else if constexpr (KS == 16) {
        /* matrices 0..3: S[0..7][0..7], S[0..7][8..15], S[8..15][0..7], S[8..15][8..15]
         * of the tile, transposed on the way (.trans) */
        const int mi = lane >> 3, j = lane & 7;
        const O *row = &S[j + (mi >= 2 ? 8 : 0)][16 * t + ((mi & 1) ? 8 : 0)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(smem_addr(row)));
    } else {
        const int mi = (lane >> 3) & 1, j = lane & 7;
        const O *row = &S[j][16 * t + (mi ? 8 : 0)];
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                     : "=r"(a[0]), "=r"(a[1])
                     : "r"(smem_addr(row)));
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
    auto op = [&](int t) -> typename optype<PREC>::T {
        typedef typename optype<PREC>::T O;
        return t < valid ? to_operand<PREC>(val[t]) : O(0);
    };
    if constexpr (PREC == TC_PREC_TF32) {
        b[0] = __float_as_uint(op(q));
        if constexpr (KS == 8)
            b[1] = __float_as_uint(op(q + 4));
    } else {
        b[0] = (uint32_t)op(2 * q) | ((uint32_t)op(2 * q + 1) << 16);
        if constexpr (KS == 16)
            b[1] = (uint32_t)op(2 * q + 8) | ((uint32_t)op(2 * q + 9) << 16);
    }
}

/* 16 bytes of X row `src` from column col (EPC elements), as operands packed
 * into four 32-bit words; columns at or past N read as zero.  Built from
 * constant-indexed scalars so everything stays in registers. */
template <int VT, int PREC>
__device__ __forceinline__ void load_chunk(const params &p, const typename storage<VT>::T *src, int64_t col,
                                           uint32_t (&w)[4])
{
    typedef typename storage<VT>::T T;
    constexpr int EPC = 16 / (int)sizeof(T);
    const bool full = col + EPC <= p.n;
    if constexpr (sizeof(T) == 2) { /* fp16/bf16 storage, same type on the MMA */
        if (p.vec && full) {
            int4 v = __ldg(reinterpret_cast<const int4 *>(src));
            w[0] = (uint32_t)v.x; w[1] = (uint32_t)v.y; w[2] = (uint32_t)v.z; w[3] = (uint32_t)v.w;
        } else {
            const unsigned short *s16 = reinterpret_cast<const unsigned short *>(src);
#pragma unroll
            for (int h = 0; h < 4; h++) {
                uint32_t lo = (col + 2 * h < p.n) ? s16[2 * h] : 0u;
                uint32_t hi = (col + 2 * h + 1 < p.n) ? s16[2 * h + 1] : 0u;
                w[h] = lo | (hi << 16);
            }
        }
    } else { /* fp32 storage: 4 values, rounded to the MMA type */
        float f[4];
        if (p.vec && full) {
            float4 v = __ldg(reinterpret_cast<const float4 *>(src));
            f[0] = v.x; f[1] = v.y; f[2] = v.z; f[3] = v.w;
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                f[e] = (col + e < p.n) ? src[e] : 0.0f;
        }
        if constexpr (PREC == TC_PREC_TF32) {
#pragma unroll
            for (int e = 0; e < 4; e++)
                w[e] = __float_as_uint(tc_round_tf32(f[e]));
        } else {
            w[0] = (uint32_t)to_operand<PREC>(f[0]) | ((uint32_t)to_operand<PREC>(f[1]) << 16);
            w[1] = (uint32_t)to_operand<PREC>(f[2]) | ((uint32_t)to_operand<PREC>(f[3]) << 16);
            w[2] = w[3] = 0;
        }
    }
}

/* Stage the group's dense rows, strip [n0, n0+NS), into S as operands. */
template <int VT, int PREC, int KS>
__device__ __forceinline__ void stage_rows(const params &p, int64_t j0, int valid, int64_t n0, int lane,
                                           typename optype<PREC>::T (*S)[NS + PAD])
{
    typedef typename storage<VT>::T T;
    typedef typename optype<PREC>::T O;
    constexpr int EPC = 16 / (int)sizeof(T); /* elements per 16-byte chunk */
    constexpr int CPR = NS / EPC;            /* chunks per staged row */
    constexpr int ITER = KS * CPR / 32;      /* chunks per lane */
    /* All loads first, then all stores: ITER independent loads in flight. */
    uint32_t w[ITER][4];
#pragma unroll
    for (int it = 0; it < ITER; it++) {
        const int idx = lane + 32 * it, kk = idx / CPR, ch = idx % CPR;
        const int64_t col = n0 + ch * EPC;
        w[it][0] = w[it][1] = w[it][2] = w[it][3] = 0;
        if (kk < valid && col < p.n)
            load_chunk<VT, PREC>(p, (const T *)p.x + (int64_t)p.ci[j0 + kk] * p.ldx + col, col, w[it]);
    }
#pragma unroll
    for (int it = 0; it < ITER; it++) {
        const int idx = lane + 32 * it, kk = idx / CPR, ch = idx % CPR;
        O *dst = &S[kk][ch * EPC];
        if constexpr (sizeof(O) * EPC == 16)
            *reinterpret_cast<uint4 *>(dst) = make_uint4(w[it][0], w[it][1], w[it][2], w[it][3]);
        else
            *reinterpret_cast<uint2 *>(dst) = make_uint2(w[it][0], w[it][1]);
    }
}

/* Rows of one bin: P warps per row, WARPS/P rows per block; `block` is
 * the block's index within its bin. */
template <int VT, int PREC, int KS, int P>
__device__ __forceinline__ void tc_rows(const params &p, const int32_t *__restrict__ rows, int64_t nrows,
                                        int64_t block, typename optype<PREC>::T (*stage)[KS][NS + PAD],
                                        float (*red)[NS])
{
    typedef typename storage<VT>::T T;
    typedef typename optype<PREC>::T O;
    constexpr int RPB = WARPS / P;

    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, q = lane & 3;
    const int slot = warp / P, part = warp % P;
    const int64_t ri = block * RPB + slot;
    const bool active = ri < nrows;
    int64_t row = 0, start = 0, len = 0;
    if (active) {
        row = rows[ri];
        start = p.ro[row];
        len = p.ro[row + 1] - start;
    }
    /* tc_row_parts(): the row's groups, split into P contiguous runs */
    const int64_t groups = (len + KS - 1) / KS;
    const int64_t G = groups ? (groups + P - 1) / P : 0;
    const int64_t g_begin = part * G;
    const int64_t g_end = (part + 1) * G < groups ? (part + 1) * G : groups;
    O (*S)[NS + PAD] = stage[warp];

    /* strips over gridDim.y (speed only: more blocks for short matrices) */
    for (int64_t n0 = (int64_t)blockIdx.y * NS; n0 < p.n; n0 += (int64_t)gridDim.y * NS) {
        float acc[4][4];
#pragma unroll
        for (int t = 0; t < 4; t++)
            acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
        for (int64_t gi = g_begin; gi < g_end; gi++) {
            const int64_t j0 = start + gi * KS;
            const int valid = (int)(len - gi * KS < KS ? len - gi * KS : KS);
            uint32_t b[2] = {0, 0};
            load_b<VT, PREC, KS>(p, j0, valid, lane, b);
            stage_rows<VT, PREC, KS>(p, j0, valid, n0, lane, S);
            __syncwarp();
#pragma unroll
            for (int t = 0; t < 4; t++) {
                if (n0 + 16 * t < p.n) { /* tiles past N: nothing to compute */
                    uint32_t a[4];
                    load_a<PREC, KS>(S, t, lane, a);
                    mma<PREC, KS>::run(acc[t], a, b);
                }
            }
            __syncwarp();
        }
        /* Output column n0 + 16t + g is acc[t][0] (D row g), n0 + 16t + g + 8
         * is acc[t][2]; lane q == 0 of each quad stages them. */
        if (q == 0) {
#pragma unroll
            for (int t = 0; t < 4; t++) {
                red[warp][16 * t + g] = acc[t][0];
                red[warp][16 * t + g + 8] = acc[t][2];
            }
        }
        if constexpr (P > 1)
            __syncthreads();
        else
            __syncwarp();
        if (active && part == 0) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int cc = 2 * lane + h;
                const int64_t col = n0 + cc;
                if (col < p.n) {
                    float v[P];
#pragma unroll
                    for (int l = 0; l < P; l++)
                        v[l] = red[slot * P + l][cc];
                    /* the halving tree of tc_model.h step 4 */
#pragma unroll
                    for (int s = P / 2; s >= 1; s /= 2)
#pragma unroll
                        for (int l = 0; l < s; l++)
                            v[l] = __fadd_rn(v[l], v[l + s]);
                    T *y = (T *)p.y + row * p.ldy + col;
                    /* step 5, as tc_model.c finish() */
                    float y32 = (p.beta == 0.0f) ? __fmul_rn(p.alpha, v[0])
                                                 : __fmaf_rn(p.alpha, v[0], __fmul_rn(p.beta, to_f32(*y)));
                    store_as(y, y32);
                }
            }
        }
        if constexpr (P > 1)
            __syncthreads();
        else
            __syncwarp();
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
__global__ void __launch_bounds__(THREADS, 2) tc_spmm_kernel(params p, const int32_t *__restrict__ rows, bins bn)
{
    typedef typename optype<PREC>::T O;
    __shared__ __align__(16) O stage[WARPS][KS][NS + PAD];
    __shared__ float red[WARPS][NS];
    const int64_t b = blockIdx.x;
    /* the bin is uniform over the block, so the barriers inside stay legal */
    if (b < bn.block_start[1])
        tc_rows<VT, PREC, KS, 1>(p, rows, bn.row_start[1], b, stage, red);
    else if (b < bn.block_start[2])
        tc_rows<VT, PREC, KS, 2>(p, rows + bn.row_start[1], bn.row_start[2] - bn.row_start[1],
                                 b - bn.block_start[1], stage, red);
    else if (b < bn.block_start[3])
        tc_rows<VT, PREC, KS, 4>(p, rows + bn.row_start[2], bn.row_start[3] - bn.row_start[2],
                                 b - bn.block_start[2], stage, red);
    else
        tc_rows<VT, PREC, KS, 8>(p, rows + bn.row_start[3], bn.row_start[4] - bn.row_start[3],
                                 b - bn.block_start[3], stage, red);
}

template <int VT, int PREC, int KS>
static cudaError_t launch_bins(const loomcu_tc_plan *plan, const params &pr, cudaStream_t st)
{
    bins bn;
    bn.row_start[0] = bn.block_start[0] = 0;
    for (int b = 0; b < LOOMCU_TC_BINS; b++) {
        const int64_t count = plan->bin_start[b + 1] - plan->bin_start[b];
        const int rpb = WARPS >> b; /* rows per block at P = 2^b */
        bn.row_start[b + 1] = plan->bin_start[b + 1];
        bn.block_start[b + 1] = bn.block_start[b] + (count + rpb - 1) / rpb;
    }
    const int64_t blocks = bn.block_start[LOOMCU_TC_BINS];
    if (blocks == 0)
        return cudaSuccess;
    if (blocks > 0x7fffffff)
        return cudaErrorInvalidValue;
    const int64_t strips = (pr.n + NS - 1) / NS;
    const dim3 grid((unsigned)blocks, (unsigned)(strips < 65535 ? strips : 65535));
    tc_spmm_kernel<VT, PREC, KS><<<grid, THREADS, 0, st>>>(pr, plan->rows, bn);
    return cudaGetLastError();
}

/* The instantiated combinations: fp16 and bf16 storage use their own type on
 * the MMA; fp32 storage is rounded to tf32, fp16 or bf16. */
#define LOOMTC_COMBOS(X)                                                                          \
    X(TC_VAL_F16, TC_PREC_F16, 16) X(TC_VAL_F16, TC_PREC_F16, 8)                                  \
    X(TC_VAL_BF16, TC_PREC_BF16, 16) X(TC_VAL_BF16, TC_PREC_BF16, 8)                              \
    X(TC_VAL_F32, TC_PREC_TF32, 8) X(TC_VAL_F32, TC_PREC_TF32, 4)                                 \
    X(TC_VAL_F32, TC_PREC_F16, 16) X(TC_VAL_F32, TC_PREC_F16, 8)                                  \
    X(TC_VAL_F32, TC_PREC_BF16, 16) X(TC_VAL_F32, TC_PREC_BF16, 8)

} // namespace loomtc

extern "C" int loomcu_tc_supported(tc_value vt, const tc_config *cfg)
{
#define LOOMTC_MATCH(V, P, K)                                                                     \
    if (vt == V && cfg->precision == P && cfg->k == K)                                            \
        return 1;
    LOOMTC_COMBOS(LOOMTC_MATCH)
#undef LOOMTC_MATCH
    return 0;
}

extern "C" cudaError_t loomcu_tc_plan_create(loomcu_tc_plan *plan, const int64_t *ro, int64_t m,
                                             const tc_config *cfg)
{
    memset(plan, 0, sizeof *plan);
    plan->cfg = *cfg;
    plan->m = m;
    if (m > INT32_MAX)
        return cudaErrorInvalidValue;
    int32_t *host = (int32_t *)malloc(sizeof(int32_t) * (size_t)(m > 0 ? m : 1));
    if (!host)
        return cudaErrorMemoryAllocation;
    int64_t count[LOOMCU_TC_BINS] = {0};
    unsigned char *bin = (unsigned char *)malloc((size_t)(m > 0 ? m : 1));
    if (!bin) {
        free(host);
        return cudaErrorMemoryAllocation;
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t G;
        int P = tc_row_parts(ro[i + 1] - ro[i], cfg->k, &G), b = 0;
        while ((1 << b) < P)
            b++;
        bin[i] = (unsigned char)b;
        count[b]++;
    }
    plan->bin_start[0] = 0;
    for (int b = 0; b < LOOMCU_TC_BINS; b++)
        plan->bin_start[b + 1] = plan->bin_start[b] + count[b];
    int64_t fill[LOOMCU_TC_BINS];
    for (int b = 0; b < LOOMCU_TC_BINS; b++)
        fill[b] = plan->bin_start[b];
    for (int64_t i = 0; i < m; i++)
        host[fill[bin[i]]++] = (int32_t)i;
    free(bin);
    cudaError_t e = cudaMalloc((void **)&plan->rows, sizeof(int32_t) * (size_t)(m > 0 ? m : 1));
    if (e == cudaSuccess)
        e = cudaMemcpy(plan->rows, host, sizeof(int32_t) * (size_t)m, cudaMemcpyHostToDevice);
    free(host);
    if (e != cudaSuccess) {
        cudaFree(plan->rows);
        plan->rows = NULL;
    }
    return e;
}

extern "C" void loomcu_tc_plan_destroy(loomcu_tc_plan *plan)
{
    if (plan->rows)
        cudaFree(plan->rows);
    plan->rows = NULL;
}

extern "C" cudaError_t loomcu_tc_spmm(const loomcu_tc_plan *plan, const loomcu_tc_problem *p,
                                      cudaStream_t stream)
{
    using namespace loomtc;
    if (!loomcu_tc_supported(p->vt, &plan->cfg) || p->m != plan->m || p->n < 0)
        return cudaErrorInvalidValue;
    if (p->m == 0 || p->n == 0)
        return cudaSuccess;
    params pr;
    pr.n = p->n;
    pr.ro = p->row_offsets;
    pr.ci = p->col_indices;
    pr.val = p->values;
    pr.x = p->x;
    pr.ldx = p->ldx;
    pr.y = p->y;
    pr.ldy = p->ldy;
    pr.alpha = p->alpha;
    pr.beta = p->beta;
    const int64_t epc = 16 / (int64_t)tc_value_size(p->vt);
    pr.vec = ((uintptr_t)p->x % 16 == 0) && (p->ldx % epc == 0);
#define LOOMTC_LAUNCH(V, P, K)                                                                    \
    if (p->vt == V && plan->cfg.precision == P && plan->cfg.k == K)                               \
        return launch_bins<V, P, K>(plan, pr, stream);
    LOOMTC_COMBOS(LOOMTC_LAUNCH)
#undef LOOMTC_LAUNCH
    return cudaErrorInvalidValue;
}
