/*
 * spmm_dense_tile.cuh - RB + SR as dense tiles (LOOM_TECH_DENSE_TILE), for
 * layers of moderate sparsity (DLMC at 50-80%) at wide N.
 *
 * The other SR walks read each non-zero's row of X from L2, so a layer of
 * 1000 rows of 400 non-zeros moves N x 1.6 KB per row (840 MB at N = 512)
 * and the L2 sets the time.  Here a block owns BM rows x 64 columns of Y
 * and walks K in tiles of BK: it copies the tile of X (BK x 64) and its
 * rows' non-zeros in that tile, spread into a dense BM x BK tile with
 * zeros where A has none, into shared memory, and each thread adds a 4 x 4
 * block of outputs as in a dense GEMM.  Every X element staged is used by
 * BM rows, so the L2 traffic falls by BM x density, at the price of
 * multiplying the zeros too (1/density the multiply-adds).
 *
 * The arithmetic is RB + SR's (reference/order_rb_sr.h): each output is
 * acc = fma(a, x, acc) over K in increasing column order, which is the
 * storage order (columns are sorted, lib/csr_validate.c), with extra steps
 * fma(0, x, acc) where A has no entry.  With x finite such a step leaves a
 * non-zero acc exactly as it is and can only change the sign of a zero
 * acc; a zero acc plus a product that is not zero gives the same result
 * whatever the zero's sign.  So the tile sum equals the reference's bit
 * for bit whenever it is finite and not zero, and where x is not finite
 * (0 x inf is NaN) the tile sum is NaN.  Outputs that come out zero or not
 * finite are therefore summed again from the row's non-zeros in storage
 * order (exact_row_sum): rare, and the reference's bits every time.
 *
 * Where a row's non-zeros of tile t start: the plan's table
 * (loomcu_dense_tiles.start, cuda_plan.c), so each tile's loads are known
 * a tile ahead and issued before the previous tile's multiply-adds.
 */

#include "spmm_common.cuh"

namespace proto {
using namespace loomcu;

/* Columns of Y per block and the per-thread block of outputs. */
static const int dense_tile_bn = 64;
static const int dense_tile_tm = 4, dense_tile_tn = 4;

/* K columns per tile: 128 bytes of one X column's worth per row of A. */
template <typename T> struct dense_tile_k {
    static const int bk = 128 / (int)sizeof(T);
};

struct dense_tiles_view {
    const int32_t *__restrict__ start; /* (tiles + 1) x m: see loomcu_dense_tiles */
    int64_t tiles;
    int64_t k;
};

/* 16 bytes of shared memory to registers and back (float4 / double2). */
template <typename T>
__device__ __forceinline__ void shared_get16(const T *s, T *o)
{
    if constexpr (sizeof(T) == 4) {
        const float4 f = *reinterpret_cast<const float4 *>(s);
        o[0] = f.x, o[1] = f.y, o[2] = f.z, o[3] = f.w;
    } else {
        const double2 d = *reinterpret_cast<const double2 *>(s);
        o[0] = d.x, o[1] = d.y;
    }
}
template <typename T>
__device__ __forceinline__ void shared_put16(T *s, const T *v)
{
    if constexpr (sizeof(T) == 4)
        *reinterpret_cast<float4 *>(s) = make_float4(v[0], v[1], v[2], v[3]);
    else
        *reinterpret_cast<double2 *>(s) = make_double2(v[0], v[1]);
}

/* The reference's sum of an output: the row's non-zeros [b, e) in order,
 * x pointing at the output's column of X.  Out of line (rarely called),
 * with scalar arguments so that the call needs no stack frame. */
template <typename T>
__device__ __noinline__ T exact_row_sum(const int32_t *__restrict__ ci, const T *__restrict__ val,
                                        const T *__restrict__ x, int64_t xrs, int64_t b, int64_t e)
{
    T acc = T(0);
    for (int64_t j = b; j < e; j++)
        acc = arith<T>::fma(__ldg(val + j), __ldg(x + (int64_t)__ldg(ci + j) * xrs), acc);
    return acc;
}

/* Loads one 16-byte piece of X's tile (row kr, columns c..c+W-1) into v:
 * a vector load where VEC and the piece is whole, else element by element;
 * zeros past K or N. */
template <typename T, bool VEC>
__device__ __forceinline__ void load_x_piece(const operands<T> &p, int64_t kr, int64_t k, int64_t c,
                                             T (&v)[16 / sizeof(T)])
{
    constexpr int W = 16 / (int)sizeof(T);
    const T *q = p.x + kr * p.xrs + c;
    if (VEC && kr < k && c + W <= p.n) {
        if constexpr (sizeof(T) == 4) {
            const float4 f = __ldg(reinterpret_cast<const float4 *>(q));
            v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
        } else {
            const double2 d = __ldg(reinterpret_cast<const double2 *>(q));
            v[0] = d.x, v[1] = d.y;
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < W; i++)
        v[i] = kr < k && c + i < p.n ? __ldg(q + i) : T(0);
}

/*
 * One block: rows [r0, r0 + BM), columns [c0, c0 + 64), threads BM x 4.
 * Staging: thread t copies row t / 4's non-zeros p = q, q + 4, ... of the
 * tile (q = t % 4; at most BK / 4 each, since a row has at most BK in a
 * tile), and 16-byte pieces of X's tile.  Multiply-adds: thread (ty, tx)
 * owns rows 4 ty.. and columns 4 tx.. .  Two shared buffers: tile t is
 * staged into buffer t % 2 while no thread still reads it (the barrier of
 * tile t - 1 lies between), and a row's four stagers clear their row of
 * the buffer (tile t - 2's entries) before any of them writes.
 */
template <typename T, int BM, bool VEC, int MODE>
__global__ void __launch_bounds__(BM * 4)
    v1_kernel(const operands<T> p, const dense_tiles_view dt)
{
    constexpr int BK = dense_tile_k<T>::bk, BN = dense_tile_bn, TM = dense_tile_tm,
                  TN = dense_tile_tn;
    constexpr int THREADS = BM * 4, STAGERS = 4, R = BK / STAGERS;
    constexpr int W = 16 / (int)sizeof(T);               /* elements per 16-byte piece */
    constexpr int PIECES = BK * BN / W / THREADS;         /* X pieces per thread per tile */
    constexpr int AP = BM + 4;                            /* padded: 16-byte rows, banks spread */
    static_assert(BN / TN == 16 && (BM / TM) * 16 == THREADS, "thread grid");
    static_assert(PIECES * W * THREADS == BK * BN, "X tile pieces");
    __shared__ __align__(16) T as[2][BK][AP];
    __shared__ __align__(16) T xs[2][BK][BN];

    const int tid = threadIdx.x;
    const int64_t r0 = (int64_t)blockIdx.x * BM, c0 = (int64_t)blockIdx.y * BN;
    /* staging role */
    const int srow = tid / STAGERS, q = tid % STAGERS;
    const int64_t r = r0 + srow;
    const bool row_ok = r < p.m;
    const int64_t rs = row_ok ? p.ro[r] : 0;
    /* multiply-add role */
    const int ty = tid / 16, tx = tid % 16;

    for (int i = tid; i < 2 * BK * AP; i += THREADS)
        (&as[0][0][0])[i] = T(0);

    int slot[R]; /* column in the tile, or -1 */
    T aval[R];
    T xv[PIECES][W];
    int32_t s_next = 0, s_after = 0; /* the row's starts of tiles t + 1 and t + 2 */

    /* Registers of tile t from global memory (starts s, e of the row). */
    auto fetch = [&](int64_t t, int32_t s, int32_t e) {
        const int64_t k0 = t * BK;
#pragma unroll
        for (int j = 0; j < R; j++) {
            const int32_t pj = s + q + STAGERS * j;
            slot[j] = -1;
            if (pj < e) {
                slot[j] = __ldg(p.ci + rs + pj) - (int32_t)k0;
                aval[j] = __ldg(p.val + rs + pj);
            }
        }
#pragma unroll
        for (int i = 0; i < PIECES; i++) {
            const int e_lin = (tid + i * THREADS) * W; /* element of the BK x BN tile */
            load_x_piece<T, VEC>(p, k0 + e_lin / BN, dt.k, c0 + e_lin % BN, xv[i]);
        }
    };

    if (row_ok) {
        const int32_t s0 = __ldg(dt.start + r);
        s_next = __ldg(dt.start + p.m + r);
        s_after = dt.tiles >= 2 ? __ldg(dt.start + 2 * p.m + r) : s_next;
        fetch(0, s0, s_next);
    } else {
        fetch(0, 0, 0);
    }

    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = T(0);
    __syncthreads(); /* the buffers' zeros */

    for (int64_t t = 0; t < dt.tiles; t++) {
        const int b = (int)(t & 1);
        if (t >= 2) {
#pragma unroll
            for (int j = q; j < BK; j += STAGERS)
                as[b][j][srow] = T(0);
            __syncwarp();
        }
#pragma unroll
        for (int j = 0; j < R; j++)
            if (MODE != 2 && slot[j] >= 0)
                as[b][slot[j]][srow] = aval[j];
#pragma unroll
        for (int i = 0; i < PIECES; i++) {
            const int e_lin = (tid + i * THREADS) * W;
            shared_put16(&xs[b][e_lin / BN][e_lin % BN], xv[i]);
        }
        __syncthreads();
        if (t + 1 < dt.tiles) {
            const int32_t s = s_next, e = s_after;
            if (row_ok) {
                s_next = s_after;
                s_after = t + 3 <= dt.tiles ? __ldg(dt.start + (t + 3) * p.m + r) : s_after;
            }
            fetch(t + 1, s, row_ok ? e : 0);
        }
#pragma unroll
        for (int kk = 0; kk < (MODE == 1 ? 0 : BK); kk++) {
            T a[TM], x[TN];
#pragma unroll
            for (int i = 0; i < TM; i += W)
                shared_get16(&as[b][kk][ty * TM + i], a + i);
#pragma unroll
            for (int j = 0; j < TN; j += W)
                shared_get16(&xs[b][kk][tx * TN + j], x + j);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = arith<T>::fma(a[i], x[j], acc[i][j]);
        }
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int64_t row = r0 + ty * TM + i;
        if (row >= p.m)
            continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int64_t c = c0 + tx * TN + j;
            if (c >= p.n)
                continue;
            T v = acc[i][j];
            if (v == T(0) || !isfinite(v))
                v = exact_row_sum(p.ci, p.val, p.x + c, p.xrs, p.ro[row], p.ro[row + 1]);
            finish(p.alpha, v, p.beta, p.y + row * p.yrs + c * p.ycs);
        }
    }
}

} // namespace loomcu

