/*
 * ktile.cu - prototype: RB + SR at wide N with X staged in shared memory a
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
        LM(loom_csr_arrays(hA, &hro, NULL, NULL));
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
            run_ktile<4, 128, 4, 32>("ktile2 V4 KT128 U4 32r", m, k, n, ro, ci, val, x, y, ref, tm);
            run_ktile<4, 128, 8, 32>("ktile2 V4 KT128 U8 32r", m, k, n, ro, ci, val, x, y, ref, tm);
            run_ktile<4, 64, 8, 16>("ktile2 V4 KT64 U8 16r", m, k, n, ro, ci, val, x, y, ref, tm);
            run_ktile<4, 64, 4, 32>("ktile2 V4 KT64 U4 32r", m, k, n, ro, ci, val, x, y, ref, tm);
            run_ktile<2, 128, 8, 32>("ktile2 V2 KT128 U8 32r", m, k, n, ro, ci, val, x, y, ref, tm);
            run_ktile<2, 256, 8, 16>("ktile2 V2 KT256 U8 16r", m, k, n, ro, ci, val, x, y, ref, tm);
            LM(loom_dense_free(ctx, &X));
            LM(loom_dense_free(ctx, &Y));
            LM(loom_dense_free(ctx, &hX));
        }
        CU(cudaFree(dro32));
        LM(loom_csr_destroy(&A));
        LM(loom_csr_destroy(&hA));
    }
    cusparseDestroy(sp);
    loom_context_destroy(&ctx);
    return 0;
}
