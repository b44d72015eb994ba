/*
 * check.c - verdicts on a result: bit-exact against the reference, and
 * within a stated bound of an independent float64 computation.
 */
#include "config.h"
#include "check.h"

#include "tc_model.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

loom_status tool_check_exact(const loom_dense *y, const loom_dense *ref, tool_exact_check *r)
{
    memset(r, 0, sizeof *r);
    loom_status st = loom_dense_compare(y, ref, &r->cmp);
    if (st != LOOM_SUCCESS)
        return st;
    /* Both were allocated packed with the same shape and layout, so the
     * buffers must be equal byte for byte; the element count above must agree. */
    size_t bytes = (size_t)(y->rows * y->cols) * loom_dtype_size(y->dtype);
    bool same_bytes = y->layout == ref->layout && y->ld == ref->ld &&
                      (bytes == 0 || memcmp(y->data, ref->data, bytes) == 0);
    r->bit_exact = same_bytes && r->cmp.differing == 0;
    return LOOM_SUCCESS;
}

void tool_format_exact(const tool_exact_check *r, char *buf, size_t len)
{
    if (r->bit_exact) {
        snprintf(buf, len, "bit-exact");
        return;
    }
    const loom_compare_result *c = &r->cmp;
    snprintf(buf, len,
             "NOT bit-exact: %" PRId64 " elements differ, max %" PRIu64 " ULP, max |diff| %.3g; "
             "first at (%" PRId64 ", %" PRId64 "): %.17g against %.17g",
             c->differing, c->max_ulp, c->max_abs_diff, c->first_row, c->first_col, c->first_a,
             c->first_b);
}

static double element(const loom_dense *d, int64_t i, int64_t j)
{
    int64_t k = d->layout == LOOM_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
    return d->dtype == LOOM_F32 ? (double)((const float *)d->data)[k] : ((const double *)d->data)[k];
}

static double gamma_n(double n, double u)
{
    return n * u < 1 ? n * u / (1 - n * u) : INFINITY;
}

/* Row i of alpha*A*X in double: the value and the sum of magnitudes. */
static void row_f64(const tool_problem *p, const int64_t *ro, const int32_t *ci, const void *val,
                    int64_t i, double *sum, double *mag)
{
    for (int64_t c = 0; c < p->n; c++)
        sum[c] = mag[c] = 0;
    for (int64_t e = ro[i]; e < ro[i + 1]; e++) {
        double a = p->dtype == LOOM_F32 ? (double)((const float *)val)[e] : ((const double *)val)[e];
        for (int64_t c = 0; c < p->n; c++) {
            double t = a * element(&p->X, ci[e], c);
            sum[c] += t;
            mag[c] += fabs(t);
        }
    }
}

static void judge(tool_f64_check *r, double y, double y64, double bound, int64_t i, int64_t c)
{
    double err = fabs(y - y64);
    bool ok;
    if (isfinite(y) && isfinite(y64))
        ok = err <= bound;
    else
        ok = y == y64; /* equal infinities; NaN never passes */
    double ratio = ok ? (bound > 0 ? err / bound : 0) : INFINITY;
    r->checked++;
    if (!ok)
        r->exceeding++;
    if (err > r->max_abs_err || isnan(err))
        r->max_abs_err = err;
    if (ratio > r->worst_ratio || r->worst_row < 0) {
        r->worst_ratio = ratio;
        r->worst_row = i;
        r->worst_col = c;
    }
}

/*
 * Tensor-core strategies round A and X to the MMA's precision and add
 * inside the MMA unit in a way no model has matched bit for bit on every
 * device, so each element is held to tc_element_bound (reference/
 * tc_model.c): the exact product of the stored operands, within the
 * error of the operand rounding and of the coarsest MMA addition (which
 * covers any device's).  The operands are row-major (the tensor-core
 * strategies need it) and f32 here.
 */
static loom_status check_tc(const tool_problem *p, const loom_strategy *s, const int64_t *ro,
                            const int32_t *ci, const void *val, const loom_dense *Y,
                            tool_f64_check *r)
{
    if (p->dtype != LOOM_F32 || p->X.layout != LOOM_ROW_MAJOR || Y->layout != LOOM_ROW_MAJOR)
        return LOOM_ERR_NOT_SUPPORTED;
    tc_config cfg = {(tc_precision)s->tc_precision, s->tc_k, (tc_form)s->tc_form};
    tc_mma_model model;
    tc_model_conservative(&model, s->tc_k);
    tc_problem tp = {p->m, p->k, p->n, ro, ci, val, TC_VAL_F32, p->X.data, p->X.ld,
                     Y->data, Y->ld, (float)p->alpha, 0.0f};
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t c = 0; c < p->n; c++) {
            double exact;
            double bound = tc_element_bound(&tp, &cfg, &model, i, c, 0.0, &exact);
            judge(r, element(Y, i, c), exact, bound, i, c);
        }
    return LOOM_SUCCESS;
}

loom_status tool_check_f64(const tool_problem *p, const loom_strategy *s, const loom_dense *Y,
                           tool_f64_check *r)
{
    memset(r, 0, sizeof *r);
    r->worst_row = r->worst_col = -1;
    const int64_t *ro;
    const int32_t *ci;
    const void *val;
    loom_status st = loom_csr_arrays(p->A, &ro, &ci, &val);
    if (st != LOOM_SUCCESS)
        return st;
    if (s->kloop == LOOM_K_TC)
        return check_tc(p, s, ro, ci, val, Y, r);
    double u = p->dtype == LOOM_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    double eta = p->dtype == LOOM_F32 ? 0x1p-149 : 0x1p-1074;
    double *sum = malloc(2 * (size_t)p->n * sizeof *sum);
    if (!sum)
        return LOOM_ERR_OUT_OF_MEMORY;
    double *mag = sum + p->n;
    for (int64_t i = 0; i < p->m; i++) {
        row_f64(p, ro, ci, val, i, sum, mag);
        double len = (double)(ro[i + 1] - ro[i]);
        double factor = gamma_n(len + 1, u) + gamma_n(len, DBL_EPSILON / 2);
        for (int64_t c = 0; c < p->n; c++) {
            double bound = fabs(p->alpha) * factor * mag[c] + (len + 2) * eta;
            judge(r, element(Y, i, c), p->alpha * sum[c], bound, i, c);
        }
    }
    free(sum);
    return LOOM_SUCCESS;
}

void tool_format_f64(const tool_f64_check *r, char *buf, size_t len)
{
    if (r->exceeding == 0)
        snprintf(buf, len, "within bound: max |error| %.3g, at most %.1f%% of the bound",
                 r->max_abs_err, 100 * r->worst_ratio);
    else
        snprintf(buf, len,
                 "OUTSIDE bound: %" PRId64 " of %" PRId64 " elements, max |error| %.3g, "
                 "first worst at (%" PRId64 ", %" PRId64 ")",
                 r->exceeding, r->checked, r->max_abs_err, r->worst_row, r->worst_col);
}

const char *tool_f64_bound_text(loom_dtype dtype, const loom_strategy *s)
{
    if (s->kloop == LOOM_K_TC)
        return "|y - y_exact| <= the tensor-core bound of reference/tc_model.c (operands rounded to "
               "the MMA precision, fp32 accumulation in the coarsest MMA addition any device has)";
    return dtype == LOOM_F32
               ? "|y - y64| <= (g(L+1, 2^-24) + g(L, 2^-53)) * |alpha| * sum|a*x|, g(n, u) = nu/(1-nu), L = row length"
               : "|y - y64| <= (g(L+1, 2^-53) + g(L, 2^-53)) * |alpha| * sum|a*x|, g(n, u) = nu/(1-nu), L = row length";
}
