/* prototype harness: ktiled RB+SR vs the wide RB+SR kernel vs cuSPARSE, f32 row-major. */
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

#include "groups.cuh"
using namespace loomcu;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

static double median_us(const std::function<void()> &f)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 3; i++) f();
    std::vector<double> t;
    for (int i = 0; i < 15; i++) {
        cudaEventRecord(a);
        for (int j = 0; j < 5; j++) f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.0 / 5);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    cusparseHandle_t h; cusparseCreate(&h);
    std::vector<int> ns = {64, 128, 256, 512};
    for (int ai = 1; ai < argc; ai++) {
        FILE *f = fopen(argv[ai], "rb");
        int64_t hd[3]; fread(hd, 8, 3, f);
        int64_t m = hd[0], k = hd[1], nnz = hd[2];
        std::vector<int64_t> ro(m + 1); std::vector<int32_t> ci(nnz); std::vector<float> va(nnz);
        fread(ro.data(), 8, m + 1, f); fread(ci.data(), 4, nnz, f); fread(va.data(), 4, nnz, f); fclose(f);
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
        /* row groups of 8 and 16: union columns, masks, values [u*R + r] */
        struct gdata { int64_t groups; int64_t *gptr; int32_t *ucol; uint32_t *umask; float *uval; };
        auto build = [&](int R) {
            std::vector<int64_t> gp(1, 0); std::vector<int32_t> uc; std::vector<uint32_t> um; std::vector<float> uv;
            for (int64_t g0 = 0; g0 < m; g0 += R) {
                std::vector<int64_t> at(R);
                for (int r = 0; r < R; r++) at[r] = g0 + r < m ? ro[g0 + r] : 0;
                for (;;) {
                    int32_t cmin = INT32_MAX;
                    for (int r = 0; r < R; r++) if (g0 + r < m && at[r] < ro[g0 + r + 1]) cmin = std::min(cmin, ci[at[r]]);
                    if (cmin == INT32_MAX) break;
                    uint32_t mk = 0; size_t base = uv.size(); uv.resize(base + R, 0.0f);
                    for (int r = 0; r < R; r++) if (g0 + r < m && at[r] < ro[g0 + r + 1] && ci[at[r]] == cmin) { mk |= 1u << r; uv[base + r] = va[at[r]]; at[r]++; }
                    uc.push_back(cmin); um.push_back(mk);
                }
                gp.push_back((int64_t)uc.size());
            }
            gdata d; d.groups = (int64_t)gp.size() - 1;
            CK(cudaMalloc(&d.gptr, 8 * gp.size())); CK(cudaMalloc(&d.ucol, 4 * uc.size() + 4)); CK(cudaMalloc(&d.umask, 4 * um.size() + 4)); CK(cudaMalloc(&d.uval, 4 * uv.size() + 16));
            cudaMemcpy(d.gptr, gp.data(), 8 * gp.size(), cudaMemcpyHostToDevice);
            cudaMemcpy(d.ucol, uc.data(), 4 * uc.size(), cudaMemcpyHostToDevice);
            cudaMemcpy(d.umask, um.data(), 4 * um.size(), cudaMemcpyHostToDevice);
            cudaMemcpy(d.uval, uv.data(), 4 * uv.size(), cudaMemcpyHostToDevice);
            printf("# R=%d union %zu entries, %.2f nnz per entry\n", R, uc.size(), (double)nnz / uc.size());
            return d;
        };
        gdata g8 = build(8), g16 = build(16);
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
            /* CPU oracle of the SR order: fma in storage order from +0. */
            std::vector<float> ref(m * n);
            for (int64_t i = 0; i < m; i++)
                for (int c = 0; c < n; c++) {
                    float acc = 0.0f;
                    for (int64_t j = ro[i]; j < ro[i + 1]; j++) acc = fmaf(va[j], x[(int64_t)ci[j] * n + c], acc);
                    ref[i * n + c] = acc;
                }
            std::vector<float> got(m * n);
            auto check = [&](const char *what, float *d) {
                cudaMemcpy(got.data(), d, 4 * m * n, cudaMemcpyDeviceToHost);
                if (memcmp(got.data(), ref.data(), 4 * m * n) != 0) {
                    int64_t bad = 0; for (int64_t i = 0; i < m * n; i++) bad += memcmp(&got[i], &ref[i], 4) != 0;
                    printf("  MISMATCH %s: %lld elements\n", what, (long long)bad);
                    return false;
                }
                return true;
            };
            std::string line;
            char buf[128];
            /* baseline: the wide kernel as the launcher runs it at G = 32, V = 4 */
            dim3 wg((unsigned)((m * 32 + 255) / 256), (unsigned)((n + 127) / 128));
            cudaMemset(dy, 0xff, 4 * m * n);
            auto wide = [&] { rb_sr_wide_kernel<float, 32, 4><<<wg, 256>>>(p); };
            wide(); CK(cudaDeviceSynchronize()); check("wide", dy);
            double t_wide = median_us(wide);
            snprintf(buf, sizeof buf, " wide %.1f", t_wide); line += buf;
            double best_k = 1e30; std::string best_name;
#define KT_RUN(RW, V, KT, MINB) { \
                dim3 g((unsigned)((m + 8 * RW - 1) / (8 * RW)), (unsigned)((n + 32 * V - 1) / (32 * V))); \
                cudaMemset(dy, 0xff, 4 * m * n); \
                auto kf = [&] { rb_sr_ktiled_kernel<float, RW, V, KT, MINB><<<g, 256>>>(p, k); }; \
                kf(); CK(cudaDeviceSynchronize()); \
                const char *nm = "r" #RW "v" #V "k" #KT "b" #MINB; \
                if (check(nm, dy)) { double t = median_us(kf); snprintf(buf, sizeof buf, " %s %.1f", nm, t); line += buf; \
                    if (t < best_k) { best_k = t; best_name = nm; } } }
#define GR_RUN(GD, R, V, U, MINB) { \
                dim3 g((unsigned)((GD.groups * 32 + 255) / 256), (unsigned)((n + 32 * V - 1) / (32 * V))); \
                cudaMemset(dy, 0xff, 4 * m * n); \
                auto kf = [&] { rb_sr_groups_kernel<float, R, V, U, MINB><<<g, 256>>>(p, GD.groups, GD.gptr, GD.ucol, GD.umask, GD.uval); }; \
                kf(); CK(cudaDeviceSynchronize()); \
                const char *nm = "g" #R "v" #V "u" #U "b" #MINB; \
                if (check(nm, dy)) { double t = median_us(kf); snprintf(buf, sizeof buf, " %s %.1f", nm, t); line += buf; \
                    if (t < best_k) { best_k = t; best_name = nm; } } }
#define WIDE_RUN(G, V) { \
                dim3 g((unsigned)((m * G + 255) / 256), (unsigned)((n + G * V - 1) / (G * V))); \
                cudaMemset(dy, 0xff, 4 * m * n); \
                auto kf = [&] { rb_sr_wide_kernel<float, G, V><<<g, 256>>>(p); }; \
                kf(); CK(cudaDeviceSynchronize()); \
                const char *nm = "w" #G "v" #V; \
                if (check(nm, dy)) { double t = median_us(kf); snprintf(buf, sizeof buf, " %s %.1f", nm, t); line += buf; \
                    if (t < best_k) { best_k = t; best_name = nm; } } }
            WIDE_RUN(4, 4)
            WIDE_RUN(8, 4)
            WIDE_RUN(16, 4)
            GR_RUN(g8, 8, 4, 4, 2)
            /* cuSPARSE */
            double best_cs = 1e30; const char *best_alg = "";
            cusparseDnMatDescr_t X, Y;
            cusparseCreateDnMat(&X, k, n, n, dx, CUDA_R_32F, CUSPARSE_ORDER_ROW);
            cusparseCreateDnMat(&Y, m, n, n, dyr, CUDA_R_32F, CUSPARSE_ORDER_ROW);
            float one = 1, zero = 0;
            struct { const char *nm; cusparseSpMMAlg_t a; } algs[] = {{"def", CUSPARSE_SPMM_ALG_DEFAULT}, {"alg2", CUSPARSE_SPMM_CSR_ALG2}, {"alg3", CUSPARSE_SPMM_CSR_ALG3}};
            for (auto &al : algs) {
                size_t sz = 0; void *wb = nullptr;
                if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, &sz) != CUSPARSE_STATUS_SUCCESS) continue;
                if (sz) cudaMalloc(&wb, sz);
                cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, wb);
                auto cf = [&] { cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, al.a, wb); };
                double t = median_us(cf);
                snprintf(buf, sizeof buf, " %s %.1f", al.nm, t); line += buf;
                if (t < best_cs) { best_cs = t; best_alg = al.nm; }
                if (wb) cudaFree(wb);
            }
            cusparseDestroyDnMat(X); cusparseDestroyDnMat(Y);
            printf("%-42s N=%3d | wide/cs %.3f  narrow/cs %.3f (%s)  narrow/wide %.3f |%s\n", name, n,
                   best_cs / t_wide, best_cs / best_k, best_name.c_str(), t_wide / best_k, line.c_str());
            fflush(stdout);
            cudaFree(dx); cudaFree(dy); cudaFree(dyr);
        }
        cusparseDestroySpMat(A);
        for (gdata *d : {&g8, &g16}) { cudaFree(d->gptr); cudaFree(d->ucol); cudaFree(d->umask); cudaFree(d->uval); }
        cudaFree(dro); cudaFree(dci); cudaFree(dva); cudaFree(dro32);
    }
    return 0;
}
