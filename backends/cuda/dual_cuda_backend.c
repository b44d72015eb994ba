/*
 * dual_cuda_backend.c - the CUDA dual backend's descriptor: the dual-side
 * GEMM (its plan uploads A and B once), the whole convolution on the
 * device (the conv slots: W uploaded when the plan is made, X once per
 * execute, im2col and GEMM on the GPU), and the three im2col strategies
 * for loom_conv_im2col_* (dense: device memory in and out; CSR and bitmap:
 * host handles in and out, the work on the GPU).  On a machine without a
 * driver or a device the probe says so and nothing else is called.
 *
 * Environment variables for tests and benchmarks (none changes the bits):
 * LOOM_DUAL_CUDA_EXACT=1 makes the GEMM test both masks for every product
 * even when the values allow the faster path (dual_zero_safe.c);
 * LOOM_DUAL_CUDA_KERNEL=pipe or basic runs the pipelined or the first GEMM
 * kernel instead of the line walk (which needs zero-safe operands), and
 * =rows or cols makes the plan build the line walk over C's rows or
 * columns instead of the side with fewer multiply-adds; LOOM_DUAL_CUDA_TILE forces the block tile (f32: 64x256 or
 * 64x128 pipelined, 64x256, 32x256 or 32x128 basic);
 * LOOM_DUAL_CUDA_WALK=union|rows forces the basic kernel's walk.
 */
#include "config.h"
#include "dual_internal.h"
#include "dual_cuda.h"

#include <stdio.h>
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

static int env_walk(void)
{
    const char *e = getenv("LOOM_DUAL_CUDA_WALK");
    if (e && !strcmp(e, "union"))
        return DUAL_CUDA_WALK_UNION;
    if (e && !strcmp(e, "rows"))
        return DUAL_CUDA_WALK_ROWS;
    return DUAL_CUDA_WALK_AUTO;
}

static int env_kernel(void)
{
    const char *e = getenv("LOOM_DUAL_CUDA_KERNEL");
    if (e && !strcmp(e, "basic"))
        return DUAL_CUDA_KERNEL_BASIC;
    if (e && !strcmp(e, "pipe"))
        return DUAL_CUDA_KERNEL_PIPE;
    return DUAL_CUDA_KERNEL_LINES;
}

static int env_tile(void)
{
    const char *e = getenv("LOOM_DUAL_CUDA_TILE");
    if (!e)
        return DUAL_CUDA_TILE_AUTO;
    if (!strcmp(e, "64x128"))
        return DUAL_CUDA_TILE_64X128;
    if (!strcmp(e, "64x256"))
        return DUAL_CUDA_TILE_64X256;
    if (!strcmp(e, "32x256"))
        return DUAL_CUDA_TILE_32X256;
    if (!strcmp(e, "32x128"))
        return DUAL_CUDA_TILE_32X128;
    return DUAL_CUDA_TILE_AUTO;
}

/* The GEMM's options: the exact path when the values ask for it (or the
 * environment), the block tile and the walk from the environment. */
static dual_cuda_gemm_opts gemm_opts(bool zero_safe, const dual_cuda_lines *lines)
{
    dual_cuda_gemm_opts o = {!zero_safe || env_exact(), env_tile(), env_walk(), env_kernel(),
                             lines};
    return o;
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
    bool has_lines; /* the line walk's lists and scratch are on the device */
    dual_cuda_lines lines;
} cuda_gemm_data;

/* The line walk's scratch is the dense side expanded: at most this much. */
#define LINES_SCRATCH_MAX ((size_t)2 << 30)

/* The line walk: the sparse side's lists (built on the host) and the
 * scratch for the other side, or nothing where the scratch would be too
 * large (the tile kernels then run). */
static loom_status lines_prepare(loom_dual_gemm_plan *plan, cuda_gemm_data *d)
{
    const loom_bitmap_view *a = &plan->A->v, *b = &plan->B->v;
    const char *e = getenv("LOOM_DUAL_CUDA_KERNEL");
    bool rows = loom__dual_lines_over_rows(plan->A, plan->B);
    if (e && !strcmp(e, "rows"))
        rows = true;
    else if (e && !strcmp(e, "cols"))
        rows = false;
    const loom_dual_side ds = loom__dual_side_of(rows ? b : a, !rows);
    const int64_t w = loom__dual_cuda_lines_width(plan->dtype == LOOM_F64);
    /* (A leading dimension padded past the power of two, by 4 or 32
     * elements, was measured on an H200 and changed nothing.) */
    const int64_t lde = (ds.cross + w - 1) / w * w;
    const size_t es = loom_dtype_size(plan->dtype);
    const size_t bytes = (size_t)ds.k_tiles * LOOM__TILE * (size_t)lde * es;
    if (bytes > LINES_SCRATCH_MAX) {
        snprintf(plan->path, sizeof plan->path,
                 "cuda path: tile kernels (the line walk's scratch would be %zu MiB)", bytes >> 20);
        return LOOM_SUCCESS;
    }
    loom_dual_lines g; /* 4 lines of C a warp (dual_lines.cu) */
    loom_status st = loom__dual_lines_build(plan->A, plan->B, rows, 4, &g);
    if (st != LOOM_SUCCESS)
        return st;
    dual_cuda_lines *dl = &d->lines;
    memset(dl, 0, sizeof *dl);
    dl->rows = rows;
    dl->r = g.r;
    dl->lines = g.lines;
    dl->dense = (dual_cuda_side){ds.cross, ds.k_tiles, ds.cross_tiles, ds.sc, ds.sk};
    dl->lde = lde;
    int rc = loom__dual_cuda_csr_upload(g.groups, plan->k, g.start[g.groups], g.start, g.kidx,
                                        g.val, es * (size_t)g.r, &dl->list);
    loom__dual_lines_free(&g);
    if (rc == 0 && (rc = loom__dual_cuda_malloc(bytes, &dl->E)) != 0)
        loom__dual_cuda_csr_free(&dl->list);
    if (rc)
        return cuda_fail(rc, "the line walk's lists and scratch");
    d->has_lines = true;
    snprintf(plan->path, sizeof plan->path,
             "cuda path: line walk over the %s of C (%s's non-zeros against the other operand "
             "expanded, %zu MiB scratch)",
             rows ? "rows" : "columns", rows ? "A" : "B", bytes >> 20);
    return LOOM_SUCCESS;
}

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
    if (d->zero_safe && (st = lines_prepare(plan, d)) != LOOM_SUCCESS) {
        loom__dual_cuda_bitmap_free(&d->A);
        loom__dual_cuda_bitmap_free(&d->B);
        loom__free(d);
        return st;
    }
    if (!d->zero_safe)
        snprintf(plan->path, sizeof plan->path, "cuda path: tile kernels, exact (values not "
                                                "zero-safe)");
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
    if (d->has_lines) {
        loom__dual_cuda_csr_free(&d->lines.list);
        loom__dual_cuda_free(d->lines.E);
    }
    loom__free(d);
    plan->backend_data = NULL;
}

static loom_status cuda_dual_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                  loom_dense *C)
{
    cuda_gemm_data *d = plan->backend_data;
    dual_cuda_gemm_opts o = gemm_opts(d->zero_safe, d->has_lines ? &d->lines : NULL);
    int rc = loom__dual_cuda_gemm(&d->A, &d->B, plan->dtype == LOOM_F64, alpha, beta, C->data,
                                  C->ld, C->layout == LOOM_COL_MAJOR,
                                  C->memory == LOOM_MEMORY_DEVICE, &o, plan->ctx.stream);
    return rc ? cuda_fail(rc, "dual-side GEMM") : LOOM_SUCCESS;
}

/* ----------------------------------------------------- the convolution */

typedef struct cuda_conv_data {
    dual_cuda_conv *conv;
    bool w_zero_safe;
} cuda_conv_data;

static loom_status cuda_conv_prepare(loom_conv_plan *plan)
{
    cuda_conv_data *d = loom__calloc(1, sizeof *d);
    if (!d)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: out of memory");
    dual_cuda_bitmap W;
    loom_status st = upload(plan->W, false, &W);
    if (st != LOOM_SUCCESS) {
        loom__free(d);
        return st;
    }
    int rc = loom__dual_cuda_conv_create(&plan->shape, plan->out_h, plan->out_w, plan->im2col,
                                         plan->W->v.dtype == LOOM_F64, &W, &d->conv);
    if (rc) {
        loom__dual_cuda_bitmap_free(&W);
        loom__free(d);
        return cuda_fail(rc, "allocating the convolution's device buffers");
    }
    d->w_zero_safe = loom__dual_zero_safe(plan->W->v.values, plan->W->v.nnz, plan->W->v.dtype);
    plan->backend_data = d;
    return LOOM_SUCCESS;
}

static void cuda_conv_release(loom_conv_plan *plan)
{
    cuda_conv_data *d = plan->backend_data;
    if (!d)
        return;
    loom__dual_cuda_conv_destroy(d->conv);
    loom__free(d);
    plan->backend_data = NULL;
}

static loom_status cuda_conv(loom_conv_plan *plan, double alpha, const loom_dense *X, double beta,
                             loom_dense *Y)
{
    cuda_conv_data *d = plan->backend_data;
    dual_cuda_gemm_opts o = gemm_opts(d->w_zero_safe && loom__dual_dense_zero_safe(X), NULL);
    int rc = loom__dual_cuda_conv_run(d->conv, alpha, X->data, X->ld, beta, Y->data, &o,
                                      plan->ctx.stream);
    return rc ? cuda_fail(rc, "convolution") : LOOM_SUCCESS;
}

/* ------------------------------------------------ the im2col strategies */

static loom_status cuda_im2col_dense(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                     const loom_dense *X, int64_t image, loom_dense *cols)
{
    if (X->memory != LOOM_MEMORY_DEVICE || cols->memory != LOOM_MEMORY_DEVICE)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "dual backend cuda: dense im2col works on device memory");
    int rc = loom__dual_cuda_im2col_dense(s, out_h, out_w, X->data, X->ld,
                                          X->layout == LOOM_COL_MAJOR, image, cols->data, cols->ld,
                                          cols->layout == LOOM_COL_MAJOR, X->dtype == LOOM_F64,
                                          NULL);
    if (!rc)
        rc = loom__dual_cuda_sync(NULL);
    return rc ? cuda_fail(rc, "dense im2col") : LOOM_SUCCESS;
}

static loom_status cuda_im2col_csr(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                   int64_t out_w, const loom_csr *X, int64_t image,
                                   loom_csr **cols)
{
    size_t es = loom_dtype_size(X->dtype);
    int64_t rows = s->channels * s->kernel_h * s->kernel_w, ncols = out_h * out_w;
    /* Each input pixel lands in at most R*S rows. */
    int64_t cap = rows * ncols;
    if (X->nnz * s->kernel_h * s->kernel_w < cap)
        cap = X->nnz * s->kernel_h * s->kernel_w;
    dual_cuda_csr dx = {0}, dc = {0};
    int64_t *rp = NULL, nnz = 0;
    int32_t *ci = NULL;
    void *vals = NULL;
    const char *what = "copying X to the device";
    int rc = loom__dual_cuda_csr_upload(X->rows, X->cols, X->nnz, X->row_offsets, X->col_indices,
                                        X->values, es, &dx);
    if (!rc) {
        what = "allocating the im2col matrix";
        rc = loom__dual_cuda_csr_alloc(rows, ncols, cap, es, &dc);
    }
    if (!rc) {
        what = "CSR im2col";
        rc = loom__dual_cuda_im2col_csr(s, out_h, out_w, &dx, image, X->dtype == LOOM_F64, &dc,
                                        ctx->stream);
    }
    if (!rc)
        rc = loom__dual_cuda_csr_nnz(&dc, &nnz, ctx->stream);
    loom_status st = LOOM_SUCCESS;
    if (!rc) {
        rp = loom__malloc((size_t)(rows + 1) * sizeof *rp);
        ci = loom__malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
        vals = loom__malloc((size_t)(nnz ? nnz : 1) * es);
        if (!rp || !ci || !vals)
            st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: CSR im2col: out of memory");
        else {
            what = "copying the im2col matrix back";
            rc = loom__dual_cuda_csr_download(&dc, nnz, es, rp, ci, vals, ctx->stream);
        }
    }
    loom__dual_cuda_csr_free(&dx);
    loom__dual_cuda_csr_free(&dc);
    if (rc)
        st = cuda_fail(rc, what);
    if (st != LOOM_SUCCESS) {
        loom__free(rp);
        loom__free(ci);
        loom__free(vals);
        return st;
    }
    return loom__csr_adopt(ctx, rows, ncols, nnz, X->dtype, rp, ci, vals,
                           "dual backend cuda: CSR im2col", cols);
}

/* A padded device bitmap's tile bits, masks and values into a new host
 * (packed) bitmap. */
static loom_status download_bitmap(const dual_cuda_bitmap *d, loom_dtype dtype, void *stream,
                                   loom_bitmap **out)
{
    size_t es = loom_dtype_size(dtype);
    int64_t tiles = d->tile_rows * d->tile_cols;
    uint64_t *bits = loom__malloc((size_t)((tiles + 63) / 64 + 1) * sizeof *bits);
    uint32_t *masks = loom__malloc((size_t)(tiles * LOOM__TILE + 1) * sizeof *masks);
    char *padded = loom__malloc((size_t)(tiles * DUAL_CUDA_TILE_VALUES + 1) * es);
    loom_status st = LOOM_SUCCESS;
    if (!bits || !masks || !padded)
        st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual backend cuda: bitmap im2col: out of memory");
    int rc = st == LOOM_SUCCESS ? loom__dual_cuda_bitmap_download(d, es, bits, masks, padded, stream)
                                : 0;
    if (rc)
        st = cuda_fail(rc, "copying the im2col bitmap back");
    int64_t nnz = 0;
    for (int64_t w = 0; st == LOOM_SUCCESS && w < tiles * LOOM__TILE; w++)
        nnz += __builtin_popcount(masks[w]);
    loom_bitmap *b = NULL;
    if (st == LOOM_SUCCESS)
        st = loom__bitmap_alloc(d->rows, d->cols, nnz, LOOM_BITMAP_ROWS, dtype, &b);
    if (st == LOOM_SUCCESS) {
        memcpy(b->tile_bits, bits, (size_t)((tiles + 63) / 64) * sizeof *bits);
        memcpy(b->masks, masks, (size_t)(tiles * LOOM__TILE) * sizeof *masks);
        int64_t pos = 0;
        for (int64_t t = 0; t < tiles; t++) {
            int64_t n = 0;
            for (int l = 0; l < LOOM__TILE; l++)
                n += __builtin_popcount(masks[t * LOOM__TILE + l]);
            b->tile_offsets[t] = pos;
            memcpy((char *)b->values + (size_t)pos * es,
                   padded + (size_t)(t * DUAL_CUDA_TILE_VALUES) * es, (size_t)n * es);
            pos += n;
        }
        b->tile_offsets[tiles] = pos;
        *out = b;
    }
    loom__free(bits);
    loom__free(masks);
    loom__free(padded);
    return st;
}

static loom_status cuda_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                      int64_t out_w, const loom_bitmap *X, int64_t image,
                                      loom_bitmap **cols)
{
    size_t es = loom_dtype_size(X->v.dtype);
    int64_t rows = s->channels * s->kernel_h * s->kernel_w;
    dual_cuda_bitmap dx = {0}, dc = {0};
    loom_status st = upload(X, true, &dx);
    if (st != LOOM_SUCCESS)
        return st;
    int rc = loom__dual_cuda_bitmap_alloc_padded(rows, out_h * out_w, es, &dc);
    if (rc)
        st = cuda_fail(rc, "allocating the im2col bitmap");
    if (st == LOOM_SUCCESS &&
        (rc = loom__dual_cuda_im2col_bitmap(s, out_h, out_w, &dx, image, X->v.dtype == LOOM_F64,
                                            &dc, ctx->stream)) != 0)
        st = cuda_fail(rc, "bitmap im2col");
    if (st == LOOM_SUCCESS)
        st = download_bitmap(&dc, X->v.dtype, ctx->stream, cols);
    loom__dual_cuda_bitmap_free(&dx);
    loom__dual_cuda_bitmap_free(&dc);
    return st;
}

LOOM_INTERNAL const loom_dual_backend loom__cuda_dual_backend = {
    .id = LOOM_BACKEND_CUDA,
    .name = "cuda",
    .probe = cuda_dual_probe,
    .gemm_prepare = cuda_dual_prepare,
    .gemm_release = cuda_dual_release,
    .gemm = cuda_dual_gemm,
    .im2col_dense = cuda_im2col_dense,
    .im2col_csr = cuda_im2col_csr,
    .im2col_bitmap = cuda_im2col_bitmap,
    .conv_prepare = cuda_conv_prepare,
    .conv_release = cuda_conv_release,
    .conv = cuda_conv,
};
