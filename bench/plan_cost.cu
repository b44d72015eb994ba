/*
 * plan_cost.cu - where a CUDA plan's creation time goes: the selectors'
 * plan time is counted in SpMM runs (issue #6: tune below 50), and on small
 * matrices a plan costs more than many runs.  For each matrix and N this
 * prints, as medians of several tries: one SpMM of the default plan; plan
 * creation and destruction for fixed designs that keep nothing on the
 * device (RB + PR), row bins (RB + SR) and segments (EB + SR); the auto
 * and tune selectors; and the CUDA calls a plan makes (cudaMalloc +
 * cudaFree, a pageable copy, a stream-ordered pool allocation).
 *
 * Usage: plan_cost [--n LIST] FILE.mtx[.gz]...
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_args.h"
#include "gpu_check.h"
#include "loom.h"

static double now_us()
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* Median of `tries` timings of f (after one untimed call), in us. */
static double median_us(int tries, const std::function<void()> &f)
{
    f();
    std::vector<double> t;
    for (int i = 0; i < tries; i++) {
        CU(cudaDeviceSynchronize());
        double t0 = now_us();
        f();
        t.push_back(now_us() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static void raw_calls()
{
    for (size_t bytes : {size_t(64) << 10, size_t(1) << 20, size_t(16) << 20}) {
        void *p = nullptr;
        double mf = median_us(9, [&] {
            CU(cudaMalloc(&p, bytes));
            CU(cudaFree(p));
        });
        cudaMemPool_t pool;
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CU(cudaMemPoolCreate(&pool, &props));
        uint64_t keep = UINT64_MAX;
        CU(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        double pa = median_us(9, [&] {
            CU(cudaMallocFromPoolAsync(&p, bytes, pool, 0));
            CU(cudaFreeAsync(p, 0));
            CU(cudaStreamSynchronize(0));
        });
        CU(cudaMemPoolDestroy(pool));
        std::vector<char> host(bytes < (size_t(1) << 20) ? bytes : size_t(1) << 20, 1);
        CU(cudaMalloc(&p, host.size()));
        double cp = median_us(9, [&] { CU(cudaMemcpy(p, host.data(), host.size(), cudaMemcpyHostToDevice)); });
        CU(cudaFree(p));
        printf("raw %8zu KiB: cudaMalloc+cudaFree %8.1f us, pool alloc+free+sync %6.1f us, "
               "pageable copy of %zu KiB %6.1f us\n",
               bytes >> 10, mf, pa, host.size() >> 10, cp);
    }
}

static void one_problem(loom_context *ctx, const char *name, const loom_csr *A, int64_t m,
                        int64_t k, int n)
{
    void *x, *y;
    CU(cudaMalloc(&x, (size_t)k * n * 4));
    CU(cudaMalloc(&y, (size_t)m * n * 4));
    CU(cudaMemset(x, 0, (size_t)k * n * 4));
    loom_dense X, Y;
    LM(loom_dense_init(&X, k, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE, x));
    LM(loom_dense_init(&Y, m, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_DEVICE, y));
    auto opts_for = [&](const char *what) {
        loom_plan_options po;
        LM(loom_plan_options_init(&po));
        po.backend = LOOM_BACKEND_CUDA;
        if (!strcmp(what, "auto"))
            po.selector = LOOM_SELECT_AUTO;
        else if (!strcmp(what, "tune"))
            po.selector = LOOM_SELECT_TUNE;
        else {
            po.selector = LOOM_SELECT_FIXED;
            LM(loom_strategy_parse(what, &po.strategy));
        }
        return po;
    };
    loom_plan *plan = nullptr;
    loom_plan_options po = opts_for("auto");
    LM(loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &po));
    double spmm = median_us(21, [&] {
        LM(loom_spmm_execute(plan, 1.0, &X, 0.0, &Y));
        CU(cudaDeviceSynchronize());
    });
    loom_plan_destroy(&plan);
    printf("%s N=%d: one SpMM (auto's design, host clock incl. launch and sync) %.1f us\n", name, n,
           spmm);
    for (const char *what : {"rb-rm-pr:lanes=32,vdl", "rb-rm-sr:vdl,csc", "eb-rm-sr:chunk=32,vdl,csc",
                             "auto", "tune"}) {
        po = opts_for(what);
        double create = 0, destroy = 0;
        std::vector<double> c, d;
        for (int i = 0; i < 6; i++) {
            if (!strcmp(what, "tune"))
                LM(loom_tune_cache_clear());
            CU(cudaDeviceSynchronize());
            double t0 = now_us();
            if (loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &po) != LOOM_SUCCESS) {
                printf("  %-28s %s\n", what, loom_last_error());
                break;
            }
            double t1 = now_us();
            if (i == 5 && !strcmp(what, "tune")) {
                const char *e = loom_plan_explain(plan);
                const char *line = strstr(e, "tune:");
                if (line)
                    printf("  %.*s\n", (int)strcspn(line, "\n"), line);
            }
            loom_plan_destroy(&plan);
            double t2 = now_us();
            if (i > 0) { /* the first: warm-up */
                c.push_back(t1 - t0);
                d.push_back(t2 - t1);
            }
        }
        if (c.empty())
            continue;
        std::sort(c.begin(), c.end());
        std::sort(d.begin(), d.end());
        create = c[c.size() / 2];
        destroy = d[d.size() / 2];
        printf("  %-28s create %8.1f us (%6.1f SpMM)  destroy %7.1f us\n", what, create,
               create / spmm, destroy);
    }
    CU(cudaFree(x));
    CU(cudaFree(y));
}

static const char usage[] = "usage: plan_cost [--n N,...] FILE.mtx[.gz]...   (see plan_cost(1))\n";

int main(int argc, char **argv)
{
    std::vector<int> ns = {1, 16, 256};
    std::vector<std::string> files;
    static const char *const with_value[] = {"--n", NULL};
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        bool bad = false; /* an unknown option, a missing value, or a value that is not one */
        if (lacks_value("plan_cost", a.c_str(), with_value, i + 1 >= argc)) {
            bad = true;
        } else if (a == "--n") {
            int64_t list[64];
            const int count = count_list("plan_cost", "--n", argv[++i], 1, INT32_MAX, list, 64);
            bad = count < 0;
            ns.assign(list, list + (bad ? 0 : count));
        } else if (a == "--help" || a == "-h") {
            fputs(usage, stdout);
            return 0;
        } else if (a.rfind("-", 0) == 0) {
            fprintf(stderr, "plan_cost: unknown option '%s'\n", a.c_str());
            bad = true;
        } else {
            files.push_back(a);
        }
        if (bad) {
            fputs(usage, stderr);
            return 2;
        }
    }
    loom_context *ctx = nullptr;
    LM(loom_context_create(&ctx));
    setenv("LOOM_TUNE_CACHE", "/tmp/plan_cost_tune.txt", 0);
    raw_calls();
    for (const std::string &f : files) {
        loom_csr *Ah = nullptr, *A = nullptr;
        LM(loom_csr_read(ctx, f.c_str(), LOOM_F32, &Ah));
        int64_t m, k, nnz;
        LM(loom_csr_info(Ah, &m, &k, &nnz, nullptr, nullptr));
        LM(loom_csr_copy(ctx, Ah, LOOM_MEMORY_DEVICE, &A));
        std::string name = f.substr(f.rfind('/') + 1);
        printf("%s: %lld x %lld, %lld non-zeros\n", name.c_str(), (long long)m, (long long)k,
               (long long)nnz);
        for (int n : ns)
            one_problem(ctx, name.c_str(), A, m, k, n);
        loom_csr_destroy(&A);
        loom_csr_destroy(&Ah);
    }
    loom_context_destroy(&ctx);
    return 0;
}
