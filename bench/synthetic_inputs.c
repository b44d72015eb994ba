/*
 * synthetic_inputs.c - the generated SpMV inputs of the benchmarks, the
 * same bits on any machine and thread count (see synthetic_inputs.h).
 * A benchmark's inputs: on failure they print why and exit.
 */
#include "synthetic_inputs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("synthetic input: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}
#define DIE(...) die(__VA_ARGS__)
#define CHECK(call)                                                                              \
    do {                                                                                         \
        if ((call) != LOOM_SUCCESS)                                                              \
            DIE("%s: %s", #call, loom_last_error());                                             \
    } while (0)

/* The square f32 matrix of the arrays (loom copies them), which are then
 * freed. */
static loom_csr *csr_from_arrays(loom_context *ctx, int64_t n, int64_t nnz, int64_t *ro,
                                 int32_t *ci, float *v)
{
    loom_csr *A = NULL;
    CHECK(loom_csr_create(ctx, &A, n, n, nnz, LOOM_F32, ro, ci, v));
    free(ro);
    free(ci);
    free(v);
    return A;
}

/* A banded random matrix far larger than the LLC, for the SpMV
 * bandwidth check (the real set tops out near 1e6 non-zeros). */
loom_csr *bench_band_matrix(loom_context *ctx, int64_t rows, int per_row)
{
    int64_t nnz = rows * per_row;
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    int32_t *ci = malloc((size_t)nnz * sizeof *ci);
    float *v = malloc((size_t)nnz * sizeof *v);
    if (!ro || !ci || !v)
        DIE("out of memory for the synthetic matrix");
    uint64_t s = 12345;
    for (int64_t i = 0; i <= rows; i++)
        ro[i] = i * per_row;
    for (int64_t i = 0; i < rows; i++) {
        int64_t base = i - 2048 < 0 ? 0 : (i + 2048 >= rows ? rows - 4096 : i - 2048);
        int64_t step = 4096 / per_row;
        for (int k = 0; k < per_row; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            ci[i * per_row + k] = (int32_t)(base + k * step + (int64_t)((s >> 33) % (uint64_t)step));
            v[i * per_row + k] = (float)((s >> 40) & 0xffff) / 65536.0f - 0.5f;
        }
    }
    return csr_from_arrays(ctx, rows, nnz, ro, ci, v);
}

/* splitmix64 (Steele, Lea and Flood 2014): the state steps by a constant,
 * so after k draws it is seed + k * gamma, and a block of draws can start
 * anywhere in the sequence without running the ones before it. */
#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define RMAT_SEED 20261122u
#define RMAT_BLOCKS 256 /* of edges, drawn in parallel; the result does not depend on it */

/* An R-MAT matrix (Chakrabarti, Zhan and Faloutsos 2004), 2^scale square:
 * edge_factor * 2^scale edges, each placed by descending `scale` levels of
 * the quadrants with probabilities a, b, c, d = 0.57, 0.19, 0.19, 0.05 (b
 * right, c down), one splitmix64 draw per level, from one fixed seed; no
 * noise and no permutation of the labels.  Repeated edges are kept once,
 * columns are sorted within a row, and the values are the next draws of the
 * same sequence, in CSR order, as k / 2^23 - 1 for k in [0, 2^24): exact in
 * float, in [-1, 1).  The same bits on any machine and thread count.  Skewed
 * rows (scale 21: longest 20245 entries, 68% empty, 76% of the entries in
 * the first half of the rows) with the column pattern of power-law graphs:
 * the irregular counterpart of the band for the SpMV bandwidth check. */
loom_csr *bench_rmat_matrix(loom_context *ctx, int scale, int edge_factor, int threads)
{
    const int64_t n = (int64_t)1 << scale, edges = (int64_t)edge_factor << scale;
    const int64_t per_block = edges / RMAT_BLOCKS; /* exact: scale >= 8 */
    const double two64 = 18446744073709551616.0;
    const uint64_t ta = (uint64_t)(0.57 * two64), tab = (uint64_t)((0.57 + 0.19) * two64),
                   tabc = (uint64_t)((0.57 + 0.19 + 0.19) * two64);
    if (scale < 8 || scale > 30)
        DIE("R-MAT scale %d is out of 8..30", scale);
    int32_t *er = malloc((size_t)edges * sizeof *er), *ec = malloc((size_t)edges * sizeof *ec);
    if (!er || !ec)
        DIE("out of memory for the R-MAT edges");
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int b = 0; b < RMAT_BLOCKS; b++) {
        uint64_t s = RMAT_SEED + (uint64_t)(b * per_block * scale) * SPLITMIX_GAMMA;
        for (int64_t e = b * per_block; e < (b + 1) * per_block; e++) {
            uint32_t r = 0, c = 0;
            for (int l = scale - 1; l >= 0; l--) {
                uint64_t u = splitmix64(&s);
                if (u >= tabc) {
                    r |= 1u << l;
                    c |= 1u << l;
                } else if (u >= tab) {
                    r |= 1u << l;
                } else if (u >= ta) {
                    c |= 1u << l;
                }
            }
            er[e] = (int32_t)r;
            ec[e] = (int32_t)c;
        }
    }
    /* Two counting sorts, by column and then stably by row: columns come
     * out sorted within each row, in O(edges). */
    int64_t *cstart = calloc((size_t)n + 1, sizeof *cstart);
    int64_t *ro = calloc((size_t)n + 1, sizeof *ro), *next = malloc((size_t)n * sizeof *next);
    int32_t *by_col = malloc((size_t)edges * sizeof *by_col); /* each edge's row, by column */
    int32_t *ci = malloc((size_t)edges * sizeof *ci);
    if (!cstart || !ro || !next || !by_col || !ci)
        DIE("out of memory for the R-MAT matrix");
    for (int64_t e = 0; e < edges; e++) {
        cstart[ec[e] + 1]++;
        ro[er[e] + 1]++;
    }
    for (int64_t i = 0; i < n; i++) {
        cstart[i + 1] += cstart[i];
        ro[i + 1] += ro[i];
    }
    memcpy(next, cstart, (size_t)n * sizeof *next);
    for (int64_t e = 0; e < edges; e++)
        by_col[next[ec[e]]++] = er[e];
    free(er);
    free(ec);
    memcpy(next, ro, (size_t)n * sizeof *next);
    for (int64_t c = 0; c < n; c++)
        for (int64_t k = cstart[c]; k < cstart[c + 1]; k++)
            ci[next[by_col[k]]++] = (int32_t)c;
    free(by_col);
    free(cstart);
    free(next);
    int64_t nnz = 0;
    for (int64_t i = 0, start = 0; i < n; i++) {
        int64_t end = ro[i + 1];
        ro[i] = nnz;
        for (int64_t k = start; k < end; k++)
            if (k == start || ci[k] != ci[k - 1])
                ci[nnz++] = ci[k];
        start = end;
    }
    ro[n] = nnz;
    float *v = malloc((size_t)(nnz ? nnz : 1) * sizeof *v);
    if (!v)
        DIE("out of memory for the R-MAT values");
    uint64_t s = RMAT_SEED + (uint64_t)(edges * scale) * SPLITMIX_GAMMA;
    for (int64_t k = 0; k < nnz; k++)
        v[k] = (float)(int32_t)(splitmix64(&s) >> 40) / 8388608.0f - 1.0f;
    return csr_from_arrays(ctx, n, nnz, ro, ci, v);
}
