/*
 * dual_cuda_backend.c - the CUDA dual backend's descriptor.  The dual-side
 * GEMM runs on the GPU (dual_gemm.cu); the plan uploads A and B once.
 * The im2col strategies of a convolution run on the host (the OpenMP ones
 * when built) and feed the GPU GEMM.  On a machine without a driver or a
 * device the probe says so and nothing else is called.
 */
#include "config.h"
#include "dual_internal.h"
#include "dual_cuda.h"

static loom_status cuda_dual_probe(void)
{
    const char *why = "";
    int n = loom__dual_cuda_device_count(&why);
    if (n <= 0)
        return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                           "dual backend cuda: no usable CUDA device (%s)", why);
    return LOOM_SUCCESS;
}

typedef struct cuda_dual_data {
    dual_cuda_bitmap A, B;
} cuda_dual_data;

static loom_status upload(const loom_bitmap *bm, dual_cuda_bitmap *out)
{
    const loom_bitmap_view *v = &bm->v;
    int rc = loom__dual_cuda_upload(v->rows, v->cols, v->tile_rows, v->tile_cols, v->nnz,
                                    v->tile_bits, v->masks, v->tile_offsets, v->values,
                                    loom_dtype_size(v->dtype), out);
    if (rc)
        return loom__error(rc == 2 ? LOOM_ERR_OUT_OF_MEMORY : LOOM_ERR_DEVICE,
                           "dual backend cuda: copying a bitmap to the device: %s",
                           loom__dual_cuda_error_string(rc));
    return LOOM_SUCCESS;
}

static loom_status cuda_dual_prepare(loom_dual_gemm_plan *plan)
{
    cuda_dual_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: out of memory");
    loom_status st = upload(plan->A, &d->A);
    if (st == LOOM_SUCCESS && (st = upload(plan->B, &d->B)) != LOOM_SUCCESS)
        loom__dual_cuda_free(&d->A);
    if (st != LOOM_SUCCESS) {
        loom__free(d);
        return st;
    }
    plan->backend_data = d;
    return LOOM_SUCCESS;
}

static void cuda_dual_release(loom_dual_gemm_plan *plan)
{
    cuda_dual_data *d = plan->backend_data;
    if (!d)
        return;
    loom__dual_cuda_free(&d->A);
    loom__dual_cuda_free(&d->B);
    loom__free(d);
    plan->backend_data = NULL;
}

static loom_status cuda_dual_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                  loom_dense *C)
{
    cuda_dual_data *d = plan->backend_data;
    int rc = loom__dual_cuda_gemm(&d->A, &d->B, plan->dtype == LOOM_F64, alpha, beta, C->data,
                                  C->ld, C->layout == LOOM_COL_MAJOR,
                                  C->memory == LOOM_MEMORY_DEVICE, plan->ctx.stream);
    if (rc)
        return loom__error(LOOM_ERR_DEVICE, "dual backend cuda: dual-side GEMM: %s",
                           loom__dual_cuda_error_string(rc));
    return LOOM_SUCCESS;
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
