/*
 * dual_gpu_bench.cu - dual-side sparsity on the GPU: the SpGEMM sweep.
 * C = A*B, n x n x n (default 4096), f32, A and B with the same sparsity
 * from 0 to 99.9 %: loom's CUDA dual-side GEMM (bitmaps uploaded by the
 * plan, C in device memory) against cuBLAS sgemm on the dense matrices and
 * cuSPARSE SpGEMM (CSR x CSR -> CSR; work estimation, compute and copy
 * timed together, which is what one product costs).  Checks at one
 * sparsity that the GPU result has the OpenMP backend's bits.  Prints where
 * each method starts to win.
 *
 * Table III on the GPU (im2col strategies as GPU kernels) is not done:
 * a convolution on the cuda dual backend runs its im2col on the host.
 *
 * Usage: dual_gpu_bench [--size N] [--reps R] [--csv FILE]
 */
#include <loom.h>
#include <loom/bitmap.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define TRY(call)                                                                              \
    do {                                                                                       \
        loom_status st_ = (call);                                                              \
        if (st_ != LOOM_SUCCESS) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, loom_last_error()); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define CU(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
static uint64_t rng = 0x1234567;
static double uniform()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void fill_sparse(std::vector<float> &m, double sparsity)
{
    for (auto &v : m)
        v = uniform() < sparsity ? 0.0f : (float)(uniform() + 0.5);
}

struct timer {
    cudaEvent_t a, b;
    timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
    void start() { cudaEventRecord(a); }
    double stop_ms()
    {
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        return ms;
    }
};

struct csr32 {
    std::vector<int> rp, ci;
    std::vector<float> v;
};

static csr32 to_csr(const std::vector<float> &d, int n)
{
    csr32 c;
    c.rp.assign(n + 1, 0);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (d[(size_t)i * n + j] != 0) {
                c.ci.push_back(j);
                c.v.push_back(d[(size_t)i * n + j]);
            }
        c.rp[i + 1] = (int)c.ci.size();
    }
    return c;
}

/* One cuSPARSE SpGEMM, everything a product needs, in milliseconds; -2
 * when cuSPARSE or an allocation fails (near-dense operands can need more
 * memory than the GPU has), with the reason printed. */
#define SOFT(call)                                                                             \
    do {                                                                                       \
        if (ok) {                                                                              \
            int rc_ = (int)(call);                                                             \
            if (rc_ != 0) {                                                                    \
                fprintf(stderr, "  cuSPARSE SpGEMM: %s failed (%d)\n", #call, rc_);           \
                ok = false;                                                                    \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static double cusparse_spgemm_ms(cusparseHandle_t h, const csr32 &A, const csr32 &B, int n,
                                 int64_t *nnz_c)
{
    bool ok = true;
    int *a_rp = nullptr, *a_ci = nullptr, *b_rp = nullptr, *b_ci = nullptr, *c_rp = nullptr,
        *c_ci = nullptr;
    float *a_v = nullptr, *b_v = nullptr, *c_v = nullptr;
    void *buf1 = nullptr, *buf2 = nullptr;
    cusparseSpMatDescr_t mA = nullptr, mB = nullptr, mC = nullptr;
    cusparseSpGEMMDescr_t desc = nullptr;
    size_t b1 = 0, b2 = 0;
    int64_t rows = 0, cols = 0, nnz = 0;
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    double ms = -2;
    timer t;
    SOFT(cudaMalloc(&a_rp, (n + 1) * sizeof(int)));
    SOFT(cudaMalloc(&b_rp, (n + 1) * sizeof(int)));
    SOFT(cudaMalloc(&c_rp, (n + 1) * sizeof(int)));
    SOFT(cudaMalloc(&a_ci, std::max<size_t>(1, A.ci.size()) * sizeof(int)));
    SOFT(cudaMalloc(&b_ci, std::max<size_t>(1, B.ci.size()) * sizeof(int)));
    SOFT(cudaMalloc(&a_v, std::max<size_t>(1, A.v.size()) * sizeof(float)));
    SOFT(cudaMalloc(&b_v, std::max<size_t>(1, B.v.size()) * sizeof(float)));
    SOFT(cudaMemcpy(a_rp, A.rp.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    SOFT(cudaMemcpy(b_rp, B.rp.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    SOFT(cudaMemcpy(a_ci, A.ci.data(), A.ci.size() * sizeof(int), cudaMemcpyHostToDevice));
    SOFT(cudaMemcpy(b_ci, B.ci.data(), B.ci.size() * sizeof(int), cudaMemcpyHostToDevice));
    SOFT(cudaMemcpy(a_v, A.v.data(), A.v.size() * sizeof(float), cudaMemcpyHostToDevice));
    SOFT(cudaMemcpy(b_v, B.v.data(), B.v.size() * sizeof(float), cudaMemcpyHostToDevice));
    SOFT(cusparseCreateCsr(&mA, n, n, (int64_t)A.v.size(), a_rp, a_ci, a_v, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SOFT(cusparseCreateCsr(&mB, n, n, (int64_t)B.v.size(), b_rp, b_ci, b_v, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SOFT(cusparseCreateCsr(&mC, n, n, 0, c_rp, nullptr, nullptr, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SOFT(cusparseSpGEMM_createDescr(&desc));
    cudaDeviceSynchronize();
    t.start();
    SOFT(cusparseSpGEMM_workEstimation(h, op, op, &alpha, mA, mB, &beta, mC, CUDA_R_32F,
                                       CUSPARSE_SPGEMM_DEFAULT, desc, &b1, nullptr));
    SOFT(cudaMalloc(&buf1, b1));
    SOFT(cusparseSpGEMM_workEstimation(h, op, op, &alpha, mA, mB, &beta, mC, CUDA_R_32F,
                                       CUSPARSE_SPGEMM_DEFAULT, desc, &b1, buf1));
    SOFT(cusparseSpGEMM_compute(h, op, op, &alpha, mA, mB, &beta, mC, CUDA_R_32F,
                                CUSPARSE_SPGEMM_DEFAULT, desc, &b2, nullptr));
    SOFT(cudaMalloc(&buf2, b2));
    SOFT(cusparseSpGEMM_compute(h, op, op, &alpha, mA, mB, &beta, mC, CUDA_R_32F,
                                CUSPARSE_SPGEMM_DEFAULT, desc, &b2, buf2));
    SOFT(cusparseSpMatGetSize(mC, &rows, &cols, &nnz));
    SOFT(cudaMalloc(&c_ci, std::max<int64_t>(1, nnz) * sizeof(int)));
    SOFT(cudaMalloc(&c_v, std::max<int64_t>(1, nnz) * sizeof(float)));
    SOFT(cusparseCsrSetPointers(mC, c_rp, c_ci, c_v));
    SOFT(cusparseSpGEMM_copy(h, op, op, &alpha, mA, mB, &beta, mC, CUDA_R_32F,
                             CUSPARSE_SPGEMM_DEFAULT, desc));
    double elapsed = t.stop_ms();
    if (ok)
        ms = elapsed;
    *nnz_c = nnz;
    if (desc)
        cusparseSpGEMM_destroyDescr(desc);
    if (mA)
        cusparseDestroySpMat(mA);
    if (mB)
        cusparseDestroySpMat(mB);
    if (mC)
        cusparseDestroySpMat(mC);
    cudaFree(buf1);
    cudaFree(buf2);
    cudaFree(a_rp); cudaFree(a_ci); cudaFree(a_v);
    cudaFree(b_rp); cudaFree(b_ci); cudaFree(b_v);
    cudaFree(c_rp); cudaFree(c_ci); cudaFree(c_v);
    cudaGetLastError();
    return ms;
}

int main(int argc, char **argv)
{
    int n = 4096, reps = 5;
    const char *csv_path = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv_path = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--size N] [--reps R] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    loom_context *ctx;
    TRY(loom_context_create(&ctx));
    if (loom_backend_available(LOOM_BACKEND_CUDA) != LOOM_SUCCESS) {
        printf("SKIP: no CUDA device: %s\n", loom_last_error());
        return 77;
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : nullptr;
    if (csv)
        fprintf(csv, "n,sparsity,density_product,cublas_ms,dual_ms,cusparse_ms,nnz_c,dstc_speedup\n");
    cublasHandle_t blas;
    cusparseHandle_t sp;
    cublasCreate(&blas);
    cusparseCreate(&sp);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("SpGEMM %d x %d x %d on %s, f32, sparsity of A = sparsity of B, best of %d\n", n, n, n,
           prop.name, reps);
    printf("%9s %10s | %11s %11s %13s | %10s %12s | %12s\n", "sparsity", "dA*dB", "cublas ms",
           "dual ms", "cusparse ms", "vs cublas", "vs cusparse", "DSTC steps x");
    const double sparsity[] = {0, 0.5, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999};
    std::vector<float> A((size_t)n * n), B((size_t)n * n);
    float *dA, *dB, *dC;
    CU(cudaMalloc(&dA, (size_t)n * n * sizeof(float)));
    CU(cudaMalloc(&dB, (size_t)n * n * sizeof(float)));
    CU(cudaMalloc(&dC, (size_t)n * n * sizeof(float)));
    int first_win_blas = -1, first_win_sp = -1;
    for (int idx = 0; idx < (int)(sizeof sparsity / sizeof sparsity[0]); idx++) {
        const double s = sparsity[idx];
        fill_sparse(A, s);
        fill_sparse(B, s);
        timer t;
        /* cuBLAS, row-major C = A*B as column-major C^T = B^T A^T. */
        CU(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
        const float one = 1, zero = 0;
        double blas_ms = 1e30, dual_ms = 1e30, sp_ms = -1;
        for (int r = 0; r < reps + 1; r++) {
            t.start();
            cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB, n, dA, n, &zero, dC, n);
            double ms = t.stop_ms();
            if (r)
                blas_ms = std::min(blas_ms, ms);
        }
        loom_dense Ad, Bd, Cd;
        TRY(loom_dense_init(&Ad, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, A.data()));
        TRY(loom_dense_init(&Bd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, B.data()));
        TRY(loom_dense_init(&Cd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE, dC));
        loom_bitmap *Ab, *Bb;
        TRY(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &Ab));
        TRY(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &Bb));
        loom_dual_gemm_steps steps;
        TRY(loom_dual_gemm_steps_count(Ab, Bb, &steps));
        loom_bitmap_view va, vb;
        TRY(loom_bitmap_view_get(Ab, &va));
        TRY(loom_bitmap_view_get(Bb, &vb));
        double prod = ((double)va.nnz / ((double)n * n)) * ((double)vb.nnz / ((double)n * n));
        loom_dual_gemm_plan *p;
        TRY(loom_dual_gemm_plan_create(ctx, &p, Ab, Bb, &Cd, LOOM_BACKEND_CUDA));
        for (int r = 0; r < reps + 1; r++) {
            t.start();
            TRY(loom_dual_gemm_execute(p, 1.0, 0.0, &Cd));
            double ms = t.stop_ms();
            if (r)
                dual_ms = std::min(dual_ms, ms);
        }
        TRY(loom_dual_gemm_plan_destroy(&p));
        if (s == 0.9 && loom_backend_available(LOOM_BACKEND_OPENMP) == LOOM_SUCCESS) {
            /* The contract: the GPU's bits are the CPU's. */
            std::vector<float> gpu((size_t)n * n), cpu((size_t)n * n);
            CU(cudaMemcpy(gpu.data(), dC, gpu.size() * sizeof(float), cudaMemcpyDeviceToHost));
            loom_dense Ch;
            TRY(loom_dense_init(&Ch, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, cpu.data()));
            TRY(loom_dual_gemm_plan_create(ctx, &p, Ab, Bb, &Ch, LOOM_BACKEND_OPENMP));
            TRY(loom_dual_gemm_execute(p, 1.0, 0.0, &Ch));
            TRY(loom_dual_gemm_plan_destroy(&p));
            printf("  (90%%: cuda result bit-identical to openmp: %s)\n",
                   memcmp(gpu.data(), cpu.data(), gpu.size() * sizeof(float)) ? "NO" : "yes");
        }
        int64_t nnz_c = -1;
        /* cuSPARSE SpGEMM on near-dense operands forms n^3 * dA * dB
         * intermediate products and a dense CSR result: skipped below 75%. */
        if (s >= 0.75) {
            csr32 Ac = to_csr(A, n), Bc = to_csr(B, n);
            sp_ms = 1e30;
            for (int r = 0; r < std::min(reps, 3) && sp_ms > 0; r++) {
                double ms = cusparse_spgemm_ms(sp, Ac, Bc, n, &nnz_c);
                sp_ms = ms < 0 ? ms : std::min(sp_ms, ms);
            }
        }
        loom_bitmap_destroy(&Ab);
        loom_bitmap_destroy(&Bb);
        char sp_col[32], vs_sp[32];
        if (sp_ms == -2) {
            snprintf(sp_col, sizeof sp_col, "failed");
            snprintf(vs_sp, sizeof vs_sp, "-");
        } else if (sp_ms >= 0) {
            snprintf(sp_col, sizeof sp_col, "%.3f", sp_ms);
            snprintf(vs_sp, sizeof vs_sp, "%.2fx", sp_ms / dual_ms);
        } else {
            snprintf(sp_col, sizeof sp_col, "skipped");
            snprintf(vs_sp, sizeof vs_sp, "-");
        }
        printf("%8.1f%% %10.3g | %11.3f %11.3f %13s | %9.2fx %12s | %12.1f\n", 100 * s, prod,
               blas_ms, dual_ms, sp_col, blas_ms / dual_ms, vs_sp, steps.speedup);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%d,%g,%g,%.4f,%.4f,%.4f,%lld,%.2f\n", n, s, prod, blas_ms, dual_ms, sp_ms,
                    (long long)nnz_c, steps.speedup);
        if (dual_ms < blas_ms && first_win_blas < 0)
            first_win_blas = idx;
        if (dual_ms >= blas_ms)
            first_win_blas = -1;
        if (sp_ms >= 0 && dual_ms < sp_ms && first_win_sp < 0)
            first_win_sp = idx;
        if (sp_ms >= 0 && dual_ms >= sp_ms)
            first_win_sp = -1;
    }
    if (first_win_blas >= 0)
        printf("dual-side GEMM faster than cuBLAS sgemm from %.1f%% sparsity up\n",
               100 * sparsity[first_win_blas]);
    else
        printf("dual-side GEMM is not faster than cuBLAS sgemm at the highest sparsities\n");
    if (first_win_sp >= 0)
        printf("dual-side GEMM faster than cuSPARSE SpGEMM from %.1f%% sparsity up (of those run)\n",
               100 * sparsity[first_win_sp]);
    else
        printf("dual-side GEMM is not faster than cuSPARSE SpGEMM at the highest sparsities\n");
    if (csv)
        fclose(csv);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cublasDestroy(blas);
    cusparseDestroy(sp);
    loom_context_destroy(&ctx);
    return 0;
}
