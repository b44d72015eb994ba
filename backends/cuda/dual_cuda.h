/*
 * dual_cuda.h - between the CUDA dual backend's C descriptor
 * (dual_cuda_backend.c) and its kernels (dual_gemm.cu): plain C types only.
 */
#ifndef LOOM_DUAL_CUDA_H
#define LOOM_DUAL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A bitmap's arrays in device memory. */
typedef struct dual_cuda_bitmap {
    int64_t rows, cols, tile_rows, tile_cols, nnz;
    uint64_t *tile_bits;
    uint32_t *masks;
    int64_t *tile_offsets;
    void *values;
} dual_cuda_bitmap;

/* The device count, or a negative CUDA error code (no driver, no device). */
int loom__dual_cuda_device_count(const char **why);
/* Copy a host bitmap's arrays to the device; 0 or a CUDA error code. */
int loom__dual_cuda_upload(int64_t rows, int64_t cols, int64_t tile_rows, int64_t tile_cols,
                           int64_t nnz, const uint64_t *tile_bits, const uint32_t *masks,
                           const int64_t *tile_offsets, const void *values, size_t elem_size,
                           dual_cuda_bitmap *out);
void loom__dual_cuda_free(dual_cuda_bitmap *b);
/* C = alpha*A*B + beta*C in the order of loom__ref_dual_gemm.  C is
 * device memory when c_on_device, else host memory (copied in and out).
 * Element (i, j) of C is C[i*ldc + j] (row-major) or C[i + j*ldc]. */
int loom__dual_cuda_gemm(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, int f64,
                         double alpha, double beta, void *C, int64_t ldc, int col_major,
                         int c_on_device, void *stream);
const char *loom__dual_cuda_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif
