/*
 * dual_backend.c - the OpenMP dual backend's descriptor: the dual-side GEMM
 * (dual_gemm_impl.h) and the fast im2col strategies (dual_im2col.c).
 */
#include "config.h"
#include "omp_dual.h"

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

static loom_status openmp_dual_gemm(loom_dual_gemm_plan *plan, double alpha, double beta,
                                    loom_dense *C)
{
    if (!cpu_has_popcnt()) /* the kernels are built for it */
        return loom__dual_backend(LOOM_BACKEND_REFERENCE)->gemm(plan, alpha, beta, C);
    bool vector = cpu_has_avx2_fma();
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
    .gemm = openmp_dual_gemm,
    .im2col_dense = openmp_im2col_dense,
    .im2col_csr = openmp_im2col_csr,
    .im2col_bitmap = openmp_im2col_bitmap,
};
