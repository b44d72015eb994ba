/*
 * dense.c - dense matrix descriptors: checking, allocation, copies between
 * layouts and memories, seeded random fill.
 */
#include "config.h"
#include "loom_internal.h"
#include "tc_round.h"

#include <inttypes.h>
#include <string.h>

/* Elements spanned by the descriptor: the last element's offset + 1. */
static bool dense_span(const loom_dense *d, size_t *elements)
{
    if (d->rows == 0 || d->cols == 0) {
        *elements = 0;
        return true;
    }
    int64_t outer = d->layout == LOOM_ROW_MAJOR ? d->rows : d->cols;
    int64_t inner = d->layout == LOOM_ROW_MAJOR ? d->cols : d->rows;
    size_t span;
    if (!loom__mul_size((size_t)(outer - 1), (size_t)d->ld, &span))
        return false;
    if (__builtin_add_overflow(span, (size_t)inner, elements))
        return false;
    size_t bytes;
    return loom__mul_size(*elements, 8, &bytes);
}

loom_status loom__check_dense(const loom_dense *d, const char *what, const char *fn)
{
    if (!d)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: %s is NULL", fn, what);
    if (d->rows < 0 || d->cols < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: %s has negative size %" PRId64 " x %" PRId64, fn, what, d->rows,
                           d->cols);
    if (d->layout != LOOM_ROW_MAJOR && d->layout != LOOM_COL_MAJOR)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: %s has layout %d (not row- or column-major)",
                           fn, what, (int)d->layout);
    if (loom_dtype_size(d->dtype) == 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: %s has dtype %d (not f32, f64, f16 or bf16)",
                           fn, what, (int)d->dtype);
    if (d->memory != LOOM_MEMORY_HOST && d->memory != LOOM_MEMORY_DEVICE)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: %s has memory kind %d", fn, what,
                           (int)d->memory);
    int64_t inner = d->layout == LOOM_ROW_MAJOR ? d->cols : d->rows;
    if (d->ld < (inner > 1 ? inner : 1))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: %s has leading dimension %" PRId64 ", needs at least %" PRId64
                           " for its %s layout",
                           fn, what, d->ld, inner > 1 ? inner : 1,
                           d->layout == LOOM_ROW_MAJOR ? "row-major" : "column-major");
    size_t elements;
    if (!dense_span(d, &elements))
        return loom__error(LOOM_ERR_OVERFLOW, "%s: %s (%" PRId64 " x %" PRId64 ", ld %" PRId64
                           ") overflows the address space", fn, what, d->rows, d->cols, d->ld);
    if (elements > 0 && !d->data)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: %s has no data", fn, what);
    return LOOM_SUCCESS;
}

loom_status loom_dense_init(loom_dense *d, int64_t rows, int64_t cols, int64_t ld, loom_layout layout,
                            loom_dtype dtype, loom_memory memory, void *data)
{
    if (!d)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dense_init: d is NULL");
    loom_dense t = {rows, cols, ld, layout, dtype, memory, data};
    loom_status st = loom__check_dense(&t, "the descriptor", "loom_dense_init");
    if (st != LOOM_SUCCESS)
        return st;
    *d = t;
    return LOOM_SUCCESS;
}

loom_status loom_dense_alloc(loom_context *ctx, loom_dense *d, int64_t rows, int64_t cols,
                             loom_layout layout, loom_dtype dtype, loom_memory memory)
{
    loom_status st = loom__check_context(ctx, "loom_dense_alloc");
    if (st != LOOM_SUCCESS)
        return st;
    if (!d)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dense_alloc: d is NULL");
    int64_t inner = layout == LOOM_ROW_MAJOR ? cols : rows;
    loom_dense t = {rows, cols, inner > 1 ? inner : 1, layout, dtype, memory, NULL};
    /* Check the shape with a placeholder pointer, then allocate. */
    t.data = (void *)1;
    st = loom__check_dense(&t, "the new matrix", "loom_dense_alloc");
    if (st != LOOM_SUCCESS)
        return st;
    size_t bytes = (size_t)rows * (size_t)cols * loom_dtype_size(dtype);
    if (memory == LOOM_MEMORY_DEVICE) {
        const loom_backend *dev = loom__device_backend();
        if (!dev)
            return loom_backend_available(LOOM_BACKEND_CUDA);
        st = dev->mem_alloc(&t.data, bytes);
        if (st != LOOM_SUCCESS)
            return st;
    } else {
        t.data = loom__malloc(bytes);
        if (!t.data)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                               "loom_dense_alloc: out of memory for %" PRId64 " x %" PRId64, rows, cols);
    }
    *d = t;
    return LOOM_SUCCESS;
}

loom_status loom_dense_free(loom_context *ctx, loom_dense *d)
{
    loom_status st = loom__check_context(ctx, "loom_dense_free");
    if (st != LOOM_SUCCESS)
        return st;
    if (!d)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dense_free: d is NULL");
    if (d->memory == LOOM_MEMORY_DEVICE) {
        const loom_backend *dev = loom__device_backend();
        if (d->data && dev)
            st = dev->mem_free(d->data);
    } else {
        loom__free(d->data);
    }
    d->data = NULL;
    return st;
}

static loom_status copy_elementwise(const loom_dense *src, loom_dense *dst)
{
    size_t es = loom_dtype_size(src->dtype);
    for (int64_t i = 0; i < src->rows; i++)
        for (int64_t j = 0; j < src->cols; j++)
            memcpy((char *)dst->data + loom__dense_offset(dst, i, j) * es,
                   (const char *)src->data + loom__dense_offset(src, i, j) * es, es);
    return LOOM_SUCCESS;
}

loom_status loom_dense_copy(loom_context *ctx, const loom_dense *src, loom_dense *dst)
{
    loom_status st = loom__check_context(ctx, "loom_dense_copy");
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(src, "src", "loom_dense_copy");
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(dst, "dst", "loom_dense_copy");
    if (st != LOOM_SUCCESS)
        return st;
    if (src->rows != dst->rows || src->cols != dst->cols || src->dtype != dst->dtype)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "loom_dense_copy: src is %" PRId64 " x %" PRId64 " %s, dst is %" PRId64
                           " x %" PRId64 " %s",
                           src->rows, src->cols, loom_dtype_name(src->dtype), dst->rows, dst->cols,
                           loom_dtype_name(dst->dtype));
    if (src->memory == LOOM_MEMORY_HOST && dst->memory == LOOM_MEMORY_HOST)
        return copy_elementwise(src, dst);
    const loom_backend *dev = loom__device_backend();
    if (!dev)
        return loom_backend_available(LOOM_BACKEND_CUDA);
    bool same_shape = src->layout == dst->layout && src->ld == dst->ld;
    if (!same_shape)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "loom_dense_copy: copies to or from device memory need the same layout "
                           "and leading dimension on both sides");
    size_t elements = 0;
    dense_span(src, &elements);
    return dev->mem_copy(dst->data, dst->memory, src->data, src->memory,
                         elements * loom_dtype_size(src->dtype), ctx->stream);
}

/* splitmix64: a small, well-mixed, seedable generator. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

loom_status loom_dense_fill_random(loom_dense *d, uint64_t seed)
{
    loom_status st = loom__check_dense(d, "d", "loom_dense_fill_random");
    if (st != LOOM_SUCCESS)
        return st;
    if (d->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "loom_dense_fill_random: fill a host matrix and copy it to the device");
    uint64_t state = seed;
    for (int64_t i = 0; i < d->rows; i++) {
        for (int64_t j = 0; j < d->cols; j++) {
            /* Uniform in [-1, 1), as many random bits as the type holds,
             * so the conversion never rounds up to 1. */
            uint64_t bits = splitmix64(&state);
            int64_t k = loom__dense_offset(d, i, j);
            float f = (float)(bits >> 40) * 0x1.0p-23f - 1.0f;
            if (d->dtype == LOOM_F32)
                ((float *)d->data)[k] = f;
            else if (d->dtype == LOOM_F64)
                ((double *)d->data)[k] = (double)(bits >> 11) * 0x1.0p-52 - 1.0;
            else if (d->dtype == LOOM_F16) /* m * 2^-10: exact in fp16's 11 bits */
                ((uint16_t *)d->data)[k] = tc_f32_to_f16((float)(bits >> 53) * 0x1.0p-10f - 1.0f);
            else /* m * 2^-7: exact in bfloat16's 8 bits */
                ((uint16_t *)d->data)[k] = tc_f32_to_bf16((float)(bits >> 57) * 0x1.0p-7f - 1.0f);
        }
    }
    return LOOM_SUCCESS;
}
