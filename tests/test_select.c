/*
 * test_select.c - the selectors: model files (valid, malformed with the
 * line named, prediction on a tiny hand-written model), the tune cache
 * (round trip, clear, a corrupted file), the rules on synthetic matrices,
 * and the selector's reasoning in loom_plan_explain.  Runs on the
 * reference backend, so it needs no hardware.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loom.h>

static loom_context *ctx;
static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/loom-test-select-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    /* Nothing from the user's environment: no installed model, a private cache. */
    char path[128];
    snprintf(path, sizeof path, "%s/none", dir);
    setenv("LOOM_MODEL_DIR", path, 1);
    snprintf(path, sizeof path, "%s/cache/tune.txt", dir);
    setenv("LOOM_TUNE_CACHE", path, 1);
    return loom_context_create(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    loom_tune_cache_clear();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return -1;
    return loom_context_destroy(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A: rows x cols with row i holding len(i) non-zeros at columns 0.. */
static loom_csr *make_matrix(int64_t rows, int64_t cols, int64_t (*len)(int64_t))
{
    int64_t *ro = malloc((size_t)(rows + 1) * sizeof *ro);
    ro[0] = 0;
    for (int64_t i = 0; i < rows; i++)
        ro[i + 1] = ro[i] + len(i);
    int64_t nnz = ro[rows];
    int32_t *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    float *v = malloc((size_t)(nnz ? nnz : 1) * sizeof *v);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t p = ro[i]; p < ro[i + 1]; p++) {
            ci[p] = (int32_t)(p - ro[i]);
            v[p] = 1.0f + (float)(p % 7);
        }
    loom_csr *A = NULL;
    if (loom_csr_create(ctx, &A, rows, cols, nnz, LOOM_F32, ro, ci, v) != LOOM_SUCCESS)
        fail_msg("loom_csr_create: %s", loom_last_error());
    free(ro);
    free(ci);
    free(v);
    return A;
}

static int64_t even_len(int64_t i)
{
    (void)i;
    return 8;
}

/* One row of 2000, the rest 2: skewed. */
static int64_t skewed_len(int64_t i)
{
    return i == 0 ? 2000 : 2;
}

/* Plan A with N columns and the given selector on the reference backend;
 * returns the status, the chosen strategy and the explanation. */
static loom_status plan_with(loom_csr *A, int64_t n, loom_selector sel, loom_strategy *s,
                             char *explain, size_t len)
{
    int64_t m, k;
    loom_csr_info(A, &m, &k, NULL, NULL, NULL);
    /* At plan time only the shapes count: no data. */
    loom_dense X = {k, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL};
    loom_dense Y = {m, n, n, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, NULL};
    loom_plan_options o;
    loom_plan_options_init(&o);
    o.backend = LOOM_BACKEND_REFERENCE;
    o.selector = sel;
    loom_plan *p = NULL;
    loom_status st = loom_spmm_plan_create(ctx, &p, A, &X, &Y, &o);
    if (st != LOOM_SUCCESS) {
        if (getenv("TEST_SELECT_VERBOSE"))
            fprintf(stderr, "plan: %s\n", loom_last_error());
        return st;
    }
    loom_plan_strategy(p, s, NULL);
    if (explain)
        snprintf(explain, len, "%s", loom_plan_explain(p));
    loom_plan_destroy(&p);
    return LOOM_SUCCESS;
}

/* N <= 4: rb-rm-pr predicted exp(-1) ms, rb-rm-sr exp(1); above: the reverse.
 * The scale ensemble adds log(2) to both. */
static const char tiny_model[] =
    "# a hand-written model\n"
    "loom-model 1\n"
    "backend reference\n"
    "features 2 row_cv n\n"
    "scale trees 0 base 0.69314718055994531\n"
    "design rb-rm-sr trees 1 base 0\n"
    "tree 3\n"
    "1 4.5 1 2 0\n"
    "-1 0 -1 -1 1.0\n"
    "-1 0 -1 -1 -1.0\n"
    "design rb-rm-pr:lanes=8 trees 2 base -0.5\n"
    "tree 3\n"
    "1 4.5 1 2 0\n"
    "-1 0 -1 -1 -0.25\n"
    "-1 0 -1 -1 0.75\n"
    "tree 1\n"
    "-1 0 -1 -1 -0.25   # trailing comment\n"
    "end\n";

static void test_model_valid_and_prediction(void **state)
{
    (void)state;
    assert_int_equal(loom_model_load(LOOM_BACKEND_REFERENCE, write_file("ok.model", tiny_model)),
                     LOOM_SUCCESS);
    loom_csr *A = make_matrix(64, 64, even_len);
    loom_strategy s;
    char why[2048];
    assert_int_equal(plan_with(A, 1, LOOM_SELECT_MODEL, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.kloop, LOOM_K_PR);
    assert_int_equal(s.lanes, 8);
    /* 2 * exp(-1) = 0.7358 ms predicted; the runner-up 2 * exp(1) = 5.437 ms */
    assert_non_null(strstr(why, "model:"));
    assert_non_null(strstr(why, "0.7358 ms"));
    assert_non_null(strstr(why, "5.437 ms"));
    assert_int_equal(plan_with(A, 16, LOOM_SELECT_MODEL, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.kloop, LOOM_K_SR);
    /* auto uses the model when there is one */
    assert_int_equal(plan_with(A, 16, LOOM_SELECT_AUTO, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "auto: model:"));
    /* back to the default search: no model there, so model fails and auto uses the rules */
    assert_int_equal(loom_model_load(LOOM_BACKEND_REFERENCE, NULL), LOOM_SUCCESS);
    assert_int_equal(plan_with(A, 16, LOOM_SELECT_MODEL, &s, why, sizeof why), LOOM_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(loom_last_error(), "no trained model"));
    assert_int_equal(plan_with(A, 16, LOOM_SELECT_AUTO, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "rules"));
    loom_csr_destroy(&A);
}

/* With a default design, the trees' best must win by more than the margin. */
static void test_model_default_design(void **state)
{
    (void)state;
    static const char text[] = "loom-model 1\nbackend reference\nfeatures 1 n\n"
                               "default rb-rm-sr margin 0.5\n"
                               "design rb-rm-sr trees 0 base 1.0\n"
                               "design rb-cm-sr trees 0 base 0.7\n" /* 0.3 faster: kept out */
                               "design eb-rm-sr:chunk=256 trees 1 base 0\n"
                               "tree 3\n0 4.5 1 2 0\n-1 0 -1 -1 2.0\n-1 0 -1 -1 0.2\n" /* N > 4: 0.8 faster */
                               "end\n";
    assert_int_equal(loom_model_load(LOOM_BACKEND_REFERENCE, write_file("d.model", text)),
                     LOOM_SUCCESS);
    loom_csr *A = make_matrix(64, 64, even_len);
    loom_strategy s;
    char why[2048];
    assert_int_equal(plan_with(A, 1, LOOM_SELECT_MODEL, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.mloop, LOOM_M_RB);
    assert_int_equal(s.nloop, LOOM_N_RM);
    assert_non_null(strstr(why, "default design stays"));
    assert_int_equal(plan_with(A, 16, LOOM_SELECT_MODEL, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.mloop, LOOM_M_EB);
    assert_int_equal(loom_model_load(LOOM_BACKEND_REFERENCE, NULL), LOOM_SUCCESS);
    loom_csr_destroy(&A);
}

static void test_model_found_in_model_dir(void **state)
{
    (void)state;
    write_file("reference.model", tiny_model);
    setenv("LOOM_MODEL_DIR", dir, 1);
    loom_model_load(LOOM_BACKEND_REFERENCE, NULL); /* forget what was searched */
    loom_csr *A = make_matrix(64, 64, even_len);
    loom_strategy s;
    char why[2048];
    assert_int_equal(plan_with(A, 1, LOOM_SELECT_AUTO, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "reference.model"));
    char none[128];
    snprintf(none, sizeof none, "%s/none", dir);
    setenv("LOOM_MODEL_DIR", none, 1);
    loom_model_load(LOOM_BACKEND_REFERENCE, NULL);
    loom_csr_destroy(&A);
}

/* The models shipped in data/models/ parse, for the backend they name. */
static void test_shipped_models_load(void **state)
{
    (void)state;
    static const loom_backend_id shipped[] = {LOOM_BACKEND_OPENMP, LOOM_BACKEND_CUDA};
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/data/models/%s.model", LOOM_SRCDIR,
                 loom_backend_name(shipped[i]));
        loom_status st = loom_model_load(shipped[i], path);
        if (st != LOOM_SUCCESS)
            fail_msg("%s: %s", path, loom_last_error());
        assert_int_equal(loom_model_load(shipped[i], NULL), LOOM_SUCCESS);
    }
}

static const struct {
    const char *text, *needle;
} malformed[] = {
    {"loom-modle 1\n", "line 1"},
    {"loom-model 2\n", "version"},
    {"loom-model 1\nbackend reference\nfeatures 2 n\n", "line 3"},
    {"loom-model 1\nbackend reference\nfeatures 1 colour\n", "unknown feature 'colour'"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign xx-rm-sr trees 0 base 0\nend\n", "line 4"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 1 base 0\ntree 2\n"
     "0 1.5 1 0 0\n-1 0 -1 -1 1\nend\n", "line 6"}, /* a child before its parent: a cycle */
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 1 base 0\ntree 1\n"
     "3 1.5 -1 -1 0\nend\n", "line 6"}, /* feature out of range */
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 1 base 0\ntree 2\n"
     "-1 0 -1 -1 1\n", "ends inside a tree"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 0 base nan\nend\n", "line 4"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 0 base 0\n", "without 'end'"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\nend\n", "no 'design'"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndefault rb-cm-sr margin 0.1\n"
     "design rb-rm-sr trees 0 base 0\nend\n", "none of the designs"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndefault rb-rm-sr margin -1\n", "line 4"},
    {"loom-model 1\nbackend reference\nfeatures 1 n\ndesign rb-rm-sr trees 0 base 0\nend\nmore\n",
     "after 'end'"},
};

static void test_model_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        const char *path = write_file("bad.model", malformed[i].text);
        loom_status st = loom_model_load(LOOM_BACKEND_REFERENCE, path);
        if (st != LOOM_ERR_PARSE || !strstr(loom_last_error(), malformed[i].needle))
            fail_msg("case %zu: got %s: \"%s\", expected a parse error naming \"%s\"", i,
                     loom_strerror(st), loom_last_error(), malformed[i].needle);
    }
    /* wrong backend, missing file */
    assert_int_equal(loom_model_load(LOOM_BACKEND_OPENMP, write_file("r.model", tiny_model)),
                     LOOM_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_last_error(), "backend reference"));
    assert_int_equal(loom_model_load(LOOM_BACKEND_REFERENCE, "/nonexistent/x.model"), LOOM_ERR_IO);
    assert_int_equal(loom_model_load((loom_backend_id)42, NULL), LOOM_ERR_INVALID_ARGUMENT);
}

static int count_entries(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    char line[1024];
    while (fgets(line, sizeof line, f))
        n += line[0] != '#';
    fclose(f);
    return n;
}

static void test_tune_cache_round_trip(void **state)
{
    (void)state;
    char path[512];
    assert_int_equal(loom_tune_cache_path(path, sizeof path), LOOM_SUCCESS);
    assert_non_null(strstr(path, dir));
    char tiny[4];
    assert_int_equal(loom_tune_cache_path(tiny, sizeof tiny), LOOM_ERR_INVALID_ARGUMENT);
    assert_int_equal(loom_tune_cache_clear(), LOOM_SUCCESS);
    assert_int_equal(loom_tune_cache_clear(), LOOM_SUCCESS); /* clearing nothing is fine */

    loom_csr *A = make_matrix(200, 2048, skewed_len);
    loom_strategy first, again;
    char why[2048];
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_TUNE, &first, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: timed"));
    assert_int_equal(count_entries(path), 1);
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_TUNE, &again, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: cached"));
    assert_memory_equal(&first, &again, sizeof first);
    /* another N is another key */
    assert_int_equal(plan_with(A, 8, LOOM_SELECT_TUNE, &again, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: timed"));
    assert_int_equal(count_entries(path), 2);

    assert_int_equal(loom_tune_cache_clear(), LOOM_SUCCESS);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_TUNE, &again, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: timed"));
    loom_csr_destroy(&A);
}

static void test_tune_cache_corrupted(void **state)
{
    (void)state;
    char path[512];
    loom_tune_cache_path(path, sizeof path);
    loom_csr *A = make_matrix(100, 100, even_len);
    loom_strategy s;
    char why[2048];
    assert_int_equal(plan_with(A, 2, LOOM_SELECT_TUNE, &s, why, sizeof why), LOOM_SUCCESS);
    /* garbage lines, a line with a bad strategy, binary junk: skipped, never fatal */
    FILE *f = fopen(path, "a");
    fputs("garbage\n0123 reference f32 x rm,rm 1 cpu nonsense 1 1\n\x01\x02\xff\n", f);
    fputs("0123456789abcdef reference f32 2 rm,rm 1 cpu:1c xx-yy-zz 1.0 3\n", f);
    fclose(f);
    assert_int_equal(plan_with(A, 2, LOOM_SELECT_TUNE, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: cached"));
    assert_non_null(strstr(why, "malformed"));
    /* a cache that is all junk */
    f = fopen(path, "w");
    fputs("\xff\xfe not a cache at all\n", f);
    fclose(f);
    assert_int_equal(plan_with(A, 2, LOOM_SELECT_TUNE, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "tune: timed"));
    /* a cache path that cannot be written only costs time */
    setenv("LOOM_TUNE_CACHE", "/dev/null/x/y/tune.txt", 1);
    assert_int_equal(plan_with(A, 2, LOOM_SELECT_TUNE, &s, why, sizeof why), LOOM_SUCCESS);
    char fresh[128];
    snprintf(fresh, sizeof fresh, "%s/cache/tune.txt", dir);
    setenv("LOOM_TUNE_CACHE", fresh, 1);
    loom_csr_destroy(&A);
}

static void test_rules_on_synthetic_matrices(void **state)
{
    (void)state;
    loom_csr *even = make_matrix(256, 64, even_len);
    loom_csr *skewed = make_matrix(256, 2048, skewed_len);
    loom_strategy s;
    char why[2048];
    /* even rows, large N: row balance, sequential reduction */
    assert_int_equal(plan_with(even, 64, LOOM_SELECT_RULES, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.mloop, LOOM_M_RB);
    assert_int_equal(s.kloop, LOOM_K_SR);
    assert_int_equal(s.nloop, LOOM_N_RM);
    assert_non_null(strstr(why, "rules (the papers' thresholds)"));
    /* one row 1000x the mean: element balance */
    assert_int_equal(plan_with(skewed, 64, LOOM_SELECT_RULES, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.mloop, LOOM_M_EB);
    assert_int_equal(loom_strategy_check(&s), LOOM_SUCCESS);
    /* N = 1: parallel reduction (PR) */
    assert_int_equal(plan_with(even, 1, LOOM_SELECT_RULES, &s, why, sizeof why), LOOM_SUCCESS);
    assert_int_equal(s.kloop, LOOM_K_PR);
    loom_csr_destroy(&even);
    loom_csr_destroy(&skewed);
}

static void test_explain_names_selector(void **state)
{
    (void)state;
    loom_csr *A = make_matrix(32, 32, even_len);
    loom_strategy s;
    char why[2048];
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_FIXED, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "why: fixed"));
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_RULES, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "why: rules"));
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_AUTO, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "why: auto"));
    assert_int_equal(plan_with(A, 4, LOOM_SELECT_TUNE, &s, why, sizeof why), LOOM_SUCCESS);
    assert_non_null(strstr(why, "why: tune"));
    assert_int_equal(plan_with(A, 4, (loom_selector)99, &s, why, sizeof why), LOOM_ERR_INVALID_ARGUMENT);
    loom_csr_destroy(&A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_valid_and_prediction),
        cmocka_unit_test(test_model_default_design),
        cmocka_unit_test(test_model_found_in_model_dir),
        cmocka_unit_test(test_model_malformed),
        cmocka_unit_test(test_shipped_models_load),
        cmocka_unit_test(test_tune_cache_round_trip),
        cmocka_unit_test(test_tune_cache_corrupted),
        cmocka_unit_test(test_rules_on_synthetic_matrices),
        cmocka_unit_test(test_explain_names_selector),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
