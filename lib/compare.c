/*
 * compare.c - compare two dense results element by element: how many bits
 * differ, where first, and the largest distance in units in the last place.
 */
#include "config.h"
#include "loom_internal.h"
#include "tc_round.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Map a float's bits onto a line where adjacent floats differ by 1. */
static int64_t ordered_f32(float x)
{
    int32_t i;
    memcpy(&i, &x, 4);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}

static int64_t ordered_f64(double x)
{
    int64_t i;
    memcpy(&i, &x, 8);
    return i < 0 ? INT64_MIN - i : i;
}

static uint64_t distance(int64_t a, int64_t b)
{
    return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

static double as_double(const void *p, loom_dtype dtype);

/* 16-bit formats: sign and magnitude, like the wider ones. */
static int64_t ordered_16(uint16_t h)
{
    return (h & 0x8000) ? -(int64_t)(h & 0x7fff) : (int64_t)h;
}

static uint64_t ulp_distance(const void *pa, const void *pb, loom_dtype dtype)
{
    double a = as_double(pa, dtype), b = as_double(pb, dtype);
    if (isnan(a) || isnan(b))
        return (isnan(a) && isnan(b)) ? 0 : UINT64_MAX;
    if (dtype == LOOM_F32)
        return distance(ordered_f32((float)a), ordered_f32((float)b));
    if (dtype == LOOM_F64)
        return distance(ordered_f64(a), ordered_f64(b));
    return distance(ordered_16(*(const uint16_t *)pa), ordered_16(*(const uint16_t *)pb));
}

static double as_double(const void *p, loom_dtype dtype)
{
    switch (dtype) {
    case LOOM_F32: return *(const float *)p;
    case LOOM_F64: return *(const double *)p;
    case LOOM_F16: return tc_f16_to_f32(*(const uint16_t *)p);
    case LOOM_BF16: return tc_bf16_to_f32(*(const uint16_t *)p);
    }
    return 0;
}

loom_status loom_dense_compare(const loom_dense *a, const loom_dense *b, loom_compare_result *r)
{
    loom_status st = loom__check_dense(a, "a", "loom_dense_compare");
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(b, "b", "loom_dense_compare");
    if (st != LOOM_SUCCESS)
        return st;
    if (!r)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dense_compare: result is NULL");
    if (a->memory != LOOM_MEMORY_HOST || b->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "loom_dense_compare: both matrices must be in host memory");
    if (a->rows != b->rows || a->cols != b->cols || a->dtype != b->dtype)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "loom_dense_compare: %" PRId64 " x %" PRId64 " %s against %" PRId64
                           " x %" PRId64 " %s",
                           a->rows, a->cols, loom_dtype_name(a->dtype), b->rows, b->cols,
                           loom_dtype_name(b->dtype));
    memset(r, 0, sizeof *r);
    r->first_row = r->first_col = -1;
    size_t es = loom_dtype_size(a->dtype);
    for (int64_t i = 0; i < a->rows; i++) {
        for (int64_t j = 0; j < a->cols; j++) {
            const char *pa = (const char *)a->data + loom__dense_offset(a, i, j) * es;
            const char *pb = (const char *)b->data + loom__dense_offset(b, i, j) * es;
            if (memcmp(pa, pb, es) == 0)
                continue;
            if (r->differing++ == 0) {
                r->first_row = i;
                r->first_col = j;
                r->first_a = as_double(pa, a->dtype);
                r->first_b = as_double(pb, a->dtype);
            }
            uint64_t u = ulp_distance(pa, pb, a->dtype);
            if (u > r->max_ulp)
                r->max_ulp = u;
            double diff = fabs(as_double(pa, a->dtype) - as_double(pb, a->dtype));
            if (diff > r->max_abs_diff || isnan(diff))
                r->max_abs_diff = diff;
        }
    }
    return LOOM_SUCCESS;
}
