/*
 * test_tc.c - the tensor-core SpMM kernels (backends/cuda/tc_spmm.cu) against
 * the reference (reference/tc_model.c), on the GPU.  Exits 77 (SKIP) where
 * there is no CUDA device.
 *
 * Three checks, and each case says which one applied:
 *   exact-inputs  small integers, so every partial sum is exact under any
 *                 accumulation order: GPU and reference must agree bit for bit
 *                 whatever the device's MMA does (tests the kernel's plumbing);
 *   bit-exact     random inputs, with a model calibrated on this device
 *                 (bench/results/tc/model.txt or $LOOM_TC_MODEL, written by
 *                 tc_probe): every bit must match;
 *   bound         random inputs where no calibrated model applies: every
 *                 element within the rigorous bound of tc_bound_check().
 * And, whatever the check: the kernels behind loomcu_tc_spmm (rows form:
 * "gather" and, for fp16/bf16 where K fits, "resident"; tiles form: "plain"
 * and "pipelined"), forced in turn, must give the bits the automatic choice
 * gave ("paths agree").
 * $LOOM_TC_TEST_FORM (rows or tiles) limits the run to one form.
 * Both forms: rows (TCA-SpMM) for every storage type and MMA shape, tiles
 * for fp16/bf16 with k = 16 (K of 700, 1200 and 3000 give it 2, 4 and 8
 * parts); and the tiles form with Inf and NaN in X (test_nonfinite).
 * Inputs: random matrices with empty rows, rows of more than 64 non-zeros
 * and long rows in 2 to 16 segments (several blocks, or warps, a row),
 * N not a multiple of 64 (1, 7, 64, 100, 130, 256), X with an odd leading
 * dimension, alpha/beta, every storage type and MMA shape; K of 1200
 * (within the resident kernel's strips of 64 columns on an H100/H200, 1613
 * rows), 2000 (within its strips of 32, 2904 rows) and 3000 (past both: the
 * gather kernel alone); a tall matrix
 * with more row blocks than a GPU holds at once (the kernel then walks
 * several rows per warp); and the DLMC matrix in data/unittest (plus
 * $LOOM_TC_DLMC, a list of .smtx files).  And calls in a row on one stream,
 * each reading what the one before wrote, for the kernels' launch that
 * overlaps the kernel before (test_chained).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "tc_model.h"
#include "tc_round.h"
#include "tc_spmm.h"

#ifndef LOOM_SRCDIR
#define LOOM_SRCDIR "."
#endif

typedef struct host_csr {
    int64_t m, k, nnz;
    int64_t *ro;
    int32_t *ci;
} host_csr;

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double uniform(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

static char device_name[256];

static const struct combo {
    tc_value vt;
    tc_precision prec;
    int k;
    tc_form form;
    const char *name;
} combos[] = {
    {TC_VAL_F16, TC_PREC_F16, 16, TC_FORM_ROWS, "f16/f16 k16"},
    {TC_VAL_F16, TC_PREC_F16, 8, TC_FORM_ROWS, "f16/f16 k8"},
    {TC_VAL_BF16, TC_PREC_BF16, 16, TC_FORM_ROWS, "bf16/bf16 k16"},
    {TC_VAL_BF16, TC_PREC_BF16, 8, TC_FORM_ROWS, "bf16/bf16 k8"},
    {TC_VAL_F32, TC_PREC_TF32, 8, TC_FORM_ROWS, "f32/tf32 k8"},
    {TC_VAL_F32, TC_PREC_TF32, 4, TC_FORM_ROWS, "f32/tf32 k4"},
    {TC_VAL_F32, TC_PREC_F16, 16, TC_FORM_ROWS, "f32/f16 k16"},
    {TC_VAL_F32, TC_PREC_BF16, 8, TC_FORM_ROWS, "f32/bf16 k8"},
    {TC_VAL_F16, TC_PREC_F16, 16, TC_FORM_TILES, "f16 k16 tiles"},
    {TC_VAL_BF16, TC_PREC_BF16, 16, TC_FORM_TILES, "bf16 k16 tiles"},
};
enum { COMBO_TILES_F16 = 8, COMBO_TILES_BF16 = 9 };

/* A random m x k pattern; row 1 empty, row 2 with 150, row 3 with
 * min(k, 600) and row 4 with min(k, 2500) non-zeros: rows 3 and 4 are long
 * rows, cut into 2 to 16 segments (tc_model.h step 4) as k and K go. */
static host_csr random_csr(int64_t m, int64_t k, double density)
{
    host_csr A = {m, k, 0, malloc(sizeof(int64_t) * (m + 1)), malloc(sizeof(int32_t) * m * k)};
    for (int64_t i = 0; i < m; i++) {
        A.ro[i] = A.nnz;
        for (int64_t j = 0; j < k; j++) {
            int take = i == 1 ? 0 : i == 2 ? j < 150 : i == 3 ? j < 600 : i == 4 ? j < 2500 : uniform() < density;
            if (take)
                A.ci[A.nnz++] = (int32_t)j;
        }
    }
    A.ro[m] = A.nnz;
    return A;
}

/* DLMC .smtx: "rows, cols, nnz", then the row offsets, then the column indices. */
static int read_smtx(const char *path, host_csr *A)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long m, k, nnz;
    if (fscanf(f, "%lld , %lld , %lld", &m, &k, &nnz) != 3) {
        fclose(f);
        return -1;
    }
    A->m = m;
    A->k = k;
    A->nnz = nnz;
    A->ro = malloc(sizeof(int64_t) * (m + 1));
    A->ci = malloc(sizeof(int32_t) * (nnz > 0 ? nnz : 1));
    for (long long i = 0; i <= m; i++) {
        long long v;
        if (fscanf(f, "%lld", &v) != 1) {
            fclose(f);
            return -1;
        }
        A->ro[i] = v;
    }
    for (long long j = 0; j < nnz; j++) {
        int v;
        if (fscanf(f, "%d", &v) != 1) {
            fclose(f);
            return -1;
        }
        A->ci[j] = v;
    }
    fclose(f);
    return 0;
}

/* The device arrays of a problem made with dev_copy. */
static void free_device_operands(const loomcu_tc_problem *dp)
{
    cudaFree((void *)dp->row_offsets);
    cudaFree((void *)dp->col_indices);
    cudaFree((void *)dp->values);
    cudaFree((void *)dp->x);
    cudaFree(dp->y);
}

static void *dev_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    assert_int_equal(cudaMalloc(&d, bytes ? bytes : 1), cudaSuccess);
    if (bytes)
        assert_int_equal(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

/* DATA_NONFINITE: exact inputs, and about 1 in 400 values of X is +Inf,
 * -Inf or NaN (only X: the fill of A and Y stays exact). */
enum { DATA_RANDOM = 0, DATA_EXACT = 1, DATA_NONFINITE = 2 };

static void fill(void *base, int64_t count, tc_value vt, int kind, double scale)
{
    static const float special[3] = {INFINITY, -INFINITY, NAN};
    for (int64_t i = 0; i < count; i++) {
        float v = kind != DATA_RANDOM ? (float)((int)(uniform() * 9) - 4)
                                      : (float)((uniform() * 2 - 1) * scale);
        tc_store(base, i, vt, v);
    }
    if (kind == DATA_NONFINITE)
        for (int64_t i = 0; i < count / 400 + 1; i++)
            tc_store(base, (int64_t)(uniform() * (double)count), vt, special[next_u64() % 3]);
}

/* Bit for bit, except that any NaN equals any NaN (the CPU's and the GPU's
 * NaNs carry different payloads). */
static int differ(const void *a, const void *b, int64_t i, tc_value vt)
{
    const size_t es = tc_value_size(vt);
    if (!memcmp((const char *)a + i * es, (const char *)b + i * es, es))
        return 0;
    return !(isnan(tc_load(a, i, vt)) && isnan(tc_load(b, i, vt)));
}

/* LOOM_TC_TEST_FORM=tiles (or rows) runs one form's cases only: the
 * sanitizer runs, which are slow, use it. */
static int form_skipped(const struct combo *cb)
{
    const char *only = getenv("LOOM_TC_TEST_FORM");
    return only && strcmp(only, cb->form == TC_FORM_TILES ? "tiles" : "rows") != 0;
}

/* Run one case; returns 0 when it passes, and prints which check applied. */
static int run_case(const host_csr *A, const struct combo *cb, int64_t n, int64_t ldx_extra,
                    float alpha, float beta, int kind, const char *what)
{
    if (form_skipped(cb))
        return 0;
    const size_t es = tc_value_size(cb->vt);
    const int64_t ldx = n + ldx_extra, ldy = n;
    void *val = malloc(es * (A->nnz ? A->nnz : 1)), *x = malloc(es * (A->k * ldx + 1));
    void *y0 = malloc(es * (A->m * ldy + 1)), *yr = malloc(es * (A->m * ldy + 1)),
         *yg = malloc(es * (A->m * ldy + 1));
    const int exact_kind = kind == DATA_NONFINITE ? DATA_EXACT : kind;
    fill(val, A->nnz, cb->vt, exact_kind, 1.0);
    fill(x, A->k * ldx, cb->vt, kind, 1.0);
    fill(y0, A->m * ldy, cb->vt, exact_kind, 1.0);
    memcpy(yr, y0, es * A->m * ldy);

    tc_config cfg = {cb->prec, cb->k, cb->form};
    tc_mma_model model;
    tc_model_default(&model);
    const char *path = getenv("LOOM_TC_MODEL");
    char def[1024];
    snprintf(def, sizeof def, "%s/bench/results/tc/model.txt", LOOM_SRCDIR);
    int calibrated = tc_model_load(path ? path : def, cb->prec, cb->k, &model) == 0 &&
                     strcmp(model.device, device_name) == 0;
    if (!calibrated)
        tc_model_default(&model);

    tc_problem hp = {A->m, A->k, n, A->ro, A->ci, val, cb->vt, x, ldx, yr, ldy, alpha, beta};
    tc_reference_spmm(&hp, &cfg, &model);

    loomcu_tc_plan plan;
    assert_int_equal(loomcu_tc_plan_create(&plan, A->ro, A->m, &cfg), cudaSuccess);
    loomcu_tc_problem dp = {A->m, A->k, n, dev_copy(A->ro, sizeof(int64_t) * (A->m + 1)),
                            dev_copy(A->ci, sizeof(int32_t) * A->nnz), dev_copy(val, es * A->nnz),
                            cb->vt, dev_copy(x, es * A->k * ldx), ldx,
                            dev_copy(y0, es * A->m * ldy), ldy, alpha, beta};
    assert_int_equal(loomcu_tc_spmm(&plan, &dp, NULL), cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaMemcpy(yg, dp.y, es * A->m * ldy, cudaMemcpyDeviceToHost), cudaSuccess);

    /* each kernel forced in turn: the same bits as the automatic choice */
    int rc = 0, paths = 0;
    void *yp = malloc(es * (A->m * ldy + 1));
    const loomcu_tc_path forced[4] = {LOOMCU_TC_PATH_GATHER, LOOMCU_TC_PATH_RESIDENT, LOOMCU_TC_PATH_TILES_PLAIN,
                                      LOOMCU_TC_PATH_TILES_PIPELINED};
    static const char *const forced_name[4] = {"gather", "resident", "tiles plain", "tiles pipelined"};
    for (int f = 0; f < 4; f++) {
        assert_int_equal(cudaMemcpy(dp.y, y0, es * A->m * ldy, cudaMemcpyHostToDevice), cudaSuccess);
        cudaError_t e = loomcu_tc_spmm_path(&plan, &dp, NULL, forced[f]);
        if (e == cudaErrorNotSupported)
            continue;
        assert_int_equal(e, cudaSuccess);
        assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
        assert_int_equal(cudaMemcpy(yp, dp.y, es * A->m * ldy, cudaMemcpyDeviceToHost), cudaSuccess);
        int64_t diff = 0, first = -1;
        for (int64_t i = 0; i < A->m * ldy; i++)
            if (memcmp((char *)yp + i * es, (char *)yg + i * es, es)) {
                if (first < 0)
                    first = i;
                diff++;
            }
        if (diff) {
            printf("    FAIL paths: the %s kernel differs from the automatic choice in %lld elements; first "
                   "(%lld, %lld): %.9g against %.9g\n", forced_name[f], (long long)diff,
                   (long long)(first / ldy), (long long)(first % ldy), tc_load(yp, first, cb->vt),
                   tc_load(yg, first, cb->vt));
            rc = 1;
        }
        paths++;
    }
    free(yp);

    const char *check;
    if (kind != DATA_RANDOM || calibrated) {
        check = kind == DATA_EXACT ? "exact-inputs" : kind == DATA_NONFINITE ? "exact-inputs, Inf/NaN in X" : "bit-exact";
        int64_t diff = 0, first = -1;
        for (int64_t i = 0; i < A->m * ldy; i++)
            if (differ(yg, yr, i, cb->vt)) {
                if (first < 0)
                    first = i;
                diff++;
            }
        if (diff) {
            const int64_t fr = first / ldy;
            printf("    FAIL %s: %lld elements differ; first (%lld, %lld), a row of %lld non-zeros: "
                   "gpu %.9g ref %.9g\n", check, (long long)diff, (long long)fr, (long long)(first % ldy),
                   (long long)(A->ro[fr + 1] - A->ro[fr]), tc_load(yg, first, cb->vt),
                   tc_load(yr, first, cb->vt));
            rc = 1;
        }
    } else {
        check = "bound";
        tc_check_result r;
        tc_mma_model coarse; /* the device's MMA is unknown: bound for the coarsest one */
        tc_model_conservative(&coarse, cb->k);
        hp.y = yr; /* only shapes and operands are read */
        tc_bound_check(&hp, &cfg, &coarse, beta != 0 ? y0 : NULL, yg, &r);
        if (r.failed) {
            printf("    FAIL bound: %lld of %lld; first (%lld, %lld): gpu %.9g exact %.9g bound %.3g\n",
                   (long long)r.failed, (long long)r.checked, (long long)r.first_row,
                   (long long)r.first_col, r.first_got, r.first_exact, r.first_bound);
            rc = 1;
        }
        /* how far the device is from the default model, for the record */
        int64_t diff = 0;
        for (int64_t i = 0; i < A->m * ldy; i++)
            diff += memcmp((char *)yg + i * es, (char *)yr + i * es, es) != 0;
        printf("    (%lld of %lld elements differ from the uncalibrated default model; max err/bound %.3g)\n",
               (long long)diff, (long long)(A->m * ldy), r.max_ratio);
    }
    printf("  %-14s %-22s N=%-4lld ldx=%-4lld alpha=%g beta=%g: %s [%s, %d paths agree]\n", cb->name, what,
           (long long)n, (long long)ldx, alpha, beta, rc ? "FAIL" : "ok", check, rc ? 0 : paths);

    loomcu_tc_plan_destroy(&plan);
    free_device_operands(&dp);
    free(val);
    free(x);
    free(y0);
    free(yr);
    free(yg);
    return rc;
}

static void test_exact_inputs(void **state)
{
    (void)state;
    int fails = 0;
    /* K = 700: 4 parts in the tiles form; K = 250: one, whose blocks finish
     * their own outputs (whole tiles two at a time where Y allows) */
    const int64_t ks[2] = {700, 250};
    for (int w = 0; w < 2; w++) {
        host_csr A = random_csr(150, ks[w], 0.05);
        for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++) {
            fails += run_case(&A, &combos[c], 100, 0, 1.0f, 0.0f, DATA_EXACT, "random, exact inputs");
            fails += run_case(&A, &combos[c], 100, 3, 0.5f, -1.5f, DATA_EXACT, "random, exact inputs");
            fails += run_case(&A, &combos[c], 7, 1, 2.0f, 1.0f, DATA_EXACT, "random, exact inputs");
        }
        free(A.ro);
        free(A.ci);
    }
    assert_int_equal(fails, 0);
}

static void test_random(void **state)
{
    (void)state;
    host_csr A = random_csr(300, 700, 0.03);
    const int64_t ns[] = {1, 7, 64, 100, 130, 256};
    int fails = 0;
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            const int64_t n = ns[t];
            fails += run_case(&A, &combos[c], n, 0, 1.0f, 0.0f, DATA_RANDOM, "random");
            if (t % 2)
                fails += run_case(&A, &combos[c], n, 3, 0.5f, -1.5f, DATA_RANDOM, "random, odd ldx");
        }
    free(A.ro);
    free(A.ci);
    assert_int_equal(fails, 0);
}

/* 24000 rows of ~6 non-zeros: 3000 blocks of eight 1-warp rows, more than
 * the 132 x 3 an H200 runs at once, so each warp walks several rows (and the
 * long rows 2 and 3 share the launch); N = 72 ends in a partial strip.  Then
 * the same rows with K = 1100. */
static void test_tall(void **state)
{
    (void)state;
    host_csr A = random_csr(24000, 256, 0.025);
    int fails = 0;
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
        fails += run_case(&A, &combos[c], 72, 0, 1.0f, 0.0f, DATA_RANDOM, "tall");
    fails += run_case(&A, &combos[0], 72, 0, 1.0f, 0.0f, DATA_EXACT, "tall, exact inputs");
    free(A.ro);
    free(A.ci);
    /* K = 1100 on 375 row tiles: one part in the tiles form, whose 69
     * slices take 18 steps, placed in 5 chunks of A */
    A = random_csr(24000, 1100, 0.004);
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++)
        fails += run_case(&A, &combos[c], 130, 0, 1.0f, 0.0f, DATA_RANDOM, "tall and wide");
    free(A.ro);
    free(A.ci);
    assert_int_equal(fails, 0);
}

/* K of 1200, 2000 and 3000, X rows far apart: on an H200 the resident
 * kernel holds 1200 in strips of 64 columns (up to 1613 rows) and 2000 in
 * strips of 32 (up to 2904), so the forced resident path runs both widths,
 * N = 100 ending in a partial strip; 3000 runs on the gather kernel alone.
 * Rows of 150 and 600 non-zeros take 8 parts of several groups; the row
 * of min(K, 2500) takes 2 to 16 segments. */
static void test_wide(void **state)
{
    (void)state;
    const int64_t ks[] = {1200, 2000, 3000};
    int fails = 0;
    for (size_t w = 0; w < sizeof ks / sizeof ks[0]; w++) {
        host_csr A = random_csr(200, ks[w], 0.02);
        for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++) {
            fails += run_case(&A, &combos[c], 100, 0, 1.0f, 0.0f, DATA_RANDOM, "wide");
            fails += run_case(&A, &combos[c], 64, 3, 0.5f, -1.5f, DATA_RANDOM, "wide, odd ldx");
        }
        free(A.ro);
        free(A.ci);
    }
    assert_int_equal(fails, 0);
}

/* The bounds the selector reads (loomcu_tc_resident_max_k, through the
 * CUDA backend's device information) are the resident kernel's own: at K
 * equal to the 64-column strips' bound and to the 32-column strips' the
 * forced resident path runs, one row of X past the second it declines. */
static void test_resident_bound(void **state)
{
    (void)state;
    int64_t max_k = 0, max_k_narrow = 0;
    assert_int_equal(loomcu_tc_resident_max_k(&max_k, &max_k_narrow), cudaSuccess);
    printf("  the resident strips hold K <= %lld (64 columns), %lld (32) on this device\n", (long long)max_k,
           (long long)max_k_narrow);
    assert_true(max_k > 0 && max_k_narrow > max_k);
    const int64_t n = 64;
    const int64_t ks[4] = {max_k, max_k + 1, max_k_narrow, max_k_narrow + 1};
    for (int c = 0; c < 4; c++) {
        const int64_t k = ks[c];
        host_csr A = random_csr(64, k, 0.05);
        tc_config cfg = {TC_PREC_F16, 16, TC_FORM_ROWS};
        loomcu_tc_plan plan;
        assert_int_equal(loomcu_tc_plan_create(&plan, A.ro, A.m, &cfg), cudaSuccess);
        uint16_t *v = calloc((size_t)A.nnz + 1, 2), *x = calloc((size_t)(k * n), 2);
        assert_true(v && x);
        void *y = NULL;
        assert_int_equal(cudaMalloc(&y, 2 * A.m * n), cudaSuccess);
        loomcu_tc_problem dp = {A.m, k, n, dev_copy(A.ro, sizeof(int64_t) * (A.m + 1)),
                                dev_copy(A.ci, sizeof(int32_t) * A.nnz), dev_copy(v, 2 * A.nnz),
                                TC_VAL_F16, dev_copy(x, 2 * k * n), n, y, n, 1.0f, 0.0f};
        assert_int_equal(loomcu_tc_spmm_path(&plan, &dp, NULL, LOOMCU_TC_PATH_RESIDENT),
                         c < 3 ? cudaSuccess : cudaErrorNotSupported);
        assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
        loomcu_tc_plan_destroy(&plan);
        free_device_operands(&dp);
        free(v);
        free(x);
        free(A.ro);
        free(A.ci);
    }
}

/* The resident kernel's spread rows (tc_spmm.cu, rx_spread): the longest
 * rows of 8 parts run on 8 warps, their sums meeting in shared memory;
 * the bits must not move.  random_csr(300, 700): rows 2, 3 and 4 (150,
 * 600, 700 non-zeros against a mean of about 26) at k = 16; at k = 8 only
 * row 2, rows 3 and 4 being cut into segments.  Row 2 at k = 16 has 10
 * groups, so parts 5-7 are empty.  Then 400 rows of 400 in 2000: the plan
 * spreads at most 2 a multiprocessor, so each block gets two, one on
 * each half of its warps.  A launch spreads them only where the longest
 * has twice a warp's share of the non-zeros (rx_try): 300 rows run on
 * 19 blocks of 16 warps, a share of about 26; the 2000 on one block a
 * multiprocessor at N = 72 and 128 (two strips), 132 multiprocessors: a
 * share of about 160 (nnz ~ 166000), 1/2.5 of the longest, 1/2.2 on 114. */
static void test_spread(void **state)
{
    (void)state;
    int dev = 0, sms = 0;
    assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
    assert_int_equal(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
    host_csr A = random_csr(300, 700, 0.03);
    const struct {
        tc_config cfg;
        int64_t spread;
    } want[3] = {{{TC_PREC_F16, 16, TC_FORM_ROWS}, 3}, {{TC_PREC_F16, 8, TC_FORM_ROWS}, 1},
                 {{TC_PREC_TF32, 8, TC_FORM_ROWS}, 0}};
    for (int c = 0; c < 3; c++) {
        loomcu_tc_plan plan;
        assert_int_equal(loomcu_tc_plan_create(&plan, A.ro, A.m, &want[c].cfg), cudaSuccess);
        printf("  %s k%d: %lld rows spread\n", want[c].cfg.precision == TC_PREC_TF32 ? "tf32" : "f16", want[c].cfg.k,
               (long long)plan.nspread);
        assert_int_equal(plan.nspread, want[c].spread);
        loomcu_tc_plan_destroy(&plan);
    }
    int fails = 0;
    for (size_t c = 0; c < 4; c++) /* fp16 and bf16 storage, k16 and k8 */
        for (int64_t n = 64; n <= 100; n += 36)
            fails += run_case(&A, &combos[c], n, n == 100 ? 3 : 0, n == 100 ? 0.5f : 1.0f, n == 100 ? -1.5f : 0.0f,
                              DATA_RANDOM, "spread rows");
    free(A.ro);
    free(A.ci);

    const int64_t m = 2000, k = 700;
    host_csr B = {m, k, 0, malloc(sizeof(int64_t) * (m + 1)), malloc(sizeof(int32_t) * m * k)};
    for (int64_t i = 0; i < m; i++) {
        B.ro[i] = B.nnz;
        for (int64_t j = 0; j < k; j++)
            if (i % 5 == 0 ? j < 400 : uniform() < 0.005)
                B.ci[B.nnz++] = (int32_t)j;
    }
    B.ro[m] = B.nnz;
    loomcu_tc_plan plan;
    tc_config cfg = {TC_PREC_F16, 16, TC_FORM_ROWS};
    assert_int_equal(loomcu_tc_plan_create(&plan, B.ro, B.m, &cfg), cudaSuccess);
    printf("  2000 rows, 400 of 400 non-zeros: %lld spread (%d multiprocessors)\n", (long long)plan.nspread, sms);
    assert_int_equal(plan.nspread, 2 * sms < 400 ? 2 * sms : 400);
    loomcu_tc_plan_destroy(&plan);
    fails += run_case(&B, &combos[0], 128, 0, 1.0f, 0.0f, DATA_RANDOM, "many spread rows");
    fails += run_case(&B, &combos[2], 72, 0, 1.0f, 0.0f, DATA_RANDOM, "many spread rows");
    free(B.ro);
    free(B.ci);
    assert_int_equal(fails, 0);
}

/* Inf and NaN in X: the tiles form must not let them meet A's zeros (one
 * Inf would turn its 64 rows to NaN); every form must give the reference's
 * answer, NaN where the reference has NaN.  Exact inputs otherwise, so the
 * comparison is bit for bit under any MMA. */
static void test_nonfinite(void **state)
{
    (void)state;
    int fails = 0;
    const int which[2] = {COMBO_TILES_F16, COMBO_TILES_BF16};
    const int64_t ks[3] = {250, 400, 1200}; /* 1, 2 and 8 parts in the tiles form */
    for (int w = 0; w < 3; w++) {
        host_csr A = random_csr(200, ks[w], 0.05);
        for (int c = 0; c < 2; c++) {
            fails += run_case(&A, &combos[which[c]], 100, 0, 1.0f, 0.0f, DATA_NONFINITE, "Inf/NaN in X");
            fails += run_case(&A, &combos[which[c]], 37, 5, 2.0f, 0.5f, DATA_NONFINITE, "Inf/NaN in X");
        }
        free(A.ro);
        free(A.ci);
    }
    assert_int_equal(fails, 0);
}

/* Calls in a row on one stream, with no wait on the host between them, each
 * reading what the one before wrote (Y with beta = 1, then Y as X) or
 * overwriting what it read: the kernels are launched to overlap the one
 * before them (programmatic dependent launch, pdl.cuh), so a kernel that
 * touched memory before its wait would read stale values here.  Integer
 * inputs: every partial sum is exact, so any MMA gives the reference's bits.
 * Each kernel chained with itself, and the rows form's two alternating. */
static int run_chain(const host_csr *A, const struct combo *cb, const loomcu_tc_path *paths, int npaths,
                     const char *what)
{
    if (form_skipped(cb))
        return 0;
    const int64_t n = 100, m = A->m; /* A is square: Y can be the next X */
    const size_t es = tc_value_size(cb->vt), bytes = es * (size_t)(m * n);
    void *val = malloc(es * (A->nnz ? A->nnz : 1)), *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
    void *got = malloc(bytes);
    /* A's values +-1, X, Y and Z's -1, 0 or 1: the chain's sums stay small
     * integers (a few hundred at most in practice, far from fp16's 65504) */
    for (int64_t i = 0; i < A->nnz; i++)
        tc_store(val, i, cb->vt, next_u64() % 2 ? 1.0f : -1.0f);
    for (int64_t i = 0; i < m * n; i++) {
        tc_store(x, i, cb->vt, (float)((int)(next_u64() % 3) - 1));
        tc_store(y, i, cb->vt, (float)((int)(next_u64() % 3) - 1));
        tc_store(z, i, cb->vt, (float)((int)(next_u64() % 3) - 1));
    }

    tc_config cfg = {cb->prec, cb->k, cb->form};
    loomcu_tc_plan plan;
    assert_int_equal(loomcu_tc_plan_create(&plan, A->ro, m, &cfg), cudaSuccess);
    void *ro = dev_copy(A->ro, sizeof(int64_t) * (m + 1)), *ci = dev_copy(A->ci, sizeof(int32_t) * A->nnz);
    void *dval = dev_copy(val, es * A->nnz), *dx = dev_copy(x, bytes), *dy = dev_copy(y, bytes),
         *dz = dev_copy(z, bytes);
    cudaStream_t st;
    assert_int_equal(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);

    /* Y = A X + 0 Y; Y = A X + Y; Z = A Y; Y = A Z + 0.5 Y */
    const struct {
        void *in, *out;
        void *hin, *hout;
        float beta;
    } step[4] = {{dx, dy, x, y, 0.0f}, {dx, dy, x, y, 1.0f}, {dy, dz, y, z, 0.0f}, {dz, dy, z, y, 0.5f}};
    tc_mma_model model;
    tc_model_default(&model);
    for (int s = 0; s < 4; s++) {
        tc_problem hp = {m, m, n, A->ro, A->ci, val, cb->vt, step[s].hin, n, step[s].hout, n, 1.0f, step[s].beta};
        tc_reference_spmm(&hp, &cfg, &model);
    }
    int rc = 0, ran = 0;
    for (int s = 0; s < 4 && rc == 0; s++) {
        loomcu_tc_problem dp = {m, m, n, ro, ci, dval, cb->vt, step[s].in, n, step[s].out, n, 1.0f, step[s].beta};
        cudaError_t e = loomcu_tc_spmm_path(&plan, &dp, st, paths[s % npaths]);
        if (e == cudaErrorNotSupported)
            break;
        assert_int_equal(e, cudaSuccess);
        ran++;
    }
    assert_int_equal(cudaStreamSynchronize(st), cudaSuccess);
    if (ran == 4) {
        const void *want[2] = {y, z};
        void *have[2] = {dy, dz};
        for (int o = 0; o < 2; o++) {
            assert_int_equal(cudaMemcpy(got, have[o], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
            int64_t diff = 0, first = -1;
            for (int64_t i = 0; i < m * n; i++)
                if (differ(got, want[o], i, cb->vt) && diff++ == 0)
                    first = i;
            if (diff) {
                printf("    FAIL chain: %s differs from the reference in %lld elements; first (%lld, %lld): "
                       "gpu %.9g ref %.9g\n", o ? "Z" : "Y", (long long)diff, (long long)(first / n),
                       (long long)(first % n), tc_load(got, first, cb->vt), tc_load(want[o], first, cb->vt));
                rc = 1;
            }
        }
    }
    printf("  %-14s %-34s N=%-4lld 4 calls in a row: %s\n", cb->name, what, (long long)n,
           ran < 4 ? "kernel not available here, skipped" : rc ? "FAIL" : "ok [exact-inputs]");
    cudaStreamDestroy(st);
    loomcu_tc_plan_destroy(&plan);
    cudaFree(ro);
    cudaFree(ci);
    cudaFree(dval);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dz);
    free(val);
    free(x);
    free(y);
    free(z);
    free(got);
    return rc;
}

static void test_chained(void **state)
{
    (void)state;
    const int64_t m = 1500; /* K within the resident kernel's strips of 64 */
    host_csr A = {m, m, 0, malloc(sizeof(int64_t) * (m + 1)), malloc(sizeof(int32_t) * m * m)};
    for (int64_t i = 0; i < m; i++) {
        A.ro[i] = A.nnz;
        for (int64_t j = 0; j < m; j++)
            if (i % 100 == 7 || uniform() < 0.01) /* rows of 1500: long rows, in segments */
                A.ci[A.nnz++] = (int32_t)j;
    }
    A.ro[m] = A.nnz;
    const loomcu_tc_path gather = LOOMCU_TC_PATH_GATHER, resident = LOOMCU_TC_PATH_RESIDENT,
                         plain = LOOMCU_TC_PATH_TILES_PLAIN, piped = LOOMCU_TC_PATH_TILES_PIPELINED;
    const loomcu_tc_path both[2] = {LOOMCU_TC_PATH_GATHER, LOOMCU_TC_PATH_RESIDENT};
    int fails = 0;
    fails += run_chain(&A, &combos[0], &gather, 1, "gather kernel");
    fails += run_chain(&A, &combos[0], &resident, 1, "resident kernel");
    fails += run_chain(&A, &combos[0], both, 2, "gather and resident in turn");
    fails += run_chain(&A, &combos[4], &gather, 1, "gather kernel");
    fails += run_chain(&A, &combos[COMBO_TILES_F16], &plain, 1, "plain tiles kernel");
    fails += run_chain(&A, &combos[COMBO_TILES_F16], &piped, 1, "pipelined tiles kernel");
    free(A.ro);
    free(A.ci);
    assert_int_equal(fails, 0);
}

static void test_dlmc(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/data/unittest/dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx", LOOM_SRCDIR);
    host_csr A;
    int fails = 0;
    assert_int_equal(read_smtx(path, &A), 0);
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++) {
        fails += run_case(&A, &combos[c], 256, 0, 1.0f, 0.0f, DATA_RANDOM, "dlmc unittest");
        fails += run_case(&A, &combos[c], 100, 0, 1.0f, 0.5f, DATA_RANDOM, "dlmc unittest");
    }
    free(A.ro);
    free(A.ci);
    const char *list = getenv("LOOM_TC_DLMC"); /* extra .smtx files, ':'-separated */
    if (list) {
        char *copy = strdup(list), *save = NULL;
        for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
            if (read_smtx(p, &A)) {
                printf("  cannot read %s\n", p);
                fails++;
                continue;
            }
            const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
            fails += run_case(&A, &combos[0], 256, 0, 1.0f, 0.0f, DATA_RANDOM, base);
            fails += run_case(&A, &combos[4], 130, 0, 1.0f, 0.0f, DATA_RANDOM, base);
            fails += run_case(&A, &combos[COMBO_TILES_F16], 256, 0, 1.0f, 0.0f, DATA_RANDOM, base);
            fails += run_case(&A, &combos[COMBO_TILES_F16], 100, 0, 1.0f, 0.0f, DATA_EXACT, base);
            free(A.ro);
            free(A.ci);
        }
        free(copy);
    }
    assert_int_equal(fails, 0);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    snprintf(device_name, sizeof device_name, "%s", prop.name);
    printf("device: %s\n", device_name);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_inputs),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_tall),
        cmocka_unit_test(test_wide),
        cmocka_unit_test(test_resident_bound),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_chained),
        cmocka_unit_test(test_dlmc),
    };
    /* LOOM_TC_TEST_ONLY=test_spread (a cmocka pattern) runs those tests
     * only: the sanitizer runs, which are slow, use it */
    const char *only = getenv("LOOM_TC_TEST_ONLY");
    if (only && *only) {
        printf("LOOM_TC_TEST_ONLY=%s: only the tests it matches run\n", only);
        cmocka_set_test_filter(only);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
