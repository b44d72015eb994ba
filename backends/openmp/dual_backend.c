/*
 * dual_backend.c - the OpenMP dual backend's descriptor: the dual-side GEMM
 * (the line walk of dual_lines.c where the values allow it, else the tile
 * walk of dual_gemm_impl.h) and the fast im2col strategies (dual_im2col.c).
 *
 * LOOM_DUAL_OMP_PATH=tiles|rows|cols forces the GEMM's path, for tests and
 * benchmarks; it never changes the bits: operands that are not zero-safe
 * (lib/dual_zero_safe.c) always take the tile walk.
 */
#include "config.h"
#include "omp_dual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static loom_status openmp_dual_probe(void)
{
    return LOOM_SUCCESS;
}

static bool cpu_has_popcnt(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
#else
    return true;
#endif
}

static bool cpu_has_avx2_fma(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

/* The plan's data: the line walk's lists, or NULL for the tile walk. */
static loom_status openmp_dual_gemm_prepare(loom_dual_gemm_plan *plan)
{
    const loom_bitmap_view *a = &plan->A->v, *b = &plan->B->v;
    const char *force = getenv("LOOM_DUAL_OMP_PATH");
    const bool safe = loom__dual_zero_safe(a->values, a->nnz, plan->dtype) &&
                      loom__dual_zero_safe(b->values, b->nnz, plan->dtype);
    if (!cpu_has_popcnt() || !safe || (force && !strcmp(force, "tiles"))) {
        snprintf(plan->path, sizeof plan->path, "openmp path: tile walk (%s)",
                 !safe ? "values not zero-safe" : "forced");
        return LOOM_SUCCESS;
    }
    bool rows = loom__dual_lines_over_rows(plan->A, plan->B);
    if (force && !strcmp(force, "rows"))
        rows = true;
    else if (force && !strcmp(force, "cols"))
        rows = false;
    loom_dual_lines *l = loom__malloc(sizeof *l);
    if (!l)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "dual-side GEMM (openmp): out of memory");
    loom_status st = loom__dual_lines_build(plan->A, plan->B, rows, 1, l);
    if (st != LOOM_SUCCESS) {
        loom__free(l);
        return st;
    }
    plan->backend_data = l;
    snprintf(plan->path, sizeof plan->path,
             "openmp path: line walk over the %s of C (%s's non-zeros against the other operand "
             "expanded, 256-byte panels)",
             rows ? "rows" : "columns", rows ? "A" : "B");
    return LOOM_SUCCESS;
}

static void openmp_dual_gemm_release(loom_dual_gemm_plan *plan)
{
    if (plan->backend_data)
        loom__dual_lines_free(plan->backend_data);
    loom__free(plan->backend_data);
    plan->backend_data = NULL;
}

static loom_status openmp_dual_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                    loom_dense *C)
{
    if (!cpu_has_popcnt()) /* the kernels are built for it */
        return loom__dual_backend(LOOM_BACKEND_REFERENCE)->gemm(plan, alpha, beta, C);
    bool vector = cpu_has_avx2_fma();
    const loom_dual_lines *l = plan->backend_data;
    if (l && plan->dtype == LOOM_F32)
        return loom__omp_dual_lines_gemm_f32(l, plan->A, plan->B, (float)alpha, (float)beta, C,
                                             plan->ctx.threads, vector);
    if (l)
        return loom__omp_dual_lines_gemm_f64(l, plan->A, plan->B, alpha, beta, C,
                                             plan->ctx.threads, vector);
    if (plan->dtype == LOOM_F32)
        loom__omp_dual_gemm_f32(plan->A, plan->B, (float)alpha, (float)beta, C, plan->ctx.threads,
                                vector);
    else
        loom__omp_dual_gemm_f64(plan->A, plan->B, alpha, beta, C, plan->ctx.threads, vector);
    return LOOM_SUCCESS;
}

#define WITH_POPCNT(fn, ref, ...) (cpu_has_popcnt() ? fn(__VA_ARGS__) : ref(__VA_ARGS__))

static loom_status openmp_im2col_dense(const loom_conv_shape *s, int64_t out_h, int64_t out_w,
                                       const loom_dense *X, int64_t image, loom_dense *cols)
{
    return loom__omp_im2col_dense(s, out_h, out_w, X, image, cols);
}

static loom_status openmp_im2col_csr(loom_context *ctx, const loom_conv_shape *s, int64_t out_h,
                                     int64_t out_w, const loom_csr *X, int64_t image,
                                     loom_csr **cols)
{
    return WITH_POPCNT(loom__omp_im2col_csr, loom__ref_im2col_csr, ctx, s, out_h, out_w, X, image,
                       cols);
}

static loom_status openmp_im2col_bitmap(loom_context *ctx, const loom_conv_shape *s,
                                        int64_t out_h, int64_t out_w, const loom_bitmap *X,
                                        int64_t image, loom_bitmap **cols)
{
    return WITH_POPCNT(loom__omp_im2col_bitmap, loom__ref_im2col_bitmap, ctx, s, out_h, out_w, X,
                       image, cols);
}

LOOM_INTERNAL const loom_dual_backend loom__openmp_dual_backend = {
    .id = LOOM_BACKEND_OPENMP,
    .name = "openmp",
    .probe = openmp_dual_probe,
    .gemm_prepare = openmp_dual_gemm_prepare,
    .gemm_release = openmp_dual_gemm_release,
    .gemm = openmp_dual_gemm,
    .im2col_dense = openmp_im2col_dense,
    .im2col_csr = openmp_im2col_csr,
    .im2col_bitmap = openmp_im2col_bitmap,
};
