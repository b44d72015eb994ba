/*
 * dual_conv.cu - a convolution on the GPU, per execute: X is uploaded
 * once, then each image runs the plan's im2col strategy into a bitmap and
 * the dual-side GEMM W * cols into its slice of Y, all on the device; Y
 * comes back once.  The same steps, formats and order as the host path in
 * lib/dual_conv_api.c (loom_conv_execute), so the same bits:
 *   dense:  im2col_dense -> bitmap_from_dense -> GEMM
 *   CSR:    X -> CSR once; im2col_csr -> bitmap_from_csr -> GEMM
 *   bitmap: X -> bitmap once; im2col_bitmap -> GEMM
 * Every buffer is allocated when the plan is made, so execute allocates
 * nothing and synchronizes only to hand Y back.
 */
#include "dual_cuda.h"

#include <cuda_runtime.h>

#include <new>

struct dual_cuda_conv {
    loom_conv_shape s;
    int64_t out_h, out_w;
    loom_im2col strategy;
    int f64;
    size_t es;
    int64_t x_rows, crs, pq;
    dual_cuda_bitmap W;
    void *X, *Y;        /* the whole batch */
    void *dense_cols;   /* dense strategy: one image's explicit matrix */
    dual_cuda_csr xcsr; /* CSR strategy: X, and one image's im2col matrix */
    dual_cuda_csr ccsr;
    dual_cuda_bitmap xbm; /* bitmap strategy: X */
    dual_cuda_bitmap cbm; /* one image's im2col matrix, the GEMM's B */
};

extern "C" void loom__dual_cuda_conv_destroy(dual_cuda_conv *c)
{
    if (!c)
        return;
    loom__dual_cuda_bitmap_free(&c->W);
    cudaFree(c->X);
    cudaFree(c->Y);
    cudaFree(c->dense_cols);
    loom__dual_cuda_csr_free(&c->xcsr);
    loom__dual_cuda_csr_free(&c->ccsr);
    loom__dual_cuda_bitmap_free(&c->xbm);
    loom__dual_cuda_bitmap_free(&c->cbm);
    delete c;
}

extern "C" int loom__dual_cuda_conv_create(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                           loom_im2col strategy, int f64, dual_cuda_bitmap *W,
                                           dual_cuda_conv **out)
{
    dual_cuda_conv *c = new (std::nothrow) dual_cuda_conv();
    if (!c)
        return (int)cudaErrorMemoryAllocation;
    c->s = *s;
    c->out_h = out_h;
    c->out_w = out_w;
    c->strategy = strategy;
    c->f64 = f64;
    c->es = f64 ? sizeof(double) : sizeof(float);
    c->x_rows = s->batch * s->channels * s->height;
    c->crs = s->channels * s->kernel_h * s->kernel_w;
    c->pq = out_h * out_w;
    const size_t x_bytes = (size_t)(c->x_rows * s->width) * c->es;
    const size_t y_bytes = (size_t)(s->batch * s->filters * c->pq) * c->es;
    int rc = (int)cudaMalloc(&c->X, x_bytes);
    if (!rc)
        rc = (int)cudaMalloc(&c->Y, y_bytes);
    if (!rc)
        rc = loom__dual_cuda_bitmap_alloc_padded(c->crs, c->pq, c->es, &c->cbm);
    if (!rc && strategy == LOOM_IM2COL_DENSE)
        rc = (int)cudaMalloc(&c->dense_cols, (size_t)(c->crs * c->pq) * c->es);
    if (!rc && strategy == LOOM_IM2COL_CSR)
        rc = loom__dual_cuda_csr_alloc(c->x_rows, s->width, c->x_rows * s->width, c->es, &c->xcsr);
    if (!rc && strategy == LOOM_IM2COL_CSR)
        rc = loom__dual_cuda_csr_alloc(c->crs, c->pq, c->crs * c->pq, c->es, &c->ccsr);
    if (!rc && strategy == LOOM_IM2COL_BITMAP)
        rc = loom__dual_cuda_bitmap_alloc_padded(c->x_rows, s->width, c->es, &c->xbm);
    if (rc) {
        cudaGetLastError();
        loom__dual_cuda_conv_destroy(c); /* W is still the caller's */
        return rc;
    }
    c->W = *W;
    *W = dual_cuda_bitmap{};
    *out = c;
    return 0;
}

extern "C" int loom__dual_cuda_conv_run(dual_cuda_conv *c, double alpha, const void *X, int64_t ldx,
                                        double beta, void *Y, const dual_cuda_gemm_opts *opts,
                                        void *stream_ptr)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    const loom_conv_shape *s = &c->s;
    const size_t y_bytes = (size_t)(s->batch * s->filters * c->pq) * c->es;
    int rc = (int)cudaMemcpy2DAsync(c->X, (size_t)s->width * c->es, X, (size_t)ldx * c->es,
                                    (size_t)s->width * c->es, (size_t)c->x_rows,
                                    cudaMemcpyHostToDevice, stream);
    if (!rc && beta != 0)
        rc = (int)cudaMemcpyAsync(c->Y, Y, y_bytes, cudaMemcpyHostToDevice, stream);
    if (!rc && c->strategy == LOOM_IM2COL_CSR)
        rc = loom__dual_cuda_csr_from_dense(c->X, s->width, 0, c->f64, &c->xcsr, stream);
    if (!rc && c->strategy == LOOM_IM2COL_BITMAP)
        rc = loom__dual_cuda_bitmap_from_dense(c->X, s->width, 0, c->f64, &c->xbm, stream);
    for (int64_t n = 0; n < s->batch && !rc; n++) {
        switch (c->strategy) {
        case LOOM_IM2COL_DENSE:
            rc = loom__dual_cuda_im2col_dense(s, c->out_h, c->out_w, c->X, s->width, 0, n,
                                              c->dense_cols, c->pq, 0, c->f64, stream);
            if (!rc)
                rc = loom__dual_cuda_bitmap_from_dense(c->dense_cols, c->pq, 0, c->f64, &c->cbm,
                                                       stream);
            break;
        case LOOM_IM2COL_CSR:
            rc = loom__dual_cuda_im2col_csr(s, c->out_h, c->out_w, &c->xcsr, n, c->f64, &c->ccsr,
                                            stream);
            if (!rc)
                rc = loom__dual_cuda_bitmap_from_csr(&c->ccsr, c->f64, &c->cbm, stream);
            break;
        default:
            rc = loom__dual_cuda_im2col_bitmap(s, c->out_h, c->out_w, &c->xbm, n, c->f64, &c->cbm,
                                               stream);
            break;
        }
        /* Image n of Y is the F x (out_h*out_w) row-major block at n*F*P*Q. */
        if (!rc)
            rc = loom__dual_cuda_gemm(&c->W, &c->cbm, c->f64, alpha, beta,
                                      static_cast<char *>(c->Y) +
                                          (size_t)(n * s->filters * c->pq) * c->es,
                                      c->pq, 0, 1, opts, stream);
    }
    if (!rc)
        rc = (int)cudaMemcpyAsync(Y, c->Y, y_bytes, cudaMemcpyDeviceToHost, stream);
    const int sync = (int)cudaStreamSynchronize(stream);
    if (rc)
        cudaGetLastError();
    return rc ? rc : sync;
}
