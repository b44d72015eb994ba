/* Prototype: the row-binned RB + SR walk (rb_sr_binned_kernel, as the
 * library launches it: launch_binned) with other long-row thresholds than
 * the plan's, beside rb_sr_wide_kernel and cuSPARSE; one launch between
 * two events, median of 31.  Every output is memcmp-checked against a CPU
 * oracle of the SR order. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <cusparse.h>
#include "spmm_launch.cuh"
using namespace loomcu;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

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

__global__ void empty_kernel() {}

int main(int argc, char **argv)
{
    cusparseHandle_t h; cusparseCreate(&h);
    std::vector<int> ns = {64, 128, 256, 512};
    if (getenv("NS")) { ns.clear(); for (char *s = strtok(getenv("NS"), ","); s; s = strtok(NULL, ",")) ns.push_back(atoi(s)); }
    printf("matrix,n,variant,us,n_long,note\n");
    printf("none,0,empty-kernel,%.2f,0,\n", median_us([] { empty_kernel<<<1, 32>>>(); }));
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
        int64_t maxlen = 0;
        for (int64_t i = 0; i < m; i++) maxlen = std::max(maxlen, ro[i + 1] - ro[i]);
        const double mean = (double)nnz / m;
        int64_t *dro; int32_t *dci, *dro32; float *dva; int64_t *drows;
        CK(cudaMalloc(&dro, 8 * (m + 1))); CK(cudaMalloc(&dci, 4 * nnz)); CK(cudaMalloc(&dva, 4 * nnz)); CK(cudaMalloc(&dro32, 4 * (m + 1)));
        CK(cudaMalloc(&drows, 8 * m));
        std::vector<int32_t> ro32(ro.begin(), ro.end());
        cudaMemcpy(dro, ro.data(), 8 * (m + 1), cudaMemcpyHostToDevice);
        cudaMemcpy(dro32, ro32.data(), 4 * (m + 1), cudaMemcpyHostToDevice);
        cudaMemcpy(dci, ci.data(), 4 * nnz, cudaMemcpyHostToDevice);
        cudaMemcpy(dva, va.data(), 4 * nnz, cudaMemcpyHostToDevice);
        cusparseSpMatDescr_t A;
        cusparseCreateCsr(&A, m, k, nnz, dro32, dci, dva, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
        const char *name = strrchr(argv[ai], '/'); name = name ? name + 1 : argv[ai];
        printf("%s,0,shape,0,0,m=%lld k=%lld nnz=%lld mean=%.1f max=%lld\n", name, (long long)m, (long long)k, (long long)nnz, mean, (long long)maxlen);
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
            auto run = [&](const std::string &nm, int64_t nl, const std::function<void()> &launch) {
                cudaMemset(dy, 0xff, 4 * m * n);
                launch();
                CK(cudaDeviceSynchronize());
                if (!check(nm)) return;
                printf("%s,%d,%s,%.2f,%lld,\n", name, n, nm.c_str(), median_us(launch), (long long)nl);
            };
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
                    printf("%s,%d,%s,%.2f,,\n", name, n, al.nm, median_us(cf));
                    if (wb) cudaFree(wb);
                }
                cusparseDestroyDnMat(X); cusparseDestroyDnMat(Y);
            }
            const int V = 4, G = std::min(32, std::max(1, (n + V - 1) / V));
            const int64_t T0 = n <= 64 ? 32 : 128;
            struct th { const char *nm; double t; } ths[] = {
                {"plan", (double)T0}, {"2mean", std::max((double)T0, 2 * mean)}, {"4mean", std::max((double)T0, 4 * mean)},
                {"none", 1e18}};
            for (auto &t : ths) {
                /* the plan's list: long rows longest first (ties in row order), then short rows */
                std::vector<int64_t> lng, sht;
                for (int64_t i = 0; i < m; i++) ((double)(ro[i + 1] - ro[i]) > t.t ? lng : sht).push_back(i);
                std::stable_sort(lng.begin(), lng.end(), [&](int64_t a, int64_t b) { return ro[a + 1] - ro[a] > ro[b + 1] - ro[b]; });
                std::vector<int64_t> order(lng); order.insert(order.end(), sht.begin(), sht.end());
                cudaMemcpy(drows, order.data(), 8 * m, cudaMemcpyHostToDevice);
                loomcu_row_bins b;
                b.n_long = (int64_t)lng.size(); b.n_short = (int64_t)sht.size(); b.rows = lng.empty() ? NULL : drows;
                run(std::string("binned-") + t.nm, b.n_long, [&] { launch_binned<float>(p, &b, G, V, 0); });
            }
            {
                const int GW = G;
                dim3 wg((unsigned)((m * GW + 255) / 256), (unsigned)((n + GW * V - 1) / (GW * V)));
                run("wide", 0, [&] {
                    rb_sr_wide_family<float> fam = {p, wg, 0};
                    with_wide_gv<float>(GW, V, fam);
                });
            }
            fflush(stdout);
            cudaFree(dx); cudaFree(dy); cudaFree(dyr);
        }
        cusparseDestroySpMat(A);
        cudaFree(dro); cudaFree(dci); cudaFree(dva); cudaFree(dro32); cudaFree(drows);
    }
    return 0;
}
