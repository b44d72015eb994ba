/*
 * gather_bound.cu - how fast can any kernel do an R-MAT SpMV's per-non-zero
 * memory work on this GPU, with no row structure at all?
 *
 * For gpu_bench's R-MAT matrices (the same generator and seed: gpu_bench.cu
 * is included with its main renamed), f32, N = 1, three kernels over the
 * non-zeros in storage order, each thread a grid-stride walk with four
 * pairs in flight, partial sums written once a thread:
 *   pairs     reads col and val (streamed): A's pairs alone;
 *   gather    also reads x[col] through the read-only path under an L2
 *             evict-last policy, as loom's narrow walk does;
 *   gather-ldg the same with plain __ldg.
 * Each time is set against gpu_bench's bytes floor of the whole SpMV
 * (row offsets, pairs, x and y once, at the measured copy rate): a kernel
 * that gathers x[col] from memory once per non-zero cannot beat "gather".
 * A throwaway measurement, built by hand (call4.sh), not part of loom.
 */
#define main gpu_bench_main
#include "../../gpu_bench.cu"
#undef main

static const int U = 4;

__global__ void pairs_kernel(const int32_t *__restrict__ ci, const float *__restrict__ val, int64_t nnz,
                             float *out)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    float s = 0.f;
    for (int64_t j0 = t; j0 < nnz; j0 += stride * U) {
        int32_t c[U];
        float a[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t j = j0 + u * stride;
            c[u] = j < nnz ? __ldcs(ci + j) : 0;
            a[u] = j < nnz ? __ldcs(val + j) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            s = fmaf(a[u], (float)c[u], s);
    }
    out[t] = s;
}

template <bool POLICY>
__global__ void gather_kernel(const int32_t *__restrict__ ci, const float *__restrict__ val,
                              const float *__restrict__ x, int64_t nnz, float *out)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    uint64_t pol = 0;
    if (POLICY)
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    float s = 0.f;
    for (int64_t j0 = t; j0 < nnz; j0 += stride * U) {
        int32_t c[U];
        float a[U], xv[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t j = j0 + u * stride;
            c[u] = j < nnz ? __ldcs(ci + j) : 0;
            a[u] = j < nnz ? __ldcs(val + j) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (POLICY)
                asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(xv[u]) : "l"(x + c[u]), "l"(pol));
            else
                xv[u] = __ldg(x + c[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            s = fmaf(a[u], xv[u], s);
    }
    out[t] = s;
}

int main(int argc, char **argv)
{
    std::vector<double> targets = {1e7, 1e8};
    if (argc > 1)
        targets = {atof(argv[1])};
    loom_context *ctx = nullptr;
    LM(loom_context_create(&ctx));
    const double bw = measure_bandwidth();
    int sms = 0;
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    printf("# copy rate %.1f GB/s, %d SMs\n", bw * 1e-9, sms);
    printf("%-10s %10s %10s %10s %10s %10s %10s\n", "matrix", "nnz", "floor_us", "pairs_us", "gather_us",
           "ldg_us", "floor/gather");
    for (double target : targets) {
        loom_csr *A = rmat_matrix(ctx, target, LOOM_F32, 2024);
        int64_t m, k, nnz;
        LM(loom_csr_info(A, &m, &k, &nnz, nullptr, nullptr));
        const int64_t *ro;
        const int32_t *ci;
        const void *v;
        LM(loom_csr_arrays(A, &ro, &ci, &v));
        int32_t *d_ci;
        float *d_val, *d_x, *d_out;
        const unsigned threads = 256, grid = (unsigned)sms * 8;
        CU(cudaMalloc(&d_ci, nnz * 4));
        CU(cudaMalloc(&d_val, nnz * 4));
        CU(cudaMalloc(&d_x, k * 4));
        CU(cudaMalloc(&d_out, (size_t)grid * threads * 4));
        CU(cudaMemcpy(d_ci, ci, nnz * 4, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_val, v, nnz * 4, cudaMemcpyHostToDevice));
        fill_uniform<float><<<blocks(k), 256>>>(d_x, k, 99);
        CU(cudaDeviceSynchronize());
        const double bytes = (m + 1) * 8.0 + nnz * 8.0 + k * 4.0 + m * 4.0; /* gpu_bench's, N = 1 */
        const double floor_us = bytes / bw * 1e6;
        const double tp = time_median([&] { pairs_kernel<<<grid, threads>>>(d_ci, d_val, nnz, d_out); }, 300);
        const double tg =
            time_median([&] { gather_kernel<true><<<grid, threads>>>(d_ci, d_val, d_x, nnz, d_out); }, 300);
        const double tl =
            time_median([&] { gather_kernel<false><<<grid, threads>>>(d_ci, d_val, d_x, nnz, d_out); }, 300);
        CU(cudaGetLastError());
        char name[32];
        snprintf(name, sizeof name, "rmat-%.0e", target);
        printf("%-10s %10lld %10.1f %10.1f %10.1f %10.1f %9.1f%%\n", name, (long long)nnz, floor_us, tp, tg, tl,
               100.0 * floor_us / (tg < tl ? tg : tl));
        cudaFree(d_ci), cudaFree(d_val), cudaFree(d_x), cudaFree(d_out);
        loom_csr_destroy(&A);
    }
    loom_context_destroy(&ctx);
    return 0;
}
