/*
 * dual_internal.h - dual-side sparsity inside the library: the bitmap
 * object, the plans, and the dual backend table (its own table, beside
 * struct loom_backend, so the SpMM backends are untouched).
 */
#ifndef LOOM_DUAL_INTERNAL_H
#define LOOM_DUAL_INTERNAL_H

#include "loom_internal.h"
#include "loom/bitmap.h"

#define LOOM_MAGIC_BITMAP 0x6c6f6f6d626d7031ull    /* "loombmp1" */
#define LOOM_MAGIC_DUAL_PLAN 0x6c6f6f6d64706c31ull /* "loomdpl1" */
#define LOOM_MAGIC_CONV_PLAN 0x6c6f6f6d63706c31ull /* "loomcpl1" */

#define LOOM__TILE LOOM_BITMAP_TILE

struct loom_bitmap {
    uint64_t magic;
    loom_bitmap_view v; /* rows, cols, ... and the arrays below, read-only */
    uint64_t *tile_bits;
    uint32_t *masks;
    int64_t *tile_offsets;
    void *values;
};

typedef struct loom_dual_backend loom_dual_backend;

struct loom_dual_gemm_plan {
    uint64_t magic;
    loom_context ctx;
    const loom_bitmap *A, *B;
    const loom_dual_backend *backend;
    loom_dtype dtype;
    int64_t m, n, k;
    loom_memory c_memory;
    void *backend_data; /* owned by the backend (device copies of A and B) */
    char path[160];     /* the backend's prepare may say which kernel path it took */
    char explain[512];
};

struct loom_conv_plan {
    uint64_t magic;
    loom_context ctx;
    loom_conv_shape shape;
    int64_t out_h, out_w;
    const loom_bitmap *W;
    loom_im2col im2col;
    const loom_dual_backend *backend;
    void *backend_data; /* owned by a backend with conv slots (its device workspace) */
};

/*
 * The dual backend table.  A NULL slot: the backend does not offer it.
 * gemm: C = alpha*A*B + beta*C with the order of loom__ref_dual_gemm.
 * im2col_*: the same matrices as the reference's, any speed.  Their
 *   operands are host handles, except im2col_dense, whose X and cols are
 *   in the memory the backend works on (device memory for cuda).
 * conv_prepare / conv_release / conv: the whole convolution in one call,
 *   for a backend whose im2col and GEMM must stay on its device (the host
 *   slots above would move every intermediate matrix through host
 *   memory).  conv_prepare runs when the plan is made and may keep state
 *   in plan->backend_data; conv gets validated host X and Y and must give
 *   the bits of the host path in lib/dual_conv_api.c (per image: the
 *   plan's im2col, its bitmap, the dual-side GEMM).  A backend with a
 *   conv slot needs no im2col slots for loom_conv_execute; one without
 *   needs gemm and all three im2col slots.
 */
struct loom_dual_backend {
    loom_backend_id id;
    const char *name;
    loom_status (*probe)(void);
    loom_status (*gemm_prepare)(loom_dual_gemm_plan *plan);
    void (*gemm_release)(loom_dual_gemm_plan *plan);
    loom_status (*gemm)(loom_dual_gemm_plan *plan, double alpha, double beta, loom_dense *C);
    loom_status (*im2col_dense)(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                const loom_dense *X, int64_t image, loom_dense *cols);
    loom_status (*im2col_csr)(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                              int64_t out_w, const loom_csr *X, int64_t image, loom_csr **cols);
    loom_status (*im2col_bitmap)(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                 int64_t out_w, const loom_bitmap *X, int64_t image,
                                 loom_bitmap **cols);
    loom_status (*conv_prepare)(loom_conv_plan *plan);
    void (*conv_release)(loom_conv_plan *plan);
    loom_status (*conv)(loom_conv_plan *plan, double alpha, const loom_dense *X, double beta,
                        loom_dense *Y);
};

LOOM_INTERNAL const loom_dual_backend *loom__dual_backend(loom_backend_id id);

LOOM_INTERNAL loom_status loom__check_bitmap(const loom_bitmap *B, const char *fn);
/* The dual backend for an operation (lib/dual_gemm_api.c). */
LOOM_INTERNAL loom_status loom__dual_choose(const loom_context *ctx, loom_backend_id asked,
                                            loom_memory memory, const char *fn,
                                            const loom_dual_backend **out);
LOOM_INTERNAL loom_status loom__dual_check_operands(const loom_bitmap *A, const loom_bitmap *B,
                                                    const loom_dense *C, const char *fn);

/* A bitmap with every array allocated for `nnz` values, masks and bits
 * zeroed; the caller fills it.  Freed with loom_bitmap_destroy. */
LOOM_INTERNAL loom_status loom__bitmap_alloc(int64_t rows, int64_t cols, int64_t nnz,
                                             loom_bitmap_layout layout, loom_dtype dtype,
                                             loom_bitmap **B);
/* Recompute tile_bits from masks (every tile with a set mask bit). */
LOOM_INTERNAL void loom__bitmap_set_tile_bits(loom_bitmap *B);

/* The reference operations (reference/dual_*.c). */
LOOM_INTERNAL void loom__ref_dual_gemm_f32(const loom_bitmap *A, const loom_bitmap *B, float alpha,
                                           float beta, loom_dense *C);
LOOM_INTERNAL void loom__ref_dual_gemm_f64(const loom_bitmap *A, const loom_bitmap *B,
                                           double alpha, double beta, loom_dense *C);
LOOM_INTERNAL loom_status loom__ref_im2col_dense(const loom_conv_shape *s, int64_t out_h,
                                                 int64_t out_w, const loom_dense *X,
                                                 int64_t image, loom_dense *cols);
LOOM_INTERNAL loom_status loom__ref_im2col_csr(loom_context *ctx, const loom_conv_shape *s,
                                               int64_t out_h, int64_t out_w, const loom_csr *X,
                                               int64_t image, loom_csr **cols);
LOOM_INTERNAL loom_status loom__ref_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s,
                                                  int64_t out_h, int64_t out_w,
                                                  const loom_bitmap *X, int64_t image,
                                                  loom_bitmap **cols);

/* True when every non-zero value is finite and at least 2^-50 (f32) or
 * 2^-480 (f64) in magnitude: a dual-side GEMM may then multiply absent
 * elements as zeros and keep the reference's bits (the proof is in
 * lib/dual_zero_safe.c). */
LOOM_INTERNAL bool loom__dual_zero_safe(const void *values, int64_t n, loom_dtype dtype);
LOOM_INTERNAL bool loom__dual_dense_zero_safe(const loom_dense *d);

/* One operand seen from its condensed lines (lib/dual_lines.c): line k of A is
 * column k, of B row k; `cross` runs along a line (A's rows, B's columns).
 * Tile (ct, kt) is tile number ct*sc + kt*sk of the bitmap. */
typedef struct loom_dual_side {
    const loom_bitmap_view *v;
    int64_t cross, k, cross_tiles, k_tiles, sc, sk;
} loom_dual_side;
LOOM_INTERNAL loom_dual_side loom__dual_side_of(const loom_bitmap_view *v, bool is_a);

/* The sparse side of the line walk, in groups of r consecutive lines of
 * C (row i when rows, else column j; r divides 32: 1 for the OpenMP walk,
 * 4 for the CUDA one).  Group g's entries at [start[g], start[g+1]) are
 * the k where any of its lines has a non-zero, increasing; entry e's
 * value for line g*r + q is val[e*r + q] (+0 where that line has none).
 * With r = 1 these are each line's non-zeros. */
typedef struct loom_dual_lines {
    bool rows;
    int r;
    int64_t lines;  /* of C */
    int64_t groups; /* the lines rounded up to whole tiles, over r */
    int64_t *start;
    int32_t *kidx;
    void *val;
} loom_dual_lines;
LOOM_INTERNAL loom_status loom__dual_lines_build(const loom_bitmap *A, const loom_bitmap *B,
                                                 bool rows, int r, loom_dual_lines *out);
LOOM_INTERNAL void loom__dual_lines_free(loom_dual_lines *l);
/* Which side the lists should be: A's rows when they give no more
 * multiply-adds than B's columns, nnz(A)*N <= nnz(B)*M. */
LOOM_INTERNAL bool loom__dual_lines_over_rows(const loom_bitmap *A, const loom_bitmap *B);
/* The position of value (line, bit) inside a tile: the values of earlier
 * lines, then those of lower bits on its own line. */
static inline int64_t loom__bitmap_value_index(const loom_bitmap_view *v, int64_t tile, int line,
                                               int bit)
{
    const uint32_t *m = v->masks + tile * LOOM__TILE;
    int64_t pos = v->tile_offsets[tile];
    for (int l = 0; l < line; l++)
        pos += __builtin_popcount(m[l]);
    return pos + __builtin_popcount(m[line] & ((1u << bit) - 1u));
}

#endif /* LOOM_DUAL_INTERNAL_H */
