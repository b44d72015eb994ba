/*
 * test_select_rules.c - the rules selector's designs per backend, on given
 * features, with no device: this program compiles lib/select_rules.c in
 * (its function is internal to the library), so the CUDA rules can be
 * checked on a machine without a GPU.  The expected names are the
 * benchmark candidates that bench/select_eval.py scored the refit with.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "loom_internal.h"

/* The rules' design for these features, as loom_strategy_format writes it. */
static const char *rules_design(double mean, double cv, double max_over_mean, int64_t n,
                                loom_backend_id backend, char *why, size_t why_len)
{
    static char name[128];
    loom_features f;
    memset(&f, 0, sizeof f);
    f.rows = 1000;
    f.cols = 1000;
    f.nnz = (int64_t)(mean * 1000);
    f.row_mean = mean;
    f.row_std = cv * mean;
    f.row_cv = cv;
    f.max_over_mean = max_over_mean;
    f.row_max = max_over_mean * mean;
    loom_strategy s;
    loom__select_rules(&f, n, LOOM_ROW_MAJOR, backend, &s, why, why_len);
    assert_int_equal(loom_strategy_check(&s), LOOM_SUCCESS);
    assert_int_equal(loom_strategy_format(&s, name, sizeof name), LOOM_SUCCESS);
    return name;
}

static void test_cuda_refit(void **state)
{
    (void)state;
    char why[512];
    /* even rows: RB; N <= 8: PR with lanes for the mean row length */
    assert_string_equal(rules_design(10, 0.5, 4, 1, LOOM_BACKEND_CUDA, why, sizeof why),
                        "rb-rm-pr:lanes=16,vdl");
    assert_non_null(strstr(why, "rules (refitted thresholds)"));
    assert_string_equal(rules_design(3, 0.5, 4, 8, LOOM_BACKEND_CUDA, why, sizeof why),
                        "rb-rm-pr:lanes=4,vdl");
    assert_string_equal(rules_design(100, 0.5, 4, 4, LOOM_BACKEND_CUDA, why, sizeof why),
                        "rb-rm-pr:lanes=32,vdl");
    /* N > 8: SR with VDL and CSC */
    assert_string_equal(rules_design(10, 0.5, 4, 16, LOOM_BACKEND_CUDA, why, sizeof why),
                        "rb-rm-sr:vdl,csc");
    /* skewed by std/mean (> 3) or by the longest row (> 64x the mean): EB */
    assert_string_equal(rules_design(10, 3.5, 20, 64, LOOM_BACKEND_CUDA, why, sizeof why),
                        "eb-rm-sr:chunk=128,vdl,csc");
    assert_string_equal(rules_design(10, 2.5, 100, 64, LOOM_BACKEND_CUDA, why, sizeof why),
                        "eb-rm-sr:chunk=128,vdl,csc");
    assert_string_equal(rules_design(10, 2.5, 60, 64, LOOM_BACKEND_CUDA, why, sizeof why),
                        "rb-rm-sr:vdl,csc");
    /* EB + PR: at least 8 lanes, chunks of 64 for 8 lanes, 256 for more */
    assert_string_equal(rules_design(3, 4, 200, 2, LOOM_BACKEND_CUDA, why, sizeof why),
                        "eb-rm-pr:chunk=64,lanes=8,vdl");
    assert_string_equal(rules_design(12, 4, 200, 2, LOOM_BACKEND_CUDA, why, sizeof why),
                        "eb-rm-pr:chunk=256,lanes=16,vdl");
    assert_string_equal(rules_design(40, 4, 200, 1, LOOM_BACKEND_CUDA, why, sizeof why),
                        "eb-rm-pr:chunk=256,lanes=32,vdl");
}

static void test_other_backends(void **state)
{
    (void)state;
    char why[512];
    /* the reference keeps the papers' thresholds: PR for N <= 4, EB above std/mean 1 */
    assert_string_equal(rules_design(10, 0.5, 4, 4, LOOM_BACKEND_REFERENCE, why, sizeof why),
                        "rb-rm-pr:lanes=8");
    assert_non_null(strstr(why, "the papers' thresholds"));
    assert_string_equal(rules_design(10, 1.5, 4, 16, LOOM_BACKEND_REFERENCE, why, sizeof why),
                        "eb-rm-sr:chunk=256");
    /* OpenMP: always RB + SR */
    assert_string_equal(rules_design(10, 9, 900, 1, LOOM_BACKEND_OPENMP, why, sizeof why),
                        "rb-rm-sr");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_refit),
        cmocka_unit_test(test_other_backends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
