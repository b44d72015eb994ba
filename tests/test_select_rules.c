/*
 * test_select_rules.c - what selection decides per backend with no device:
 * the rules selector's designs on given features, and which candidates are
 * one product (timed once by tune and the sweep).  This program compiles
 * lib/select_rules.c and lib/select_features.c in (their functions are
 * internal to the library), so the CUDA side is checked on a machine
 * without a GPU.  The expected names are the benchmark candidates that
 * bench/select_eval.py scored the refit with.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "loom_internal.h"
#include "select.h"

/* Features of a matrix (mean row length, std/mean, max/mean, rows: 0 for
 * 1000), N, the backend, the design the rules must name and a phrase of
 * their why. */
typedef struct rules_case {
    double mean, cv, max_over_mean;
    int64_t rows;
    int64_t n;
    loom_backend_id backend;
    const char *design, *why;
} rules_case;

static const rules_case cases[] = {
    /* CUDA, refitted: even rows are RB; N <= 8 is PR with lanes for the mean row length */
    {10, 0.5, 4, 0, 1, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=16,vdl", "rules (refitted thresholds)"},
    {3, 0.5, 4, 0, 8, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=4,vdl", NULL},
    /* few rows (1000) with one of 64 or more non-zeros: lanes across warps,
     * the widest with rows x lanes <= 2^17; 2500 rows keep a warp */
    {100, 0.5, 4, 0, 4, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=128,vdl", "128 lanes a row (4 warps)"},
    {20, 0.5, 4, 500, 1, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=256,vdl", NULL},
    {100, 0.5, 4, 2500, 4, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=32,vdl", NULL},
    {10, 0.5, 6.3, 0, 4, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=16,vdl", NULL},
    /* N > 8: SR with VDL and CSC */
    {10, 0.5, 4, 0, 16, LOOM_BACKEND_CUDA, "rb-rm-sr:vdl,csc", NULL},
    /* skewed by std/mean (> 2) or by the longest row (> 64x the mean): EB */
    {10, 2.5, 20, 0, 64, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 1.5, 100, 0, 64, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 1.5, 60, 0, 64, LOOM_BACKEND_CUDA, "rb-rm-sr:vdl,csc", NULL},
    /* EB + PR: at least 8 lanes, chunks of 64 for 8 lanes, 256 for more */
    {3, 4, 200, 0, 2, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=64,lanes=8,vdl", NULL},
    {12, 4, 200, 0, 2, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=256,lanes=16,vdl", NULL},
    {40, 4, 200, 0, 1, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=256,lanes=32,vdl", NULL},
    /* ... but under EB, SR from N = 3 whatever the size (the narrow and
     * wide walks), and at N <= 2 with 300000 non-zeros or more */
    {10, 4, 200, 30000, 1, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", "300000 non-zeros, so sequential (SR)"},
    {10, 1.5, 100, 30000, 2, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 4, 200, 29999, 2, LOOM_BACKEND_CUDA, "eb-rm-pr:chunk=256,lanes=16,vdl", NULL},
    {3, 4, 200, 0, 3, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", "N >= 3, so sequential (SR)"},
    {10, 4, 200, 0, 4, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    {10, 4, 200, 0, 8, LOOM_BACKEND_CUDA, "eb-rm-sr:chunk=128,vdl,csc", NULL},
    /* even rows keep PR up to N = 8 whatever the size */
    {10, 0.5, 4, 30000, 1, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=16,vdl", NULL},
    {10, 0.5, 4, 30000, 8, LOOM_BACKEND_CUDA, "rb-rm-pr:lanes=16,vdl", NULL},
    /* the reference and OpenMP have no such exception */
    {10, 1.5, 4, 30000, 1, LOOM_BACKEND_REFERENCE, "eb-rm-pr:chunk=256,lanes=8", NULL},
    /* the reference keeps the papers' thresholds: PR for N <= 4, EB above std/mean 1 */
    {10, 0.5, 4, 0, 4, LOOM_BACKEND_REFERENCE, "rb-rm-pr:lanes=8", "the papers' thresholds"},
    {10, 1.5, 4, 0, 16, LOOM_BACKEND_REFERENCE, "eb-rm-sr:chunk=256", NULL},
    /* OpenMP: always RB + SR */
    {10, 9, 900, 0, 1, LOOM_BACKEND_OPENMP, "rb-rm-sr", "rules (refitted thresholds)"},
};

static void test_designs_per_backend(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rules_case *c = &cases[i];
        loom_features f;
        memset(&f, 0, sizeof f);
        f.rows = f.cols = c->rows ? c->rows : 1000;
        f.nnz = (int64_t)(c->mean * (double)f.rows);
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

/* Two strategies, a backend and N, and whether they are one product. */
typedef struct product_case {
    const char *a, *b;
    loom_backend_id backend;
    int64_t n;
    bool same;
} product_case;

static const product_case products[] = {
    /* N = 1: RM and CM walk the one column alike, on every backend */
    {"rb-rm-sr", "rb-cm-sr", LOOM_BACKEND_CUDA, 1, true},
    {"eb-rm-pr:chunk=256,lanes=8", "eb-cm-pr:chunk=256,lanes=8", LOOM_BACKEND_REFERENCE, 1, true},
    /* CUDA kernels differ by the N-loop at N > 1 */
    {"rb-rm-sr", "rb-cm-sr", LOOM_BACKEND_CUDA, 16, false},
    /* the OpenMP kernels never read it: twins at every N */
    {"rb-rm-sr", "rb-cm-sr", LOOM_BACKEND_OPENMP, 16, true},
    {"eb-rm-pr:chunk=256,lanes=8", "eb-cm-pr:chunk=256,lanes=8", LOOM_BACKEND_OPENMP, 256, true},
    /* anything else in the strategy still tells products apart */
    {"rb-rm-pr:lanes=8", "rb-cm-pr:lanes=4", LOOM_BACKEND_OPENMP, 16, false},
    {"eb-rm-sr:chunk=256", "eb-cm-sr:chunk=2048", LOOM_BACKEND_OPENMP, 1, false},
    {"rb-rm-sr", "eb-rm-sr:chunk=256", LOOM_BACKEND_OPENMP, 4, false},
};

static void test_one_product(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++) {
        const product_case *c = &products[i];
        loom_strategy a, b;
        char x[128], y[128];
        assert_int_equal(loom_strategy_parse(c->a, &a), LOOM_SUCCESS);
        assert_int_equal(loom_strategy_parse(c->b, &b), LOOM_SUCCESS);
        assert_true(loom__product_name(c->backend, &a, c->n, x, sizeof x));
        assert_true(loom__product_name(c->backend, &b, c->n, y, sizeof y));
        if ((strcmp(x, y) == 0) != c->same)
            fail_msg("case %zu: %s and %s at N = %lld: products %s and %s, expected %s", i, c->a,
                     c->b, (long long)c->n, x, y, c->same ? "one" : "two");
    }
}

/* Lanes across warps stay candidates only on few rows (rows x lanes <=
 * 2^20), where the sweeps timed them; sub-warp lanes and SR everywhere. */
static void test_candidate_range(void **state)
{
    (void)state;
    static const struct {
        const char *strategy;
        int64_t rows;
        bool fits;
    } cases[] = {
        {"rb-rm-pr:lanes=256,vdl", 4096, true},   {"rb-rm-pr:lanes=256,vdl", 4097, false},
        {"rb-rm-pr:lanes=64,vdl", 16384, true},   {"rb-rm-pr:lanes=64,vdl", 16385, false},
        {"rb-rm-pr:lanes=32,vdl", 100000000, true}, {"rb-rm-sr:vdl,csc", 100000000, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_strategy s;
        loom_features f;
        memset(&f, 0, sizeof f);
        f.rows = cases[i].rows;
        assert_int_equal(loom_strategy_parse(cases[i].strategy, &s), LOOM_SUCCESS);
        if (loom__candidate_fits(&f, &s) != cases[i].fits)
            fail_msg("%s on %lld rows: expected %s", cases[i].strategy, (long long)cases[i].rows,
                     cases[i].fits ? "a candidate" : "left out");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_designs_per_backend),
        cmocka_unit_test(test_one_product),
        cmocka_unit_test(test_candidate_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
