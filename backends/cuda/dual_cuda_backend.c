/*
 * dual_cuda_backend.c - the CUDA dual backend's descriptor: the dual-side
 * GEMM on the GPU (its plan uploads A and B once).  The im2col strategies
 * of a convolution run on the host (the OpenMP ones when built) and feed
 * the GPU GEMM.  On a machine without a driver or a device the probe says
 * so and nothing else is called.
 *
 * Two environment variables, for tests and benchmarks (neither changes
 * the bits): LOOM_DUAL_CUDA_EXACT=1 makes the GEMM test both masks for
 * every product even when the values allow the faster path
 * (dual_zero_safe.c); LOOM_DUAL_CUDA_TILE=64x256|32x256|32x128 forces
 * the GEMM's block tile (f32; f64 always uses 32x128).
 */
#include "config.h"
#include "dual_internal.h"
#include "dual_cuda.h"

#include <stdlib.h>
#include <string.h>

static loom_status cuda_fail(int rc, const char *what)
{
    return loom__error(loom__dual_cuda_is_oom(rc) ? LOOM_ERR_OUT_OF_MEMORY : LOOM_ERR_DEVICE,
                       "dual backend cuda: %s: %s", what, loom__dual_cuda_error_string(rc));
}

static int env_exact(void)
{
    const char *e = getenv("LOOM_DUAL_CUDA_EXACT");
    return e && *e && strcmp(e, "0") != 0;
}

static int env_tile(void)
{
    const char *e = getenv("LOOM_DUAL_CUDA_TILE");
    if (!e)
        return DUAL_CUDA_TILE_AUTO;
    if (!strcmp(e, "64x256"))
        return DUAL_CUDA_TILE_64X256;
    if (!strcmp(e, "32x256"))
        return DUAL_CUDA_TILE_32X256;
    if (!strcmp(e, "32x128"))
        return DUAL_CUDA_TILE_32X128;
    return DUAL_CUDA_TILE_AUTO;
}

static loom_status cuda_dual_probe(void)
{
    const char *why = "";
    int n = loom__dual_cuda_device_count(&why);
    if (n <= 0)
        return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                           "dual backend cuda: no usable CUDA device (%s)", why);
    return LOOM_SUCCESS;
}

/* A host bitmap on the device, packed; with its line offsets when asked. */
static loom_status upload(const loom_bitmap *bm, bool with_lines, dual_cuda_bitmap *out)
{
    const loom_bitmap_view *v = &bm->v;
    int32_t *lines = NULL;
    int64_t tiles = v->tile_rows * v->tile_cols;
    if (with_lines) {
        lines = loom__malloc((size_t)(tiles ? tiles : 1) * LOOM__TILE * sizeof(int32_t));
        if (!lines)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: out of memory");
        for (int64_t t = 0; t < tiles; t++) {
            int32_t pos = 0;
            for (int l = 0; l < LOOM__TILE; l++) {
                lines[t * LOOM__TILE + l] = pos;
                pos += __builtin_popcount(v->masks[t * LOOM__TILE + l]);
            }
        }
    }
    int rc = loom__dual_cuda_upload(v->rows, v->cols, v->tile_rows, v->tile_cols, v->nnz,
                                    v->tile_bits, v->masks, v->tile_offsets, lines, v->values,
                                    loom_dtype_size(v->dtype), out);
    loom__free(lines);
    return rc ? cuda_fail(rc, "copying a bitmap to the device") : LOOM_SUCCESS;
}

/* ------------------------------------------------------------ the GEMM */

typedef struct cuda_gemm_data {
    dual_cuda_bitmap A, B;
    bool zero_safe; /* both operands' values allow the zero-product path */
} cuda_gemm_data;

static loom_status cuda_dual_prepare(loom_dual_gemm_plan *plan)
{
    cuda_gemm_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: out of memory");
    loom_status st = upload(plan->A, false, &d->A);
    if (st == LOOM_SUCCESS && (st = upload(plan->B, false, &d->B)) != LOOM_SUCCESS)
        loom__dual_cuda_bitmap_free(&d->A);
    if (st != LOOM_SUCCESS) {
        loom__free(d);
        return st;
    }
    d->zero_safe = loom__dual_zero_safe(plan->A->v.values, plan->A->v.nnz, plan->dtype) &&
                   loom__dual_zero_safe(plan->B->v.values, plan->B->v.nnz, plan->dtype);
    plan->backend_data = d;
    return LOOM_SUCCESS;
}

static void cuda_dual_release(loom_dual_gemm_plan *plan)
{
    cuda_gemm_data *d = plan->backend_data;
    if (!d)
        return;
    loom__dual_cuda_bitmap_free(&d->A);
    loom__dual_cuda_bitmap_free(&d->B);
    loom__free(d);
    plan->backend_data = NULL;
}

static loom_status cuda_dual_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                  loom_dense *C)
{
    cuda_gemm_data *d = plan->backend_data;
    int rc = loom__dual_cuda_gemm(&d->A, &d->B, plan->dtype == LOOM_F64, alpha, beta, C->data,
                                  C->ld, C->layout == LOOM_COL_MAJOR,
                                  C->memory == LOOM_MEMORY_DEVICE, !d->zero_safe || env_exact(),
                                  env_tile(), plan->ctx.stream);
    return rc ? cuda_fail(rc, "dual-side GEMM") : LOOM_SUCCESS;
}

/* The host dual backend that does a convolution's im2col for the GPU. */
static const loom_dual_backend *host_dual(void)
{
    const loom_dual_backend *b = loom__dual_backend(LOOM_BACKEND_OPENMP);
    if (b->probe() != LOOM_SUCCESS) {
        loom__clear_error();
        b = loom__dual_backend(LOOM_BACKEND_REFERENCE);
    }
    return b;
}

static loom_status host_im2col_dense(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                     const loom_dense *X, int64_t image, loom_dense *cols)
{
    return host_dual()->im2col_dense(s, out_h, out_w, X, image, cols);
}

static loom_status host_im2col_csr(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                   int64_t out_w, const loom_csr *X, int64_t image,
                                   loom_csr **cols)
{
    return host_dual()->im2col_csr(ctx, s, out_h, out_w, X, image, cols);
}

static loom_status host_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                      int64_t out_w, const loom_bitmap *X, int64_t image,
                                      loom_bitmap **cols)
{
    return host_dual()->im2col_bitmap(ctx, s, out_h, out_w, X, image, cols);
}

LOOM_INTERNAL const loom_dual_backend loom__cuda_dual_backend = {
    .id = LOOM_BACKEND_CUDA,
    .name = "cuda",
    .probe = cuda_dual_probe,
    .gemm_prepare = cuda_dual_prepare,
    .gemm_release = cuda_dual_release,
    .gemm = cuda_dual_gemm,
    .im2col_dense = host_im2col_dense,
    .im2col_csr = host_im2col_csr,
    .im2col_bitmap = host_im2col_bitmap,
};
