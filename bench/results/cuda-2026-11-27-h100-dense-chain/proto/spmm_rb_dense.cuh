/*
 * spmm_rb_dense.cuh - RB + SR on small dense-ish matrices as a dense
 * product: A's block rows placed in zeroed shared-memory tiles, X staged
 * beside them, and every thread running TM x TN fma chains over all of K.
 *
 * Why the bits are RB + SR's (reference/order_rb_sr.h): each output is one
 * chain acc = fma(a, x, acc) from +0 with k increasing, and a sorted row's
 * non-zeros in k order are its storage order.  The chain also takes the
 * zeros of A between them, and those steps change nothing: fma(0, x, acc)
 * with x finite is acc + (+-0), exactly acc, because an fma chain from +0
 * never holds -0 (in round-to-nearest an exact zero sum is +0, and
 * +0 + -0 = +0).  An Inf or NaN in X that meets a zero of A makes a NaN,
 * and a NaN stays: so a thread whose outputs are all finite met none,
 * and one that has an output that is not finite sums its outputs again by
 * the sparse walk, in storage order (rare, and the same bits).
 *
 * Why it pays: a DLMC layer (hundreds to a few thousand rows and columns)
 * is a few microseconds of dependent latency for the sparse walks, which
 * gather a slice of an X row per non-zero; the dense chain does M K N
 * multiply-adds, a density-fold more, but from shared memory at the fma
 * rate, with no gathers.  The plan takes it where that estimate wins
 * (cuda_plan.c wants_dense).
 *
 * Block: BM rows x BN columns, (BM / TM) x (BN / TN) threads; K in steps
 * of BK with two buffers.  A's tile is BK x BM (k-major, so that a thread's
 * TM rows are one vector load); each step LPR lanes of one warp clear
 * their row's column of the other buffer and place there the row's next
 * run (its non-zeros of the step's columns, a prefix of what is left of a
 * sorted row), from pairs loaded a step earlier.
 */
#ifndef LOOM_CUDA_SPMM_RB_DENSE_CUH
#define LOOM_CUDA_SPMM_RB_DENSE_CUH

#include <stdint.h>

#include "spmm_common.cuh"

namespace loomcu {

template <typename T, int BM_, int BN_, int TM_> struct dense_shape {
    static const int TN = 16 / (int)sizeof(T); /* one 16-byte vector of X a step */
    static const int TM = TM_, BM = BM_, BN = BN_, BK = 32;
    static const int threads = (BM / TM) * (BN / TN);
    static const int LPR = threads / BM; /* lanes placing a row */
    static const int XV = BK * BN / TN;  /* X vectors a step */
    static const int P = BK / LPR;       /* window pairs a lane */
    static_assert(threads % BM == 0 && LPR <= 32 && (LPR & (LPR - 1)) == 0,
                  "a row's placing lanes are a power of two in one warp");
    static_assert(XV % threads == 0, "X vectors a step share out evenly");
};

template <typename T> struct dense_vec;
template <> struct dense_vec<float> { typedef float4 type; };
template <> struct dense_vec<double> { typedef double2 type; };

template <typename T> __device__ __forceinline__ bool dense_finite(T v);
template <> __device__ __forceinline__ bool dense_finite<float>(float v)
{
    return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u;
}
template <> __device__ __forceinline__ bool dense_finite<double>(double v)
{
    return ((unsigned long long)__double_as_longlong(v) & 0x7ff0000000000000ull) !=
           0x7ff0000000000000ull;
}

/* A row's next BK pairs (its run of a step has at most BK, the columns being
 * distinct), LPR lanes of one warp sharing them out: lane l holds pairs
 * j + l + i LPR, i < P (column INT32_MAX past the row's end).  Loaded a
 * step before they are placed, so that their latency hides behind a step
 * of fmas. */
template <typename T, int P, int LPR> struct dense_window {
    int32_t col[P];
    T val[P];
    __device__ __forceinline__ void load(const operands<T> &p, int l, int64_t j, int64_t e)
    {
#pragma unroll
        for (int i = 0; i < P; i++) {
            const int64_t q = j + l + (int64_t)i * LPR;
            col[i] = q < e ? __ldg(p.ci + q) : INT32_MAX;
            val[i] = q < e ? __ldg(p.val + q) : T(0);
        }
    }
    /* Place the pairs of columns [k0, k0 + BK) (a prefix of the window: the
     * row is sorted) into tile a at row r; returns the run's length, the
     * same in all LPR lanes. */
    template <int BK, int BM>
    __device__ __forceinline__ int place(T *a, int r, int64_t k0)
    {
        int cnt = 0;
#pragma unroll
        for (int i = 0; i < P; i++)
            if (col[i] < k0 + BK) {
                a[(col[i] - k0) * BM + r] = val[i];
                cnt++;
            }
#pragma unroll
        for (int o = 1; o < LPR; o <<= 1)
            cnt += __shfl_xor_sync(~0u, cnt, o, LPR);
        return cnt;
    }
};

/* X rows [k0, k0 + BK) x columns [c0, c0 + BN) into xs by cp.async, 16
 * bytes a copy (zeros past K and N, stored directly; X row-major with
 * TN-aligned rows: the launcher checks), as one commit group. */
template <typename T, typename S>
__device__ __forceinline__ void dense_stage_x(T *xs, const operands<T> &p, int64_t k, int64_t k0,
                                              int64_t c0)
{
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(xs);
#pragma unroll
    for (int i = 0; i < S::XV / S::threads; i++) {
        const int q = threadIdx.x + i * S::threads;
        const int64_t kr = k0 + q / (S::BN / S::TN), c = c0 + (int64_t)(q % (S::BN / S::TN)) * S::TN;
        if (kr < k && c + S::TN <= p.n) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + (uint32_t)q * 16u),
                         "l"(p.x + kr * p.xrs + c));
        } else {
#pragma unroll
            for (int t = 0; t < S::TN; t++)
                xs[q * S::TN + t] = kr < k && c + t < p.n ? __ldg(p.x + kr * p.xrs + c + t) : T(0);
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* n vector loads of shared memory: 4, 8 or 16 bytes */
template <typename T, int N> struct dense_lds;
template <> struct dense_lds<float, 1> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[1]) { o[0] = *q; }
};
template <> struct dense_lds<float, 2> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[2])
    {
        const float2 v = *reinterpret_cast<const float2 *>(q);
        o[0] = v.x;
        o[1] = v.y;
    }
};
template <> struct dense_lds<float, 4> {
    static __device__ __forceinline__ void get(const float *q, float (&o)[4])
    {
        const float4 v = *reinterpret_cast<const float4 *>(q);
        o[0] = v.x;
        o[1] = v.y;
        o[2] = v.z;
        o[3] = v.w;
    }
};

/* The sparse walk of this thread's outputs, for a block that staged an
 * Inf or NaN of X: storage order from +0, as the reference. */
template <typename T, typename S>
__device__ void dense_sparse_outputs(const operands<T> &p, int64_t row0, int64_t c0,
                                     T (&acc)[S::TM][S::TN])
{
    typedef arith<T> A;
#pragma unroll
    for (int i = 0; i < S::TM; i++) {
        const int64_t row = row0 + i;
#pragma unroll
        for (int t = 0; t < S::TN; t++)
            acc[i][t] = T(0);
        if (row >= p.m)
            continue;
        for (int64_t j = __ldg(p.ro + row); j < __ldg(p.ro + row + 1); j++) {
            const T a = __ldg(p.val + j);
            const T *xr = p.x + (int64_t)__ldg(p.ci + j) * p.xrs;
#pragma unroll
            for (int t = 0; t < S::TN; t++)
                if (c0 + t < p.n)
                    acc[i][t] = A::fma(a, __ldg(xr + c0 + t), acc[i][t]);
        }
    }
}

template <typename T, int BM, int BN, int TM>
__global__ void __launch_bounds__((dense_shape<T, BM, BN, TM>::threads))
rb_sr_dense_kernel(operands<T> p, int64_t k)
{
    typedef dense_shape<T, BM, BN, TM> S;
    typedef arith<T> A;
    __shared__ __align__(16) T as[2][S::BK * BM];
    __shared__ __align__(16) T xs[3][S::BK * BN];

    const int tx = threadIdx.x % (BN / S::TN), ty = threadIdx.x / (BN / S::TN);
    const int64_t row0 = (int64_t)blockIdx.x * BM, c0 = (int64_t)blockIdx.y * BN;
    /* the row this thread helps place, and its lane among LPR */
    const int pr = threadIdx.x / S::LPR, pl = threadIdx.x % S::LPR;
    const int64_t prow = row0 + pr;
    const int64_t e = prow < p.m ? __ldg(p.ro + prow + 1) : 0;
    int64_t j = prow < p.m ? __ldg(p.ro + prow) : 0;
    dense_window<T, S::P, S::LPR> w;
    w.load(p, pl, j, e);

    const int steps = (int)((k + S::BK - 1) / S::BK);
    dense_stage_x<T, S>(xs[0], p, k, 0, c0);
    dense_stage_x<T, S>(xs[1], p, k, S::BK, c0); /* an empty group past K */
    for (int i = threadIdx.x; i < 2 * S::BK * BM; i += S::threads)
        (&as[0][0])[i] = T(0);
    __syncthreads();
    j += w.template place<S::BK, BM>(as[0], pr, 0);
    w.load(p, pl, j, e);
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();

    T acc[TM][S::TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int t = 0; t < S::TN; t++)
            acc[i][t] = T(0);

    for (int s = 0; s < steps; s++) {
        const int b = s & 1;
        const bool next = s + 1 < steps;
        const int64_t k1 = (int64_t)(s + 1) * S::BK;
        /* X two steps ahead, into the stage step s - 1 used */
        dense_stage_x<T, S>(xs[(s + 2) % 3], p, k, k1 + S::BK, c0);
        const T *at = as[b] + ty * TM, *xt = xs[s % 3] + tx * S::TN;
#pragma unroll
        for (int kk = 0; kk < S::BK; kk++) {
            T a[TM], x[S::TN];
            dense_lds<T, TM>::get(at + kk * BM, a);
            dense_lds<T, S::TN>::get(xt + kk * BN, x);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int t = 0; t < S::TN; t++)
                    acc[i][t] = A::fma(a[i], x[t], acc[i][t]);
        }
        if (next) {
            /* the other buffer last held step s - 1: its row pr cleared by
             * the row's own lanes, then step s + 1's run placed there */
            T *ao = as[b ^ 1];
#pragma unroll
            for (int i = 0; i < S::P; i++)
                ao[(pl + i * S::LPR) * BM + pr] = T(0);
            __syncwarp();
            j += w.template place<S::BK, BM>(ao, pr, k1);
            w.load(p, pl, j, e);
        }
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncthreads();
    }
    /* An Inf or NaN of X met a zero of A only if an output is not finite:
     * such a thread's outputs are summed again by the sparse walk. */
    bool finite = true;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int t = 0; t < S::TN; t++)
            finite = finite && dense_finite<T>(acc[i][t]);
    if (!finite)
        dense_sparse_outputs<T, S>(p, row0 + ty * TM, c0 + tx * S::TN, acc);
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int64_t row = row0 + ty * TM + i;
        if (row < p.m)
            finish_columns<T, S::TN>(p, row, c0 + tx * S::TN, p.n, acc[i]);
    }
}

} // namespace loomcu

#endif
