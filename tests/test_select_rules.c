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

/* Features of a matrix (mean row length, std/mean, max/mean), N, the
 * backend, the design the rules must name and a phrase of their why. */
typedef struct rules_case {
    double mean, cv, max_over_mean;
    int64_t n;
    loom_backend_id backend;
    const char *design, *why;
} rules_case;

static const rules_case cases[] = {
    /* CUDA, refitted: even rows are RB; N <= 8 is PR with lanes for the mean row length */
    {10, 0.5, 4, 1, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=16,vdl", "rules (refitted thresholds)"},
    {3, 0.5, 4, 8, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=4,vdl", NULL},
    {100, 0.5, 4, 4, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=32,vdl", NULL},
    /* N > 8: SR with VDL and CSC */
    {10, 0.5, 4, 16, LOOM_BACKEND_CUDA, "rb-rm-sr:vdl,csc", NULL},
    /* skewed by std/mean (> 3) or by the longest row (> 64x the mean): EB */
    {10, 3.5, 20, 64, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 2.5, 100, 64, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 2.5, 60, 64, LOOM_BACKEND_CUDA, "rb-rm-sr:vdl,csc", NULL},
    /* EB + PR: at least 8 lanes, chunks of 64 for 8 lanes, 256 for more */
    {3, 4, 200, 2, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=64,lanes=8,vdl", NULL},
    {12, 4, 200, 2, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=256,lanes=16,vdl", NULL},
    {40, 4, 200, 1, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=256,lanes=32,vdl", NULL},
    /* the reference keeps the papers' thresholds: PR for N <= 4, EB above std/mean 1 */
    {10, 0.5, 4, 4, LOOM_BACKEND_REFERENCE, "rb-rm-pr:lanes=8", "the papers' thresholds"},
    {10, 1.5, 4, 16, LOOM_BACKEND_REFERENCE, "eb-rm-sr:chunk=256", NULL},
    /* OpenMP: always RB + SR */
    {10, 9, 900, 1, LOOM_BACKEND_OPENMP, "rb-rm-sr", "rules (refitted thresholds)"},
};

static void test_designs_per_backend(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rules_case *c = &cases[i];
        loom_features f;
        memset(&f, 0, sizeof f);
        f.rows = f.cols = 1000;
        f.nnz = (int64_t)(c->mean * 1000);
        f.row_mean = c->mean;
        f.row_std = c->cv * c->mean;
        f.row_cv = c->cv;
        f.max_over_mean = c->max_over_mean;
        f.row_max = c->max_over_mean * c->mean;
        loom_strategy s;
        char why[512], name[128];
        loom__select_rules(&f, c->n, LOOM_ROW_MAJOR, c->backend, &s, why, sizeof why);
        assert_int_equal(loom_strategy_check(&s), LOOM_SUCCESS);
        assert_int_equal(loom_strategy_format(&s, name, sizeof name), LOOM_SUCCESS);
        if (strcmp(name, c->design) != 0)
            fail_msg("case %zu: the rules named %s, expected %s", i, name, c->design);
        if (c->why && !strstr(why, c->why))
            fail_msg("case %zu: \"%s\" not in the explanation: %s", i, c->why, why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_designs_per_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
