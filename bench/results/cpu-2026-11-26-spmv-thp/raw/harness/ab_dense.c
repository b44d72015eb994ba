#include <loom.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#define DIE(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)
#define CHECK(call) do { loom_status st_ = (call); if (st_ != LOOM_SUCCESS) DIE("%s: %s", #call, loom_last_error()); } while (0)
#include "synthetic_inputs.h" /* bench/: the inputs cpu_bench generates */


static double now(void);
static double stream(int threads){size_t n=(96<<20)/8;double*a=malloc(n*8),*b=malloc(n*8),*c=malloc(n*8);
#pragma omp parallel for num_threads(threads)
for(size_t i=0;i<n;i++){a[i]=0;b[i]=1;c[i]=2;}
double best=1e30;for(int r=0;r<10;r++){double t0=now();
#pragma omp parallel for num_threads(threads)
for(size_t i=0;i<n;i++)a[i]=b[i]+0.5*c[i];
double t=now()-t0;if(t<best)best=t;}free(a);free(b);free(c);return 3.0*n*8/best;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
/* usage: spmvab scale threads rounds design "ENV=1,ENV2=1" "..." ... ; config "-" = no env */
int main(int argc, char **argv)
{
    int scale = atoi(argv[1]), threads = atoi(argv[2]), rounds = atoi(argv[3]);
    const char *design = argv[4];
    int nc = argc - 5;
    loom_context *ctx; CHECK(loom_context_create(&ctx)); CHECK(loom_context_set_threads(ctx, threads));
    loom_csr *A;
    if (scale == -1) A = bench_band_matrix(ctx, 1 << 20, 8);
    else if (scale > 0) A = bench_rmat_matrix(ctx, scale, 4, threads);
    else if (scale < -1) { /* R-MAT with its column labels permuted */
        loom_csr *B = bench_rmat_matrix(ctx, -scale, 4, threads);
        int64_t r_, c_, z_; const int64_t *ro; const int32_t *ci; const void *v;
        CHECK(loom_csr_info(B, &r_, &c_, &z_, NULL, NULL)); CHECK(loom_csr_arrays(B, &ro, &ci, &v));
        int32_t *nc = malloc(z_ * 4); float *nv = malloc(z_ * 4);
        for (int64_t k = 0; k < z_; k++) nc[k] = (int32_t)(((uint64_t)ci[k] * 2654435761u) & (c_ - 1));
        for (int64_t i = 0; i < r_; i++) { /* insertion sort each row with its values */
            for (int64_t k = ro[i]; k < ro[i+1]; k++) nv[k] = ((const float *)v)[k];
            for (int64_t k = ro[i] + 1; k < ro[i+1]; k++) { int32_t c = nc[k]; float w = nv[k]; int64_t j = k - 1;
                while (j >= ro[i] && nc[j] > c) { nc[j+1] = nc[j]; nv[j+1] = nv[j]; j--; } nc[j+1] = c; nv[j+1] = w; } }
        CHECK(loom_csr_create(ctx, &A, r_, c_, z_, LOOM_F32, ro, nc, nv));
        loom_csr_destroy(&B); free(nc); free(nv);
    }
    else CHECK(loom_csr_read(ctx, getenv("MTX"), LOOM_F32, &A));
    int64_t rows, cols, nnz; CHECK(loom_csr_info(A, &rows, &cols, &nnz, NULL, NULL));
    double bytes = nnz * 8.0 + (rows + 1) * 8.0 + cols * 4.0 + rows * 4.0;
    loom_dense X, Y, Yr;
    CHECK(loom_dense_alloc(ctx, &X, cols, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Y, rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Yr, rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_fill_random(&X, 42));
    loom_dense Xs, Ys;
    setenv("LOOM_HUGEPAGES", "0", 1);
    CHECK(loom_dense_alloc(ctx, &Xs, cols, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    CHECK(loom_dense_alloc(ctx, &Ys, rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST));
    unsetenv("LOOM_HUGEPAGES");
    memcpy(Xs.data, X.data, cols * 4);
    memset(Ys.data, 0, rows * 4);
    loom_plan_options o; CHECK(loom_plan_options_init(&o));
    o.selector = LOOM_SELECT_FIXED; CHECK(loom_strategy_parse(design, &o.strategy));
    o.backend = LOOM_BACKEND_REFERENCE;
    loom_plan *rp; CHECK(loom_spmm_plan_create(ctx, &rp, A, &X, &Yr, &o));
    CHECK(loom_spmm_execute(rp, 1.0, &X, 0.0, &Yr)); loom_plan_destroy(&rp);
    o.backend = LOOM_BACKEND_OPENMP;
    loom_plan *p[16]; double best[16], pt[16];
    for (int c = 0; c < nc; c++) {
        const char *arg = argv[5 + c]; if (!strncmp(arg, "small:", 6)) arg += 6;
        char buf[512]; snprintf(buf, sizeof buf, "%s", arg);
        char *saveptr, *tok; char *names[16]; int nn = 0;
        if (strcmp(buf, "-"))
            for (tok = strtok_r(buf, ",", &saveptr); tok; tok = strtok_r(NULL, ",", &saveptr)) {
                char *eq = strchr(tok, '='); *eq = 0; setenv(tok, eq + 1, 1); names[nn++] = tok; }
        double t0 = now();
        CHECK(loom_spmm_plan_create(ctx, &p[c], A, &X, &Y, &o));
        pt[c] = now() - t0;
        { const char *e = strstr(loom_plan_explain(p[c]), "openmp:"); if (e) printf("[%d] %s\n", c, e); }
        for (int k = 0; k < nn; k++) unsetenv(names[k]);
        memset(Y.data, 0xff, rows * 4);
        CHECK(loom_spmm_execute(p[c], 1.0, &X, 0.0, &Y));
        if (memcmp(Y.data, Yr.data, rows * 4)) printf("config %d: BITS DIFFER\n", c);
        best[c] = 1e30;
    }
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < nc; c++)
            for (int k = 0; k < 5; k++) {
                const int sm = !strncmp(argv[5 + c], "small:", 6);
                double t0 = now(); loom_spmm_execute(p[c], 1.0, sm ? &Xs : &X, 0.0, sm ? &Ys : &Y); double t = now() - t0;
                if (t < best[c]) best[c] = t;
            }
    double bw = stream(threads);
    printf("stream %.2f GB/s; floor %.3f ms\n", bw / 1e9, bytes / bw * 1e3);
    printf("rows %lld nnz %lld bytes %.1f MB\n", (long long)rows, (long long)nnz, bytes / 1e6);
    for (int c = 0; c < nc; c++)
        printf("%-50s plan %7.1f ms  exec %8.3f ms  %.2f GB/s eff  %3.0f%% floor\n", argv[5 + c], pt[c] * 1e3, best[c] * 1e3, bytes / best[c] / 1e9, 100 * bytes / bw / best[c]);
    return 0;
}
