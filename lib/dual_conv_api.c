/*
 * dual_conv_api.c - sparse convolution: shape checks, the public im2col
 * entry points, and the conv plan, which runs per image
 * im2col (the plan's strategy) -> bitmap -> dual-side GEMM into Y.
 *
 * Every strategy hands the same non-zeros, in the same bitmap, to the same
 * dual-side GEMM, so the three strategies give identical bits.  A backend
 * with conv slots (cuda) runs those same steps on its device instead of
 * the host loop below (lib/dual_internal.h).
 *
 * Where the im2col entry points run: dense on the host for host operands
 * and on the GPU for device operands; CSR and bitmap (host handles) on
 * the context's dual backend, else openmp, else the reference.
 */
#include "config.h"
#include "dual_internal.h"

#include <inttypes.h>
#include <string.h>

loom_status loom_conv_output_size(const loom_conv_shape *s, int64_t *out_h, int64_t *out_w)
{
    const char *fn = "loom_conv_output_size";
    if (!s || !out_h || !out_w)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: a pointer argument is NULL", fn);
    if (s->batch < 1 || s->channels < 1 || s->height < 1 || s->width < 1 || s->filters < 1 ||
        s->kernel_h < 1 || s->kernel_w < 1)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: batch, channels, height, width, filters and kernel sizes must be "
                           ">= 1",
                           fn);
    if (s->stride_h < 1 || s->stride_w < 1 || s->dilation_h < 1 || s->dilation_w < 1)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: strides and dilations must be >= 1",
                           fn);
    if (s->pad_h < 0 || s->pad_w < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: padding must be >= 0", fn);
    int64_t eh = s->dilation_h * (s->kernel_h - 1) + 1, ew = s->dilation_w * (s->kernel_w - 1) + 1;
    if (s->height + 2 * s->pad_h < eh || s->width + 2 * s->pad_w < ew)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: the dilated kernel (%" PRId64 " x %" PRId64
                           ") is larger than the padded input (%" PRId64 " x %" PRId64 ")",
                           fn, eh, ew, s->height + 2 * s->pad_h, s->width + 2 * s->pad_w);
    *out_h = (s->height + 2 * s->pad_h - eh) / s->stride_h + 1;
    *out_w = (s->width + 2 * s->pad_w - ew) / s->stride_w + 1;
    if (s->channels * s->kernel_h * s->kernel_w > INT32_MAX || *out_h * *out_w > INT32_MAX)
        return loom__error(LOOM_ERR_OVERFLOW, "%s: the im2col matrix exceeds 32-bit indices", fn);
    return LOOM_SUCCESS;
}

static loom_status check_image(const loom_conv_shape *s, int64_t image, int64_t x_rows,
                               int64_t x_cols, const char *fn)
{
    if (image < 0 || image >= s->batch)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: image %" PRId64 " is outside the batch of %" PRId64, fn, image,
                           s->batch);
    if (x_rows != s->batch * s->channels * s->height || x_cols != s->width)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: X is %" PRId64 " x %" PRId64 ", the shape needs (batch*C*H) x W = "
                           "%" PRId64 " x %" PRId64,
                           fn, x_rows, x_cols, s->batch * s->channels * s->height, s->width);
    return LOOM_SUCCESS;
}

static const loom_dual_backend *host_backend(void)
{
    const loom_dual_backend *b = loom__dual_backend(LOOM_BACKEND_OPENMP);
    if (b->probe() != LOOM_SUCCESS) {
        loom__clear_error();
        b = loom__dual_backend(LOOM_BACKEND_REFERENCE);
    }
    return b;
}

loom_status loom_conv_im2col_dense(const loom_conv_shape *s, const loom_dense *X, int64_t image,
                                   loom_dense *cols)
{
    const char *fn = "loom_conv_im2col_dense";
    int64_t oh, ow;
    loom_status st = loom_conv_output_size(s, &oh, &ow);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(X, "X", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(cols, "cols", fn);
    if (st == LOOM_SUCCESS)
        st = check_image(s, image, X->rows, X->cols, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (X->memory != cols->memory)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "%s: X and cols must both be in host memory or both in device memory",
                           fn);
    if (cols->rows != s->channels * s->kernel_h * s->kernel_w || cols->cols != oh * ow ||
        cols->dtype != X->dtype)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: cols must be (C*R*S) x (out_h*out_w) = %" PRId64 " x %" PRId64
                           " of X's dtype",
                           fn, s->channels * s->kernel_h * s->kernel_w, oh * ow);
    if (X->memory == LOOM_MEMORY_HOST)
        return host_backend()->im2col_dense(s, oh, ow, X, image, cols);
    /* Device memory: the GPU's im2col, on the default stream, finished on return. */
    const loom_dual_backend *b = loom__dual_backend(LOOM_BACKEND_CUDA);
    if ((st = b->probe()) != LOOM_SUCCESS)
        return st;
    if (!b->im2col_dense)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: backend %s has no dense im2col", fn,
                           b->name);
    return b->im2col_dense(s, oh, ow, X, image, cols);
}

loom_status loom_conv_im2col_csr(loom_context *ctx, const loom_conv_shape *s, const loom_csr *X,
                                 int64_t image, loom_csr **cols)
{
    const char *fn = "loom_conv_im2col_csr";
    int64_t oh, ow;
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom_conv_output_size(s, &oh, &ow);
    if (st == LOOM_SUCCESS)
        st = loom__check_csr(X, fn);
    if (st == LOOM_SUCCESS)
        st = check_image(s, image, X->rows, X->cols, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!cols)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: cols is NULL", fn);
    if (X->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: X must be in host memory", fn);
    const loom_dual_backend *b;
    if ((st = loom__dual_choose(ctx, LOOM_BACKEND_AUTO, LOOM_MEMORY_HOST, fn, &b)) != LOOM_SUCCESS)
        return st;
    if (!b->im2col_csr)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: backend %s has no CSR im2col", fn,
                           b->name);
    return b->im2col_csr(ctx, s, oh, ow, X, image, cols);
}

loom_status loom_conv_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s,
                                    const loom_bitmap *X, int64_t image, loom_bitmap **cols)
{
    const char *fn = "loom_conv_im2col_bitmap";
    int64_t oh, ow;
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom_conv_output_size(s, &oh, &ow);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(X, fn);
    if (st == LOOM_SUCCESS)
        st = check_image(s, image, X->v.rows, X->v.cols, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!cols)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: cols is NULL", fn);
    if (X->v.layout != LOOM_BITMAP_ROWS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: X must be row-condensed (LOOM_BITMAP_ROWS): image rows are "
                           "shifted as bit masks",
                           fn);
    const loom_dual_backend *b;
    if ((st = loom__dual_choose(ctx, LOOM_BACKEND_AUTO, LOOM_MEMORY_HOST, fn, &b)) != LOOM_SUCCESS)
        return st;
    if (!b->im2col_bitmap)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: backend %s has no bitmap im2col", fn,
                           b->name);
    return b->im2col_bitmap(ctx, s, oh, ow, X, image, cols);
}

static loom_status check_conv_plan(const loom_conv_plan *p, const char *fn)
{
    if (!p)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    if (p->magic != LOOM_MAGIC_CONV_PLAN)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: plan is not a live loom_conv_plan (freed or uninitialised)", fn);
    return LOOM_SUCCESS;
}

loom_status loom_conv_plan_create(loom_context *ctx, loom_conv_plan **plan,
                                  const loom_conv_shape *shape, const loom_bitmap *W,
                                  loom_im2col im2col, loom_backend_id backend)
{
    const char *fn = "loom_conv_plan_create";
    int64_t oh, ow;
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom_conv_output_size(shape, &oh, &ow);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(W, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    if (im2col != LOOM_IM2COL_DENSE && im2col != LOOM_IM2COL_CSR && im2col != LOOM_IM2COL_BITMAP)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: im2col strategy %d is not one of "
                           "LOOM_IM2COL_DENSE, _CSR, _BITMAP", fn, (int)im2col);
    if (W->v.layout != LOOM_BITMAP_COLUMNS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: W must be column-condensed (LOOM_BITMAP_COLUMNS)", fn);
    if (W->v.rows != shape->filters ||
        W->v.cols != shape->channels * shape->kernel_h * shape->kernel_w)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: W is %" PRId64 " x %" PRId64 ", needs filters x (C*R*S) = %" PRId64
                           " x %" PRId64,
                           fn, W->v.rows, W->v.cols, shape->filters,
                           shape->channels * shape->kernel_h * shape->kernel_w);
    const loom_dual_backend *b;
    if ((st = loom__dual_choose(ctx, backend, LOOM_MEMORY_HOST, fn, &b)) != LOOM_SUCCESS)
        return st;
    if (!b->conv && (!b->gemm || !b->im2col_dense || !b->im2col_csr || !b->im2col_bitmap))
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: backend %s has no sparse convolution",
                           fn, b->name);
    loom_conv_plan *p = loom__calloc(1, sizeof *p);
    if (!p)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    *p = (loom_conv_plan){LOOM_MAGIC_CONV_PLAN, *ctx, *shape, oh, ow, W, im2col, b, NULL};
    if (b->conv && b->conv_prepare && (st = b->conv_prepare(p)) != LOOM_SUCCESS) {
        p->magic = LOOM_MAGIC_FREED;
        loom__free(p);
        return st;
    }
    *plan = p;
    return LOOM_SUCCESS;
}

loom_status loom_conv_plan_destroy(loom_conv_plan **plan)
{
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_conv_plan_destroy: plan is NULL");
    if (!*plan)
        return LOOM_SUCCESS;
    loom_status st = check_conv_plan(*plan, "loom_conv_plan_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    if ((*plan)->backend->conv && (*plan)->backend->conv_release)
        (*plan)->backend->conv_release(*plan);
    (*plan)->magic = LOOM_MAGIC_FREED;
    loom__free(*plan);
    *plan = NULL;
    return LOOM_SUCCESS;
}

/* A dense host matrix as CSR, zeros dropped (the CSR strategy's input). */
static loom_status dense_to_csr(loom_context *ctx, const loom_dense *X, loom_csr **out)
{
    size_t es = loom_dtype_size(X->dtype);
    int64_t nnz = 0;
    for (int64_t i = 0; i < X->rows; i++)
        for (int64_t j = 0; j < X->cols; j++) {
            const char *p = (const char *)X->data + loom__dense_offset(X, i, j) * es;
            nnz += X->dtype == LOOM_F32 ? *(const float *)p != 0 : *(const double *)p != 0;
        }
    int64_t *rp = loom__malloc(((size_t)X->rows + 1) * sizeof *rp);
    int32_t *ci = loom__malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    char *v = loom__malloc((size_t)(nnz ? nnz : 1) * es);
    if (!rp || !ci || !v) {
        loom__free(rp);
        loom__free(ci);
        loom__free(v);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_conv_execute: out of memory");
    }
    int64_t e = 0;
    rp[0] = 0;
    for (int64_t i = 0; i < X->rows; i++) {
        for (int64_t j = 0; j < X->cols; j++) {
            const char *p = (const char *)X->data + loom__dense_offset(X, i, j) * es;
            if (X->dtype == LOOM_F32 ? *(const float *)p != 0 : *(const double *)p != 0) {
                ci[e] = (int32_t)j;
                memcpy(v + e++ * es, p, es);
            }
        }
        rp[i + 1] = e;
    }
    return loom__csr_adopt(ctx, X->rows, X->cols, nnz, X->dtype, rp, ci, v, "loom_conv_execute",
                           out);
}

/* One image: its im2col matrix as a row-condensed bitmap, by the plan's strategy. */
static loom_status image_cols(loom_conv_plan *p, const loom_dense *X, const loom_csr *Xcsr,
                              const loom_bitmap *Xbm, loom_dense *dense_cols, int64_t image,
                              loom_bitmap **cols)
{
    loom_status st;
    const loom_dual_backend *b = p->backend;
    switch (p->im2col) {
    case LOOM_IM2COL_DENSE:
        st = b->im2col_dense(&p->shape, p->out_h, p->out_w, X, image, dense_cols);
        return st != LOOM_SUCCESS ? st
                                  : loom_bitmap_from_dense(&p->ctx, dense_cols, LOOM_BITMAP_ROWS,
                                                           cols);
    case LOOM_IM2COL_CSR: {
        loom_csr *c = NULL;
        st = b->im2col_csr(&p->ctx, &p->shape, p->out_h, p->out_w, Xcsr, image, &c);
        if (st == LOOM_SUCCESS)
            st = loom_bitmap_from_csr(&p->ctx, c, LOOM_BITMAP_ROWS, cols);
        loom_csr_destroy(&c);
        return st;
    }
    default:
        return b->im2col_bitmap(&p->ctx, &p->shape, p->out_h, p->out_w, Xbm, image, cols);
    }
}

loom_status loom_conv_execute(loom_conv_plan *plan, double alpha, const loom_dense *X, double beta,
                              loom_dense *Y)
{
    const char *fn = "loom_conv_execute";
    loom_status st = check_conv_plan(plan, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(X, "X", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(Y, "Y", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(plan->W, fn);
    if (st != LOOM_SUCCESS)
        return st;
    const loom_conv_shape *s = &plan->shape;
    if ((st = check_image(s, 0, X->rows, X->cols, fn)) != LOOM_SUCCESS)
        return st;
    if (X->memory != LOOM_MEMORY_HOST || Y->memory != LOOM_MEMORY_HOST ||
        X->layout != LOOM_ROW_MAJOR || Y->layout != LOOM_ROW_MAJOR)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: X and Y must be row-major host matrices",
                           fn);
    if (X->dtype != plan->W->v.dtype || Y->dtype != X->dtype)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: X, Y and W must have one dtype", fn);
    if (Y->rows != s->batch * s->filters * plan->out_h || Y->cols != plan->out_w ||
        Y->ld != plan->out_w)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: Y must be (batch*F*out_h) x out_w = %" PRId64 " x %" PRId64
                           " with ld = out_w (contiguous NCHW)",
                           fn, s->batch * s->filters * plan->out_h, plan->out_w);
    if (plan->backend->conv)
        return plan->backend->conv(plan, alpha, X, beta, Y);

    loom_csr *Xcsr = NULL;
    loom_bitmap *Xbm = NULL;
    loom_dense dense_cols = {0};
    int64_t crs = s->channels * s->kernel_h * s->kernel_w, pq = plan->out_h * plan->out_w;
    if (plan->im2col == LOOM_IM2COL_CSR)
        st = dense_to_csr(&plan->ctx, X, &Xcsr);
    else if (plan->im2col == LOOM_IM2COL_BITMAP)
        st = loom_bitmap_from_dense(&plan->ctx, X, LOOM_BITMAP_ROWS, &Xbm);
    else
        st = loom_dense_alloc(&plan->ctx, &dense_cols, crs, pq, LOOM_ROW_MAJOR, X->dtype,
                              LOOM_MEMORY_HOST);
    size_t es = loom_dtype_size(X->dtype);
    for (int64_t n = 0; n < s->batch && st == LOOM_SUCCESS; n++) {
        loom_bitmap *cols = NULL;
        st = image_cols(plan, X, Xcsr, Xbm, &dense_cols, n, &cols);
        if (st != LOOM_SUCCESS)
            break;
        /* Image n of Y is the F x (out_h*out_w) row-major block at n*F*P*Q. */
        loom_dense C = {s->filters, pq, pq, LOOM_ROW_MAJOR, Y->dtype, LOOM_MEMORY_HOST,
                        (char *)Y->data + (size_t)(n * s->filters * pq) * es};
        loom_dual_gemm_plan gp = {0};
        gp.magic = LOOM_MAGIC_DUAL_PLAN;
        gp.ctx = plan->ctx;
        gp.A = plan->W;
        gp.B = cols;
        gp.backend = plan->backend;
        gp.dtype = X->dtype;
        gp.m = s->filters;
        gp.k = crs;
        gp.n = pq;
        gp.c_memory = LOOM_MEMORY_HOST;
        if (plan->backend->gemm_prepare)
            st = plan->backend->gemm_prepare(&gp);
        if (st == LOOM_SUCCESS) {
            st = plan->backend->gemm(&gp, alpha, beta, &C);
            if (plan->backend->gemm_release)
                plan->backend->gemm_release(&gp);
        }
        loom_bitmap_destroy(&cols);
    }
    loom_csr_destroy(&Xcsr);
    loom_bitmap_destroy(&Xbm);
    if (dense_cols.data)
        loom_dense_free(&plan->ctx, &dense_cols);
    return st;
}
