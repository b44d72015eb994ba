/* Prototype: the RB + SR wide walk (spmm_rb.cuh wide_row) at N = 16..128
 * with other (pairs ahead U, blocks per SM) than the library's, against
 * the library's rb_sr_wide_kernel and cuSPARSE, one launch between two
 * events (as gpu_bench times), medians of 31.  Every variant's output is
 * memcmp-checked against a CPU oracle of the SR order. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <functional>
#include <string>
#include <cusparse.h>
#include "spmm_rb.cuh"
using namespace loomcu;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <typename T, int G, int V, int U, int MINB>
__global__ void __launch_bounds__(256, MINB) wide_var(operands<T> p)
{
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (row >= p.m)
        return;
    const int lane = threadIdx.x & (G - 1);
    const int64_t tile_w = (int64_t)G * V;
    for (int64_t tile = blockIdx.y * tile_w; tile < p.n; tile += (int64_t)gridDim.y * tile_w)
        wide_row<T, G, V, U>(p, row, tile + (int64_t)lane * V);
}

static double median_us(const std::function<void()> &f)
{
    static cudaEvent_t a, b;
    static bool made = false;
    if (!made) { cudaEventCreate(&a); cudaEventCreate(&b); made = true; }
    for (int i = 0; i < 3; i++) f();
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < 31; i++) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    cusparseHandle_t h; cusparseCreate(&h);
    std::vector<int> ns = {16, 32, 64, 128};
    if (getenv("NS")) { ns.clear(); for (char *s = strtok(getenv("NS"), ","); s; s = strtok(NULL, ",")) ns.push_back(atoi(s)); }
    printf("matrix,n,variant,us,ratio_lib,ratio_cs\n");
    for (int ai = 1; ai < argc; ai++) {
        FILE *f = fopen(argv[ai], "rb");
        int64_t hd[3]; if (fread(hd, 8, 3, f) != 3) return 1;
        int64_t m = hd[0], k = hd[1], nnz = hd[2];
        std::vector<int64_t> ro(m + 1); std::vector<int32_t> ci(nnz); std::vector<float> va(nnz);
        if (fread(ro.data(), 8, m + 1, f) != (size_t)m + 1 || fread(ci.data(), 4, nnz, f) != (size_t)nnz) return 1;
        if (fread(va.data(), 4, nnz, f) != (size_t)nnz) return 1;
        fclose(f);
        srand(7);
        for (auto &v : va) v = (float)rand() / RAND_MAX * 2 - 1;
        int64_t *dro; int32_t *dci, *dro32; float *dva;
        CK(cudaMalloc(&dro, 8 * (m + 1))); CK(cudaMalloc(&dci, 4 * nnz)); CK(cudaMalloc(&dva, 4 * nnz)); CK(cudaMalloc(&dro32, 4 * (m + 1)));
        std::vector<int32_t> ro32(ro.begin(), ro.end());
        cudaMemcpy(dro, ro.data(), 8 * (m + 1), cudaMemcpyHostToDevice);
        cudaMemcpy(dro32, ro32.data(), 4 * (m + 1), cudaMemcpyHostToDevice);
        cudaMemcpy(dci, ci.data(), 4 * nnz, cudaMemcpyHostToDevice);
        cudaMemcpy(dva, va.data(), 4 * nnz, cudaMemcpyHostToDevice);
        cusparseSpMatDescr_t A;
        cusparseCreateCsr(&A, m, k, nnz, dro32, dci, dva, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
        const char *name = strrchr(argv[ai], '/'); name = name ? name + 1 : argv[ai];
        for (int n : ns) {
            std::vector<float> x(k * n);
            for (auto &v : x) v = (float)rand() / RAND_MAX * 2 - 1;
            float *dx, *dy, *dyr;
            CK(cudaMalloc(&dx, 4 * k * n)); CK(cudaMalloc(&dy, 4 * m * n)); CK(cudaMalloc(&dyr, 4 * m * n));
            cudaMemcpy(dx, x.data(), 4 * k * n, cudaMemcpyHostToDevice);
            operands<float> p{};
            p.m = m; p.n = n; p.nnz = nnz; p.ro = dro; p.ci = dci; p.val = dva; p.x = dx;
            p.xrs = n; p.xcs = 1; p.y = dy; p.yrs = n; p.ycs = 1; p.alpha = 1.0f; p.beta = 0.0f;
            p.yvw = 4; p.xrsb = (uint32_t)(4 * n);
            std::vector<float> ref(m * n);
            for (int64_t i = 0; i < m; i++)
                for (int c = 0; c < n; c++) {
                    float acc = 0.0f;
                    for (int64_t j = ro[i]; j < ro[i + 1]; j++) acc = fmaf(va[j], x[(int64_t)ci[j] * n + c], acc);
                    ref[i * n + c] = acc;
                }
            std::vector<float> got(m * n);
            auto check = [&](const std::string &what) {
                cudaMemcpy(got.data(), dy, 4 * m * n, cudaMemcpyDeviceToHost);
                if (memcmp(got.data(), ref.data(), 4 * m * n) != 0) {
                    int64_t bad = 0; for (int64_t i = 0; i < m * n; i++) bad += memcmp(&got[i], &ref[i], 4) != 0;
                    printf("MISMATCH,%s,%d,%s,%lld\n", name, n, what.c_str(), (long long)bad);
                    return false;
                }
                return true;
            };
            /* cuSPARSE first: the best of default, ALG2, ALG3 */
            double best_cs = 1e30; std::string best_alg;
            {
                cusparseDnMatDescr_t X, Y;
                cusparseCreateDnMat(&X, k, n, n, dx, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                cusparseCreateDnMat(&Y, m, n, n, dyr, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                float one = 1, zero = 0;
                struct { const char *nm; cusparseSpMMAlg_t a; } algs[] = {{"cs-def", CUSPARSE_SPMM_ALG_DEFAULT}, {"cs-alg2", CUSPARSE_SPMM_CSR_ALG2}, {"cs-alg3", CUSPARSE_SPMM_CSR_ALG3}};
                for (auto &al : algs) {
                    size_t sz = 0; void *wb = nullptr;
                    if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, &sz) != CUSPARSE_STATUS_SUCCESS) continue;
                    if (sz) cudaMalloc(&wb, sz);
                    cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, wb);
                    auto cf = [&] { cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, wb); };
                    double t = median_us(cf);
                    printf("%s,%d,%s,%.2f,,\n", name, n, al.nm, t);
                    if (t < best_cs) { best_cs = t; best_alg = al.nm; }
                    if (wb) cudaFree(wb);
                }
                cusparseDestroyDnMat(X); cusparseDestroyDnMat(Y);
            }
            double lib_best = 1e30;
            auto run = [&](const std::string &nm, bool lib, int G, int V, const std::function<void(dim3)> &launch) {
                dim3 g((unsigned)((m * G + 255) / 256), (unsigned)((n + G * V - 1) / (G * V)));
                cudaMemset(dy, 0xff, 4 * m * n);
                launch(g);
                CK(cudaDeviceSynchronize());
                if (!check(nm)) return;
                double t = median_us([&] { launch(g); });
                if (lib && t < lib_best) lib_best = t;
                printf("%s,%d,%s,%.2f,%.3f,%.3f\n", name, n, nm.c_str(), t, lib ? 1.0 : lib_best / t, best_cs / t);
            };
#define LIB(G, V) if (G <= n && G * V <= 4 * n) run("lib-g" #G "v" #V, true, G, V, [&](dim3 g) { rb_sr_wide_kernel<float, G, V><<<g, 256>>>(p); });
#define VAR(G, V, U, B) if (G <= n && G * V <= 4 * n) run("g" #G "v" #V "u" #U "b" #B, false, G, V, [&](dim3 g) { wide_var<float, G, V, U, B><<<g, 256>>>(p); });
            if (n == 16) {
                LIB(16, 1) LIB(8, 2) LIB(4, 4)
                VAR(16, 1, 4, 4) VAR(16, 1, 8, 4) VAR(16, 1, 8, 6) VAR(16, 1, 16, 4) VAR(16, 1, 4, 8) VAR(16, 1, 8, 8)
                VAR(8, 2, 4, 4) VAR(8, 2, 8, 3) VAR(8, 2, 4, 6)
            } else if (n == 32) {
                LIB(32, 1) LIB(16, 2) LIB(8, 4)
                VAR(32, 1, 8, 4) VAR(32, 1, 16, 3) VAR(32, 1, 16, 4) VAR(32, 1, 8, 6) VAR(32, 1, 4, 8) VAR(32, 1, 8, 8)
                VAR(16, 2, 4, 4) VAR(16, 2, 8, 4) VAR(16, 2, 4, 6)
            } else if (n == 64) {
                LIB(32, 1) LIB(32, 2) LIB(16, 4)
                VAR(32, 1, 8, 4) VAR(32, 1, 16, 4) VAR(32, 1, 8, 6) VAR(32, 1, 4, 8) VAR(32, 1, 8, 8)
                VAR(32, 2, 4, 4) VAR(32, 2, 8, 4) VAR(32, 2, 4, 6) VAR(32, 2, 8, 3)
            } else {
                LIB(32, 4) LIB(32, 2) LIB(32, 1)
                VAR(32, 4, 2, 3) VAR(32, 4, 4, 3) VAR(32, 4, 2, 4) VAR(32, 4, 4, 4)
                VAR(32, 2, 4, 4) VAR(32, 2, 8, 4) VAR(32, 2, 4, 6)
                VAR(32, 1, 8, 6) VAR(32, 1, 4, 8)
            }
            fflush(stdout);
            cudaFree(dx); cudaFree(dy); cudaFree(dyr);
        }
        cusparseDestroySpMat(A);
        cudaFree(dro); cudaFree(dci); cudaFree(dva); cudaFree(dro32);
    }
    return 0;
}
