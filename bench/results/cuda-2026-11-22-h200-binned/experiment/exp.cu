// Experiment: deeper load pipelines and row binning for the RB+SR wide walk.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>
#include <cusparse.h>

#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
#define CS(x) do { cusparseStatus_t e_ = (x); if (e_ != CUSPARSE_STATUS_SUCCESS) { printf("cusparse %s line %d: %d\n", #x, __LINE__, (int)e_); exit(1);} } while (0)

struct P {
    int64_t m, n;
    const int64_t *__restrict__ ro;
    const int32_t *__restrict__ ci;
    const float *__restrict__ val;
    const float *__restrict__ x;
    float *__restrict__ y;
};

template <int G> __device__ __forceinline__ unsigned gmask()
{
    if constexpr (G >= 32) return 0xffffffffu;
    else { unsigned lane = threadIdx.x & 31u; return ((1u << G) - 1u) << (lane & ~(unsigned)(G - 1)); }
}

template <int V> __device__ __forceinline__ void ldx(const P &p, int32_t k, int64_t c, float (&o)[V])
{
    const float *r = p.x + (int64_t)k * p.n;
    if constexpr (V == 4) {
        if (c + 4 <= p.n) { float4 v = __ldg((const float4 *)(r + c)); o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w; return; }
    }
    if constexpr (V == 8) {
        if (c + 8 <= p.n) {
            float4 v = __ldg((const float4 *)(r + c)); float4 w = __ldg((const float4 *)(r + c + 4));
            o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w; o[4] = w.x; o[5] = w.y; o[6] = w.z; o[7] = w.w; return;
        }
    }
    if constexpr (V == 2) {
        if (c + 2 <= p.n) { float2 v = __ldg((const float2 *)(r + c)); o[0] = v.x; o[1] = v.y; return; }
    }
#pragma unroll
    for (int i = 0; i < V; i++) o[i] = (c + i < p.n) ? __ldg(r + c + i) : 0.f;
}

__device__ __forceinline__ void ldpair(const P &p, int64_t j, int64_t e, int32_t &col, float &a)
{
    col = 0; a = 0.f;
    if (j < e) { col = __ldg(p.ci + j); a = __ldg(p.val + j); }
}

template <int V> __device__ __forceinline__ void fin(const P &p, int64_t row, int64_t c, const float (&acc)[V])
{
#pragma unroll
    for (int i = 0; i < V; i++) if (c + i < p.n) p.y[row * p.n + c + i] = acc[i];
}

// ---- K0: the library's current wide walk (G lanes, V cols, U = 32/V pairs ahead).
template <int G, int V, int UU = 0, int MINB = 2>
__global__ void __launch_bounds__(256, MINB) k0(P p)
{
    const int U = UU ? UU : (G < 32 / V ? G : 32 / V);
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (row >= p.m) return;
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = gmask<G>();
    const int64_t b = p.ro[row], e = p.ro[row + 1];
    for (int64_t tile = blockIdx.y * (int64_t)G * V; tile < p.n; tile += (int64_t)gridDim.y * G * V) {
        const int64_t c = tile + lane * V;
        float acc[V];
#pragma unroll
        for (int i = 0; i < V; i++) acc[i] = 0.f;
        int32_t col; float a;
        ldpair(p, b + lane, e, col, a);
        for (int64_t base = b; base < e; base += G) {
            const int cnt = (e - base) < G ? (int)(e - base) : G;
            int32_t ncol; float na;
            ldpair(p, base + G + lane, e, ncol, na);
#pragma unroll
            for (int t0 = 0; t0 < G; t0 += U) {
                if (t0 >= cnt) break;
                float xv[U][V];
#pragma unroll
                for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, col, t0 + u, G), c, xv[u]);
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const float at = __shfl_sync(mask, a, t0 + u, G);
                    if (t0 + u < cnt)
#pragma unroll
                        for (int i = 0; i < V; i++) acc[i] = __fmaf_rn(at, xv[u][i], acc[i]);
                }
            }
            col = ncol; a = na;
        }
        fin<V>(p, row, c, acc);
    }
}

// ---- The pipelined walk of one (row, tile): groups of U pairs, the x loads
// of the next group (crossing into the next batch of G pairs) issued before
// the fmas of this one.  Order unchanged: fma(a_j, x_j, acc) from +0.
template <int G, int V, int U>
__device__ __forceinline__ void walk(const P &p, int64_t row, int64_t c)
{
    static_assert((G / U) % 2 == 0 || G / U == 1, "groups per batch");
    constexpr int NG = G / U;
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = gmask<G>();
    const int64_t b = p.ro[row], e = p.ro[row + 1];
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++) acc[i] = 0.f;
    int32_t col; float a;
    ldpair(p, b + lane, e, col, a);
    float xv[2][U][V];
    if (b < e) {
#pragma unroll
        for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, col, u, G), c, xv[0][u]);
    }
    for (int64_t base = b; base < e; base += G) {
        const int cnt = (e - base) < G ? (int)(e - base) : G;
        int32_t ncol; float na;
        ldpair(p, base + G + lane, e, ncol, na);
        const bool more = base + G < e;
#pragma unroll
        for (int g = 0; g < NG; g++) {
            const int cur = g & 1, nxt = (g + 1) & 1;
            if (NG == 1) {
                // single group: prefetch next batch into the other buffer, then copy back
                float nx[U][V];
                if (more) {
#pragma unroll
                    for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, ncol, u, G), c, nx[u]);
                }
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const float at = __shfl_sync(mask, a, u, G);
                    if (u < cnt)
#pragma unroll
                        for (int i = 0; i < V; i++) acc[i] = __fmaf_rn(at, xv[0][u][i], acc[i]);
                }
                if (more) {
#pragma unroll
                    for (int u = 0; u < U; u++)
#pragma unroll
                        for (int i = 0; i < V; i++) xv[0][u][i] = nx[u][i];
                }
            } else {
                if (g + 1 < NG) {
                    if ((g + 1) * U < cnt) {
#pragma unroll
                        for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, col, (g + 1) * U + u, G), c, xv[nxt][u]);
                    }
                } else if (more) {
#pragma unroll
                    for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, ncol, u, G), c, xv[nxt][u]);
                }
                if (g * U < cnt) {
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        const float at = __shfl_sync(mask, a, g * U + u, G);
                        if (g * U + u < cnt)
#pragma unroll
                            for (int i = 0; i < V; i++) acc[i] = __fmaf_rn(at, xv[cur][u][i], acc[i]);
                    }
                }
            }
        }
        col = ncol; a = na;
    }
    fin<V>(p, row, c, acc);
}

// K1: every row with the pipelined walk; grid.y = tiles.
template <int G, int V, int U, int MINB>
__global__ void __launch_bounds__(256, MINB) k1(P p)
{
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    if (row >= p.m) return;
    const int lane = threadIdx.x & (G - 1);
    for (int64_t tile = blockIdx.y * (int64_t)G * V; tile < p.n; tile += (int64_t)gridDim.y * G * V)
        walk<G, V, U>(p, row, tile + lane * V);
}

// K2: binned.  Blocks [0, lb) walk the long rows with V = 1 (deep: 32 cols per
// warp tile); the rest walk the short rows with <G, V, U>.  Work item = (row, tile).
template <int G, int V, int U, int MINB>
__global__ void __launch_bounds__(256, MINB) k2(P p, const int32_t *longr, int64_t nlong, int64_t lb,
                                            const int32_t *shortr, int64_t nshort)
{
    if ((int64_t)blockIdx.x < lb) {
        const int64_t tiles = (p.n + 31) / 32;
        const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
        if (w >= nlong * tiles) return;
        const int64_t r = longr[w / tiles], t = w % tiles;
        walk<32, 1, 16>(p, r, t * 32 + (threadIdx.x & 31));
    } else {
        const int64_t tiles = (p.n + G * V - 1) / (G * V);
        const int64_t w = ((int64_t)(blockIdx.x - lb) * blockDim.x + threadIdx.x) / G;
        if (w >= nshort * tiles) return;
        const int64_t r = shortr[w / tiles], t = w % tiles;
        walk<G, V, U>(p, r, t * G * V + (threadIdx.x & (G - 1)) * V);
    }
}

// k0's walk of one (row, tile) as a function, for the binned kernel.
template <int G, int V, int U>
__device__ __forceinline__ void walk0(const P &p, int64_t row, int64_t c)
{
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask = gmask<G>();
    const int64_t b = p.ro[row], e = p.ro[row + 1];
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++) acc[i] = 0.f;
    int32_t col; float a;
    ldpair(p, b + lane, e, col, a);
    for (int64_t base = b; base < e; base += G) {
        const int cnt = (e - base) < G ? (int)(e - base) : G;
        int32_t ncol; float na;
        ldpair(p, base + G + lane, e, ncol, na);
#pragma unroll
        for (int t0 = 0; t0 < G; t0 += U) {
            if (t0 >= cnt) break;
            float xv[U][V];
#pragma unroll
            for (int u = 0; u < U; u++) ldx<V>(p, __shfl_sync(mask, col, t0 + u, G), c, xv[u]);
#pragma unroll
            for (int u = 0; u < U; u++) {
                const float at = __shfl_sync(mask, a, t0 + u, G);
                if (t0 + u < cnt)
#pragma unroll
                    for (int i = 0; i < V; i++) acc[i] = __fmaf_rn(at, xv[u][i], acc[i]);
            }
        }
        col = ncol; a = na;
    }
    (void)lane;
    fin<V>(p, row, c, acc);
}

// k3: binned, k0 bodies.  Long rows (warp per (row, tile of 32*VL cols)) in blocks [0, lb).
template <int GS, int VS, int US, int VL, int UL, int MINB>
__global__ void __launch_bounds__(256, MINB) k3(P p, const int32_t *longr, int64_t nlong, int64_t lb,
                                            const int32_t *shortr, int64_t nshort)
{
    if ((int64_t)blockIdx.x < lb) {
        const int64_t tiles = (p.n + 32 * VL - 1) / (32 * VL);
        const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
        if (w >= nlong * tiles) return;
        const int64_t r = longr[w / tiles], t = w % tiles;
        walk0<32, VL, UL>(p, r, t * 32 * VL + (threadIdx.x & 31) * VL);
    } else {
        const int64_t tiles = (p.n + GS * VS - 1) / (GS * VS);
        const int64_t w = ((int64_t)(blockIdx.x - lb) * blockDim.x + threadIdx.x) / GS;
        if (w >= nshort * tiles) return;
        const int64_t r = shortr ? shortr[w / tiles] : w / tiles, t = w % tiles;
        walk0<GS, VS, US>(p, r, t * GS * VS + (threadIdx.x & (GS - 1)) * VS);
    }
}

struct Mat { int64_t m, k, nnz; std::vector<int64_t> ro; std::vector<int32_t> ci; std::vector<float> v; };

static Mat readbin(const char *path)
{
    Mat A; FILE *f = fopen(path, "rb"); if (!f) { printf("no %s\n", path); exit(1); }
    int64_t h[3]; if (fread(h, 8, 3, f) != 3) exit(1);
    A.m = h[0]; A.k = h[1]; A.nnz = h[2];
    A.ro.resize(A.m + 1); A.ci.resize(A.nnz); A.v.resize(A.nnz);
    if (fread(A.ro.data(), 8, A.m + 1, f) != (size_t)A.m + 1) exit(1);
    if (fread(A.ci.data(), 4, A.nnz, f) != (size_t)A.nnz) exit(1);
    if (fread(A.v.data(), 4, A.nnz, f) != (size_t)A.nnz) exit(1);
    fclose(f); return A;
}

template <typename F> static float timeit(F fn)
{
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 3; i++) fn();
    CU(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < 25; r++) {
        cudaEventRecord(a); fn(); cudaEventRecord(b); cudaEventSynchronize(b);
        float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
    }
    CU(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    cudaEventDestroy(a); cudaEventDestroy(b);
    return ms[ms.size() / 2] * 1000.f;
}

int main(int argc, char **argv)
{
    cusparseHandle_t h; CS(cusparseCreate(&h));
    std::vector<int> ns = {32, 64, 128, 256, 512};
    if (getenv("EXP_N")) ns = {atoi(getenv("EXP_N"))};
    const bool quick = getenv("EXP_QUICK") != nullptr;
    for (int ai = 1; ai < argc; ai++) {
        Mat A = readbin(argv[ai]);
        std::string name = argv[ai]; name = name.substr(name.rfind('/') + 1);
        int64_t *dro; int32_t *dci; float *dv, *dx, *dy, *dref;
        CU(cudaMalloc(&dro, 8 * (A.m + 1))); CU(cudaMalloc(&dci, 4 * A.nnz)); CU(cudaMalloc(&dv, 4 * A.nnz));
        CU(cudaMemcpy(dro, A.ro.data(), 8 * (A.m + 1), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dci, A.ci.data(), 4 * A.nnz, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(dv, A.v.data(), 4 * A.nnz, cudaMemcpyHostToDevice));
        int32_t *dci32ro; // int32 row offsets for cusparse
        std::vector<int32_t> ro32(A.ro.begin(), A.ro.end());
        CU(cudaMalloc(&dci32ro, 4 * (A.m + 1)));
        CU(cudaMemcpy(dci32ro, ro32.data(), 4 * (A.m + 1), cudaMemcpyHostToDevice));
        for (int n : ns) {
            size_t xs = (size_t)A.k * n, ys = (size_t)A.m * n;
            std::vector<float> hx(xs);
            for (size_t i = 0; i < xs; i++) hx[i] = (float)((i * 2654435761u) % 1000) / 500.f - 1.f;
            CU(cudaMalloc(&dx, 4 * xs)); CU(cudaMalloc(&dy, 4 * ys)); CU(cudaMalloc(&dref, 4 * ys));
            CU(cudaMemcpy(dx, hx.data(), 4 * xs, cudaMemcpyHostToDevice));
            P p{A.m, n, dro, dci, dv, dx, dy};
            // baseline K0 with the library's launch shape
            auto run_k0 = [&] {
                int V = 4, G = std::min(32, (int)((n / V + 1) & ~0));
                G = n / 4 >= 32 ? 32 : n / 4 >= 16 ? 16 : 8;
                dim3 grid((unsigned)((A.m * G + 255) / 256), (unsigned)((n + G * V - 1) / (G * V)));
                if (G == 32) k0<32, 4><<<grid, 256>>>(p);
                else if (G == 16) k0<16, 4><<<grid, 256>>>(p);
                else k0<8, 4><<<grid, 256>>>(p);
            };
            float t0 = timeit(run_k0);
            CU(cudaMemcpy(dref, dy, 4 * ys, cudaMemcpyDeviceToDevice));
            std::vector<float> ref(ys), got(ys);
            CU(cudaMemcpy(ref.data(), dref, 4 * ys, cudaMemcpyDeviceToHost));
            auto check = [&](const char *what) {
                CU(cudaMemcpy(got.data(), dy, 4 * ys, cudaMemcpyDeviceToHost));
                if (memcmp(got.data(), ref.data(), 4 * ys)) printf("  MISMATCH %s\n", what);
            };
            printf("%-22s N=%3d k0 %8.1f", name.c_str(), n, t0);
#define RUNK0(G, V, U, MB) { \
            auto f = [&] { dim3 grid((unsigned)((A.m * G + 255) / 256), (unsigned)((n + G * V - 1) / (G * V))); \
                           k0<G, V, U, MB><<<grid, 256>>>(p); }; \
            CU(cudaMemset(dy, 0xff, 4 * ys)); float t = timeit(f); check("k0<" #G "," #V "," #U "," #MB ">"); \
            printf(" | k0<%d,%d,%d,%d> %8.1f", G, V, U, MB, t); }
            if (n >= 128) { RUNK0(32, 4, 4, 4) RUNK0(32, 4, 2, 6) RUNK0(32, 4, 8, 3) RUNK0(32, 2, 4, 4) RUNK0(32, 2, 8, 4) }
            else if (n == 64) { RUNK0(16, 4, 4, 4) RUNK0(16, 4, 2, 6) RUNK0(16, 4, 8, 3) RUNK0(32, 2, 4, 4) RUNK0(32, 2, 8, 4) }
            else { RUNK0(8, 4, 4, 4) RUNK0(8, 4, 2, 6) RUNK0(8, 4, 8, 3) RUNK0(16, 2, 4, 4) RUNK0(16, 2, 8, 4) RUNK0(32, 1, 8, 4) RUNK0(32, 1, 16, 3)}
            if (getenv("EXP_K3")) {
            for (int L : {32, 128}) {
                std::vector<int32_t> lr, sr;
                for (int64_t r = 0; r < A.m; r++) (A.ro[r + 1] - A.ro[r] > L ? lr : sr).push_back((int32_t)r);
                std::stable_sort(lr.begin(), lr.end(), [&](int32_t x, int32_t y) { return A.ro[x + 1] - A.ro[x] > A.ro[y + 1] - A.ro[y]; });
                int32_t *dl, *ds;
                CU(cudaMalloc(&dl, 4 * (lr.size() + 1))); CU(cudaMalloc(&ds, 4 * (sr.size() + 1)));
                CU(cudaMemcpy(dl, lr.data(), 4 * lr.size(), cudaMemcpyHostToDevice));
                CU(cudaMemcpy(ds, sr.data(), 4 * sr.size(), cudaMemcpyHostToDevice));
                int64_t nl = lr.size(), nsr = sr.size();
#define RUNK3(GS, VS, US, VL, UL, MB) { \
                int64_t lb = (nl * ((n + 32 * VL - 1) / (32 * VL)) * 32 + 255) / 256; \
                int64_t sb = (nsr * ((n + GS * VS - 1) / (GS * VS)) * GS + 255) / 256; \
                auto f = [&] { k3<GS, VS, US, VL, UL, MB><<<(unsigned)(lb + sb), 256>>>(p, dl, nl, lb, ds, nsr); }; \
                CU(cudaMemset(dy, 0xff, 4 * ys)); float t = timeit(f); check("k3"); \
                printf(" | k3[L%d,%ld]<%d,%d,%d|%d,%d,%d> %7.1f", L, (long)nl, GS, VS, US, VL, UL, MB, t); }
                if (n >= 128) { RUNK3(32, 4, 4, 1, 16, 3) RUNK3(32, 4, 4, 2, 8, 3) RUNK3(32, 4, 4, 4, 8, 3) RUNK3(32, 4, 4, 1, 16, 4) }
                else if (n == 64) { RUNK3(16, 4, 4, 1, 16, 3) RUNK3(16, 4, 4, 2, 8, 3) RUNK3(16, 4, 4, 1, 16, 4) }
                else { RUNK3(8, 4, 4, 1, 16, 3) RUNK3(8, 4, 4, 1, 16, 4) RUNK3(8, 4, 4, 1, 8, 4) }
                cudaFree(dl); cudaFree(ds);
            }
            }
            if (!quick) {
            // K1 variants
#define RUNK1(G, V, U, MB) { \
            auto f = [&] { dim3 grid((unsigned)((A.m * G + 255) / 256), (unsigned)((n + G * V - 1) / (G * V))); \
                           k1<G, V, U, MB><<<grid, 256>>>(p); }; \
            CU(cudaMemset(dy, 0xff, 4 * ys)); float t = timeit(f); check("k1<" #G "," #V "," #U "," #MB ">"); \
            printf(" | k1<%d,%d,%d,%d> %8.1f", G, V, U, MB, t); }
            if (n >= 128) { RUNK1(32, 4, 4, 2) RUNK1(32, 4, 8, 2) RUNK1(32, 4, 4, 3) }
            else if (n == 64) { RUNK1(16, 4, 4, 2) RUNK1(16, 4, 8, 2) RUNK1(16, 4, 4, 3) }
            else { RUNK1(8, 4, 4, 2) RUNK1(8, 4, 4, 3) RUNK1(8, 4, 8, 3) }
            // K2 binned, thresholds
            for (int L : {64, 256}) {
                std::vector<int32_t> lr, sr;
                for (int64_t r = 0; r < A.m; r++) (A.ro[r + 1] - A.ro[r] > L ? lr : sr).push_back((int32_t)r);
                // longest first
                std::sort(lr.begin(), lr.end(), [&](int32_t x, int32_t y) { return A.ro[x + 1] - A.ro[x] > A.ro[y + 1] - A.ro[y]; });
                int32_t *dl, *ds;
                CU(cudaMalloc(&dl, 4 * (lr.size() + 1))); CU(cudaMalloc(&ds, 4 * (sr.size() + 1)));
                CU(cudaMemcpy(dl, lr.data(), 4 * lr.size(), cudaMemcpyHostToDevice));
                CU(cudaMemcpy(ds, sr.data(), 4 * sr.size(), cudaMemcpyHostToDevice));
                int64_t nl = lr.size(), nsr = sr.size();
                int64_t lb = (nl * ((n + 31) / 32) * 32 + 255) / 256;
#define RUNK2(G, V, U, MB) { \
                int64_t sb = (nsr * ((n + G * V - 1) / (G * V)) * G + 255) / 256; \
                auto f = [&] { k2<G, V, U, MB><<<(unsigned)(lb + sb), 256>>>(p, dl, nl, lb, ds, nsr); }; \
                CU(cudaMemset(dy, 0xff, 4 * ys)); float t = timeit(f); check("k2"); \
                printf(" | k2[L%d,%ld]<%d,%d,%d> %8.1f", L, (long)nl, G, V, U, t); }
                if (n >= 128) { RUNK2(32, 4, 4, 2) RUNK2(32, 4, 4, 3) }
                else if (n == 64) { RUNK2(16, 4, 4, 2) RUNK2(16, 4, 4, 3) }
                else { RUNK2(8, 4, 4, 3) }
                cudaFree(dl); cudaFree(ds);
            }
            }
            // cuSPARSE ALG2 / ALG3 / default, row-major
            {
                cusparseSpMatDescr_t sa; cusparseDnMatDescr_t sx, sy;
                CS(cusparseCreateCsr(&sa, A.m, A.k, A.nnz, dci32ro, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
                CS(cusparseCreateDnMat(&sx, A.k, n, n, dx, CUDA_R_32F, CUSPARSE_ORDER_ROW));
                CS(cusparseCreateDnMat(&sy, A.m, n, n, dy, CUDA_R_32F, CUSPARSE_ORDER_ROW));
                float one = 1, zero = 0;
                float best = 1e30f; const char *bn = "";
                for (auto alg : {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
                    size_t ws = 0; void *w = nullptr;
                    if (cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sa, sx, &zero, sy, CUDA_R_32F, alg, &ws) != CUSPARSE_STATUS_SUCCESS) continue;
                    CU(cudaMalloc(&w, ws + 1));
                    if (alg == CUSPARSE_SPMM_CSR_ALG3)
                        cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sa, sx, &zero, sy, CUDA_R_32F, alg, w);
                    float t = timeit([&] { cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, sa, sx, &zero, sy, CUDA_R_32F, alg, w); });
                    if (t < best) { best = t; bn = alg == CUSPARSE_SPMM_CSR_ALG2 ? "alg2" : alg == CUSPARSE_SPMM_CSR_ALG3 ? "alg3" : "def"; }
                    cudaFree(w);
                }
                printf(" | cusparse %s %8.1f\n", bn, best);
                cusparseDestroySpMat(sa); cusparseDestroyDnMat(sx); cusparseDestroyDnMat(sy);
            }
            cudaFree(dx); cudaFree(dy); cudaFree(dref);
            fflush(stdout);
        }
        cudaFree(dro); cudaFree(dci); cudaFree(dv); cudaFree(dci32ro);
    }
    return 0;
}
