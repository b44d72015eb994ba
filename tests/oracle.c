/* oracle.c - see oracle.h. */
#include "oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t offset(const loom_dense *d, int64_t i, int64_t j)
{
    return d->layout == LOOM_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
}

double dense_get(const loom_dense *d, int64_t i, int64_t j)
{
    int64_t k = offset(d, i, j);
    return d->dtype == LOOM_F32 ? ((const float *)d->data)[k] : ((const double *)d->data)[k];
}

void dense_set(loom_dense *d, int64_t i, int64_t j, double v)
{
    int64_t k = offset(d, i, j);
    if (d->dtype == LOOM_F32)
        ((float *)d->data)[k] = (float)v;
    else
        ((double *)d->data)[k] = v;
}

void dense_poison(loom_dense *d)
{
    int64_t outer = d->layout == LOOM_ROW_MAJOR ? d->rows : d->cols;
    int64_t total = outer * d->ld;
    for (int64_t k = 0; k < total; k++) {
        if (d->dtype == LOOM_F32)
            ((float *)d->data)[k] = NAN;
        else
            ((double *)d->data)[k] = NAN;
    }
}

bool oracle_check(const loom_csr *A, double alpha, const loom_dense *X, double beta,
                  const loom_dense *Y0, const loom_dense *Y, char *msg, size_t len)
{
    int64_t rows, cols, nnz;
    loom_dtype dtype;
    const int64_t *ro;
    const int32_t *ci;
    const void *vals;
    loom_csr_info(A, &rows, &cols, &nnz, &dtype, NULL);
    loom_csr_arrays(A, &ro, &ci, &vals);
    int64_t n = X->cols;
    long double *exact = calloc((size_t)(rows * n) + 1, sizeof *exact);
    long double *magnitude = calloc((size_t)(rows * n) + 1, sizeof *magnitude);
    int64_t *row_len = calloc((size_t)rows + 1, sizeof *row_len);
    bool ok = exact && magnitude && row_len;

    /* Triples, visited non-zero by non-zero; each product accumulates into
     * its own output, column by column. */
    for (int64_t r = 0; ok && r < rows; r++) {
        for (int64_t p = ro[r]; p < ro[r + 1]; p++) {
            long double a = dtype == LOOM_F32 ? ((const float *)vals)[p] : ((const double *)vals)[p];
            row_len[r]++;
            for (int64_t c = 0; c < n; c++) {
                long double x = dense_get(X, ci[p], c);
                exact[r * n + c] += a * x;
                magnitude[r * n + c] += fabsl(a * x);
            }
        }
    }
    double u = dtype == LOOM_F32 ? 0x1.0p-24 : 0x1.0p-53;
    for (int64_t r = 0; ok && r < rows; r++) {
        for (int64_t c = 0; c < n; c++) {
            long double want = (long double)alpha * exact[r * n + c];
            long double scale = fabsl((long double)alpha) * magnitude[r * n + c];
            if (beta != 0) {
                long double y0 = dense_get(Y0, r, c);
                want += (long double)beta * y0;
                scale += fabsl((long double)beta * y0);
            }
            long double bound = (long double)(row_len[r] + 2) * u * scale * 1.01L;
            double got = dense_get(Y, r, c);
            if (isnan(got) || fabsl((long double)got - want) > bound) {
                snprintf(msg, len, "Y(%lld,%lld) = %.17g, oracle %.17Lg, bound %.3Lg",
                         (long long)r, (long long)c, got, want, bound);
                ok = false;
                break;
            }
        }
    }
    free(exact);
    free(magnitude);
    free(row_len);
    return ok;
}
