/*
 * test_dual_cuda.c - the CUDA dual backend against the reference, bit for
 * bit (memcmp of whole buffers, padding included):
 *   - the dual-side GEMM: odd shapes, densities from dense (0% sparse) to
 *     empty (100%), f32 and f64, C in host and device memory, row- and
 *     column-major with a padded leading dimension, beta == 0 with C
 *     poisoned with NaN, more than 256 k-tiles; the line walk over rows
 *     and over columns and both tile kernels (LOOM_DUAL_CUDA_KERNEL),
 *     their block tiles (_TILE) and walks (_WALK), and both paths
 *     (_EXACT);
 *   - values outside the range where absent elements may be multiplied
 *     as zeros (products that round to -0) take the exact path unasked;
 *   - the convolution on the GPU with each im2col strategy: odd shapes,
 *     stride, padding, dilation, batch 2, sparsities from 0% to empty
 *     input or weights, Y poisoned with NaN when beta == 0;
 *   - the GPU's im2col matrices themselves (dense in device memory; CSR
 *     and bitmap through a context set to cuda) against the reference's,
 *     array by array.
 * Exits 77 (SKIP) with a message when this machine has no usable GPU or
 * libloom has no CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dual_util.h"
#include "test_operands.h"


static loom_context *ctx;     /* backend AUTO */
static loom_context *ctx_gpu; /* backend cuda */
static loom_context *ctx_ref; /* backend reference */
static long long checked;     /* results compared bit for bit */
/* LOOM_CUDA_TEST_QUICK=1 (as for test_cuda): a few cases of each kind,
 * for runs under compute-sanitizer. */
static bool quick;

static size_t span_bytes(const loom_dense *d)
{
    int64_t outer = d->layout == LOOM_ROW_MAJOR ? d->rows : d->cols;
    return (size_t)(outer * d->ld) * loom_dtype_size(d->dtype);
}

/* A host matrix with a padded leading dimension: random values, or NaN
 * everywhere (the poison for outputs that must be written). */
static void host_matrix(loom_dense *d, int64_t rows, int64_t cols, loom_layout layout,
                        loom_dtype dtype, bool poison, uint64_t seed)
{
    int64_t ld = (layout == LOOM_ROW_MAJOR ? cols : rows) + 3;
    size_t bytes = (size_t)((layout == LOOM_ROW_MAJOR ? rows : cols) * ld) * loom_dtype_size(dtype);
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    CHECK(loom_dense_init(d, rows, cols, ld, layout, dtype, LOOM_MEMORY_HOST, p));
    uint64_t s = seed;
    for (size_t e = 0; e < bytes / loom_dtype_size(dtype); e++) {
        double v = poison ? NAN : (double)(dual_rand(&s) >> 11) / 9007199254740992.0 - 0.5;
        if (dtype == LOOM_F32)
            ((float *)p)[e] = (float)v;
        else
            ((double *)p)[e] = v;
    }
}

static void host_copy(const loom_dense *src, loom_dense *dst)
{
    *dst = *src;
    dst->data = malloc(span_bytes(src) ? span_bytes(src) : 1);
    assert_non_null(dst->data);
    memcpy(dst->data, src->data, span_bytes(src));
}

/* ------------------------------------------------------------- the GEMM */

static void gemm_run(loom_backend_id id, const loom_bitmap *A, const loom_bitmap *B, double alpha,
                     double beta, loom_dense *C, bool device)
{
    loom_dense dC = *C;
    if (device) /* the same padded span on the device */
        dense_to_device(ctx, C, &dC);
    loom_dual_gemm_plan *plan = NULL;
    CHECK(loom_dual_gemm_plan_create(ctx, &plan, A, B, &dC, id));
    CHECK(loom_dual_gemm_execute(plan, alpha, beta, &dC));
    CHECK(loom_dual_gemm_plan_destroy(&plan));
    if (device) {
        dense_to_host(ctx, &dC, C);
        CHECK(loom_dense_free(ctx, &dC));
    }
}

/* The GEMM's configurations (LOOM_DUAL_CUDA_KERNEL, _TILE, _WALK; NULL
 * leaves the variable unset): the default (the line walk where the values
 * are zero-safe), the line walk over rows and over columns, the pipelined
 * kernel's tiles, the basic kernel's tiles and walks.  f64 takes those
 * with a NULL tile. */
static const struct gemm_config {
    const char *kernel, *tile, *walk;
} configs[] = {
    {NULL, NULL, NULL},          {"rows", NULL, NULL},         {"cols", NULL, NULL},
    {"pipe", NULL, NULL},        {"pipe", "64x256", NULL},     {"pipe", "64x128", NULL},
    {"basic", NULL, NULL},       {"basic", NULL, "union"},     {"basic", NULL, "rows"},
    {"basic", "64x256", NULL},   {"basic", "32x256", "union"}, {"basic", "32x128", "rows"},
    {"basic", "32x256", "rows"}, {"basic", "32x128", "union"},
};

static void set_or_unset(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void gemm_case(const loom_dense *Ad, const loom_dense *Bd, loom_dtype dt, uint64_t seed,
                      const char *what)
{
    int64_t m = Ad->rows, k = Ad->cols, n = Bd->cols;
    loom_bitmap *A = NULL, *B = NULL;
    CHECK(loom_bitmap_from_dense(ctx, Ad, LOOM_BITMAP_COLUMNS, &A));
    CHECK(loom_bitmap_from_dense(ctx, Bd, LOOM_BITMAP_ROWS, &B));
    for (int variant = 0; variant < 2; variant++) {
        /* 0: alpha, beta != 0, row-major C on the host;
         * 1: beta == 0, column-major C poisoned with NaN, on the device. */
        bool dev = variant == 1;
        double alpha = dev ? 1.0 : -0.5, beta = dev ? 0.0 : 0.25;
        loom_dense C0, Cr;
        host_matrix(&C0, m, n, dev ? LOOM_COL_MAJOR : LOOM_ROW_MAJOR, dt, dev, seed + variant);
        host_copy(&C0, &Cr);
        gemm_run(LOOM_BACKEND_REFERENCE, A, B, alpha, beta, &Cr, false);
        for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++)
            for (int exact = 0; exact < 2; exact++) {
                const struct gemm_config *cf = &configs[ci];
                if (dt == LOOM_F64 && cf->tile)
                    continue;
                set_or_unset("LOOM_DUAL_CUDA_KERNEL", cf->kernel);
                set_or_unset("LOOM_DUAL_CUDA_TILE", cf->tile);
                set_or_unset("LOOM_DUAL_CUDA_WALK", cf->walk);
                set_or_unset("LOOM_DUAL_CUDA_EXACT", exact ? "1" : NULL);
                loom_dense Cc;
                host_copy(&C0, &Cc);
                gemm_run(LOOM_BACKEND_CUDA, A, B, alpha, beta, &Cc, dev);
                if (memcmp(Cr.data, Cc.data, span_bytes(&Cr))) {
                    loom_compare_result r;
                    CHECK(loom_dense_compare(&Cr, &Cc, &r));
                    fail_msg("GEMM %s %lldx%lldx%lld %s, C in %s memory, kernel %s, tile %s, "
                             "walk %s, exact %d: %lld elements differ, first (%lld, %lld) "
                             "%.17g vs %.17g",
                             what, (long long)m, (long long)k, (long long)n, loom_dtype_name(dt),
                             dev ? "device" : "host", cf->kernel ? cf->kernel : "default",
                             cf->tile ? cf->tile : "auto", cf->walk ? cf->walk : "auto", exact,
                             (long long)r.differing, (long long)r.first_row,
                             (long long)r.first_col, r.first_a, r.first_b);
                }
                checked++;
                free(Cc.data);
            }
        free(C0.data);
        free(Cr.data);
    }
    unsetenv("LOOM_DUAL_CUDA_KERNEL");
    unsetenv("LOOM_DUAL_CUDA_TILE");
    unsetenv("LOOM_DUAL_CUDA_WALK");
    unsetenv("LOOM_DUAL_CUDA_EXACT");
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
}

static void test_gemm_matches_reference(void **state)
{
    (void)state;
    /* 40 x 8300 x 45: more than 256 k-tiles (the pipelined kernel lists
     * them 256 at a time). */
    const int64_t shapes[][3] = {{1, 1, 1},      {33, 65, 47},   {300, 500, 257}, {64, 1000, 96},
                                 {130, 70, 600}, {97, 31, 290}, {40, 8300, 45}};
    /* Densities of A and B: dense (0% sparse), empty (100%), and between. */
    const double dens[][2] = {{1.0, 1.0}, {0.0, 0.0}, {0.1, 0.1},
                              {0.5, 0.02}, {0.0, 0.3}, {0.3, 1.0}};
    uint64_t seed = 5;
    size_t nshapes = quick ? 2 : sizeof shapes / sizeof shapes[0];
    size_t ndens = quick ? 3 : sizeof dens / sizeof dens[0];
    for (size_t si = 0; si < nshapes; si++)
        for (size_t di = 0; di < ndens; di++)
            for (int dt = 0; dt < 2; dt++) {
                const int64_t m = shapes[si][0], k = shapes[si][1], n = shapes[si][2];
                loom_dense Ad, Bd;
                CHECK(dual_random_dense(ctx, &Ad, m, k, dens[di][0], (loom_dtype)dt,
                                        LOOM_ROW_MAJOR, seed++));
                CHECK(dual_random_dense(ctx, &Bd, k, n, dens[di][1], (loom_dtype)dt,
                                        LOOM_ROW_MAJOR, seed++));
                char what[64];
                snprintf(what, sizeof what, "density %g/%g", dens[di][0], dens[di][1]);
                gemm_case(&Ad, &Bd, (loom_dtype)dt, seed++, what);
                loom_dense_free(ctx, &Ad);
                loom_dense_free(ctx, &Bd);
            }
}

/* A(0,0)*B(0,0) underflows to -0 and A(0,1) is absent while A(1,1) is
 * not, so a walk that multiplied the absent A(0,1) as +0 would turn
 * C(0,0) into +0.  The plan must see the tiny values and take the exact
 * path by itself (LOOM_DUAL_CUDA_EXACT unset). */
static void test_gemm_tiny_values_take_exact_path(void **state)
{
    (void)state;
    for (int dt = 0; dt < 2; dt++) {
        double tiny = dt ? 1e-200 : 1e-30;
        loom_dense Ad, Bd;
        CHECK(loom_dense_alloc(ctx, &Ad, 2, 2, LOOM_ROW_MAJOR, (loom_dtype)dt, LOOM_MEMORY_HOST));
        CHECK(loom_dense_alloc(ctx, &Bd, 2, 3, LOOM_ROW_MAJOR, (loom_dtype)dt, LOOM_MEMORY_HOST));
        dual_set(&Ad, 0, 0, -tiny);
        dual_set(&Ad, 0, 1, 0);
        dual_set(&Ad, 1, 0, 0);
        dual_set(&Ad, 1, 1, 1);
        for (int j = 0; j < 3; j++) {
            dual_set(&Bd, 0, j, tiny);
            dual_set(&Bd, 1, j, j + 1);
        }
        loom_bitmap *A = NULL, *B = NULL;
        CHECK(loom_bitmap_from_dense(ctx, &Ad, LOOM_BITMAP_COLUMNS, &A));
        CHECK(loom_bitmap_from_dense(ctx, &Bd, LOOM_BITMAP_ROWS, &B));
        loom_dense Cr, Cc;
        host_matrix(&Cr, 2, 3, LOOM_ROW_MAJOR, (loom_dtype)dt, true, 1);
        host_copy(&Cr, &Cc);
        gemm_run(LOOM_BACKEND_REFERENCE, A, B, 1.0, 0.0, &Cr, false);
        assert_true(signbit(dual_get(&Cr, 0, 0)) && dual_get(&Cr, 0, 0) == 0);
        gemm_run(LOOM_BACKEND_CUDA, A, B, 1.0, 0.0, &Cc, false);
        assert_memory_equal(Cr.data, Cc.data, span_bytes(&Cr));
        checked++;
        free(Cr.data);
        free(Cc.data);
        loom_bitmap_destroy(&A);
        loom_bitmap_destroy(&B);
        loom_dense_free(ctx, &Ad);
        loom_dense_free(ctx, &Bd);
    }
}

/* ------------------------------------------------------ the convolution */

static const loom_conv_shape conv_shapes[] = {
    /* batch, C, H, W, F, R, S, stride h/w, pad h/w, dilation h/w */
    {1, 3, 7, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1},
    {2, 5, 11, 37, 6, 3, 3, 1, 1, 1, 1, 1, 1},   /* width over a tile, batch 2 */
    {1, 4, 13, 70, 3, 3, 5, 2, 2, 1, 2, 1, 1},   /* strides, unequal padding */
    {2, 3, 9, 40, 5, 3, 3, 1, 1, 2, 2, 2, 2},    /* dilation */
    {1, 2, 6, 6, 2, 1, 1, 1, 1, 0, 0, 1, 1},     /* 1x1 */
    {1, 40, 5, 33, 35, 2, 2, 1, 1, 0, 3, 1, 1},  /* C*R*S over a tile, wide pad */
    {1, 16, 20, 21, 40, 3, 3, 1, 2, 1, 1, 1, 1}, /* 144 x 220 im2col, F over a tile */
};

static void conv_run(loom_backend_id id, loom_im2col strat, const loom_bitmap *W,
                     const loom_conv_shape *sh, double alpha, const loom_dense *X, double beta,
                     loom_dense *Y)
{
    loom_conv_plan *p = NULL;
    CHECK(loom_conv_plan_create(ctx, &p, sh, W, strat, id));
    CHECK(loom_conv_execute(p, alpha, X, beta, Y));
    CHECK(loom_conv_plan_destroy(&p));
}

static void conv_case(const loom_conv_shape *sh, const loom_dense *X, const loom_dense *Wd,
                      uint64_t seed, const char *what)
{
    int64_t oh, ow;
    CHECK(loom_conv_output_size(sh, &oh, &ow));
    loom_bitmap *W = NULL;
    CHECK(loom_bitmap_from_dense(ctx, Wd, LOOM_BITMAP_COLUMNS, &W));
    const double ab[][2] = {{1, 0}, {0.5, -2}};
    for (int i = 0; i < 2; i++) {
        loom_dense Y0, Yr;
        /* Y must be contiguous: (batch*F*out_h) x out_w, ld = out_w. */
        CHECK(loom_dense_alloc(ctx, &Y0, sh->batch * sh->filters * oh, ow, LOOM_ROW_MAJOR,
                               X->dtype, LOOM_MEMORY_HOST));
        uint64_t s = seed + (uint64_t)i;
        for (int64_t r = 0; r < Y0.rows; r++)
            for (int64_t c = 0; c < Y0.cols; c++)
                dual_set(&Y0, r, c,
                         ab[i][1] == 0 ? NAN : (double)(dual_rand(&s) >> 11) / 9007199254740992.0);
        host_copy(&Y0, &Yr);
        conv_run(LOOM_BACKEND_REFERENCE, LOOM_IM2COL_BITMAP, W, sh, ab[i][0], X, ab[i][1], &Yr);
        for (int strat = 0; strat < 5; strat++) {
            /* 3 and 4: the bitmap strategy with the exact GEMM path forced,
             * then with the basic GEMM kernel. */
            set_or_unset("LOOM_DUAL_CUDA_EXACT", strat == 3 ? "1" : NULL);
            set_or_unset("LOOM_DUAL_CUDA_KERNEL", strat == 4 ? "basic" : NULL);
            loom_dense Yc;
            host_copy(&Y0, &Yc);
            conv_run(LOOM_BACKEND_CUDA, (loom_im2col)(strat >= 3 ? LOOM_IM2COL_BITMAP : strat), W,
                     sh, ab[i][0], X, ab[i][1], &Yc);
            unsetenv("LOOM_DUAL_CUDA_EXACT");
            unsetenv("LOOM_DUAL_CUDA_KERNEL");
            if (memcmp(Yr.data, Yc.data, span_bytes(&Yr))) {
                loom_compare_result r;
                CHECK(loom_dense_compare(&Yr, &Yc, &r));
                fail_msg("conv %s (C %lld, H %lld, W %lld, F %lld, %lldx%lld) %s, im2col %d%s, "
                         "alpha %g beta %g: %lld elements differ, first (%lld, %lld) %.17g vs "
                         "%.17g",
                         what, (long long)sh->channels, (long long)sh->height,
                         (long long)sh->width, (long long)sh->filters, (long long)sh->kernel_h,
                         (long long)sh->kernel_w, loom_dtype_name(X->dtype),
                         strat >= 3 ? 2 : strat,
                         strat == 3 ? " (exact path)" : strat == 4 ? " (basic kernel)" : "",
                         ab[i][0],
                         ab[i][1], (long long)r.differing, (long long)r.first_row,
                         (long long)r.first_col, r.first_a, r.first_b);
            }
            checked++;
            free(Yc.data);
        }
        free(Yr.data);
        loom_dense_free(ctx, &Y0);
    }
    loom_bitmap_destroy(&W);
}

static void test_conv_matches_reference(void **state)
{
    (void)state;
    /* Densities of X and W: dense, empty X, empty W, and between. */
    const double dens[][2] = {{1.0, 1.0}, {0.0, 0.5}, {0.5, 0.0},
                              {0.5, 0.4}, {0.05, 1.0}, {0.9, 0.1}};
    uint64_t seed = 1000;
    size_t nshapes = quick ? 3 : sizeof conv_shapes / sizeof conv_shapes[0];
    size_t ndens = quick ? 3 : sizeof dens / sizeof dens[0];
    for (size_t i = 0; i < nshapes; i++)
        for (size_t d = 0; d < ndens; d++)
            for (int dt = 0; dt < 2; dt++) {
                const loom_conv_shape *sh = &conv_shapes[i];
                loom_dense X, Wd;
                CHECK(dual_random_dense(ctx, &X, sh->batch * sh->channels * sh->height,
                                        sh->width, dens[d][0], (loom_dtype)dt, LOOM_ROW_MAJOR,
                                        seed++));
                CHECK(dual_random_dense(ctx, &Wd, sh->filters,
                                        sh->channels * sh->kernel_h * sh->kernel_w, dens[d][1],
                                        (loom_dtype)dt, LOOM_ROW_MAJOR, seed++));
                char what[64];
                snprintf(what, sizeof what, "density X %g W %g", dens[d][0], dens[d][1]);
                conv_case(sh, &X, &Wd, seed++, what);
                loom_dense_free(ctx, &X);
                loom_dense_free(ctx, &Wd);
            }
}

/* Tiny activations and weights: products round to -0, the conv's GEMM
 * must take its exact path by itself. */
static void test_conv_tiny_values(void **state)
{
    (void)state;
    const loom_conv_shape *sh = &conv_shapes[1];
    for (int dt = 0; dt < 2; dt++) {
        double tiny = dt ? 1e-170 : 1e-25;
        loom_dense X, Wd;
        CHECK(dual_random_dense(ctx, &X, sh->batch * sh->channels * sh->height, sh->width, 0.6,
                                (loom_dtype)dt, LOOM_ROW_MAJOR, 77));
        CHECK(dual_random_dense(ctx, &Wd, sh->filters, sh->channels * sh->kernel_h * sh->kernel_w,
                                0.6, (loom_dtype)dt, LOOM_ROW_MAJOR, 78));
        for (int64_t r = 0; r < X.rows; r++)
            for (int64_t c = 0; c < X.cols; c++)
                dual_set(&X, r, c, dual_get(&X, r, c) * tiny);
        for (int64_t r = 0; r < Wd.rows; r++)
            for (int64_t c = 0; c < Wd.cols; c++)
                dual_set(&Wd, r, c, dual_get(&Wd, r, c) * tiny);
        conv_case(sh, &X, &Wd, 79, "tiny values");
        loom_dense_free(ctx, &X);
        loom_dense_free(ctx, &Wd);
    }
}

/* ------------------------------------------- the im2col matrices alone */

static void same_csr(const loom_csr *a, const loom_csr *b, const char *what)
{
    int64_t ra, ca, na, rb, cb, nb;
    loom_dtype da, db;
    loom_memory ma, mb;
    CHECK(loom_csr_info(a, &ra, &ca, &na, &da, &ma));
    CHECK(loom_csr_info(b, &rb, &cb, &nb, &db, &mb));
    if (ra != rb || ca != cb || na != nb)
        fail_msg("%s: CSR %lldx%lld with %lld entries, reference %lldx%lld with %lld", what,
                 (long long)rb, (long long)cb, (long long)nb, (long long)ra, (long long)ca,
                 (long long)na);
    const int64_t *rpa, *rpb;
    const int32_t *cia, *cib;
    const void *va, *vb;
    CHECK(loom_csr_arrays(a, &rpa, &cia, &va));
    CHECK(loom_csr_arrays(b, &rpb, &cib, &vb));
    if (memcmp(rpa, rpb, (size_t)(ra + 1) * sizeof *rpa) ||
        memcmp(cia, cib, (size_t)na * sizeof *cia) ||
        memcmp(va, vb, (size_t)na * loom_dtype_size(da)))
        fail_msg("%s: CSR arrays differ from the reference's", what);
}

static void same_bitmap(const loom_bitmap *want, const loom_bitmap *got, const char *what)
{
    char msg[200];
    if (!dual_same_bitmap(want, got, msg, sizeof msg))
        fail_msg("%s: %s", what, msg);
}

static void test_im2col_matrices(void **state)
{
    (void)state;
    const double dens[] = {1.0, 0.3, 0.0};
    uint64_t seed = 4000;
    size_t nshapes = quick ? 3 : sizeof conv_shapes / sizeof conv_shapes[0];
    for (size_t i = 0; i < nshapes; i++)
        for (size_t d = 0; d < 3; d++)
            for (int dt = 0; dt < 2; dt++) {
                const loom_conv_shape *sh = &conv_shapes[i];
                int64_t oh, ow, crs = sh->channels * sh->kernel_h * sh->kernel_w;
                CHECK(loom_conv_output_size(sh, &oh, &ow));
                loom_dense X;
                CHECK(dual_random_dense(ctx, &X, sh->batch * sh->channels * sh->height,
                                        sh->width, dens[d], (loom_dtype)dt, LOOM_ROW_MAJOR,
                                        seed++));
                loom_bitmap *Xb = NULL;
                loom_csr *Xc = NULL;
                CHECK(loom_bitmap_from_dense(ctx, &X, LOOM_BITMAP_ROWS, &Xb));
                CHECK(loom_bitmap_to_csr(ctx, Xb, &Xc));
                for (int64_t n = 0; n < sh->batch; n++) {
                    char what[96];
                    snprintf(what, sizeof what, "im2col of shape %zu, density %g, %s, image %lld",
                             i, dens[d], dt ? "f64" : "f32", (long long)n);
                    /* Dense: X and cols in device memory, both layouts of cols. */
                    for (int layout = 0; layout < 2; layout++) {
                        loom_dense want, got, dX, dcols;
                        CHECK(loom_dense_alloc(ctx, &want, crs, oh * ow, (loom_layout)layout,
                                               X.dtype, LOOM_MEMORY_HOST));
                        CHECK(loom_conv_im2col_dense(sh, &X, n, &want));
                        CHECK(loom_dense_alloc(ctx, &dX, X.rows, X.cols, LOOM_ROW_MAJOR, X.dtype,
                                               LOOM_MEMORY_DEVICE));
                        CHECK(loom_dense_copy(ctx, &X, &dX));
                        CHECK(loom_dense_alloc(ctx, &dcols, crs, oh * ow, (loom_layout)layout,
                                               X.dtype, LOOM_MEMORY_DEVICE));
                        CHECK(loom_dense_alloc(ctx, &got, crs, oh * ow, (loom_layout)layout,
                                               X.dtype, LOOM_MEMORY_HOST));
                        /* Poison the device output through a NaN host copy. */
                        for (int64_t r = 0; r < crs; r++)
                            for (int64_t c = 0; c < oh * ow; c++)
                                dual_set(&got, r, c, NAN);
                        CHECK(loom_dense_copy(ctx, &got, &dcols));
                        CHECK(loom_conv_im2col_dense(sh, &dX, n, &dcols));
                        CHECK(loom_dense_copy(ctx, &dcols, &got));
                        if (memcmp(want.data, got.data, span_bytes(&want)))
                            fail_msg("%s: dense (%s) differs", what,
                                     layout ? "column-major" : "row-major");
                        checked++;
                        loom_dense_free(ctx, &want);
                        loom_dense_free(ctx, &got);
                        loom_dense_free(ctx, &dX);
                        loom_dense_free(ctx, &dcols);
                    }
                    loom_csr *cr = NULL, *cg = NULL;
                    CHECK(loom_conv_im2col_csr(ctx_ref, sh, Xc, n, &cr));
                    CHECK(loom_conv_im2col_csr(ctx_gpu, sh, Xc, n, &cg));
                    same_csr(cr, cg, what);
                    checked++;
                    loom_csr_destroy(&cr);
                    loom_csr_destroy(&cg);
                    loom_bitmap *br = NULL, *bg = NULL;
                    CHECK(loom_conv_im2col_bitmap(ctx_ref, sh, Xb, n, &br));
                    CHECK(loom_conv_im2col_bitmap(ctx_gpu, sh, Xb, n, &bg));
                    same_bitmap(br, bg, what);
                    checked++;
                    loom_bitmap_destroy(&br);
                    loom_bitmap_destroy(&bg);
                }
                loom_bitmap_destroy(&Xb);
                loom_csr_destroy(&Xc);
                loom_dense_free(ctx, &X);
            }
}

static void test_errors(void **state)
{
    (void)state;
    const loom_conv_shape *sh = &conv_shapes[0];
    int64_t oh, ow, crs = sh->channels * sh->kernel_h * sh->kernel_w;
    CHECK(loom_conv_output_size(sh, &oh, &ow));
    loom_dense X, dcols;
    CHECK(dual_random_dense(ctx, &X, sh->channels * sh->height, sh->width, 0.5, LOOM_F32,
                            LOOM_ROW_MAJOR, 9));
    CHECK(loom_dense_alloc(ctx, &dcols, crs, oh * ow, LOOM_ROW_MAJOR, LOOM_F32,
                           LOOM_MEMORY_DEVICE));
    loom_status st = loom_conv_im2col_dense(sh, &X, 0, &dcols);
    if (st != LOOM_ERR_NOT_SUPPORTED ||
        !strstr(loom_last_error(), "must both be in host memory or both in device memory"))
        fail_msg("host X, device cols: status %d (%s), message \"%s\"", (int)st,
                 loom_strerror(st), loom_last_error());
    loom_dense_free(ctx, &dcols);
    loom_dense_free(ctx, &X);
}

static void test_summary(void **state)
{
    (void)state;
    printf("test_dual_cuda: %lld results compared bit for bit with the reference\n", checked);
}

int main(void)
{
    if (loom_context_create(&ctx) != LOOM_SUCCESS)
        return 1;
    /* Probe through a 1x1 plan: the dual backend's own availability check. */
    static float one = 1;
    loom_dense d;
    loom_dense_init(&d, 1, 1, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, &one);
    loom_bitmap *A = NULL, *B = NULL;
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_COLUMNS, &A);
    loom_bitmap_from_dense(ctx, &d, LOOM_BITMAP_ROWS, &B);
    loom_dual_gemm_plan *p = NULL;
    loom_status st = loom_dual_gemm_plan_create(ctx, &p, A, B, &d, LOOM_BACKEND_CUDA);
    loom_dual_gemm_plan_destroy(&p);
    loom_bitmap_destroy(&A);
    loom_bitmap_destroy(&B);
    if (st == LOOM_ERR_BACKEND_UNAVAILABLE) {
        printf("SKIP: test_dual_cuda: %s\n", loom_last_error());
        loom_context_destroy(&ctx);
        return 77;
    }
    const char *q = getenv("LOOM_CUDA_TEST_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;
    if (loom_context_create(&ctx_gpu) != LOOM_SUCCESS ||
        loom_context_set_backend(ctx_gpu, LOOM_BACKEND_CUDA) != LOOM_SUCCESS ||
        loom_context_create(&ctx_ref) != LOOM_SUCCESS ||
        loom_context_set_backend(ctx_ref, LOOM_BACKEND_REFERENCE) != LOOM_SUCCESS)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_matches_reference),
        cmocka_unit_test(test_gemm_tiny_values_take_exact_path),
        cmocka_unit_test(test_conv_matches_reference),
        cmocka_unit_test(test_conv_tiny_values),
        cmocka_unit_test(test_im2col_matrices),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_summary),
    };
    int rc = cmocka_run_group_tests_name("dual_cuda", tests, NULL, NULL);
    loom_context_destroy(&ctx_gpu);
    loom_context_destroy(&ctx_ref);
    loom_context_destroy(&ctx);
    return rc;
}
