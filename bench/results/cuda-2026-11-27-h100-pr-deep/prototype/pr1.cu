/* prototype harness: RB+PR at N = 1, 2, 4: the library's kernel vs the deep one vs cuSPARSE. */
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
#include "prdeep.cuh"
using namespace loomcu;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

/* as bench/gpu_bench.cu: one launch between two events, median */
static double median_us(const std::function<void()> &f)
{
    static cudaEvent_t a, b;
    static bool made = false;
    if (!made) { cudaEventCreate(&a); cudaEventCreate(&b); made = true; }
    for (int i = 0; i < 3; i++) f();
    cudaDeviceSynchronize();
    std::vector<double> t;
    for (int i = 0; i < 41; i++) {
        cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    cusparseHandle_t h; cusparseCreate(&h);
    for (int ai = 1; ai < argc; ai++) {
        FILE *f = fopen(argv[ai], "rb");
        int64_t hd[3];
        if (fread(hd, 8, 3, f) != 3) return 1;
        int64_t m = hd[0], k = hd[1], nnz = hd[2];
        std::vector<int64_t> ro(m + 1); std::vector<int32_t> ci(nnz); std::vector<float> va(nnz);
        if (fread(ro.data(), 8, m + 1, f) != (size_t)m + 1 || fread(ci.data(), 4, nnz, f) != (size_t)nnz || fread(va.data(), 4, nnz, f) != (size_t)nnz) return 1;
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
        for (int n : {1, 2, 4}) {
            std::vector<float> x(k * n);
            for (auto &v : x) v = (float)rand() / RAND_MAX * 2 - 1;
            float *dx, *dy, *dyr;
            CK(cudaMalloc(&dx, 4 * k * n)); CK(cudaMalloc(&dy, 4 * m * n)); CK(cudaMalloc(&dyr, 4 * m * n));
            cudaMemcpy(dx, x.data(), 4 * k * n, cudaMemcpyHostToDevice);
            operands<float> p{};
            p.m = m; p.n = n; p.nnz = nnz; p.ro = dro; p.ci = dci; p.val = dva; p.x = dx;
            p.xrs = n; p.xcs = 1; p.y = dy; p.yrs = n; p.ycs = 1; p.alpha = 1.0f; p.beta = 0.0f;
            p.yvw = n; p.xrsb = (uint32_t)(4 * n);
            std::vector<float> ref(m * n), got(m * n);
            std::string line; char buf[160];
            double base[2] = {0, 0}, best[2] = {1e30, 1e30};
            std::string bestn[2];
            bool have_ref = false;
#define RUN(KER, W, V, U, TAG) { \
                dim3 g((unsigned)((m * W + 255) / 256), 1); \
                cudaMemset(dy, 0xff, 4 * m * n); \
                auto kf = [&] { KER<<<g, 256>>>(p); }; \
                kf(); CK(cudaDeviceSynchronize()); \
                cudaMemcpy(got.data(), dy, 4 * m * n, cudaMemcpyDeviceToHost); \
                const int wi = W == 32 ? 0 : 1; \
                if (U == 0) { ref = got; have_ref = true; } \
                 \
                if (U == 0 && W == 32) { std::vector<float> r0 = got; (void)r0; } \
                double t = median_us(kf); \
                snprintf(buf, sizeof buf, " %s %.2f", TAG, t); line += buf; \
                if (U == 0) base[wi] = t; else if (t < best[wi]) { best[wi] = t; bestn[wi] = TAG; } \
                 }
            /* W = 32 */
            std::vector<float> ref32;
            if (n == 1) {
                RUN((rb_pr_kernel<float, 32, 1>), 32, 1, 0, "pr32") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 32, 1, 8>), 32, 1, 8, "d32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d32u8\n");
                RUN((rb_pr_deep_kernel<float, 32, 1, 8, 8>), 32, 1, 8, "h32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8\n");
                RUN((rb_pr_deep_kernel<float, 32, 1, 16, 8>), 32, 1, 16, "h32u16") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u16\n");
                RUN((rb_pr_deep_kernel<float, 32, 1, 8, 4>), 32, 1, 8, "h32u8l4") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8l4\n");
                RUN((rb_pr_kernel<float, 16, 1>), 16, 1, 0, "pr16") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 16, 1, 8, 8>), 16, 1, 8, "h16u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d16u8\n");
            } else if (n == 2) {
                RUN((rb_pr_kernel<float, 32, 2>), 32, 2, 0, "pr32") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 32, 2, 8, 8>), 32, 2, 8, "h32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8\n");
                RUN((rb_pr_deep_kernel<float, 32, 2, 8, 4>), 32, 2, 8, "h32u8l4") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8l4\n");
                RUN((rb_pr_deep_kernel<float, 32, 2, 8>), 32, 2, 8, "d32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d32u8\n");
                RUN((rb_pr_kernel<float, 16, 2>), 16, 2, 0, "pr16") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 16, 2, 8, 8>), 16, 2, 8, "h16u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d16u8\n");
            } else {
                RUN((rb_pr_kernel<float, 32, 4>), 32, 4, 0, "pr32") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 32, 4, 8, 8>), 32, 4, 8, "h32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8\n");
                RUN((rb_pr_deep_kernel<float, 32, 4, 8, 4>), 32, 4, 8, "h32u8l4") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH h32u8l4\n");
                RUN((rb_pr_deep_kernel<float, 32, 4, 8>), 32, 4, 8, "d32u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d32u8\n");
                RUN((rb_pr_kernel<float, 16, 4>), 16, 4, 0, "pr16") ref32 = ref;
                RUN((rb_pr_deep_kernel<float, 16, 4, 8, 8>), 16, 4, 8, "h16u8") if (memcmp(got.data(), ref32.data(), 4 * m * n)) printf("MISMATCH d16u8\n");
            }
            (void)have_ref;
            /* CPU oracle of the PR order for W = 16 (the last ref): lane sums then halving tree */
            {
                const int W = 16; bool bad = false;
                for (int64_t i = 0; i < m && !bad; i++)
                    for (int c = 0; c < n; c++) {
                        float part[32];
                        for (int l = 0; l < W; l++) { part[l] = 0.0f; for (int64_t j = ro[i] + l; j < ro[i + 1]; j += W) part[l] = fmaf(va[j], x[(int64_t)ci[j] * n + c], part[l]); }
                        for (int s = W / 2; s >= 1; s /= 2) for (int l = 0; l < s; l++) part[l] = part[l] + part[l + s];
                        if (memcmp(&part[0], &ref[i * n + c], 4)) { bad = true; printf("ORACLE MISMATCH row %lld\n", (long long)i); break; }
                    }
            }
            /* cuSPARSE */
            double cs = 1e30;
            float one = 1, zero = 0;
            if (n == 1) {
                cusparseDnVecDescr_t X, Y;
                cusparseCreateDnVec(&X, k, dx, CUDA_R_32F); cusparseCreateDnVec(&Y, m, dyr, CUDA_R_32F);
                for (auto al : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
                    size_t sz = 0; void *wb = nullptr;
                    if (cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, &sz) != CUSPARSE_STATUS_SUCCESS) continue;
                    if (sz) cudaMalloc(&wb, sz);
                    cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, wb);
                    double t = median_us([&] { cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, wb); });
                    cs = std::min(cs, t);
                    if (wb) cudaFree(wb);
                }
                cusparseDestroyDnVec(X); cusparseDestroyDnVec(Y);
            }
            {
                cusparseDnMatDescr_t X, Y;
                cusparseCreateDnMat(&X, k, n, n, dx, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                cusparseCreateDnMat(&Y, m, n, n, dyr, CUDA_R_32F, CUSPARSE_ORDER_ROW);
                for (auto al : {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG1, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
                    size_t sz = 0; void *wb = nullptr;
                    if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, &sz) != CUSPARSE_STATUS_SUCCESS) continue;
                    if (sz) cudaMalloc(&wb, sz);
                    if (cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, wb) != CUSPARSE_STATUS_SUCCESS) { if (wb) cudaFree(wb); continue; }
                    double t = median_us([&] { cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al, wb); });
                    cs = std::min(cs, t);
                    if (wb) cudaFree(wb);
                }
                cusparseDestroyDnMat(X); cusparseDestroyDnMat(Y);
            }
            cudaGetLastError();
            printf("%-34s N=%d | W32 %.2f -> %.2f (%s) x%.3f | W16 %.2f -> %.2f (%s) x%.3f | cs %.2f |%s\n", name, n,
                   base[0], best[0], bestn[0].c_str(), base[0] / best[0], base[1], best[1], bestn[1].c_str(), base[1] / best[1], cs, line.c_str());
            fflush(stdout);
            cudaFree(dx); cudaFree(dy); cudaFree(dyr);
        }
        cusparseDestroySpMat(A);
        cudaFree(dro); cudaFree(dci); cudaFree(dva); cudaFree(dro32);
    }
    return 0;
}
