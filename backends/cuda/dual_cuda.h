/*
 * dual_cuda.h - between the CUDA dual backend's C descriptor
 * (dual_cuda_backend.c) and its device code (dual_*.cu): plain C types.
 *
 * Every int-returning function gives 0 or a cudaError_t code (its message
 * is loom__dual_cuda_error_string(code)).  Work is queued on `stream`
 * (a cudaStream_t, NULL for the default stream); functions that return
 * host data synchronize it.
 *
 * The files behind it, one job each:
 *   dual_device.cu        device count, errors, allocation, upload, download
 *   dual_gemm.cu          the dual-side GEMM (loom__ref_dual_gemm's order)
 *   dual_lines.cu         its line walk (zero-safe operands)
 *   dual_bitmap_build.cu  bitmaps built on the device (from dense, from CSR)
 *   dual_csr_build.cu     CSR built on the device (from dense), the one scan
 *   dual_im2col.cu        the three im2col strategies (reference/dual_im2col.c)
 *   dual_conv.cu          the convolution pipeline: upload X, im2col, GEMM, Y
 * The benchmark (bench/dual_gpu_bench.cu) calls the stages directly.
 */
#ifndef LOOM_DUAL_CUDA_H
#define LOOM_DUAL_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loom.h"
#include "loom/bitmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A bitmap's arrays in device memory (the format of loom/bitmap.h).
 * Packed (tile_stride 0): the values are contiguous, tile t's first at
 * tile_offsets[t], as on the host.  Padded (tile_stride 1024, the bitmaps
 * built on the device): tile t's values start at t*1024, so no prefix sum
 * over tiles is needed to place them; inside a tile the order is the
 * format's (line by line, bit by bit) and tile_offsets is NULL.
 * line_offsets (tiles*32, optional): where each line's values start inside
 * its tile; the im2col gathers need it. */
typedef struct dual_cuda_bitmap {
    int64_t rows, cols, tile_rows, tile_cols;
    int64_t tile_stride;
    uint64_t *tile_bits;   /* (tiles + 63) / 64 words */
    uint32_t *masks;       /* tiles * 32 */
    int64_t *tile_offsets; /* tiles + 1, packed only */
    int32_t *line_offsets; /* tiles * 32, or NULL */
    void *values;
} dual_cuda_bitmap;

/* A CSR matrix in device memory (int64 row offsets, int32 columns). */
typedef struct dual_cuda_csr {
    int64_t rows, cols;
    int64_t *row_offsets; /* rows + 1 */
    int32_t *col_indices;
    void *values;
} dual_cuda_csr;

#define DUAL_CUDA_TILE_VALUES 1024 /* the tile stride of padded bitmaps */

/* The GEMM's block tile (rows x columns of C per 256-thread block).  Only
 * the speed depends on it, never the bits. */
enum {
    DUAL_CUDA_TILE_AUTO = 0,
    DUAL_CUDA_TILE_64X256 = 1, /* f32 only */
    DUAL_CUDA_TILE_32X256 = 2, /* f32, basic kernel only */
    DUAL_CUDA_TILE_32X128 = 3, /* basic kernel only */
    DUAL_CUDA_TILE_64X128 = 4  /* pipelined kernel only */
};

/* Which GEMM kernel: the pipelined one (dual_gemm_pipe_kernel.cuh, the
 * default) or the first, basic one (dual_gemm_kernel.cuh), kept for
 * comparison.  Never the bits. */
enum { DUAL_CUDA_KERNEL_PIPE = 0, DUAL_CUDA_KERNEL_BASIC = 1, DUAL_CUDA_KERNEL_LINES = 2 };

/* How a warp of the basic kernel walks k for its 4 rows: over the union
 * of their masks (4 rows per shared load), row by row (fewer products when
 * rows are sparse), or whichever is cheaper for each group and k-tile.
 * Never the bits. */
enum { DUAL_CUDA_WALK_AUTO = 0, DUAL_CUDA_WALK_UNION = 1, DUAL_CUDA_WALK_ROWS = 2 };

/* The line walk (dual_lines.cu): the sparse side's lists on the device,
 * in groups of r lines of C (loom_dual_groups: list.rows = groups,
 * list.cols = K, r values per entry), the geometry of the other
 * side (dual_cuda_side, as loom_dual_side: tile (ct, kt) is tile number
 * ct*sc + kt*sk of its bitmap) and the scratch E it is expanded into
 * (k_tiles*32 x lde, lde a multiple of loom__dual_cuda_lines_width). */
typedef struct dual_cuda_side {
    int64_t cross, k_tiles, cross_tiles, sc, sk;
} dual_cuda_side;
typedef struct dual_cuda_lines {
    int rows; /* lines are C's rows (A's lists, E from B), else its columns */
    int r;    /* lines a group (a warp): list.rows groups, list.values r a k */
    int64_t lines;
    dual_cuda_csr list;
    dual_cuda_side dense;
    void *E;
    int64_t lde;
} dual_cuda_lines;

/* How the GEMM runs (none of it changes the bits).  exact = 0 allows the
 * zero-product paths, which are only bit-exact when loom__dual_zero_safe
 * holds for both operands' values (see dual_gemm.cu); exact = 1 tests both
 * masks for every product.  kernel DUAL_CUDA_KERNEL_LINES takes the line
 * walk when `lines` is set (the plan built it) and exact is 0, else the
 * pipelined kernel. */
typedef struct dual_cuda_gemm_opts {
    int exact, tile, walk, kernel;
    const dual_cuda_lines *lines;
} dual_cuda_gemm_opts;

/* ------------------------------------------------------ dual_device.cu */

/* The device count, or a negative CUDA error code (no driver, no device). */
int loom__dual_cuda_device_count(const char **why);
const char *loom__dual_cuda_error_string(int code);
/* True when the code means an allocation failed. */
int loom__dual_cuda_is_oom(int code);
/* Wait for the stream; its first error, if any. */
int loom__dual_cuda_sync(void *stream);

/* Copy a host (packed) bitmap to the device.  line_offsets may be NULL. */
int loom__dual_cuda_upload(int64_t rows, int64_t cols, int64_t tile_rows, int64_t tile_cols,
                           int64_t nnz, const uint64_t *tile_bits, const uint32_t *masks,
                           const int64_t *tile_offsets, const int32_t *line_offsets,
                           const void *values, size_t elem_size, dual_cuda_bitmap *out);
/* A padded rows x cols bitmap with line offsets, for the device to fill. */
int loom__dual_cuda_bitmap_alloc_padded(int64_t rows, int64_t cols, size_t elem_size,
                                        dual_cuda_bitmap *out);
/* A padded bitmap's tile bits, masks and padded values (tiles*1024) to
 * the host; synchronizes the stream. */
int loom__dual_cuda_bitmap_download(const dual_cuda_bitmap *b, size_t elem_size,
                                    uint64_t *tile_bits, uint32_t *masks, void *padded_values,
                                    void *stream);
void loom__dual_cuda_bitmap_free(dual_cuda_bitmap *b);

/* A CSR matrix with room for `capacity` entries. */
int loom__dual_cuda_csr_alloc(int64_t rows, int64_t cols, int64_t capacity, size_t elem_size,
                              dual_cuda_csr *out);
int loom__dual_cuda_csr_upload(int64_t rows, int64_t cols, int64_t nnz, const int64_t *row_offsets,
                               const int32_t *col_indices, const void *values, size_t elem_size,
                               dual_cuda_csr *out);
/* row_offsets[rows]; synchronizes the stream. */
int loom__dual_cuda_csr_nnz(const dual_cuda_csr *c, int64_t *nnz, void *stream);
int loom__dual_cuda_csr_download(const dual_cuda_csr *c, int64_t nnz, size_t elem_size,
                                 int64_t *row_offsets, int32_t *col_indices, void *values,
                                 void *stream);
void loom__dual_cuda_csr_free(dual_cuda_csr *c);

/* -------------------------------------------------------- dual_gemm.cu */

/* C = alpha*A*B + beta*C in the order of loom__ref_dual_gemm; A column-,
 * B row-condensed.  C is device memory when c_on_device, else host memory
 * (copied in and out).  Element (i, j) of C is C[i*ldc + j] (row-major) or
 * C[i + j*ldc]. */
int loom__dual_cuda_gemm(const dual_cuda_bitmap *A, const dual_cuda_bitmap *B, int f64,
                         double alpha, double beta, void *C, int64_t ldc, int col_major,
                         int c_on_device, const dual_cuda_gemm_opts *opts, void *stream);

/* ------------------------------------------------------- dual_lines.cu */

/* The column multiple of the line walk's scratch (elements). */
int64_t loom__dual_cuda_lines_width(int f64);
/* C (device memory) = alpha*A*B + beta*C by the line walk; S is the
 * expanded side (B when L->rows, else A). */
int loom__dual_cuda_gemm_lines(const dual_cuda_lines *L, const dual_cuda_bitmap *S, int f64,
                               double alpha, double beta, void *C, int64_t ldc, int col_major,
                               void *stream);
/* Device scratch: cudaMalloc and cudaFree. */
int loom__dual_cuda_malloc(size_t bytes, void **p);
void loom__dual_cuda_free(void *p);

/* ------------------------------------------ dual_bitmap_build.cu, _csr_build.cu */

/* A dense device matrix (out->rows x out->cols, element (i, j) at
 * X[i*ld + j] or X[i + j*ld]) into a padded row-condensed bitmap, zeros
 * (and -0.0) dropped, as loom_bitmap_from_dense does. */
int loom__dual_cuda_bitmap_from_dense(const void *X, int64_t ld, int col_major, int f64,
                                      dual_cuda_bitmap *out, void *stream);
/* A device CSR matrix into a padded row-condensed bitmap, zero values
 * dropped, as loom_bitmap_from_csr does. */
int loom__dual_cuda_bitmap_from_csr(const dual_cuda_csr *X, int f64, dual_cuda_bitmap *out,
                                    void *stream);
/* A dense device matrix (out->rows x out->cols) into CSR, zeros dropped;
 * out has room for rows*cols entries. */
int loom__dual_cuda_csr_from_dense(const void *X, int64_t ld, int col_major, int f64,
                                   dual_cuda_csr *out, void *stream);

/* ------------------------------------------------------- dual_im2col.cu */

/* The im2col matrix of one image (loom/bitmap.h), each strategy from and
 * to its own format, the same matrices as reference/dual_im2col.c. */
int loom__dual_cuda_im2col_dense(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                 const void *X, int64_t ldx, int x_col_major, int64_t image,
                                 void *cols, int64_t ldc, int c_col_major, int f64, void *stream);
/* cols: (C*R*S) x (out_h*out_w), room for its rows*cols entries. */
int loom__dual_cuda_im2col_csr(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                               const dual_cuda_csr *X, int64_t image, int f64, dual_cuda_csr *cols,
                               void *stream);
/* X row-condensed with line_offsets; cols padded, (C*R*S) x (out_h*out_w). */
int loom__dual_cuda_im2col_bitmap(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                  const dual_cuda_bitmap *X, int64_t image, int f64,
                                  dual_cuda_bitmap *cols, void *stream);

/* -------------------------------------------------------- dual_conv.cu */

typedef struct dual_cuda_conv dual_cuda_conv;

/* A convolution's device workspace for one strategy.  Takes ownership of
 * W (column-condensed, uploaded) on success only. */
int loom__dual_cuda_conv_create(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                loom_im2col strategy, int f64, dual_cuda_bitmap *W,
                                dual_cuda_conv **out);
/* Y = alpha*conv(X, W) + beta*Y: X host (batch*C*H) x W row-major with
 * leading dimension ldx, Y host contiguous (batch*F*out_h) x out_w.
 * X is uploaded once; im2col, bitmaps and GEMMs stay on the device. */
int loom__dual_cuda_conv_run(dual_cuda_conv *c, double alpha, const void *X, int64_t ldx,
                             double beta, void *Y, const dual_cuda_gemm_opts *opts, void *stream);
void loom__dual_cuda_conv_destroy(dual_cuda_conv *c);

#ifdef __cplusplus
}
#endif

#endif
