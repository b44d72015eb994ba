/*
 * dual_device.cu - the CUDA dual backend's device memory: is there a
 * device, what an error code means, and the bitmaps and CSR matrices in
 * device memory (allocation, upload, download, free).  No kernels.
 */
#include "cuda_upload.h"
#include "dual_cuda.h"

#include <cuda_runtime.h>

namespace {

constexpr int T = LOOM_BITMAP_TILE;

int64_t tiles_of(int64_t n) { return (n + T - 1) / T; }

/* cudaMalloc that leaves *p NULL on failure. */
template <typename P> cudaError_t device_alloc(P **p, size_t bytes)
{
    void *q = nullptr;
    cudaError_t e = cudaMalloc(&q, bytes ? bytes : 1);
    *p = e == cudaSuccess ? static_cast<P *>(q) : nullptr;
    return e;
}

} // namespace

extern "C" int loom__dual_cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        *why = cudaGetErrorString(e);
        cudaGetLastError();
        return -(int)e;
    }
    *why = n ? "" : "no CUDA device";
    return n;
}

extern "C" const char *loom__dual_cuda_error_string(int code)
{
    return cudaGetErrorString((cudaError_t)code);
}

extern "C" int loom__dual_cuda_is_oom(int code)
{
    return code == (int)cudaErrorMemoryAllocation;
}

extern "C" int loom__dual_cuda_malloc(size_t bytes, void **p)
{
    return (int)device_alloc(p, bytes);
}

extern "C" void loom__dual_cuda_free(void *p)
{
    cudaFree(p);
}

extern "C" int loom__dual_cuda_sync(void *stream)
{
    cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return (int)e;
}

extern "C" void loom__dual_cuda_bitmap_free(dual_cuda_bitmap *b)
{
    cudaFree(b->tile_bits);
    cudaFree(b->masks);
    cudaFree(b->tile_offsets);
    cudaFree(b->line_offsets);
    cudaFree(b->values);
    b->tile_bits = nullptr;
    b->masks = nullptr;
    b->tile_offsets = nullptr;
    b->line_offsets = nullptr;
    b->values = nullptr;
}

extern "C" int loom__dual_cuda_upload(int64_t rows, int64_t cols, int64_t tile_rows,
                                      int64_t tile_cols, int64_t nnz, const uint64_t *tile_bits,
                                      const uint32_t *masks, const int64_t *tile_offsets,
                                      const int32_t *line_offsets, const void *values,
                                      size_t elem_size, dual_cuda_bitmap *out)
{
    dual_cuda_bitmap b = {rows, cols, tile_rows, tile_cols, 0,
                          nullptr, nullptr, nullptr, nullptr, nullptr};
    const size_t tiles = (size_t)(tile_rows * tile_cols);
    const size_t bit_bytes = (tiles + 63) / 64 * sizeof(uint64_t);
    const size_t mask_bytes = tiles * T * sizeof(uint32_t);
    const size_t off_bytes = (tiles + 1) * sizeof(int64_t);
    const size_t val_bytes = (size_t)nnz * elem_size;
    cudaError_t e;
    if ((e = device_alloc(&b.tile_bits, bit_bytes)) != cudaSuccess ||
        (e = device_alloc(&b.masks, mask_bytes)) != cudaSuccess ||
        (e = device_alloc(&b.tile_offsets, off_bytes)) != cudaSuccess ||
        (line_offsets && (e = device_alloc(&b.line_offsets, mask_bytes)) != cudaSuccess) ||
        (e = device_alloc(&b.values, val_bytes)) != cudaSuccess ||
        (e = cudaMemcpy(b.tile_bits, tile_bits, bit_bytes, cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = cudaMemcpy(b.masks, masks, mask_bytes, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(b.tile_offsets, tile_offsets, off_bytes, cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (line_offsets && (e = cudaMemcpy(b.line_offsets, line_offsets, mask_bytes,
                                         cudaMemcpyHostToDevice)) != cudaSuccess) ||
        (e = cudaMemcpy(b.values, values, val_bytes, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = loomcu_uploads_landed()) != cudaSuccess) {
        loom__dual_cuda_bitmap_free(&b);
        return (int)e;
    }
    *out = b;
    return 0;
}

extern "C" int loom__dual_cuda_bitmap_alloc_padded(int64_t rows, int64_t cols, size_t elem_size,
                                                   dual_cuda_bitmap *out)
{
    dual_cuda_bitmap b = {rows, cols, tiles_of(rows), tiles_of(cols), DUAL_CUDA_TILE_VALUES,
                          nullptr, nullptr, nullptr, nullptr, nullptr};
    const size_t tiles = (size_t)(b.tile_rows * b.tile_cols);
    cudaError_t e;
    if ((e = device_alloc(&b.tile_bits, (tiles + 63) / 64 * sizeof(uint64_t))) != cudaSuccess ||
        (e = device_alloc(&b.masks, tiles * T * sizeof(uint32_t))) != cudaSuccess ||
        (e = device_alloc(&b.line_offsets, tiles * T * sizeof(int32_t))) != cudaSuccess ||
        (e = device_alloc(&b.values, tiles * DUAL_CUDA_TILE_VALUES * elem_size)) != cudaSuccess) {
        loom__dual_cuda_bitmap_free(&b);
        return (int)e;
    }
    *out = b;
    return 0;
}

extern "C" int loom__dual_cuda_bitmap_download(const dual_cuda_bitmap *b, size_t elem_size,
                                               uint64_t *tile_bits, uint32_t *masks,
                                               void *padded_values, void *stream_ptr)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    const size_t tiles = (size_t)(b->tile_rows * b->tile_cols);
    cudaError_t e;
    if (!tiles)
        return 0;
    if ((e = cudaMemcpyAsync(tile_bits, b->tile_bits, (tiles + 63) / 64 * sizeof(uint64_t),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaMemcpyAsync(masks, b->masks, tiles * T * sizeof(uint32_t),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaMemcpyAsync(padded_values, b->values,
                             tiles * DUAL_CUDA_TILE_VALUES * elem_size, cudaMemcpyDeviceToHost,
                             stream)) != cudaSuccess)
        return (int)e;
    return (int)cudaStreamSynchronize(stream);
}

extern "C" void loom__dual_cuda_csr_free(dual_cuda_csr *c)
{
    cudaFree(c->row_offsets);
    cudaFree(c->col_indices);
    cudaFree(c->values);
    c->row_offsets = nullptr;
    c->col_indices = nullptr;
    c->values = nullptr;
}

extern "C" int loom__dual_cuda_csr_alloc(int64_t rows, int64_t cols, int64_t capacity,
                                         size_t elem_size, dual_cuda_csr *out)
{
    dual_cuda_csr c = {rows, cols, nullptr, nullptr, nullptr};
    cudaError_t e;
    if ((e = device_alloc(&c.row_offsets, (size_t)(rows + 1) * sizeof(int64_t))) != cudaSuccess ||
        (e = device_alloc(&c.col_indices, (size_t)capacity * sizeof(int32_t))) != cudaSuccess ||
        (e = device_alloc(&c.values, (size_t)capacity * elem_size)) != cudaSuccess) {
        loom__dual_cuda_csr_free(&c);
        return (int)e;
    }
    *out = c;
    return 0;
}

extern "C" int loom__dual_cuda_csr_upload(int64_t rows, int64_t cols, int64_t nnz,
                                          const int64_t *row_offsets, const int32_t *col_indices,
                                          const void *values, size_t elem_size, dual_cuda_csr *out)
{
    dual_cuda_csr c;
    int rc = loom__dual_cuda_csr_alloc(rows, cols, nnz, elem_size, &c);
    if (rc)
        return rc;
    cudaError_t e;
    if ((e = cudaMemcpy(c.row_offsets, row_offsets, (size_t)(rows + 1) * sizeof(int64_t),
                        cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(c.col_indices, col_indices, (size_t)nnz * sizeof(int32_t),
                        cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(c.values, values, (size_t)nnz * elem_size, cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = loomcu_uploads_landed()) != cudaSuccess) {
        loom__dual_cuda_csr_free(&c);
        return (int)e;
    }
    *out = c;
    return 0;
}

extern "C" int loom__dual_cuda_csr_nnz(const dual_cuda_csr *c, int64_t *nnz, void *stream_ptr)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    cudaError_t e = cudaMemcpyAsync(nnz, c->row_offsets + c->rows, sizeof(int64_t),
                                    cudaMemcpyDeviceToHost, stream);
    return (int)(e != cudaSuccess ? e : cudaStreamSynchronize(stream));
}

extern "C" int loom__dual_cuda_csr_download(const dual_cuda_csr *c, int64_t nnz, size_t elem_size,
                                            int64_t *row_offsets, int32_t *col_indices,
                                            void *values, void *stream_ptr)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    cudaError_t e;
    if ((e = cudaMemcpyAsync(row_offsets, c->row_offsets, (size_t)(c->rows + 1) * sizeof(int64_t),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (nnz && (e = cudaMemcpyAsync(col_indices, c->col_indices, (size_t)nnz * sizeof(int32_t),
                                     cudaMemcpyDeviceToHost, stream)) != cudaSuccess) ||
        (nnz && (e = cudaMemcpyAsync(values, c->values, (size_t)nnz * elem_size,
                                     cudaMemcpyDeviceToHost, stream)) != cudaSuccess))
        return (int)e;
    return (int)cudaStreamSynchronize(stream);
}
