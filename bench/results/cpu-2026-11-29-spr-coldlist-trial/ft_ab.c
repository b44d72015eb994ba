/* ft_ab.c SCALE ROUNDS - R-MAT SpMV with two plans made in one process:
 * x relabeled in main's order, and with LOOM_TRIAL_FT=$FT (default 1) set
 * while the second plan is made (trial_first_touch.patch); best of 5 runs
 * a round, rounds alternating; the Ys compared with memcmp. */
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
    int scale = atoi(argv[1]), rounds = atoi(argv[2]);
    loom_csr *A = bench_rmat_matrix(ctx, scale, 4, 2);
    int64_t rows, cols, nnz;
    loom_dtype dt;
    loom_memory mem;
    loom_csr_info(A, &rows, &cols, &nnz, &dt, &mem);
    loom_dense X, Y[2];
    loom_dense_alloc(ctx, &X, cols, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    for (int v = 0; v < 2; v++)
        loom_dense_alloc(ctx, &Y[v], rows, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST);
    loom_dense_fill_random(&X, 1);
    loom_plan *p[2];
    for (int v = 0; v < 2; v++) {
        if (v) setenv("LOOM_TRIAL_FT", getenv("FT") ? getenv("FT") : "1", 1); else unsetenv("LOOM_TRIAL_FT");
        if (loom_spmm_plan_create(ctx, &p[v], A, &X, &Y[v], NULL)) { printf("plan failed %s\n", loom_last_error()); return 1; }
        printf("%s\n", loom_plan_explain(p[v]));
    }
    double best[2] = {1e9, 1e9};
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < 2; v++)
            for (int k = 0; k < 5; k++) {
                double t0 = omp_get_wtime();
                loom_spmm_execute(p[v], 1.0, &X, 0.0, &Y[v]);
                double t = omp_get_wtime() - t0;
                if (t < best[v]) best[v] = t;
            }
    double floor_ms = ((nnz * 8.0 + rows * 8.0 + 8 + cols * 4.0 + rows * 4.0) / 28.3e9) * 1e3;
    printf("same bits: %s\n", memcmp(Y[0].data, Y[1].data, rows * 4) ? "NO" : "yes");
    for (int v = 0; v < 2; v++)
        printf("%s best %.3f ms (%.0f%% of floor at 28.3 GB/s)\n", v ? "first touch" : "A's order  ", best[v] * 1e3, 100 * floor_ms / (best[v] * 1e3));
    return 0;
}
