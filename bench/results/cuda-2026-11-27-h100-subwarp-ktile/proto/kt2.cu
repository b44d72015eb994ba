/*
 * kt2.cu - prototype (session 30; from session 28's ktile.cu): RB + SR at wide N with X staged in shared memory a
 * K-tile at a time, 32 rows per block (a warp each), V columns per lane.
 *
 * Each warp keeps its row's sum as one fma chain from +0 in storage order:
 * the K-tiles are walked in increasing order and a sorted row's non-zeros
 * of one tile are the next run of its storage order, so the sum is RB +
 * SR's (reference/order_rb_sr.h) and must equal loom's rb-rm-sr bit for bit
 * (checked below with memcmp).  What changes is where X comes from: every
 * staged X element serves the block's 32 rows.
 *
 * Usage: ktile FILE.mtx.gz... (N = 64, 128, 256, 512): times the variants,
 * loom's rb-rm-sr and eb-rm-sr designs and cuSPARSE ALG2/ALG3 in one
 * process (median of 25 launches), memcmp against loom's rb-rm-sr.
 */
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "loom.h"

static int __float_as_int_host(float f)
{
    int i;
    memcpy(&i, &f, sizeof i);
    return i;
}

#define CU(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define CS(x)                                                                              \
    do {                                                                                   \
        cusparseStatus_t s_ = (x);                                                         \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)s_);            \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define LM(x)                                                                              \
    do {                                                                                   \
        loom_status l_ = (x);                                                              \
        if (l_ != LOOM_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, loom_last_error());  \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

template <int V> struct vec;
template <> struct vec<1> { typedef float t; };
template <> struct vec<2> { typedef float2 t; };
template <> struct vec<4> { typedef float4 t; };

template <int V> __device__ __forceinline__ void unpack(const float *q, float (&o)[V])
{
    typename vec<V>::t v = *reinterpret_cast<const typename vec<V>::t *>(q);
    const float *f = reinterpret_cast<const float *>(&v);
#pragma unroll
    for (int i = 0; i < V; i++)
        o[i] = f[i];
}

/* X rows [k0, k0 + KT) x columns [c0, c0 + TW) into dst (KT x TW), 16
 * bytes per cp.async; rows past K and columns past N left as they are
 * (never read: no column index reaches them, no output is stored). */
template <int KT, int TW>
__device__ __forceinline__ void stage(float *dst, const float *x, int64_t k, int64_t n, int64_t k0,
                                      int64_t c0)
{
    constexpr int per_row = TW / 4; /* 16-byte chunks */
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(dst);
    for (int i = threadIdx.x; i < KT * per_row; i += blockDim.x) {
        const int r = i / per_row, q = i % per_row;
        const int64_t kr = k0 + r, c = c0 + q * 4;
        if (kr < k && c + 4 <= n)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + (uint32_t)(i * 16)),
                         "l"(x + kr * n + c));
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* A block of blockDim/32 rows x TW = 32 V columns; KT rows of X a stage,
 * two stages.  U pairs' x loads ahead of their fmas. */
template <int V, int KT, int U>
__global__ void __launch_bounds__(1024, 1)
ktile_kernel(int64_t m, int64_t k, int64_t n, const int64_t *__restrict__ ro,
             const int32_t *__restrict__ ci, const float *__restrict__ val,
             const float *__restrict__ x, float *__restrict__ y)
{
    constexpr int TW = 32 * V;
    extern __shared__ __align__(16) float xs[];
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int64_t c0 = (int64_t)blockIdx.y * TW;
    const bool live = row < m;
    const int64_t e = live ? ro[row + 1] : 0;
    int64_t wbase = live ? ro[row] : 0;
    int32_t wc = wbase + lane < e ? ci[wbase + lane] : INT_MAX;
    float wa = wbase + lane < e ? val[wbase + lane] : 0.f;
    int used = 0;
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = 0.f;
    const int tiles = (int)((k + KT - 1) / KT);
    stage<KT, TW>(xs, x, k, n, 0, c0);
    for (int s = 0; s < tiles; s++) {
        if (s + 1 < tiles) {
            stage<KT, TW>(xs + ((s + 1) & 1) * KT * TW, x, k, n, (int64_t)(s + 1) * KT, c0);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        /* X(c, c0 + lane V ..) of this stage at xt + c * TW */
        const float *xt = xs + (s & 1) * KT * TW + lane * V - (int64_t)s * KT * TW;
        const int32_t kend = (s + 1) * KT;
        for (;;) {
            const int cnt = __popc(__ballot_sync(~0u, wc < kend)); /* sorted: a prefix */
            int t = used;
            for (; t + U <= cnt; t += U) { /* whole groups: no predicates */
                float xv[U][V], av[U];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const int c = __shfl_sync(~0u, wc, t + u);
                    av[u] = __shfl_sync(~0u, wa, t + u);
                    unpack<V>(xt + c * TW, xv[u]);
                }
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = __fmaf_rn(av[u], xv[u][i], acc[i]);
            }
            for (; t < cnt; t++) {
                const int c = __shfl_sync(~0u, wc, t);
                const float a = __shfl_sync(~0u, wa, t);
                float xv[V];
                unpack<V>(xt + c * TW, xv);
#pragma unroll
                for (int i = 0; i < V; i++)
                    acc[i] = __fmaf_rn(a, xv[i], acc[i]);
            }
            if (cnt < 32) {
                used = cnt;
                break;
            }
            wbase += 32;
            wc = wbase + lane < e ? ci[wbase + lane] : INT_MAX;
            wa = wbase + lane < e ? val[wbase + lane] : 0.f;
            used = 0;
        }
        __syncthreads();
    }
    if (live)
#pragma unroll
        for (int i = 0; i < V; i++)
            if (c0 + lane * V + i < n)
                y[row * n + c0 + lane * V + i] = acc[i];
}


/*
 * Sub-warp K-tiles: G lanes a row (V columns a lane, TW = G V), ROWS rows a
 * block, so that narrower column tiles give more blocks at N = 64..256.
 * ts[row (T + 1) + s] is the row's first non-zero at column >= s KT (s = T:
 * the row's end), made by the plan (here: the host), so a tile's run
 * [ts[s], ts[s + 1]) is known before it starts: no ballot, no exit test.
 * Form A: each lane loads the run's pairs itself (the G lanes of a row
 * read the same address: a broadcast) U at a time.
 */
template <int G, int V, int KT, int U, int ROWS>
__global__ void __launch_bounds__(ROWS * G)
kt2a_kernel(int64_t m, int64_t k, int64_t n, const int32_t *__restrict__ ts, int T,
            const int32_t *__restrict__ ci, const float *__restrict__ val,
            const float *__restrict__ x, float *__restrict__ y)
{
    constexpr int TW = G * V;
    extern __shared__ __align__(16) float xs[];
    const int sub = threadIdx.x / G, li = threadIdx.x % G;
    const int64_t row = (int64_t)blockIdx.x * ROWS + sub;
    const int64_t c0 = (int64_t)blockIdx.y * TW;
    const bool live = row < m;
    const int32_t *tr = ts + (live ? row : 0) * (T + 1);
    int j = live ? __ldg(tr) : 0;
    int e = live ? __ldg(tr + 1) : 0;
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = 0.f;
    stage<KT, TW>(xs, x, k, n, 0, c0);
    for (int s = 0; s < T; s++) {
        if (s + 1 < T) {
            stage<KT, TW>(xs + ((s + 1) & 1) * KT * TW, x, k, n, (int64_t)(s + 1) * KT, c0);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        const int en = live && s + 1 < T ? __ldg(tr + s + 2) : 0;
        const float *xt = xs + (s & 1) * KT * TW + li * V - (int64_t)s * KT * TW;
        for (; j + U <= e; j += U) {
            int c[U];
            float a[U], xv[U][V];
#pragma unroll
            for (int u = 0; u < U; u++) {
                c[u] = __ldg(ci + j + u);
                a[u] = __ldg(val + j + u);
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                unpack<V>(xt + c[u] * TW, xv[u]);
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int i = 0; i < V; i++)
                    acc[i] = __fmaf_rn(a[u], xv[u][i], acc[i]);
        }
        for (; j < e; j++) {
            const int c = __ldg(ci + j);
            const float a = __ldg(val + j);
            float xv[V];
            unpack<V>(xt + c * TW, xv);
#pragma unroll
            for (int i = 0; i < V; i++)
                acc[i] = __fmaf_rn(a, xv[i], acc[i]);
        }
        e = en;
        __syncthreads();
    }
    if (live)
#pragma unroll
        for (int i = 0; i < V; i++)
            if (c0 + li * V + i < n)
                y[row * n + c0 + li * V + i] = acc[i];
}

/*
 * Form B: lane i of a row's G lanes loads pair j + i of the run (one
 * coalesced window of G pairs), then shuffles within the G lanes pass each
 * pair round.  The warp's rows have runs of different lengths, so the
 * warp loops to its longest window and a row's fmas past its own are
 * predicated off (never added: fma(0, x, acc) would not be a no-op).
 */
template <int G, int V, int KT, int U, int ROWS>
__global__ void __launch_bounds__(ROWS * G)
kt2b_kernel(int64_t m, int64_t k, int64_t n, const int32_t *__restrict__ ts, int T,
            const int32_t *__restrict__ ci, const float *__restrict__ val,
            const float *__restrict__ x, float *__restrict__ y)
{
    constexpr int TW = G * V;
    extern __shared__ __align__(16) float xs[];
    const int sub = threadIdx.x / G, li = threadIdx.x % G;
    const int64_t row = (int64_t)blockIdx.x * ROWS + sub;
    const int64_t c0 = (int64_t)blockIdx.y * TW;
    const bool live = row < m;
    const int32_t *tr = ts + (live ? row : 0) * (T + 1);
    int j = live ? __ldg(tr) : 0;
    int e = live ? __ldg(tr + 1) : 0;
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = 0.f;
    stage<KT, TW>(xs, x, k, n, 0, c0);
    for (int s = 0; s < T; s++) {
        if (s + 1 < T) {
            stage<KT, TW>(xs + ((s + 1) & 1) * KT * TW, x, k, n, (int64_t)(s + 1) * KT, c0);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        const int en = live && s + 1 < T ? __ldg(tr + s + 2) : 0;
        const float *xt = xs + (s & 1) * KT * TW + li * V - (int64_t)s * KT * TW;
        for (;;) {
            const int cnt = min(e - j, G);
            const int wmax = __reduce_max_sync(~0u, cnt);
            if (wmax == 0)
                break;
            const int32_t wc = li < cnt ? __ldg(ci + j + li) : s * KT; /* a staged row */
            const float wa = li < cnt ? __ldg(val + j + li) : 0.f;
            int t = 0;
            for (; t + U <= wmax; t += U) {
                float xv[U][V], a[U];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const int c = __shfl_sync(~0u, wc, t + u, G);
                    a[u] = __shfl_sync(~0u, wa, t + u, G);
                    unpack<V>(xt + c * TW, xv[u]);
                }
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (t + u < cnt)
#pragma unroll
                        for (int i = 0; i < V; i++)
                            acc[i] = __fmaf_rn(a[u], xv[u][i], acc[i]);
            }
            for (; t < wmax; t++) {
                const int c = __shfl_sync(~0u, wc, t, G);
                const float a = __shfl_sync(~0u, wa, t, G);
                float xv[V];
                unpack<V>(xt + c * TW, xv);
                if (t < cnt)
#pragma unroll
                    for (int i = 0; i < V; i++)
                        acc[i] = __fmaf_rn(a, xv[i], acc[i]);
            }
            j += cnt;
        }
        e = en;
        __syncthreads();
    }
    if (live)
#pragma unroll
        for (int i = 0; i < V; i++)
            if (c0 + li * V + i < n)
                y[row * n + c0 + li * V + i] = acc[i];
}


/*
 * Form C: the block's pairs of each tile are one contiguous segment of a
 * plan-side copy of A ((column - s KT, value) pairs, block-tile-major: for
 * block b and tile s, the runs of its ROWS rows one after another, padded
 * to an even count for 16-byte copies), staged in shared memory with X's
 * tile by cp.async, so that the walk reads only shared memory.
 * rt[(b T + s)(ROWS + 1) + r]: row r's run in the segment, relative.
 */
template <int G, int V, int KT, int U, int ROWS, bool F>
__global__ void __launch_bounds__(ROWS * G)
kt2c_kernel(int64_t m, int64_t k, int64_t n, const int64_t *__restrict__ seg,
            const int32_t *__restrict__ rt, int T, int maxseg, const int2 *__restrict__ pairs,
            const float *__restrict__ x, float *__restrict__ y)
{
    constexpr int TW = G * V;
    extern __shared__ __align__(16) float xs[];
    int2 *ps = reinterpret_cast<int2 *>(xs + 2 * KT * TW);
    const int sub = threadIdx.x / G, li = threadIdx.x % G;
    const int64_t row = (int64_t)blockIdx.x * ROWS + sub;
    const int64_t c0 = (int64_t)blockIdx.y * TW;
    const bool live = row < m;
    const int64_t bt = (int64_t)blockIdx.x * T;
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i] = 0.f;
    /* pairs of tile s into stage s & 1 (16-byte chunks), after X's copy */
    auto stage_pairs = [&](int s) {
        const int64_t a0 = seg[bt + s], a1 = seg[bt + s + 1];
        const int chunks = (int)((a1 - a0) >> 1);
        const uint32_t base = (uint32_t)__cvta_generic_to_shared(ps + (s & 1) * maxseg);
        for (int i = threadIdx.x; i < chunks; i += blockDim.x)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + (uint32_t)(i * 16)),
                         "l"(pairs + a0 + 2 * i));
    };
    const int32_t *rts = rt + bt * (ROWS + 1) + sub;
    int o0 = __ldg(rts), o1 = __ldg(rts + 1);
    stage_pairs(0);
    stage<KT, TW>(xs, x, k, n, 0, c0);
    for (int s = 0; s < T; s++) {
        if (s + 1 < T) {
            stage_pairs(s + 1);
            stage<KT, TW>(xs + ((s + 1) & 1) * KT * TW, x, k, n, (int64_t)(s + 1) * KT, c0);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        int n0 = 0, n1 = 0;
        if (s + 1 < T) {
            n0 = __ldg(rts + (int64_t)(s + 1) * (ROWS + 1));
            n1 = __ldg(rts + (int64_t)(s + 1) * (ROWS + 1) + 1);
        }
        const float *xt = xs + (s & 1) * KT * TW + li * V;
        const int2 *pt = ps + (s & 1) * maxseg;
        int o = o0;
        for (; o + U <= o1; o += U) {
            int2 q[U];
            float xv[U][V];
#pragma unroll
            for (int u = 0; u < U; u++)
                q[u] = pt[o + u];
#pragma unroll
            for (int u = 0; u < U; u++)
                unpack<V>(xt + q[u].x * TW, xv[u]);
            if (F) /* every load of the group issued before its fmas */
                asm volatile("" ::: "memory");
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int i = 0; i < V; i++)
                    acc[i] = __fmaf_rn(__int_as_float(q[u].y), xv[u][i], acc[i]);
        }
        for (; o < o1; o++) {
            const int2 q = pt[o];
            float xv[V];
            unpack<V>(xt + q.x * TW, xv);
#pragma unroll
            for (int i = 0; i < V; i++)
                acc[i] = __fmaf_rn(__int_as_float(q.y), xv[i], acc[i]);
        }
        o0 = n0;
        o1 = n1;
        __syncthreads();
    }
    if (live)
#pragma unroll
        for (int i = 0; i < V; i++)
            if (c0 + li * V + i < n)
                y[row * n + c0 + li * V + i] = acc[i];
}

struct timer {
    cudaEvent_t a, b;
    timer() { CU(cudaEventCreate(&a)); CU(cudaEventCreate(&b)); }
    template <typename F> double median_us(F f, int reps = 25)
    {
        f();
        f();
        CU(cudaDeviceSynchronize());
        std::vector<float> t(reps);
        for (int r = 0; r < reps; r++) {
            CU(cudaEventRecord(a));
            f();
            CU(cudaEventRecord(b));
            CU(cudaEventSynchronize(b));
            CU(cudaEventElapsedTime(&t[r], a, b));
        }
        std::sort(t.begin(), t.end());
        return t[reps / 2] * 1000.0;
    }
};

template <int V, int KT, int U, int ROWS>
static double run_ktile(const char *tag, int64_t m, int64_t k, int64_t n, const int64_t *ro,
                        const int32_t *ci, const float *val, const float *x, float *y,
                        const std::vector<float> &ref, timer &tm)
{
    constexpr int TW = 32 * V;
    const size_t smem = 2 * (size_t)KT * TW * sizeof(float);
    CU(cudaFuncSetAttribute(ktile_kernel<V, KT, U>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    dim3 grid((unsigned)((m + ROWS - 1) / ROWS), (unsigned)((n + TW - 1) / TW));
    CU(cudaMemset(y, 0xff, (size_t)m * n * sizeof(float))); /* NaN: unwritten shows */
    ktile_kernel<V, KT, U><<<grid, ROWS * 32, smem>>>(m, k, n, ro, ci, val, x, y);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    std::vector<float> got((size_t)m * n);
    CU(cudaMemcpy(got.data(), y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const bool same = memcmp(got.data(), ref.data(), got.size() * sizeof(float)) == 0;
    double us = tm.median_us([&] { ktile_kernel<V, KT, U><<<grid, ROWS * 32, smem>>>(m, k, n, ro, ci, val, x, y); });
    printf("  %-26s %9.2f us  %s\n", tag, us, same ? "bits = rb-rm-sr" : "BITS DIFFER");
    return us;
}


/* Runs a sub-warp form (A or B) with its shape; ts made for KT. */
template <bool B, int G, int V, int KT, int U, int ROWS>
static double run_kt2(int64_t m, int64_t k, int64_t n, const int32_t *ts, int T,
                      const int32_t *ci, const float *val, const float *x, float *y,
                      const std::vector<float> &ref, timer &tm)
{
    constexpr int TW = G * V;
    if (n % TW && n < TW)
        return 0;
    char tag[64];
    snprintf(tag, sizeof tag, "kt2%c G%d V%d KT%d U%d %dr", B ? 'b' : 'a', G, V, KT, U, ROWS);
    const size_t smem = 2 * (size_t)KT * TW * sizeof(float);
    auto kern = B ? kt2b_kernel<G, V, KT, U, ROWS> : kt2a_kernel<G, V, KT, U, ROWS>;
    CU(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 grid((unsigned)((m + ROWS - 1) / ROWS), (unsigned)((n + TW - 1) / TW));
    CU(cudaMemset(y, 0xff, (size_t)m * n * sizeof(float)));
    kern<<<grid, ROWS * G, smem>>>(m, k, n, ts, T, ci, val, x, y);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    std::vector<float> got((size_t)m * n);
    CU(cudaMemcpy(got.data(), y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const bool same = memcmp(got.data(), ref.data(), got.size() * sizeof(float)) == 0;
    double us = tm.median_us([&] { kern<<<grid, ROWS * G, smem>>>(m, k, n, ts, T, ci, val, x, y); });
    printf("  %-26s %9.2f us  %s  (%u blocks)\n", tag, us, same ? "bits = rb-rm-sr" : "BITS DIFFER",
           grid.x * grid.y);
    return us;
}

/* The plan-side copy of form C for ROWS and KT. */
struct cplan {
    int64_t *seg = nullptr;
    int32_t *rt = nullptr;
    int2 *pairs = nullptr;
    int T = 0, maxseg = 0;
};
static cplan make_cplan(int64_t m, int64_t k, const int64_t *hro, const int32_t *hci,
                        const float *hval, int KT, int ROWS)
{
    cplan c;
    c.T = (int)((k + KT - 1) / KT);
    const int64_t nb = (m + ROWS - 1) / ROWS;
    std::vector<int64_t> seg(nb * c.T + 1);
    std::vector<int32_t> rt(nb * c.T * (ROWS + 1));
    std::vector<int2> pairs;
    std::vector<int64_t> pos(hro, hro + m); /* each row's next non-zero */
    for (int64_t b = 0; b < nb; b++)
        for (int s = 0; s < c.T; s++) {
            const int64_t a0 = (int64_t)pairs.size();
            seg[b * c.T + s] = a0;
            for (int r = 0; r <= ROWS; r++) {
                rt[(b * c.T + s) * (ROWS + 1) + r] = (int32_t)((int64_t)pairs.size() - a0);
                const int64_t row = b * ROWS + r;
                if (r == ROWS || row >= m)
                    continue;
                while (pos[row] < hro[row + 1] && hci[pos[row]] < (int64_t)(s + 1) * KT) {
                    int2 q;
                    q.x = hci[pos[row]] - s * KT;
                    q.y = __float_as_int_host(hval[pos[row]]);
                    pairs.push_back(q);
                    pos[row]++;
                }
            }
            if (pairs.size() & 1)
                pairs.push_back(make_int2(0, 0));
            c.maxseg = std::max(c.maxseg, (int)((int64_t)pairs.size() - a0));
        }
    seg[nb * c.T] = (int64_t)pairs.size();
    CU(cudaMalloc(&c.seg, seg.size() * sizeof(int64_t)));
    CU(cudaMemcpy(c.seg, seg.data(), seg.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    CU(cudaMalloc(&c.rt, rt.size() * sizeof(int32_t)));
    CU(cudaMemcpy(c.rt, rt.data(), rt.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    CU(cudaMalloc(&c.pairs, std::max<size_t>(pairs.size(), 2) * sizeof(int2)));
    CU(cudaMemcpy(c.pairs, pairs.data(), pairs.size() * sizeof(int2), cudaMemcpyHostToDevice));
    return c;
}
static void free_cplan(cplan &c)
{
    CU(cudaFree(c.seg));
    CU(cudaFree(c.rt));
    CU(cudaFree(c.pairs));
}

template <int G, int V, int KT, int U, int ROWS, bool F = false>
static double run_kt2c(int64_t m, int64_t k, int64_t n, const int64_t *hro, const int32_t *hci,
                       const float *hval, const float *x, float *y, const std::vector<float> &ref,
                       timer &tm)
{
    constexpr int TW = G * V;
    if (n % TW && n < TW)
        return 0;
    cplan c = make_cplan(m, k, hro, hci, hval, KT, ROWS);
    char tag[64];
    snprintf(tag, sizeof tag, "kt2c%s G%d V%d KT%d U%d %dr", F ? "F" : "", G, V, KT, U, ROWS);
    const size_t smem = 2 * (size_t)KT * TW * sizeof(float) + 2 * (size_t)c.maxseg * sizeof(int2);
    auto kern = kt2c_kernel<G, V, KT, U, ROWS, F>;
    if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) {
        (void)cudaGetLastError();
        printf("  %-26s smem %zu refused\n", tag, smem);
        free_cplan(c);
        return 0;
    }
    dim3 grid((unsigned)((m + ROWS - 1) / ROWS), (unsigned)((n + TW - 1) / TW));
    CU(cudaMemset(y, 0xff, (size_t)m * n * sizeof(float)));
    kern<<<grid, ROWS * G, smem>>>(m, k, n, c.seg, c.rt, c.T, c.maxseg, c.pairs, x, y);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    std::vector<float> got((size_t)m * n);
    CU(cudaMemcpy(got.data(), y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const bool same = memcmp(got.data(), ref.data(), got.size() * sizeof(float)) == 0;
    double us = tm.median_us([&] { kern<<<grid, ROWS * G, smem>>>(m, k, n, c.seg, c.rt, c.T, c.maxseg, c.pairs, x, y); });
    printf("  %-26s %9.2f us  %s  (%u blocks, %zu B smem)\n", tag, us, same ? "bits = rb-rm-sr" : "BITS DIFFER",
           grid.x * grid.y, smem);
    free_cplan(c);
    return us;
}

/* The tile starts of every row for tiles of KT columns, on the device. */
static int32_t *make_ts(int64_t m, int64_t k, const int64_t *hro, const int32_t *hci, int KT, int *T)
{
    *T = (int)((k + KT - 1) / KT);
    std::vector<int32_t> ts((size_t)m * (*T + 1));
    for (int64_t r = 0; r < m; r++) {
        int64_t j = hro[r];
        for (int s = 0; s <= *T; s++) {
            while (j < hro[r + 1] && hci[j] < (int64_t)s * KT)
                j++;
            ts[r * (*T + 1) + s] = (int32_t)(s == *T ? hro[r + 1] : j);
        }
    }
    int32_t *d;
    CU(cudaMalloc(&d, ts.size() * sizeof(int32_t)));
    CU(cudaMemcpy(d, ts.data(), ts.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    return d;
}

int main(int argc, char **argv)
{
    loom_context *ctx;
    LM(loom_context_create(&ctx));
    LM(loom_context_set_backend(ctx, LOOM_BACKEND_CUDA));
    cusparseHandle_t sp;
    CS(cusparseCreate(&sp));
    timer tm;
    for (int f = 1; f < argc; f++) {
        loom_csr *hA, *A;
        LM(loom_csr_read(ctx, argv[f], LOOM_F32, &hA));
        LM(loom_csr_copy(ctx, hA, LOOM_MEMORY_DEVICE, &A));
        int64_t m, k, nnz;
        LM(loom_csr_info(A, &m, &k, &nnz, NULL, NULL));
        const int64_t *ro;
        const int32_t *ci;
        const void *vv;
        LM(loom_csr_arrays(A, &ro, &ci, &vv));
        const float *val = (const float *)vv;
        const int64_t *hro;
        const int32_t *hci;
        const void *hvv;
        LM(loom_csr_arrays(hA, &hro, &hci, &hvv));
        const float *hval = (const float *)hvv;
        int T64, T128;
        int32_t *ts64 = make_ts(m, k, hro, hci, 64, &T64);
        int32_t *ts128 = make_ts(m, k, hro, hci, 128, &T128);
        std::vector<int32_t> ro32(m + 1);
        for (int64_t i = 0; i <= m; i++)
            ro32[i] = (int32_t)hro[i];
        int32_t *dro32;
        CU(cudaMalloc(&dro32, (m + 1) * sizeof(int32_t)));
        CU(cudaMemcpy(dro32, ro32.data(), (m + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
        printf("%s: %lld x %lld, %lld non-zeros (%.1f per row)\n", argv[f], (long long)m,
               (long long)k, (long long)nnz, (double)nnz / m);
        for (int64_t n : {64, 128, 256, 512}) {
            loom_dense X, Y, hX;
            LM(loom_dense_alloc(ctx, &hX, k, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
            LM(loom_dense_fill_random(&hX, 1234 + n));
            LM(loom_dense_alloc(ctx, &X, k, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
            LM(loom_dense_copy(ctx, &hX, &X));
            LM(loom_dense_alloc(ctx, &Y, m, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
            printf(" N = %lld\n", (long long)n);
            std::vector<float> ref((size_t)m * n);
            for (const char *design : {"rb-rm-sr:vdl,csc", "rb-rm-sr:vdl,csc,tile-major",
                                       "eb-rm-sr:chunk=128,vdl,csc,tile-major"}) {
                loom_plan_options o;
                LM(loom_plan_options_init(&o));
                o.selector = LOOM_SELECT_FIXED;
                LM(loom_strategy_parse(design, &o.strategy));
                loom_plan *p;
                LM(loom_spmm_plan_create(ctx, &p, A, &X, &Y, &o));
                double us = tm.median_us([&] { loom_spmm_execute(p, 1.0, &X, 0.0, &Y); });
                if (!strcmp(design, "rb-rm-sr:vdl,csc"))
                    CU(cudaMemcpy(ref.data(), Y.data, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
                printf("  loom %-21s %9.2f us\n", design, us);
                LM(loom_plan_destroy(&p));
            }
            cusparseSpMatDescr_t sa;
            cusparseDnMatDescr_t dx, dy;
            CS(cusparseCreateCsr(&sa, m, k, nnz, dro32, (void *)ci, (void *)val, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
            CS(cusparseCreateDnMat(&dx, k, n, n, X.data, CUDA_R_32F, CUSPARSE_ORDER_ROW));
            CS(cusparseCreateDnMat(&dy, m, n, n, Y.data, CUDA_R_32F, CUSPARSE_ORDER_ROW));
            float one = 1.f, zero = 0.f;
            for (cusparseSpMMAlg_t alg : {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
                size_t bytes = 0;
                CS(cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sa, dx, &zero, dy,
                                           CUDA_R_32F, alg, &bytes));
                void *buf = NULL;
                CU(cudaMalloc(&buf, bytes ? bytes : 1));
                CS(cusparseSpMM_preprocess(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sa, dx, &zero, dy,
                                           CUDA_R_32F, alg, buf));
                double us = tm.median_us([&] {
                    cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 &one, sa, dx, &zero, dy, CUDA_R_32F, alg, buf);
                });
                printf("  cusparse %-17s %9.2f us\n", alg == CUSPARSE_SPMM_CSR_ALG2 ? "ALG2" : "ALG3", us);
                CU(cudaFree(buf));
            }
            CS(cusparseDestroySpMat(sa));
            CS(cusparseDestroyDnMat(dx));
            CS(cusparseDestroyDnMat(dy));
            float *y = (float *)Y.data;
            const float *x = (const float *)X.data;
            run_kt2<true, 16, 4, 128, 8, 16>(m, k, n, ts128, T128, ci, val, x, y, ref, tm);
            run_kt2<false, 16, 4, 128, 4, 32>(m, k, n, ts128, T128, ci, val, x, y, ref, tm);
            run_kt2c<16, 4, 128, 8, 16>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 128, 4, 16>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 128, 8, 32>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<8, 4, 128, 8, 32>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<8, 4, 128, 8, 16>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 64, 8, 16>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<32, 4, 128, 8, 8>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<32, 4, 128, 8, 16>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<8, 2, 128, 8, 32>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 128, 8, 16, true>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 128, 4, 16, true>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<8, 4, 128, 8, 32, true>(m, k, n, hro, hci, hval, x, y, ref, tm);
            run_kt2c<16, 4, 128, 8, 32, true>(m, k, n, hro, hci, hval, x, y, ref, tm);
            LM(loom_dense_free(ctx, &X));
            LM(loom_dense_free(ctx, &Y));
            LM(loom_dense_free(ctx, &hX));
        }
        CU(cudaFree(dro32));
        CU(cudaFree(ts64));
        CU(cudaFree(ts128));
        LM(loom_csr_destroy(&A));
        LM(loom_csr_destroy(&hA));
    }
    cusparseDestroy(sp);
    loom_context_destroy(&ctx);
    return 0;
}
