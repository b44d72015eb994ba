/*
 * csr.c - the CSR matrix handle: made from the caller's arrays (copied and
 * validated), or adopted from the readers, copied between host and device.
 */
#include "config.h"
#include "loom_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

loom_status loom__check_csr(const loom_csr *A, const char *fn)
{
    if (!A)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: matrix is NULL", fn);
    if (A->magic != LOOM_MAGIC_CSR)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: matrix is not a live loom_csr (freed or uninitialised)", fn);
    return LOOM_SUCCESS;
}

static void free_host_arrays(loom_csr *A)
{
    loom__free(A->row_offsets);
    loom__free(A->col_indices);
    loom__free(A->values);
}

static void free_arrays(loom_csr *A)
{
    if (A->memory == LOOM_MEMORY_DEVICE) {
        const loom_backend *dev = loom__device_backend();
        if (dev) {
            dev->mem_free(A->row_offsets);
            dev->mem_free(A->col_indices);
            dev->mem_free(A->values);
        }
        loom__free(A->host_row_offsets);
    } else {
        free_host_arrays(A);
    }
}

static loom_status check_dtype(loom_dtype dtype, const char *fn)
{
    if (loom_dtype_size(dtype) == 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: dtype %d is not f32, f64, f16 or bf16",
                           fn, (int)dtype);
    return LOOM_SUCCESS;
}

/* The handle around arrays already owned; `validated` skips the O(nnz) check
 * when the caller has just made it. */
static loom_status adopt(loom_context *ctx, int64_t rows, int64_t cols, int64_t nnz,
                         loom_dtype dtype, int64_t *row_offsets, int32_t *col_indices, void *values,
                         const char *origin, bool validated, loom_csr **A)
{
    loom_csr tmp = {0};
    tmp.row_offsets = row_offsets;
    tmp.col_indices = col_indices;
    tmp.values = values;
    loom_status st = loom__check_context(ctx, "loom__csr_adopt");
    if (st == LOOM_SUCCESS)
        st = check_dtype(dtype, "loom__csr_adopt");
    if (st == LOOM_SUCCESS && !validated) {
        st = loom_csr_validate(rows, cols, nnz, row_offsets, col_indices);
        if (st != LOOM_SUCCESS && origin) {
            char message[1024];
            snprintf(message, sizeof message, "%s", loom_last_error());
            loom__error(st, "%s: %s", origin, message);
        }
    }
    loom_csr *m = NULL;
    if (st == LOOM_SUCCESS) {
        m = loom__calloc(1, sizeof *m);
        if (!m)
            st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_csr: out of memory for the handle");
    }
    if (st != LOOM_SUCCESS) {
        free_host_arrays(&tmp);
        return st;
    }
    *m = tmp;
    m->magic = LOOM_MAGIC_CSR;
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    m->dtype = dtype;
    m->memory = LOOM_MEMORY_HOST;
    m->owner = *ctx;
    *A = m;
    return LOOM_SUCCESS;
}

loom_status loom__csr_adopt(loom_context *ctx, int64_t rows, int64_t cols, int64_t nnz,
                            loom_dtype dtype, int64_t *row_offsets, int32_t *col_indices,
                            void *values, const char *origin, loom_csr **A)
{
    return adopt(ctx, rows, cols, nnz, dtype, row_offsets, col_indices, values, origin, false, A);
}

loom_status loom_csr_create(loom_context *ctx, loom_csr **A, int64_t rows, int64_t cols,
                            int64_t nnz, loom_dtype dtype, const int64_t *row_offsets,
                            const int32_t *col_indices, const void *values)
{
    if (!A)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_create: A is NULL");
    *A = NULL;
    loom_status st = loom__check_context(ctx, "loom_csr_create");
    if (st == LOOM_SUCCESS)
        st = check_dtype(dtype, "loom_csr_create");
    if (st == LOOM_SUCCESS)
        st = loom_csr_validate(rows, cols, nnz, row_offsets, col_indices);
    if (st == LOOM_SUCCESS && !values && nnz > 0)
        st = loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_create: values is NULL with nnz %" PRId64,
                         nnz);
    if (st != LOOM_SUCCESS)
        return st;

    size_t offsets_bytes = ((size_t)rows + 1) * sizeof(int64_t);
    size_t index_bytes = (size_t)nnz * sizeof(int32_t);
    size_t value_bytes = (size_t)nnz * loom_dtype_size(dtype);
    int64_t *ro = loom__malloc(offsets_bytes);
    int32_t *ci = loom__malloc(index_bytes);
    void *v = loom__malloc(value_bytes);
    if (!ro || !ci || !v) {
        loom__free(ro);
        loom__free(ci);
        loom__free(v);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                           "loom_csr_create: out of memory copying %" PRId64 " non-zeros", nnz);
    }
    memcpy(ro, row_offsets, offsets_bytes);
    if (nnz > 0) {
        memcpy(ci, col_indices, index_bytes);
        memcpy(v, values, value_bytes);
    }
    return adopt(ctx, rows, cols, nnz, dtype, ro, ci, v, NULL, true, A);
}

loom_status loom_csr_destroy(loom_csr **A)
{
    if (!A)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_destroy: A is NULL");
    if (!*A)
        return LOOM_SUCCESS;
    loom_status st = loom__check_csr(*A, "loom_csr_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    free_arrays(*A);
    (*A)->magic = LOOM_MAGIC_FREED;
    loom__free(*A);
    *A = NULL;
    return LOOM_SUCCESS;
}

/* Copy the three arrays to (or from) device memory through the device backend. */
static loom_status copy_arrays(const loom_backend *dev, const loom_csr *src, loom_csr *dst,
                               void *stream)
{
    size_t sizes[3] = {((size_t)src->rows + 1) * sizeof(int64_t),
                       (size_t)src->nnz * sizeof(int32_t),
                       (size_t)src->nnz * loom_dtype_size(src->dtype)};
    const void *from[3] = {src->row_offsets, src->col_indices, src->values};
    void **to[3] = {(void **)&dst->row_offsets, (void **)&dst->col_indices, &dst->values};
    for (int k = 0; k < 3; k++) {
        loom_status st;
        if (dst->memory == LOOM_MEMORY_DEVICE) {
            st = dev->mem_alloc(to[k], sizes[k]);
        } else {
            *to[k] = loom__malloc(sizes[k]);
            st = *to[k] ? LOOM_SUCCESS
                        : loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_csr_copy: out of host memory");
        }
        if (st != LOOM_SUCCESS)
            return st;
        if (dev)
            st = dev->mem_copy(*to[k], dst->memory, from[k], src->memory, sizes[k], stream);
        else
            memcpy(*to[k], from[k], sizes[k]);
        if (st != LOOM_SUCCESS)
            return st;
    }
    return LOOM_SUCCESS;
}

loom_status loom_csr_copy(loom_context *ctx, const loom_csr *A, loom_memory memory, loom_csr **copy)
{
    if (!copy)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_copy: copy is NULL");
    *copy = NULL;
    loom_status st = loom__check_context(ctx, "loom_csr_copy");
    if (st == LOOM_SUCCESS)
        st = loom__check_csr(A, "loom_csr_copy");
    if (st != LOOM_SUCCESS)
        return st;
    if (memory != LOOM_MEMORY_HOST && memory != LOOM_MEMORY_DEVICE)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "loom_csr_copy: memory %d is not host or device",
                           (int)memory);
    const loom_backend *dev = NULL;
    if (memory == LOOM_MEMORY_DEVICE || A->memory == LOOM_MEMORY_DEVICE) {
        dev = loom__device_backend();
        if (!dev)
            return loom_backend_available(LOOM_BACKEND_CUDA);
    }
    loom_csr *m = loom__calloc(1, sizeof *m);
    if (!m)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_csr_copy: out of memory");
    *m = *A;
    m->row_offsets = NULL;
    m->col_indices = NULL;
    m->values = NULL;
    m->host_row_offsets = NULL;
    m->memory = memory;
    m->owner = *ctx;
    st = copy_arrays(dev, A, m, ctx->stream);
    if (st == LOOM_SUCCESS && memory == LOOM_MEMORY_DEVICE) {
        size_t bytes = ((size_t)A->rows + 1) * sizeof(int64_t);
        const int64_t *host = A->memory == LOOM_MEMORY_HOST ? A->row_offsets : A->host_row_offsets;
        m->host_row_offsets = loom__malloc(bytes);
        if (m->host_row_offsets)
            memcpy(m->host_row_offsets, host, bytes);
        else
            st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_csr_copy: out of host memory");
    }
    if (st != LOOM_SUCCESS) {
        free_arrays(m);
        loom__free(m);
        return st;
    }
    m->magic = LOOM_MAGIC_CSR;
    *copy = m;
    return LOOM_SUCCESS;
}

loom_status loom_csr_info(const loom_csr *A, int64_t *rows, int64_t *cols, int64_t *nnz,
                          loom_dtype *dtype, loom_memory *memory)
{
    loom_status st = loom__check_csr(A, "loom_csr_info");
    if (st != LOOM_SUCCESS)
        return st;
    if (rows)
        *rows = A->rows;
    if (cols)
        *cols = A->cols;
    if (nnz)
        *nnz = A->nnz;
    if (dtype)
        *dtype = A->dtype;
    if (memory)
        *memory = A->memory;
    return LOOM_SUCCESS;
}

loom_status loom_csr_arrays(const loom_csr *A, const int64_t **row_offsets,
                            const int32_t **col_indices, const void **values)
{
    loom_status st = loom__check_csr(A, "loom_csr_arrays");
    if (st != LOOM_SUCCESS)
        return st;
    if (row_offsets)
        *row_offsets = A->row_offsets;
    if (col_indices)
        *col_indices = A->col_indices;
    if (values)
        *values = A->values;
    return LOOM_SUCCESS;
}
