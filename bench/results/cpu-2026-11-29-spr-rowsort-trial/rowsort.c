/* Experiment: does ordering rows inside y-windows by their coldest x' column
 * cut R-MAT s22 SpMV time?  Same per-row order (bits), rows permuted. */
#include <loom.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "synthetic_inputs.h"

static int64_t *gkey;
static int cmpk(const void *a, const void *b)
{
    int64_t x = gkey[*(const int64_t *)a], y = gkey[*(const int64_t *)b];
    return x < y ? -1 : x > y ? 1 : (*(const int64_t *)a < *(const int64_t *)b ? -1 : 1);
}
static int64_t *gdeg;
static int cmpd(const void *a, const void *b)
{
    int64_t x = gdeg[*(const int32_t *)a], y = gdeg[*(const int32_t *)b];
    return x > y ? -1 : x < y ? 1 : (*(const int32_t *)a < *(const int32_t *)b ? -1 : 1);
}

/* rows stored in walk order: row k of the copy is row order[k] of A */
static double run(const int64_t *ro, const int32_t *ci, const float *v, const float *x, float *y,
                  const int64_t *order, int64_t m, int reps)
{
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(2)
        for (int64_t k = 0; k < m; k++) {
            float acc = 0.0f;
            for (int64_t j = ro[k]; j < ro[k + 1]; j++)
                acc = fmaf(v[j], x[ci[j]], acc);
            y[order ? order[k] : k] = acc;
        }
        double t = omp_get_wtime() - t0;
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 22;
    int64_t W = argc > 2 ? atoll(argv[2]) : 262144;
    loom_context *ctx;
    loom_context_create(&ctx);
    loom_csr *A = bench_rmat_matrix(ctx, scale, 4, 2);
    int64_t m, n, nnz;
    loom_csr_info(A, &m, &n, &nnz, NULL, NULL);
    const int64_t *ro; const int32_t *ci0; const void *vv;
    loom_csr_arrays(A, &ro, &ci0, &vv);
    const float *v = vv;
    /* relabel: hot (quarter of a 2 MiB L2 = 131072 floats) by degree, then others in order, empties dropped */
    int64_t *deg = calloc(n, sizeof *deg);
    for (int64_t j = 0; j < nnz; j++) deg[ci0[j]]++;
    int32_t *bydeg = malloc(n * sizeof *bydeg);
    for (int64_t c = 0; c < n; c++) bydeg[c] = (int32_t)c;
    gdeg = deg; qsort(bydeg, n, sizeof *bydeg, cmpd);
    const int64_t H = 131072;
    int32_t *lab = malloc(n * sizeof *lab);
    for (int64_t c = 0; c < n; c++) lab[c] = -1;
    int64_t next = 0;
    for (int64_t k = 0; k < H && k < n && deg[bydeg[k]] > 0; k++) lab[bydeg[k]] = (int32_t)next++;
    for (int64_t c = 0; c < n; c++) if (lab[c] < 0 && deg[c] > 0) lab[c] = (int32_t)next++;
    int32_t *ci = malloc(nnz * sizeof *ci);
    for (int64_t j = 0; j < nnz; j++) ci[j] = lab[ci0[j]];
    float *x = malloc(next * sizeof *x), *y = malloc(m * sizeof *y), *y0 = malloc(m * sizeof *y0);
    for (int64_t c = 0; c < next; c++) x[c] = (float)((c * 2654435761u) % 1000) / 1000.0f;
    printf("scale %d: m %ld nnz %ld x' %ld KiB\n", scale, (long)m, (long)nnz, (long)(next * 4 / 1024));
    /* keys: the row's largest label past the hot group, -1 if none */
    int64_t *key = malloc(m * sizeof *key), *order = malloc(m * sizeof *order);
    for (int64_t i = 0; i < m; i++) {
        int64_t k = -1;
        for (int64_t j = ro[i]; j < ro[i + 1]; j++) if (ci[j] >= H && ci[j] > k) k = ci[j];
        key[i] = k; order[i] = i;
    }
    gkey = key;
    for (int64_t w0 = 0; w0 < m; w0 += W) {
        int64_t w1 = w0 + W < m ? w0 + W : m;
        qsort(order + w0, w1 - w0, sizeof *order, cmpk);
    }
    int64_t *ro2 = malloc((m + 1) * sizeof *ro2);
    int32_t *ci2 = malloc(nnz * sizeof *ci2);
    float *v2 = malloc(nnz * sizeof *v2);
    ro2[0] = 0;
    for (int64_t k = 0; k < m; k++) {
        int64_t i = order[k], len = ro[i + 1] - ro[i];
        memcpy(ci2 + ro2[k], ci + ro[i], len * 4);
        memcpy(v2 + ro2[k], v + ro[i], len * 4);
        ro2[k + 1] = ro2[k] + len;
    }
    double floor_ms = (nnz * 8.0 + m * 8.0 + n * 4.0 + m * 4.0) / 28.3e9 * 1e3;
    for (int round = 0; round < 3; round++) {
        double ta = run(ro, ci, v, x, y0, NULL, m, 8);
        double tb = run(ro2, ci2, v2, x, y, order, m, 8);
        printf("natural %.2f ms (%.0f%%)  windows of %ld sorted by coldest column %.2f ms (%.0f%%)  %s\n",
               ta * 1e3, 100 * floor_ms / (ta * 1e3), (long)W, tb * 1e3, 100 * floor_ms / (tb * 1e3),
               memcmp(y, y0, m * 4) ? "DIFFER" : "same bits");
    }
    return 0;
}
