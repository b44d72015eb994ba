/* in-process A/B of the trial prefetch distance: one plan, LOOM_TRIAL_D set before each run */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "synthetic_inputs.h"
int main(int argc, char **argv)
{
    loom_context *ctx;
    loom_context_create(&ctx);
    int scale = atoi(argv[1]), rounds = atoi(argv[2]), nv = argc - 3;
    loom_csr *A = scale ? bench_rmat_matrix(ctx, scale, 4, 2) : bench_band_matrix(ctx, 1 << 20, 8);
    int64_t rows, cols, nnz;
    loom_dtype dt;
    loom_memory mem;
    loom_csr_info(A, &rows, &cols, &nnz, &dt, &mem);
    loom_dense X, Y, Y0;
    loom_dense_alloc(ctx, &X, cols, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    loom_dense_alloc(ctx, &Y, rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    loom_dense_alloc(ctx, &Y0, rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    loom_dense_fill_random(&X, 1);
    loom_plan *p;
    if (loom_spmm_plan_create(ctx, &p, A, &X, &Y, NULL)) { printf("plan failed %s\n", loom_last_error()); return 1; }
    printf("%s\n", loom_plan_explain(p));
    unsetenv("LOOM_TRIAL_D");
    loom_spmm_execute(p, 1.0, &X, 0.0, &Y0);
    double best[16];
    for (int v = 0; v < nv; v++) best[v] = 1e9;
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < nv; v++) {
            setenv("LOOM_TRIAL_D", argv[3 + v], 1);
            for (int k = 0; k < 5; k++) {
                double t0 = omp_get_wtime();
                loom_spmm_execute(p, 1.0, &X, 0.0, &Y);
                double t = omp_get_wtime() - t0;
                if (t < best[v]) best[v] = t;
            }
            if (memcmp(Y.data, Y0.data, rows * 4)) printf("DIFFERS at PF=%s\n", argv[3 + v]);
        }
    double floor_ms = ((nnz * 8.0 + rows * 8.0 + 8 + cols * 4.0 + rows * 4.0) / 28.3e9) * 1e3;
    for (int v = 0; v < nv; v++)
        printf("PF=%-4s best %.3f ms (%.0f%% of floor at 28.3 GB/s)\n", argv[3 + v], best[v] * 1e3, 100 * floor_ms / (best[v] * 1e3));
    return 0;
}
