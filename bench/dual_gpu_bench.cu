/*
 * dual_gpu_bench.cu - dual-side sparsity on the GPU.
 *
 * Part 1, the SpGEMM sweep: C = A*B, n x n x n (default 4096), f32, A and B
 * with the same sparsity from 0 to 99.9 %: loom's CUDA dual-side GEMM
 * (bitmaps uploaded by the plan, C in device memory; the automatic block
 * tile, each forced tile, and the exact path) against cuBLAS sgemm on the
 * dense matrices and cuSPARSE SpGEMM (CSR x CSR -> CSR; work estimation,
 * compute and copy timed together, which is what one product costs).  For
 * each sparsity it prints the floor: the useful multiply-adds (pairs of
 * non-zeros) at cuBLAS's measured dense rate, and the bytes (both bitmaps
 * read once, C written once) at the measured copy bandwidth.  Checks that
 * the GPU result has the OpenMP backend's bits at the high sparsities.
 *
 * Part 2, Table III of the dual-side sparse tensor core paper on the GPU:
 * the im2col of a ResNet-18 layer (56 x 56, 3x3, 128 -> 128 channels,
 * stride 1, pad 1) at input sparsity 0, 25, 50, 75, 99, 99.9 %: each
 * strategy's im2col alone on the device, from the input in its own format
 * to the im2col matrix in its own format (CUDA events, median of many),
 * normalized to dense; then im2col plus the conversion to the bitmap the
 * GEMM takes, the GEMM, and the whole loom_conv_execute (X uploaded, Y
 * downloaded).  Checks that the three strategies give the same bits as the
 * OpenMP backend.  Prints where each strategy starts to win.
 *
 * The stages are called through backends/cuda/dual_cuda.h (this program
 * compiles the dual .cu files in), the whole operations through the API.
 * Each timed rep launches between two events, so microsecond stages
 * include the host's launch latency.
 *
 * Usage: dual_gpu_bench [--size N] [--reps R] [--conv-reps R]
 *                       [--w-sparsity S] [--sparsity S] [--csv FILE]
 *                       [--conv-csv FILE] [--no-spgemm] [--no-conv]
 * (--sparsity S: the SpGEMM sweep at S alone.)
 */
#include <loom.h>
#include <loom/bitmap.h>

#include "dual_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <vector>

#include "bench_args.h"
#include "gpu_check.h"

static uint64_t rng = 0x1234567;
static double uniform()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Non-zeros in [0.5, 1.5): never 0, never tiny (the GEMM's fast path applies). */
static void fill_sparse(std::vector<float> &m, double sparsity)
{
    for (auto &v : m)
        v = uniform() < sparsity ? 0.0f : (float)(uniform() + 0.5);
}

static double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

struct timer {
    cudaEvent_t a, b;
    timer()
    {
        CU(cudaEventCreate(&a));
        CU(cudaEventCreate(&b));
    }
    ~timer()
    {
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    void start() { CU(cudaEventRecord(a)); }
    double stop_ms()
    {
        CU(cudaEventRecord(b));
        CU(cudaEventSynchronize(b));
        float ms;
        CU(cudaEventElapsedTime(&ms, a, b));
        return ms;
    }
};

/* Median time of f() over reps runs after one warm-up, by CUDA events. */
/* Host wall-clock milliseconds (for the plan, which runs on the host). */
static double wall_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

template <typename F> static double time_ms(int reps, F f)
{
    timer t;
    f();
    CU(cudaDeviceSynchronize());
    std::vector<double> ms;
    for (int r = 0; r < reps; r++) {
        t.start();
        f();
        ms.push_back(t.stop_ms());
    }
    return median(ms);
}

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
    cudaFree(a_rp);
    cudaFree(a_ci);
    cudaFree(a_v);
    cudaFree(b_rp);
    cudaFree(b_ci);
    cudaFree(b_v);
    cudaFree(c_rp);
    cudaFree(c_ci);
    cudaFree(c_v);
    cudaGetLastError();
    return ms;
}

/* Device-to-device copy bandwidth, bytes read plus bytes written. */
static double copy_bandwidth_gbs()
{
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CU(cudaMalloc(&a, bytes));
    CU(cudaMalloc(&b, bytes));
    CU(cudaMemset(a, 1, bytes));
    double ms = time_ms(10, [&] { CU(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); });
    cudaFree(a);
    cudaFree(b);
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

/* The GEMM configurations timed (environment of dual_cuda_backend.c;
 * NULL leaves a variable unset).  The first is the library's default. */
static const struct variant {
    const char *name, *kernel, *tile, *walk, *exact;
} variants[] = {
    {"default", NULL, NULL, NULL, NULL},
    {"lines_cols", "cols", NULL, NULL, NULL},
    {"pipe", "pipe", NULL, NULL, NULL},
    {"pipe_exact", NULL, NULL, NULL, "1"},
    {"basic", "basic", NULL, NULL, NULL},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

static void set_or_unset(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void set_variant(const struct variant *v)
{
    set_or_unset("LOOM_DUAL_CUDA_KERNEL", v->kernel);
    set_or_unset("LOOM_DUAL_CUDA_TILE", v->tile);
    set_or_unset("LOOM_DUAL_CUDA_WALK", v->walk);
    set_or_unset("LOOM_DUAL_CUDA_EXACT", v->exact);
}

/* ----------------------------------------------------------- part 1 */

/* The SpGEMM sweep's sparsity levels (of A and of B). */
static const double SPGEMM_SPARSITY[] = {0, 0.5, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999};
enum { SPGEMM_LEVELS = sizeof SPGEMM_SPARSITY / sizeof SPGEMM_SPARSITY[0] };

/* --sparsity S: S must be one of the sweep's levels, written in full. */
static bool parse_level(const char *arg, double *out)
{
    char *end;
    const double v = strtod(arg, &end);
    for (int i = 0; end != arg && *end == '\0' && i < SPGEMM_LEVELS; i++)
        if (v == SPGEMM_SPARSITY[i]) {
            *out = v;
            return true;
        }
    return false;
}

/* From which sparsity up the dual-side GEMM wins at every sparsity
 * measured, against cuBLAS and against cuSPARSE (where it ran: < 0 is
 * skipped or failed). */
static void print_crossovers(const double *sparsity, int ns, const std::vector<double> &dual_v,
                             const std::vector<double> &blas_v, const std::vector<double> &sp_v)
{
    int win_blas = -1, win_sp = -1;
    for (int i = ns - 1; i >= 0 && dual_v[i] < blas_v[i]; i--)
        win_blas = i;
    for (int i = ns - 1; i >= 0 && (sp_v[i] < 0 || dual_v[i] < sp_v[i]); i--)
        if (sp_v[i] >= 0)
            win_sp = i;
    if (win_blas >= 0)
        printf("dual-side GEMM faster than cuBLAS sgemm from %.1f%% sparsity up\n",
               100 * sparsity[win_blas]);
    else
        printf("dual-side GEMM is not faster than cuBLAS sgemm at the highest sparsity\n");
    if (win_sp >= 0)
        printf("dual-side GEMM faster than cuSPARSE SpGEMM from %.1f%% sparsity up (of those run)\n",
               100 * sparsity[win_sp]);
    else
        printf("dual-side GEMM is not faster than cuSPARSE SpGEMM at the highest sparsity run\n");
}

static void spgemm_sweep(loom_context *ctx, int n, int reps, double copy_gbs, double only,
                         FILE *csv)
{
    cublasHandle_t blas;
    cusparseHandle_t sp;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cusparseCreate(&sp) != CUSPARSE_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS or cuSPARSE could not start\n");
        exit(1);
    }
    printf("\n== SpGEMM %d x %d x %d, f32, sparsity of A = sparsity of B, median of %d, C on the "
           "device\n",
           n, n, n, reps);
    printf("floor = max(useful multiply-adds at cuBLAS's dense rate, bitmap bytes + C at %.0f "
           "GB/s)\n",
           copy_gbs);
    printf("%8s %9s %8s | %7s %7s %7s | %7s", "sparsity", "dA*dB", "GFMA", "floor", "cublas",
           "cusp.", "dual");
    for (int v = 1; v < NVARIANTS; v++)
        printf(" %11s", variants[v].name);
    printf(" | %7s %8s | %6s\n", "vs blas", "vs cusp", "DSTC x");
    if (csv) {
        fprintf(csv, "n,sparsity,density_product,useful_fma,floor_ms,floor_bytes_ms,cublas_ms,"
                     "dual_ms,cusparse_ms,nnz_c,dstc_speedup,bits_vs_openmp,plan_ms");
        for (int v = 0; v < NVARIANTS; v++)
            fprintf(csv, ",%s_ms", variants[v].name);
        fprintf(csv, "\n");
    }
    const double *sparsity = SPGEMM_SPARSITY;
    const int ns = SPGEMM_LEVELS;
    std::vector<float> A((size_t)n * n), B((size_t)n * n);
    float *dA, *dB, *dC;
    CU(cudaMalloc(&dA, (size_t)n * n * sizeof(float)));
    CU(cudaMalloc(&dB, (size_t)n * n * sizeof(float)));
    CU(cudaMalloc(&dC, (size_t)n * n * sizeof(float)));
    double dense_fma_per_ms = 0;
    std::vector<double> dual_v(ns), blas_v(ns), sp_v(ns);
    for (int idx = 0; idx < ns; idx++) {
        const double s = sparsity[idx];
        if (only >= 0 && s != only)
            continue;
        fill_sparse(A, s);
        fill_sparse(B, s);
        /* Useful multiply-adds: per k, non-zeros of A's column times B's row. */
        std::vector<int64_t> acol(n, 0), brow(n, 0);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < n; k++) {
                acol[k] += A[(size_t)i * n + k] != 0;
                brow[i] += B[(size_t)i * n + k] != 0;
            }
        double useful = 0;
        for (int k = 0; k < n; k++)
            useful += (double)acol[k] * (double)brow[k];
        /* cuBLAS, row-major C = A*B as column-major C^T = B^T A^T. */
        CU(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
        const float one = 1, zero = 0;
        const double blas_ms = time_ms(reps, [&] {
            cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB, n, dA, n, &zero, dC, n);
        });
        if (dense_fma_per_ms == 0) /* cuBLAS's rate does not depend on the zeros */
            dense_fma_per_ms = (double)n * n * n / blas_ms;
        loom_dense Ad, Bd, Cd;
        LM(loom_dense_init(&Ad, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, A.data()));
        LM(loom_dense_init(&Bd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, B.data()));
        LM(loom_dense_init(&Cd, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE, dC));
        loom_bitmap *Ab, *Bb;
        LM(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &Ab));
        LM(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &Bb));
        loom_dual_gemm_steps steps;
        LM(loom_dual_gemm_steps_count(Ab, Bb, &steps));
        loom_bitmap_view va, vb;
        LM(loom_bitmap_view_get(Ab, &va));
        LM(loom_bitmap_view_get(Bb, &vb));
        const double prod = ((double)va.nnz / ((double)n * n)) * ((double)vb.nnz / ((double)n * n));
        const double tiles = (double)va.tile_rows * va.tile_cols;
        const double bytes = 4.0 * (va.nnz + vb.nnz) + 2 * tiles * (32 * 4 + 8 + 1.0 / 8) +
                             4.0 * n * n;
        const double floor_bytes = bytes / (copy_gbs * 1e9) * 1e3;
        const double floor = std::max(floor_bytes, useful / dense_fma_per_ms);
        loom_dual_gemm_plan *p;
        double var_ms[NVARIANTS], plan_ms = 0;
        /* A plan per variant: some choose their path when the plan is made.
         * The plan (host lists, uploads) is timed apart, once. */
        for (int v = NVARIANTS - 1; v >= 0; v--) {
            set_variant(&variants[v]);
            const double t0 = wall_ms();
            LM(loom_dual_gemm_plan_create(ctx, &p, Ab, Bb, &Cd, LOOM_BACKEND_CUDA));
            CU(cudaDeviceSynchronize());
            if (v == 0) {
                plan_ms = wall_ms() - t0;
                printf("  plan %.1f ms: %s\n", plan_ms, loom_dual_gemm_plan_explain(p));
            }
            var_ms[v] = time_ms(reps, [&] { LM(loom_dual_gemm_execute(p, 1.0, 0.0, &Cd)); });
            if (v > 0)
                LM(loom_dual_gemm_plan_destroy(&p));
        }
        LM(loom_dual_gemm_execute(p, 1.0, 0.0, &Cd)); /* the default's C, for the bit check */
        CU(cudaDeviceSynchronize());
        LM(loom_dual_gemm_plan_destroy(&p));
        const char *bits = "-";
        if (s >= 0.9 && loom_backend_available(LOOM_BACKEND_OPENMP) == LOOM_SUCCESS) {
            /* The contract: the GPU's bits are the CPU's. */
            std::vector<float> gpu((size_t)n * n), cpu((size_t)n * n);
            CU(cudaMemcpy(gpu.data(), dC, gpu.size() * sizeof(float), cudaMemcpyDeviceToHost));
            loom_dense Ch;
            LM(loom_dense_init(&Ch, n, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, cpu.data()));
            LM(loom_dual_gemm_plan_create(ctx, &p, Ab, Bb, &Ch, LOOM_BACKEND_OPENMP));
            LM(loom_dual_gemm_execute(p, 1.0, 0.0, &Ch));
            LM(loom_dual_gemm_plan_destroy(&p));
            bits = memcmp(gpu.data(), cpu.data(), gpu.size() * sizeof(float)) ? "DIFFER" : "same";
        }
        int64_t nnz_c = -1;
        double sp_ms = -1;
        /* cuSPARSE SpGEMM on near-dense operands forms n^3 * dA * dB
         * intermediate products and a dense CSR result: skipped below 75%. */
        if (s >= 0.75) {
            csr32 Ac = to_csr(A, n), Bc = to_csr(B, n);
            std::vector<double> v;
            for (int r = 0; r < std::min(reps, 3); r++) {
                double ms = cusparse_spgemm_ms(sp, Ac, Bc, n, &nnz_c);
                if (ms < 0) {
                    v.clear();
                    sp_ms = ms;
                    break;
                }
                v.push_back(ms);
            }
            if (!v.empty())
                sp_ms = median(v);
        }
        loom_bitmap_destroy(&Ab);
        loom_bitmap_destroy(&Bb);
        const double dual_ms = var_ms[0];
        char sp_col[32], vs_sp[32];
        if (sp_ms == -2) {
            snprintf(sp_col, sizeof sp_col, "failed");
            snprintf(vs_sp, sizeof vs_sp, "-");
        } else if (sp_ms >= 0) {
            snprintf(sp_col, sizeof sp_col, "%.3f", sp_ms);
            snprintf(vs_sp, sizeof vs_sp, "%.1fx", sp_ms / dual_ms);
        } else {
            snprintf(sp_col, sizeof sp_col, "skipped");
            snprintf(vs_sp, sizeof vs_sp, "-");
        }
        printf("%7.1f%% %9.3g %8.3g | %7.3f %7.3f %7s | %7.3f", 100 * s, prod, useful / 1e9, floor,
               blas_ms, sp_col, dual_ms);
        for (int v = 1; v < NVARIANTS; v++)
            printf(" %11.3f", var_ms[v]);
        printf(" | %6.2fx %8s | %6.1f  bits %s\n", blas_ms / dual_ms, vs_sp, steps.speedup, bits);
        fflush(stdout);
        if (csv) {
            fprintf(csv, "%d,%g,%g,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%lld,%.2f,%s,%.3f", n, s, prod,
                    useful, floor, floor_bytes, blas_ms, dual_ms, sp_ms, (long long)nnz_c,
                    steps.speedup, bits, plan_ms);
            for (int v = 0; v < NVARIANTS; v++)
                fprintf(csv, ",%.4f", var_ms[v]);
            fprintf(csv, "\n");
            fflush(csv);
        }
        dual_v[idx] = dual_ms;
        blas_v[idx] = blas_ms;
        sp_v[idx] = sp_ms;
    }
    /* From which sparsity up loom wins at every sparsity measured (with
     * --sparsity only one level ran: no crossover to tell). */
    if (only < 0)
        print_crossovers(sparsity, ns, dual_v, blas_v, sp_v);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cublasDestroy(blas);
    cusparseDestroy(sp);
}

/* ----------------------------------------------------------- part 2 */

#define DC(call)                                                                               \
    do {                                                                                       \
        int rc_ = (call);                                                                      \
        if (rc_) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    loom__dual_cuda_error_string(rc_));                                        \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void table_iii(loom_context *ctx, int reps, int conv_reps, double w_sparsity, FILE *csv)
{
    const loom_conv_shape sh = {1, 128, 56, 56, 128, 3, 3, 1, 1, 1, 1, 1, 1};
    int64_t oh, ow;
    LM(loom_conv_output_size(&sh, &oh, &ow));
    const int64_t xr = sh.batch * sh.channels * sh.height, crs = sh.channels * 9, pq = oh * ow;
    printf("\n== Table III on the GPU: im2col of a ResNet-18 layer, %lld x %lld input, 3x3, "
           "%lld -> %lld channels, stride 1, pad 1, f32\n",
           (long long)sh.height, (long long)sh.width, (long long)sh.channels,
           (long long)sh.filters);
    printf("im2col alone: input in the strategy's format on the device -> im2col matrix in its "
           "format; median of %d (CUDA events)\n",
           reps);
    printf("+bitmap: im2col and the conversion to the bitmap the GEMM takes; conv: "
           "loom_conv_execute (X up, Y down; W %.0f%% sparse), median of %d\n",
           100 * w_sparsity, conv_reps);
    printf("%8s | %-24s | %-24s | %-24s | %-26s | %7s\n", "", "im2col alone us (norm.)",
           "+bitmap us", "X -> format us", "whole conv ms", "GEMM ms");
    printf("%8s | %7s %8s %8s | %7s %8s %8s | %7s %8s %8s | %8s %8s %8s | %7s\n", "sparsity",
           "dense", "csr", "bitmap", "dense", "csr", "bitmap", "dense", "csr", "bitmap", "dense",
           "csr", "bitmap", "");
    if (csv)
        fprintf(csv, "sparsity,w_sparsity,im2col_dense_us,im2col_csr_us,im2col_bitmap_us,"
                     "norm_csr,norm_bitmap,to_bitmap_dense_us,to_bitmap_csr_us,to_bitmap_bitmap_us,"
                     "x_csr_us,x_bitmap_us,conv_dense_ms,conv_csr_ms,conv_bitmap_ms,gemm_ms,"
                     "bits\n");
    /* W: F x (C*R*S), column-condensed, uploaded once. */
    std::vector<float> w((size_t)sh.filters * crs);
    fill_sparse(w, w_sparsity);
    loom_dense Wd;
    LM(loom_dense_init(&Wd, sh.filters, crs, crs, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST,
                        w.data()));
    loom_bitmap *W;
    LM(loom_bitmap_from_dense(ctx, &Wd, LOOM_BITMAP_COLUMNS, &W));
    loom_bitmap_view wv;
    LM(loom_bitmap_view_get(W, &wv));
    dual_cuda_bitmap dW;
    DC(loom__dual_cuda_upload(wv.rows, wv.cols, wv.tile_rows, wv.tile_cols, wv.nnz, wv.tile_bits,
                              wv.masks, wv.tile_offsets, nullptr, wv.values, 4, &dW));
    float *dX, *dcols, *dY;
    CU(cudaMalloc(&dX, (size_t)xr * sh.width * 4));
    CU(cudaMalloc(&dcols, (size_t)crs * pq * 4));
    CU(cudaMalloc(&dY, (size_t)sh.filters * pq * 4));
    dual_cuda_csr xcsr, ccsr;
    dual_cuda_bitmap xbm, cbm;
    DC(loom__dual_cuda_csr_alloc(xr, sh.width, xr * sh.width, 4, &xcsr));
    DC(loom__dual_cuda_csr_alloc(crs, pq, crs * pq, 4, &ccsr));
    DC(loom__dual_cuda_bitmap_alloc_padded(xr, sh.width, 4, &xbm));
    DC(loom__dual_cuda_bitmap_alloc_padded(crs, pq, 4, &cbm));
    const double sparsity[] = {0, 0.25, 0.5, 0.75, 0.99, 0.999};
    const int ns = (int)(sizeof sparsity / sizeof sparsity[0]);
    double norm[2][6], conv_v[3][6];
    std::vector<float> X((size_t)xr * sh.width);
    for (int idx = 0; idx < ns; idx++) {
        fill_sparse(X, sparsity[idx]);
        CU(cudaMemcpy(dX, X.data(), X.size() * 4, cudaMemcpyHostToDevice));
        const double x_csr = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_csr_from_dense(dX, sh.width, 0, 0, &xcsr, nullptr));
        });
        const double x_bm = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_bitmap_from_dense(dX, sh.width, 0, 0, &xbm, nullptr));
        });
        const double im_dense = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_im2col_dense(&sh, oh, ow, dX, sh.width, 0, 0, dcols, pq, 0, 0,
                                            nullptr));
        });
        const double im_csr = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_im2col_csr(&sh, oh, ow, &xcsr, 0, 0, &ccsr, nullptr));
        });
        const double im_bm = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_im2col_bitmap(&sh, oh, ow, &xbm, 0, 0, &cbm, nullptr));
        });
        const double to_dense = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_im2col_dense(&sh, oh, ow, dX, sh.width, 0, 0, dcols, pq, 0, 0,
                                            nullptr));
            DC(loom__dual_cuda_bitmap_from_dense(dcols, pq, 0, 0, &cbm, nullptr));
        });
        const double to_csr = 1e3 * time_ms(reps, [&] {
            DC(loom__dual_cuda_im2col_csr(&sh, oh, ow, &xcsr, 0, 0, &ccsr, nullptr));
            DC(loom__dual_cuda_bitmap_from_csr(&ccsr, 0, &cbm, nullptr));
        });
        const double gemm = time_ms(reps, [&] {
            DC(loom__dual_cuda_gemm(&dW, &cbm, 0, 1.0, 0.0, dY, pq, 0, 1, nullptr, nullptr));
        });
        /* The whole convolution through the API, each strategy, and the
         * bits against the OpenMP backend. */
        std::vector<float> y_ref((size_t)sh.filters * pq), y((size_t)sh.filters * pq);
        loom_dense Xd, Yd;
        LM(loom_dense_init(&Xd, xr, sh.width, sh.width, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST,
                            X.data()));
        bool have_ref = loom_backend_available(LOOM_BACKEND_OPENMP) == LOOM_SUCCESS;
        if (have_ref) {
            LM(loom_dense_init(&Yd, sh.filters * oh, ow, ow, LOOM_ROW_MAJOR, LOOM_F32,
                                LOOM_MEMORY_HOST, y_ref.data()));
            loom_conv_plan *p;
            LM(loom_conv_plan_create(ctx, &p, &sh, W, LOOM_IM2COL_BITMAP, LOOM_BACKEND_OPENMP));
            LM(loom_conv_execute(p, 1.0, &Xd, 0.0, &Yd));
            LM(loom_conv_plan_destroy(&p));
        }
        const char *bits = have_ref ? "same" : "unchecked";
        double conv_ms[3];
        for (int strat = 0; strat < 3; strat++) {
            LM(loom_dense_init(&Yd, sh.filters * oh, ow, ow, LOOM_ROW_MAJOR, LOOM_F32,
                                LOOM_MEMORY_HOST, y.data()));
            loom_conv_plan *p;
            LM(loom_conv_plan_create(ctx, &p, &sh, W, (loom_im2col)strat, LOOM_BACKEND_CUDA));
            conv_ms[strat] = time_ms(conv_reps, [&] { LM(loom_conv_execute(p, 1.0, &Xd, 0.0, &Yd)); });
            LM(loom_conv_plan_destroy(&p));
            if (have_ref && memcmp(y.data(), y_ref.data(), y.size() * 4))
                bits = "DIFFER";
        }
        norm[0][idx] = im_csr / im_dense;
        norm[1][idx] = im_bm / im_dense;
        for (int s = 0; s < 3; s++)
            conv_v[s][idx] = conv_ms[s];
        printf("%7.1f%% | %7.2f %8.2f %8.2f | %7.2f %8.2f %8.2f | %7s %8.2f %8.2f | %8.3f %8.3f "
               "%8.3f | %7.3f  bits %s\n",
               100 * sparsity[idx], im_dense, im_csr, im_bm, to_dense, to_csr, im_bm, "-", x_csr,
               x_bm, conv_ms[0], conv_ms[1], conv_ms[2], gemm, bits);
        printf("%8s | %7s %7.2fx %7.2fx |\n", "norm.", "1", norm[0][idx], norm[1][idx]);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%g,%g,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%s\n",
                    sparsity[idx], w_sparsity, im_dense, im_csr, im_bm, norm[0][idx], norm[1][idx],
                    to_dense, to_csr, im_bm, x_csr, x_bm, conv_ms[0], conv_ms[1], conv_ms[2], gemm,
                    bits);
        if (csv)
            fflush(csv);
    }
    const char *names[2] = {"CSR", "bitmap"};
    for (int m = 0; m < 2; m++) {
        int from = -1;
        for (int i = ns - 1; i >= 0 && norm[m][i] < 1; i--)
            from = i;
        if (from >= 0)
            printf("%s im2col faster than dense im2col from %.1f%% sparsity up\n", names[m],
                   100 * sparsity[from]);
        else
            printf("%s im2col is not faster than dense im2col at the highest sparsity\n", names[m]);
    }
    for (int m = 1; m < 3; m++) {
        int from = -1;
        for (int i = ns - 1; i >= 0 && conv_v[m][i] < conv_v[0][i]; i--)
            from = i;
        if (from >= 0)
            printf("whole conv with %s im2col faster than with dense im2col from %.1f%% sparsity up\n",
                   names[m - 1], 100 * sparsity[from]);
        else
            printf("whole conv with %s im2col is not faster than with dense im2col at the highest "
                   "sparsity\n",
                   names[m - 1]);
    }
    loom__dual_cuda_bitmap_free(&dW);
    loom__dual_cuda_bitmap_free(&xbm);
    loom__dual_cuda_bitmap_free(&cbm);
    loom__dual_cuda_csr_free(&xcsr);
    loom__dual_cuda_csr_free(&ccsr);
    cudaFree(dX);
    cudaFree(dcols);
    cudaFree(dY);
    loom_bitmap_destroy(&W);
}

static const char usage[] =
    "usage: dual_gpu_bench [--size N] [--reps R] [--conv-reps R] [--w-sparsity S] [--sparsity S]\n"
    "                      [--csv FILE] [--conv-csv FILE] [--no-spgemm] [--no-conv]   (see dual_gpu_bench(1))\n";

int main(int argc, char **argv)
{
    int n = 4096, reps = 7, conv_reps = 20, im_reps = 200;
    double w_sparsity = 0.75, only = -1;
    bool do_spgemm = true, do_conv = true;
    const char *csv_path = nullptr, *conv_csv_path = nullptr;
    const char *me = "dual_gpu_bench";
    static const char *const with_value[] = {"--size", "--reps", "--conv-reps", "--w-sparsity", "--sparsity",
                                             "--csv", "--conv-csv", NULL};
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        bool bad = false; /* an unknown option, a missing value, or a value that is not one */
        if (lacks_value(me, a.c_str(), with_value, i + 1 >= argc)) bad = true;
        else if (a == "--size") /* n * n elements are indexed by int */
            bad = (n = count_arg(me, "--size", v, 1, 46340)) < 0, i++;
        else if (a == "--reps") bad = (reps = count_arg(me, "--reps", v, 1, INT32_MAX)) < 0, i++;
        else if (a == "--conv-reps") bad = (conv_reps = count_arg(me, "--conv-reps", v, 1, INT32_MAX)) < 0, i++;
        else if (a == "--w-sparsity") {
            w_sparsity = number_arg(me, "--w-sparsity", v, 0, HUGE_VAL);
            if (w_sparsity >= 1) {
                fprintf(stderr, "%s: --w-sparsity takes a fraction below 1, not '%s'\n", me, v);
                w_sparsity = -1;
            }
            bad = w_sparsity < 0, i++;
        } else if (a == "--sparsity") {
            if (!parse_level(v, &only)) {
                fprintf(stderr, "%s: --sparsity %s: not one of the sweep's levels (0, 0.5, 0.75, "
                                "0.8, 0.9, 0.95, 0.99, 0.999)\n",
                        me, v);
                bad = true;
            }
            i++;
        } else if (a == "--csv") csv_path = v, i++;
        else if (a == "--conv-csv") conv_csv_path = v, i++;
        else if (a == "--no-spgemm") do_spgemm = false;
        else if (a == "--no-conv") do_conv = false;
        else if (a == "--help" || a == "-h") {
            fputs(usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", me, a.c_str());
            bad = true;
        }
        if (bad) {
            fputs(usage, stderr);
            return 2;
        }
    }
    loom_context *ctx;
    LM(loom_context_create(&ctx));
    if (loom_backend_available(LOOM_BACKEND_CUDA) != LOOM_SUCCESS) {
        printf("SKIP: no CUDA device: %s\n", loom_last_error());
        return 77;
    }
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    const double copy_gbs = copy_bandwidth_gbs();
    printf("device: %s, %d SMs, %.0f MB L2; device-to-device copy %.0f GB/s (read + write)\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, copy_gbs);
    /* Both CSVs opened before any part runs, so a bad path costs no run. */
    FILE *csv = do_spgemm && csv_path ? fopen(csv_path, "w") : nullptr;
    FILE *conv_csv = do_conv && conv_csv_path ? fopen(conv_csv_path, "w") : nullptr;
    const char *unopened = do_spgemm && csv_path && !csv           ? csv_path
                           : do_conv && conv_csv_path && !conv_csv ? conv_csv_path
                                                                   : nullptr;
    if (unopened) {
        fprintf(stderr, "dual_gpu_bench: cannot write %s: %s\n", unopened, strerror(errno));
        if (csv)
            fclose(csv);
        if (conv_csv)
            fclose(conv_csv);
        loom_context_destroy(&ctx);
        return 1;
    }
    if (do_spgemm)
        spgemm_sweep(ctx, n, reps, copy_gbs, only, csv);
    if (do_conv)
        table_iii(ctx, im_reps, conv_reps, w_sparsity, conv_csv);
    if (csv)
        fclose(csv);
    if (conv_csv)
        fclose(conv_csv);
    loom_context_destroy(&ctx);
    return 0;
}
