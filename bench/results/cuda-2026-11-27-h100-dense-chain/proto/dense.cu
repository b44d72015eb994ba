/*
 * dense.cu - prototype (session 30): RB + SR as a dense product on DLMC layers RB + SR at wide N with X staged in shared memory a
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
#include <cmath>

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


#include "spmm_rb_dense.cuh"

using loomcu::operands;

template <int BM, int BN, int TM>
static double run_dense(const operands<float> &p, int64_t k, const std::vector<float> &ref, timer &tm,
                        bool time_it = true)
{
    typedef loomcu::dense_shape<float, BM, BN, TM> S;
    char tag[64];
    snprintf(tag, sizeof tag, "dense %dx%d TM%d (%d thr)", BM, BN, TM, S::threads);
    dim3 grid((unsigned)((p.m + BM - 1) / BM), (unsigned)((p.n + BN - 1) / BN));
    CU(cudaMemset(p.y, 0xff, (size_t)p.m * p.n * sizeof(float)));
    loomcu::rb_sr_dense_kernel<float, BM, BN, TM><<<grid, S::threads>>>(p, k);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    std::vector<float> got((size_t)p.m * p.n);
    CU(cudaMemcpy(got.data(), p.y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const bool same = memcmp(got.data(), ref.data(), got.size() * sizeof(float)) == 0;
    double us = 0;
    if (time_it)
        us = tm.median_us([&] { loomcu::rb_sr_dense_kernel<float, BM, BN, TM><<<grid, S::threads>>>(p, k); });
    printf("  %-30s %9.2f us  %s  (%u blocks)\n", tag, us, same ? "bits = rb-rm-sr" : "BITS DIFFER",
           grid.x * grid.y);
    return us;
}

static void loom_time(loom_plan *p, loom_dense *X, loom_dense *Y, const char *design, timer &tm)
{
    double us = tm.median_us([&] { loom_spmm_execute(p, 1.0, X, 0.0, Y); });
    printf("  loom %-25s %9.2f us\n", design, us);
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
        printf("%s: %lld x %lld, %lld non-zeros (%.1f per row, density %.3f)\n", argv[f], (long long)m,
               (long long)k, (long long)nnz, (double)nnz / m, (double)nnz / m / k);
        const char *only = getenv("DENSE_N");
        for (int64_t n : {16, 64, 128, 256, 512}) {
            if (only && atoll(only) != n)
                continue;
            loom_dense X, Y, hX;
            LM(loom_dense_alloc(ctx, &hX, k, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
            LM(loom_dense_fill_random(&hX, 1234 + n));
            LM(loom_dense_alloc(ctx, &X, k, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
            LM(loom_dense_copy(ctx, &hX, &X));
            LM(loom_dense_alloc(ctx, &Y, m, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE));
            printf(" N = %lld\n", (long long)n);
            std::vector<float> ref((size_t)m * n);
            loom_plan *rbp = NULL;
            for (const char *design : {"rb-rm-sr:vdl,csc", "rb-rm-sr:vdl,csc,tile-major",
                                       "eb-rm-sr:chunk=128,vdl,csc,tile-major", "eb-rm-sr:chunk=32,vdl,csc"}) {
                loom_plan_options o;
                LM(loom_plan_options_init(&o));
                o.selector = LOOM_SELECT_FIXED;
                LM(loom_strategy_parse(design, &o.strategy));
                loom_plan *p;
                LM(loom_spmm_plan_create(ctx, &p, A, &X, &Y, &o));
                loom_time(p, &X, &Y, design, tm);
                if (!strcmp(design, "rb-rm-sr:vdl,csc")) {
                    LM(loom_spmm_execute(p, 1.0, &X, 0.0, &Y));
                    CU(cudaDeviceSynchronize());
                    CU(cudaMemcpy(ref.data(), Y.data, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
                    rbp = p;
                } else {
                    LM(loom_plan_destroy(&p));
                }
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
                printf("  cusparse %-21s %9.2f us\n", alg == CUSPARSE_SPMM_CSR_ALG2 ? "ALG2" : "ALG3", us);
                CU(cudaFree(buf));
            }
            CS(cusparseDestroySpMat(sa));
            CS(cusparseDestroyDnMat(dx));
            CS(cusparseDestroyDnMat(dy));
            operands<float> p = {};
            p.m = m; p.n = n; p.nnz = nnz; p.ro = ro; p.ci = ci; p.val = val;
            p.x = (const float *)X.data; p.xrs = n; p.xcs = 1;
            p.y = (float *)Y.data; p.yrs = n; p.ycs = 1; p.alpha = 1.f; p.beta = 0.f;
            p.yvw = 4; p.xrsb = (uint32_t)(n * 4);
            run_dense<16, 64, 4>(p, k, ref, tm);
            run_dense<32, 64, 4>(p, k, ref, tm);
            run_dense<64, 64, 4>(p, k, ref, tm);
            run_dense<16, 64, 2>(p, k, ref, tm);
            run_dense<32, 64, 2>(p, k, ref, tm);
            run_dense<8, 64, 2>(p, k, ref, tm);
            run_dense<4, 64, 1>(p, k, ref, tm);
            run_dense<8, 32, 1>(p, k, ref, tm);
            run_dense<8, 64, 1>(p, k, ref, tm);
            if (n == 64) { /* an Inf and a NaN in X: the blocks that stage them take the sparse walk */
                std::vector<float> hx((size_t)k * n);
                CU(cudaMemcpy(hx.data(), X.data, hx.size() * 4, cudaMemcpyDeviceToHost));
                hx[(size_t)(k / 3) * n + 5] = INFINITY;
                hx[(size_t)(k - 1) * n + 63] = NAN;
                CU(cudaMemcpy(X.data, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
                LM(loom_spmm_execute(rbp, 1.0, &X, 0.0, &Y));
                CU(cudaDeviceSynchronize());
                CU(cudaMemcpy(ref.data(), Y.data, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
                printf("  with Inf and NaN in X:\n");
                run_dense<16, 64, 4>(p, k, ref, tm, false);
                run_dense<8, 32, 1>(p, k, ref, tm, false);
            }
            LM(loom_plan_destroy(&rbp));
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
