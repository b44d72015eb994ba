/* test_matrices.c - see test_matrices.h. */
#include "test_matrices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const test_unittest_files[] = {
    "LFAT5.mtx", "arrow_klu.mtx", "dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.mtx", "email-Eu-core.mtx",
    "jagmesh7.mtx", "karate.mtx", "lp_afiro.mtx", "west0067.mtx", NULL};

static const char *const shape_names[SHAPE_COUNT] = {"uniform", "empty-rows", "dense-row",
                                                     "power-law", "tall", "wide"};

const char *test_shape_name(test_shape shape)
{
    return shape_names[shape];
}

uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Row i's length for the shape. */
static int64_t row_length(test_shape shape, int64_t i, int64_t rows, int64_t cols, uint64_t *state)
{
    switch (shape) {
    case SHAPE_EMPTY_ROWS:
        return (i % 2 == 0 || i == rows - 1) ? 0 : 1 + (int64_t)(test_rand(state) % 9);
    case SHAPE_DENSE_ROW:
        return i == rows / 3 ? cols : 1 + (int64_t)(test_rand(state) % 4);
    case SHAPE_POWER_LAW: {
        /* length ~ cols / rank^1.2, ranks shuffled */
        double rank = 1.0 + (double)(test_rand(state) % (uint64_t)rows);
        double len = (double)cols / (rank * (rank > 1 ? 1.5 : 1.0));
        int64_t l = (int64_t)len;
        return l < cols ? l : cols;
    }
    default:
        return 1 + (int64_t)(test_rand(state) % 12);
    }
}

loom_csr *test_matrix_make(loom_context *ctx, test_shape shape, loom_dtype dtype, uint64_t seed)
{
    uint64_t state = seed * 7919 + (uint64_t)shape;
    int64_t rows = 300, cols = 280;
    if (shape == SHAPE_TALL) {
        rows = 900;
        cols = 37;
    } else if (shape == SHAPE_WIDE) {
        rows = 41;
        cols = 1500;
    } else if (shape == SHAPE_DENSE_ROW) {
        rows = 200;
        cols = 700;
    }
    int64_t *ro = malloc(sizeof *ro * (size_t)(rows + 1));
    ro[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t len = row_length(shape, i, rows, cols, &state);
        if (len > cols)
            len = cols;
        ro[i + 1] = ro[i] + len;
    }
    int64_t nnz = ro[rows];
    int32_t *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    void *v = malloc(loom_dtype_size(dtype) * (size_t)(nnz + 1));
    char *used = calloc((size_t)cols, 1);
    for (int64_t i = 0; i < rows; i++) {
        int64_t len = ro[i + 1] - ro[i];
        /* distinct random columns: a dense row takes them all */
        memset(used, 0, (size_t)cols);
        for (int64_t k = 0; k < len; k++) {
            int32_t c;
            do
                c = (int32_t)(test_rand(&state) % (uint64_t)cols);
            while (used[c] && len < cols);
            if (len == cols)
                c = (int32_t)k;
            used[c] = 1;
            ci[ro[i] + k] = c;
        }
        qsort(ci + ro[i], (size_t)len, sizeof *ci, cmp_int32);
    }
    for (int64_t p = 0; p < nnz; p++) {
        double x = (double)(test_rand(&state) >> 11) * 0x1.0p-52 - 1.0;
        if (dtype == LOOM_F32)
            ((float *)v)[p] = (float)x;
        else
            ((double *)v)[p] = x;
    }
    loom_csr *A = NULL;
    loom_status st = loom_csr_create(ctx, &A, rows, cols, nnz, dtype, ro, ci, v);
    if (st != LOOM_SUCCESS)
        fprintf(stderr, "test_matrix_make(%s): %s\n", shape_names[shape], loom_last_error());
    free(ro);
    free(ci);
    free(v);
    free(used);
    return A;
}

loom_csr *test_matrix_with_lengths(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols, int64_t *ro,
                                   uint64_t *state)
{
    const int64_t nnz = ro[rows];
    int32_t *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    void *v = malloc((size_t)(nnz ? nnz : 1) * 8);
    char *used = calloc((size_t)(cols ? cols : 1), 1);
    loom_csr *A = NULL;
    if (!ci || !v || !used) {
        fprintf(stderr, "test_matrix_with_lengths: out of memory\n");
        goto out;
    }
    for (int64_t i = 0; i < rows; i++) {
        int64_t len = ro[i + 1] - ro[i], k = 0;
        if (len * 2 > cols) { /* dense-ish: every column with probability */
            for (int64_t c = 0; c < cols && k < len; c++)
                if ((int64_t)(test_rand(state) % (uint64_t)(cols - c)) < len - k)
                    ci[ro[i] + k++] = (int32_t)c;
        } else {
            while (k < len) {
                int32_t c = (int32_t)(test_rand(state) % (uint64_t)cols);
                if (!used[c]) {
                    used[c] = 1;
                    ci[ro[i] + k++] = c;
                }
            }
            for (int64_t j = ro[i]; j < ro[i + 1]; j++)
                used[ci[j]] = 0;
            qsort(ci + ro[i], (size_t)len, sizeof *ci, cmp_int32);
        }
    }
    for (int64_t j = 0; j < nnz; j++) {
        uint64_t r = test_rand(state);
        double x = (double)(r >> 11) * 0x1.0p-52 - 1.0;
        if (r % 97 == 0)
            x = 0.0;
        else if (r % 89 == 0)
            x = -0.0;
        if (dtype == LOOM_F32)
            ((float *)v)[j] = (float)x;
        else
            ((double *)v)[j] = x;
    }
    if (loom_csr_create(ctx, &A, rows, cols, nnz, dtype, ro, ci, v) != LOOM_SUCCESS)
        fprintf(stderr, "test_matrix_with_lengths: %s\n", loom_last_error());
out:
    free(ro);
    free(ci);
    free(v);
    free(used);
    return A;
}

loom_csr *test_matrix_read(loom_context *ctx, const char *name, loom_dtype dtype)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/unittest/%s", LOOM_SRCDIR, name);
    loom_csr *A = NULL;
    if (loom_csr_read(ctx, path, dtype, &A) != LOOM_SUCCESS) {
        fprintf(stderr, "test_matrix_read(%s): %s\n", path, loom_last_error());
        return NULL;
    }
    return A;
}
