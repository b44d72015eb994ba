/* proto.cu - dense-tile SpMM variants on synthetic layers (uniform random
 * columns at a given density), timed beside cuSPARSE ALG3, outputs
 * compared bit for bit between variants.
 *   ./proto            all cases
 *   ./proto ncu        one launch of each variant at 1000 x 2048, 20%, N = 512 (for ncu) */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cusparse.h>
#include "spmm_common.cuh"
#include "dt_v1.cuh"
#include "dt_v2.cuh"
#include "dt_v3.cuh"

using namespace proto;
#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t nxt() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static float unif() { return (float)((nxt() >> 40) * (1.0 / (1ull << 24)) * 2.0 - 1.0); }

struct layer { int64_t m, k, nnz; std::vector<int64_t> ro; std::vector<int32_t> ci; std::vector<float> v; };
static layer make(int64_t m, int64_t k, double d)
{
    layer L; L.m = m; L.k = k; L.ro.push_back(0);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t c = 0; c < k; c++)
            if ((nxt() >> 11) * (1.0 / (1ull << 53)) < d) { L.ci.push_back((int32_t)c); L.v.push_back(unif()); }
        L.ro.push_back((int64_t)L.ci.size());
    }
    L.nnz = (int64_t)L.ci.size();
    return L;
}

template <typename F> static float time_us(F f)
{
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 5; i++) f();
    std::vector<float> t;
    for (int r = 0; r < 25; r++) {
        cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    const bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
    struct cs { int64_t m, k; double d; } shapes[] = {{1000, 2048, 0.2}, {1024, 512, 0.5}, {2048, 512, 0.1}};
    const int ns[] = {128, 256, 512};
    cusparseHandle_t h; cusparseCreate(&h);
    for (auto &sh : shapes) {
        layer L = make(sh.m, sh.k, sh.d);
        const int BK = 32;
        const int64_t tiles = (L.k + BK - 1) / BK;
        std::vector<int32_t> start((tiles + 1) * L.m);
        for (int64_t t = 0; t <= tiles; t++)
            for (int64_t r = 0; r < L.m; r++) {
                int64_t j = L.ro[r];
                while (j < L.ro[r + 1] && L.ci[j] < t * BK) j++;
                start[t * L.m + r] = (int32_t)(j - L.ro[r]);
            }
        int64_t *dro; int32_t *dci, *dst; float *dv;
        CU(cudaMalloc(&dro, (L.m + 1) * 8)); CU(cudaMalloc(&dci, L.nnz * 4)); CU(cudaMalloc(&dv, L.nnz * 4));
        CU(cudaMalloc(&dst, start.size() * 4));
        cudaMemcpy(dro, L.ro.data(), (L.m + 1) * 8, cudaMemcpyHostToDevice);
        cudaMemcpy(dci, L.ci.data(), L.nnz * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dv, L.v.data(), L.nnz * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dst, start.data(), start.size() * 4, cudaMemcpyHostToDevice);
        std::vector<int32_t> ro32(L.ro.begin(), L.ro.end());
        int32_t *dro32; CU(cudaMalloc(&dro32, (L.m + 1) * 4));
        cudaMemcpy(dro32, ro32.data(), (L.m + 1) * 4, cudaMemcpyHostToDevice);
        for (int n : ns) {
            if (ncu && n != 512) continue;
            std::vector<float> hx(L.k * n);
            for (auto &e : hx) e = unif();
            float *dx, *dy; CU(cudaMalloc(&dx, hx.size() * 4)); CU(cudaMalloc(&dy, L.m * n * 4));
            cudaMemcpy(dx, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice);
            operands<float> p = {};
            p.m = L.m; p.n = n; p.nnz = L.nnz; p.ro = dro; p.ci = dci; p.val = dv; p.x = dx; p.xrs = n; p.xcs = 1;
            p.y = dy; p.yrs = n; p.ycs = 1; p.alpha = 1.f; p.beta = 0.f; p.yvw = 4; p.xrsb = n * 4;
            dense_tiles_view v; v.start = dst; v.tiles = tiles; v.k = L.k;
            std::vector<float> ref(L.m * n), out(L.m * n);
            printf("%lldx%lld d=%.2f nnz=%lld N=%d:", (long long)L.m, (long long)L.k, sh.d, (long long)L.nnz, n);
            auto run = [&](const char *name, auto launch, bool check) {
                if (ncu) { launch(); cudaDeviceSynchronize(); printf(" %s", name); return; }
                cudaMemset(dy, 0xff, L.m * n * 4);
                launch(); CU(cudaDeviceSynchronize());
                cudaMemcpy(out.data(), dy, out.size() * 4, cudaMemcpyDeviceToHost);
                const bool same = !check || !memcmp(out.data(), ref.data(), out.size() * 4);
                printf(" %s %.1f%s", name, time_us(launch), same ? "" : "(DIFFERS)");
            };
            dim3 g32((unsigned)((L.m + 31) / 32), (unsigned)((n + 63) / 64)), g64((unsigned)((L.m + 63) / 64), g32.y);
            {   /* the reference bits: v1 at 32 rows */
                v1_kernel<float, 32, true, 0><<<g32, 128>>>(p, v); CU(cudaDeviceSynchronize());
                cudaMemcpy(ref.data(), dy, ref.size() * 4, cudaMemcpyDeviceToHost);
            }
            run("v1/32", [&] { v1_kernel<float, 32, true, 0><<<g32, 128>>>(p, v); }, true);
            run("v1/64", [&] { v1_kernel<float, 64, true, 0><<<g64, 256>>>(p, v); }, true);
            run("v2/32", [&] { v2_kernel<float, 32><<<g32, 128>>>(p, v); }, true);
            run("v2/64", [&] { v2_kernel<float, 64><<<g64, 256>>>(p, v); }, true);
            dim3 g16((unsigned)((L.m + 15) / 16), g32.y);
            run("v3/32x2", [&] { v3_kernel<float, 32, 2><<<g32, 256>>>(p, v); }, true);
            run("v3/64x2", [&] { v3_kernel<float, 64, 2><<<g64, 512>>>(p, v); }, true);
            run("v3/16x2", [&] { v3_kernel<float, 16, 2><<<g16, 128>>>(p, v); }, true);
            run("v3/32x1", [&] { v3_kernel<float, 32, 1><<<g32, 512>>>(p, v); }, true);
            run("v3/16x1", [&] { v3_kernel<float, 16, 1><<<g16, 256>>>(p, v); }, true);
            if (!ncu) {
                cusparseSpMatDescr_t A; cusparseDnMatDescr_t X, Y; size_t sz = 0; void *buf = nullptr;
                float al = 1.f, be = 0.f;
                cusparseCreateCsr(&A, L.m, L.k, L.nnz, dro32, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
                cusparseCreateDnMat(&X, L.k, n, n, dx, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                cusparseCreateDnMat(&Y, L.m, n, n, dy, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                for (auto alg : {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
                    if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, A, X, &be, Y, CUDA_R_32F, alg, &sz) != CUSPARSE_STATUS_SUCCESS) { printf(" alg%d n/a", (int)alg); continue; }
                    if (buf) cudaFree(buf);
                    cudaMalloc(&buf, sz + 1);
                    if (cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, A, X, &be, Y, CUDA_R_32F, alg, buf) != CUSPARSE_STATUS_SUCCESS) { printf(" alg%d n/a", (int)alg); continue; }
                    printf(" cusparse-%s %.1f", alg == CUSPARSE_SPMM_CSR_ALG2 ? "alg2" : "alg3", time_us([&] {
                        cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &al, A, X, &be, Y, CUDA_R_32F, alg, buf); }));
                }
                if (buf) cudaFree(buf);
                cusparseDestroySpMat(A); cusparseDestroyDnMat(X); cusparseDestroyDnMat(Y);
            }
            printf("\n");
            fflush(stdout);
            cudaFree(dx); cudaFree(dy);
        }
        cudaFree(dro); cudaFree(dro32); cudaFree(dci); cudaFree(dv); cudaFree(dst);
        if (ncu)
            break; /* the first layer only */
    }
    return 0;
}
