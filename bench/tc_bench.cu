/*
 * tc_bench.cu - loom's tensor-core SpMM on the DLMC matrices, against
 * loom's CUDA-core designs, cuSPARSE CSR SpMM (fp16 and fp32) and cuBLAS
 * dense GEMM (fp16 in, fp32 accumulate) on the densified matrix, in one run.
 * loom's tensor cores are timed in both forms (rows with k = 16 and 8,
 * tiles); the summary gives the fastest of them per layer, then "auto":
 * the form and k a plan's rules pick (lib/select_tc.h).
 *
 * Usage: tc_bench [--dlmc DIR] [--n 64,128,256,512] [--reps R] [--batches B] [--limit L]
 *                 [--budget SECONDS] [--csv FILE] [--only-tc] [--smtx DIR] [--graph]
 * Matrices are taken round-robin over (model, sparsity), so a run cut short
 * by --limit (per model and sparsity) or --budget (wall seconds, after which
 * no new matrix starts) still covers every sparsity; the summary is always
 * printed.
 * DIR holds rn50/ and transformer/ (magnitude_pruning/0.9, 0.95, 0.98, .smtx
 * or .smtx.gz); default: $LOOM_DLMC, ../shared/data/dlmc, shared/data/dlmc.
 * The pattern comes from the file; values and X are random (fixed seed).
 * Y = A*X (alpha 1, beta 0); X, Y row-major.
 *
 * Per (matrix, N) it prints the time of each method (after two warm-ups,
 * the median over B batches (default 3) of a batch's mean of R back-to-back
 * calls (default 10), CUDA events), GFLOP/s counted on the non-zeros
 * (2 nnz N / t), and the bytes-moved floor of the fp16 problem
 * (A's CSR arrays + X read once + Y written once) with the bandwidth it
 * implies.  The summary gives, per N: share of matrices where the
 * tensor-core path beats cuSPARSE fp16 and the geomean speedup; and per
 * sparsity: the same against cuBLAS fp16.
 *
 * --graph times every method's R calls as one CUDA graph (captured on a
 * stream of its own after the warm-ups, launched once more, then once a
 * batch): the GPU's time without the host's per-call work, which for a
 * 5-10 us kernel can be as long as the kernel (cuBLAS's GEMM, above all).
 * Without it, the calls are launched one by one on the default stream, as
 * a plain loop of calls runs them.
 * --only-tc times the tensor-core kernels alone (quick tuning runs).
 * --smtx DIR takes the .smtx files of DIR instead of DLMC's (graphs, for
 * example; with --only-tc, as their densified A would not fit), each
 * named by its file and with the sparsity its non-zeros give.
 * Built with -DLOOM_TC_BENCH_BASELINE and a second tc_spmm.cu (an earlier
 * version, its entry points renamed tcbase_*: see bench/tc_gpu_run.sh), it
 * also times that baseline in the same session and compares the two
 * outputs bit for bit: a speed-only change must keep every bit.
 */
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <dirent.h>
#include <zlib.h>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "tc_model.h"
#include "tc_round.h"
#include "tc_spmm.h"
#include "bench_args.h"
#include "gpu_check.h"
#include "graph_calls.h"
#include "select_tc.h"
#ifndef LOOM_TC_BENCH_NO_CUDACORE
#include "cuda_kernels.h"
#endif

#ifdef LOOM_TC_BENCH_BASELINE
/* The baseline's entry points; its plan is opaque here (its own tc_spmm.h
 * may lay it out differently), the problem struct is shared. */
extern "C" {
cudaError_t tcbase_plan_create(void *plan, const int64_t *host_row_offsets, int64_t m, const tc_config *cfg);
void tcbase_plan_destroy(void *plan);
cudaError_t tcbase_spmm(const void *plan, const loomcu_tc_problem *p, cudaStream_t stream);
}
struct base_plan {
    alignas(16) unsigned char bytes[1024];
};
#endif

struct matrix {
    std::string name, model;
    double sparsity;
    int64_t m, k, nnz;
    std::vector<int64_t> ro;
    std::vector<int32_t> ci;
};

static bool read_smtx(const std::string &path, matrix &A)
{
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f)
        return false;
    std::string text;
    char buf[1 << 16];
    int got;
    while ((got = gzread(f, buf, sizeof buf)) > 0)
        text.append(buf, got);
    gzclose(f);
    const char *p = text.c_str();
    char *end;
    auto next = [&](long long &v) -> bool {
        while (*p && !(*p == '-' || (*p >= '0' && *p <= '9')))
            p++;
        if (!*p)
            return false;
        v = strtoll(p, &end, 10);
        p = end;
        return true;
    };
    long long m, k, nnz, v;
    if (!next(m) || !next(k) || !next(nnz))
        return false;
    A.m = m;
    A.k = k;
    A.nnz = nnz;
    A.ro.resize(m + 1);
    A.ci.resize(nnz);
    for (long long i = 0; i <= m; i++) {
        if (!next(v))
            return false;
        A.ro[i] = v;
    }
    for (long long j = 0; j < nnz; j++) {
        if (!next(v))
            return false;
        A.ci[j] = (int32_t)v;
    }
    return A.ro[m] == nnz;
}

static std::vector<std::string> list_dir(const std::string &d)
{
    std::vector<std::string> out;
    DIR *dir = opendir(d.c_str());
    if (!dir)
        return out;
    while (struct dirent *e = readdir(dir)) {
        std::string n = e->d_name;
        if (n.find(".smtx") != std::string::npos)
            out.push_back(n);
    }
    closedir(dir);
    std::sort(out.begin(), out.end());
    return out;
}

static uint64_t rng = 0x853c49e6748fea9bull;
static float urand()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2 - 1);
}

/* Batches of reps calls that time_ms takes the median of (--batches). */
static int g_batches = 3;

/* --graph: the stream every timed call runs on (else the default stream). */
static bool g_graph = false;
static cudaStream_t g_st = 0;

/* Time (ms) of one call of f: the median over g_batches batches of the
 * batch's mean over reps back-to-back calls, after two warm-ups.  A single
 * batch of a 4-6 us kernel moves by 5-15% from run to run; the median of
 * batches keeps one slow batch (a clock change, another process) out. */
template <typename F> static double time_ms(F f, int reps)
{
    f();
    f();
    /* --graph: the reps calls captured as one graph, launched once a batch
     * (NaN where a method's calls cannot be captured) */
    cudaGraphExec_t exec = NULL;
    if (g_graph) {
        CU(cudaStreamSynchronize(g_st));
        cudaError_t e = capture_calls(g_st, reps, f, &exec);
        if (e == cudaSuccess)
            e = cudaGraphLaunch(exec, g_st); /* a warm-up of the graph itself */
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g_st);
        if (e != cudaSuccess) {
            printf("(graph capture failed: %s; NaN)\n", cudaGetErrorString(e));
            if (exec)
                cudaGraphExecDestroy(exec);
            cudaGetLastError();
            return NAN;
        }
    }
    cudaEvent_t a, b;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    std::vector<double> t;
    for (int k = 0; k < g_batches; k++) {
        CU(cudaEventRecord(a, g_st));
        if (g_graph)
            CU(cudaGraphLaunch(exec, g_st));
        else
            for (int r = 0; r < reps; r++)
                f();
        CU(cudaEventRecord(b, g_st));
        CU(cudaEventSynchronize(b));
        float ms = 0;
        CU(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / reps);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (exec)
        cudaGraphExecDestroy(exec);
    CU(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct result {
    std::string name;
    double sparsity;
    int64_t n;
    double t_tc16, t_tc8, t_tiles, t_tc, t_cc, t_sp16, t_sp32, t_blas;
    double t_auto; /* the form and k the rules pick (select_tc.h) */
    bool auto_tiles;
    int auto_k;
    double max_rel; /* max |Y_tc - Y_cusparse_f32| / max |Y_cusparse_f32| */
    double t_base16, t_base8, t_base; /* the baseline build, when there is one */
    int64_t base_diff;                /* elements whose bits differ from the baseline (k16 + k8) */
};

#ifdef LOOM_TC_BENCH_BASELINE
/* Every storage type and MMA shape against the baseline, bit for bit, on A's
 * pattern: N not a multiple of 64, X rows not 16-byte aligned (ldx 100 in
 * fp16), a chunk straddling N, beta != 0.  Values spread over 12 binades so
 * a change in the order of additions would show.  Returns the differing
 * elements; adds the runs to *runs. */
static int64_t baseline_combos(const matrix &A, const int64_t *d_ro, const int32_t *d_ci, int64_t *runs)
{
    static const struct { tc_value vt; tc_precision prec; int k; } combos[] = {
        {TC_VAL_F16, TC_PREC_F16, 16},  {TC_VAL_F16, TC_PREC_F16, 8},   {TC_VAL_BF16, TC_PREC_BF16, 16},
        {TC_VAL_BF16, TC_PREC_BF16, 8}, {TC_VAL_F32, TC_PREC_TF32, 8},  {TC_VAL_F32, TC_PREC_TF32, 4},
        {TC_VAL_F32, TC_PREC_F16, 16},  {TC_VAL_F32, TC_PREC_F16, 8},   {TC_VAL_F32, TC_PREC_BF16, 16},
        {TC_VAL_F32, TC_PREC_BF16, 8}};
    static const struct { int64_t n, ldx; float alpha, beta; } shapes[] = {
        {100, 100, 1.0f, 0.0f}, {130, 136, 0.5f, -1.5f}, {256, 256, 1.0f, 0.0f}};
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)A.nnz; /* its own stream: the timed data stay as they were */
    auto rnd = [&]() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        const double u = (double)(s >> 11) / 9007199254740992.0;
        const int e = (int)((s >> 3) % 12) - 6;
        return (float)ldexp(u * 2 - 1, e);
    };
    int64_t differ = 0;
    for (const auto &c : combos) {
        tc_config cfg = {c.prec, c.k, TC_FORM_ROWS};
        if (!loomcu_tc_supported(c.vt, &cfg))
            continue;
        const size_t es = tc_value_size(c.vt);
        loomcu_tc_plan pn;
        base_plan pb;
        CU(loomcu_tc_plan_create(&pn, A.ro.data(), A.m, &cfg));
        CU(tcbase_plan_create(&pb, A.ro.data(), A.m, &cfg));
        for (const auto &sh : shapes) {
            std::vector<unsigned char> val(es * A.nnz), x(es * A.k * sh.ldx), y0(es * A.m * sh.n),
                yn(y0.size()), yb(y0.size());
            for (int64_t i = 0; i < A.nnz; i++)
                tc_store(val.data(), i, c.vt, rnd());
            for (int64_t i = 0; i < A.k * sh.ldx; i++)
                tc_store(x.data(), i, c.vt, rnd());
            for (int64_t i = 0; i < A.m * sh.n; i++)
                tc_store(y0.data(), i, c.vt, rnd());
            void *d_val, *d_x, *d_y;
            CU(cudaMalloc(&d_val, val.size()));
            CU(cudaMalloc(&d_x, x.size()));
            CU(cudaMalloc(&d_y, y0.size()));
            CU(cudaMemcpy(d_val, val.data(), val.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(d_x, x.data(), x.size(), cudaMemcpyHostToDevice));
            loomcu_tc_problem tp = {A.m, A.k, sh.n, d_ro, d_ci, d_val, c.vt, d_x, sh.ldx, d_y, sh.n,
                                    sh.alpha, sh.beta};
            CU(cudaMemcpy(d_y, y0.data(), y0.size(), cudaMemcpyHostToDevice));
            CU(loomcu_tc_spmm(&pn, &tp, 0));
            CU(cudaMemcpy(yn.data(), d_y, yn.size(), cudaMemcpyDeviceToHost));
            CU(cudaMemcpy(d_y, y0.data(), y0.size(), cudaMemcpyHostToDevice));
            CU(tcbase_spmm(&pb, &tp, 0));
            CU(cudaMemcpy(yb.data(), d_y, yb.size(), cudaMemcpyDeviceToHost));
            for (int64_t i = 0; i < A.m * sh.n; i++)
                differ += memcmp(&yn[i * es], &yb[i * es], es) != 0;
            (*runs)++;
            cudaFree(d_val);
            cudaFree(d_x);
            cudaFree(d_y);
        }
        loomcu_tc_plan_destroy(&pn);
        tcbase_plan_destroy(&pb);
    }
    return differ;
}
#endif

static double geomean(const std::vector<double> &v)
{
    if (v.empty())
        return NAN;
    double s = 0;
    for (double x : v)
        s += log(x);
    return exp(s / v.size());
}

static const char usage[] =
    "usage: tc_bench [--dlmc DIR | --smtx DIR] [--n 64,128,256,512] [--reps R] [--batches B]\n"
    "                [--limit L] [--budget SECONDS] [--csv FILE] [--only-tc] [--graph]   (see tc_bench(1))\n";

int main(int argc, char **argv)
{
    std::string dlmc;
    std::vector<int64_t> ns = {64, 128, 256, 512};
    int reps = 10, limit = 1 << 30;
    double budget = 1e30;
    const char *csv_path = NULL;
    bool only_tc = false;
    std::string other; /* --smtx DIR: its .smtx files instead of DLMC's */
    const char *me = "tc_bench";
    static const char *const with_value[] = {"--dlmc", "--reps", "--batches", "--limit", "--budget",
                                             "--csv", "--smtx", "--n", NULL};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        bool bad = false; /* an unknown option, a missing value, or a value that is not one */
        if (lacks_value(me, a.c_str(), with_value, i + 1 >= argc)) bad = true;
        else if (a == "--dlmc") dlmc = v, i++;
        else if (a == "--reps") bad = (reps = count_arg(me, "--reps", v, 1, INT32_MAX)) < 0, i++;
        else if (a == "--batches") bad = (g_batches = count_arg(me, "--batches", v, 1, INT32_MAX)) < 0, i++;
        else if (a == "--limit") bad = (limit = count_arg(me, "--limit", v, 1, INT32_MAX)) < 0, i++;
        else if (a == "--budget") bad = (budget = number_arg(me, "--budget", v, 0, HUGE_VAL)) < 0, i++;
        else if (a == "--csv") csv_path = v, i++;
        else if (a == "--only-tc") only_tc = true;
        else if (a == "--graph") g_graph = true;
        else if (a == "--smtx") other = v, i++;
        else if (a == "--n") {
            int64_t list[64];
            const int count = count_list(me, "--n", v, 1, INT32_MAX, list, 64);
            bad = count < 0;
            ns.assign(list, list + (bad ? 0 : count));
            i++;
        } else if (a == "--help" || a == "-h") {
            fputs(usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "tc_bench: unknown option '%s'\n", a.c_str());
            bad = true;
        }
        if (bad) {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (dlmc.empty()) {
        const char *cands[] = {getenv("LOOM_DLMC"), "../shared/data/dlmc", "shared/data/dlmc",
                               "/work/shared/data/dlmc"};
        for (const char *c : cands) {
            DIR *d = c ? opendir(c) : NULL;
            if (d) {
                closedir(d);
                dlmc = c;
                break;
            }
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    int64_t device_max_k = 0, device_max_k_narrow = 0; /* the "auto" column picks as a plan on this device would */
    CU(loomcu_tc_resident_max_k(&device_max_k, &device_max_k_narrow));
    const loom__tc_bounds bounds = loom__tc_resident_bounds(device_max_k, device_max_k_narrow);
    printf("tc_bench on %s (%d SMs), DLMC from %s, %d reps, median of %d batches%s; the rows form's "
           "resident strips hold K <= %lld (64 columns) or %lld (32) here\n",
           prop.name, prop.multiProcessorCount, dlmc.c_str(), reps, g_batches,
           g_graph ? " (--graph: each batch one CUDA graph of the reps calls)" : "", (long long)bounds.max_k,
           (long long)bounds.max_k_narrow);
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "tc_bench: cannot write %s: %s\n", csv_path, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "matrix,sparsity,m,k,nnz,n,tc_f16_k16_us,tc_f16_k8_us,cudacore_f32_us,"
                     "cusparse_f16_us,cusparse_f32_us,cublas_f16_us,floor_bytes,"
                     "base_f16_k16_us,base_f16_k8_us,base_bits_differ,tc_f16_tiles_us,auto_form\n");

    cusparseHandle_t sp;
    cublasHandle_t bl;
    if (cusparseCreate(&sp) != CUSPARSE_STATUS_SUCCESS || cublasCreate(&bl) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cannot create cuSPARSE / cuBLAS handles\n");
        return 2;
    }
    if (g_graph) { /* a blocking stream: ordered with the default stream's copies around the timings */
        CU(cudaStreamCreate(&g_st));
        cusparseSetStream(sp, g_st);
        cublasSetStream(bl, g_st);
    }
    std::vector<result> results;
    const char *models[] = {"rn50", "transformer"};
    const char *levels[] = {"0.9", "0.95", "0.98"};
    printf("%-62s %5s %5s %5s %7s %4s | %9s %9s %9s %9s %9s %9s %9s | %8s %7s %7s %8s\n", "matrix", "sp",
           "M", "K", "nnz", "N", "tc16k16", "tc16k8", "tc-tiles", "cc-f32", "csp-f16", "csp-f32", "cublas16",
           "tcGF/s", "floorKB", "tcGB/s", "relerr");
    printf("(times in microseconds; relerr: tensor-core f16 result against cuSPARSE f32, relative to max |Y|)\n");
#ifdef LOOM_TC_BENCH_BASELINE
    printf("(baseline build linked: each line is followed by its times and how many output bits differ)\n");
#endif
    /* (dir, file, model, level) round-robin over the six (model, level) sets */
    struct entry { std::string dir, file, model, level; };
    std::vector<std::vector<entry>> sets;
    if (!other.empty()) { /* one set: the directory's matrices, their sparsity computed */
        std::vector<entry> es;
        for (const std::string &fn : list_dir(other))
            if ((int)es.size() < limit)
                es.push_back({other, fn, "other", ""});
        if (es.empty()) {
            fprintf(stderr, "tc_bench: --smtx %s: no readable folder with .smtx files\n", other.c_str());
            return 2;
        }
        sets.push_back(es);
    }
    for (const char *model : models)
        for (const char *level : levels) {
            if (!other.empty())
                break;
            std::string dir = dlmc + "/" + model + "/magnitude_pruning/" + level;
            std::vector<entry> es;
            for (const std::string &fn : list_dir(dir))
                if ((int)es.size() < limit)
                    es.push_back({dir, fn, model, level});
            sets.push_back(es);
        }
    std::vector<entry> order;
    for (size_t i = 0;; i++) {
        bool any = false;
        for (auto &es : sets)
            if (i < es.size()) {
                order.push_back(es[i]);
                any = true;
            }
        if (!any)
            break;
    }
    struct timespec ts0;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    int skipped = 0, bad_results = 0;
#ifdef LOOM_TC_BENCH_BASELINE
    int64_t combo_runs = 0, combo_differ = 0, matrix_index = 0;
#endif
    for (const entry &en : order) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if ((ts.tv_sec - ts0.tv_sec) + 1e-9 * (ts.tv_nsec - ts0.tv_nsec) > budget) {
            skipped++;
            continue;
        }
        const std::string &dir = en.dir, &fn = en.file;
        const char *model = en.model.c_str(), *level = en.level.c_str();
        matrix A;
        A.name = std::string(model) + "/" + level + "/" + fn.substr(0, fn.find(".smtx"));
        A.sparsity = atof(level);
        if (!read_smtx(dir + "/" + fn, A)) {
            printf("cannot read %s\n", fn.c_str());
            continue;
        }
        if (!*level) {
            A.name = fn.substr(0, fn.find(".smtx"));
            A.sparsity = A.m * A.k > 0 ? 1.0 - (double)A.nnz / ((double)A.m * (double)A.k) : 0.0;
        }
        if (A.nnz == 0)
            continue;
        /* Dense work (cuBLAS's densified A, the tiles form's M K N MMAs) only
         * up to M K = 2^28: a graph's would take seconds a call and more
         * memory than the host or the GPU has. */
        const bool dense_ok = (double)A.m * (double)A.k <= (double)(1 << 28);
        if (!dense_ok && !only_tc) {
            printf("%s: %lld x %lld is too large to densify for cuBLAS; skipped (--only-tc times it)\n",
                   fn.c_str(), (long long)A.m, (long long)A.k);
            continue;
        }
        /* values (fp16 and fp32 copies of the same numbers), X, dense A */
        std::vector<uint16_t> v16(A.nnz);
        std::vector<float> v32(A.nnz);
        for (int64_t j = 0; j < A.nnz; j++) {
            v16[j] = tc_f32_to_f16(urand());
            v32[j] = tc_f16_to_f32(v16[j]);
        }
        std::vector<int32_t> ro32(A.m + 1);
        for (int64_t i = 0; i <= A.m; i++)
            ro32[i] = (int32_t)A.ro[i];
        /* the densified A for cuBLAS (not with --only-tc: a graph's would not fit) */
        std::vector<uint16_t> dense16(only_tc ? 0 : (size_t)A.m * A.k, 0);
        if (!only_tc)
            for (int64_t i = 0; i < A.m; i++)
                for (int64_t j = A.ro[i]; j < A.ro[i + 1]; j++)
                    dense16[(size_t)i * A.k + A.ci[j]] = v16[j];
        int64_t *d_ro;
        int32_t *d_ci, *d_ro32;
        void *d_v16, *d_v32, *d_dense;
        CU(cudaMalloc(&d_ro, 8 * (A.m + 1)));
        CU(cudaMalloc(&d_ro32, 4 * (A.m + 1)));
        CU(cudaMalloc(&d_ci, 4 * A.nnz));
        CU(cudaMalloc(&d_v16, 2 * A.nnz));
        CU(cudaMalloc(&d_v32, 4 * A.nnz));
        d_dense = NULL;
        if (!only_tc)
            CU(cudaMalloc(&d_dense, 2 * (size_t)A.m * A.k));
        CU(cudaMemcpy(d_ro, A.ro.data(), 8 * (A.m + 1), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_ro32, ro32.data(), 4 * (A.m + 1), cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_ci, A.ci.data(), 4 * A.nnz, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_v16, v16.data(), 2 * A.nnz, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(d_v32, v32.data(), 4 * A.nnz, cudaMemcpyHostToDevice));
        if (!only_tc)
            CU(cudaMemcpy(d_dense, dense16.data(), 2 * (size_t)A.m * A.k, cudaMemcpyHostToDevice));
#ifdef LOOM_TC_BENCH_BASELINE
        if (matrix_index++ % 10 == 0) /* every tenth matrix: all types and shapes */
            combo_differ += baseline_combos(A, d_ro, d_ci, &combo_runs);
#endif
        tc_config c16 = {TC_PREC_F16, 16, TC_FORM_ROWS}, c8 = {TC_PREC_F16, 8, TC_FORM_ROWS};
        tc_config ct = {TC_PREC_F16, 16, TC_FORM_TILES};
        loomcu_tc_plan p16, p8, pt;
        CU(loomcu_tc_plan_create(&p16, A.ro.data(), A.m, &c16));
        CU(loomcu_tc_plan_create(&p8, A.ro.data(), A.m, &c8));
        CU(loomcu_tc_plan_create(&pt, A.ro.data(), A.m, &ct));
#ifdef LOOM_TC_BENCH_BASELINE
        base_plan b16, b8;
        CU(tcbase_plan_create(&b16, A.ro.data(), A.m, &c16));
        CU(tcbase_plan_create(&b8, A.ro.data(), A.m, &c8));
#endif

        for (int64_t n : ns) {
            std::vector<uint16_t> x16((size_t)A.k * n);
            std::vector<float> x32((size_t)A.k * n);
            for (size_t i = 0; i < x16.size(); i++) {
                x16[i] = tc_f32_to_f16(urand());
                x32[i] = tc_f16_to_f32(x16[i]);
            }
            void *d_x16, *d_x32, *d_y16, *d_y32;
            CU(cudaMalloc(&d_x16, 2 * x16.size()));
            CU(cudaMalloc(&d_x32, 4 * x32.size()));
            CU(cudaMalloc(&d_y16, 2 * (size_t)A.m * n));
            CU(cudaMalloc(&d_y32, 4 * (size_t)A.m * n));
            CU(cudaMemcpy(d_x16, x16.data(), 2 * x16.size(), cudaMemcpyHostToDevice));
            CU(cudaMemcpy(d_x32, x32.data(), 4 * x32.size(), cudaMemcpyHostToDevice));
            result r;
            r.name = A.name;
            r.sparsity = A.sparsity;
            r.n = n;

            loomcu_tc_problem tp = {A.m, A.k, n, d_ro, d_ci, d_v16, TC_VAL_F16, d_x16, n,
                                    d_y16, n, 1.0f, 0.0f};
            r.t_tc16 = time_ms([&] { loomcu_tc_spmm(&p16, &tp, g_st); }, reps);
            r.t_tc8 = time_ms([&] { loomcu_tc_spmm(&p8, &tp, g_st); }, reps);
            /* sanity: keep the tensor-core results (fp16) to compare with cuSPARSE fp32 */
            std::vector<uint16_t> y_tc((size_t)A.m * n), y_tiles((size_t)A.m * n);
            CU(cudaMemcpy(y_tc.data(), d_y16, 2 * y_tc.size(), cudaMemcpyDeviceToHost));
            r.t_tiles = NAN; /* the tiles form's MMAs are dense: dense_ok */
            y_tiles = y_tc;
            if (dense_ok) {
                r.t_tiles = time_ms([&] { loomcu_tc_spmm(&pt, &tp, g_st); }, reps);
                CU(cudaMemset(d_y16, 0xff, 2 * y_tiles.size())); /* NaN: an unwritten element shows */
                CU(loomcu_tc_spmm(&pt, &tp, 0));
                CU(cudaMemcpy(y_tiles.data(), d_y16, 2 * y_tiles.size(), cudaMemcpyDeviceToHost));
            }
            r.t_tc = dense_ok ? std::min(std::min(r.t_tc16, r.t_tc8), r.t_tiles) : std::min(r.t_tc16, r.t_tc8);
            r.auto_tiles = loom__tc_prefer_tiles(A.m, A.k, A.nnz, n, bounds);
            r.auto_k = r.auto_tiles ? 16 : loom__tc_rows_k(A.m, A.nnz);
            r.t_auto = r.auto_tiles ? r.t_tiles : r.auto_k == 8 ? r.t_tc8 : r.t_tc16;
            r.t_base16 = r.t_base8 = r.t_base = NAN;
            r.base_diff = 0;
#ifdef LOOM_TC_BENCH_BASELINE
            {
                r.t_base16 = time_ms([&] { tcbase_spmm(&b16, &tp, g_st); }, reps);
                r.t_base8 = time_ms([&] { tcbase_spmm(&b8, &tp, g_st); }, reps);
                r.t_base = std::min(r.t_base16, r.t_base8);
                /* one call of each, Y poisoned (all-ones: NaN) first, so an
                 * element either build leaves unwritten also shows up */
                std::vector<uint16_t> y_new(y_tc.size()), y_old(y_tc.size());
                const void *plans_new[2] = {&p16, &p8}, *plans_old[2] = {&b16, &b8};
                for (int v = 0; v < 2; v++) {
                    CU(cudaMemset(d_y16, 0xff, 2 * y_tc.size()));
                    CU(loomcu_tc_spmm((const loomcu_tc_plan *)plans_new[v], &tp, 0));
                    CU(cudaMemcpy(y_new.data(), d_y16, 2 * y_new.size(), cudaMemcpyDeviceToHost));
                    CU(cudaMemset(d_y16, 0xff, 2 * y_tc.size()));
                    CU(tcbase_spmm(plans_old[v], &tp, 0));
                    CU(cudaMemcpy(y_old.data(), d_y16, 2 * y_old.size(), cudaMemcpyDeviceToHost));
                    for (size_t i = 0; i < y_new.size(); i++)
                        r.base_diff += y_new[i] != y_old[i] || y_new[i] == 0xffff;
                }
            }
#endif

            r.t_cc = NAN;
            r.t_sp16 = r.t_sp32 = r.t_blas = NAN;
            r.max_rel = NAN;
#ifndef LOOM_TC_BENCH_NO_CUDACORE
            if (!only_tc) {
                loomcu_problem cp;
                memset(&cp, 0, sizeof cp);
                cp.m = A.m;
                cp.k = A.k;
                cp.n = n;
                cp.nnz = A.nnz;
                cp.row_offsets = d_ro;
                cp.col_indices = d_ci;
                cp.values = d_v32;
                cp.x = d_x32;
                cp.x_row_stride = n;
                cp.x_col_stride = 1;
                cp.y = d_y32;
                cp.y_row_stride = n;
                cp.y_col_stride = 1;
                cp.alpha = 1;
                cp.beta = 0;
                cp.x_vector_width = n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
                cp.y_vector_width = cp.x_vector_width;
                /* RB designs without plan data (EB and the row bins need a plan) */
                loom_strategy ss[5];
                memset(ss, 0, sizeof ss);
                for (int s = 0; s < 5; s++) {
                    ss[s].mloop = LOOM_M_RB;
                    ss[s].chunk = 32;
                    ss[s].nloop = LOOM_N_RM;
                    ss[s].kloop = s < 2 ? LOOM_K_SR : LOOM_K_PR;
                    ss[s].lanes = s == 2 ? 4 : s == 3 ? 8 : 32;
                }
                ss[0].techniques = LOOM_TECH_VDL;
                ss[1].techniques = LOOM_TECH_VDL | LOOM_TECH_CSC;
                ss[2].techniques = ss[3].techniques = ss[4].techniques = LOOM_TECH_VDL;
                for (int s = 0; s < 5; s++) {
                    double t = time_ms([&] { loomcu_spmm_f32(&cp, &ss[s], NULL, g_st); }, reps);
                    if (!(t >= r.t_cc))
                        r.t_cc = std::isnan(r.t_cc) ? t : std::min(r.t_cc, t);
                }
            }
#endif
            /* cuSPARSE */
            auto cusparse_time = [&](cudaDataType vt, void *vals, void *x, void *y) -> double {
                cusparseSpMatDescr_t mA;
                cusparseDnMatDescr_t mX, mY;
                float one = 1, zero = 0;
                if (cusparseCreateCsr(&mA, A.m, A.k, A.nnz, d_ro32, d_ci, vals, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt) != CUSPARSE_STATUS_SUCCESS)
                    return NAN;
                cusparseCreateDnMat(&mX, A.k, n, n, x, vt, CUSPARSE_ORDER_ROW);
                cusparseCreateDnMat(&mY, A.m, n, n, y, vt, CUSPARSE_ORDER_ROW);
                double t = NAN;
                const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2,
                                                  CUSPARSE_SPMM_CSR_ALG1};
                for (cusparseSpMMAlg_t alg : algs) {
                    size_t bytes = 0;
                    if (cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, mX, &zero,
                                                mY, CUDA_R_32F, alg, &bytes) != CUSPARSE_STATUS_SUCCESS)
                        continue;
                    void *buf = NULL;
                    if (bytes)
                        CU(cudaMalloc(&buf, bytes));
                    cusparseStatus_t st = cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, mX,
                                                       &zero, mY, CUDA_R_32F, alg, buf);
                    if (st == CUSPARSE_STATUS_SUCCESS) {
                        double ta = time_ms([&] {
                            cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, mX, &zero, mY,
                                         CUDA_R_32F, alg, buf);
                        }, reps);
                        if (std::isnan(t) || ta < t)
                            t = ta;
                    }
                    cudaGetLastError();
                    if (buf)
                        cudaFree(buf);
                }
                cusparseDestroySpMat(mA);
                cusparseDestroyDnMat(mX);
                cusparseDestroyDnMat(mY);
                return t;
            };
            if (!only_tc) {
                r.t_sp16 = cusparse_time(CUDA_R_16F, d_v16, d_x16, d_y16);
                r.t_sp32 = cusparse_time(CUDA_R_32F, d_v32, d_x32, d_y32);
            }
            if (!std::isnan(r.t_sp32)) {
                std::vector<float> y_ref((size_t)A.m * n);
                CU(cudaMemcpy(y_ref.data(), d_y32, 4 * y_ref.size(), cudaMemcpyDeviceToHost));
                double scale = 1e-30, err = 0;
                for (size_t i = 0; i < y_ref.size(); i++)
                    scale = std::max(scale, (double)fabsf(y_ref[i]));
                for (size_t i = 0; i < y_ref.size(); i++) {
                    err = std::max(err, fabs((double)tc_f16_to_f32(y_tc[i]) - y_ref[i]));
                    const double et = fabs((double)tc_f16_to_f32(y_tiles[i]) - y_ref[i]);
                    err = std::isnan(et) ? INFINITY : std::max(err, et);
                }
                r.max_rel = err / scale;
                if (!(r.max_rel < 1e-2))
                    bad_results++;
            }
            /* cuBLAS: Y^T (n x m, col-major) = X^T (n x k) * A^T (k x m) */
            if (!only_tc) {
                float one = 1, zero = 0;
                r.t_blas = time_ms([&] {
                    cublasGemmEx(bl, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)A.m, (int)A.k, &one, d_x16,
                                 CUDA_R_16F, (int)n, d_dense, CUDA_R_16F, (int)A.k, &zero, d_y16,
                                 CUDA_R_16F, (int)n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
                }, reps);
            }
            const double floor_bytes = A.nnz * 6.0 + (A.m + 1) * 8.0 + (double)A.k * n * 2 + (double)A.m * n * 2;
            const double gflops = 2.0 * A.nnz * n / (r.t_tc * 1e-3) / 1e9;
            printf("%-62s %5.2f %5lld %5lld %7lld %4lld | %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f | %8.1f %7.1f %7.1f %8.1e\n",
                   A.name.c_str(), A.sparsity, (long long)A.m, (long long)A.k, (long long)A.nnz,
                   (long long)n, r.t_tc16 * 1e3, r.t_tc8 * 1e3, r.t_tiles * 1e3, r.t_cc * 1e3, r.t_sp16 * 1e3,
                   r.t_sp32 * 1e3, r.t_blas * 1e3, gflops, floor_bytes / 1024,
                   floor_bytes / (r.t_tc * 1e-3) / 1e9, r.max_rel);
#ifdef LOOM_TC_BENCH_BASELINE
            printf("%-62s %5s %5s %5s %7s %4s | base16 %9.2f base8 %9.2f | %.2fx | bits differ: %lld\n", "", "",
                   "", "", "", "", r.t_base16 * 1e3, r.t_base8 * 1e3, r.t_base / std::min(r.t_tc16, r.t_tc8),
                   (long long)r.base_diff);
#endif
            if (csv)
                fprintf(csv, "%s,%.2f,%lld,%lld,%lld,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,%.3f,%.3f,%lld,%.3f,%s\n",
                        A.name.c_str(), A.sparsity, (long long)A.m, (long long)A.k, (long long)A.nnz,
                        (long long)n, r.t_tc16 * 1e3, r.t_tc8 * 1e3, r.t_cc * 1e3, r.t_sp16 * 1e3,
                        r.t_sp32 * 1e3, r.t_blas * 1e3, floor_bytes, r.t_base16 * 1e3, r.t_base8 * 1e3,
                        (long long)r.base_diff, r.t_tiles * 1e3,
                        r.auto_tiles ? "tiles" : r.auto_k == 8 ? "rows-k8" : "rows-k16");
            results.push_back(r);
            cudaFree(d_x16);
            cudaFree(d_x32);
            cudaFree(d_y16);
            cudaFree(d_y32);
        }
        loomcu_tc_plan_destroy(&p16);
        loomcu_tc_plan_destroy(&p8);
        loomcu_tc_plan_destroy(&pt);
#ifdef LOOM_TC_BENCH_BASELINE
        tcbase_plan_destroy(&b16);
        tcbase_plan_destroy(&b8);
#endif
        cudaFree(d_ro);
        cudaFree(d_ro32);
        cudaFree(d_ci);
        cudaFree(d_v16);
        cudaFree(d_v32);
        cudaFree(d_dense);
    }

    if (bad_results)
        printf("\nWARNING: %d runs where the tensor-core result is off cuSPARSE fp32 by more than 1%% of max |Y|\n",
               bad_results);
    else
        printf("\nall tensor-core results within 1%% (of max |Y|) of cuSPARSE fp32\n");
#ifdef LOOM_TC_BENCH_BASELINE
    {
        int64_t runs = 0, differ = 0, total = 0;
        for (const result &r : results) {
            runs++;
            differ += r.base_diff != 0;
            total += r.base_diff;
        }
        printf("baseline: %lld of %lld runs (k16 and k8 each) with output bits different from the baseline build "
               "(%lld elements in all)\n", (long long)differ, (long long)runs, (long long)total);
        printf("baseline: every storage type and MMA shape (every tenth matrix; N 100/130/256, odd ldx, beta != 0): "
               "%lld runs, %lld elements with different bits\n", (long long)combo_runs, (long long)combo_differ);
    }
#endif
    if (skipped)
        printf("\n%d matrices not run: the --budget of %.0f s was spent\n", skipped, budget);
    printf("\nsummary (tc = the fastest of loom's tensor-core f16 forms: rows k16, rows k8, tiles; times are medians of %d batches of %d calls)\n", g_batches, reps);
    printf("%5s %6s | %-28s | %-28s | %-28s | %-20s\n", "N", "sp", "vs cuSPARSE f16: faster, geo",
           "vs cuBLAS f16: faster, geo", "vs cuSPARSE f32: faster, geo", "vs loom CUDA-core f32");
#ifdef LOOM_TC_BENCH_BASELINE
    /* rows form against rows form (the faster of k16 and k8 on each side):
     * the baseline build has no tiles form to set beside this one's */
    printf("against the baseline build (same session; rows form, faster of k16 and k8 each side): N, sparsity, runs "
           "faster, geomean speedup, median baseline/new\n");
    for (int64_t n : ns)
        for (double sp : {0.0, 0.9, 0.95, 0.98}) {
            std::vector<double> sb;
            int fb = 0;
            for (const result &r : results)
                if (r.n == n && (sp == 0.0 || fabs(r.sparsity - sp) < 1e-9) && !std::isnan(r.t_base)) {
                    const double rows = std::min(r.t_tc16, r.t_tc8);
                    sb.push_back(r.t_base / rows);
                    fb += rows < r.t_base;
                }
            if (sb.empty())
                continue;
            std::vector<double> sorted = sb;
            std::sort(sorted.begin(), sorted.end());
            printf("%5lld %6s | %4d/%-4d faster  geomean %6.2fx  median %6.2fx\n", (long long)n,
                   sp == 0.0 ? "all" : (sp == 0.9 ? "0.90" : sp == 0.95 ? "0.95" : "0.98"), fb, (int)sb.size(),
                   geomean(sb), sorted[sorted.size() / 2]);
        }
#endif
    for (int64_t n : ns)
        for (double sp : {0.0, 0.9, 0.95, 0.98}) {
            std::vector<double> s16, sbl, s32, scc;
            int f16 = 0, fbl = 0, f32 = 0, fcc = 0, cnt = 0;
            for (const result &r : results) {
                if (r.n != n || (sp != 0.0 && fabs(r.sparsity - sp) > 1e-9))
                    continue;
                cnt++;
                if (!std::isnan(r.t_sp16)) { s16.push_back(r.t_sp16 / r.t_tc); f16 += r.t_tc < r.t_sp16; }
                if (!std::isnan(r.t_blas)) { sbl.push_back(r.t_blas / r.t_tc); fbl += r.t_tc < r.t_blas; }
                if (!std::isnan(r.t_sp32)) { s32.push_back(r.t_sp32 / r.t_tc); f32 += r.t_tc < r.t_sp32; }
                if (!std::isnan(r.t_cc)) { scc.push_back(r.t_cc / r.t_tc); fcc += r.t_tc < r.t_cc; }
            }
            if (!cnt)
                continue;
            printf("%5lld %6s | %4d/%-4d %5.1f%%  %6.2fx | %4d/%-4d %5.1f%%  %6.2fx | %4d/%-4d %5.1f%%  %6.2fx | %4d/%-4d %6.2fx\n",
                   (long long)n, sp == 0.0 ? "all" : (sp == 0.9 ? "0.90" : sp == 0.95 ? "0.95" : "0.98"),
                   f16, (int)s16.size(), 100.0 * f16 / std::max<size_t>(1, s16.size()), geomean(s16), fbl,
                   (int)sbl.size(), 100.0 * fbl / std::max<size_t>(1, sbl.size()), geomean(sbl), f32,
                   (int)s32.size(), 100.0 * f32 / std::max<size_t>(1, s32.size()), geomean(s32), fcc,
                   (int)scc.size(), geomean(scc));
        }
    printf("\nauto (the form and k a plan picks, select_tc.h)\n");
    printf("%5s %6s | %-5s | %-28s | %-28s | %-14s\n", "N", "sp", "tiles", "vs cuSPARSE f16: faster, geo",
           "vs cuBLAS f16: faster, geo", "best form/auto");
    for (int64_t n : ns)
        for (double sp : {0.0, 0.9, 0.95, 0.98}) {
            std::vector<double> s16, sbl, sbest;
            int f16 = 0, fbl = 0, cnt = 0, tiles = 0;
            for (const result &r : results) {
                if (r.n != n || (sp != 0.0 && fabs(r.sparsity - sp) > 1e-9))
                    continue;
                cnt++;
                tiles += r.auto_tiles;
                sbest.push_back(r.t_tc / r.t_auto);
                if (!std::isnan(r.t_sp16)) { s16.push_back(r.t_sp16 / r.t_auto); f16 += r.t_auto < r.t_sp16; }
                if (!std::isnan(r.t_blas)) { sbl.push_back(r.t_blas / r.t_auto); fbl += r.t_auto < r.t_blas; }
            }
            if (!cnt)
                continue;
            printf("%5lld %6s | %5d | %4d/%-4d %5.1f%%  %6.2fx | %4d/%-4d %5.1f%%  %6.2fx | %6.3f\n", (long long)n,
                   sp == 0.0 ? "all" : (sp == 0.9 ? "0.90" : sp == 0.95 ? "0.95" : "0.98"), tiles, f16,
                   (int)s16.size(), 100.0 * f16 / std::max<size_t>(1, s16.size()), geomean(s16), fbl,
                   (int)sbl.size(), 100.0 * fbl / std::max<size_t>(1, sbl.size()), geomean(sbl), geomean(sbest));
        }
    printf("targets (N = 256, sparsity 0.9-0.98): beat cuSPARSE f16 on >= 90%% with geomean >= 2x; "
           "beat cuBLAS f16 from 0.95 up\n");
    if (csv)
        fclose(csv);
    cusparseDestroy(sp);
    cublasDestroy(bl);
    return 0;
}
