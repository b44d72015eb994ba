// cublas_spread.cu - how much cuBLAS's fp16 GEMM time moves for one shape
// (session 47): tc_bench's cuBLAS call (Y^T = X^T A^T, fp16 in and out,
// fp32 compute, CUBLAS_GEMM_DEFAULT) on fresh operands per trial, timed as
// tc_bench's time_ms (two warm-ups; batches of `reps` back-to-back calls,
// each batch's mean).  Prints every batch mean of every trial.
// Build: nvcc -arch=sm_90 -O2 cublas_spread.cu -lcublas -o cublas_spread
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static float urand()
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (float)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0f;
}

int main(int argc, char **argv)
{
    const int trials = argc > 1 ? atoi(argv[1]) : 8, batches = argc > 2 ? atoi(argv[2]) : 9,
              reps = argc > 3 ? atoi(argv[3]) : 10;
    struct shape { int m, k, n; double density; } shapes[] = {
        {2048, 512, 256, 0.05}, {512, 2048, 256, 0.05}, {512, 2048, 256, 0.02}, {33288, 512, 256, 0.05},
        {2048, 512, 256, 1.0}};
    cublasHandle_t bl;
    if (cublasCreate(&bl) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    printf("shape density trial: median of batch means (us) | batch means\n");
    for (const shape &s : shapes) {
        std::vector<double> medians;
        for (int t = 0; t < trials; t++) {
            std::vector<__half> A((size_t)s.m * s.k), X((size_t)s.k * s.n);
            for (auto &v : A)
                v = __float2half(urand() < s.density ? urand() * 2 - 1 : 0.0f);
            for (auto &v : X)
                v = __float2half(urand() * 2 - 1);
            __half *dA, *dX, *dY;
            cudaMalloc(&dA, A.size() * 2);
            cudaMalloc(&dX, X.size() * 2);
            cudaMalloc(&dY, (size_t)s.m * s.n * 2);
            cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice);
            cudaMemcpy(dX, X.data(), X.size() * 2, cudaMemcpyHostToDevice);
            float one = 1, zero = 0;
            auto f = [&] {
                cublasGemmEx(bl, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, dX, CUDA_R_16F, s.n, dA, CUDA_R_16F,
                             s.k, &zero, dY, CUDA_R_16F, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            };
            f();
            f();
            std::vector<double> bm;
            for (int k = 0; k < batches; k++) {
                cudaEventRecord(a);
                for (int r = 0; r < reps; r++)
                    f();
                cudaEventRecord(b);
                cudaEventSynchronize(b);
                float ms = 0;
                cudaEventElapsedTime(&ms, a, b);
                bm.push_back(ms * 1e3 / reps);
            }
            std::vector<double> sorted = bm;
            std::sort(sorted.begin(), sorted.end());
            medians.push_back(sorted[sorted.size() / 2]);
            printf("%dx%dx%d %.2f %d: %7.2f |", s.m, s.k, s.n, s.density, t, sorted[sorted.size() / 2]);
            for (double v : bm)
                printf(" %.2f", v);
            printf("\n");
            cudaFree(dA);
            cudaFree(dX);
            cudaFree(dY);
        }
        std::sort(medians.begin(), medians.end());
        printf("%dx%dx%d %.2f: trial medians min %.2f median %.2f max %.2f us\n", s.m, s.k, s.n, s.density,
               medians.front(), medians[medians.size() / 2], medians.back());
    }
    printf("cuda error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
