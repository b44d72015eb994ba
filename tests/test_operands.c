/* test_operands.c - see test_operands.h. */
#include "test_operands.h"

#include <stdlib.h>
#include <string.h>

#include "test_matrices.h"

size_t dense_bytes(const loom_dense *d)
{
    int64_t outer = d->layout == LOOM_ROW_MAJOR ? d->rows : d->cols;
    return (size_t)(outer * d->ld) * loom_dtype_size(d->dtype);
}

void dense_make(loom_dense *d, int64_t rows, int64_t cols, loom_layout layout, loom_dtype dtype,
                int64_t pad)
{
    int64_t ld = (layout == LOOM_ROW_MAJOR ? cols : rows) + pad;
    if (ld < 1)
        ld = 1;
    int64_t outer = layout == LOOM_ROW_MAJOR ? rows : cols;
    size_t bytes = (size_t)(outer * ld) * loom_dtype_size(dtype);
    void *data = malloc(bytes ? bytes : 1);
    assert_non_null(data);
    memset(data, 0x5a, bytes);
    CHECK(loom_dense_init(d, rows, cols, ld, layout, dtype, LOOM_MEMORY_HOST, data));
}

void dense_to_device(loom_context *ctx, const loom_dense *host, loom_dense *dev)
{
    loom_dense whole;
    int64_t outer = host->layout == LOOM_ROW_MAJOR ? host->rows : host->cols;
    if (host->layout == LOOM_ROW_MAJOR)
        CHECK(loom_dense_alloc(ctx, &whole, outer, host->ld, LOOM_ROW_MAJOR, host->dtype,
                               LOOM_MEMORY_DEVICE));
    else
        CHECK(loom_dense_alloc(ctx, &whole, host->ld, outer, LOOM_COL_MAJOR, host->dtype,
                               LOOM_MEMORY_DEVICE));
    CHECK(loom_dense_init(dev, host->rows, host->cols, host->ld, host->layout, host->dtype,
                          LOOM_MEMORY_DEVICE, whole.data));
    /* The padding travels too: copy the whole buffer as one matrix. */
    loom_dense hw = whole;
    hw.memory = LOOM_MEMORY_HOST;
    hw.data = host->data;
    CHECK(loom_dense_copy(ctx, &hw, &whole));
}

void dense_to_host(loom_context *ctx, const loom_dense *dev, loom_dense *host)
{
    loom_dense whole = *dev, hw;
    int64_t outer = dev->layout == LOOM_ROW_MAJOR ? dev->rows : dev->cols;
    if (dev->layout == LOOM_ROW_MAJOR)
        whole.rows = outer, whole.cols = dev->ld;
    else
        whole.rows = dev->ld, whole.cols = outer;
    hw = whole;
    hw.memory = LOOM_MEMORY_HOST;
    hw.data = host->data;
    CHECK(loom_dense_copy(ctx, &whole, &hw));
}

loom_csr *skewed_matrix_capped(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols,
                               int64_t max_len, int64_t long_row, int64_t long_len,
                               int empty_percent, uint64_t seed)
{
    uint64_t st = seed;
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    assert_non_null(ro);
    ro[0] = 0;
    for (int64_t i = 0; i < rows; i++) {
        double u = (double)((test_rand(&st) >> 11) + 1) * 0x1.0p-53;
        int64_t len = (int64_t)(0.7 / (u * u)) % (max_len + 1);
        if ((empty_percent > 0 && (int)(test_rand(&st) % 100) < empty_percent) || (i / 37) % 5 == 4)
            len = 0;
        if (i == long_row)
            len = long_len;
        ro[i + 1] = ro[i] + len;
    }
    loom_csr *A = test_matrix_with_lengths(ctx, dtype, rows, cols, ro, &st);
    assert_non_null(A);
    return A;
}

loom_csr *skewed_matrix(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols,
                        int64_t long_row, int64_t long_len, int empty_percent, uint64_t seed)
{
    return skewed_matrix_capped(ctx, dtype, rows, cols, cols / 4, long_row, long_len, empty_percent,
                                seed);
}
