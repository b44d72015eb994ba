/* dual_util.c - see dual_util.h. */
#include "dual_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint64_t dual_rand(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state)
{
    return (double)(dual_rand(state) >> 11) / 9007199254740992.0;
}

static int64_t offset(const loom_dense *d, int64_t i, int64_t j)
{
    return d->layout == LOOM_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
}

double dual_get(const loom_dense *d, int64_t i, int64_t j)
{
    return d->dtype == LOOM_F32 ? ((const float *)d->data)[offset(d, i, j)]
                                : ((const double *)d->data)[offset(d, i, j)];
}

void dual_set(loom_dense *d, int64_t i, int64_t j, double v)
{
    if (d->dtype == LOOM_F32)
        ((float *)d->data)[offset(d, i, j)] = (float)v;
    else
        ((double *)d->data)[offset(d, i, j)] = v;
}

loom_status dual_random_dense(loom_context *ctx, loom_dense *d, int64_t rows, int64_t cols,
                              double density, loom_dtype dtype, loom_layout layout, uint64_t seed)
{
    loom_status st = loom_dense_alloc(ctx, d, rows, cols, layout, dtype, LOOM_MEMORY_HOST);
    if (st != LOOM_SUCCESS)
        return st;
    uint64_t s = seed;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = 0;
            if (uniform(&s) < density) {
                v = 2 * uniform(&s) - 1;
                if ((float)v == 0)
                    v = 0.5;
            }
            dual_set(d, i, j, v);
        }
    return LOOM_SUCCESS;
}

bool dual_oracle_gemm(const loom_dense *A, const loom_dense *B, double alpha, double beta,
                      const loom_dense *C0, const loom_dense *C, char *msg, size_t len)
{
    double u = A->dtype == LOOM_F32 ? ldexp(1, -24) : ldexp(1, -53);
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t j = 0; j < B->cols; j++) {
            long double sum = 0, mag = 0;
            int64_t n = 0;
            for (int64_t k = 0; k < A->cols; k++) {
                long double p = (long double)dual_get(A, i, k) * dual_get(B, k, j);
                if (dual_get(A, i, k) != 0 && dual_get(B, k, j) != 0)
                    n++;
                sum += p;
                mag += fabsl(p);
            }
            long double c0 = beta != 0 ? dual_get(C0, i, j) : 0;
            long double want = alpha * sum + beta * c0;
            long double bound = (n + 2) * u * (fabs(alpha) * mag + fabs(beta) * fabsl(c0)) * 1.01L;
            double got = dual_get(C, i, j);
            if (!(fabsl(got - want) <= bound)) {
                snprintf(msg, len, "C(%lld, %lld) = %.17g, oracle %.17Lg, bound %.3Lg",
                         (long long)i, (long long)j, got, want, bound);
                return false;
            }
        }
    return true;
}

bool dual_oracle_conv(const loom_conv_shape *s, const loom_dense *X, const loom_dense *Wt,
                      double alpha, double beta, const loom_dense *Y0, const loom_dense *Y,
                      char *msg, size_t len)
{
    double u = X->dtype == LOOM_F32 ? ldexp(1, -24) : ldexp(1, -53);
    int64_t P = (s->height + 2 * s->pad_h - s->dilation_h * (s->kernel_h - 1) - 1) / s->stride_h + 1;
    int64_t Q = (s->width + 2 * s->pad_w - s->dilation_w * (s->kernel_w - 1) - 1) / s->stride_w + 1;
    for (int64_t n = 0; n < s->batch; n++)
        for (int64_t f = 0; f < s->filters; f++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < Q; q++) {
                    long double sum = 0, mag = 0;
                    int64_t terms = 0;
                    for (int64_t c = 0; c < s->channels; c++)
                        for (int64_t r = 0; r < s->kernel_h; r++)
                            for (int64_t t = 0; t < s->kernel_w; t++) {
                                int64_t h = p * s->stride_h - s->pad_h + r * s->dilation_h;
                                int64_t w = q * s->stride_w - s->pad_w + t * s->dilation_w;
                                if (h < 0 || h >= s->height || w < 0 || w >= s->width)
                                    continue;
                                double x = dual_get(X, (n * s->channels + c) * s->height + h, w);
                                double k = dual_get(Wt, f, (c * s->kernel_h + r) * s->kernel_w + t);
                                long double prod = (long double)x * k;
                                terms += x != 0 && k != 0;
                                sum += prod;
                                mag += fabsl(prod);
                            }
                    int64_t row = (n * s->filters + f) * P + p;
                    long double c0 = beta != 0 ? dual_get(Y0, row, q) : 0;
                    long double want = alpha * sum + beta * c0;
                    long double bound =
                        (terms + 2) * u * (fabs(alpha) * mag + fabs(beta) * fabsl(c0)) * 1.01L;
                    double got = dual_get(Y, row, q);
                    if (!(fabsl(got - want) <= bound)) {
                        snprintf(msg, len,
                                 "Y(n %lld, f %lld, p %lld, q %lld) = %.17g, oracle %.17Lg, bound %.3Lg",
                                 (long long)n, (long long)f, (long long)p, (long long)q, got, want,
                                 bound);
                        return false;
                    }
                }
    return true;
}

bool dual_same_bitmap(const loom_bitmap *want, const loom_bitmap *got, char *msg, size_t len)
{
    loom_bitmap_view a, b;
    if (loom_bitmap_view_get(want, &a) != LOOM_SUCCESS ||
        loom_bitmap_view_get(got, &b) != LOOM_SUCCESS) {
        snprintf(msg, len, "not a bitmap: %s", loom_last_error());
        return false;
    }
    const int64_t tiles = a.tile_rows * a.tile_cols;
    const char *what = NULL;
    if (a.rows != b.rows || a.cols != b.cols || a.nnz != b.nnz || a.layout != b.layout) {
        snprintf(msg, len, "%lldx%lld with %lld non-zeros, reference %lldx%lld with %lld",
                 (long long)b.rows, (long long)b.cols, (long long)b.nnz, (long long)a.rows,
                 (long long)a.cols, (long long)a.nnz);
        return false;
    }
    if (memcmp(a.tile_bits, b.tile_bits, (size_t)((tiles + 63) / 64) * sizeof(uint64_t)))
        what = "tile bits";
    else if (memcmp(a.masks, b.masks, (size_t)(tiles * LOOM_BITMAP_TILE) * sizeof(uint32_t)))
        what = "masks";
    else if (memcmp(a.tile_offsets, b.tile_offsets, (size_t)(tiles + 1) * sizeof(int64_t)))
        what = "tile offsets";
    else if (memcmp(a.values, b.values, (size_t)a.nnz * loom_dtype_size(a.dtype)))
        what = "values";
    if (what)
        snprintf(msg, len, "%s differ", what);
    return what == NULL;
}
