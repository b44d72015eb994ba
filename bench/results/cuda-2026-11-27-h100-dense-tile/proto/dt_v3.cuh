/* dt_v3.cuh - v2 (cp.async X ring, shared loads a step ahead) with TM rows
 * per thread (TM = 4: v2; 2 or 1: two or four times the warps, for more
 * warps to hide latency, at more shared loads per multiply-add).  Same sums. */
namespace proto {

/* COUNT consecutive elements of shared memory, in 16- or 8-byte loads where
 * they fit (s aligned to COUNT elements). */
template <typename T, int COUNT>
__device__ __forceinline__ void shared_get(const T *s, T *o)
{
    if constexpr (COUNT * sizeof(T) >= 16) {
#pragma unroll
        for (int i = 0; i < COUNT; i += 16 / (int)sizeof(T))
            shared_get16(s + i, o + i);
    } else if constexpr (COUNT * sizeof(T) == 8 && sizeof(T) == 4) {
        const float2 f = *reinterpret_cast<const float2 *>(s);
        o[0] = f.x, o[1] = f.y;
    } else {
#pragma unroll
        for (int i = 0; i < COUNT; i++)
            o[i] = s[i];
    }
}

template <typename T, int BM, int TM>
__global__ void __launch_bounds__((BM / TM) * 16)
    v3_kernel(const operands<T> p, const dense_tiles_view dt)
{
    constexpr int BK = dense_tile_k<T>::bk, BN = dense_tile_bn, TN = dense_tile_tn;
    constexpr int THREADS = (BM / TM) * 16, STAGERS = THREADS / BM, R = BK / STAGERS;
    constexpr int W = 16 / (int)sizeof(T);
    constexpr int PIECES = BK * BN / W / THREADS;
    constexpr int AP = BM + 4;
    constexpr int XS = 3;
    static_assert(PIECES >= 1 && PIECES * W * THREADS == BK * BN, "X pieces");
    static_assert(R >= 1 && R * STAGERS == BK, "stagers");
    __shared__ __align__(16) T as[2][BK][AP];
    __shared__ __align__(16) T xs[XS][BK][BN];

    const int tid = threadIdx.x;
    const int64_t r0 = (int64_t)blockIdx.x * BM, c0 = (int64_t)blockIdx.y * BN;
    const int srow = tid / STAGERS, q = tid % STAGERS;
    const int64_t r = r0 + srow;
    const bool row_ok = r < p.m;
    const int64_t rs = row_ok ? p.ro[r] : 0;
    const int ty = tid / 16, tx = tid % 16;

    auto issue_x = [&](int64_t t) {
        if (t < dt.tiles) {
            const int64_t k0 = t * BK;
            const int st = (int)(t % XS);
#pragma unroll
            for (int i = 0; i < PIECES; i++) {
                const int e_lin = (tid + i * THREADS) * W;
                const int64_t kr = k0 + e_lin / BN, c = c0 + e_lin % BN;
                const bool ok = kr < dt.k && c + W <= p.n;
                cp_async16(&xs[st][e_lin / BN][e_lin % BN], ok ? p.x + kr * p.xrs + c : p.x, ok);
            }
        }
        cp_async_commit();
    };

    for (int i = tid; i < 2 * BK * AP; i += THREADS)
        (&as[0][0][0])[i] = T(0);

    int slot[R];
    T aval[R];
    int32_t s_next = 0, s_after = 0;
    auto fetch_a = [&](int64_t t, int32_t s, int32_t e) {
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
    };
    issue_x(0);
    issue_x(1);
    if (row_ok) {
        const int32_t s0 = __ldg(dt.start + r);
        s_next = __ldg(dt.start + p.m + r);
        s_after = dt.tiles >= 2 ? __ldg(dt.start + 2 * p.m + r) : s_next;
        fetch_a(0, s0, s_next);
    } else {
        fetch_a(0, 0, 0);
    }
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = T(0);
    __syncthreads();

    for (int64_t t = 0; t < dt.tiles; t++) {
        const int b = (int)(t & 1), xb = (int)(t % XS);
        if (t >= 2) {
#pragma unroll
            for (int j = q; j < BK; j += STAGERS)
                as[b][j][srow] = T(0);
            __syncwarp();
        }
#pragma unroll
        for (int j = 0; j < R; j++)
            if (slot[j] >= 0)
                as[b][slot[j]][srow] = aval[j];
        cp_async_wait<1>();
        __syncthreads();
        issue_x(t + 2);
        if (t + 1 < dt.tiles) {
            const int32_t s = s_next, e = s_after;
            if (row_ok) {
                s_next = s_after;
                s_after = t + 3 <= dt.tiles ? __ldg(dt.start + (t + 3) * p.m + r) : s_after;
            }
            fetch_a(t + 1, s, row_ok ? e : 0);
        }
        T a[2][TM], x[2][TN];
        shared_get<T, TM>(&as[b][0][ty * TM], a[0]);
        shared_get<T, TN>(&xs[xb][0][tx * TN], x[0]);
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            const int cur = kk & 1;
            if (kk + 1 < BK) {
                shared_get<T, TM>(&as[b][kk + 1][ty * TM], a[cur ^ 1]);
                shared_get<T, TN>(&xs[xb][kk + 1][tx * TN], x[cur ^ 1]);
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = arith<T>::fma(a[cur][i], x[cur][j], acc[i][j]);
        }
    }
    cp_async_wait<0>();

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

} // namespace proto
