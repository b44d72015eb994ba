/*
 * check.h - the two verdicts on a result Y:
 *   exact:   the same design run by the reference backend must give the same
 *            bits (the contract of loom-designs(7));
 *   float64: an independent plain double loop in this program, which only
 *            has to agree within a rounding-error bound (any summation order
 *            satisfies it, so it also catches a wrong design or reference).
 */
#ifndef TOOL_CHECK_H
#define TOOL_CHECK_H

#include <loom.h>

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

typedef struct tool_exact_check {
    bool bit_exact;
    loom_compare_result cmp;
} tool_exact_check;

/* Compare y against the reference's ref, byte for byte (same shape and layout). */
loom_status tool_check_exact(const loom_dense *y, const loom_dense *ref, tool_exact_check *r);
/* "bit-exact", or "N of T elements differ, max U ULP, ...". */
void tool_format_exact(const tool_exact_check *r, char *buf, size_t len);

typedef struct tool_f64_check {
    int64_t checked;     /* elements compared */
    int64_t exceeding;   /* elements outside their bound */
    double max_abs_err;  /* largest |y - y64| */
    double worst_ratio;  /* largest |y - y64| / bound (<= 1 passes) */
    int64_t worst_row, worst_col;
} tool_f64_check;

/* Recompute alpha*A*X in double (beta must be 0) and compare with Y,
 * which strategy s computed.  Element (i, c) passes when
 *     |y - y64| <= |alpha| * (g(L+1, u) + g(L, 2^-53)) * sum_k |a_ik * x_kc| + (L+2) * eta
 * with L the length of row i, u the unit roundoff of the dtype, g(n, u) =
 * n*u / (1 - n*u) (Higham's gamma_n) and eta the smallest subnormal: the
 * error of any order of summing L products, one more rounding for alpha,
 * and the double loop's own error.  Tensor-core strategies (f32, row-major
 * only; else LOOM_ERR_NOT_SUPPORTED) are held to the bound of
 * reference/tc_model.c instead, which adds the operands' rounding to the
 * MMA precision. */
loom_status tool_check_f64(const tool_problem *p, const loom_strategy *s, const loom_dense *Y,
                           tool_f64_check *r);
/* "passed: max |error| 1.2e-06, at most 3.1% of the bound", or the failure. */
void tool_format_f64(const tool_f64_check *r, char *buf, size_t len);
/* The bound in one line, for the output. */
const char *tool_f64_bound_text(loom_dtype dtype, const loom_strategy *s);

#endif /* TOOL_CHECK_H */
