/*
 * dual_zero_safe.c - may a dual-side GEMM multiply absent elements as
 * zeros and still give loom__ref_dual_gemm's bits?
 *
 * The fast paths (backends/cuda/dual_gemm.cu, and the OpenMP row walk in
 * backends/openmp/dual_gemm_impl.h) compute
 * fma(a, b, acc) with a or b an absent element stored as +0.  That returns
 * acc unchanged, bit for bit, unless acc is -0 or the other operand is
 * Inf or NaN.  When every non-zero value v is finite with |v| >= 2^-50
 * (f32) or 2^-480 (f64), each product a*b is a multiple of the smallest
 * subnormal (2^-149, 2^-1074: the ulps of a and b are at least 2^-73 and
 * 2^-532), so acc + a*b is exactly 0, rounded to +0, or at least the
 * smallest subnormal, which does not round to 0: acc is never -0, and
 * never NaN.  Values outside that range (subnormal or tiny, Inf, NaN) send
 * the GEMM down its exact path, which multiplies only pairs of non-zeros.
 */
#include "config.h"
#include "dual_internal.h"

#include <float.h>
#include <math.h>

/* Branch-free (the flags are combined with &), so half-empty data costs no
 * mispredictions and the loop vectorizes: it runs on every execute of a
 * convolution, over X. */
bool loom__dual_zero_safe(const void *values, int64_t n, loom_dtype dtype)
{
    int ok = 1;
    if (dtype == LOOM_F32) {
        const float *v = values;
        const float tiny = ldexpf(1.0f, -50);
        for (int64_t i = 0; i < n; i++) {
            float a = fabsf(v[i]);
            ok &= (a == 0.0f) | ((a >= tiny) & (a <= FLT_MAX));
        }
        return ok;
    }
    const double *v = values;
    const double tiny = ldexp(1.0, -480);
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(v[i]);
        ok &= (a == 0.0) | ((a >= tiny) & (a <= DBL_MAX));
    }
    return ok;
}

bool loom__dual_dense_zero_safe(const loom_dense *d)
{
    size_t es = loom_dtype_size(d->dtype);
    bool rows = d->layout == LOOM_ROW_MAJOR;
    int64_t outer = rows ? d->rows : d->cols, inner = rows ? d->cols : d->rows;
    for (int64_t o = 0; o < outer; o++)
        if (!loom__dual_zero_safe((const char *)d->data + (size_t)(o * d->ld) * es, inner,
                                  d->dtype))
            return false;
    return true;
}
